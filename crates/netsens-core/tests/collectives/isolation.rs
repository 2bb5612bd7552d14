//! Profile and isolation: counted once per call by kind, kept apart from the
//! program's messages, on derived communicators; and deadlocks.

use super::*;

#[test]
fn each_call_counts_once_by_kind() {
    let r = go(3, |r| async move {
        let w = r.world();
        barrier(&r, &w).await;
        barrier(&r, &w).await;
        bcast(&r, &w, 0, vec![1; 100_000]).await;
        allreduce(&r, &w, &[1u64; 10_000], Op::Sum).await;
        reduce(&r, &w, 0, &[1u64], Op::Sum).await;
        gather(&r, &w, 0, vec![1]).await;
        scatter(&r, &w, 0, vec![0; if r.rank() == 0 { 3 } else { 0 }], 1).await;
        allgather(&r, &w, vec![1; 30_000]).await;
        alltoall(&r, &w, vec![0; 3]).await;
        alltoallv(&r, &w, vec![vec![]; 3]).await;
        split(&r, &w, 0, 0).await;
        Ok(())
    });
    for rank in 0..3 {
        let count = |name: &str| {
            r.primitives.iter().filter(|x| x.rank == rank && x.primitive == name).map(|x| x.count).sum::<u64>()
        };
        for kind in ["bcast", "allreduce", "reduce", "gather", "scatter", "allgather", "alltoall", "alltoallv", "split"]
        {
            assert_eq!(count(kind), 1, "{kind} on rank {rank}");
        }
        assert_eq!(count("barrier"), 2);
        assert_eq!((count("send"), count("recv")), (0, 0), "collective messages are not the program's");
        assert!(count("coll_send") > 0);
    }
}

#[test]
fn collective_messages_never_match_program_receives() {
    // Each rank posts a wildcard receive on the world before the collectives and
    // satisfies it only after them: the collectives' messages must not match it.
    go(8, |r| async move {
        let w = r.world();
        let pending = r.irecv(&w, ANY_SOURCE, ANY_TAG);
        barrier(&r, &w).await;
        let s = allreduce(&r, &w, &[r.rank() as u64], Op::Sum).await;
        let b = bcast(&r, &w, 3, vec![r.rank() as u8; 4]).await;
        alltoall(&r, &w, vec![1; 8]).await;
        if r.test(&pending) {
            return Err("a collective message matched the program's receive".into());
        }
        r.send(&w, (r.rank() + 1) % 8, 42, vec![9]).await;
        let m = r.wait(pending).await;
        if (m.tag, m.data.as_slice(), s[0], b[0]) != (42, &[9u8][..], 28, 3) {
            return Err(format!("got tag {} {:?}, sum {:?}, bcast {:?}", m.tag, m.data, s, b));
        }
        Ok(())
    });
}

#[test]
fn collectives_on_a_derived_communicator() {
    // Ranks 4..8 form a communicator: a bcast from its rank 1 (world 5) and a gather.
    go(8, |r| async move {
        let w = r.world();
        let sub = split(&r, &w, (r.rank() >= 4) as i32, 0).await.ok_or("no communicator")?;
        if r.rank() >= 4 {
            let got = bcast(&r, &sub, 1, vec![r.rank() as u8; 2]).await;
            let all = gather(&r, &sub, 0, vec![r.rank() as u8]).await;
            if got != [5, 5] || (sub.rank() == 0 && all != Some(vec![4, 5, 6, 7])) {
                return Err(format!("got {got:?}, gathered {all:?}"));
            }
        }
        Ok(())
    });
}

// ---- 6. deadlock ---------------------------------------------------------------------

#[test]
fn a_missing_rank_is_a_deadlock_in_the_collective() {
    // Rank 3 never enters the barrier: rank 0 waits for its round-1 message, and the
    // ranks whose rounds depend on rank 0 or 3 wait too.
    let err = run_program(&defaults(), 4, &RunOptions::default(), |r| async move {
        if r.rank() != 3 {
            barrier(&r, &r.world()).await;
        }
        Ok(())
    })
    .unwrap_err();
    let Error::Deadlock(msg) = &err else { panic!("not a deadlock: {err}") };
    assert!(msg.starts_with("deadlock: 3 rank(s) cannot finish: rank 0 waits in `recv from 3 tag 1`"), "{msg}");
    assert!(msg.contains("on communicator 0 (collective)"), "{msg}");
    assert!(!msg.contains("rank 3 waits"), "{msg}");

    // The same for an allreduce where the missing rank is a fold-in partner.
    let err = run_program(&defaults(), 3, &RunOptions::default(), |r| async move {
        if r.rank() != 0 {
            allreduce(&r, &r.world(), &[1u64], Op::Sum).await;
        }
        Ok(())
    })
    .unwrap_err();
    let Error::Deadlock(msg) = &err else { panic!("not a deadlock: {err}") };
    assert!(msg.contains("rank 1 waits in `recv from 0 tag"), "{msg}");
    assert!(msg.contains("(collective)"), "{msg}");
}
