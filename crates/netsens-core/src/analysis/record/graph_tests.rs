//! The record's own tests: its nodes, predecessors, spans and codes, as the
//! recorder leaves them at a run's end (a child of `graph`, which it reads inside).

use super::*;
use crate::analysis::passes::lanes::Lane;
// As a run records: the passes make the slots at its end.
use crate::analysis::passes::slots::end_record;
use crate::analysis::record::codes::ESCAPE;
use crate::analysis::record::kind::KINDS;
use crate::analysis::record::nodes::OP_KINDS;
use crate::analysis::record::params::Param;
use crate::analysis::record_schedule;
use crate::engine::observe::Observer;
use crate::engine::RunOptions;
use crate::schedule::patterns;

/// Counts of predecessors around the escape: 0 to 9 (6 the largest kept in the
/// cost byte, 7 the first kept aside), 255, 256 and 100 000, alone and in runs
/// inside one group of eight cost bytes, across several marks.
fn counts() -> Vec<usize> {
    let mut c: Vec<usize> = (0..10).collect();
    c.extend([255, 256, 100_000, 1, 7, 7, 7, 7, 7, 7, 7, 7, 2, 6, 6, 6, 6, 6, 6, 6, 6]);
    c.extend((0..150).map(|i| (i * 5) % 7));
    c.extend([8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]);
    c
}

#[test]
fn a_nodes_predecessors_start_where_the_counts_before_it_add_up_to() {
    let mut nodes = Nodes::default();
    let mut sum = 0usize;
    let mut starts = Vec::new();
    for (v, &n) in counts().iter().enumerate() {
        starts.push(sum);
        nodes.push((v % (2 * KINDS)) as u8, v as u64, sum as u32, n);
        sum += n;
    }
    for (v, &n) in counts().iter().enumerate() {
        assert_eq!(nodes.pred_count(v), n, "node {v}");
        assert_eq!(nodes.first_pred(v), starts[v], "node {v}");
        assert_eq!(nodes.price(v), (v % (2 * KINDS)) as u8, "node {v}");
        assert_eq!(nodes.bytes(v), v as u64, "node {v}");
    }
}

#[test]
fn a_recent_nodes_predecessors_are_where_counting_from_its_mark_finds_them() {
    // Latest-of nodes over earlier ones, more than the recorder keeps at hand:
    // the first predecessor's own found the same either way, against where
    // each node's list began as it was pushed.
    let mut g = ExecGraph::new(&Platform::resolve("loggopsim").expect("a preset")).ending_with(end_record);
    let mut starts = vec![(0, 0)];
    for v in 1..3 * RECENT as u32 + 100 {
        let n = 2 + v as usize % 9;
        let preds: Vec<(u32, Edge)> = (1..=n as u32).map(|k| (v.saturating_sub(k * k), Edge::Event)).collect();
        // A computation where the earlier nodes are too few to be the latest of.
        let k = if v < 100 { kind::COMPUTE } else { kind::ZERO };
        let first = g.preds.len();
        assert_eq!(g.push(k, 1, 1, &preds, 0), v);
        starts.push((first, g.preds.len() - first));
    }
    let end = g.nodes.len();
    for p in (100..end).step_by(97).chain(end - RECENT - 2..end) {
        let (first, n) = starts[p];
        assert!(n >= 2, "node {p}");
        assert_eq!(g.dominated_by(p as u32), first..first + n, "node {p}");
        assert_eq!(g.preds_of(p).0, &g.preds[first..first + n], "node {p}");
    }
    assert_eq!(g.dominated_by(50), 0..0, "a computation's predecessors are not in its time");
}

/// A record of `n` nodes over random earlier ones (deterministic): mostly
/// recent, some far back (past a scan's chunk of 32 nodes), counts 1 to 9 (the
/// escape from 7), computations and latest-ofs; ended as a run ends it. Also the
/// predecessors' nodes as recorded.
fn ended_record(n: u32) -> (ExecGraph, Vec<u32>) {
    let mut g = ExecGraph::new(&Platform::resolve("loggopsim").expect("a preset")).ending_with(end_record);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as u32
    };
    while g.nodes.len() < n as usize {
        // (A latest-of that kept one predecessor is that one: no node made.)
        let v = g.nodes.len() as u32;
        let count = 1 + next(9) as usize;
        let preds: Vec<(u32, Edge)> = (0..count)
            .map(|_| {
                let back = match next(10) {
                    0 => next(v),
                    1 => next(v.min(300)),
                    _ => next(v.min(40)),
                };
                (v - 1 - back.min(v - 1), Edge::Event)
            })
            .collect();
        let k = if v.is_multiple_of(3) { kind::ZERO } else { kind::COMPUTE };
        g.push(k, 1, 1000 + v as u64, &preds, 0);
    }
    let recorded = g.preds.clone();
    let end = g.nodes.len() as u32 - 1;
    g.set_clock(Clock::Cpu(0), end);
    g.finish(&[Clock::Cpu(0)]);
    assert_eq!(g.sink, end);
    (g, recorded)
}

#[test]
fn a_records_predecessors_come_back_from_the_slots_written_over_them() {
    let (g, recorded) = ended_record(20_000);
    let slots = g.slots.as_ref().expect("slots once the run ended");
    assert!(g.preds.iter().all(|&s| (s as usize) < slots.count), "the predecessors are slots now");
    assert_ne!(g.preds, recorded);
    // One at a time from the slots (a walk back), at every node, before the
    // whole list is found again; then the list.
    let mut first = 0;
    for v in 0..g.nodes.len() {
        for i in 0..g.nodes.pred_count(v) {
            assert_eq!(g.pred(v, i).0, recorded[first + i] as usize, "node {v}, predecessor {i}");
        }
        first += g.nodes.pred_count(v);
    }
    assert!(g.pred_nodes.get().is_none(), "one predecessor's node alone finds no list");
    assert_eq!(g.pred_nodes(), &recorded[..]);
    // A predecessor's 5 B (its slot over its node, its edge), a node's slot and
    // its code (and the table of codes): no array of the predecessors' slots
    // beside them, nor the nodes found again.
    let spans = g.spans.len() * 8 + g.starts.held();
    let codes = g.nodes.len() + g.codes().pairs.len() * 16;
    assert_eq!(g.bytes(), g.nodes.held() + spans + g.preds.len() * 5 + 4 * g.nodes.len() + codes);
}

#[test]
fn a_pass_over_the_slots_written_over_the_predecessors_is_the_one_over_their_nodes() {
    // The record's check at its end and a pass through the slots, against every
    // node's time from the predecessors' nodes (found again) and the longest
    // path worked out here from the list as recorded (a second method).
    let (g, recorded) = ended_record(20_000);
    let p = Point::of(&Platform::resolve("loggopsim").expect("a preset"));
    let mut t = vec![0.0f64; g.nodes.len()];
    let mut first = 0;
    for v in 0..g.nodes.len() {
        let n = g.nodes.pred_count(v);
        let start = recorded[first..first + n].iter().map(|&q| t[q as usize]).fold(0.0, f64::max);
        first += n;
        t[v] = start + if g.nodes.kind(v) == kind::COMPUTE { g.nodes.bytes(v) as f64 } else { 0.0 };
    }
    let want = t[g.sink as usize];
    assert!(want > 0.0);
    assert_eq!(g.own_makespan, Some(want));
    let lane = Lane { point: p, param: Param::CpuTime };
    assert_eq!(g.eval_lanes(&g.slots(), &[lane])[0].makespan, want);
    assert_eq!(g.makespan(&p, &mut Vec::new()), want);
}

#[test]
fn a_step_from_one_time_records_what_the_general_push_records() {
    // The same nodes pushed through `push_one` and through `push` with a list of
    // one, from every earlier node (the start of the run included), with and
    // without noise, every kind and level, narrow and wide bytes, an operation
    // of each kind on near and far ranks, across marks and span words: the two
    // records alike in every part, and the node ids given back.
    let platform = Platform::resolve("loggopsim").expect("a preset");
    let (mut one, mut general) =
        (ExecGraph::new(&platform).ending_with(end_record), ExecGraph::new(&platform).ending_with(end_record));
    let mut ids = (Vec::new(), Vec::new());
    for v in 0..3000u32 {
        let kind = 1 + (v % 13) as u8;
        let (level, bytes) = ((v % 2) as u8, if v % 17 == 0 { u64::MAX - v as u64 } else { v as u64 * 977 });
        let p = (v * 7919) % (v + 1);
        let e = [Edge::Event, Edge::Cpu, Edge::Nic, Edge::Link, Edge::Dependency, Edge::Disk][v as usize % 6];
        let extra = if v % 11 == 0 { 5 + v as Time } else { 0 };
        let (op, rank) = ((v / 5) as OpId, if v % 300 < 40 { FAR_RANK + v / 100 } else { v % 64 });
        for g in [&mut one, &mut general] {
            if v % 5 == 0 {
                g.set_op(op, rank, OP_KINDS[v as usize % OP_KINDS.len()]);
            }
            g.handling(op, rank, v % 3 == 0);
        }
        ids.0.push(one.push_one(kind, level, bytes, (p, e), extra));
        ids.1.push(general.push(kind, level, bytes, &[(p, e)], extra));
    }
    assert_eq!(ids.0, ids.1);
    assert_eq!(ids.0, (1..=3000).collect::<Vec<u32>>(), "every step a node of its own");
    assert_eq!(
        (&one.nodes.cost, &one.nodes.bytes, &one.nodes.wide),
        (&general.nodes.cost, &general.nodes.bytes, &general.nodes.wide)
    );
    assert_eq!((&one.nodes.marks, &one.nodes.many), (&general.nodes.marks, &general.nodes.many));
    assert_eq!((&one.preds, &one.edges, &one.last), (&general.preds, &general.edges, &general.last));
    assert_eq!((&one.spans, &one.far_ranks), (&general.spans, &general.far_ranks));
    assert_eq!((&one.starts.bits, &one.starts.before), (&general.starts.bits, &general.starts.before));
    assert_eq!((&one.extra, &one.recent), (&general.extra, &general.recent));
    assert!(one.nodes.wide.len() > 100 && one.far_ranks.len() > 10 && one.extra.len() > 200);
}

#[test]
fn a_thread_keeps_the_records_pages_ahead_while_the_run_goes_and_ends_with_it() {
    // Where the analysis may use two threads or more (this test's machine has
    // two cores, or NETSENS_ANALYSIS_THREADS says) and the kernel can make pages
    // ready (`prefault`'s tests assert which), a record of known size starts
    // the thread with its room; the run's end stops it. A record that grows
    // starts one with its first room.
    let platform = Platform::resolve("loggopsim").expect("a preset");
    let many = crate::analysis::record::threads::core_beside_the_run() && crate::prefault::supported();
    let s = crate::schedule::patterns::ring_exchange(16, 4, 64, 1000).expect("a schedule");
    let mut g = ExecGraph::with_capacity(&platform, s.num_ops()).ending_with(end_record);
    assert_eq!(g.ahead.is_some(), many);
    assert!(g.code_room.capacity() >= 5 * s.num_ops(), "the codes' room reserved with the record");
    let end = g.push(kind::COMPUTE, 1, 7, &[(SOURCE, Edge::Event)], 0);
    g.set_clock(Clock::Cpu(0), end);
    g.finish(&[Clock::Cpu(0)]);
    assert!(g.ahead.is_none(), "stopped at the run's end");
    assert_eq!((g.own_makespan, g.codes().code.len()), (Some(7.0), 2));
    let mut grown = ExecGraph::new(&platform).ending_with(end_record);
    assert!(grown.ahead.is_none());
    grown.push(kind::COMPUTE, 1, 7, &[(SOURCE, Edge::Event)], 0);
    assert_eq!(grown.ahead.is_some(), many, "started with the first room");
}

#[test]
fn an_operations_rank_and_kind_come_back_from_the_recorders_table() {
    // Ranks either side of where they are kept aside, every kind, an operation
    // id reused with another rank (a rank program's), ids never made live.
    let mut g = ExecGraph::new(&Platform::resolve("loggopsim").expect("a preset")).ending_with(end_record);
    let ranks = [0, 1, FAR_RANK - 1, FAR_RANK, FAR_RANK + 1, u32::MAX];
    let mut want = HashMap::default();
    for (i, &rank) in ranks.iter().enumerate() {
        for (k, &kind) in OP_KINDS.iter().enumerate() {
            let op = (3 * (i * OP_KINDS.len() + k) % 40) as OpId;
            g.set_op(op, rank, kind);
            want.insert(op, (rank, kind));
        }
    }
    for op in 0..45 {
        let kind = g.ops.get(op as usize).map(|&who| Span::kind_of(who));
        assert_eq!(g.op_rank(op).zip(kind), want.get(&op).copied(), "operation {op}");
    }
}

#[test]
fn a_nodes_span_is_the_count_of_the_starts_up_to_it() {
    // Starts at a word's first and last bit, on every node of a stretch, none
    // over several words; against a running count.
    let starts = |v: usize| {
        v == 0
            || v.is_multiple_of(64)
            || v % 64 == 63
            || (200..260).contains(&v)
            || (v.is_multiple_of(7) && !(300..600).contains(&v))
    };
    let mut s = SpanStarts::default();
    let (mut spans, mut want) = (0, Vec::new());
    for v in 0..1000 {
        s.push(v, starts(v), spans);
        spans += starts(v) as usize;
        want.push(spans - 1);
    }
    for (v, &w) in want.iter().enumerate() {
        assert_eq!(s.span_of(v), w, "node {v}");
    }
    assert_eq!(s.held(), 16 * 8 + 16 * 4);
}

#[test]
fn a_nodes_operation_rank_kind_and_arrival_come_back_from_its_span() {
    // Ranks either side of where they are kept aside (two far ones in turn with
    // the same operation must not share a span), every kind, both arrivals.
    let mut g = ExecGraph::new(&Platform::resolve("loggopsim").expect("a preset")).ending_with(end_record);
    let ranks = [0, 5, FAR_RANK - 1, FAR_RANK, FAR_RANK + 1, FAR_RANK, u32::MAX - 1, 7, FAR_RANK + 1];
    let mut want = Vec::new();
    for (i, &rank) in ranks.iter().enumerate() {
        for (k, &kind) in OP_KINDS.iter().enumerate() {
            for arrival in [false, true] {
                let op = (i % 2 + k) as OpId;
                g.set_op(op, rank, kind);
                g.handling(op, rank, arrival);
                for _ in 0..2 {
                    let v = g.push(kind::COMPUTE, 1, 1, &[(0, Edge::Event)], 0);
                    want.push((v as usize, op, rank, kind, arrival));
                }
            }
        }
    }
    // Far ranks in turn with everything else alike.
    g.set_op(99, 0, OpKind::Send);
    for rank in [FAR_RANK + 3, FAR_RANK + 4, FAR_RANK + 4, FAR_RANK + 3] {
        g.handling(99, rank, g.arrival);
        let v = g.push(kind::COMPUTE, 1, 1, &[(0, Edge::Event)], 0);
        want.push((v as usize, 99, rank, OpKind::Send, g.arrival));
    }
    for (v, op, rank, kind, arrival) in want {
        let n = g.node(v);
        assert_eq!((n.op, n.rank, n.op_kind, n.arrival), (op, rank, kind, arrival), "node {v}");
    }
    assert_eq!(g.far_ranks.len(), 5 * OP_KINDS.len() * 2 + 3);
}

// The codes (`codes.rs`) of records made by runs.

/// The codes of `g` (a record ended by its run), checked: the end's loop made
/// the scan's; every node's code stands for its own price index and bytes, or
/// is an escape only once the table is full, whose pairs are distinct. The
/// number of escapes.
fn escapes(g: &ExecGraph) -> usize {
    let codes = g.scan_codes();
    // Those the loop at the run's end made are the same.
    assert_eq!((&g.codes().code, &g.codes().pairs), (&codes.code, &codes.pairs));
    assert_eq!(codes.code.len(), g.nodes.len());
    let mut seen = std::collections::HashSet::new();
    assert!(codes.pairs.iter().all(|p| seen.insert(*p)), "distinct pairs");
    let mut escapes = 0;
    for (v, &c) in codes.code.iter().enumerate() {
        let bytes = if g.nodes.kind(v) == kind::ZERO { 0 } else { g.nodes.bytes(v) };
        let pair = (g.price_index(v) as u8, bytes);
        if c == ESCAPE {
            assert_eq!(codes.pairs.len(), 255, "an escape only once the table is full");
            assert!(!seen.contains(&pair), "node {v}'s pair has a code");
            escapes += 1;
        } else {
            assert_eq!(codes.pairs[c as usize], pair, "node {v}");
        }
    }
    escapes
}

#[test]
fn every_code_is_its_nodes_own_price_and_size() {
    let p = Platform::resolve("loggopsim").expect("a preset");
    let record = |s| record_schedule(&s, &p, &RunOptions::default(), &mut |_| true).expect("the run finishes").1;
    // One message size: a handful of pairs, no escape.
    assert_eq!(escapes(&record(patterns::ring_exchange(8, 3, 1500, 2_000_000).expect("a schedule"))), 0);
    // 400 computations of sizes of their own: the table fills up, the rest escape.
    let mut b = crate::schedule::ScheduleBuilder::new(1);
    for i in 0..400 {
        b.calc(0, 1000 + i, 0);
    }
    let g = record(b.build().expect("a schedule"));
    assert!(escapes(&g) >= 400 - 255, "{}", escapes(&g));
}
