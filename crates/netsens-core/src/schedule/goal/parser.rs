//! The GOAL parser's states: `num_ranks`, rank blocks, labels and dependencies
//! (resolved when their block closes).

use rustc_hash::FxHashMap as FxMap;
use std::collections::hash_map::Entry;

use super::lexer::{quote, Kind, Lexer, Stmt, NO_TOK};
use super::ops::{uint, Num};
use super::{PResult, MAX_I32, MAX_TOKENS, RELEASE_EVERY};
use crate::schedule::{OpId, ScheduleBuilder};

/// A dependency whose labels were not both known when it was read.
pub(super) struct Dep<'a> {
    pub(super) start: bool,
    pub(super) op: &'a str,
    pub(super) before: &'a str,
    pub(super) line: usize,
}

pub(super) enum State {
    /// Before `num_ranks`.
    Start,
    /// Between rank blocks.
    Top,
    /// After `rank R` without its `{`: (rank, line).
    AwaitBrace(u32, usize),
    /// Inside `rank R {`: (rank, line of the opening).
    Block(u32, usize),
}

pub(super) struct Parser<'a> {
    pub(super) lex: Lexer<'a>,
    pub(super) builder: Option<ScheduleBuilder>,
    pub(super) num_ranks: u32,
    pub(super) num_ranks_line: usize,
    pub(super) state: State,
    /// Rank → line of its block, to reject a second block.
    pub(super) blocks: FxMap<u32, usize>,
    /// Labels of the current block: name → (op, line).
    pub(super) labels: FxMap<&'a str, (OpId, usize)>,
    /// Dependencies of the current block waiting for a later label.
    pub(super) deferred: Vec<Dep<'a>>,
    /// Labels stay in the text (read back on demand) instead of the builder; then
    /// `block_starts` holds each block's first op and the offset of its `rank` line.
    pub(super) labels_in_text: bool,
    pub(super) block_starts: Vec<(OpId, usize)>,
}

pub(super) fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

pub(super) fn ranks_desc(n: u32) -> String {
    if n == 1 {
        "num_ranks is 1 (rank 0 only)".to_string()
    } else {
        format!("num_ranks is {n} (ranks 0 to {})", n - 1)
    }
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Parser {
            lex: Lexer { text, pos: 0, line: 1 },
            builder: None,
            num_ranks: 0,
            num_ranks_line: 0,
            state: State::Start,
            blocks: FxMap::default(),
            labels: FxMap::default(),
            deferred: Vec::new(),
            labels_in_text: false,
            block_starts: Vec::new(),
        }
    }

    /// A parser for a part of a file with `num_ranks` ranks that starts between
    /// rank blocks (after the file's `num_ranks` line).
    pub(super) fn for_part(text: &'a str, num_ranks: u32) -> Self {
        let mut p = Parser::new(text);
        p.num_ranks = num_ranks;
        p.builder = Some(ScheduleBuilder::new(num_ranks));
        p.state = State::Top;
        p
    }

    /// Read statements up to the `num_ranks` line; its value (`None` on an error).
    pub(super) fn header(&mut self) -> Option<u32> {
        let mut st = Stmt { toks: [NO_TOK; MAX_TOKENS], n: 0, end_line: 1 };
        while matches!(self.state, State::Start) {
            if !self.lex.statement(&mut st).ok()? {
                return None;
            }
            self.statement(&st).ok()?;
        }
        Some(self.num_ranks)
    }

    pub(super) fn run(&mut self, release: &mut dyn FnMut(usize)) -> PResult<()> {
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

    pub(super) fn statement(&mut self, st: &Stmt<'a>) -> PResult<()> {
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
    pub(super) fn last_line(&self) -> usize {
        if self.lex.line > 1 && self.lex.text.ends_with('\n') {
            self.lex.line - 1
        } else {
            self.lex.line
        }
    }

    pub(super) fn looks_like_op(&self, st: &Stmt<'a>) -> bool {
        matches!(st.toks[0].text, "send" | "recv" | "calc")
            || st.get(1).is_some_and(|t| t.kind == Kind::Colon)
            || matches!(st.word(1), Some("requires" | "irequires"))
    }

    pub(super) fn builder(&mut self) -> &mut ScheduleBuilder {
        self.builder.as_mut().expect("num_ranks creates the builder")
    }

    pub(super) fn end(&self, st: &Stmt<'a>, i: usize, after: &str) -> PResult<()> {
        if i < st.n {
            Err((st.line_at(i), format!("unexpected {} after {after}; expected the end of the line", st.found(i))))
        } else {
            Ok(())
        }
    }

    pub(super) fn num_ranks(&mut self, st: &Stmt<'a>) -> PResult<()> {
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

    pub(super) fn rank_header(&mut self, st: &Stmt<'a>) -> PResult<()> {
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
        if self.labels_in_text {
            let offset = st.toks[0].text.as_ptr() as usize - self.lex.text.as_ptr() as usize;
            let first_op = self.builder().num_ops() as OpId;
            self.block_starts.push((first_op, offset));
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

    pub(super) fn open_block(&mut self, rank: u32, line: usize) {
        self.blocks.insert(rank, line);
        self.state = State::Block(rank, line);
    }

    pub(super) fn close_block(&mut self, rank: u32) -> PResult<()> {
        let deferred = std::mem::take(&mut self.deferred);
        for d in &deferred {
            self.add_dep(rank, d.start, d.op, d.before, d.line, true)?;
        }
        self.deferred = deferred;
        self.deferred.clear();
        self.labels.clear();
        // The block's dependencies are all known: lay its edges out now.
        self.builder().seal();
        self.state = State::Top;
        Ok(())
    }

    pub(super) fn block_statement(&mut self, st: &Stmt<'a>, rank: u32, open: usize) -> PResult<()> {
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
            // One hash per label: the entry both checks and inserts.
            match self.labels.entry(first.text) {
                Entry::Occupied(e) => {
                    return Err((
                        first.line,
                        format!(
                            "label \"{}\" is defined twice in rank {rank}, on line {} and line {}",
                            first.text,
                            e.get().1,
                            first.line
                        ),
                    ))
                }
                Entry::Vacant(e) => {
                    e.insert((op, first.line));
                }
            }
            if !self.labels_in_text {
                self.builder().label(op, first.text);
            }
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
    pub(super) fn add_dep(
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

    pub(super) fn unknown_label(&self, name: &str, rank: u32) -> String {
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
}

/// The label of the `k`-th operation (0-based) of the rank block that `block`
/// starts with; `None` when that operation has none. The block parsed cleanly once.
pub(crate) fn nth_op_label(block: &str, k: usize) -> Option<&str> {
    let mut lex = Lexer { text: block, pos: 0, line: 1 };
    let mut st = Stmt { toks: [NO_TOK; MAX_TOKENS], n: 0, end_line: 1 };
    let mut seen = 0;
    while lex.statement(&mut st).ok()? {
        let first = st.toks[0];
        let labelled = st.get(1).is_some_and(|t| t.kind == Kind::Colon);
        if first.kind == Kind::Word && (labelled || matches!(first.text, "send" | "recv" | "calc")) {
            if seen == k {
                return labelled.then_some(first.text);
            }
            seen += 1;
        }
    }
    None
}
