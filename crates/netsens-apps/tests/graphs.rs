//! The graph applications of the suite, `murphi` and `connect`: they verify their
//! answers, their message counts agree with counts derived by a second method from
//! the same inputs, and they slow down when o rises.

mod common;
use common::{count, loggopsim, run, run_on};
use netsens_apps::app::Size;
use netsens_apps::examples::stencil::{span, Grid};
use netsens_apps::suite::{connect, murphi};
use netsens_core::error::Error;

#[test]
fn both_verify_at_tiny() {
    for app in ["murphi", "connect"] {
        for ranks in [1, 2, 3, 8] {
            assert!(run(app, ranks).makespan_ps > 0, "{app} on {ranks} ranks");
        }
    }
}

#[test]
fn both_run_on_64_ranks() {
    // 1024 ranks work too, but take half a minute in a debug build (murphi's bursts of
    // small batches meet the engine's deferral of arrivals at a busy host).
    for app in ["murphi", "connect"] {
        run(app, 64);
    }
}

#[test]
fn murphi_sends_one_message_per_batch_per_owner_pair() {
    // Round k expands BFS level k (the states first reached at depth k), each at its
    // owner, and sends every successor owned elsewhere: replay the serial BFS with the
    // owner function, count the successors each (expander, owner) pair moves per
    // level, and a pair's count c goes as ceil(c / BATCH) active messages.
    let cfg = murphi::Config::preset(Size::Tiny, 0);
    let levels = murphi::levels(cfg.caches);
    assert_eq!(levels.iter().map(Vec::len).sum::<usize>() as u64, cfg.reachable());
    for p in [3, 8] {
        let mut batches = vec![0u64; p as usize];
        let mut succ = Vec::new();
        for level in &levels {
            let mut moved = vec![0usize; (p * p) as usize];
            for &s in level {
                let from = murphi::owner(s, cfg.seed, p);
                succ.clear();
                murphi::successors(cfg.caches, s, &mut succ);
                for &t in &succ {
                    let to = murphi::owner(t, cfg.seed, p);
                    if to != from {
                        moved[(from * p + to) as usize] += 1;
                    }
                }
            }
            for (pair, &c) in moved.iter().enumerate() {
                batches[pair / p as usize] += c.div_ceil(murphi::BATCH) as u64;
            }
        }
        let r = run("murphi", p);
        for rank in 0..p {
            assert_eq!(count(&r, rank, "am"), batches[rank as usize], "rank {rank} of {p}");
            // A round per level, one empty round to detect the end, one for the count.
            assert_eq!(count(&r, rank, "allreduce"), levels.len() as u64 + 2);
            assert_eq!(count(&r, rank, "store_sync"), levels.len() as u64 + 1);
        }
        let coll: u64 = (0..p).map(|rank| count(&r, rank, "coll_send")).sum();
        assert_eq!(r.messages, batches.iter().sum::<u64>() + coll);
    }
}

/// The rank whose block holds site (i, j) of an n×n lattice on `grid`.
fn block_of(n: usize, grid: Grid, i: usize, j: usize) -> u32 {
    let part = |parts: u32, x: usize| (0..parts).find(|&k| (span(n, parts, k).0..span(n, parts, k).1).contains(&x));
    part(grid.rows, i).expect("a row") * grid.cols + part(grid.cols, j).expect("a column")
}

#[test]
fn connect_reads_one_label_per_cut_edge_per_phase() {
    // Every present edge whose ends lie in different blocks is read once from each
    // side in every global phase. Count them over the whole lattice by the blocks of
    // their two ends.
    let cfg = connect::Config::preset(Size::Tiny, 0);
    let n = cfg.n;
    for p in [3, 8] {
        let grid = Grid::for_ranks(p);
        let mut cuts = vec![0u64; p as usize];
        for i in 0..n {
            let (right, down) = (cfg.right_edges(i, 0..n), cfg.down_edges(i, 0..n));
            for j in 0..n {
                let here = block_of(n, grid, i, j);
                let ends = [(right[j], (i, j + 1)), (down[j], (i + 1, j))];
                for (_, (a, b)) in ends.into_iter().filter(|e| e.0) {
                    let there = block_of(n, grid, a, b);
                    if there != here {
                        cuts[here as usize] += 1;
                        cuts[there as usize] += 1;
                    }
                }
            }
        }
        let r = run("connect", p);
        // One allreduce per global phase and one for the component count.
        let phases = count(&r, 0, "allreduce") - 1;
        assert!(phases >= 2, "{phases} phases on {p} ranks");
        for rank in 0..p {
            assert_eq!(count(&r, rank, "allreduce"), phases + 1);
            assert_eq!(count(&r, rank, "get"), phases * cuts[rank as usize], "rank {rank} of {p}");
        }
    }
}

#[test]
fn connect_rejects_a_grid_wider_than_the_lattice() {
    match run_on(&loggopsim(&[]), "connect", 67) {
        Err(Error::Input(m)) => assert!(m.starts_with("connect: 67 ranks form a 67x1 process grid"), "{m}"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn both_slow_down_when_o_rises() {
    for app in ["murphi", "connect"] {
        let times: Vec<u64> = ["500ns", "1500ns", "5us"]
            .iter()
            .map(|o| run_on(&loggopsim(&[("o", o)]), app, 8).expect("the app runs").0.makespan_ps)
            .collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}
