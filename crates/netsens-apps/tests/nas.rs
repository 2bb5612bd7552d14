//! The NAS kernels (ft, is, mg) through the registry: they verify their answers at
//! tiny size, send exactly the messages derived by hand from their algorithms and
//! the collectives' (program/collectives/), and slow down when the overhead o rises.

mod common;
use common::{count, loggopsim, run, run_on, verified};
use netsens_core::error::Error;

#[test]
fn all_verify_at_tiny() {
    for (app, ranks) in [("ft", 2), ("ft", 3), ("ft", 8), ("is", 2), ("is", 3), ("is", 8), ("mg", 2), ("mg", 8)] {
        assert!(run(app, ranks).makespan_ps > 0, "{app} on {ranks} ranks");
    }
}

#[test]
fn mg_names_the_rank_counts_it_accepts() {
    match run_on(&loggopsim(&[]), "mg", 3) {
        Err(Error::Input(m)) => assert_eq!(
            m,
            "mg: 3 ranks cannot split the 32x32x32 grid of size tiny into blocks of whole coarse-level points; \
             accepted: powers of two from 1 to 4096"
        ),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn is_names_the_rank_counts_it_accepts() {
    match run_on(&loggopsim(&[]), "is", 4096) {
        Err(Error::Input(m)) => {
            assert_eq!(m, "is: size tiny has 65536 keys, at least 32 per rank; accepted: 1 to 2048 ranks")
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn each_slows_down_when_o_rises() {
    for app in ["ft", "is", "mg"] {
        let times: Vec<u64> = ["500ns", "5us", "20us"]
            .iter()
            .map(|o| run_on(&loggopsim(&[("o", o)]), app, 8).unwrap().0.makespan_ps)
            .collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}

// --- ft ---------------------------------------------------------------------------

/// (messages, bytes) each rank sent.
fn sent(r: &netsens_core::profile::RunResult) -> Vec<(u64, u64)> {
    r.ranks.iter().map(|k| (k.sent_messages, k.sent_bytes)).collect()
}

#[test]
fn ft_communicates_as_npb_by_hand() {
    // NPB 3.4 ft.f90, timed region, 1-D layout (np ≤ nz): fft(1) once, then per step
    // fft(−1) and checksum. Each fft has one transpose, an mpi_alltoall of
    // ntdivnp/np = nx·ny·nz/np² double complex (16 B) per peer; each checksum an
    // MPI_Reduce of one double complex to rank 0. 6 steps in classes S and W: 7
    // alltoalls, 6 reduces. On 8 ranks an alltoall is 7 messages per rank and a
    // binomial reduce one message from every rank but the root.
    // tiny = class S, 64³: 64³/8² = 4096 points, 65 536 B per peer.
    // small = class W, 128×128×32: 128·128·32/8² = 8192 points, 131 072 B per peer.
    let p = loggopsim(&[]);
    for (size, block) in [("tiny", 65_536u64), ("small", 131_072)] {
        let r = verified(&p, "ft", 8, size);
        let mut want = vec![(7 * 7 + 6, 7 * 7 * block + 6 * 16); 8];
        want[0] = (7 * 7, 7 * 7 * block);
        assert_eq!(sent(&r), want, "{size}");
        for rank in 0..8 {
            assert_eq!([count(&r, rank, "alltoallv"), count(&r, rank, "reduce")], [7, 6], "{size}");
            assert_eq!(count(&r, rank, "send"), 0, "all communication is collective");
        }
    }
    // 3 ranks at tiny: slabs of 21, 21, 22 planes (and columns). s sends d
    // |z_s|·64·|x_d| points: summed over s ≠ d, 16 B · 64 · (64² − (21² + 21² + 22²))
    // per transpose. The binomial reduce: ranks 1 and 2 each send to rank 0.
    let r = run("ft", 3);
    assert_eq!(r.messages, 7 * 3 * 2 + 6 * 2);
    assert_eq!(r.bytes, 7 * 16 * 64 * (4096 - 1366) + 6 * 2 * 16);
}

// --- is ---------------------------------------------------------------------------

#[test]
fn is_communicates_as_npb_by_hand() {
    // NPB 3.4 is.c, timed region and full_verify, 8 ranks. Each of the 10 iterations
    // of rank(): MPI_Allreduce of NUM_BUCKETS + TEST_ARRAY_SIZE (5) ints (recursive
    // doubling below S: 3 messages per rank), MPI_Alltoall of one int (7 messages of
    // 4 B), MPI_Alltoallv of the keys (7 messages). Then MPI_Reduce of a double to
    // rank 0 (8 B; binomial: every rank but the root sends once), the largest key (an
    // int, 4 B) to the next rank (all but rank 7), and MPI_Reduce of an int (4 B).
    // Class S (tiny): 2^9 buckets, (512 + 5)·4 = 2 068 B; class W (small): 2^10,
    // (1024 + 5)·4 = 4 116 B. Keys are 4 B; each rank ends up with about N/8 of them
    // and keeps about 1/8 of its own, so it sends about 7/8 · N/8 keys per iteration.
    let p = loggopsim(&[]);
    for (size, keys, counts) in [("tiny", 1u64 << 16, 2_068u64), ("small", 1 << 20, 4_116)] {
        let r = verified(&p, "is", 8, size);
        let iterations = 10 * (3 * counts + 7 * 4);
        let verify = |rank: u64| match rank {
            0 => (1, 4),
            7 => (2, 8 + 4),
            _ => (3, 8 + 4 + 4),
        };
        let per_rank_keys = 10 * 4 * keys * 7 / 64;
        for (rank, &(messages, bytes)) in sent(&r).iter().enumerate() {
            let (vm, vb) = verify(rank as u64);
            assert_eq!(messages, 10 * (3 + 7 + 7) + vm, "{size} rank {rank}");
            let key_bytes = bytes - iterations - vb;
            assert_eq!(key_bytes % 4, 0, "{size} rank {rank}");
            assert!(
                key_bytes.abs_diff(per_rank_keys) < per_rank_keys * 3 / 100,
                "{size} rank {rank}: {key_bytes} key bytes, about {per_rank_keys} expected"
            );
            let used = ["allreduce", "alltoall", "alltoallv", "reduce", "send"].map(|p| count(&r, rank as u32, p));
            assert_eq!(used, [10, 10, 10, 2, u64::from(rank < 7)], "{size} rank {rank}");
        }
        let all_keys = r.bytes - 8 * iterations - (0..8).map(|k| verify(k).1).sum::<u64>();
        assert!(all_keys.abs_diff(8 * per_rank_keys) < 8 * per_rank_keys / 100, "{size}: {all_keys} key bytes");
    }
}

// --- mg ---------------------------------------------------------------------------

/// Bytes one rank sends in one halo exchange of an m³ block when every axis has two
/// processes: two messages per axis, of m·m, (m+2)·m and (m+2)·(m+2) values of 8 B.
fn halo_bytes(m: u64) -> u64 {
    2 * 8 * (m * m + (m + 2) * m + (m + 2) * (m + 2))
}

#[test]
fn mg_communicates_as_npb_by_hand() {
    // NPB 3.4 mg.f90, timed region, 8 ranks as 2×2×2, 4 iterations, levels n … 2:
    // resid + norm2u3, then per iteration mg3P + resid, then norm2u3. comm3 ends
    // every rprj3, psinv and resid (interp's comm3_ex sends nothing when no process
    // is idle). mg3P over L levels: L − 1 restrictions (levels 1 … L−1), psinv at the
    // coarsest, resid + psinv at each of the L − 1 finer levels: 3L − 2, and the resid
    // after it: 3L − 1 per iteration, 1 + 4(3L − 1) in all. Per level over the run:
    // finest 1 + 4·3 = 13; each middle level 4·3 = 12; the coarsest 4·2 = 8.
    // Each comm3 is 2 messages per axis; norm2u3 is two MPI_Allreduce of one double
    // (recursive doubling: 3 messages of 8 B each), 4 in all.
    // tiny = S: 32³, L = 5, blocks 16³ … 1³: 13 + 3·12 + 8 = 57 exchanges.
    // small = W: 128³, L = 7, blocks 64³ … 1³: 13 + 5·12 + 8 = 81 exchanges.
    let p = loggopsim(&[]);
    for (size, finest) in [("tiny", 16u64), ("small", 64)] {
        let r = verified(&p, "mg", 8, size);
        let blocks = std::iter::successors(Some(finest), |&m| (m > 1).then_some(m / 2)).collect::<Vec<_>>();
        let exchanges = |level: usize| match level {
            0 => 13,
            l if l + 1 == blocks.len() => 8,
            _ => 12,
        };
        let total: u64 = (0..blocks.len()).map(exchanges).sum();
        assert_eq!(total, if size == "tiny" { 57 } else { 81 });
        let halo: u64 = blocks.iter().enumerate().map(|(l, &m)| exchanges(l) * halo_bytes(m)).sum();
        assert_eq!(sent(&r), vec![(6 * total + 4 * 3, halo + 4 * 3 * 8); 8], "{size}");
        for rank in 0..8 {
            assert_eq!(count(&r, rank, "allreduce"), 4, "{size}");
        }
        // Sizes fall by about 4 per level: the finest faces fill the largest bin of
        // the histogram, and nothing else does.
        let largest = r.histogram.last().expect("messages");
        assert_eq!(largest.messages, 8 * 13 * 6, "{size}");
    }
    // 2 ranks (2×1×1): only x has neighbours, 2 messages per exchange; y and z wrap
    // locally. Blocks 16×32×32, levels 32 … 2, 57 exchanges again; each allreduce is
    // one message.
    let r = run("mg", 2);
    assert_eq!(r.messages, 2 * (57 * 2 + 4));
}
