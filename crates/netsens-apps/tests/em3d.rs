//! em3d-write and em3d-read through the registry: they verify their answers, issue
//! the reads and writes counted from the generated graph, and respond to L and o
//! as Martin et al. found (reads are latency-bound; writes follow the overhead model).

mod common;

use netsens_apps::app::Size;
use netsens_apps::suite::em3d::{Config, Kind, Part};
use netsens_core::platform::{presets, Platform};
use netsens_core::profile::RunResult;
use netsens_core::time::{NS, US};
use std::collections::HashSet;

const APPS: [&str; 2] = ["em3d-write", "em3d-read"];

/// The `loggopsim` preset as it is (LogGOPSim's rendezvous), plus overrides.
fn loggopsim(overrides: &[(&str, &str)]) -> Platform {
    common::platform("loggopsim", overrides)
}

fn run_on(p: &Platform, app: &str, ranks: u32) -> RunResult {
    common::verified(p, app, ranks, "tiny")
}

/// Count of `primitive` on each rank.
fn per_rank(r: &RunResult, primitive: &str) -> Vec<u64> {
    (0..r.ranks.len() as u32)
        .map(|rank| r.primitives.iter().find(|p| p.rank == rank && p.primitive == primitive).map_or(0, |p| p.count))
        .collect()
}

/// Every rank's part of the graph the apps generate for `ranks` ranks at tiny, seed 0.
fn graph(ranks: u32) -> (Config, Vec<Part>) {
    let cfg = Config::preset(Size::Tiny, 0);
    (cfg, (0..ranks).map(|r| Part::generate(&cfg, ranks, r)).collect())
}

#[test]
fn both_verify_at_tiny() {
    for app in APPS {
        for ranks in [1, 2, 3, 8] {
            assert!(run_on(&loggopsim(&[]), app, ranks).makespan_ps > 0, "{app} on {ranks} ranks");
        }
    }
}

#[test]
fn em3d_read_gets_once_per_remote_edge_per_half_step() {
    // tiny: 16 nodes of each kind per rank, 1 remote edge each, 2 iterations of two
    // half-steps: 2 × 2 × 16 × 1 = 64 gets per rank.
    let (cfg, parts) = graph(8);
    assert_eq!((cfg.nodes, cfg.remote, cfg.iters), (16, 1, 2));
    // Second method: the remote edges of the generated graph, per iteration.
    let remote: Vec<u64> = parts
        .iter()
        .enumerate()
        .map(|(rank, p)| p.edges.iter().flatten().filter(|e| e.owner != rank as u32).count() as u64)
        .collect();
    assert_eq!(remote, vec![32; 8]);
    let r = run_on(&loggopsim(&[]), "em3d-read", 8);
    assert_eq!(per_rank(&r, "get"), remote.iter().map(|n| n * 2).collect::<Vec<_>>());
    assert_eq!(per_rank(&r, "get"), vec![64; 8]);
    assert_eq!(per_rank(&r, "store"), vec![0; 8]);
    // A get is a 1-byte request (a control message) and an 8-byte reply.
    assert_eq!(r.control_messages, 8 * 64);
}

#[test]
fn em3d_write_stores_once_per_value_and_consumer() {
    // Second method: the distinct (consumer rank, remote node) pairs of the graph, by
    // owner. Each is stored to once per iteration: the E values every iteration,
    // the H values initially and after every iteration but the last.
    for ranks in [3, 8] {
        let (cfg, parts) = graph(ranks);
        let mut pairs = HashSet::new();
        for (consumer, p) in parts.iter().enumerate() {
            for k in Kind::BOTH {
                for e in p.edges[k as usize].iter().filter(|e| e.owner != consumer as u32) {
                    pairs.insert((consumer, k.other(), e.owner, e.index));
                }
            }
        }
        let by_owner: Vec<u64> = (0..ranks)
            .map(|owner| u64::from(cfg.iters) * pairs.iter().filter(|p| p.2 == owner).count() as u64)
            .collect();
        // Never more than one per remote edge, and some neighbours are shared.
        let remote_edges = u64::from(ranks) * 2 * 16;
        assert!(pairs.len() as u64 <= remote_edges && pairs.len() as u64 > remote_edges / 2, "{}", pairs.len());
        let r = run_on(&loggopsim(&[]), "em3d-write", ranks);
        assert_eq!(per_rank(&r, "store"), by_owner, "{ranks} ranks");
        assert_eq!(per_rank(&r, "get"), vec![0; ranks as usize]);
        // One store_sync per push: the initial H, then 2 per iteration but the last H.
        assert_eq!(per_rank(&r, "store_sync"), vec![2 * u64::from(cfg.iters); ranks as usize]);
    }
}

#[test]
fn both_slow_down_when_o_rises() {
    for app in APPS {
        let times: Vec<u64> =
            ["500ns", "1500ns", "5us"].iter().map(|o| run_on(&loggopsim(&[("o", o)]), app, 8).makespan_ps).collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}

#[test]
fn em3d_read_is_latency_bound_em3d_write_is_not() {
    // now1997 with L = 5 us, then 50 us. Every get pays 2L; a write pays L only once
    // per barrier round and store_sync, so em3d-read slows down far more.
    let added = |app| {
        let mut p = presets::get("now1997").expect("a preset");
        let base = run_on(&p, app, 8).makespan_ps;
        p.cluster.latency = 50 * US;
        run_on(&p, app, 8).makespan_ps - base
    };
    let (read, write) = (added("em3d-read"), added("em3d-write"));
    eprintln!("added by L: read {} us, write {} us", read / US, write / US);
    assert!(read > 4 * write, "read +{} ns, write +{} ns", read / NS, write / NS);
}

#[test]
fn em3d_write_time_is_linear_in_o() {
    // Martin's overhead model: run time = T0 + (messages on the critical path) · o.
    // A least-squares line over o = 2, 16, ..., 100 us on now1997 must explain at
    // least 99 % of the variance.
    let points: Vec<(f64, f64)> = (0..8u64)
        .map(|i| {
            let o = 2 + 14 * i;
            let mut p = presets::get("now1997").expect("a preset");
            p.cluster.overhead = o * US;
            (o as f64, run_on(&p, "em3d-write", 8).makespan_ps as f64 / US as f64)
        })
        .collect();
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = sxy / sxx;
    let residual: f64 = points.iter().map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2)).sum();
    let total: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let r2 = 1.0 - residual / total;
    eprintln!("slope {slope} us per us of o, R² {r2}, {points:?}");
    assert!(slope > 0.0 && r2 >= 0.99, "slope {slope}, R² {r2}: {points:?}");
}

#[test]
fn same_inputs_same_result() {
    for app in APPS {
        let p = loggopsim(&[]);
        assert_eq!(run_on(&p, app, 3), run_on(&p, app, 3));
    }
}
