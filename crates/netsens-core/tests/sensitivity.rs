//! The execution graph of one run against full runs: at every sampled value of every
//! parameter the graph's makespan is the engine's, to the ps; slopes are the counts
//! of L, o, … on the critical path derived by hand from LOGGP.md's vectors; the
//! tolerance is tight (at it T ≤ (1 + ε)·T0, one ps beyond it T is more).

mod common;
use common::*;
use netsens_core::analysis::{record_schedule, Buffers, ExecGraph, Param, Part, Point, Slots, EPSILONS};
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::schedule::{goal::parse_goal, Schedule, ScheduleBuilder};
use netsens_core::time::{PerByte, NS};

fn record(s: &Schedule, p: &Platform) -> ExecGraph {
    record_schedule(s, p, &RunOptions::default(), &mut |_| true).expect("the run finishes").1
}

fn makespan(s: &Schedule, p: &Platform) -> u64 {
    run(s, p).ranks.iter().map(|r| r.end_ps).max().unwrap()
}

/// `p` with parameter `x` at `v` (ps, or ps/B for per-byte ones), set on the
/// platform itself: a second path to the value, independent of `Point`.
fn with(p: &Platform, x: Param, v: u64) -> Platform {
    let mut q = p.clone();
    fn lv(q: &mut Platform, l: u8) -> &mut netsens_core::platform::LevelParams {
        if l == 0 {
            q.node.as_mut().unwrap()
        } else {
            &mut q.cluster
        }
    }
    match x {
        Param::Latency(l) => lv(&mut q, l).latency = v,
        Param::Overhead(l) => lv(&mut q, l).overhead = v,
        Param::Gap(l) => lv(&mut q, l).gap = v,
        Param::GapPerByte(l) => lv(&mut q, l).gap_per_byte = PerByte::from_ps(v),
        Param::OverheadPerByte(l) => lv(&mut q, l).overhead_per_byte = PerByte::from_ps(v),
        Param::WanLatency => q.wan.as_mut().unwrap().latency = v,
        Param::WanPerByte => q.wan.as_mut().unwrap().per_byte = PerByte::from_ps(v),
        Param::CpuTime => unreachable!("cpu speed is sampled apart"),
    }
    q
}

/// Every parameter but the CPU's at 0, ¼, ½, 1, 2, 10 and 100 times its value (and
/// a few ns where it is 0): the graph's makespan equals a full run's.
fn agrees_everywhere(s: &Schedule, p: &Platform) {
    agrees_at(s, p, &[0.0, 0.25, 0.5, 1.0, 2.0, 10.0, 100.0], &[0.5, 1.0, 2.0, 4.0]);
}

/// As [`agrees_everywhere`] at these multiples of each parameter's value.
/// and at these CPU speeds.
fn agrees_at(s: &Schedule, p: &Platform, multiples: &[f64], speeds: &[f64]) {
    let g = record(s, p);
    let base = Point::of(p);
    let mut times = Vec::new();
    for x in Param::all(p).into_iter().filter(|&x| x != Param::CpuTime) {
        let v0 = base.get(x) as u64;
        let samples: Vec<u64> = if v0 == 0 {
            // A parameter at 0: a few ps (ps/B) up, and far up with the far multiples.
            let far = multiples.iter().any(|&m| m > 2.0);
            if far {
                vec![0, 1, 7, 1000, 123_456]
            } else {
                vec![0, 1, 7]
            }
        } else {
            multiples.iter().map(|m| (v0 as f64 * m) as u64 + u64::from(*m == 10.0) * 3).collect()
        };
        for v in samples {
            let graph = g.makespan(&base.with(x, v as f64), &mut times);
            let full = makespan(s, &with(p, x, v));
            assert_eq!(graph, full as f64, "{} = {v}: graph {graph} ps, run {full} ps", x.name());
        }
    }
    for &speed in speeds {
        let mut q = p.clone();
        q.cpu_speed = speed;
        let graph = g.makespan(&base.with(Param::CpuTime, 1.0 / speed), &mut times);
        assert_eq!(graph, makespan(s, &q) as f64, "cpu_speed {speed}");
    }
}

fn goal(text: &str) -> Schedule {
    parse_goal(text, "test.goal").unwrap()
}

fn example(name: &str) -> Schedule {
    let path = format!("{}/../../examples/goal/{name}", env!("CARGO_MANIFEST_DIR"));
    goal(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn the_loggp_vectors_agree_with_full_runs_at_every_sampled_value() {
    for rdv in [Rendezvous::Handshake, Rendezvous::Loggopsim] {
        let p = loggopsim_defaults(rdv);
        for bytes in [1, 1001, 100_000] {
            agrees_everywhere(&one_message(bytes), &p);
            agrees_everywhere(&ping_pong(bytes), &p);
        }
        agrees_everywhere(&dissemination(16, 1), &p);
        agrees_everywhere(&example("rendezvous.goal"), &p);
        agrees_everywhere(&example("calc_recv.goal"), &p);
        agrees_everywhere(&back_to_back(), &p);
    }
}

/// LOGGP.md vector 4: two 1-byte sends from one host, then received.
fn back_to_back() -> Schedule {
    goal(
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\nl2: send 1b to 1 tag 0\n}\n\
         rank 1 {\nl1: recv 1b from 0 tag 0\nl2: recv 1b from 0 tag 0\nl2 requires l1\n}\n",
    )
}

#[test]
fn wide_area_links_and_their_queues_agree_with_full_runs() {
    // LOGGP.md's example: two ranks of cluster 0 send 1000 B to cluster 1 at 0; the
    // second waits for the link.
    let p = two_clusters(level(2500, 1500, 1000, 6, 0, 65535), 2, 3_000 * NS, 1000);
    let mut b = ScheduleBuilder::new(4);
    for src in [0, 1] {
        b.send(src, 2 + src, 1000, 0, 0, 0);
        b.recv(2 + src, src as i32, 1000, 0, 0, 0);
    }
    let s = b.build().unwrap();
    agrees_everywhere(&s, &p);
    let g = record(&s, &p);
    let base = Point::of(&p);
    let mut times = Vec::new();
    g.times(&base, &mut times);
    let cp = g.critical_path(&base, &times);
    // Second message: o, queued behind the first's 1000 B (1 µs/B... here 1 ns/B),
    // its own 1000 B, L_w, then the receiver's o + max(0, 999·G).
    assert_eq!(cp.parts.get(&Part::LinkQueue), Some(&(1000.0 * 1000.0)));
    assert_eq!(cp.parts.get(&Part::WanBytes), Some(&(1000.0 * 1000.0)));
    assert_eq!(cp.parts.get(&Part::WanLatency), Some(&(3_000.0 * 1000.0)));
    // The queue is the wide-area link's: its own class of the link queueing.
    let wide_area = netsens_core::analysis::answer::critical::WIDE_AREA;
    assert_eq!(cp.link_queue_by_class.iter().collect::<Vec<_>>(), vec![(&wide_area, &(1000.0 * 1000.0))]);
}

#[test]
fn slopes_count_the_critical_paths_parameters() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let mut buf = Buffers::default();
    let base = Point::of(&p);
    // Vector 3: 4 rounds of (o, L, o): ∂T/∂L = 4, ∂T/∂o = 8, no g on the path.
    let g = record(&dissemination(16, 1), &p);
    let slope = |x| {
        let e = g.eval(&base, x, &mut Buffers::default());
        (e.slope_down, e.slope_up)
    };
    assert_eq!(slope(Param::Latency(1)), (4.0, 4.0));
    assert_eq!(slope(Param::Overhead(1)), (8.0, 8.0));
    assert_eq!(g.eval(&base, Param::Gap(1), &mut buf).slope_up, 0.0);
    // Vector 5 (handshake, 100000 B): RTS, CTS and data each cross L once; the
    // receiver's last arrival pays max(k·O, k·G) with O = 0: ∂T/∂G = 99999 B.
    let g = record(&one_message(100_000), &p);
    let e = g.eval(&base, Param::Latency(1), &mut buf);
    assert_eq!((e.slope_down, e.slope_up, e.makespan), (3.0, 3.0, 616_494.0 * 1000.0));
    assert_eq!(g.eval(&base, Param::GapPerByte(1), &mut buf).slope_up, 99_999.0);
    // At O = G the receive's two per-byte terms tie: going up either one counts all
    // its bytes, going down neither does.
    let tied = Point::of(&with(&p, Param::OverheadPerByte(1), 6000));
    let e = g.eval(&tied, Param::OverheadPerByte(1), &mut buf);
    assert_eq!((e.slope_down, e.slope_up), (0.0, 99_999.0));
}

/// Rank 1 computes 4000 ns, then receives rank 0's 1-byte message.
fn calc_then_receive() -> Schedule {
    goal(
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\n\
         rank 1 {\nl1: calc 4000\nl2: recv 1b from 0 tag 0\nl2 requires l1\n}\n",
    )
}

#[test]
fn ties_between_paths_give_different_slopes_up_and_down() {
    // Rank 1 computes 4000 ns then receives a 1-byte message that arrives at 4000 ns
    // (o + L): the receive's start ties between the calc and the arrival. Going up in
    // L, T follows L (slope 1); going down it stays with the calc (slope 0).
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = calc_then_receive();
    let g = record(&s, &p);
    let e = g.eval(&Point::of(&p), Param::Latency(1), &mut Buffers::default());
    assert_eq!((e.slope_down, e.slope_up), (0.0, 1.0));
    assert_eq!(e.makespan, makespan(&s, &p) as f64);
}

#[test]
fn tolerances_are_tight_against_full_runs() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    for s in [dissemination(16, 1), ping_pong(1001), one_message(100_000), back_to_back()] {
        let g = record(&s, &p);
        let base = Point::of(&p);
        let t0 = makespan(&s, &p) as f64;
        for x in [Param::Latency(1), Param::Overhead(1), Param::Gap(1)] {
            for eps in [0.01, 0.02, 0.05, 0.10] {
                let mut buf = Buffers::default();
                let e0 = g.eval(&base, x, &mut buf);
                let Some(dx) = g.tolerance(&base, x, &e0, eps, &mut buf) else { continue };
                let at = base.get(x) as u64 + dx.floor() as u64;
                assert!(makespan(&s, &with(&p, x, at)) as f64 <= (1.0 + eps) * t0, "{} ε={eps}", x.name());
                assert!(makespan(&s, &with(&p, x, at + 1)) as f64 > (1.0 + eps) * t0, "{} ε={eps}", x.name());
            }
        }
    }
}

#[test]
fn a_parameter_flat_at_the_platforms_value_still_has_its_tolerance() {
    // Vector 4: the second send waits for the CPU (o = 1500 ns > g = 1000 ns), so
    // ∂T/∂g = 0 here; once g passes o it waits for the NIC and T grows with g.
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let g = record(&back_to_back(), &p);
    let base = Point::of(&p);
    let mut buf = Buffers::default();
    let e0 = g.eval(&base, Param::Gap(1), &mut buf);
    assert_eq!((e0.slope_down, e0.slope_up), (0.0, 0.0));
    // T = 7000 ns; past g = 1500 ns the second message arrives at g + o + L and is
    // done at T = g + 5500 ns: 1 % more (70 ns) at g = 1570 ns.
    let dx = g.tolerance(&base, Param::Gap(1), &e0, 0.01, &mut buf).expect("g matters past o");
    assert_eq!(dx, (1500.0 - 1000.0 + 70.0) * 1000.0);
    // O never appears on a 1-byte message's path: no tolerance bound.
    let e = g.eval(&base, Param::OverheadPerByte(1), &mut buf);
    assert_eq!(g.tolerance(&base, Param::OverheadPerByte(1), &e, 0.01, &mut buf), None);
}

/// A flat parameter's search starts on its steepest path's line: the largest slope
/// of any path and, of those, the largest value at x = 0. By hand on vector 4, g's
/// line is T = g + 5500 ns (the second message's path once g passes o).
#[test]
fn the_steepest_line_is_the_hand_derived_one_and_a_lower_bound_of_t_that_t_meets_far_out() {
    use netsens_core::analysis::passes::steepest::SteepestLine;
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let g = record(&back_to_back(), &p);
    let base = Point::of(&p);
    let by_hand = SteepestLine { slope: 1.0, at_zero: 5_500_000.0 };
    assert_eq!(g.steepest(&base, Param::Gap(1)), by_hand);
    assert_eq!(g.steepest_lanes(&Slots::of(&g), &base, &[Param::Gap(1)]), vec![by_hand]);
    // Random schedules, an exchange and many sizes, every parameter on a grid: the batched pass
    // is the node-by-node one; the line is at most T (the record's own evaluation)
    // from 0 to far out, and far out T is on it (past every corner: slopes differ
    // by whole ps or bytes, values at 0 by less than 10^10 ps).
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut schedules: Vec<Schedule> = (0..5).map(|_| random_rounds(&mut rng)).collect();
    schedules.push(netsens_core::schedule::patterns::ring_exchange(8, 3, 64, 1000 * NS).unwrap());
    // More pairs of price and size than a pass's table holds: nodes priced one by one.
    schedules.push(many_sizes());
    let params =
        [Param::Latency(1), Param::Overhead(1), Param::Gap(1), Param::GapPerByte(1), Param::OverheadPerByte(1)];
    let mut buf = Buffers::default();
    for s in &schedules {
        let g = record(s, &p);
        let lanes = g.steepest_lanes(&Slots::of(&g), &base, &params);
        for (&x, &line) in params.iter().zip(&lanes) {
            assert_eq!(line, g.steepest(&base, x), "{}", x.name());
            assert!(line.slope > 0.0, "{}: every schedule here pays it", x.name());
            for v in [0.0, 1.0, base.get(x), 3.0 * base.get(x) + 7.0, 1e6] {
                let t = g.eval(&base.with(x, v), x, &mut buf).makespan;
                assert!(line.at_zero + line.slope * v <= t, "{} at {v}: line above T {t}", x.name());
            }
            for far in [1e10, 2e10] {
                let t = g.eval(&base.with(x, far), x, &mut buf).makespan;
                assert_eq!(line.at_zero + line.slope * far, t, "{} at {far}", x.name());
            }
        }
    }
}

#[test]
fn curves_are_the_full_runs_at_their_corners_and_between() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = calc_then_receive();
    let g = record(&s, &p);
    let curve = g.curve(&Point::of(&p), Param::Latency(1), 0.0, 20_000.0 * 1000.0, &mut Buffers::default());
    // T(L) = max(4000 + 1500, 1500 + L + 1500) ns: one corner at L = 2500 ns.
    assert_eq!(curve, vec![(0.0, 5_500_000.0), (2_500_000.0, 5_500_000.0), (20_000_000.0, 23_000_000.0)]);
    for (x, t) in curve {
        assert_eq!(makespan(&s, &with(&p, Param::Latency(1), x as u64)) as f64, t);
    }
}

#[test]
fn unknown_parameters_are_named_with_the_accepted_ones() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let e = Param::parse("lat", &p).unwrap_err().to_string();
    assert!(e.contains("unknown parameter `lat`") && e.contains("L, o, g, G, O") && !e.contains("wan.L"), "{e}");
    assert!(Param::parse("wan.L", &p).is_err());
    assert_eq!(Param::parse("G", &p).unwrap(), Param::GapPerByte(1));
}

#[test]
fn exchanges_and_random_schedules_agree_with_full_runs_near_the_platform() {
    use netsens_core::schedule::patterns;
    let p = loggopsim_defaults(Rendezvous::Handshake);
    // Where arrivals from several ranks compete for a receiver's NIC and CPU, their
    // order is the recorded one only near the platform's values (far from them it
    // flips, and a full run takes over: see docs/guides/sensitivity.md).
    let near = [0.99, 1.0, 1.01];
    let speeds = [1.0];
    agrees_at(&patterns::ring_exchange(8, 3, 64, 1000 * NS).unwrap(), &p, &near, &speeds);
    agrees_at(&patterns::ring_exchange(6, 2, 100_000, 500 * NS).unwrap(), &p, &near, &speeds);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..6 {
        agrees_at(&random_rounds(&mut rng), &p, &near, &speeds);
    }
}

/// A deterministic stream for the random schedules (no dependence on the engine).
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// 2 to 7 ranks, 3 rounds: each rank computes, then receives from whoever sends to
/// it and sends to a random peer (a random permutation), both after its computation;
/// the next round waits for both. Eager and rendezvous sizes.
fn random_rounds(rng: &mut XorShift) -> Schedule {
    let ranks = 2 + rng.below(6) as u32;
    let mut b = ScheduleBuilder::new(ranks);
    let mut last: Vec<Vec<u32>> = vec![Vec::new(); ranks as usize];
    for round in 0..3 {
        let mut dst: Vec<u32> = (0..ranks).collect();
        for i in (1..dst.len()).rev() {
            dst.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let sizes: Vec<u64> = (0..ranks).map(|_| [1, 100, 70_000][rng.below(3) as usize]).collect();
        for r in 0..ranks {
            let calc = b.calc(r, rng.below(5000) * NS, 0);
            for &prev in &last[r as usize] {
                b.requires(calc, prev);
            }
            let src = dst.iter().position(|&d| d == r).unwrap();
            let recv = b.recv(r, src as i32, sizes[src], round, 0, 0);
            let send = b.send(r, dst[r as usize], sizes[r as usize], round, 0, 0);
            b.requires(recv, calc);
            b.requires(send, calc);
            last[r as usize] = vec![recv, send];
        }
    }
    b.build().unwrap()
}

/// Two leaves of two hosts on a fat-tree (`up` parents per leaf: 2 = 1:1, 1 = 2:1),
/// links of `bandwidth` and `latency` each, under end points `ends`.
fn fat_tree(ends: &str, up: u32, bandwidth: &str, latency: &str) -> Platform {
    let toml = format!(
        "{ends}\n[topology]\nkind = \"fat-tree\"\ndown = [2, 2]\nup = [{up}]\n\
         bandwidth = \"{bandwidth}\"\nlatency = \"{latency}\"\n"
    );
    Platform::from_toml(&toml, "t.toml").expect("the platform reads")
}

/// Every (src, dst, bytes) message sent and received at time 0.
fn messages(ranks: u32, list: &[(u32, u32, u64)]) -> Schedule {
    let mut b = ScheduleBuilder::new(ranks);
    for &(s, d, bytes) in list {
        b.send(s, d, bytes, 0, 0, 0);
        b.recv(d, s as i32, bytes, 0, 0, 0);
    }
    b.build().unwrap()
}

/// The critical path's make-up at the platform's values, in ns per part name (by name).
fn make_up_ns(g: &ExecGraph, p: &Platform) -> Vec<(String, f64)> {
    let base = Point::of(p);
    let mut times = Vec::new();
    g.times(&base, &mut times);
    let cp = g.critical_path(&base, &times);
    parts(&cp.parts.iter().map(|(k, &ps)| (k.name(), ps / 1000.0)).collect::<Vec<_>>())
}

fn parts<S: ToString>(list: &[(S, f64)]) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = list.iter().map(|(k, t)| (k.to_string(), *t)).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

const ENDS_1US: &str = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1MiB\"\n";

#[test]
fn two_messages_sharing_a_link_put_the_hand_computed_wait_on_the_critical_path() {
    // docs/guides/topology.md's pair: 0 → 2 and 1 → 3 at once, 1001 B, on the 2:1
    // tree: their k = 1000 B share leaf 0's one up link at 0.5 B/ns: 2000 ns instead
    // of 1000, so each waits δ = 1000 ns. Receiver 2 ends at o + L + 4 × 100 ns + δ +
    // o + 1000·G = 5400 ns.
    let list = [(0, 2, 1001), (1, 3, 1001)];
    let s = messages(4, &list);
    let p = fat_tree(ENDS_1US, 1, "1GB/s", "100ns");
    let g = record(&s, &p);
    assert_eq!(g.makespan(&Point::of(&p), &mut Vec::new()), 5_400_000.0);
    let want = [("o", 2000.0), ("L", 1000.0), ("route latency", 400.0), ("link queueing", 1000.0), ("G", 1000.0)];
    assert_eq!(make_up_ns(&g, &p), parts(&want));
    // Untapered, they take different up links: no wait, no queueing row.
    let p1 = fat_tree(ENDS_1US, 2, "1GB/s", "100ns");
    let want = [("o", 2000.0), ("L", 1000.0), ("route latency", 400.0), ("G", 1000.0)];
    assert_eq!(make_up_ns(&record(&s, &p1), &p1), parts(&want));
    // L, o and g move both flows alike, so their sharing and the held waits stay
    // exact: the record equals full runs at other values of them.
    let base = Point::of(&p);
    for x in [Param::Latency(1), Param::Overhead(1), Param::Gap(1)] {
        for v in [0, 1, 250_000, 3_000_000] {
            let graph = g.makespan(&base.with(x, v as f64), &mut Vec::new());
            assert_eq!(graph, makespan(&s, &with(&p, x, v)) as f64, "{} = {v} ps", x.name());
        }
    }
    assert_eq!(g.eval(&base, Param::Latency(1), &mut Buffers::default()).slope_up, 1.0);
}

#[test]
fn a_link_slower_than_the_nic_is_transmission_not_queueing() {
    // One 1001 B message across the tree on links of 0.5 GB/s: alone its k = 1000 B
    // move at the link's 0.5 B/ns, 2000 ns where its NIC's G takes 1000: 1000 ns of
    // link transmission, nothing shared.
    let s = messages(4, &[(0, 2, 1001)]);
    let p = fat_tree(ENDS_1US, 2, "0.5GB/s", "100ns");
    let g = record(&s, &p);
    let want = [("o", 2000.0), ("L", 1000.0), ("route latency", 400.0), ("link transmission", 1000.0), ("G", 1000.0)];
    assert_eq!(make_up_ns(&g, &p), parts(&want));
    assert_eq!(g.makespan(&Point::of(&p), &mut Vec::new()), makespan(&s, &p) as f64);
}

#[test]
fn a_fat_tree_all_to_all_splits_its_links_time_into_transmission_and_queueing() {
    // 1001 B (k = 1000) among 4 hosts, all at 0, end points free (o = L = g = G = 0), links of
    // 1 B/ns and no latency (tests/topology.rs derives the ends: 3000 ns untapered,
    // 4000 ns tapered 2:1). Alone, a flow would take 1000 ns on its links; the rest
    // of the latest arrival is queueing: 2000 ns untapered, 3000 ns tapered.
    let ends = "[cluster]\nL = \"0ns\"\no = \"0ns\"\ng = \"0ns\"\nG = \"0ns/B\"\nS = \"1MiB\"\n";
    let list: Vec<(u32, u32, u64)> =
        (0..4).flat_map(|s| (0..4).filter(move |&d| d != s).map(move |d| (s, d, 1001))).collect();
    let s = messages(4, &list);
    for (up, queueing) in [(2, 2000.0), (1, 3000.0)] {
        let p = fat_tree(ends, up, "1GB/s", "0ns");
        let g = record(&s, &p);
        assert_eq!(g.makespan(&Point::of(&p), &mut Vec::new()), makespan(&s, &p) as f64);
        assert_eq!(make_up_ns(&g, &p), parts(&[("link transmission", 1000.0), ("link queueing", queueing)]));
    }
}

#[test]
fn per_byte_costs_off_the_whole_ps_are_rounded_as_the_engine_rounds_them() {
    // now1997's G is 26315.789 ps/B (38 MB/s): the engine charges a message's bytes
    // (k·G_fs + 500) / 1000 ps, rounded per message; so does the record. At every G
    // on the fs/B grid near it and at CPU speed 3 (rounded per computation) the
    // record is the full run to the ps.
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    let s = example("calc_recv.goal");
    for fs in [26_315_789u64, 26_315_500, 333_333, 6_000_001] {
        p.cluster.gap_per_byte = PerByte(fs);
        p.cluster.overhead_per_byte = PerByte(fs / 3);
        p.cpu_speed = 3.0;
        for s in [&s, &ping_pong(1001), &one_message(100_000)] {
            let g = record(s, &p);
            let base = Point::of(&p);
            assert_eq!(g.makespan(&base, &mut Vec::new()), makespan(s, &p) as f64, "G = {fs} fs/B");
            let mut q = p.clone();
            q.cluster.gap_per_byte = PerByte(fs + 7);
            let at = base.with(Param::GapPerByte(1), (fs + 7) as f64 / 1000.0);
            assert_eq!(g.makespan(&at, &mut Vec::new()), makespan(s, &q) as f64, "G = {} fs/B", fs + 7);
        }
    }
}

/// Every parameter's slopes and tolerances from the batched passes
/// (`sensitivities`: many points a pass, values kept only while read) against the
/// one-point passes (`eval`, `tolerance`), bit for bit, with both rounding paths
/// (whole ps per byte, and G off the ps) and noise on the CPU.
#[test]
fn one_pass_for_many_points_gives_the_one_point_answers_bit_for_bit() {
    let mut off_grid = loggopsim_defaults(Rendezvous::Handshake);
    off_grid.cluster.gap_per_byte = PerByte(26_315_789);
    off_grid.cpu_speed = 3.0;
    // A node level of its own (2 ranks a node) and CPU detours (noise on the nodes).
    let node_level = format!(
        "{ENDS_1US}[node]\nL = \"100ns\"\no = \"200ns\"\n[shape]\nranks_per_node = 2\n\
         [noise]\ndetour_interval = \"exponential(3us)\"\ndetour_duration = \"constant(300ns)\"\n"
    );
    let node_level = Platform::from_toml(&node_level, "n.toml").expect("the platform reads");
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut schedules = vec![dissemination(16, 1), one_message(100_000), back_to_back(), example("calc_recv.goal")];
    schedules.extend((0..4).map(|_| random_rounds(&mut rng)));
    schedules.push(many_sizes());
    let eps = [0.01, 0.02, 0.05, 0.10];
    for p in [loggopsim_defaults(Rendezvous::Handshake), off_grid, node_level] {
        for s in schedules.iter().filter(|s| p.node.is_none() || s.num_ranks % 2 == 0) {
            let g = record(s, &p);
            let base = Point::of(&p);
            let params = Param::all(&p);
            let mut buf = Buffers::default();
            let mut bounded = 0;
            for got in g.sensitivities(&base, &params, &eps) {
                let want = g.eval(&base, got.param, &mut buf);
                assert_eq!(got.slope, want, "{}", got.param.name());
                for (e, dx) in got.tolerances {
                    assert_eq!(dx, g.tolerance(&base, got.param, &want, e, &mut buf), "{} ε={e}", got.param.name());
                    bounded += usize::from(dx.is_some());
                }
            }
            // Tolerances of L, o and g at least are found, for every ε.
            assert!(bounded >= 3 * eps.len(), "{bounded}");
        }
    }
}

/// 4 ranks in a ring, 80 rounds, each computation and message of a size of its own:
/// more (kind, level, size) pairs than a pass's table of them holds (255), so the
/// later nodes are priced one by one.
fn many_sizes() -> Schedule {
    let mut b = ScheduleBuilder::new(4);
    let mut last: Vec<Option<u32>> = vec![None; 4];
    for round in 0..80u64 {
        for r in 0..4u32 {
            let i = round * 4 + r as u64;
            let calc = b.calc(r, (1000 + 37 * i) * NS, 0);
            if let Some(prev) = last[r as usize] {
                b.requires(calc, prev);
            }
            let from = (r + 3) % 4;
            let recv = b.recv(r, from as i32, 1 + 13 * (round * 4 + from as u64), round as i32, 0, 0);
            let send = b.send(r, (r + 1) % 4, 1 + 13 * i, round as i32, 0, 0);
            b.requires(recv, calc);
            b.requires(send, calc);
            last[r as usize] = Some(recv);
        }
    }
    b.build().unwrap()
}

/// Seven pairs of ranks: pair j computes C_j, then plays j + 1 one-byte ping-pongs
/// (each round trip 4o + 2L = 11 µs at LogGOPSim's values, and 2 L's). C_j = 131 µs −
/// (j + 1)² µs − 11 µs·(j + 1) puts pair j's end on the line 131 µs − (j+1)² µs + 2(j+1)·ΔL:
/// lines tangent to 131 µs + ΔL²/1 µs, so T(L) has a corner every 0.5 µs or so.
fn ping_pong_ladder() -> Schedule {
    let mut b = ScheduleBuilder::new(14);
    for j in 0..7u32 {
        let (a, z, trips) = (2 * j, 2 * j + 1, u64::from(j) + 1);
        let mut last = b.calc(a, (131_000 - 1000 * trips * trips - 11_000 * trips) * NS, 0);
        let mut last_z = None;
        for t in 0..trips as i32 {
            let send = b.send(a, z, 1, t, 0, 0);
            b.requires(send, last);
            let got = b.recv(z, a as i32, 1, t, 0, 0);
            if let Some(prev) = last_z {
                b.requires(got, prev);
            }
            let back = b.send(z, a, 1, t, 0, 0);
            b.requires(back, got);
            last_z = Some(back);
            last = b.recv(a, z as i32, 1, t, 0, 0);
            b.requires(last, send);
        }
    }
    b.build().unwrap()
}

/// Also the rounds: T(L) is convex on whole ps, so it is at most the chord between a
/// step evaluated at or below the target and one above it: the last step where that
/// chord is at or below the target is too, known without a pass (and at least the
/// tangent at a step below the target, a bound from the left as Newton's steps are
/// from the right). On the ladder L's four ε take 3 rounds of 1, 4 and 4 lanes, where
/// Newton's steps from the right alone took a fourth of 2; L, o and g together 34
/// lanes, not 38.
#[test]
fn a_tolerance_many_pieces_from_the_first_step_is_tight() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = ping_pong_ladder();
    let g = record(&s, &p);
    let base = Point::of(&p);
    let l = Param::Latency(1);
    let t0 = makespan(&s, &p) as f64;
    // Pair 0 ends last: 119 + 11 µs, and its 2 L's are the slope.
    assert_eq!(t0, 130_000_000.0);
    let mut buf = Buffers::default();
    let e0 = g.eval(&base, l, &mut buf);
    assert_eq!(e0.slope_up, 2.0);
    let eps = [0.01, 0.02, 0.05, 0.10];
    let all = g.sensitivities(&base, &[l], &eps);
    for &(e, dx) in &all[0].tolerances {
        let dx = dx.expect("every pair depends on L");
        assert_eq!(Some(dx), g.tolerance(&base, l, &e0, e, &mut buf), "ε={e}");
        // The root here is a whole ps; Newton's last step lands within a few 1e-9 ps of it.
        let at = base.get(l) as u64 + (dx + 1e-6).floor() as u64;
        assert!(makespan(&s, &with(&p, l, at)) as f64 <= (1.0 + e) * t0, "ε={e}");
        let next = makespan(&s, &with(&p, l, at + 1)) as f64;
        assert!(next > (1.0 + e) * t0, "ε={e}: Δ {dx} ps, T there {next} ps, target {}", (1.0 + e) * t0);
    }
    // At 10 % the first step (the tangent, 6.5 µs on) is 3 corners past the root: the
    // search walks past its plain steps and tries points between.
    let dx = all[0].tolerances[3].1.unwrap();
    let first = base.get(l) + 0.10 * t0 / 2.0;
    let corners = g.curve(&base, l, base.get(l) + dx, first, &mut buf).len() - 2;
    assert!(corners >= 3, "{corners} corners");
    // Closed from below by the chord.
    assert_eq!(g.analyze(&base, &[l], &eps).newton_passes, vec![1, 4, 4]);
    let three = g.analyze(&base, &[l, Param::Overhead(1), Param::Gap(1)], &eps);
    // g is flat at x0: each ε starts where the steepest path's own line reaches it
    // (4 rounds; 5 from one far bound shared by the four).
    assert_eq!(three.newton_passes, vec![8, 12, 8, 2]);
    assert_eq!(three.params[0].tolerances, all[0].tolerances);
    for ps in &three.params[1..] {
        for &(e, dx) in &ps.tolerances {
            let at = base.get(ps.param) as u64 + dx.expect("every pair depends on o and g") as u64;
            assert!(makespan(&s, &with(&p, ps.param, at)) as f64 <= (1.0 + e) * t0, "{} ε={e}", ps.param.name());
            assert!(makespan(&s, &with(&p, ps.param, at + 1)) as f64 > (1.0 + e) * t0, "{} ε={e}", ps.param.name());
        }
    }
}

/// The tolerance is a whole number of ps (of fs/B for a per-byte cost), exactly: a full
/// run at x0 + Δ fits (1 + ε)·T0 and one a grid step beyond does not, without rounding
/// Δ first (Newton's last step can stop 1e-9 ps short of a whole-ps root).
#[test]
fn a_tolerance_is_a_whole_grid_step_checked_by_full_runs() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    for s in [ping_pong_ladder(), ping_pong(1001), dissemination(16, 1), one_message(100_000)] {
        let g = record(&s, &p);
        let base = Point::of(&p);
        let t0 = makespan(&s, &p) as f64;
        let params = [Param::Latency(1), Param::Overhead(1), Param::Gap(1), Param::GapPerByte(1)];
        for got in g.sensitivities(&base, &params, &[0.01, 0.02, 0.05, 0.10]) {
            let x = got.param;
            for (e, dx) in got.tolerances {
                let Some(dx) = dx else { continue };
                let limit = (1.0 + e) * t0;
                if x == Param::GapPerByte(1) {
                    // In fs/B: the platform's G plus a whole number of fs/B.
                    let fs = dx * 1000.0;
                    assert_eq!(fs, fs.round(), "{} ε={e}: Δ {dx} ps/B", x.name());
                    let at = p.cluster.gap_per_byte.fs_per_byte() + fs as u64;
                    let run_at = |fs: u64| {
                        let mut q = p.clone();
                        q.cluster.gap_per_byte = PerByte(fs);
                        makespan(&s, &q) as f64
                    };
                    assert!(run_at(at) <= limit && run_at(at + 1) > limit, "{} ε={e}: Δ {dx} ps/B", x.name());
                    continue;
                }
                assert_eq!(dx, dx.round(), "{} ε={e}: Δ {dx} ps", x.name());
                let at = base.get(x) as u64 + dx as u64;
                let (t_at, t_next) = (makespan(&s, &with(&p, x, at)) as f64, makespan(&s, &with(&p, x, at + 1)) as f64);
                assert!(
                    t_at <= limit && t_next > limit,
                    "{} ε={e}: Δ {dx} ps, T {t_at} then {t_next}, limit {limit}",
                    x.name()
                );
            }
        }
    }
}

/// The exact curve `c` (corners, x increasing) at `x`, between its corners.
fn on_curve(c: &[(f64, f64)], x: f64) -> f64 {
    let i = c.iter().position(|&(cx, _)| cx >= x).expect("x within the curve's range");
    if c[i].0 == x || i == 0 {
        return c[i].1;
    }
    let ((x0, t0), (x1, t1)) = (c[i - 1], c[i]);
    t0 + (t1 - t0) * (x - x0) / (x1 - x0)
}

/// T at values asked alone (`curves_at`: every value a lane of the batched passes) is
/// the exact curve's value there: bit for bit at its corners, to a thousandth of a ps
/// between them, and a full run's to the ps at every whole-ps value.
#[test]
fn values_asked_alone_are_the_exact_curve_and_the_full_runs() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = ping_pong_ladder();
    let g = record(&s, &p);
    let base = Point::of(&p);
    let (l, o) = (Param::Latency(1), Param::Overhead(1));
    let hi = 20_000_000.0;
    let mut buf = Buffers::default();
    let curve = g.curve(&base, l, 0.0, hi, &mut buf);
    // A corner where each pair after the first takes over the end: 7 pairs, 6 corners at least.
    assert!(curve.len() >= 8, "the ladder's curve: {curve:?}");
    // The corners, 60 whole-ps values across the range, and o's values in the same passes
    // (more than one pass of lanes in all).
    let corners: Vec<f64> = curve.iter().map(|c| c.0).collect();
    let whole: Vec<f64> = (0..60).map(|i| (i as f64 * hi / 59.0).round()).collect();
    let o_values = vec![0.0, 1_500_000.0, 4_000_000.0];
    let asked = [(l, corners.clone()), (l, whole.clone()), (o, o_values.clone())];
    let found = g.curves_at(&Slots::of(&g), &base, &asked);
    for (&x, &t) in corners.iter().zip(&found[0]) {
        assert_eq!(t, on_curve(&curve, x), "corner L = {x} ps");
    }
    for (&x, &t) in whole.iter().zip(&found[1]) {
        assert!((t - on_curve(&curve, x)).abs() <= 1e-3, "L = {x} ps: {t} ps, curve {} ps", on_curve(&curve, x));
        assert_eq!(t, makespan(&s, &with(&p, l, x as u64)) as f64, "L = {x} ps");
    }
    for (&x, &t) in o_values.iter().zip(&found[2]) {
        assert_eq!(t, makespan(&s, &with(&p, o, x as u64)) as f64, "o = {x} ps");
    }
    // One value asked alone is the same number as in the shared passes.
    assert_eq!(g.curves_at(&Slots::of(&g), &base, &[(o, vec![4_000_000.0])]), vec![vec![found[2][2]]]);
}

/// The request's `at`: every value's T in the answer; an unknown parameter, no values
/// or a negative one is one error line before anything is computed.
#[test]
fn the_requests_values_come_back_and_bad_ones_are_one_line() {
    use netsens_core::analysis::{report, Request};
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = calc_then_receive();
    let g = record(&s, &p);
    let ask = |at: Vec<(&str, Vec<f64>)>| Request {
        params: Some(vec![]),
        at: at.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        ..Default::default()
    };
    // T(L) = max(4000 + 1500, 1500 + L + 1500) ns (curves_are_the_full_runs_at_…).
    let out = report(&g, &p, &ask(vec![("L", vec![0.0, 2_500_000.0, 10_000_000.0])]), None).unwrap();
    let at = &out["at"][0];
    assert_eq!((at["param"].as_str(), at["unit"].as_str()), (Some("L"), Some("ps")));
    let ts: Vec<f64> = at["makespan_ps"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(ts, vec![5_500_000.0, 5_500_000.0, 13_000_000.0]);
    for (at, want) in [
        (vec![("lat", vec![1.0])], "unknown parameter `lat`"),
        (vec![("L", vec![])], "at L: no values; give at least one, e.g. L=1us,2us"),
        (vec![("G", vec![])], "e.g. G=1ns/B,2ns/B"),
        (vec![("o", vec![1.0, -5.0])], "at o: every value must be a finite number ≥ 0 ps, got -5"),
        (vec![("o", vec![f64::NAN])], "got NaN"),
    ] {
        let e = report(&g, &p, &ask(at), None).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{e}");
    }
}

/// The critical path walked back along the predecessor the analysis's first pass
/// found for each time (no time kept per node) is the one found from every node's
/// time: the same steps at the same times, the same make-up, on LOGGP.md's vectors,
/// random schedules, exchanges, a 512-rank barrier, wide-area links, a fat tree and a
/// node level with noise.
#[test]
fn the_critical_path_of_the_first_pass_is_the_one_from_every_nodes_time() {
    let mut rng = XorShift(0x5851_F42D_4C95_7F2D);
    let mut schedules = vec![dissemination(16, 1), ping_pong(1001), back_to_back(), example("calc_recv.goal")];
    schedules.extend((0..4).map(|_| random_rounds(&mut rng)));
    schedules.push(netsens_core::schedule::patterns::ring_exchange(8, 3, 64, 1000 * NS).unwrap());
    // 512 ranks: the end is the latest of more times than a byte counts.
    schedules.push(dissemination(512, 1));
    // 300 ranks computing 1 µs more each: the end's latest is its 300th time.
    let mut staggered = ScheduleBuilder::new(300);
    for r in 0..300u32 {
        staggered.calc(r, (1 + r as u64) * 1000 * NS, 0);
    }
    schedules.push(staggered.build().unwrap());
    let node_level = format!(
        "{ENDS_1US}[node]\nL = \"100ns\"\no = \"200ns\"\n[shape]\nranks_per_node = 2\n\
         [noise]\ndetour_interval = \"exponential(3us)\"\ndetour_duration = \"constant(300ns)\"\n"
    );
    let platforms = [
        loggopsim_defaults(Rendezvous::Handshake),
        two_clusters(level(2500, 1500, 1000, 6, 0, 65535), 4, 3_000 * NS, 1000),
        fat_tree(ENDS_1US, 1, "1GB/s", "100ns"),
        Platform::from_toml(&node_level, "n.toml").expect("the platform reads"),
    ];
    let mut compared = 0;
    for (i, p) in platforms.iter().enumerate() {
        for s in schedules.iter().filter(|s| s.num_ranks % 2 == 0 || p.node.is_none()) {
            let Ok((_, g)) = record_schedule(s, p, &RunOptions::default(), &mut |_| true) else { continue };
            let base = Point::of(p);
            let mut times = Vec::new();
            g.times(&base, &mut times);
            let want = g.critical_path(&base, &times);
            let got = g.analyze(&base, &Param::all(p), &[0.01]);
            assert_eq!(got.makespan, times[g.sink as usize]);
            assert_eq!(got.critical_path.parts, want.parts);
            assert_eq!(got.critical_path.nic_wait, want.nic_wait);
            let steps = |c: &netsens_core::analysis::CriticalPath| -> Vec<(u32, u32, bool, f64)> {
                c.ops.iter().map(|s| (s.op, s.rank, s.arrival, s.until_ps)).collect()
            };
            assert_eq!(steps(&got.critical_path), steps(&want));
            assert!(!want.ops.is_empty());
            if s.num_ranks == 512 {
                assert!(g.preds_of(g.sink as usize).0.len() > 255, "the end's predecessors");
            }
            if s.num_ranks == 300 && i == 0 {
                // A rank a host: the last rank's computation, 300 µs, is the path.
                let made_of: Vec<(String, f64)> = want.parts.iter().map(|(k, t)| (format!("{k:?}"), *t)).collect();
                assert_eq!(made_of, parts(&[("Compute", 300_000_000.0)]));
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} runs compared");
}

/// A "latest of" that no later time reads is not kept: the release of enabled
/// operations is folded into each operation's readiness, so a ring exchange's record
/// has no latest-of read by none but the end (the 1024 × 500 exchange had 513 024).
#[test]
fn no_latest_of_is_recorded_that_no_time_reads() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = netsens_core::schedule::patterns::ring_exchange(16, 5, 64, 1000 * NS).unwrap();
    let g = record(&s, &p);
    let mut read = vec![false; g.nodes.len()];
    for v in 0..g.nodes.len() {
        for &q in g.preds_of(v).0 {
            read[q as usize] = true;
        }
    }
    let unread: Vec<usize> =
        (1..g.nodes.len()).filter(|&v| !read[v] && v != g.sink as usize && g.nodes.kind(v) == 0).collect();
    assert_eq!(unread, Vec::<usize>::new());
}

/// The four ε of one parameter share their points: on vector 3 (dissemination, 16
/// ranks) every path crosses 4 L's, so T = T0 + 4·ΔL is one line and the 10 % step,
/// found on it, answers 1, 2 and 5 % as well: one point in one pass for all four,
/// each Δ = ⌊ε·T0 / 4⌋ ps, checked by full runs at Δ and Δ + 1 ps.
#[test]
fn the_four_epsilons_of_a_parameter_share_their_points() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = dissemination(16, 1);
    let g = record(&s, &p);
    let base = Point::of(&p);
    let t0 = makespan(&s, &p) as f64;
    let eps = [0.01, 0.02, 0.05, 0.10];
    let got = g.analyze(&base, &[Param::Latency(1)], &eps);
    assert_eq!(got.newton_passes, vec![1]);
    for &(e, dx) in &got.params[0].tolerances {
        assert_eq!(dx, Some((e * t0 / 4.0).floor()), "ε={e}");
        let at = base.get(Param::Latency(1)) as u64 + dx.unwrap() as u64;
        assert!(makespan(&s, &with(&p, Param::Latency(1), at)) as f64 <= (1.0 + e) * t0);
        assert!(makespan(&s, &with(&p, Param::Latency(1), at + 1)) as f64 > (1.0 + e) * t0);
    }
}

/// Per byte, T is rounded to the ps a message: a staircase near a maximum of lines,
/// whose crossing of the target can lie past where a line's Newton step says. The
/// tolerance is still the last fs/B step at or below the target, by full runs.
#[test]
fn per_byte_tolerances_are_tight_to_the_fs_against_full_runs() {
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.cluster.gap_per_byte = PerByte(26_315_789);
    p.cluster.overhead_per_byte = PerByte(333_333);
    for s in [example("calc_recv.goal"), ping_pong(1001), dissemination(16, 1), one_message(100_000)] {
        let g = record(&s, &p);
        let base = Point::of(&p);
        let t0 = makespan(&s, &p) as f64;
        for x in [Param::GapPerByte(1), Param::OverheadPerByte(1)] {
            let fs0 = match x {
                Param::GapPerByte(_) => p.cluster.gap_per_byte.0,
                _ => p.cluster.overhead_per_byte.0,
            };
            let at = |fs: u64| {
                let mut q = p.clone();
                match x {
                    Param::GapPerByte(_) => q.cluster.gap_per_byte = PerByte(fs),
                    _ => q.cluster.overhead_per_byte = PerByte(fs),
                }
                makespan(&s, &q) as f64
            };
            for eps in [0.01, 0.02, 0.05, 0.10] {
                let mut buf = Buffers::default();
                let e0 = g.eval(&base, x, &mut buf);
                let Some(dx) = g.tolerance(&base, x, &e0, eps, &mut buf) else { continue };
                let fs = fs0 + (dx * 1000.0).round() as u64;
                assert!(at(fs) <= (1.0 + eps) * t0, "{} ε={eps}", x.name());
                assert!(at(fs + 1) > (1.0 + eps) * t0, "{} ε={eps}", x.name());
            }
        }
    }
}

/// Each per-byte tolerance of `a` (the analysis of `s` on `p`) is the last fs/B at or
/// below the target, by full runs there and 1 fs/B beyond.
fn per_byte_tolerances_are_tight(s: &Schedule, p: &Platform, a: &netsens_core::analysis::Analysis) {
    let t0 = makespan(s, p) as f64;
    for ps in &a.params {
        let at = |fs: u64| {
            let mut q = p.clone();
            match ps.param {
                Param::GapPerByte(_) => q.cluster.gap_per_byte = PerByte(fs),
                _ => q.cluster.overhead_per_byte = PerByte(fs),
            }
            makespan(s, &q) as f64
        };
        let fs0 = match ps.param {
            Param::GapPerByte(_) => p.cluster.gap_per_byte.0,
            _ => p.cluster.overhead_per_byte.0,
        };
        for &(eps, dx) in &ps.tolerances {
            let fs = fs0 + (dx.expect("bounded") * 1000.0).round() as u64;
            assert!(at(fs) <= (1.0 + eps) * t0, "{} ε={eps}", ps.param.name());
            assert!(at(fs + 1) > (1.0 + eps) * t0, "{} ε={eps}", ps.param.name());
        }
    }
}

/// Messages of one size b + 1 (per-byte costs are paid on b bytes): every node G or
/// O prices costs y = ⌊(b·x + 500) / 1000⌋ ps at x fs/B, so T is a maximum of lines in
/// y and is searched on whole ps of y as L is on whole ps: the four ε of each wait for
/// the largest one's first step, which lies on the tangent at x0 for G (one round);
/// O is flat at x0, and each of its ε starts where its steepest path's own line
/// (slope and value at 0) reaches the target: two rounds. Before: 3 rounds from one
/// far bound (the steepest slope alone) shared by the four; 13 rounds and 94 lanes
/// (whole ps/B, then 1000 fs/B halved); before that 28 rounds and 384 lanes.
#[test]
fn per_byte_searches_of_one_message_size_step_on_whole_ps_of_its_price() {
    let s = netsens_core::schedule::patterns::ring_exchange(16, 40, 3, 1000 * NS).unwrap();
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    let g = record(&s, &p);
    let a = g.analyze(&Point::of(&p), &[Param::GapPerByte(1), Param::OverheadPerByte(1)], &EPSILONS);
    assert_eq!(a.newton_passes, vec![8, 2]);
    per_byte_tolerances_are_tight(&s, &p, &a);
    // From values off the whole ps/B, whose price is already rounded.
    (p.cluster.gap_per_byte, p.cluster.overhead_per_byte) = (PerByte(26_315_789), PerByte(333_333));
    for x in [Param::GapPerByte(1), Param::OverheadPerByte(1)] {
        let g = record(&s, &p);
        let a = g.analyze(&Point::of(&p), &[x], &EPSILONS);
        assert!(a.newton_passes.len() <= 3, "{}: {:?}", x.name(), a.newton_passes);
        per_byte_tolerances_are_tight(&s, &p, &a);
    }
}

/// The exchange's G by hand: each iteration's critical path crosses two 64-byte
/// messages priced by G (the sender's gap and the receive, on 63 bytes each), so T
/// is T0 + 80·(y − y0) in their price y = ⌊(63·x + 500) / 1000⌋ ps at x fs/B (y0 =
/// 63 · 6000 = 378 000 ps at G = 6 ns/B) as far as that line stays the maximum: the
/// largest y with T ≤ (1 + ε)·T0 is y0 + ⌊(⌊(1 + ε)·T0⌋ − T0) / 80⌋, and the tolerance
/// the last fs/B priced at most that, ⌈(1000·(y + 1) − 500) / 63⌉ − 1.
#[test]
fn one_message_sizes_tolerance_is_the_hand_derived_last_fs_of_its_price() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = netsens_core::schedule::patterns::ring_exchange(16, 40, 64, 1000 * NS).unwrap();
    let g = record(&s, &p);
    let a = g.analyze(&Point::of(&p), &[Param::GapPerByte(1)], &EPSILONS);
    let t0 = makespan(&s, &p);
    let (n, y0) = (80u64, 63 * 6000u64);
    assert_eq!(a.params[0].slope.slope_down, (63 * n) as f64);
    for &(eps, dx) in &a.params[0].tolerances {
        let y = y0 + (((1.0 + eps) * t0 as f64).floor() as u64 - t0) / n;
        let fs = (1000 * (y + 1) - 500).div_ceil(63) - 1;
        assert_eq!(dx, Some((fs - 6_000_000) as f64 * 0.001), "ε={eps}");
    }
    assert_eq!(a.newton_passes, vec![1]);
}

/// Messages of 4 and 8 bytes (prices of 3 and 7 bytes): T per fs/B can rise only
/// where one of the two prices does, at most 3 + 7 = 10 fs/B a ps/B, so once the
/// root is within one ps/B (whole ps/B, as before) its search cuts those edges, not
/// the 1000 fs/B (10 rounds), first trying the edges either side of the chord between
/// the points nearest the root (T per fs/B is a staircase within a few ps of a line):
/// 3 rounds in all. Before the chord's edges: 4; before that 5 (O, flat at x0, started from
/// a far bound, not its steepest path's own line), 6 (before whole ps/B steps closed
/// from below by their chord and the 3-byte price's edges were tried first, each with
/// the edge before it; every tolerance here is just below a 7-byte edge, so those do
/// not find it at once). Where a message of 1000 bytes or more rises at every fs/B,
/// the halving is the span's as before, with the chord's edges: 7 rounds (12 by
/// halving alone, 13 from the far bound).
#[test]
fn per_byte_searches_of_several_message_sizes_halve_the_stair_edges() {
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let params = [Param::GapPerByte(1), Param::OverheadPerByte(1)];
    for (right, left, rounds) in [(4, 8, 3), (3, 1500, 7)] {
        let s = ring_two_sizes(16, 40, right, left);
        let g = record(&s, &p);
        let a = g.analyze(&Point::of(&p), &params, &EPSILONS);
        assert_eq!(a.newton_passes.len(), rounds, "{right} and {left} B: {:?}", a.newton_passes);
        per_byte_tolerances_are_tight(&s, &p, &a);
    }
}

#[test]
fn computations_and_messages_past_32_bits_are_recorded_whole() {
    // A 6 ms computation (6·10^9 ps) and a 5·10^9-byte message do not fit the
    // record's 32-bit field: they are kept aside and read back whole, and the
    // graph's makespan still equals full runs at every sampled value.
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = goal(
        "num_ranks 2\nrank 0 {\nl1: calc 6000000\nl2: send 5000000000b to 1 tag 0\nl2 requires l1\n}\n\
         rank 1 {\nl1: recv 5000000000b from 0 tag 0\nl2: calc 7\nl2 requires l1\n}\n",
    );
    let g = record(&s, &p);
    let bytes: Vec<u64> = (0..g.nodes.len()).map(|v| g.node(v).bytes).collect();
    assert!(bytes.contains(&6_000_000_000), "{bytes:?}");
    // Per-byte costs are paid on k - 1 bytes (LOGGP.md).
    assert!(bytes.contains(&4_999_999_999), "{bytes:?}");
    assert!(bytes.contains(&7000), "{bytes:?}");
    agrees_everywhere(&s, &p);
}

#[test]
fn the_records_check_at_the_runs_end_is_the_full_runs_makespan() {
    // The record's makespan at the run's own point comes from the loop that assigns
    // the slots (no pass of its own); another point takes a pass. Both against full
    // runs, and a run whose end the record does not give is refused in one line.
    use netsens_core::analysis::check_record;
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let s = example("dissemination16.goal");
    let g = record(&s, &p);
    let t0 = makespan(&s, &p);
    assert_eq!(g.makespan_at(&Point::of(&p)), t0 as f64);
    let q = with(&p, Param::Latency(1), 7 * p.cluster.latency);
    assert_eq!(g.makespan_at(&Point::of(&q)), makespan(&s, &q) as f64);
    assert_ne!(makespan(&s, &q), t0, "L moves this schedule's end");
    // The same record checked against a run that ended elsewhere.
    let mut later = run(&s, &p);
    later.ranks[0].end_ps = t0 + 1000;
    let e = check_record(&g, &p, &later).unwrap_err().to_string();
    assert!(e.contains(&format!("{} ps", t0 + 1000)) && !e.contains('\n'), "{e}");
    assert!(check_record(&g, &q, &run(&s, &q)).is_ok());
    assert!(check_record(&g, &p, &run(&s, &p)).is_ok());
}

/// Random rounds of messages of one to three sizes under 1000 bytes (one price per
/// size), from G and O off the whole ps/B: every per-byte tolerance, whichever way
/// it is searched (one count on its price, several on their stair edges), is the
/// last fs/B at or below the target by the record's makespan there and 1 fs/B
/// beyond, worked out node by node (not by the batched passes the search uses); so
/// are wide-area G's and a cluster's on two clusters. Full runs agree where the run keeps the recorded order of events up to there; some of
/// these schedules reorder messages before O's tolerance (main's code gives the same
/// tolerance there), which is what `confirm` searches by full runs.
#[test]
fn per_byte_tolerances_of_random_message_sizes_are_tight() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    for _ in 0..8 {
        let ranks = 2 + rng.below(5) as u32;
        let sizes: Vec<u64> = (0..1 + rng.below(3)).map(|_| 2 + rng.below(998)).collect();
        let mut b = ScheduleBuilder::new(ranks);
        let mut last: Vec<Vec<u32>> = vec![Vec::new(); ranks as usize];
        for round in 0..3 {
            for r in 0..ranks {
                let (to, from) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
                let calc = b.calc(r, rng.below(3000) * NS, 0);
                last[r as usize].iter().for_each(|&prev| b.requires(calc, prev));
                let size = |k: u32| sizes[(k as usize + round as usize) % sizes.len()];
                let send = b.send(r, to, size(r), round, 0, 0);
                let recv = b.recv(r, from as i32, size(from), round, 0, 0);
                b.requires(send, calc);
                b.requires(recv, calc);
                last[r as usize] = vec![send, recv];
            }
        }
        let s = b.build().unwrap();
        let mut p = loggopsim_defaults(Rendezvous::Handshake);
        p.cluster.gap_per_byte = PerByte(1_000_000 + rng.below(9_000_000));
        p.cluster.overhead_per_byte = PerByte(rng.below(2_000_000));
        per_byte_tolerances_are_tight_in_the_record(&s, &p, &[Param::GapPerByte(1), Param::OverheadPerByte(1)]);
    }
    // Wide-area G (a link's bytes, whole messages of 300 B) and a cluster's G and O
    // (299 B) on two clusters: one count each.
    let p = two_clusters(level(2500, 1500, 1000, 6, 1, 65535), 2, 3_000 * NS, 1000);
    let mut b = ScheduleBuilder::new(4);
    for src in [0, 1] {
        b.send(src, 2 + src, 300, 0, 0, 0);
        b.recv(2 + src, src as i32, 300, 0, 0, 0);
    }
    let params = [Param::WanPerByte, Param::GapPerByte(1), Param::OverheadPerByte(1)];
    per_byte_tolerances_are_tight_in_the_record(&b.build().unwrap(), &p, &params);
}

/// Each tolerance of `params` on `s` is the last fs/B at or below the target by the
/// record's makespan there and 1 fs/B beyond, worked out node by node.
fn per_byte_tolerances_are_tight_in_the_record(s: &Schedule, p: &Platform, params: &[Param]) {
    let g = record(s, p);
    let base = Point::of(p);
    let a = g.analyze(&base, params, &EPSILONS);
    let mut times = Vec::new();
    for ps in &a.params {
        let mut at = |fs: u64| g.makespan(&base.with(ps.param, fs as f64 / 1000.0), &mut times);
        let fs0 = (ps.value * 1000.0).round() as u64;
        for &(eps, dx) in &ps.tolerances {
            let fs = fs0 + (dx.expect("bounded") * 1000.0).round() as u64;
            let target = (1.0 + eps) * a.makespan;
            assert!(at(fs) <= target, "{} ε={eps}", ps.param.name());
            assert!(at(fs + 1) > target, "{} ε={eps}", ps.param.name());
        }
    }
}

/// `ring_exchange` with messages of `right` bytes to the right and `left` to the left.
fn ring_two_sizes(ranks: u32, iters: u32, right: u64, left: u64) -> Schedule {
    let mut b = ScheduleBuilder::new(ranks);
    for i in 0..ranks {
        let (l, r) = ((i + ranks - 1) % ranks, (i + 1) % ranks);
        let mut prev: Option<(u32, u32)> = None;
        for it in 0..iters {
            let tag = (it % 2) as i32;
            let c = b.calc(i, 1000 * NS, 0);
            if let Some((ra, rb)) = prev {
                b.requires(c, ra);
                b.requires(c, rb);
            }
            let sends = [b.send(i, r, right, tag, 0, 0), b.send(i, l, left, tag, 0, 0)];
            let recvs = [b.recv(i, l as i32, right, tag, 0, 0), b.recv(i, r as i32, left, tag, 0, 0)];
            for op in sends.into_iter().chain(recvs) {
                b.requires(op, c);
            }
            prev = Some((recvs[0], recvs[1]));
        }
    }
    b.build().unwrap()
}

/// 1/cpu_speed's tolerance is the last float at or below the target by the record's
/// makespan (worked out node by node): T there is at most (1 + ε)·T0 and at the next
/// float up (a step beyond, for a float parameter) more, and it is the float a
/// bisection of the floats themselves finds (a second method). Random rounds whose
/// computations have one to four sizes, at cpu_speed 1 and 0.8 (where 1/cpu_speed
/// is not whole). Full runs are not compared at these floats: the engine divides a
/// computation by cpu_speed where the record multiplies by 1/cpu_speed, which can
/// part by a ps exactly at a stair edge.
#[test]
fn cpu_tolerances_are_the_last_float_at_or_below_the_target() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for case in 0..7 {
        let ranks = 2 + rng.below(4) as u32;
        // The last case: more sizes than the search keeps edges of (it takes
        // Newton's steps on floats as before: at or below the target, not tight).
        let count = if case == 6 { 24 } else { 1 + rng.below(4) };
        let sizes: Vec<u64> = (0..count).map(|_| (1 + rng.below(5000)) * 1000 + rng.below(1000)).collect();
        let mut b = ScheduleBuilder::new(ranks);
        let mut last: Vec<Vec<u32>> = vec![Vec::new(); ranks as usize];
        for round in 0..count.max(4) as i32 {
            for r in 0..ranks {
                let to = (r + 1) % ranks;
                let from = (r + ranks - 1) % ranks;
                let calc = b.calc(r, sizes[(round as usize + r as usize + rng.below(2) as usize) % sizes.len()], 0);
                last[r as usize].iter().for_each(|&prev| b.requires(calc, prev));
                let send = b.send(r, to, 64, round, 0, 0);
                let recv = b.recv(r, from as i32, 64, round, 0, 0);
                b.requires(send, calc);
                b.requires(recv, calc);
                last[r as usize] = vec![send, recv];
            }
        }
        let s = b.build().unwrap();
        let mut p = loggopsim_defaults(Rendezvous::Handshake);
        p.cpu_speed = if case % 2 == 0 { 1.0 } else { 0.8 };
        let g = record(&s, &p);
        let base = Point::of(&p);
        let a = g.analyze(&base, &[Param::CpuTime], &EPSILONS);
        let mut times = Vec::new();
        let mut at = |x: f64| g.makespan(&base.with(Param::CpuTime, x), &mut times);
        let x0 = base.cpu_time;
        for &(eps, dx) in &a.params[0].tolerances {
            let x = x0 + dx.expect("bounded: every rank computes");
            let target = (1.0 + eps) * a.makespan;
            assert!(at(x) <= target, "case {case} ε={eps}: T({x}) = {}", at(x));
            if count > 16 {
                continue;
            }
            assert!(at(x.next_up()) > target, "case {case} ε={eps}: T({}) = {}", x.next_up(), at(x.next_up()));
            // The floats from x0 to one above the target, bisected by their bits
            // (positive floats are ordered as their bits).
            let mut above = x0 * 2.0;
            while at(above) <= target {
                above *= 2.0;
            }
            let (mut lo, mut hi) = (x0.to_bits(), above.to_bits());
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if at(f64::from_bits(mid)) <= target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            assert_eq!(x, f64::from_bits(lo), "case {case} ε={eps}");
        }
    }
}

/// An exchange whose computations have one size c = 1000 ns: at 1/cpu_speed t each
/// costs y = round(c·t) ps, and T = T0 + n·(y − c) with n computations on the path
/// (n = ∂T/∂t / c), so the target allows y* = c + ⌊ε·T0 / n⌋ and the tolerance is
/// the float before the least t with c·t ≥ y* + 0.5 (by hand, as a float: within a
/// float's error of (y* + 0.5)/c − 1). The CPU's search, whose first step lands on
/// the line, takes no more rounds than the other parameters' (3, as before it).
#[test]
fn one_computation_sizes_cpu_tolerance_is_the_hand_derived_float() {
    let s = netsens_core::schedule::patterns::ring_exchange(16, 40, 64, 1000 * NS).unwrap();
    let p = loggopsim_defaults(Rendezvous::Handshake);
    let g = record(&s, &p);
    let base = Point::of(&p);
    let a = g.analyze(&base, &Param::all(&p), &EPSILONS);
    assert!(a.newton_passes.len() <= 3, "{:?}", a.newton_passes);
    let cpu = a.params.iter().find(|ps| ps.param == Param::CpuTime).unwrap();
    let c = (1000 * NS) as f64;
    let n = (cpu.slope.slope_up / c).round();
    assert_eq!(n * c, cpu.slope.slope_up, "whole computations on the path");
    let mut times = Vec::new();
    for &(eps, dx) in &cpu.tolerances {
        let dx = dx.expect("bounded");
        let y = c + (eps * a.makespan / n).floor();
        let by_hand = (y + 0.5) / c - 1.0;
        assert!((dx - by_hand).abs() < 1e-12, "ε={eps}: {dx} against {by_hand}");
        let target = (1.0 + eps) * a.makespan;
        let x = 1.0 + dx;
        assert!(g.makespan(&base.with(Param::CpuTime, x), &mut times) <= target);
        assert!(g.makespan(&base.with(Param::CpuTime, x.next_up()), &mut times) > target);
    }
}

#[test]
fn a_receive_that_waits_for_its_bytes_after_its_first_byte_is_recorded_as_the_run_ends_it() {
    // tests/topology.rs's late joiner: rank 0's k = 2000 B move alone from 100 ns until
    // rank 1's k = 1000 B join at 1100 ns; both receives complete at 3250 ns, each
    // δ = 1000 ns after LogGOPS's 2250 and 2250 ns (o = 100 ns, L = 50 ns, G = 1 ns/B).
    // The receive waits for the flow's end, which comes after the arrival was handled:
    // the record evaluates to the run's end, and the critical path carries the wait.
    let ends = "[cluster]\nL = \"50ns\"\no = \"100ns\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1GiB\"\n";
    let mut t = String::from("[topology]\nkind = \"graph\"\nhosts = 4\nswitches = [\"s0\", \"s1\"]\n");
    for (a, b) in [("h0", "s0"), ("h1", "s0"), ("h2", "s1"), ("h3", "s1"), ("s0", "s1")] {
        t += &format!("[[topology.links]]\nends = [\"{a}\", \"{b}\"]\nbandwidth = \"1GB/s\"\n");
    }
    let p = Platform::from_toml(&format!("{ends}{t}"), "t.toml").unwrap();
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 2, 2001, 0, 0, 0);
    b.recv(2, 0, 2001, 0, 0, 0);
    let calc = b.calc(1, 1_000_000, 0);
    let send = b.send(1, 3, 1001, 0, 0, 0);
    b.requires(send, calc);
    b.recv(3, 1, 1001, 0, 0, 0);
    let s = b.build().unwrap();
    assert_eq!(makespan(&s, &p), 3_250_000);
    let g = record(&s, &p);
    assert_eq!(g.makespan(&Point::of(&p), &mut Vec::new()), 3_250_000.0);
    let make_up = make_up_ns(&g, &p);
    let total: f64 = make_up.iter().map(|(_, ns)| ns).sum();
    assert_eq!(total, 3250.0, "{make_up:?}");
    assert!(make_up.contains(&("link queueing".to_string(), 1000.0)), "{make_up:?}");
}

/// Two leaves `l0` (hosts 0, 1) and `l1` (hosts 2, 3) under one spine, every link
/// 1 GB/s: host links of class "host-leaf", the leaves' uplinks of class "leaf-spine".
/// End points free but G = 1 ns/B (the NIC's rate is the links').
fn leaf_spine() -> Platform {
    let ends = "[cluster]\nL = \"0ns\"\no = \"0ns\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1GiB\"\n";
    let mut t = String::from("[topology]\nkind = \"graph\"\nhosts = 4\nswitches = [\"l0\", \"l1\", \"s0\"]\n");
    let links = [("h0", "l0"), ("h1", "l0"), ("h2", "l1"), ("h3", "l1"), ("l0", "s0"), ("l1", "s0")];
    for (a, b) in links {
        let class = if b == "s0" { "leaf-spine" } else { "host-leaf" };
        t += &format!("[[topology.links]]\nends = [\"{a}\", \"{b}\"]\nbandwidth = \"1GB/s\"\nclass = \"{class}\"\n");
    }
    Platform::from_toml(&format!("{ends}{t}"), "t.toml").unwrap()
}

/// The critical path's link queueing per class of links (the fabric's class
/// numbers: in leaf_spine's order, 0 = host-leaf, 1 = leaf-spine), in ns.
fn queueing_by_class_ns(g: &ExecGraph, p: &Platform) -> Vec<(u16, f64)> {
    let base = Point::of(p);
    let mut times = Vec::new();
    g.times(&base, &mut times);
    let cp = g.critical_path(&base, &times);
    cp.link_queue_by_class.iter().map(|(&c, &ps)| (c, ps / 1000.0)).collect()
}

#[test]
fn two_flows_sharing_only_a_leaf_uplink_wait_in_its_class() {
    // 0 → 2 and 1 → 3 at once, 1001 B: their k = 1000 B share only l0 → s0 and
    // s0 → l1 (the uplink's class) at 0.5 B/ns: 2000 ns where alone 1000, δ = 1000 ns,
    // all of it behind leaf-spine links. Rank 2 ends at k·G + δ = 2000 ns.
    let s = messages(4, &[(0, 2, 1001), (1, 3, 1001)]);
    let p = leaf_spine();
    assert_eq!(makespan(&s, &p), 2_000_000);
    let g = record(&s, &p);
    assert_eq!(make_up_ns(&g, &p), parts(&[("G", 1000.0), ("link queueing", 1000.0)]));
    assert_eq!(queueing_by_class_ns(&g, &p), vec![(1, 1000.0)]);
}

#[test]
fn a_flow_held_back_by_two_classes_in_turn_splits_its_wait_between_them() {
    // Rank 0 sends A (k = 2000 B) to 2 at 0; rank 1 sends B (k = 1000 B) to 3 at 0:
    // they share the uplink at 0.5 B/ns until B is through at 2000 ns (A has lost
    // 1000 ns behind leaf-spine links, 1000 B moved). Then rank 0 sends C (k = 500 B)
    // to 1 (its NIC free at 2000 ns: 2000 B · G), which shares A's host link h0 → l0:
    // 0.5 B/ns each until C is through at 3000 ns (A lost 500 ns behind a host-leaf
    // link), and A's last 500 B alone: A through at 3500 ns, δ = 1500 ns. Rank 2 ends
    // at k·G + δ = 3500 ns (rank 1's C at 2000 + 500 + 500 ns).
    let mut b = ScheduleBuilder::new(4);
    let a = b.send(0, 2, 2001, 0, 0, 0);
    b.recv(2, 0, 2001, 0, 0, 0);
    b.send(1, 3, 1001, 0, 0, 0);
    b.recv(3, 1, 1001, 0, 0, 0);
    let c = b.send(0, 1, 501, 1, 0, 0);
    b.requires(c, a);
    b.recv(1, 0, 501, 1, 0, 0);
    let s = b.build().unwrap();
    let p = leaf_spine();
    assert_eq!(makespan(&s, &p), 3_500_000);
    let g = record(&s, &p);
    assert_eq!(g.makespan(&Point::of(&p), &mut Vec::new()), 3_500_000.0);
    assert_eq!(make_up_ns(&g, &p), parts(&[("G", 2000.0), ("link queueing", 1500.0)]));
    assert_eq!(queueing_by_class_ns(&g, &p), vec![(0, 500.0), (1, 1000.0)]);
}
