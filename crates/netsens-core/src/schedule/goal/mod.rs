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

mod lexer;
mod ops;
mod parser;
mod parts;

use super::Schedule;
use crate::error::{Error, Result};
pub(crate) use parser::nth_op_label;
use parser::Parser;

/// Parse GOAL text; `file` names the source in line-numbered errors. Times are ns.
pub fn parse_goal(text: &str, file: &str) -> Result<Schedule> {
    parse_goal_threaded(text, file, &|_, _| {})
}

/// [`parse_goal`] on every core (a large text is cut between rank blocks), telling
/// `release(start, end)` when the text's bytes `start..end` are no longer needed,
/// so a mapped file can let them go. The schedule and any error are those of
/// [`parse_goal`].
pub fn parse_goal_threaded(text: &str, file: &str, release: &(dyn Fn(usize, usize) + Sync)) -> Result<Schedule> {
    parse_text(text, file, false, release).map(|(s, _)| s)
}

/// [`parse_goal_threaded`]; with `labels_in_text` the labels are left in the text
/// and each rank block's (first op, offset of its `rank` line) comes back instead.
pub(crate) fn parse_text(
    text: &str,
    file: &str,
    labels_in_text: bool,
    release: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Schedule, Vec<(super::OpId, usize)>)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
    if let Some((builder, starts)) = parts::parse_in_parts(text, threads, labels_in_text, release) {
        return Ok((finish(builder, file)?, starts));
    }
    let mut p = Parser::new(text);
    p.labels_in_text = labels_in_text;
    // Each piece is released once (the pages before it already were).
    let mut released = 0;
    let mut release_piece = |offset: usize| {
        release(released, offset);
        released = offset;
    };
    if let Err((line, msg)) = p.run(&mut release_piece) {
        return Err(Error::Parse { file: file.to_string(), line, msg });
    }
    let builder = p.builder.take().expect("run() leaves a builder on success");
    Ok((finish(builder, file)?, std::mem::take(&mut p.block_starts)))
}

/// [`parse_goal`], telling `release(offset)` each time the text before `offset` is
/// no longer needed (at the end of a rank block), so a mapped file can let it go.
pub fn parse_goal_releasing(text: &str, file: &str, release: &mut dyn FnMut(usize)) -> Result<Schedule> {
    let mut p = Parser::new(text);
    match p.run(release) {
        Ok(()) => {}
        Err((line, msg)) => return Err(Error::Parse { file: file.to_string(), line, msg }),
    }
    finish(p.builder.take().expect("run() leaves a builder on success"), file)
}

/// Check and lay out the parsed schedule; its errors name the file.
fn finish(builder: super::ScheduleBuilder, file: &str) -> Result<Schedule> {
    builder.build().map_err(|e| match e {
        Error::Input(msg) => Error::Input(format!("{file}: {msg}")),
        other => other,
    })
}

/// An error inside the parser: (1-based line, message); the file name is added last.
pub(super) type PResult<T> = std::result::Result<T, (usize, String)>;

/// Threads a text is parsed on, at most (the parse is bound by memory bandwidth).
const MAX_THREADS: usize = 8;
/// Bytes of text parsed between two calls of the release hook.
const RELEASE_EVERY: usize = 8 << 20;
/// Largest cpu or nic index: the builder counts `index + 1` CPUs/NICs in a `u8`.
pub(super) const MAX_UNIT: u64 = u8::MAX as u64 - 1;
/// Ranks and tags are stored as `i32` (with -1 for ANY).
pub(super) const MAX_I32: u64 = i32::MAX as u64;
/// Longest statement kept; a valid one has at most 13 tokens
/// (`l: recv 8b from 1 tag 2 cpu 3 nic 4`), so a 14th is always reported as junk.
pub(super) const MAX_TOKENS: usize = 16;
