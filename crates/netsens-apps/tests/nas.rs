//! The NAS kernels (ft, is, mg) through the registry: they verify their answers at
//! tiny size, send exactly the messages derived by hand from their algorithms and
//! the collectives' (collectives.rs), and slow down when the overhead o rises.

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
fn mg_halos_by_hand() {
    // tiny: 32³, 4 iterations, 8 ranks as 2×2×2: levels 32, 16, 8, 4, 2 (L = 5),
    // blocks of 16³, 8³, 4³, 2³, 1³. Halo exchanges: the initial residual (level 0);
    // per iteration the restrictions (levels 1–4), the smoothing at level 4, then
    // prolong, residual and smoothing at levels 3, 2, 1, 0, and the residual at
    // level 0: 4L − 2 = 18. Per level over the run: 17, 16, 16, 16, 8 (73 in all).
    // Each is 6 messages per rank; the norm's allreduce (8 B) 3 more.
    let r = run("mg", 8);
    assert_eq!(r.messages, 8 * (73 * 6 + 3));
    let per_level: [(u64, u64); 5] = [(16, 17), (8, 16), (4, 16), (2, 16), (1, 8)];
    let halo: u64 = per_level.iter().map(|&(m, n)| n * halo_bytes(m)).sum();
    assert_eq!(r.bytes, 8 * (halo + 3 * 8));
    // Sizes fall by about 4 per level: the level-0 faces (2048 to 2592 B) fill the
    // largest bin of the histogram, and nothing else does.
    let largest = r.histogram.last().expect("messages");
    assert_eq!((largest.lo_bytes, largest.messages), (2048, 8 * 17 * 6));
    // 2 ranks (2×1×1): only x has neighbours, 2 messages per exchange; y and z wrap
    // locally. Blocks 16×32×32, levels 32 … 2, 73 exchanges again.
    let r = run("mg", 2);
    assert_eq!(r.messages, 2 * (73 * 2 + 1));
}
