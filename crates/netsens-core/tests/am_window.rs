//! Active Messages' flow control (`am_window`): times derived by hand from LOGGP.md's
//! one-sided rules at LogGOPSim's defaults (L = 2500, o = 1500, g = 1000 ns), where a
//! request round trip (request, target's o, reply, origin's o) is 2L + 4o = 11000 ns.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program, Rank, SimRank};
use std::future::Future;

const ROUND_TRIP: u64 = 2 * 2500 + 4 * 1500;

fn windowed(window: Option<u32>) -> Platform {
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.am_window = window;
    p
}

fn on<P, F>(window: Option<u32>, ranks: u32, program: P) -> RunResult
where
    P: Fn(SimRank) -> F,
    F: Future<Output = Result<(), String>> + 'static,
{
    run_program(&windowed(window), ranks, &RunOptions::default(), program).expect("the program runs")
}

/// Rank 0 starts `n` one-byte gets from rank 1 at once, then waits for all.
async fn gets(r: SimRank, n: usize) -> Result<(), String> {
    r.expose(n);
    if r.rank() == 1 {
        r.window(|w| w.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8 + 1));
    } else {
        r.compute(0).await; // the target filled its window at time 0
        let reqs = (0..n).map(|i| r.iget(1, i, 1)).collect();
        let got: Vec<u8> = r.wait_all(reqs).await.into_iter().map(|m| m.data[0]).collect();
        if got != (1..=n as u8).collect::<Vec<_>>() {
            return Err(format!("got {got:?}"));
        }
    }
    Ok(())
}

#[test]
fn a_window_of_one_makes_n_gets_n_round_trips() {
    // Each get waits for the previous one's reply: issued at 0, 11000, 22000, 33000;
    // the last reply is processed at 4 · (2L + 4o) = 44000. Rank 1 sends its last
    // reply at 33000 + 5500 and is done 1500 later.
    let r = on(Some(1), 2, |r| gets(r, 4));
    assert_eq!(end_ns(&r, 0), 4 * ROUND_TRIP);
    assert_eq!(end_ns(&r, 1), 3 * ROUND_TRIP + 7000);
    // Without a window the four requests leave back to back and overlap.
    let free = on(None, 2, |r| gets(r, 4));
    assert!(end_ns(&free, 0) < 2 * ROUND_TRIP, "{}", end_ns(&free, 0));
}

#[test]
fn a_window_as_wide_as_the_requests_changes_nothing() {
    let free = on(None, 2, |r| gets(r, 4));
    for w in [4, 5, 1000] {
        let r = on(Some(w), 2, |r| gets(r, 4));
        assert_eq!(r.makespan_ps, free.makespan_ps, "window {w}");
        assert_eq!(
            r.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>(),
            free.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>()
        );
        assert_eq!((r.messages, r.control_messages, r.events), (free.messages, free.control_messages, free.events));
    }
    // Puts have their acknowledgement already: the same.
    let puts = |r: SimRank| async move {
        r.expose(8);
        if r.rank() == 0 {
            let reqs = (0..3).map(|i| r.iput(1, i, vec![7])).collect();
            r.wait_all(reqs).await;
        }
        Ok(())
    };
    let (a, b) = (on(None, 2, puts), on(Some(3), 2, puts));
    assert_eq!((a.makespan_ps, a.control_messages), (b.makespan_ps, b.control_messages));
}

#[test]
fn each_destination_has_its_own_window() {
    // Window 1, one get to rank 1 and one to rank 2: the second is not held. It
    // starts when the CPU is free (1500) and ends one round trip later.
    let r = on(Some(1), 3, |r| async move {
        if r.rank() == 0 {
            let a = r.iget(1, 0, 1);
            let b = r.iget(2, 0, 1);
            r.wait_all(vec![a, b]).await;
        }
        Ok(())
    });
    assert_eq!(end_ns(&r, 0), 1500 + ROUND_TRIP);
}

#[test]
fn a_windowed_store_is_acknowledged_and_waits_for_its_credit() {
    // Window 1, three one-byte stores to rank 1, then store_sync. Each store is
    // acknowledged (the target pays o for the store and o for the ack, the origin o
    // for the ack), and the next leaves when the ack is processed: stores at 0,
    // 11000, 22000. The third lands at 22000 + 5500 (store_sync returns then), its
    // ack leaves rank 1 at 29000 and is processed by rank 0 at 33000.
    let stores = |r: SimRank| async move {
        r.expose(4);
        if r.rank() == 0 {
            for i in 0..3 {
                r.store(1, i, vec![i as u8 + 1]);
            }
            r.store_sync().await;
        } else {
            r.store_sync().await;
        }
        Ok(())
    };
    let r = on(Some(1), 2, stores);
    assert_eq!(end_ns(&r, 0), 3 * ROUND_TRIP);
    assert_eq!(end_ns(&r, 1), 2 * ROUND_TRIP + 7000);
    assert_eq!(r.control_messages, 3, "one acknowledgement per store");
    // Without a window, stores are one-way: CPU-bound at o, no acknowledgement.
    let free = on(None, 2, stores);
    assert_eq!((end_ns(&free, 0), free.control_messages), (4500, 0));
}

#[test]
fn stores_under_a_window_land_where_they_were_sent() {
    let r = on(Some(2), 4, |r| async move {
        r.expose(64);
        let me = r.rank();
        for dst in 0..4 {
            for i in 0..8usize {
                r.store(dst, 16 * me as usize + i, vec![(me * 8 + i as u32) as u8]);
            }
        }
        r.store_sync().await;
        netsens_core::program::collectives::barrier(&r, &r.world()).await;
        let w = r.window(|w| w.clone());
        let want: Vec<u8> =
            (0..4u32).flat_map(|s| (0..16u32).map(move |i| if i < 8 { (s * 8 + i) as u8 } else { 0 })).collect();
        if w != want {
            return Err(format!("window {w:?}"));
        }
        Ok(())
    });
    assert_eq!(r.control_messages, 4 * 4 * 8, "an acknowledgement per store");
}

#[test]
fn a_window_that_is_not_a_positive_whole_number_is_refused() {
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    for bad in ["0", "-1", "2.5", "four", ""] {
        match p.set("am_window", bad) {
            Err(Error::Input(msg)) => assert!(msg.starts_with("am_window: "), "{msg}"),
            other => panic!("am_window = {bad:?}: {other:?}"),
        }
    }
    assert_eq!(p.am_window, None, "a refused value leaves the platform as it was");
    p.set("am_window", "8").unwrap();
    assert_eq!(p.am_window, Some(8));
    for bad in ["am_window = 0", "am_window = -3", "am_window = 1.5", "am_window = true"] {
        match Platform::from_toml(&format!("base = \"now1997\"\n{bad}\n"), "w.toml") {
            Err(Error::Input(msg)) => assert!(msg.contains("am_window: "), "{msg}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    let p = Platform::from_toml("base = \"now1997\"\nam_window = 4\n", "w.toml").unwrap();
    assert_eq!(p.am_window, Some(4));
    // Written back, it reads again.
    assert_eq!(Platform::from_toml(&p.to_toml(), "w.toml").unwrap().am_window, Some(4));
}
