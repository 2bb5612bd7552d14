//! The cases: one collective call with a chosen algorithm and size, run as a rank
//! program, and the end time of every rank.

use super::*;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Case {
    Barrier,
    /// `n` bytes from `root`.
    Bcast {
        root: u32,
        n: usize,
        algo: BcastAlgorithm,
    },
    /// `n` u64 to `root`.
    Reduce {
        root: u32,
        n: usize,
    },
    /// `n` u64.
    Allreduce {
        n: usize,
        algo: AllreduceAlgorithm,
    },
    /// Blocks of `b` bytes.
    Gather {
        root: u32,
        b: usize,
    },
    Scatter {
        root: u32,
        b: usize,
    },
    Allgather {
        b: usize,
        algo: AllgatherAlgorithm,
    },
    Alltoall {
        b: usize,
    },
    /// Block i → j has 1 + step·`unit` bytes, where step is the pairwise-exchange
    /// step that carries it (i XOR j for powers of two, else (j − i) mod p).
    Alltoallv {
        unit: usize,
    },
    /// Every rank color 0, key −rank (one allgather of 8-byte blocks).
    Split,
}

pub(crate) fn step_of(i: u32, j: u32, p: u32) -> u32 {
    if p.is_power_of_two() {
        i ^ j
    } else {
        (j + p - i) % p
    }
}

pub(crate) fn vsize(i: u32, j: u32, p: u32, unit: usize) -> usize {
    1 + step_of(i, j, p) as usize * unit
}

pub(crate) async fn run_case(r: &SimRank, case: Case) -> Result<(), String> {
    let w = r.world();
    let (p, me) = (r.size(), r.rank());
    match case {
        Case::Barrier => barrier(r, &w).await,
        Case::Bcast { root, n, algo } => {
            let data: Vec<u8> = (0..n).map(|i| if me == root { (i % 251) as u8 } else { 0 }).collect();
            let got = bcast_with(r, &w, root, data, algo).await;
            if got.len() != n || got.iter().enumerate().any(|(i, &x)| x != (i % 251) as u8) {
                return Err("bcast delivered the wrong bytes".into());
            }
        }
        Case::Reduce { root, n } => {
            let got = reduce(r, &w, root, &vec![me as u64 + 1; n], Op::Sum).await;
            let want = (p as u64) * (p as u64 + 1) / 2;
            if (me == root) != got.is_some() || got.is_some_and(|v| v != vec![want; n]) {
                return Err("reduce result is wrong".into());
            }
        }
        Case::Allreduce { n, algo } => {
            let got = allreduce_with(r, &w, &vec![me as u64 + 1; n], Op::Sum, algo).await;
            if got != vec![(p as u64) * (p as u64 + 1) / 2; n] {
                return Err("allreduce result is wrong".into());
            }
        }
        Case::Gather { root, b } => {
            let got = gather(r, &w, root, vec![me as u8; b]).await;
            let want: Vec<u8> = (0..p).flat_map(|i| vec![i as u8; b]).collect();
            if (me == root) != got.is_some() || got.is_some_and(|v| v != want) {
                return Err("gather result is wrong".into());
            }
        }
        Case::Scatter { root, b } => {
            let data: Vec<u8> = if me == root { (0..p).flat_map(|i| vec![i as u8; b]).collect() } else { vec![] };
            if scatter(r, &w, root, data, b).await != vec![me as u8; b] {
                return Err("scatter result is wrong".into());
            }
        }
        Case::Allgather { b, algo } => {
            let want: Vec<u8> = (0..p).flat_map(|i| vec![i as u8; b]).collect();
            if allgather_with(r, &w, vec![me as u8; b], algo).await != want {
                return Err("allgather result is wrong".into());
            }
        }
        Case::Alltoall { b } => {
            let data: Vec<u8> = (0..p).flat_map(|j| vec![(me * 16 + j) as u8; b]).collect();
            let want: Vec<u8> = (0..p).flat_map(|i| vec![(i * 16 + me) as u8; b]).collect();
            if alltoall(r, &w, data).await != want {
                return Err("alltoall result is wrong".into());
            }
        }
        Case::Alltoallv { unit } => {
            let blocks = (0..p).map(|j| vec![(me * 16 + j) as u8; vsize(me, j, p, unit)]).collect();
            let got = alltoallv(r, &w, blocks).await;
            for (i, blk) in got.iter().enumerate() {
                if *blk != vec![(i as u32 * 16 + me) as u8; vsize(i as u32, me, p, unit)] {
                    return Err(format!("alltoallv block from {i} is wrong"));
                }
            }
        }
        Case::Split => {
            let c = split(r, &w, 0, -(me as i32)).await.ok_or("split gave no communicator")?;
            if c.rank() != p - 1 - me {
                return Err(format!("split ranked {me} as {}", c.rank()));
            }
        }
    }
    Ok(())
}

pub(crate) fn program_ends(p: u32, case: Case) -> Vec<u64> {
    ends(&go(p, move |r| async move { run_case(&r, case).await }))
}
