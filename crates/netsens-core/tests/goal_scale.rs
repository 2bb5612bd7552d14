//! A dissemination barrier from GOAL text at 2^12 ranks: its end time derived by
//! hand, as the 2^23-rank run (LogGOPSim's "8 million processes") would be checked.

use netsens_core::platform::Rendezvous;
use netsens_core::schedule::goal::parse_goal;
use netsens_core::time::NS;
use std::fmt::Write;

mod common;

/// Round k: rank i sends 1 byte to i + 2^k and receives from i - 2^k (mod p); round
/// k+1's send and receive wait for round k's receive.
fn dissemination_goal(p: u32) -> String {
    let mut text = format!("num_ranks {p}\n");
    for i in 0..p {
        writeln!(text, "rank {i} {{").unwrap();
        let (mut dist, mut k) = (1, 0);
        while dist < p {
            writeln!(text, "s{k}: send 1b to {} tag 0", (i + dist) % p).unwrap();
            writeln!(text, "r{k}: recv 1b from {} tag 0", (i + p - dist) % p).unwrap();
            if k > 0 {
                writeln!(text, "s{k} requires r{}\nr{k} requires r{}", k - 1, k - 1).unwrap();
            }
            (dist, k) = (dist * 2, k + 1);
        }
        text.push_str("}\n");
    }
    text
}

#[test]
fn a_dissemination_barrier_of_4096_ranks_ends_after_12_rounds_of_o_l_o() {
    let s = parse_goal(&dissemination_goal(1 << 12), "d4096.goal").unwrap();
    assert_eq!(s.num_ops(), 2 * 12 * 4096); // a send and a receive per rank and round
    let r = common::run(&s, &common::loggopsim_defaults(Rendezvous::Loggopsim));
    // Every rank moves in step: a round is the send's o, the wire's L and the
    // receive's o, 1500 + 2500 + 1500 ns (a 1-byte message pays no G: (1-1) × G).
    // A round's send starts at the previous receive's end, 5.5 us after the last.
    let round = (1500 + 2500 + 1500) * NS;
    assert_eq!(r.makespan_ps, 12 * round);
    assert!(r.ranks.iter().all(|rank| rank.end_ps == 12 * round));
}
