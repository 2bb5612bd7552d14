//! Payloads: every collective's results, split, the typed helpers.

use super::*;

/// Every collective with checked results, on `p` ranks (run one after the other, so
/// consecutive collectives must not disturb each other).
async fn payload_program(r: SimRank) -> Result<(), String> {
    let w = r.world();
    let (p, me) = (r.size(), r.rank());
    let pu = p as u64;
    for root in [0, p - 1, p / 2] {
        // bcast: small (binomial), large (scatter + allgather), and a length not
        // divisible by p through both algorithms explicitly.
        for (n, algo) in [
            (5, BcastAlgorithm::Auto),
            (70_001, BcastAlgorithm::Auto),
            (2 * p as usize + 3, BcastAlgorithm::ScatterAllgather),
            (p as usize - 1, BcastAlgorithm::ScatterAllgather),
            (0, BcastAlgorithm::Binomial),
        ] {
            let want: Vec<u8> = (0..n).map(|i| (i * 31 + root as usize) as u8).collect();
            let mine = if me == root { want.clone() } else { vec![0xEE; n] };
            let got = bcast_with(&r, &w, root, mine, algo).await;
            if got != want {
                return Err(format!("bcast of {n} bytes from {root} ({algo:?}) delivered the wrong bytes"));
            }
        }
        // reduce, integers (exact).
        let mine: Vec<u64> = (0..5).map(|i| (me as u64 + 1) * 1000 + i).collect();
        let got = reduce(&r, &w, root, &mine, Op::Sum).await;
        let want: Vec<u64> = (0..5).map(|i| 1000 * pu * (pu + 1) / 2 + pu * i).collect();
        match got {
            Some(v) if me == root && v == want => {}
            None if me != root => {}
            other => return Err(format!("reduce to {root}: {other:?}, want {want:?}")),
        }
        let got = reduce(&r, &w, root, &[me as i64 - 3], Op::Min).await;
        if me == root && got != Some(vec![-3]) {
            return Err(format!("reduce min: {got:?}"));
        }
        // gather of 3-byte blocks.
        let got = gather(&r, &w, root, vec![me as u8, me as u8 + 1, me as u8 + 2]).await;
        let want: Vec<u8> = (0..p as u8).flat_map(|i| [i, i + 1, i + 2]).collect();
        if (me == root && got.as_ref() != Some(&want)) || (me != root && got.is_some()) {
            return Err(format!("gather to {root}: {got:?}"));
        }
        // scatter of 2-byte blocks.
        let data: Vec<u8> = if me == root { (0..p as u8).flat_map(|i| [i, 100 + i]).collect() } else { vec![] };
        let got = scatter(&r, &w, root, data, 2).await;
        if got != [me as u8, 100 + me as u8] {
            return Err(format!("scatter from {root}: {got:?}"));
        }
    }
    // allreduce, integers, every op, every element type, every algorithm.
    for algo in [AllreduceAlgorithm::Auto, AllreduceAlgorithm::RecursiveDoubling, AllreduceAlgorithm::Rabenseifner] {
        for n in [1usize, 7, 37] {
            let mine: Vec<u64> = (0..n as u64).map(|i| (me as u64 + 1) * (i + 1)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Sum, algo).await;
            let want: Vec<u64> = (0..n as u64).map(|i| pu * (pu + 1) / 2 * (i + 1)).collect();
            if got != want {
                return Err(format!("allreduce sum of {n} u64 ({algo:?}): {got:?}, want {want:?}"));
            }
            let mine: Vec<i64> = (0..n as i64).map(|i| (me as i64 - 2) * (i + 1)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Min, algo).await;
            if got != (0..n as i64).map(|i| -2 * (i + 1)).collect::<Vec<_>>() {
                return Err(format!("allreduce min of i64 ({algo:?}): {got:?}"));
            }
            let got = allreduce_with(&r, &w, &mine, Op::Max, algo).await;
            if got != (0..n as i64).map(|i| (p as i64 - 3) * (i + 1)).collect::<Vec<_>>() {
                return Err(format!("allreduce max of i64 ({algo:?}): {got:?}"));
            }
            let mine = vec![if me % 2 == 0 { 2u32 } else { 1 }; n];
            let got = allreduce_with(&r, &w, &mine, Op::Prod, algo).await;
            if got != vec![1u32 << p.div_ceil(2); n] {
                return Err(format!("allreduce prod of u32 ({algo:?}): {got:?}"));
            }
            // f64: the fixed order of each algorithm vs the serial sum in rank order.
            let value = |rank: u32, i: usize| 1.0 / (rank as f64 + 1.0) + (i as f64) * 0.1 + 1e-3 * rank as f64;
            let mine: Vec<f64> = (0..n).map(|i| value(me, i)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Sum, algo).await;
            for (i, x) in got.iter().enumerate() {
                let serial: f64 = (0..p).map(|rank| value(rank, i)).sum();
                if ((x - serial) / serial).abs() > 1e-12 {
                    return Err(format!("allreduce f64 ({algo:?}) element {i}: {x} vs serial {serial}"));
                }
            }
            // Bit-identical on every rank: rank 0's result, broadcast, equals everyone's.
            let from0 = decode::<f64>(&bcast(&r, &w, 0, encode(&got)).await);
            if from0.iter().zip(&got).any(|(a, b)| a.to_bits() != b.to_bits()) {
                return Err(format!("allreduce f64 ({algo:?}) differs between ranks"));
            }
        }
    }
    // A vector above S: Rabenseifner by Auto.
    let n = 10_000;
    let mine: Vec<u64> = (0..n as u64).map(|i| i * (me as u64 + 1)).collect();
    let got = allreduce(&r, &w, &mine, Op::Sum).await;
    if got.iter().enumerate().any(|(i, &x)| x != i as u64 * pu * (pu + 1) / 2) {
        return Err("allreduce of 10000 u64 is wrong".into());
    }
    // allgather, both algorithms, small and large.
    for (b, algo) in [
        (2usize, AllgatherAlgorithm::Auto),
        (2, AllgatherAlgorithm::Ring),
        (5, AllgatherAlgorithm::RecursiveDoubling),
        (70_000, AllgatherAlgorithm::Auto),
        (0, AllgatherAlgorithm::Auto),
    ] {
        let block = |rank: u32| (0..b).map(|i| (rank as usize * 7 + i) as u8).collect::<Vec<u8>>();
        let got = allgather_with(&r, &w, block(me), algo).await;
        if got != (0..p).flat_map(block).collect::<Vec<u8>>() {
            return Err(format!("allgather of {b}-byte blocks ({algo:?}) is wrong"));
        }
    }
    // alltoall: block i → j is [i, j, i^j].
    let data: Vec<u8> = (0..p).flat_map(|j| [me as u8, j as u8, (me ^ j) as u8]).collect();
    let got = alltoall(&r, &w, data).await;
    if got != (0..p).flat_map(|i| [i as u8, me as u8, (i ^ me) as u8]).collect::<Vec<u8>>() {
        return Err(format!("alltoall: {got:?}"));
    }
    // alltoallv: block i → j has (i + 2j) mod 5 bytes (some empty) of i·16 + j.
    let blocks: Vec<Vec<u8>> = (0..p).map(|j| vec![(me * 16 + j) as u8; ((me + 2 * j) % 5) as usize]).collect();
    let got = alltoallv(&r, &w, blocks).await;
    for (i, blk) in got.iter().enumerate() {
        let i = i as u32;
        if *blk != vec![(i * 16 + me) as u8; ((i + 2 * me) % 5) as usize] {
            return Err(format!("alltoallv block from {i}: {blk:?}"));
        }
    }
    barrier(&r, &w).await;
    Ok(())
}

#[test]
fn payloads_are_correct() {
    for p in [2, 3, 8, 16] {
        run_program(&defaults(), p, &RunOptions::default(), payload_program)
            .unwrap_or_else(|e| panic!("{p} ranks: {e}"));
    }
}

#[test]
fn split_groups_orders_and_communicates() {
    for p in [2, 3, 8, 16] {
        go(p, |r| async move {
            let w = r.world();
            let me = r.rank();
            let p = r.size();
            // Three colors by rank mod 3, keyed in reverse rank order; rank 1 opts out.
            let color = if me == 1 { -1 } else { (me % 3) as i32 };
            let got = split(&r, &w, color, -(me as i32)).await;
            if me == 1 {
                if got.is_some() {
                    return Err("an undefined color got a communicator".into());
                }
            } else {
                let c = got.ok_or("no communicator")?;
                let members: Vec<u32> = (0..p).rev().filter(|&i| i != 1 && i % 3 == me % 3).collect();
                let seen: Vec<u32> = (0..c.size()).map(|i| c.world_rank(i)).collect();
                if seen != members || c.world_rank(c.rank()) != me {
                    return Err(format!("rank {me}: members {seen:?}, want {members:?}"));
                }
                // A message on the new communicator: everyone tells its new rank 0.
                if c.rank() == 0 {
                    for _ in 1..c.size() {
                        let m = r.recv(&c, ANY_SOURCE, 7).await;
                        if m.data != [c.world_rank(m.source) as u8] {
                            return Err(format!("new rank 0 got {:?} from {}", m.data, m.source));
                        }
                    }
                } else {
                    r.send(&c, 0, 7, vec![me as u8]).await;
                }
                // And a collective on it.
                let sum = allreduce(&r, &c, &[me as u64], Op::Sum).await;
                if sum != [members.iter().map(|&m| m as u64).sum::<u64>()] {
                    return Err(format!("allreduce on the split communicator: {sum:?}"));
                }
            }
            // Everyone splits again (one group): the ranks agree on the new communicator
            // even though rank 1 made no communicator the first time.
            let all = split(&r, &w, 0, me as i32).await.ok_or("no communicator")?;
            let sum = allreduce(&r, &all, &[1u32], Op::Sum).await;
            if sum != [p] || all.rank() != me {
                return Err(format!("second split: {sum:?}"));
            }
            Ok(())
        });
    }
}

#[test]
fn typed_helpers_round_trip() {
    assert_eq!(encode(&[1u32, 0x01020304]), [1, 0, 0, 0, 4, 3, 2, 1]);
    assert_eq!(decode::<u32>(&[1, 0, 0, 0, 4, 3, 2, 1]), [1, 0x01020304]);
    let f = [1.5f64, -0.0, f64::MAX];
    assert_eq!(decode::<f64>(&encode(&f)), f);
    let i = [i64::MIN, -1, 7];
    assert_eq!(decode::<i64>(&encode(&i)), i);
    assert_eq!(decode::<u64>(&encode(&[u64::MAX])), [u64::MAX]);
    assert_eq!(Op::Sum.apply(u64::MAX, 2), 1); // integers wrap
    assert_eq!(Op::Max.apply(2.0, f64::NAN), 2.0);
    let mut acc = vec![1i64, 5, -3];
    Op::Min.fold_into(&mut acc, &[0, 6, -4]);
    assert_eq!(acc, [0, 5, -4]);
}
