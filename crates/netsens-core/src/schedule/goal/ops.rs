//! GOAL operations: `send`, `recv` and `calc` with their sizes, peers and options.

use super::lexer::{quote, Kind, Stmt};
use super::parser::{ranks_desc, Parser};
use super::{PResult, MAX_I32, MAX_UNIT};
use crate::schedule::{OpId, ANY};
use crate::time::NS;

pub(super) enum Num {
    Val(u64),
    Invalid,
    TooBig,
}

#[inline]
pub(super) fn uint(s: &str) -> Num {
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

impl<'a> Parser<'a> {
    /// Parse the operation starting at token `i` and add it to the builder.
    pub(super) fn op(&mut self, st: &Stmt<'a>, i: usize, rank: u32) -> PResult<OpId> {
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
    pub(super) fn size(&self, st: &Stmt<'a>, i: usize, kw: &str) -> PResult<u64> {
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
    pub(super) fn options(&self, st: &Stmt<'a>, mut i: usize, kw: &str, comm: bool) -> PResult<Opts> {
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
                Some(w)
                    if slot == 0
                        && w.bytes().all(|c| c.is_ascii_digit())
                        && !matches!(uint(w), Num::Val(v) if v <= MAX_I32) =>
                {
                    o.tag = wide_tag(w, recv).map_err(|e| (st.line_at(i + 1), e))?;
                    i += 2;
                    continue;
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

/// A tag of 10 or more digits, read as LogGOPSim reads it: modulo 2^32 (its parser
/// keeps 32 bits), where 2^32 − 1 (so also Schedgen's 2^64 − 1) is its any-tag. Other
/// values above netsens's largest tag, 2^31 − 1, are refused.
fn wide_tag(w: &str, recv: bool) -> Result<i32, String> {
    let Some(t) =
        w.bytes().try_fold(0u64, |v, c| c.is_ascii_digit().then(|| (v * 10 + u64::from(c - b'0')) % (1 << 32)))
    else {
        return Err(format!("expected a tag (a number, or -1 in a receive) after \"tag\", found \"{w}\""));
    };
    match t {
        0xFFFF_FFFF if recv => Ok(ANY),
        0xFFFF_FFFF => Err(format!(
            "tag {w} is LogGOPSim's any-tag (2^32 - 1 modulo 2^32), which a send cannot have (only a receive may match any tag)"
        )),
        t if t <= MAX_I32 => Ok(t as i32),
        t => Err(format!(
            "tag {w} is too large (at most {MAX_I32}; read modulo 2^32 as LogGOPSim reads it, it is {t}, \
             and only the any-tag 4294967295 is read above {MAX_I32})"
        )),
    }
}

pub(super) fn expected_number(st: &Stmt<'_>, i: usize) -> (usize, String) {
    let key = st.toks[i].text;
    let what = if key == "tag" { "a tag (a number, or -1 in a receive)" } else { "a number" };
    (st.line_at(i + 1), format!("expected {what} after \"{key}\", found {}", st.found(i + 1)))
}

pub(super) struct Opts {
    tag: i32,
    cpu: u8,
    nic: u8,
}
