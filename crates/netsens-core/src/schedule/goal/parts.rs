//! GOAL text parsed on several threads: rank blocks are independent until their
//! labels are resolved (at the end of each block), so the text is cut just before
//! a `rank` line into one part per core, each part is parsed into a builder of its
//! own, and the builders are joined in text order (so every op keeps the id a
//! single pass would give it).
//!
//! A cut is only a guess made without lexing (it could fall inside a block or a
//! comment): it is right when the part before it parses cleanly and ends between
//! blocks. Any error in any part, or a rank with a block in two parts, returns
//! `None` and the caller parses the whole text in one pass, which reports the
//! error exactly as it always has.

use super::parser::Parser;
use super::RELEASE_EVERY;
use crate::schedule::{OpId, ScheduleBuilder};

/// Texts shorter than this are parsed in one pass (threads would cost more).
const PARALLEL_MIN_BYTES: usize = 4 << 20;

/// Tells the owner of the text that bytes `start..end` are no longer needed.
pub(super) type Release<'r> = &'r (dyn Fn(usize, usize) + Sync);

/// Parse `text` in parts on up to `threads` threads; `None` when the text is small,
/// cannot be cut, or anything in it is wrong (see the module's comment).
/// With `labels_in_text`, labels are not stored: the blocks' starts come back
/// instead (see [`Parser::labels_in_text`]).
pub(super) fn parse_in_parts(
    text: &str,
    threads: usize,
    labels_in_text: bool,
    release: Release<'_>,
) -> Option<(ScheduleBuilder, Vec<(OpId, usize)>)> {
    if threads < 2 || text.len() < PARALLEL_MIN_BYTES {
        return None;
    }
    let num_ranks = Parser::new(text).header()?;
    let cuts = cuts(text, threads);
    if cuts.len() < 3 {
        return None;
    }
    let parts: Vec<Option<Part>> = std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let (start, end) = (w[0], w[1]);
                scope.spawn(move || {
                    let first = i == 0;
                    parse_part(&text[start..end], start, first, num_ranks, labels_in_text, release)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let mut parts = parts.into_iter();
    let mut all = parts.next()??;
    for part in parts {
        let part = part?;
        if part.blocks.iter().any(|r| all.blocks.contains(r)) {
            return None; // a rank with two blocks: the one-pass parse names both lines
        }
        all.blocks.extend(part.blocks);
        let ops = all.builder.num_ops() as OpId;
        all.block_starts.extend(part.block_starts.into_iter().map(|(op, at)| (op + ops, at)));
        all.builder.append(part.builder);
    }
    Some((all.builder, all.block_starts))
}

/// What one part yields: its ops and the ranks whose blocks it holds.
struct Part {
    builder: ScheduleBuilder,
    blocks: rustc_hash::FxHashSet<u32>,
    /// Offsets in the whole text.
    block_starts: Vec<(OpId, usize)>,
}

fn parse_part(
    text: &str,
    base: usize,
    first: bool,
    num_ranks: u32,
    labels_in_text: bool,
    release: Release<'_>,
) -> Option<Part> {
    let mut p = if first { Parser::new(text) } else { Parser::for_part(text, num_ranks) };
    p.labels_in_text = labels_in_text;
    let mut released = 0;
    p.run(&mut |offset| {
        release(base + released, base + offset);
        released = offset;
    })
    .ok()?;
    release(base + released, base + text.len());
    let blocks = p.blocks.keys().copied().collect();
    let block_starts = p.block_starts.iter().map(|&(op, at)| (op, at + base)).collect();
    Some(Part { builder: p.builder.take()?, blocks, block_starts })
}

/// Offsets cutting `text` into about `n` parts of equal length, each cut at the
/// start of a line that starts with `rank `: 0, the cuts, then `text.len()`.
fn cuts(text: &str, n: usize) -> Vec<usize> {
    let b = text.as_bytes();
    let mut cuts = vec![0];
    for i in 1..n {
        let from = (b.len() / n * i).max(*cuts.last().unwrap_or(&0) + 1);
        if let Some(at) = next_rank_line(b, from) {
            if at > *cuts.last().unwrap_or(&0) && b.len() - at >= RELEASE_EVERY / 8 {
                cuts.push(at);
            }
        }
    }
    cuts.push(b.len());
    cuts
}

/// The first offset at or after `from` that starts a line beginning with `rank `.
fn next_rank_line(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        let nl = i + b[i..].iter().position(|&c| c == b'\n')?;
        if b[nl + 1..].starts_with(b"rank ") {
            return Some(nl + 1);
        }
        i = nl + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::goal::parse_goal_releasing;
    use crate::schedule::{OpId, Schedule};
    use std::fmt::Write;
    use std::sync::Mutex;

    /// A ring exchange of `ranks` ranks × `iters` rounds with labels, `irequires`,
    /// dependencies on later labels, comments and blank lines between blocks.
    fn ring(ranks: u32, iters: u32) -> String {
        let mut t = format!("// a ring\nnum_ranks {ranks}\n");
        for r in 0..ranks {
            let (next, prev) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
            writeln!(t, "\n/* rank {r} */\nrank {r} {{").unwrap();
            for i in 0..iters {
                writeln!(t, "s{i}: send {}b to {next} tag {i}", 8 + i).unwrap();
                writeln!(t, "r{i}: recv 8b from {prev} tag {i} cpu {}", i % 2).unwrap();
                writeln!(t, "c{i}: calc {}", 100 * (r + i)).unwrap();
                writeln!(t, "r{i} irequires s{i}\nc{i} requires r{i}").unwrap();
                if i > 0 {
                    writeln!(t, "s{i} requires c{}", i - 1).unwrap();
                }
            }
            writeln!(t, "}}").unwrap();
        }
        t
    }

    fn one_pass(text: &str) -> Schedule {
        parse_goal_releasing(text, "t.goal", &mut |_| {}).unwrap()
    }

    fn same(a: &Schedule, b: &Schedule) {
        assert_eq!((a.num_ops(), a.num_ranks, a.ncpus, a.nnics), (b.num_ops(), b.num_ranks, b.ncpus, b.nnics));
        for op in 0..a.num_ops() as OpId {
            assert_eq!(a.op_info(op), b.op_info(op), "op {op}");
            assert!(a.dependents(op).eq(b.dependents(op)), "dependents of op {op}");
        }
    }

    #[test]
    fn parts_give_the_one_pass_schedule_and_release_the_whole_text() {
        let text = ring(64, 1200);
        assert!(text.len() > PARALLEL_MIN_BYTES);
        for threads in [2, 3, 5] {
            let released = Mutex::new(Vec::new());
            let (builder, _) = parse_in_parts(&text, threads, false, &|a, b| released.lock().unwrap().push((a, b)))
                .expect("a valid text is cut");
            same(&builder.build().unwrap(), &one_pass(&text));
            // The released ranges cover the text once: sorted, each starts where one ends.
            let mut r = released.into_inner().unwrap();
            r.sort_unstable();
            assert_eq!((r[0].0, r[r.len() - 1].1), (0, text.len()));
            assert!(r.windows(2).all(|w| w[0].1 == w[1].0));
        }
    }

    #[test]
    fn a_cut_inside_a_comment_or_a_second_block_falls_back_to_one_pass() {
        let text = ring(64, 1200);
        // A block comment around the middle swallows a few blocks, so the cut (the
        // first "rank" line after the middle) falls inside it and leaves the first
        // part with an unterminated comment.
        let mid = text.len() / 2;
        let open = mid - 20_000 + text[mid - 20_000..].find("\nrank ").unwrap();
        let next_block = mid + text[mid..].find("\nrank ").unwrap();
        let close = next_block + text[next_block..].find("\n}\n").unwrap() + 3;
        let commented = format!("{}/*{}*/{}", &text[..open], &text[open..close], &text[close..]);
        assert!(parse_in_parts(&commented, 2, false, &|_, _| {}).is_none());
        // Rank 0's block again at the end: only the one pass can name both lines.
        let first = text.find("\n/* rank 1 */").unwrap();
        let twice = format!("{text}{}", &text[text.find("rank 0 {").unwrap()..first]);
        assert!(parse_in_parts(&twice, 2, false, &|_, _| {}).is_none());
        assert!(crate::schedule::goal::parse_goal(&twice, "t.goal").is_err());
    }

    #[test]
    fn small_texts_and_one_thread_take_one_pass() {
        assert!(parse_in_parts(&ring(4, 10), 2, false, &|_, _| {}).is_none());
        assert!(parse_in_parts(&ring(64, 1200), 1, false, &|_, _| {}).is_none());
    }
}
