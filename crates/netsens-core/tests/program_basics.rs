//! Rank programs on the simulator: point-to-point, one-sided operations, payloads,
//! phases, failures and deadlocks, against times derived by hand from LOGGP.md.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::profile::{RunResult, TimingDependence};
use netsens_core::program::{run_program, Rank, SimRank, ANY_SOURCE, ANY_TAG};
use netsens_core::time::NS;
use std::cell::Cell;
use std::rc::Rc;

fn defaults() -> Platform {
    loggopsim_defaults(Rendezvous::Handshake)
}

#[test]
fn ping_pong_matches_the_goal_schedule() {
    // 0 sends at 0 (cpu 1500), 1 is done at 4000+1500 = 5500 and replies (cpu 7000);
    // the reply arrives 9500 and 0 is done at 11000.
    let r = go(2, |r| async move {
        let w = r.world();
        if r.rank() == 0 {
            r.send(&w, 1, 0, vec![7]).await;
            let m = r.recv(&w, 1, 0).await;
            if m.data != [8] {
                return Err(format!("got {:?}", m.data));
            }
        } else {
            let m = r.recv(&w, 0, 0).await;
            r.send(&w, 0, 0, vec![m.data[0] + 1]).await;
        }
        Ok(())
    });
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (11000, 7000));
    let sched = run(&ping_pong(1), &defaults());
    assert_eq!(
        r.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>(),
        sched.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>()
    );
    // Every source and tag named, no test: the messages are the program's alone.
    assert!(r.timing_dependence.is_none() && sched.timing_dependence.is_none());
}

#[test]
fn blocking_get_is_a_round_trip() {
    // 2L + 4o + k·G: request 0 → cpu 1500, arrives 4000, target done 5500, replies
    // (1001 B) arriving 9500, origin done 9500 + 1500 + 1000·6 = 17000.
    let r = go(2, |r| async move {
        r.expose(2000);
        if r.rank() == 1 {
            r.window(|w| w[10..1011].fill(3));
        } else {
            r.compute(0).await; // the target filled its window at time 0
            let data = r.get(1, 10, 1001).await;
            if data.len() != 1001 || data.iter().any(|&b| b != 3) {
                return Err("get returned the wrong bytes".into());
            }
        }
        Ok(())
    });
    assert_eq!(end_ns(&r, 0), 2 * 2500 + 4 * 1500 + 1000 * 6);
    assert_eq!(end_ns(&r, 1), 7000); // two o's at the target
}

#[test]
fn store_burst_then_store_sync() {
    // 10 one-byte stores: CPU-bound at o = 1500 (g = 1000): issued at 0, 1500, …, 13500,
    // arriving 4000 … 17500, each processed on arrival (o = 1500 each); the last is
    // processed by 19000. store_sync returns then; 1 µs of compute ends rank 0 at 20000.
    let r = go(2, |r| async move {
        r.expose(16);
        if r.rank() == 0 {
            for i in 0..10 {
                r.store(1, i, vec![i as u8 + 1]);
            }
            r.store_sync().await;
            r.compute(1000 * NS).await;
        }
        Ok(())
    });
    assert_eq!(end_ns(&r, 0), 20000);
    assert_eq!(end_ns(&r, 1), 19000);
}

#[test]
fn stores_land_in_the_target_window() {
    let seen = Rc::new(Cell::new(0u32));
    let s2 = seen.clone();
    go(2, move |r| {
        let seen = s2.clone();
        async move {
            r.expose(4);
            if r.rank() == 0 {
                r.store(1, 1, vec![5, 6]);
                r.store_sync().await;
                r.put(1, 3, vec![9]).await;
                r.send(&r.world(), 1, 0, vec![]).await;
            } else {
                // A busy CPU would delay the stores' processing (the target polls between
                // operations), so rank 1 waits for rank 0's all-done message instead.
                r.recv(&r.world(), 0, 0).await;
                let w = r.window(|w| w.clone());
                seen.set(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            }
            Ok(())
        }
    });
    assert_eq!(seen.get(), u32::from_le_bytes([0, 5, 6, 9]));
}

#[test]
fn active_message_handler_charges_the_target() {
    // Arrives 4000, processed → 5500, then the handler's 3 µs: rank 1 ends at 8500.
    let got = Rc::new(Cell::new(0u8));
    let g2 = got.clone();
    let r = go(2, move |r| {
        let got = g2.clone();
        async move {
            let h = r.register(Rc::new(move |src, data| {
                got.set(data[0] + src as u8);
                3000 * NS
            }));
            if r.rank() == 0 {
                r.am(1, h, vec![41]);
                r.store_sync().await;
            }
            Ok(())
        }
    });
    assert_eq!(got.get(), 41);
    assert_eq!(end_ns(&r, 1), 8500);
    assert_eq!(r.ranks[1].compute_ps, 3000 * NS);
}

#[test]
fn wildcard_receive_reports_source_and_tag() {
    let r = go(3, |r| async move {
        let w = r.world();
        match r.rank() {
            0 => {
                let a = r.recv(&w, ANY_SOURCE, ANY_TAG).await;
                let b = r.recv(&w, ANY_SOURCE, ANY_TAG).await;
                let mut got = vec![(a.source, a.tag, a.data), (b.source, b.tag, b.data)];
                got.sort();
                if got != vec![(1, 11, vec![1]), (2, 22, vec![2, 2])] {
                    return Err(format!("got {got:?}"));
                }
            }
            1 => r.send(&w, 0, 11, vec![1]).await,
            _ => r.send(&w, 0, 22, vec![2, 2]).await,
        }
        Ok(())
    });
    // Rank 0's two receives name neither source nor tag: which message each one
    // matches can depend on timing, and the run says so.
    assert_eq!(r.timing_dependence, TimingDependence { wildcard_receives: 2, tests: 0 });
}

#[test]
fn tests_and_wildcard_tags_are_counted_as_timing_dependent() {
    // Rank 1 tests its receive three times before it waits, then receives with a
    // wildcard tag: 3 tests, 1 wildcard receive; rank 0's fixed receives count nothing.
    let r = go(2, |r| async move {
        let w = r.world();
        if r.rank() == 0 {
            r.send(&w, 1, 4, vec![1]).await;
            r.send(&w, 1, 5, vec![2]).await;
            r.recv(&w, 1, 6).await;
        } else {
            let req = r.irecv(&w, 0, 4);
            let _ = (0..3).map(|_| r.test(&req)).filter(|&done| done).count();
            r.wait(req).await;
            r.recv(&w, 0, ANY_TAG).await;
            r.send(&w, 0, 6, vec![3]).await;
        }
        Ok(())
    });
    assert_eq!(r.timing_dependence, TimingDependence { wildcard_receives: 1, tests: 3 });
    assert!(!r.timing_dependence.is_none());
}

#[test]
fn communicators_keep_messages_apart() {
    // The same tag on two communicators: each receive gets its own communicator's message.
    go(2, |r| async move {
        let w = r.world();
        let other = r.derive(&w, vec![0, 1]);
        if r.rank() == 0 {
            r.send(&w, 1, 5, vec![1]).await;
            r.send(&other, 1, 5, vec![2]).await;
        } else {
            let b = r.recv(&other, 0, ANY_TAG).await;
            let a = r.recv(&w, 0, 5).await;
            if (a.data[0], b.data[0]) != (1, 2) {
                return Err(format!("world got {}, other got {}", a.data[0], b.data[0]));
            }
        }
        Ok(())
    });
}

#[test]
fn phases_and_primitive_counts() {
    let r = go(2, |r| async move {
        let w = r.world();
        r.phase("compute");
        r.compute(5000 * NS).await;
        r.phase("exchange");
        let peer = 1 - r.rank();
        let s = r.isend(&w, peer, 0, vec![0; 8]);
        let m = r.irecv(&w, peer as i32, 0);
        r.wait_all(vec![s, m]).await;
        Ok(())
    });
    let compute: Vec<_> = r.phases.iter().filter(|p| p.phase == "compute").collect();
    assert_eq!(compute.len(), 2);
    assert!(compute.iter().all(|p| p.elapsed_ps == 5000 * NS && p.compute_ps == 5000 * NS));
    // Exchange: send at 5000 → cpu 6500; the peer's message arrives 5000+1500+2500 = 9000,
    // processed → 10500 + 7·6 = 10542 ns; the phase lasts 5542 ns.
    let exchange: Vec<_> = r.phases.iter().filter(|p| p.phase == "exchange").collect();
    assert!(exchange.iter().all(|p| p.elapsed_ps == 5542 * NS), "{exchange:?}");
    let count = |name: &str| r.primitives.iter().filter(|p| p.primitive == name).map(|p| p.count).sum::<u64>();
    assert_eq!((count("send"), count("recv"), count("compute")), (2, 2, 2));
}

#[test]
fn wrong_answer_fails_the_run() {
    let err = run_program(&defaults(), 2, &RunOptions::default(), |r| async move {
        if r.rank() == 1 {
            return Err("checksum 41 != 42".into());
        }
        Ok(())
    })
    .unwrap_err();
    assert_eq!(err, Error::Program("rank 1: checksum 41 != 42".into()));
    assert_eq!(err.to_string(), "the program failed: rank 1: checksum 41 != 42");
}

#[test]
fn receive_never_matched_is_a_deadlock() {
    let err = run_program(&defaults(), 3, &RunOptions::default(), |r| async move {
        if r.rank() == 2 {
            r.recv(&r.world(), 0, 5).await;
        }
        Ok(())
    })
    .unwrap_err();
    assert_eq!(
        err,
        Error::Deadlock(
            "deadlock: 1 rank(s) cannot finish: rank 2 waits in `recv from 0 tag 5` on communicator 0".into()
        )
    );
}

#[test]
fn measured_mode_charges_the_real_work() {
    // The model charges the given cost (here 0); measured mode charges the thread CPU
    // time of the closure, which for a real loop is more than nothing.
    let busy = |r: SimRank| async move {
        let x = r
            .work(0, || {
                let mut acc = 0u64;
                for i in 0..2_000_000u64 {
                    acc = acc.wrapping_mul(6364136223846793005).wrapping_add(i);
                }
                acc
            })
            .await;
        std::hint::black_box(x);
        Ok(())
    };
    let model = run_program(&defaults(), 1, &RunOptions::default(), busy).unwrap();
    assert_eq!(model.ranks[0].compute_ps, 0);
    let opts = RunOptions { measured_compute: true, ..Default::default() };
    let measured = run_program(&defaults(), 1, &opts, busy).unwrap();
    assert!(measured.ranks[0].compute_ps > 0);
}

#[test]
fn recorded_work_charges_the_record_in_order_and_checks_its_length() {
    // Rank 0 works twice, then sends; rank 1 works once, then receives. Measured, each
    // piece's cost is in `measured_work`, in order; run from a record of hand-chosen
    // costs, the run charges exactly those: rank 0 computes 3 + 4 us and sends at 7 us,
    // the default platform's message then arrives (o + L + o), and rank 1's 10 us of
    // work ends before it.
    let program = |r: SimRank| async move {
        let w = r.world();
        if r.rank() == 0 {
            r.work(NS, || ()).await;
            r.work(NS, || ()).await;
            r.send(&w, 1, 0, vec![0; 8]).await;
        } else {
            r.work(NS, || ()).await;
            r.recv(&w, 0, 0).await;
        }
        Ok(())
    };
    let opts = RunOptions { measured_compute: true, ..Default::default() };
    let measured = run_program(&defaults(), 2, &opts, program).unwrap();
    assert_eq!(measured.measured_work.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 1]);
    let record: Vec<Vec<u64>> = vec![vec![3_000 * NS, 4_000 * NS], vec![10_000 * NS]];
    let opts = RunOptions { recorded_work: Some(record.clone().into()), ..Default::default() };
    let a = run_program(&defaults(), 2, &opts, program).unwrap();
    let b = run_program(&defaults(), 2, &opts, program).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.ranks[0].compute_ps, 7_000 * NS);
    assert_eq!(a.ranks[1].compute_ps, 10_000 * NS);
    // Nothing measured in a recorded run.
    assert!(a.measured_work.is_empty());
    // The same program with model costs, shifted by the record's extra compute on rank 0.
    let model = run_program(&defaults(), 2, &RunOptions::default(), program).unwrap();
    assert_eq!(a.ranks[0].end_ps, model.ranks[0].end_ps + 7_000 * NS - 2 * NS);
    // A record with a piece of work the program does not do, or of other ranks: an error.
    let longer = RunOptions { recorded_work: Some(vec![vec![1, 2, 3], vec![1]].into()), ..Default::default() };
    let e = run_program(&defaults(), 2, &longer, program).unwrap_err();
    assert!(e.to_string().contains("rank 0 did 2 pieces of work where the recorded run did 3"), "{e}");
    let ranks = RunOptions { recorded_work: Some(vec![vec![1]].into()), ..Default::default() };
    let e = run_program(&defaults(), 2, &ranks, program).unwrap_err();
    assert!(e.to_string().contains("the recorded work is of 1 ranks; the run has 2"), "{e}");
}

#[test]
fn cpu_speed_scales_compute_and_handlers() {
    let mut p = defaults();
    p.cpu_speed = 2.0;
    let r = run_program(&p, 1, &RunOptions::default(), |r| async move {
        r.compute(10_000 * NS).await;
        Ok(())
    })
    .unwrap();
    assert_eq!(r.makespan_ps, 5_000 * NS);
}

#[test]
fn derived_communicators_agree_whatever_else_members_derived() {
    // Ranks 0 and 1 derive a pair first; then all three derive the whole group, and a
    // message on it must arrive (rank 2 derived one communicator fewer).
    go(3, |r| async move {
        let w = r.world();
        if r.rank() < 2 {
            let pair = r.derive(&w, vec![0, 1]);
            let _ = pair.size();
        }
        let all = r.derive(&w, vec![0, 1, 2]);
        match r.rank() {
            0 => r.send(&all, 2, 0, vec![1]).await,
            2 => {
                r.recv(&all, 0, 0).await;
            }
            _ => {}
        }
        Ok(())
    });
}

#[test]
fn barrier_program_matches_the_shipped_goal_file() {
    // examples/goal/dissemination16.goal and collectives::barrier on 16 ranks: the same
    // messages, so the same end times on every rank (22 µs each on loggopsim).
    let path = format!("{}/../../examples/goal/dissemination16.goal", env!("CARGO_MANIFEST_DIR"));
    let goal = netsens_core::schedule::goal::parse_goal(&std::fs::read_to_string(path).unwrap(), "d16").unwrap();
    let p = netsens_core::platform::presets::get("loggopsim").unwrap();
    let from_goal = run(&goal, &p);
    let from_program = run_program(&p, 16, &RunOptions::default(), |r| async move {
        netsens_core::program::collectives::barrier(&r, &r.world()).await;
        Ok(())
    })
    .unwrap();
    let ends = |r: &RunResult| r.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>();
    assert_eq!(ends(&from_program), ends(&from_goal));
    assert!(ends(&from_goal).iter().all(|&e| e == 22_000 * NS));
}

fn with_disks(p: &mut Platform, ranks_per_node: u32) {
    // Two disks per node at 1 MB/s (1 µs per byte).
    p.disks =
        Some(netsens_core::platform::Disks { count: 2, per_byte: netsens_core::time::PerByte::from_ps(1_000_000) });
    p.shape.ranks_per_node = ranks_per_node;
}

#[test]
fn disks_serve_one_request_at_a_time_per_node() {
    // Ranks 0 and 1 share a node. Both read 1000 B (1 ms) at time 0: from the same disk
    // the second waits for the first (done at 2 ms); from different disks both end at 1 ms.
    let mut p = defaults();
    with_disks(&mut p, 2);
    let same = run_program(&p, 2, &RunOptions::default(), |r| async move {
        r.disk(0, 1000).await;
        Ok(())
    })
    .unwrap();
    assert_eq!((end_ns(&same, 0), end_ns(&same, 1)), (1_000_000, 2_000_000));
    let apart = run_program(&p, 2, &RunOptions::default(), |r| async move {
        r.disk(r.rank(), 1000).await;
        Ok(())
    })
    .unwrap();
    assert_eq!((end_ns(&apart, 0), end_ns(&apart, 1)), (1_000_000, 1_000_000));
}

#[test]
fn the_cpu_works_while_the_disk_reads() {
    // A 1 ms read overlapped with 600 µs of compute ends at 1 ms, not 1.6 ms.
    let mut p = defaults();
    with_disks(&mut p, 1);
    let r = run_program(&p, 1, &RunOptions::default(), |r| async move {
        let io = r.idisk(1, 1000);
        r.compute(600_000 * NS).await;
        r.wait(io).await;
        Ok(())
    })
    .unwrap();
    assert_eq!(r.makespan_ps, 1_000_000 * NS);
}

#[test]
fn disk_use_without_disks_is_an_input_error() {
    let err = run_program(&defaults(), 2, &RunOptions::default(), |r| async move {
        r.disk(0, 10).await;
        Ok(())
    })
    .unwrap_err();
    assert!(matches!(&err, Error::Input(m) if m.contains("the platform has no disks")), "{err}");
}

#[test]
fn a_queued_disk_request_finishes_when_the_disk_is_done() {
    // Two 1 ms reads queued at once on one disk: the first ends at 1 ms, the second at
    // 2 ms; the program sees each finish then, not when the disk accepted it.
    let mut p = defaults();
    with_disks(&mut p, 1);
    let seen = Rc::new(Cell::new((0u64, false, 0u64)));
    let s2 = seen.clone();
    run_program(&p, 1, &RunOptions::default(), move |r| {
        let seen = s2.clone();
        async move {
            let a = r.idisk(0, 1000);
            let b = r.idisk(0, 1000);
            r.wait(a).await;
            let (t_a, b_done) = (r.now(), r.test(&b));
            r.wait(b).await;
            seen.set((t_a, b_done, r.now()));
            Ok(())
        }
    })
    .unwrap();
    assert_eq!(seen.get(), (1_000_000 * NS, false, 2_000_000 * NS));
}

#[test]
fn ranks_learn_the_cluster_shape_of_the_platform() {
    // Clusters 3 + 1 + 2: ranks 0..3 in cluster 0, rank 3 in 1, ranks 4 and 5 in 2.
    let mut p = two_clusters(level(2500, 1500, 1000, 0, 0, 65535), 3, 1000 * NS, 0);
    p.shape.clusters = Some(vec![3, 1, 2]);
    let seen = Rc::new(std::cell::RefCell::new(vec![None; 6]));
    let s = seen.clone();
    run_program(&p, 6, &RunOptions::default(), move |r| {
        let s = s.clone();
        async move {
            s.borrow_mut()[r.rank() as usize] = Some((r.cluster_sizes(), r.cluster_of(r.rank())));
            Ok(())
        }
    })
    .expect("the program runs");
    let want: Vec<_> = [0, 0, 0, 1, 2, 2].iter().map(|&c| Some((vec![3, 1, 2], c))).collect();
    assert_eq!(*seen.borrow(), want);
    // A flat machine is one cluster of every rank.
    let flat_run = go(4, |r| async move {
        if r.cluster_sizes() != [4] || (0..4).any(|q| r.cluster_of(q) != 0) {
            return Err(format!("flat shape seen as {:?}", r.cluster_sizes()));
        }
        Ok(())
    });
    assert_eq!(flat_run.ranks.len(), 4);
}
