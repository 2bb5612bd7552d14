//! GOAL text (LogGOPSim's schedule format, grammar in LOGGP.md) → [`Schedule`].
//!
//! ```text
//! num_ranks 2
//! rank 0 {
//! l1: send 1b to 1 tag 0
//! l2: recv 1b from 1 tag 0
//! l3: calc 100 cpu 0          // 100 ns
//! l2 requires l1
//! l3 irequires l2
//! }
//! ```
//!
//! The text is split into statements by a hand-written byte lexer: a statement ends
//! at a newline, after a `{`, or before a `}` (so `rank 0 {` and a lone `}` are
//! statements of their own). `//` and `/* */` comments count as blanks; a block
//! comment may span lines. Nothing is allocated per line except the labels the
//! builder keeps for deadlock reports; labels are looked up in a per-block map that
//! borrows from the text, and dependencies on labels defined later in the block are
//! resolved when the block closes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{OpId, Schedule, ScheduleBuilder, ANY};
use crate::error::{Error, Result};
use crate::time::NS;

/// Parse GOAL text; `file` names the source in line-numbered errors. Times are ns.
pub fn parse_goal(text: &str, file: &str) -> Result<Schedule> {
    parse_goal_releasing(text, file, &mut |_| {})
}

/// [`parse_goal`], telling `release(offset)` each time the text before `offset` is
/// no longer needed (at the end of a rank block), so a mapped file can let it go.
pub fn parse_goal_releasing(text: &str, file: &str, release: &mut dyn FnMut(usize)) -> Result<Schedule> {
    let mut p = Parser::new(text);
    match p.run(release) {
        Ok(()) => {}
        Err((line, msg)) => return Err(Error::Parse { file: file.to_string(), line, msg }),
    }
    let builder = p.builder.take().expect("run() leaves a builder on success");
    builder.build().map_err(|e| match e {
        Error::Input(msg) => Error::Input(format!("{file}: {msg}")),
        other => other,
    })
}

/// An error inside the parser: (1-based line, message); the file name is added last.
type PResult<T> = std::result::Result<T, (usize, String)>;

/// Bytes of text parsed between two calls of the release hook.
const RELEASE_EVERY: usize = 8 << 20;
/// Largest cpu or nic index: the builder counts `index + 1` CPUs/NICs in a `u8`.
const MAX_UNIT: u64 = u8::MAX as u64 - 1;
/// Ranks and tags are stored as `i32` (with -1 for ANY).
const MAX_I32: u64 = i32::MAX as u64;
/// Longest statement kept; a valid one has at most 13 tokens
/// (`l: recv 8b from 1 tag 2 cpu 3 nic 4`), so a 14th is always reported as junk.
const MAX_TOKENS: usize = 16;

// ---------------------------------------------------------------- lexer

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Word,
    Colon,
    LBrace,
    RBrace,
}

#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    line: usize,
}

const NO_TOK: Tok<'static> = Tok { kind: Kind::Word, text: "", line: 0 };

/// One statement: up to [`MAX_TOKENS`] tokens (extra ones are dropped; see there).
struct Stmt<'a> {
    toks: [Tok<'a>; MAX_TOKENS],
    n: usize,
    /// Line on which the statement ended (for "found the end of the line").
    end_line: usize,
}

impl<'a> Stmt<'a> {
    fn get(&self, i: usize) -> Option<&Tok<'a>> {
        if i < self.n {
            Some(&self.toks[i])
        } else {
            None
        }
    }

    fn word(&self, i: usize) -> Option<&'a str> {
        self.get(i).filter(|t| t.kind == Kind::Word).map(|t| t.text)
    }

    /// Line of token `i`, or of the statement's end when it is missing.
    fn line_at(&self, i: usize) -> usize {
        self.get(i).map_or(self.end_line, |t| t.line)
    }

    /// `"tok"` or "the end of the line", for "expected X, found Y".
    fn found(&self, i: usize) -> String {
        match self.get(i) {
            None => "the end of the line".to_string(),
            Some(t) => quote(t.text),
        }
    }
}

/// Quote a token for a message, shortening very long ones.
fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.len() <= MAX {
        return format!("\"{s}\"");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("\"{}...\"", &s[..end])
}

/// Byte classes: 0 = word byte, 1 = blank, 2 = newline, 3 = punctuation, 4 = `/`.
const CLASS: [u8; 256] = {
    let mut c = [0u8; 256];
    c[b' ' as usize] = 1;
    c[b'\t' as usize] = 1;
    c[b'\r' as usize] = 1;
    c[0x0b] = 1;
    c[0x0c] = 1;
    c[b'\n' as usize] = 2;
    c[b':' as usize] = 3;
    c[b'{' as usize] = 3;
    c[b'}' as usize] = 3;
    c[b'/' as usize] = 4;
    c
};

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    /// Line of `pos`, 1-based.
    line: usize,
}

impl<'a> Lexer<'a> {
    /// Is there a comment opening at `pos` (which holds a `/`)?
    #[inline]
    fn comment_at(&self, pos: usize) -> bool {
        matches!(self.text.as_bytes().get(pos + 1), Some(b'/') | Some(b'*'))
    }

    /// Skip blanks and comments (not newlines, except inside block comments).
    #[inline]
    fn skip_blanks(&mut self) -> PResult<()> {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            match CLASS[b[self.pos] as usize] {
                1 => self.pos += 1,
                4 if self.comment_at(self.pos) => {
                    if b[self.pos + 1] == b'/' {
                        // Line comment: up to (not including) the newline.
                        self.pos += 2;
                        while self.pos < b.len() && b[self.pos] != b'\n' {
                            self.pos += 1;
                        }
                    } else {
                        let open = self.line;
                        self.pos += 2;
                        loop {
                            match b.get(self.pos) {
                                None => {
                                    return Err((
                                        open,
                                        "unterminated \"/*\" comment (no \"*/\" before the end of the file)".into(),
                                    ))
                                }
                                Some(b'*') if b.get(self.pos + 1) == Some(&b'/') => {
                                    self.pos += 2;
                                    break;
                                }
                                Some(b'\n') => self.line += 1,
                                _ => {}
                            }
                            self.pos += 1;
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Read the next statement into `st`; `false` at the end of the text.
    fn statement(&mut self, st: &mut Stmt<'a>) -> PResult<bool> {
        st.n = 0;
        let b = self.text.as_bytes();
        loop {
            self.skip_blanks()?;
            if self.pos >= b.len() {
                st.end_line = self.line;
                return Ok(st.n > 0);
            }
            let c = b[self.pos];
            let start = self.pos;
            let kind = match c {
                b'\n' => {
                    st.end_line = self.line;
                    self.pos += 1;
                    self.line += 1;
                    if st.n > 0 {
                        return Ok(true);
                    }
                    continue;
                }
                b'}' if st.n > 0 => {
                    // Ends the statement before it; read again as a statement of its own.
                    st.end_line = self.line;
                    return Ok(true);
                }
                b'}' => Kind::RBrace,
                b'{' => Kind::LBrace,
                b':' => Kind::Colon,
                _ => Kind::Word,
            };
            if kind == Kind::Word {
                self.pos += 1;
                while self.pos < b.len() {
                    match CLASS[b[self.pos] as usize] {
                        0 => self.pos += 1,
                        4 if !self.comment_at(self.pos) => self.pos += 1,
                        _ => break,
                    }
                }
            } else {
                self.pos += 1;
            }
            if st.n < MAX_TOKENS {
                st.toks[st.n] = Tok { kind, text: &self.text[start..self.pos], line: self.line };
                st.n += 1;
            }
            if kind == Kind::LBrace || kind == Kind::RBrace {
                st.end_line = self.line;
                return Ok(true);
            }
        }
    }
}

// ---------------------------------------------------------------- numbers

enum Num {
    Val(u64),
    Invalid,
    TooBig,
}

#[inline]
fn uint(s: &str) -> Num {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Num::Invalid;
    }
    let mut v: u64 = 0;
    for &c in b {
        v = match v.checked_mul(10).and_then(|v| v.checked_add((c - b'0') as u64)) {
            Some(v) => v,
            None => return Num::TooBig,
        };
    }
    Num::Val(v)
}

// ---------------------------------------------------------------- parser

const FX_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// A small, fast hasher (FxHash) for the label map; GOAL labels are short.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap());
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(FX_K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(FX_K);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(FX_K);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A dependency whose labels were not both known when it was read.
struct Dep<'a> {
    start: bool,
    op: &'a str,
    before: &'a str,
    line: usize,
}

enum State {
    /// Before `num_ranks`.
    Start,
    /// Between rank blocks.
    Top,
    /// After `rank R` without its `{`: (rank, line).
    AwaitBrace(u32, usize),
    /// Inside `rank R {`: (rank, line of the opening).
    Block(u32, usize),
}

struct Parser<'a> {
    lex: Lexer<'a>,
    builder: Option<ScheduleBuilder>,
    num_ranks: u32,
    num_ranks_line: usize,
    state: State,
    /// Rank → line of its block, to reject a second block.
    blocks: FxMap<u32, usize>,
    /// Labels of the current block: name → (op, line).
    labels: FxMap<&'a str, (OpId, usize)>,
    /// Dependencies of the current block waiting for a later label.
    deferred: Vec<Dep<'a>>,
}

fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

fn ranks_desc(n: u32) -> String {
    if n == 1 {
        "num_ranks is 1 (rank 0 only)".to_string()
    } else {
        format!("num_ranks is {n} (ranks 0 to {})", n - 1)
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            lex: Lexer { text, pos: 0, line: 1 },
            builder: None,
            num_ranks: 0,
            num_ranks_line: 0,
            state: State::Start,
            blocks: FxMap::default(),
            labels: FxMap::default(),
            deferred: Vec::new(),
        }
    }

    fn run(&mut self, release: &mut dyn FnMut(usize)) -> PResult<()> {
        let mut st = Stmt { toks: [NO_TOK; MAX_TOKENS], n: 0, end_line: 1 };
        let mut released = 0;
        while self.lex.statement(&mut st)? {
            self.statement(&st)?;
            // Between blocks nothing borrows the text behind the lexer.
            if matches!(self.state, State::Top) && self.lex.pos >= released + RELEASE_EVERY {
                released = self.lex.pos;
                release(released);
            }
        }
        match self.state {
            State::Start => {
                Err((1, "no \"num_ranks <n>\" line; a GOAL file starts with one, e.g. \"num_ranks 2\"".into()))
            }
            State::Top => Ok(()),
            State::AwaitBrace(r, line) => {
                Err((line, format!("expected \"{{\" after \"rank {r}\", found the end of the file")))
            }
            State::Block(r, line) => Err((
                line,
                format!(
                    "the block of rank {r} (opened on line {line}) is never closed: expected \"}}\" before the end of \
                     the file (line {})",
                    self.last_line()
                ),
            )),
        }
    }

    fn statement(&mut self, st: &Stmt<'a>) -> PResult<()> {
        let first = st.toks[0];
        match self.state {
            State::Block(rank, open) => match first.kind {
                Kind::RBrace => self.close_block(rank),
                Kind::Word => self.block_statement(st, rank, open),
                Kind::LBrace => Err((first.line, format!("unexpected \"{{\" inside the block of rank {rank}"))),
                Kind::Colon => Err((first.line, "expected a label before \":\"".into())),
            },
            State::AwaitBrace(rank, _) => {
                if first.kind == Kind::LBrace {
                    self.open_block(rank, first.line);
                    Ok(())
                } else {
                    Err((first.line, format!("expected \"{{\" after \"rank {rank}\", found {}", st.found(0))))
                }
            }
            State::Start => {
                if first.kind == Kind::Word && first.text == "num_ranks" {
                    self.num_ranks(st)
                } else {
                    Err((first.line, format!("expected \"num_ranks <n>\" before anything else, found {}", st.found(0))))
                }
            }
            State::Top => match first.kind {
                Kind::Word if first.text == "rank" => self.rank_header(st),
                Kind::Word if first.text == "num_ranks" => {
                    Err((first.line, format!("\"num_ranks\" given twice (first on line {})", self.num_ranks_line)))
                }
                Kind::Word if self.looks_like_op(st) => Err((
                    first.line,
                    format!(
                        "{} is outside any rank block; operations and dependencies go inside \"rank <r> {{ ... }}\"",
                        st.found(0)
                    ),
                )),
                Kind::RBrace => Err((first.line, "unmatched \"}\" (no rank block is open)".into())),
                Kind::LBrace => Err((first.line, "unexpected \"{\"; a block opens with \"rank <r> {\"".into())),
                _ => Err((first.line, format!("expected \"rank <r> {{\", found {}", st.found(0)))),
            },
        }
    }

    /// Number of the file's last line (a final newline does not start a new one).
    fn last_line(&self) -> usize {
        if self.lex.line > 1 && self.lex.text.ends_with('\n') {
            self.lex.line - 1
        } else {
            self.lex.line
        }
    }

    fn looks_like_op(&self, st: &Stmt<'a>) -> bool {
        matches!(st.toks[0].text, "send" | "recv" | "calc")
            || st.get(1).is_some_and(|t| t.kind == Kind::Colon)
            || matches!(st.word(1), Some("requires" | "irequires"))
    }

    fn builder(&mut self) -> &mut ScheduleBuilder {
        self.builder.as_mut().expect("num_ranks creates the builder")
    }

    fn end(&self, st: &Stmt<'a>, i: usize, after: &str) -> PResult<()> {
        if i < st.n {
            Err((st.line_at(i), format!("unexpected {} after {after}; expected the end of the line", st.found(i))))
        } else {
            Ok(())
        }
    }

    fn num_ranks(&mut self, st: &Stmt<'a>) -> PResult<()> {
        let line = st.toks[0].line;
        let n = match st.word(1).map(uint) {
            Some(Num::Val(n)) if n > MAX_I32 => {
                return Err((st.line_at(1), format!("num_ranks {n} is too large (at most {MAX_I32})")))
            }
            Some(Num::Val(n)) => n as u32,
            Some(Num::TooBig) => {
                return Err((st.line_at(1), format!("num_ranks {} is too large (at most {MAX_I32})", st.found(1))))
            }
            _ => {
                return Err((
                    st.line_at(1),
                    format!("expected the number of ranks after \"num_ranks\", found {}", st.found(1)),
                ))
            }
        };
        if n == 0 {
            return Err((st.line_at(1), "num_ranks must be at least 1".into()));
        }
        self.end(st, 2, &format!("\"num_ranks {n}\""))?;
        self.num_ranks = n;
        self.num_ranks_line = line;
        self.builder = Some(ScheduleBuilder::new(n));
        self.state = State::Top;
        Ok(())
    }

    fn rank_header(&mut self, st: &Stmt<'a>) -> PResult<()> {
        let line = st.toks[0].line;
        let r = match st.word(1).map(uint) {
            Some(Num::Val(r)) if r < self.num_ranks as u64 => r as u32,
            Some(Num::Val(_)) | Some(Num::TooBig) => {
                return Err((
                    st.line_at(1),
                    format!("rank {} is out of range: {}", st.toks[1].text, ranks_desc(self.num_ranks)),
                ))
            }
            _ => return Err((st.line_at(1), format!("expected a rank number after \"rank\", found {}", st.found(1)))),
        };
        if let Some(&first) = self.blocks.get(&r) {
            return Err((line, format!("rank {r} has a second block (the first opened on line {first})")));
        }
        match st.get(2) {
            None => {
                self.state = State::AwaitBrace(r, line);
            }
            Some(t) if t.kind == Kind::LBrace => self.open_block(r, line),
            Some(t) => return Err((t.line, format!("expected \"{{\" after \"rank {r}\", found {}", st.found(2)))),
        }
        Ok(())
    }

    fn open_block(&mut self, rank: u32, line: usize) {
        self.blocks.insert(rank, line);
        self.state = State::Block(rank, line);
    }

    fn close_block(&mut self, rank: u32) -> PResult<()> {
        let deferred = std::mem::take(&mut self.deferred);
        for d in &deferred {
            self.add_dep(rank, d.start, d.op, d.before, d.line, true)?;
        }
        self.deferred = deferred;
        self.deferred.clear();
        self.labels.clear();
        self.state = State::Top;
        Ok(())
    }

    fn block_statement(&mut self, st: &Stmt<'a>, rank: u32, open: usize) -> PResult<()> {
        let first = st.toks[0];
        if st.get(1).is_some_and(|t| t.kind == Kind::Colon) {
            if !is_ident(first.text) {
                return Err((
                    first.line,
                    format!(
                        "invalid label {}: a label starts with a letter and has only letters, digits and \"_\"",
                        quote(first.text)
                    ),
                ));
            }
            let op = self.op(st, 2, rank)?;
            if let Some(&(_, prev)) = self.labels.get(first.text) {
                return Err((
                    first.line,
                    format!(
                        "label \"{}\" is defined twice in rank {rank}, on line {prev} and line {}",
                        first.text, first.line
                    ),
                ));
            }
            self.labels.insert(first.text, (op, first.line));
            self.builder().label(op, first.text);
            return Ok(());
        }
        match (first.text, st.word(1)) {
            (_, Some(kw @ ("requires" | "irequires"))) => {
                let before = match st.word(2) {
                    Some(b) => b,
                    None => {
                        return Err((st.line_at(2), format!("expected a label after \"{kw}\", found {}", st.found(2))))
                    }
                };
                self.end(st, 3, "the dependency")?;
                self.add_dep(rank, kw == "irequires", first.text, before, first.line, false)
            }
            ("send" | "recv" | "calc", _) => self.op(st, 0, rank).map(|_| ()),
            ("rank", _) => Err((
                first.line,
                format!("expected \"}}\" to close the block of rank {rank} (opened on line {open}) before \"rank\""),
            )),
            _ => Err((
                first.line,
                format!(
                    "expected an operation (send, recv, calc), a label (\"l1: ...\") or a dependency \
                     (\"l2 requires l1\"), found {}",
                    st.found(0)
                ),
            )),
        }
    }

    /// Add `op (i)requires before`; unknown labels are deferred to the end of the
    /// block unless `last` (the block is closing), where they are an error.
    fn add_dep(
        &mut self,
        rank: u32,
        start: bool,
        op: &'a str,
        before: &'a str,
        line: usize,
        last: bool,
    ) -> PResult<()> {
        let (a, b) = match (self.labels.get(op), self.labels.get(before)) {
            (Some(&(a, _)), Some(&(b, _))) => (a, b),
            _ if !last => {
                self.deferred.push(Dep { start, op, before, line });
                return Ok(());
            }
            (None, _) => return Err((line, self.unknown_label(op, rank))),
            (_, None) => return Err((line, self.unknown_label(before, rank))),
        };
        if a == b {
            return Err((line, format!("\"{op}\" cannot depend on itself")));
        }
        let builder = self.builder();
        if start {
            builder.irequires(a, b);
        } else {
            builder.requires(a, b);
        }
        Ok(())
    }

    fn unknown_label(&self, name: &str, rank: u32) -> String {
        let mut known: Vec<(OpId, &str)> = self.labels.iter().map(|(&l, &(op, _))| (op, l)).collect();
        known.sort_unstable();
        let names: Vec<&str> = known.iter().map(|&(_, l)| l).collect();
        let list = match names.len() {
            0 => format!("rank {rank} has no labels"),
            1..=5 => format!("rank {rank} has labels {}", names.join(", ")),
            n => format!("rank {rank} has {n} labels: {}, {}, {}, ..., {}", names[0], names[1], names[2], names[n - 1]),
        };
        format!("unknown label {} ({list})", quote(name))
    }

    /// Parse the operation starting at token `i` and add it to the builder.
    fn op(&mut self, st: &Stmt<'a>, i: usize, rank: u32) -> PResult<OpId> {
        let kw = match st.word(i) {
            Some(k @ ("send" | "recv" | "calc")) => k,
            _ => {
                return Err((
                    st.line_at(i),
                    format!("expected an operation (send, recv or calc) after the label, found {}", st.found(i)),
                ))
            }
        };
        if kw == "calc" {
            let ns = match st.word(i + 1).map(uint) {
                Some(Num::Val(v)) => v,
                Some(Num::TooBig) => {
                    return Err((st.line_at(i + 1), format!("calc {} is too long", st.found(i + 1))));
                }
                _ => {
                    return Err((
                        st.line_at(i + 1),
                        format!("expected a duration in ns after \"calc\", found {}", st.found(i + 1)),
                    ))
                }
            };
            let ps = match ns.checked_mul(NS) {
                Some(ps) => ps,
                None => {
                    return Err((st.line_at(i + 1), format!("calc {ns} is too long (at most {} ns)", u64::MAX / NS)))
                }
            };
            let opts = self.options(st, i + 2, "calc", false)?;
            return Ok(self.builder().calc(rank, ps, opts.cpu));
        }
        let send = kw == "send";
        let (what, dir, peer_word) =
            if send { ("a send", "to", "a destination rank") } else { ("a receive", "from", "a source rank or -1") };
        let size = self.size(st, i + 1, kw)?;
        if st.word(i + 2) != Some(dir) {
            return Err((
                st.line_at(i + 2),
                format!("expected \"{dir}\" after the size of {what}, found {}", st.found(i + 2)),
            ));
        }
        let p = i + 3;
        let peer: i32 = match st.word(p) {
            Some("-1") if !send => ANY,
            Some("-1") => {
                return Err((
                    st.line_at(p),
                    "a send needs a destination rank, found \"-1\" (only a receive may use -1 for any source)".into(),
                ))
            }
            Some(w) => match uint(w) {
                Num::Val(r) if r < self.num_ranks as u64 => r as i32,
                Num::Val(_) | Num::TooBig => {
                    let verb = if send { "send to" } else { "receive from" };
                    return Err((st.line_at(p), format!("{verb} rank {w}, but {}", ranks_desc(self.num_ranks))));
                }
                Num::Invalid => {
                    return Err((st.line_at(p), format!("expected {peer_word} after \"{dir}\", found {}", st.found(p))))
                }
            },
            None => {
                return Err((st.line_at(p), format!("expected {peer_word} after \"{dir}\", found {}", st.found(p))))
            }
        };
        let opts = self.options(st, p + 1, kw, true)?;
        let b = self.builder();
        Ok(if send {
            b.send(rank, peer as u32, size, opts.tag, opts.cpu, opts.nic)
        } else {
            b.recv(rank, peer, size, opts.tag, opts.cpu, opts.nic)
        })
    }

    /// `<int>b` (or `B`).
    fn size(&self, st: &Stmt<'a>, i: usize, kw: &str) -> PResult<u64> {
        let bad = |extra: &str| {
            Err((st.line_at(i), format!("expected a size such as \"8b\" after \"{kw}\", found {}{extra}", st.found(i))))
        };
        let Some(w) = st.word(i) else { return bad("") };
        let digits = match w.strip_suffix(['b', 'B']) {
            Some(d) => d,
            None if matches!(uint(w), Num::Invalid) => return bad(""),
            None => return bad(" (a size ends in \"b\")"),
        };
        match uint(digits) {
            Num::Val(v) => Ok(v),
            Num::TooBig => Err((st.line_at(i), format!("size {} is too large (at most {} bytes)", quote(w), u64::MAX))),
            Num::Invalid => bad(""),
        }
    }

    /// `[tag t] [cpu c] [nic n]` in any order, each at most once, to the end of the
    /// statement; `comm` says whether tag and nic are allowed (not for calc).
    fn options(&self, st: &Stmt<'a>, mut i: usize, kw: &str, comm: bool) -> PResult<Opts> {
        let mut o = Opts { tag: 0, cpu: 0, nic: 0 };
        let mut seen = [false; 3];
        let recv = kw == "recv";
        while i < st.n {
            let t = st.toks[i];
            let (slot, max) = match t.text {
                "tag" if comm && t.kind == Kind::Word => (0, MAX_I32),
                "cpu" if t.kind == Kind::Word => (1, MAX_UNIT),
                "nic" if comm && t.kind == Kind::Word => (2, MAX_UNIT),
                _ => {
                    let expected = if comm { "\"tag\", \"cpu\", \"nic\"" } else { "\"cpu\"" };
                    return Err((
                        t.line,
                        format!(
                            "unexpected {} after the {kw}; expected {expected} or the end of the line",
                            st.found(i)
                        ),
                    ));
                }
            };
            if seen[slot] {
                return Err((t.line, format!("\"{}\" is given twice in one {kw}", t.text)));
            }
            seen[slot] = true;
            let v = match st.word(i + 1) {
                Some("-1") if slot == 0 && recv => {
                    o.tag = ANY;
                    i += 2;
                    continue;
                }
                Some("-1") if slot == 0 => {
                    return Err((
                        st.line_at(i + 1),
                        "a send's tag cannot be -1 (only a receive may match any tag)".into(),
                    ))
                }
                Some(w) => match uint(w) {
                    Num::Val(v) if v <= max => v,
                    Num::Val(_) | Num::TooBig => {
                        return Err((st.line_at(i + 1), format!("{} {w} is too large (at most {max})", t.text)))
                    }
                    Num::Invalid => return Err(expected_number(st, i)),
                },
                None => return Err(expected_number(st, i)),
            };
            match slot {
                0 => o.tag = v as i32,
                1 => o.cpu = v as u8,
                _ => o.nic = v as u8,
            }
            i += 2;
        }
        Ok(o)
    }
}

fn expected_number(st: &Stmt<'_>, i: usize) -> (usize, String) {
    let key = st.toks[i].text;
    let what = if key == "tag" { "a tag (a number, or -1 in a receive)" } else { "a number" };
    (st.line_at(i + 1), format!("expected {what} after \"{key}\", found {}", st.found(i + 1)))
}

struct Opts {
    tag: i32,
    cpu: u8,
    nic: u8,
}
