//! ACE: predictions without noise, ring by hand, the seed's dispersion finding, EAs
//! sharing (or not) the network, and bad specifications.

mod common;

use common::loggopsim;
use netsens_apps::ace::{run_ace, AceResult, Pattern};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Platform;

fn ace(p: &Platform, ranks: Option<u32>, specs: &[&str]) -> Result<AceResult, Error> {
    let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    run_ace(p, ranks, &specs, &RunOptions::default())
}

#[test]
fn without_noise_every_pattern_is_predicted_within_one_percent() {
    let p = loggopsim(&[]);
    for pattern in Pattern::ALL {
        for load in ["10%", "50%", "90%"] {
            let spec = format!("pattern={},size=4KiB,load={load},iterations=20,ranks=0-7,reps=3", pattern.name());
            let r = ace(&p, None, &[&spec]).unwrap();
            let ea = &r.eas[0];
            assert!(ea.error().abs() < 0.01, "{spec}: predicted {} ps, actual {} ps", ea.predicted, ea.actual);
        }
    }
}

#[test]
fn ring_coefficients_and_run_time_by_hand() {
    // loggopsim: L=2500 o=1500 g=1000 ns, G=6 ns/B, S=65535 B. After a barrier every
    // rank sends n bytes right (cpu +o) and the left neighbour's message arrives at
    // o + L, is processed for o + (n−1)G: T(n) = 2o + L + (n−1)G, so
    // α = 5500 ns − 6 ns = 5.494 us, β = 6 ns/B = 6000 ps/B, R² = 1.
    let p = loggopsim(&[]);
    let r = ace(&p, None, &["pattern=ring,size=1001B,load=50%,iterations=10,ranks=0-3,reps=2"]).unwrap();
    let ea = &r.eas[0];
    assert!((ea.fit.alpha - 5_494_000.0).abs() < 1e-3, "alpha {}", ea.fit.alpha);
    assert!((ea.fit.beta - 6000.0).abs() < 1e-6, "beta {}", ea.fit.beta);
    assert!((ea.fit.r2 - 1.0).abs() < 1e-12);
    // T_comm(1001 B) = 5.5 + 6 = 11.5 us; the 4-rank dissemination barrier is 2 rounds
    // of o + L + o = 11 us; load 50 % gives T_comp = 22.5 us, a 45 us cycle: 450 us.
    assert_eq!((ea.t_comm, ea.t_sync, ea.t_comp), (11_500_000.0, 11_000_000.0, 22_500_000));
    assert_eq!(ea.predicted, 450_000_000.0);
    assert_eq!(ea.actual, 450_000_000);
    for rank in &ea.ranks {
        assert_eq!((rank.comm.mean, rank.comm.sd, rank.compute.mean), (11_500_000.0, 0.0, 22_500_000.0));
    }
}

#[test]
fn jitter_of_growing_sd_keeps_mean_comm_but_spreads_it_and_slows_the_run() {
    // Latency jitter with one mean (1 us) and a growing standard deviation: ranks
    // leave each cycle's barrier at spread times, so waits spread and the slowest
    // rank sets every cycle's end, while the mean exchange hardly moves.
    let runs: Vec<AceResult> = ["constant(1us)", "lognormal(1us, 1us)", "lognormal(1us, 2us)", "lognormal(1us, 4us)"]
        .iter()
        .map(|jitter| {
            let p = loggopsim(&[("latency_jitter", jitter)]);
            ace(&p, None, &["pattern=ring,size=16KiB,load=50%,iterations=400,ranks=0-15"]).unwrap()
        })
        .collect();
    let base = &runs[0].eas[0];
    for pair in runs.windows(2) {
        let (a, b) = (&pair[0].eas[0], &pair[1].eas[0]);
        assert!(b.comm.sd > a.comm.sd, "sd {} then {}", a.comm.sd, b.comm.sd);
        assert!(b.actual > a.actual, "run time {} then {}", a.actual, b.actual);
        assert!(b.error() > a.error(), "prediction error {} then {}", a.error(), b.error());
    }
    for run in &runs[1..] {
        let ea = &run.eas[0];
        let drift = (ea.comm.mean - base.comm.mean) / base.comm.mean;
        assert!(drift.abs() < 0.03, "mean T_comm {} against {} ({drift})", ea.comm.mean, base.comm.mean);
    }
}

#[test]
fn disjoint_eas_on_one_cluster_do_not_slow_each_other() {
    let p = loggopsim(&[]);
    let a = "pattern=ring,size=4KiB,load=30%,iterations=50,ranks=0-7";
    let b = "pattern=alltoall,size=1KiB,load=60%,iterations=30,ranks=8-15";
    let alone_a = ace(&p, Some(16), &[a]).unwrap();
    let alone_b = ace(&p, Some(16), &[b]).unwrap();
    let both = ace(&p, Some(16), &[a, b]).unwrap();
    assert_eq!(both.eas[0].actual, alone_a.eas[0].actual);
    assert_eq!(both.eas[1].actual, alone_b.eas[0].actual);
}

fn bad(p: &Platform, ranks: Option<u32>, specs: &[&str]) -> String {
    match ace(p, ranks, specs) {
        Err(Error::Input(msg)) => {
            assert!(!msg.contains('\n'), "one line: {msg}");
            msg
        }
        Err(e) => panic!("{specs:?}: not an input error: {e}"),
        Ok(_) => panic!("{specs:?}: accepted"),
    }
}

#[test]
fn bad_specifications_are_one_line_input_errors() {
    let p = loggopsim(&[]);
    let ok = "size=1KiB,load=30%,ranks=0-3";
    assert!(bad(&p, None, &[&format!("pattern=spiral,{ok}")]).contains("unknown pattern \"spiral\""));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,load=0%,ranks=0-3"]).contains("above 0%"));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,load=100%,ranks=0-3"]).contains("below 100%"));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,load=30,ranks=0-3"]).contains("needs its unit"));
    assert!(bad(&p, None, &["pattern=ring,size=1024,load=30%,ranks=0-3"]).contains("size"));
    let overlap = bad(&p, None, &[&format!("pattern=ring,{ok}"), "pattern=bcast,size=1KiB,load=30%,ranks=3-5"]);
    assert!(overlap.contains("overlap: rank 3"), "{overlap}");
    let das = common::platform("das1998", &[]);
    assert!(bad(&das, None, &["pattern=ring,size=1KiB,load=30%,ranks=0-40"]).contains("past the platform's 32 ranks"));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,load=30%,ranks=even"]).contains("rank count"));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,load=30%,ranks=0"]).contains("at least 2 ranks"));
    assert!(bad(&p, None, &["pattern=ring,size=1KiB,ranks=0-3,colour=red"]).contains("unknown key"));
}

/// loggopsim split in two clusters of 4 joined by 100 us, 100 MB/s links (10 ns/B),
/// with `noise` added as TOML.
fn two_sites(noise: &str) -> Platform {
    let text = format!(
        "base = \"loggopsim\"\nrendezvous = \"handshake\"\n[shape]\nclusters = \"2x4\"\n[wan]\nlatency = \"100us\"\n\
         bandwidth = \"100MB/s\"\n{noise}"
    );
    Platform::from_toml(&text, "two-sites").unwrap()
}

#[test]
fn eas_sharing_a_wide_area_link_slow_each_other_by_its_capacity() {
    // 100 KB messages (eager: S = 1 MB) cross the 0→1 and 1→0 links (10 ns/B: 1 ms
    // each, L_w = 10 us). Alone, a cycle at 90 % load lasts
    // (T_comm + T_sync) / 0.9 = (1.612994 + 0.013) ms / 0.9 = 1.80666 ms; two EAs put
    // two messages per cycle on each link, 2 ms of link time, so neither can cycle
    // faster than 2 ms: 50 cycles take at least 100 ms.
    let mut p = two_sites("");
    p.set_all(&[("S", "1MB"), ("wan_latency", "10us")]).unwrap();
    let a = "pattern=pairwise,size=100KB,load=90%,iterations=50,ranks=0+4";
    let b = "pattern=pairwise,size=100KB,load=90%,iterations=50,ranks=1+5";
    let alone = &ace(&p, None, &[a]).unwrap().eas[0];
    // o + s·G_w + L_w + o + (s−1)·G = 1.5 + 1000 + 10 + 1.5 + 599.994 us.
    assert_eq!(alone.t_comm, 1_612_994_000.0);
    assert_eq!(alone.actual, 90_333_000_000);
    let both = ace(&p, None, &[a, b]).unwrap();
    for ea in &both.eas {
        assert!(ea.actual >= 50 * 2 * 1_000_000_000, "{} ps", ea.actual);
    }
}

#[test]
fn a_background_flow_slows_the_ea_crossing_its_link_only() {
    let a = "pattern=pairwise,size=10KB,load=50%,iterations=50,ranks=0+4";
    let c = "pattern=pairwise,size=10KB,load=50%,iterations=50,ranks=2+3";
    let quiet = ace(&two_sites(""), None, &[a, c]).unwrap();
    let flow = "[[noise.background]]\nlink = [0, 1]\nsize = \"10KB\"\ninterval = \"exponential(150us)\"\n";
    let busy = ace(&two_sites(flow), None, &[a, c]).unwrap();
    // The crossing EA waits behind the flow's 100 us messages at times; the other,
    // inside cluster 0, is the same to the picosecond.
    assert!(busy.eas[0].comm.mean > quiet.eas[0].comm.mean);
    assert!(busy.eas[0].comm.sd > 0.0 && quiet.eas[0].comm.sd == 0.0);
    assert!(busy.eas[0].actual > quiet.eas[0].actual);
    assert_eq!(busy.eas[1].actual, quiet.eas[1].actual);
    assert_eq!(busy.eas[1].comm, quiet.eas[1].comm);
}

#[test]
fn a_soft_fault_on_a_node_shows_in_its_own_dispersion() {
    // Rank 7 is a leaf of the binomial broadcast: its L ×10 during the second quarter
    // of phase two delays only the message it receives (and the barrier after).
    let spec = "pattern=bcast,size=4KiB,load=50%,iterations=100,ranks=0-7";
    let clean = ace(&loggopsim(&[]), None, &[spec]).unwrap();
    let bench = clean.run.phases.iter().find(|ph| ph.rank == 7 && ph.phase == "benchmark").unwrap().elapsed_ps;
    let cycles = clean.eas[0].actual;
    let (from, to) = (bench + cycles / 4, bench + cycles / 2);
    let text = format!(
        "base = \"loggopsim\"\nrendezvous = \"handshake\"\n[[noise.faults]]\nnode = 7\nparam = \"L\"\n\
         factor = 10.0\nfrom = \"{from}ps\"\nto = \"{to}ps\"\n"
    );
    let faulty = ace(&Platform::from_toml(&text, "fault").unwrap(), None, &[spec]).unwrap();
    let (before, after) = (&clean.eas[0].ranks, &faulty.eas[0].ranks);
    assert!(after[7].comm.cv > 10.0 * before[7].comm.cv, "{:?} then {:?}", before[7].comm, after[7].comm);
    for r in 0..7 {
        assert!(after[r].comm.cv < after[7].comm.cv / 5.0, "rank {r}: {:?}", after[r].comm);
        assert!(after[r].comm.sd < 3.0 * before[r].comm.sd.max(1.0), "rank {r}: {:?}", after[r].comm);
        assert_eq!(after[r].comm.max, before[r].comm.max, "rank {r}");
    }
}
