//! Networks with a shape (`[topology]`): messages cross their route's links and share
//! them max-min fairly (docs/guides/topology.md). Every time below is derived by
//! hand from the routes and the sharing rule, not read from the program.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program, Rank};
use netsens_core::schedule::{executor::run_schedule, ScheduleBuilder};
use netsens_core::time::NS;

/// End points that cost nothing (o = L = g = G = 0), so that a rank's end time is
/// its messages' flow times alone; links of 1 B/ns and no latency unless given.
const FREE_ENDS: &str = "[cluster]\nL = \"0ns\"\no = \"0ns\"\ng = \"0ns\"\nG = \"0ns/B\"\nS = \"1MiB\"\n";

fn platform(ends: &str, topology: &str) -> Platform {
    Platform::from_toml(&format!("{ends}\n[topology]\n{topology}"), "t.toml").expect("the platform reads")
}

/// Every (src, dst, bytes) message sent and received at time 0.
fn messages(ranks: u32, list: &[(u32, u32, u64)], p: &Platform) -> RunResult {
    let mut b = ScheduleBuilder::new(ranks);
    for &(s, d, bytes) in list {
        b.send(s, d, bytes, 0, 0, 0);
        b.recv(d, s as i32, bytes, 0, 0, 0);
    }
    run_schedule(&b.build().unwrap(), p, &RunOptions::default()).expect("the run finishes")
}

fn ends_ns(r: &RunResult) -> Vec<u64> {
    r.ranks.iter().map(|x| x.end_ps / NS).collect()
}

/// Two leaves of two hosts; `up` parents per leaf (2 = 1:1, 1 = 2:1).
fn small_tree(up: u32, extra: &str) -> String {
    format!("kind = \"fat-tree\"\ndown = [2, 2]\nup = [{up}]\nbandwidth = \"1GB/s\"\n{extra}")
}

#[test]
fn no_link_shared_is_loggp_plus_the_route_latency() {
    // L = 1 µs, o = 1 µs, G = 1 ns/B; links 1 GB/s (as fast as the NIC), 100 ns each.
    // LogGP alone: 1001 B arrive at o + L = 2000 ns, received at 2000 + o + k·G = 4000 ns.
    // Same leaf: 2 links (+200 ns); across the tree: 4 links (+400 ns).
    let ends = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1MiB\"\n";
    let p = platform(ends, &small_tree(2, "latency = \"100ns\""));
    let r = messages(4, &[(0, 1, 1001)], &p);
    assert_eq!(r.ranks[1].end_ps, 4200 * NS);
    let r = messages(4, &[(0, 2, 1001)], &p);
    assert_eq!(r.ranks[2].end_ps, 4400 * NS);
    // A ping-pong of LogGOPSim's defaults (vector 1: 5500 ns one way) on 2 links of 100 ns.
    let defaults = "[cluster]\nL = \"2500ns\"\no = \"1500ns\"\ng = \"1000ns\"\nG = \"6ns/B\"\nS = \"65535B\"\n";
    let p = platform(defaults, &small_tree(2, "latency = \"100ns\""));
    let r = run(&ping_pong(1), &p);
    assert_eq!(r.ranks[0].end_ps, 2 * (5500 + 200) * NS);
    assert_eq!(r.links.as_ref().unwrap().link_wait_ps, vec![0; 2]);
}

#[test]
fn two_messages_sharing_one_link_each_take_twice_as_long() {
    // Hosts 0 → 2 and 1 → 3 at once. Tapered 2:1, both climb leaf 0's one up link and
    // descend to leaf 1 on one link: 0.5 B/ns each, 1001 B take 2002 ns instead of 1001.
    // Each starts at t1 = o = 1000 ns plus 4 × 100 ns; it arrives at
    // t1 + L + 400 + δ (δ = 2002 − 1001 = 1001) = 3401 ns, is received at +o +k·G = 5401 ns.
    let ends = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1MiB\"\n";
    let list = [(0, 2, 1001), (1, 3, 1001)];
    let tapered = messages(4, &list, &platform(ends, &small_tree(1, "latency = \"100ns\"")));
    assert_eq!(tapered.ranks[2].end_ps, 5400 * NS);
    assert_eq!(tapered.ranks[3].end_ps, 5400 * NS);
    assert_eq!(tapered.links.as_ref().unwrap().link_wait_ps, vec![0, 0, 1000 * NS, 1000 * NS]);
    // Untapered, D-mod-k sends them up different links: 4000 + 400 ns each.
    let full = messages(4, &list, &platform(ends, &small_tree(2, "latency = \"100ns\"")));
    assert_eq!(ends_ns(&full)[2..], [4400, 4400]);
}

/// An all-to-all of 1000 B among 4 hosts, all sent at 0, free end points.
fn all_to_all(up: u32) -> Vec<u64> {
    let list: Vec<(u32, u32, u64)> =
        (0..4).flat_map(|s| (0..4).filter(move |&d| d != s).map(move |d| (s, d, 1001))).collect();
    ends_ns(&messages(4, &list, &platform(FREE_ENDS, &small_tree(up, ""))))
}

#[test]
fn all_to_all_on_a_tapered_fat_tree() {
    // 1:1: each host's own links carry 3 flows, the leaf links 2: every flow gets
    // 1/3 B/ns and all end at 3 × 1000 ns.
    assert_eq!(all_to_all(2), vec![3000; 4]);
    // 2:1: a leaf's one up link carries its 4 leaving flows: 1/4 B/ns each; the flow
    // to the leaf's other host takes the rest of its host links, 1/2 B/ns, and ends
    // at 2000 ns. The crossing flows, at 1/4 B/ns throughout (the leaf link stays
    // their bottleneck), end at 4000 ns: the all-to-all takes 4/3 as long.
    assert_eq!(all_to_all(1), vec![4000; 4]);
}

#[test]
fn ring_shift_on_a_torus() {
    // A ring of 8 routers; every rank sends 1000 B to rank + k. Each link upward
    // carries k flows (k ≤ 4: the shorter way, ties upward): 1/k B/ns, k µs.
    let p = platform(FREE_ENDS, "kind = \"torus\"\ndims = [8]\nbandwidth = \"1GB/s\"");
    for k in 1..=4u32 {
        let list: Vec<_> = (0..8).map(|r| (r, (r + k) % 8, 1001)).collect();
        assert_eq!(ends_ns(&messages(8, &list, &p)), vec![1000 * k as u64; 8], "shift by {k}");
    }
    // Shift by 5 goes 3 hops downward: 3 flows a link.
    let list: Vec<_> = (0..8).map(|r| (r, (r + 5) % 8, 1001)).collect();
    assert_eq!(ends_ns(&messages(8, &list, &p)), vec![3000; 8]);
    // A mesh does not wrap: shift by 1 leaves rank 7 → 0 going 7 hops downward,
    // alone on those links; the others share nothing either: 1000 ns each.
    let mesh = platform(FREE_ENDS, "kind = \"torus\"\ndims = [8]\nwrap = false\nbandwidth = \"1GB/s\"");
    let list: Vec<_> = (0..8).map(|r| (r, (r + 1) % 8, 1001)).collect();
    assert_eq!(ends_ns(&messages(8, &list, &mesh)), vec![1000; 8]);
}

fn dragonfly(global: &str) -> Platform {
    platform(
        FREE_ENDS,
        &format!(
            "kind = \"dragonfly\"\ngroups = 2\nrouters = 2\nhosts = 1\nlocal_bandwidth = \"1GB/s\"\n\
             global_bandwidth = \"{global}\""
        ),
    )
}

#[test]
fn a_dragonfly_global_link_is_the_bottleneck() {
    // Hosts 0, 1 in group 0 send 1000 B to hosts 2, 3 in group 1: both cross the one
    // global link 0 → 1. At 1 GB/s: 1/2 B/ns each, 2 µs; at 1/2 and 1/4 of that: 4 and 8 µs.
    for (global, ns) in [("1GB/s", 2000), ("0.5GB/s", 4000), ("0.25GB/s", 8000)] {
        let r = messages(4, &[(0, 2, 1001), (1, 3, 1001)], &dragonfly(global));
        assert_eq!(ends_ns(&r)[2..], [ns, ns], "global {global}");
        let links = r.links.unwrap();
        let g = links.classes.iter().find(|c| c.class == "global").unwrap();
        assert_eq!((g.links_used, g.flows, g.bytes, g.peak_flows, g.busy_ps), (1, 2, 2002, 2, ns * NS));
    }
}

#[test]
fn placement_decides_which_messages_share() {
    // Tapered 2:1. Nodes 0 → 1 and 2 → 3: linear placement keeps each pair on a leaf
    // (1000 ns); round-robin deals nodes over the leaves (0, 1 → hosts 0, 2; 2, 3 →
    // hosts 1, 3), so both cross the one up link (2000 ns); a list can do the same.
    let list = [(0, 1, 1001), (2, 3, 1001)];
    let run = |placement: &str| {
        ends_ns(&messages(4, &list, &platform(FREE_ENDS, &small_tree(1, &format!("placement = {placement}")))))
    };
    assert_eq!(run("\"linear\"")[1..], [1000, 0, 1000]);
    assert_eq!(run("\"round-robin\"")[1..], [2000, 0, 2000]);
    assert_eq!(run("[0, 2, 1, 3]")[1..], [2000, 0, 2000]);
    // A seeded random placement is a function of its seed.
    assert_eq!(run("\"random\"\nseed = 3"), run("\"random\"\nseed = 3"));
}

#[test]
fn a_graph_routes_shortest_paths_and_spreads_ties() {
    // h0, h1 on s0; h2, h3 on s1; s0 and s1 joined by two parallel 1 GB/s links
    // through s2 and s3 (two hops each way: equal cost).
    let mut t = String::from("kind = \"graph\"\nhosts = 4\nswitches = [\"s0\", \"s1\", \"s2\", \"s3\"]\n");
    for (a, b) in [("h0", "s0"), ("h1", "s0"), ("h2", "s1"), ("h3", "s1"), ("s0", "s2"), ("s2", "s1")] {
        t += &format!("[[topology.links]]\nends = [\"{a}\", \"{b}\"]\nbandwidth = \"1GB/s\"\n");
    }
    let one_path = platform(FREE_ENDS, &t);
    let list = [(0, 2, 1001), (1, 3, 1001)];
    // One path between the switches: the two flows share it.
    assert_eq!(ends_ns(&messages(4, &list, &one_path))[2..], [2000, 2000]);
    // A second path of equal length: ECMP may spread them; each flow takes 1 or 2 µs,
    // never more, and a pair always takes the same path (the run repeats exactly).
    t += "[[topology.links]]\nends = [\"s0\", \"s3\"]\nbandwidth = \"1GB/s\"\n";
    t += "[[topology.links]]\nends = [\"s3\", \"s1\"]\nbandwidth = \"1GB/s\"\n";
    let two_paths = platform(FREE_ENDS, &t);
    let a = ends_ns(&messages(4, &list, &two_paths));
    assert!(a[2] == a[3] && (a[2] == 1000 || a[2] == 2000), "{a:?}");
    assert_eq!(a, ends_ns(&messages(4, &list, &two_paths)));
}

#[test]
fn lv08_factors_stretch_latency_and_shrink_bandwidth() {
    // One 1000 B flow over 2 links of 100 ns at 1 GB/s, model lv08: the latency
    // 200 ns × 13.01 = 2602 ns, then 1000 B at 0.97 B/ns = 1030.928 ns (TCP-gamma's
    // bound 4194304 B / 400 ns is far above): 3632.928 ns.
    let p = platform(FREE_ENDS, &small_tree(2, "latency = \"100ns\"\nmodel = \"lv08\""));
    let r = messages(4, &[(0, 1, 1001)], &p);
    assert_eq!(r.ranks[1].end_ps, 3_632_928);
    // Factors given one by one override the model's.
    let p = platform(FREE_ENDS, &small_tree(2, "latency = \"100ns\"\nlatency_factor = 2.0\nbandwidth_factor = 0.5"));
    assert_eq!(messages(4, &[(0, 1, 1001)], &p).ranks[1].end_ps, (400 + 2000) * NS);
}

#[test]
fn rtt_weighted_sharing_favours_the_shorter_route() {
    // cm02: a flow weighs 1 / (its route latency). Into host 1's down link: from
    // host 0 (2 links, 200 ns) and host 2 (4 links, 400 ns), both 1000 B, sent at 0.
    // The 0 → 1 flow starts at 200 ns, alone until 400 ns (200 B at 1 B/ns). Then the
    // weights 1/200 : 1/400 split 1 B/ns as 2/3 : 1/3: its 800 B left take 1200 ns,
    // ending at 1600 ns; the other has moved 400 B and, alone, ends 600 ns later, 2200 ns.
    let p = platform(FREE_ENDS, &small_tree(2, "latency = \"100ns\"\nmodel = \"cm02\""));
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 1, 1001, 0, 0, 0);
    b.send(2, 1, 1001, 0, 0, 0);
    b.recv(1, 0, 1001, 0, 0, 0);
    let last = b.recv(1, 2, 1001, 0, 0, 0);
    let _ = last;
    let r = run_schedule(&b.build().unwrap(), &p, &RunOptions::default()).unwrap();
    assert_eq!(r.ranks[1].end_ps, 2200 * NS);
}

#[test]
fn link_statistics_count_bytes_busy_time_and_peak_flows() {
    // The tapered all-to-all above: leaf 0's up link carries 4 flows of 1000 B from 0
    // to 4000 ns; the host links 3 flows each.
    let list: Vec<(u32, u32, u64)> =
        (0..4).flat_map(|s| (0..4).filter(move |&d| d != s).map(move |d| (s, d, 1001))).collect();
    let r = messages(4, &list, &platform(FREE_ENDS, &small_tree(1, "")));
    let links = r.links.unwrap();
    let level = |name: &str| links.classes.iter().find(|c| c.class == name).unwrap().clone();
    let (l1, l2) = (level("level 1"), level("level 2"));
    // Level 1: 8 host links (4 up, 4 down), each 3 flows; busy 4000 ns (its last
    // crossing flow ends then).
    assert_eq!((l1.links, l1.links_used, l1.flows, l1.bytes, l1.peak_flows), (8, 8, 24, 24_024, 3));
    assert_eq!(l1.busy_ps, 8 * 4000 * NS);
    // Level 2: 2 cables, 4 links, each carrying 4 flows for 4000 ns.
    assert_eq!((l2.links, l2.flows, l2.bytes, l2.peak_flows, l2.busy_ps), (4, 16, 16_016, 4, 4 * 4000 * NS));
    assert_eq!(l2.max_utilization, 1.0);
    assert_eq!(links.busiest.len(), 10);
    assert!(links.busiest.iter().all(|l| l.busy_ps == 4000 * NS));
    // With G = 0 a message's bytes take no time alone: all their time on the links is
    // link wait. Each rank received 2 crossing messages (4000 ns) and 1 from its leaf (2000).
    assert_eq!(links.link_wait_ps, vec![(2 * 4000 + 2000) * NS; 4]);
}

#[test]
fn one_pair_keeps_mpi_order_when_a_later_flow_would_finish_first() {
    // 0 sends 100000 B, then 10 B, to 1 (same tag); with G = 0 and g = 0 both leave at
    // once and share the links. The small one's bytes are through first (20 ns), but it
    // arrives no earlier than the big one and the receives match in sending order.
    let p = platform(FREE_ENDS, &small_tree(2, ""));
    let r = run_program(&p, 4, &RunOptions::default(), |r| async move {
        let w = r.world();
        if r.rank() == 0 {
            r.send(&w, 1, 0, vec![0; 100_001]).await;
            r.send(&w, 1, 0, vec![1; 11]).await;
        } else if r.rank() == 1 {
            let (a, b) = (r.recv(&w, 0, 0).await, r.recv(&w, 0, 0).await);
            if (a.data.len(), b.data.len()) != (100_001, 11) {
                return Err(format!("received {} B, then {} B", a.data.len(), b.data.len()));
            }
        }
        Ok(())
    })
    .expect("the program runs");
    // The big flow: 10 B at 1/2 B/ns (20 ns), then alone: 99990 B more: 100010 ns.
    assert_eq!(r.ranks[1].end_ps, 100_010 * NS);
}

fn error_of(topology: &str) -> String {
    let text = format!("{FREE_ENDS}\n[topology]\n{topology}");
    Platform::from_toml(&text, "t.toml").expect_err("the platform is refused").to_string()
}

#[test]
fn bad_topologies_are_one_line_naming_the_file_and_field() {
    let cases = [
        ("kind = \"hypercube\"", "topology.kind: unknown topology \"hypercube\""),
        ("kind = \"fat-tree\"\ndown = [2, 2]", "topology.bandwidth is missing"),
        ("kind = \"fat-tree\"\ndown = [4, 2]\ntaper = \"8:1\"\nbandwidth = \"1GB/s\"", "topology.taper: 8:1 leaves no up port"),
        ("kind = \"fat-tree\"\ndown = [4, 2]\ntaper = \"0:1\"\nbandwidth = \"1GB/s\"", "topology.taper: \"0:1\" leaves no path"),
        ("kind = \"fat-tree\"\ndown = [2, 2]\nbandwidth = \"0GB/s\"", "topology.bandwidth: \"0GB/s\" is no bandwidth"),
        ("kind = \"fat-tree\"\ndown = [2, 2]\nbandwidth = \"1GB\"", "topology.bandwidth"),
        ("kind = \"torus\"\ndims = [4]\nrouting = \"adaptive\"\nbandwidth = \"1GB/s\"", "topology.routing: unknown routing \"adaptive\""),
        ("kind = \"dragonfly\"\ngroups = 2\nrouters = 2\nhosts = 1\nlocal_bandwidth = \"1GB/s\"\nrouting = \"ugal\"\nglobal_bandwidth = \"1GB/s\"", "topology.routing: unknown routing \"ugal\""),
        ("kind = \"dragonfly\"\ngroups = 2\nrouters = 2\nhosts = 1\nlocal_bandwidth = \"1GB/s\"", "topology.global_bandwidth is missing"),
        ("kind = \"graph\"\nhosts = 2\nswitches = 1\n[[topology.links]]\nends = [\"h0\", \"s0\"]\nbandwidth = \"1GB/s\"", "topology.links: host h1 has no path to host h0"),
        ("kind = \"graph\"\nhosts = 2\n[[topology.links]]\nends = [\"h0\", \"h1\"]", "topology.links[0].bandwidth is missing"),
        ("kind = \"graph\"\nhosts = 2\n[[topology.links]]\nends = [\"h0\", \"s9\"]\nbandwidth = \"1GB/s\"", "topology.links[0].ends[1]: \"s9\" is neither a host"),
        ("kind = \"torus\"\ndims = [4]\nbandwidth = \"1GB/s\"\nplacement = \"scattered\"", "topology.placement: unknown placement \"scattered\""),
        ("kind = \"torus\"\ndims = [4]\nbandwidth = \"1GB/s\"\nmodel = \"ns3\"", "topology.model: unknown sharing model \"ns3\""),
        ("kind = \"torus\"\ndims = [4]\nbandwidth = \"1GB/s\"\nradix = 4", "topology.radix: not a key of a torus topology"),
    ];
    for (topology, want) in cases {
        let e = error_of(topology);
        assert!(e.starts_with("t.toml: "), "{e}");
        assert!(e.contains(want), "{topology:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn a_topology_with_fewer_hosts_than_nodes_or_a_bad_list_stops_the_run() {
    let p = platform(FREE_ENDS, "kind = \"torus\"\ndims = [4]\nbandwidth = \"1GB/s\"");
    let e = run_schedule(&dissemination(8, 1), &p, &RunOptions::default()).unwrap_err().to_string();
    assert_eq!(e, "t.toml: topology.kind: the topology has 4 hosts but the run needs 8 (one per node of ranks)");
    let p = platform(FREE_ENDS, "kind = \"torus\"\ndims = [4]\nbandwidth = \"1GB/s\"\nplacement = [0, 1, 1, 2]");
    let e = run_schedule(&dissemination(4, 1), &p, &RunOptions::default()).unwrap_err().to_string();
    assert_eq!(e, "t.toml: topology.placement[2]: host 1 is listed twice");
    // With two ranks a node, 8 ranks are 4 nodes: they fit.
    let mut p = p;
    p.topology.as_mut().unwrap().placement = netsens_core::platform::topology::Placement::Linear;
    p.shape.ranks_per_node = 2;
    assert!(run_schedule(&dissemination(8, 1), &p, &RunOptions::default()).is_ok());
}

#[test]
fn a_topology_reads_back_from_its_own_toml_and_refuses_several_clusters() {
    let p = platform(FREE_ENDS, &small_tree(1, "latency = [\"100ns\", \"200ns\"]\nplacement = \"round-robin\""));
    assert_eq!(Platform::from_toml(&p.to_toml(), "x").unwrap(), p);
    let text = format!(
        "{FREE_ENDS}[shape]\nclusters = [2, 2]\n[wan]\nlatency = \"1ms\"\nbandwidth = \"1MB/s\"\n[topology]\n{}",
        small_tree(2, "")
    );
    let e = Platform::from_toml(&text, "t.toml").unwrap_err().to_string();
    assert!(e.starts_with("t.toml: topology: a [topology] is the network inside one cluster"), "{e}");
}

#[test]
fn topology_keys_are_overrides_for_sweeps() {
    // The tapered all-to-all of above, reached from the untapered tree by an override.
    let mut p = platform(FREE_ENDS, &small_tree(2, ""));
    p.set("topology.up", "[1]").unwrap();
    let list: Vec<(u32, u32, u64)> =
        (0..4).flat_map(|s| (0..4).filter(move |&d| d != s).map(move |d| (s, d, 1001))).collect();
    assert_eq!(ends_ns(&messages(4, &list, &p)), vec![4000; 4]);
    // A dragonfly's global bandwidth; text values need no quotes.
    let mut d = dragonfly("1GB/s");
    d.set_all(&[("topology.global_bandwidth", "0.25GB/s")]).unwrap();
    assert_eq!(ends_ns(&messages(4, &[(0, 2, 1001), (1, 3, 1001)], &d))[2..], [8000, 8000]);
    // A taper replaces the up ports it implies: 2:1 of 2 down ports is 1 up.
    let mut q = platform(FREE_ENDS, &small_tree(2, ""));
    q.set("topology.taper", "2:1").unwrap();
    assert_eq!(q, p);
    // Placement too: round-robin puts placement_decides_which_messages_share's two
    // pairs across the one up link (2000 ns instead of 1000).
    let mut r = platform(FREE_ENDS, &small_tree(1, ""));
    r.set("topology.placement", "round-robin").unwrap();
    assert_eq!(ends_ns(&messages(4, &[(0, 1, 1001), (2, 3, 1001)], &r))[1..], [2000, 0, 2000]);
    r.set("topology.placement", "[0, 1, 2, 3]").unwrap();
    assert_eq!(ends_ns(&messages(4, &[(0, 1, 1001), (2, 3, 1001)], &r))[1..], [1000, 0, 1000]);
    // Bad values name the field; a platform without a topology says so.
    let e = p.set("topology.taper", "3:0").unwrap_err().to_string();
    assert_eq!(e, "topology.taper: \"3:0\" leaves no path up the tree; both sides must be at least 1");
    let e = loggopsim_defaults(netsens_core::platform::Rendezvous::Handshake)
        .set("topology.taper", "2:1")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "topology.taper: platform \"test\" has no [topology] to change");
}

#[test]
fn a_job_beside_an_all_to_all_on_a_shared_tapered_link_slows_down() {
    use netsens_core::schedule::jobs::side_by_side;
    // Leaves of 4 hosts with one up link each (4:1). Job A: 1000 B from its rank 0 on
    // host 0 to its rank 1 on host 4, across the tree: alone, 1000 ns.
    let tree = "kind = \"fat-tree\"\ndown = [4, 2]\nup = [1]\nbandwidth = \"1GB/s\"\n";
    let mut a = ScheduleBuilder::new(2);
    a.send(0, 1, 1001, 0, 0, 0);
    a.recv(1, 0, 1001, 0, 0, 0);
    let a = a.build().unwrap();
    let alone = platform(FREE_ENDS, &format!("{tree}placement = [0, 4]"));
    let r = run_schedule(&a, &alone, &RunOptions::default()).unwrap();
    assert_eq!(ends_ns(&r), vec![0, 1000]);
    // Job B beside it on hosts 1, 2 → 5, 6 (its ranks 0 → 2, 1 → 3): its two flows and
    // A's share leaf 0's up link and the top switch's link down to leaf 1: 1/3 B/ns
    // each, so A's message takes 3000 ns; B's too.
    let mut b = ScheduleBuilder::new(4);
    for (s, d) in [(0, 2), (1, 3)] {
        b.send(s, d, 1001, 0, 0, 0);
        b.recv(d, s as i32, 1001, 0, 0, 0);
    }
    let b = b.build().unwrap();
    let (both, first) = side_by_side(&[&a, &b]).unwrap();
    assert_eq!((both.num_ranks, first), (6, vec![0, 2]));
    let shared = platform(FREE_ENDS, &format!("{tree}placement = [0, 4, 1, 2, 5, 6]"));
    let r = run_schedule(&both, &shared, &RunOptions::default()).unwrap();
    let ends = ends_ns(&r);
    assert_eq!((&ends[..2], &ends[2..]), (&[0, 3000][..], &[0, 0, 3000, 3000][..]));
    // Untapered (up = [4]), D-mod-k gives each its own up link: no interference.
    let full = platform(
        FREE_ENDS,
        "kind = \"fat-tree\"\ndown = [4, 2]\nbandwidth = \"1GB/s\"\nplacement = [0, 4, 1, 2, 5, 6]",
    );
    assert_eq!(ends_ns(&run_schedule(&both, &full, &RunOptions::default()).unwrap())[1], 1000);
}

#[test]
fn a_message_to_itself_crosses_no_link() {
    // A rank storing to itself (radix does) on a topology: LogGP's rule, L after o.
    let ends = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"0ns/B\"\nS = \"1MiB\"\n";
    let p = platform(ends, &small_tree(2, "latency = \"100ns\""));
    let r = run_program(&p, 4, &RunOptions::default(), |r| async move {
        let w = r.world();
        r.send(&w, r.rank(), 0, vec![1; 10]).await;
        r.recv(&w, r.rank() as i32, 0).await;
        Ok(())
    })
    .expect("the program runs");
    // Sent at 0 (o = 1 µs), arrives at o + L = 2 µs, received at + o = 3 µs.
    assert_eq!(ends_ns(&r), vec![3000; 4]);
}

#[test]
fn jobs_take_named_hosts_first_then_the_free_ones_in_placement_order() {
    use netsens_core::fabric::job_hosts::JobHosts::{List, Next};
    use netsens_core::schedule::jobs::place_jobs;
    // Round-robin deals the hosts over the two leaves: 0, 4, 1, 5, 2, 6, 3, 7. Job 1 names
    // host 1; job 2 (4 nodes) takes the free ones in that order, 0, 4, 5, 2; job 3 then 6, 3.
    let tree = "kind = \"fat-tree\"\ndown = [4, 2]\nup = [1]\nbandwidth = \"1GB/s\"\nplacement = \"round-robin\"";
    let p = platform(FREE_ENDS, tree);
    let (placed, hosts) = place_jobs(&p, &[1, 4, 2], &[List(vec![1]), Next, Next]).unwrap();
    assert_eq!(hosts, vec![vec![1], vec![0, 4, 5, 2], vec![6, 3]]);
    let list = netsens_core::platform::topology::Placement::List(vec![1, 0, 4, 5, 2, 6, 3]);
    assert_eq!(placed.topology.unwrap().placement, list);
    // "random:7" is placement = "random" with seed = 7.
    let named = platform(FREE_ENDS, "kind = \"torus\"\ndims = [8]\nbandwidth = \"1GB/s\"\nplacement = \"random:7\"");
    let keyed =
        platform(FREE_ENDS, "kind = \"torus\"\ndims = [8]\nbandwidth = \"1GB/s\"\nplacement = \"random\"\nseed = 7");
    assert_eq!(named.topology, keyed.topology);
    let e = Platform::from_toml(
        &format!("{FREE_ENDS}\n[topology]\nkind = \"torus\"\ndims = [8]\nbandwidth = \"1GB/s\"\nplacement = \"random:7\"\nseed = 7"),
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("topology.placement: \"random:7\" names its seed; leave topology.seed out"), "{e}");
}

#[test]
fn valiant_routing_spreads_adversarial_traffic_over_other_groups() {
    // 5 groups of 1 router, 2 hosts each (group g: hosts 2g, 2g + 1), 1 GB/s links.
    // Hosts 0, 1 (group 0) send 1000 B to hosts 2, 3 (group 1).
    let df = |routing: &str| {
        platform(
            FREE_ENDS,
            &format!(
                "kind = \"dragonfly\"\ngroups = 5\nrouters = 1\nhosts = 2\nlocal_bandwidth = \"1GB/s\"\n\
                 global_bandwidth = \"1GB/s\"\nrouting = \"{routing}\""
            ),
        )
    };
    let pairs = [(0, 2, 1001), (1, 3, 1001)];
    // Minimal: both cross the one global link 0 → 1 at 1/2 B/ns: 2000 ns.
    let minimal = messages(4, &pairs, &df("minimal"));
    assert_eq!(ends_ns(&minimal), vec![0, 0, 2000, 2000]);
    // Valiant: pair (0, 2) takes the ((0 + 2) mod 3) = 2nd group after 0 with 1 skipped,
    // group 4; pair (1, 3) the 1st, group 3. Routes 0 → 4 → 1 and 0 → 3 → 1 share no
    // link: 1000 ns each, over four global links instead of one.
    let valiant = messages(4, &pairs, &df("valiant"));
    assert_eq!(ends_ns(&valiant), vec![0, 0, 1000, 1000]);
    let global = |r: &RunResult| {
        let links = r.links.as_ref().expect("a topology reports its links");
        let c = links.classes.iter().find(|c| c.class == "global").unwrap();
        (c.links_used, c.peak_flows, c.bytes)
    };
    assert_eq!(global(&minimal), (1, 2, 2002));
    assert_eq!(global(&valiant), (4, 1, 4004));
}

/// Two switches joined by one link; hosts 0, 1 on s0 and 2, 3 on s1; every link
/// 1 GB/s, as fast as the NICs (G = 1 ns/B), without latency.
fn two_switches(ends: &str) -> Platform {
    let mut t = String::from("kind = \"graph\"\nhosts = 4\nswitches = [\"s0\", \"s1\"]\n");
    for (a, b) in [("h0", "s0"), ("h1", "s0"), ("h2", "s1"), ("h3", "s1"), ("s0", "s1")] {
        t += &format!("[[topology.links]]\nends = [\"{a}\", \"{b}\"]\nbandwidth = \"1GB/s\"\n");
    }
    platform(ends, &t)
}

#[test]
fn a_share_that_grows_after_the_first_byte_speeds_the_message_up() {
    // o = g = L = 0, G = 1 ns/B. 0 → 2 carries k = 1 000 000 B, 1 → 3 k = 510 000 B,
    // both from 0 over the trunk: 0.5 B/ns each until the smaller is through at
    // 1 020 000 ns; the larger has 490 000 B left and moves them alone at 1 B/ns:
    // through at 1 510 000 ns (any flow-level model; SimGrid's CM02 gives the same).
    // A rule that froze the arrival at its prediction from the first sharing would
    // end it at 2 000 000 ns.
    let ends = "[cluster]\nL = \"0ns\"\no = \"0ns\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1GiB\"\n";
    let r = messages(4, &[(0, 2, 1_000_001), (1, 3, 510_001)], &two_switches(ends));
    assert_eq!(ends_ns(&r), vec![0, 0, 1_510_000, 1_020_000]);
    // Their link waits: what each took beyond k·G.
    assert_eq!(r.links.unwrap().link_wait_ps, vec![0, 0, 510_000 * NS, 510_000 * NS]);
}

#[test]
fn a_flow_that_joins_later_slows_a_message_whose_first_byte_has_come() {
    // o = 100 ns, L = 50 ns, g = 0, G = 1 ns/B. Rank 0 sends k = 2000 B to rank 2 at 0:
    // its first byte arrives at o + L = 150 ns, where LogGOPS alone would complete the
    // receive at 150 + o + k·G = 2250 ns. Its bytes move from 100 ns, alone at 1 B/ns
    // until rank 1, after 1000 ns of compute, sends k = 1000 B to rank 3 over the same
    // trunk from 1100 ns: both at 0.5 B/ns. Rank 1's 1000 B are through at 3100 ns, and
    // so are rank 0's last 1000 B. Each waited δ = 1000 ns beyond k·G, so both receives
    // complete at max(tr, ta + δ) + o + k·G: 1150 + 100 + 2000 = 3250 ns for rank 2 and
    // 2150 + 100 + 1000 = 3250 ns for rank 3, the bytes' end plus L + o. (Links as fast as
    // the NICs: the first message moved at its NIC's rate until the second joined.)
    let ends = "[cluster]\nL = \"50ns\"\no = \"100ns\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1GiB\"\n";
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 2, 2001, 0, 0, 0);
    b.recv(2, 0, 2001, 0, 0, 0);
    let calc = b.calc(1, 1000 * NS, 0);
    let send = b.send(1, 3, 1001, 0, 0, 0);
    b.requires(send, calc);
    b.recv(3, 1, 1001, 0, 0, 0);
    let r = run_schedule(&b.build().unwrap(), &two_switches(ends), &RunOptions::default()).unwrap();
    assert_eq!(ends_ns(&r), vec![100, 1100, 3250, 3250]);
    // Alone, the first message completes as LogGOPS says: 2250 ns.
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 2, 2001, 0, 0, 0);
    b.recv(2, 0, 2001, 0, 0, 0);
    let r = run_schedule(&b.build().unwrap(), &two_switches(ends), &RunOptions::default()).unwrap();
    assert_eq!(ends_ns(&r)[2], 2250);
}

#[test]
fn a_message_without_per_byte_time_pays_only_its_route_latency() {
    // A 1-byte message (k = 0) is no flow: LogGP's o + L plus the route's 4 × 100 ns, and
    // the receiver's o, whatever crosses the links at the same time. Here 0 → 2 moves
    // 100 001 B over the same up link from 0 (G = 1 ns/B, alone 100 µs), and 1 → 3 sends
    // 1 B at 0 on the tapered tree's one up link: 1000 + 1000 + 400 + 1000 = 3400 ns.
    let ends = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1MiB\"\n";
    let p = platform(ends, &small_tree(1, "latency = \"100ns\""));
    let r = messages(4, &[(0, 2, 100_001), (1, 3, 1)], &p);
    assert_eq!(r.ranks[3].end_ps, 3400 * NS);
    // The big one is alone on its links but for that: LogGP plus the route, 103 400 ns.
    assert_eq!(r.ranks[2].end_ps, 103_400 * NS);
}

#[test]
fn a_stores_handler_runs_once_its_bytes_are_in() {
    // The late joiner above with rank 0's message a store of 2001 B into rank 2's
    // window: its target processes it when its bytes are in, at 3250 ns (LogGOPS alone:
    // 2250 ns), so rank 0's store_sync returns then (1 µs of compute after it ends
    // rank 0 at 4250 ns; 3250 alone); rank 3's receive as before.
    let ends = "[cluster]\nL = \"50ns\"\no = \"100ns\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1GiB\"\n";
    let p = two_switches(ends);
    let go = |joiner: bool| {
        let r = run_program(&p, 4, &RunOptions::default(), move |r| async move {
            r.expose(4096);
            let w = r.world();
            match r.rank() {
                0 => {
                    r.store(2, 0, vec![7; 2001]);
                    r.store_sync().await;
                    r.compute(1000 * NS).await;
                }
                1 if joiner => {
                    r.compute(1000 * NS).await;
                    r.send(&w, 3, 0, vec![1; 1001]).await;
                }
                3 if joiner => {
                    r.recv(&w, 1, 0).await;
                }
                _ => {}
            }
            Ok(())
        })
        .expect("the program runs");
        ends_ns(&r)
    };
    let alone = go(false);
    assert_eq!((alone[0], alone[2]), (3250, 2250));
    let ends = go(true);
    assert_eq!((ends[0], ends[2], ends[3]), (4250, 3250, 3250));
}
