//! End times derived by hand from the algorithms and LOGGP.md.

use super::*;

fn check_by_hand(case: Case, p: u32, want: &[u64]) {
    assert_eq!(program_ends(p, case), want, "{case:?} at {p} ranks");
}

#[test]
fn barrier_by_hand() {
    // Dissemination, 0-byte messages (k = 0): in every round each rank sends at t and
    // receives a message sent at t by another rank: arrives t + 4000 on an idle CPU
    // (its own send left the CPU at t + 1500), done t + 5500. ⌈log2 p⌉ rounds × 5500
    // on every rank (LOGGP.md vector 3 at 16 ranks).
    for (p, rounds) in [(2, 1), (3, 2), (8, 3), (16, 4)] {
        check_by_hand(Case::Barrier, p, &uniform(p, rounds * 5500));
    }
}

#[test]
fn bcast_binomial_by_hand() {
    // Binomial tree, root 0, 1 byte (k = 0, T = 5500). A rank with relative rank vr
    // gets the data at f(vr) and then starts all its sends at once, to vr + m for
    // m = lowbit(vr)/2, …, 1 (largest subtree first; the root from the largest power
    // of two < p). Back-to-back sends start every max(o, g + 6k) = 1500, so the child
    // sent to j-th (from 0) gets the data at f(parent) + 1500·j + 5500; a rank with c
    // children ends at f + 1500·(c−1) + 1500, a leaf at f. Nothing else queues: every
    // rank receives one message, on an idle CPU.
    let case = |n| Case::Bcast { root: 0, n, algo: BcastAlgorithm::Auto };
    // p=2: 0 → 1 at 0: ends 1500, 5500.
    check_by_hand(case(1), 2, &[1500, 5500]);
    // p=3: 0 sends to 2 at 0, to 1 at 1500 (end 3000): f(2) = 5500, f(1) = 7000.
    check_by_hand(case(1), 3, &[3000, 7000, 5500]);
    // p=8: 0 → 4, 2, 1 at 0, 1500, 3000 (end 4500): f = 5500, 7000, 8500.
    //      4 → 6, 5 at 5500, 7000 (end 8500): f(6) = 11000, f(5) = 12500.
    //      2 → 3 at 7000 (end 8500): f(3) = 12500.  6 → 7 at 11000 (end 12500): f(7) = 16500.
    check_by_hand(case(1), 8, &[4500, 8500, 8500, 12500, 8500, 12500, 12500, 16500]);
    // p=16: 0 → 8, 4, 2, 1 at 0 … 4500 (end 6000); f(8) = 5500, f(4) = 7000,
    //      f(2) = 8500, f(1) = 10000. 8 → 12, 10, 9 at 5500, 7000, 8500 (end 10000):
    //      f = 11000, 12500, 14000. 4 → 6, 5 at 7000, 8500 (end 10000): f = 12500,
    //      14000. 2 → 3 at 8500 (end 10000): f(3) = 14000. 12 → 14, 13 at 11000,
    //      12500 (end 14000): f = 16500, 18000. 10 → 11 at 12500 (end 14000): 18000.
    //      6 → 7 at 12500 (end 14000): 18000. 14 → 15 at 16500 (end 18000): 22000.
    //      In closed form: end(vr) = 6000 + 4000·popcount(vr).
    let p16: Vec<u64> = (0..16u32).map(|v| 6000 + 4000 * v.count_ones() as u64).collect();
    assert_eq!(
        p16,
        [6000, 10000, 10000, 14000, 10000, 14000, 14000, 18000, 10000, 14000, 14000, 18000, 14000, 18000, 18000, 22000]
    );
    check_by_hand(case(1), 16, &p16);
    // Root 3 at 8 ranks: the same tree on relative ranks: rank r ends as vr = r − 3 did.
    let p8 = [4500, 8500, 8500, 12500, 8500, 12500, 12500, 16500];
    let rotated: Vec<u64> = (0..8).map(|r| p8[(r + 8 - 3) % 8]).collect();
    check_by_hand(Case::Bcast { root: 3, n: 1, algo: BcastAlgorithm::Binomial }, 8, &rotated);
    // 100 bytes (k = 99, 6k = 594) at 8 ranks: now the NIC gap g + 6k = 1594 exceeds
    // o = 1500, so back-to-back sends start every 1594; T = 5500 + 594 = 6094.
    //      0 → 4, 2, 1 at 0, 1594, 3188 (end 4688): f = 6094, 7688, 9282.
    //      4 → 6, 5 at 6094, 7688 (end 9188): f(6) = 12188, f(5) = 13782.
    //      2 → 3 at 7688 (end 9188): f(3) = 13782.  6 → 7 at 12188 (end 13688): 18282.
    check_by_hand(case(100), 8, &[4688, 9282, 9188, 13782, 9188, 13782, 13688, 18282]);
}

#[test]
fn bcast_scatter_allgather_by_hand() {
    // Chosen explicitly with small messages (n = p bytes: one 1-byte chunk per rank).
    let case = |n| Case::Bcast { root: 0, n, algo: BcastAlgorithm::ScatterAllgather };
    // p=2: scatter 0 → 1 (chunk 1) at 0: 0's CPU free at 1500, 1 done at 5500.
    // Ring step 0: 0 posts recv(1) and sends chunk 0 at 1500 (CPU 3000), arriving at 1
    // at 5500 — the instant 1's scatter receive is done. That arrival was created
    // before 1's ring operations, so it is processed first: 1's CPU busy until 7000,
    // the message unexpected; 1's receive matches it at once; 1's send waits for the
    // CPU: 7000 → CPU 8500 (1 ends 8500), arrives at 0 at 11000, done 12500.
    check_by_hand(case(2), 2, &[12500, 8500]);
    // p=3: scatter: 0 → 2 at 0, 0 → 1 at 1500 (0's CPU 3000); f(2) = 5500, f(1) = 7000.
    // Ring (right = r+1), step 0 sends a rank's own chunk, step 1 the chunk it got:
    //  0: step 0 at 3000: sends to 1 (CPU 4500), arriving 7000.
    //  2: step 0 at 5500: sends to 0 (CPU 7000), arriving 9500.
    //  1: its scatter receive is done at 7000, the instant 0's ring message arrives
    //     (an older event): processed first, 7000 → 8500; 1's send waits: 8500 → CPU
    //     10000, arriving at 2 at 12500. 1's step 0 is done at 10000.
    //  0: 2's message arrives 9500 on an idle CPU → 11000. Step 1 at 11000: sends to
    //     1 (CPU 12500), arriving 15000.
    //  1: step 1 at 10000: sends to 2 (CPU 11500), arriving 14000; 0's message
    //     arrives 15000 → done 16500 = 1's end.
    //  2: 1's step-0 message arrives 12500 → 14000 (step 0 done); at 14000 1's step-1
    //     message arrives (older event) → CPU 15500, unexpected; 2's step-1 receive
    //     matches it, its send waits: 15500 → CPU 17000 = 2's end; arrives at 0 19500.
    //  0: done 19500 + 1500 = 21000.
    check_by_hand(case(3), 3, &[21000, 16500, 17000]);
}

#[test]
fn reduce_by_hand() {
    // Binomial reduce to 0 of one u64 (8 bytes: k = 7, T = 5542, processing 1542).
    // A rank with bit `mask` of vr clear receives from vr + mask in turn (mask = 1, 2,
    // …), then sends to its parent. Powers of two: a subtree of height h is reduced
    // at R(h) = h·5542 — the child of height i sends at i·5542 and its message arrives
    // at i·5542 + 4000, after the previous child's receive (done at i·5542): nothing
    // queues. A rank of height h < log2 p ends at R(h) + 1500 (its send), the root at
    // log2(p)·5542.
    let case = Case::Reduce { root: 0, n: 1 };
    check_by_hand(case, 2, &[5542, 1500]);
    // p=3: 0's children 1 and 2 (2 has none: 3 ≥ p) both send at 0 and both messages
    // arrive at 4000; 1's (older) is processed 4000 → 5542 and completes 0's first
    // receive; 2's finds the CPU busy and is processed at 5542 → 7084 (unexpected, and
    // 0's second receive, posted at 5542, matches it): 0 ends at 7084.
    check_by_hand(case, 3, &[7084, 1500, 1500]);
    // p=8: height 0 (odd) 1500; height 1 (2, 6): 5542 + 1500 = 7042; height 2 (4):
    // 11084 + 1500 = 12584; root 3·5542 = 16626.
    check_by_hand(case, 8, &[16626, 1500, 7042, 1500, 12584, 1500, 7042, 1500]);
    // p=16: as p=8, plus height 3 (8): 16626 + 1500 = 18126; root 4·5542 = 22168.
    let p16: Vec<u64> = (0..16u32)
        .map(|v| match v {
            0 => 22168,
            _ => v.trailing_zeros() as u64 * 5542 + 1500,
        })
        .collect();
    assert_eq!(&p16[..9], [22168, 1500, 7042, 1500, 12584, 1500, 7042, 1500, 18126]);
    check_by_hand(case, 16, &p16);
}

#[test]
fn allreduce_recursive_doubling_by_hand() {
    // One u64 (k = 7): powers of two do log2 p symmetric exchanges of 5542 each.
    let case = Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto };
    check_by_hand(case, 2, &uniform(2, 5542));
    check_by_hand(case, 8, &uniform(8, 3 * 5542));
    check_by_hand(case, 16, &uniform(16, 4 * 5542));
    // p=3: pof2 = 2, rem = 1: 0 folds into 1; 1 (new rank 0) and 2 (new rank 1)
    // exchange; 1 hands the result back to 0.
    //  t=0: 0 sends to 1 (CPU 1500), arriving 4000. 2 posts recv(1) and sends to 1
    //       (CPU 1500), arriving 4000 too.
    //  4000: 0's message (older) completes 1's receive: CPU 5542. 1 then posts recv(2)
    //       and its send to 2, both at 5542. 2's message found the CPU busy and is
    //       processed at 5542 (an older event than 1's new operations): CPU 7084,
    //       unexpected; 1's receive matches it; 1's send waits for the CPU.
    //  7084: 1 sends to 2: CPU 8584; arrives 11084, 2 done 11084 + 1542 = 12626.
    //  8584: 1 sends the result to 0: CPU 10084 = 1's end; arrives 12584, 0 done
    //       12584 + 1542 = 14126.
    check_by_hand(case, 3, &[14126, 10084, 12626]);
}

#[test]
fn allreduce_rabenseifner_by_hand() {
    // Chosen explicitly with 16 u64 (128 bytes). Powers of two: a reduce-scatter of
    // log2 p symmetric exchanges of 64, 32, … bytes (half the range each), then an
    // allgather of the same sizes in reverse. T(64 B) = 5500 + 6·63 = 5878,
    // T(32) = 5686, T(16) = 5590, T(8) = 5542; NIC gaps (≤ 1378) never bind.
    let case = Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner };
    check_by_hand(case, 2, &uniform(2, 2 * 5878));
    check_by_hand(case, 8, &uniform(8, 2 * (5878 + 5686 + 5590)));
    check_by_hand(case, 16, &uniform(16, 2 * (5878 + 5686 + 5590 + 5542)));
    // p=3: 0 folds its 128 bytes (k = 127, 6k = 762) into 1; 1 and 2 run the
    // two-rank algorithm on 8-element halves (64 bytes, 6k = 378).
    //  t=0: 0 sends 128 B to 1 (CPU 1500), arriving 4000. 2 (upper new rank) keeps
    //       the upper half and sends the lower (64 B) to 1 (CPU 1500), arriving 4000.
    //  4000: 0's message (older): 1's CPU until 4000 + 1500 + 762 = 6262.
    //  6262: 2's message (deferred) → 1's CPU 6262 + 1878 = 8140, unexpected; 1's
    //       reduce-scatter receive matches it, its send (64 B) waits: 8140 → CPU
    //       9640, NIC 8140 + 1378 = 9518; arrives at 2 at 12140.
    //  9640: 1's allgather step: sends its reduced half (64 B): CPU 11140, arrives at
    //       2 at 13640.
    //  12140: 2 processes 1's first message → 14018 (2's reduce-scatter done).
    //  13640: 1's second message finds 2 busy; at 14018 it is processed first (older
    //       than 2's allgather operations): CPU 15896, unexpected; 2's receive matches
    //       it and 2's send waits: 15896 → CPU 17396 = 2's end; arrives at 1 at 19896.
    //  19896: 1 processes it → 21774; then the fold-out: 128 B to 0 at 21774, CPU
    //       23274 = 1's end; arrives 25774; 0 done 25774 + 2262 = 28036.
    check_by_hand(case, 3, &[28036, 23274, 17396]);
}

#[test]
fn gather_by_hand() {
    // Binomial gather to 0 of 1-byte blocks: as the reduce, but a rank of height h
    // forwards 2^h bytes (k = 2^h − 1). Powers of two: R(0) = 0, R(h+1) = R(h) +
    // 5500 + 6·(2^h − 1): R(1) = 5500, R(2) = 11006, R(3) = 16524, R(4) = 22066
    // (each child's message arrives after the previous receive is done, as in the
    // reduce). A rank of height h < log2 p ends at R(h) + 1500, the root at R(log2 p).
    let case = Case::Gather { root: 0, b: 1 };
    check_by_hand(case, 2, &[5500, 1500]);
    // p=3: both leaves' 1-byte messages arrive at 4000: 4000 → 5500, then 5500 → 7000.
    check_by_hand(case, 3, &[7000, 1500, 1500]);
    check_by_hand(case, 8, &[16524, 1500, 7000, 1500, 12506, 1500, 7000, 1500]);
    let r = [0u64, 5500, 11006, 16524, 22066];
    let p16: Vec<u64> = (0..16u32).map(|v| if v == 0 { r[4] } else { r[v.trailing_zeros() as usize] + 1500 }).collect();
    assert_eq!(&p16[..9], [22066, 1500, 7000, 1500, 12506, 1500, 7000, 1500, 18024]);
    check_by_hand(case, 16, &p16);
}

#[test]
fn scatter_by_hand() {
    // Binomial scatter from 0 of 1-byte blocks: the bcast tree, but the message to the
    // child vr + m carries its subtree's min(m, p − vr − m) blocks (k = blocks − 1).
    // Sends start every 1500 (g + 6k ≤ 1042 < o); a child sent to at t gets its data
    // at t + 5500 + 6k.
    let case = Case::Scatter { root: 0, b: 1 };
    check_by_hand(case, 2, &[1500, 5500]);
    check_by_hand(case, 3, &[3000, 7000, 5500]);
    // p=8: 0 → 4 (4 B) at 0, → 2 (2 B) at 1500, → 1 at 3000 (end 4500):
    //      f(4) = 5518, f(2) = 7006, f(1) = 8500.
    //      4 → 6 (2 B) at 5518, → 5 at 7018 (end 8518): f(6) = 11024, f(5) = 12518.
    //      2 → 3 at 7006 (end 8506): f(3) = 12506.  6 → 7 at 11024 (end 12524): 16524.
    check_by_hand(case, 8, &[4500, 8500, 8506, 12506, 8518, 12518, 12524, 16524]);
    // p=16: 0 → 8 (8 B), 4 (4 B), 2 (2 B), 1 at 0, 1500, 3000, 4500 (end 6000):
    //      f(8) = 5542, f(4) = 7018, f(2) = 8506, f(1) = 10000.
    //   8 → 12 (4 B), 10 (2 B), 9 at 5542, 7042, 8542 (end 10042): 11060, 12548, 14042.
    //   4 → 6 (2 B), 5 at 7018, 8518 (end 10018): f(6) = 12524, f(5) = 14018.
    //   2 → 3 at 8506 (end 10006): f(3) = 14006.
    //   12 → 14 (2 B), 13 at 11060, 12560 (end 14060): f(14) = 16566, f(13) = 18060.
    //   10 → 11 at 12548 (end 14048): 18048.  6 → 7 at 12524 (end 14024): 18024.
    //   14 → 15 at 16566 (end 18066): f(15) = 22066.
    check_by_hand(
        case,
        16,
        &[
            6000, 10000, 10006, 14006, 10018, 14018, 14024, 18024, 10042, 14042, 14048, 18048, 14060, 18060, 18066,
            22066,
        ],
    );
}

#[test]
fn allgather_by_hand() {
    // Recursive doubling, 1-byte blocks: powers of two exchange 1, 2, 4, … bytes,
    // symmetric: Σ_j (5500 + 6·(2^j − 1)) = 5500·log2 p + 6·(p − 1 − log2 p).
    let case = Case::Allgather { b: 1, algo: AllgatherAlgorithm::Auto };
    check_by_hand(case, 2, &uniform(2, 5500));
    check_by_hand(case, 8, &uniform(8, 16500 + 24));
    check_by_hand(case, 16, &uniform(16, 22000 + 66));
    // p=3: as the allreduce at 3 ranks with other sizes: 0's block (1 B) reaches 1
    // at 4000 → 5500; 2's 1-byte block, also arriving 4000, is processed 5500 → 7000;
    // 1 sends ranks 0–1's blocks (2 B) to 2 at 7000 (CPU 8500, NIC 8006), arriving
    // 11000, 2 done 11000 + 1506 = 12506; then all 3 B to 0 at 8500 (CPU 10000),
    // arriving 12500, 0 done 12500 + 1512 = 14012.
    check_by_hand(case, 3, &[14012, 10000, 12506]);
    // Ring (chosen explicitly): p − 1 symmetric steps of 5500.
    for p in [2, 3, 8, 16] {
        check_by_hand(Case::Allgather { b: 1, algo: AllgatherAlgorithm::Ring }, p, &uniform(p, (p as u64 - 1) * 5500));
    }
}

#[test]
fn alltoall_by_hand() {
    // Pairwise exchange, 1-byte blocks: p − 1 symmetric steps (XOR partners for powers
    // of two, else send to me+i / receive from me−i): every rank (p − 1)·5500.
    for p in [2, 3, 8, 16] {
        check_by_hand(Case::Alltoall { b: 1 }, p, &uniform(p, (p as u64 - 1) * 5500));
    }
    // Alltoallv with the block carried in step d of 1 + d bytes: step d is still
    // symmetric, 5500 + 6d; in all 5500·(p − 1) + 3·p·(p − 1).
    for (p, t) in [(2, 5506), (3, 11018), (8, 38668), (16, 83220)] {
        assert_eq!(t, 5500 * (p - 1) + 3 * p * (p - 1));
        check_by_hand(Case::Alltoallv { unit: 1 }, p as u32, &uniform(p as u32, t));
    }
}

#[test]
fn split_by_hand() {
    // An allgather (recursive doubling) of 8-byte (color, key) blocks; deriving the
    // communicator costs nothing. Powers of two: 8, 16, 32, 64 bytes per step:
    // 5542, 5590, 5686, 5878.
    check_by_hand(Case::Split, 2, &uniform(2, 5542));
    check_by_hand(Case::Split, 8, &uniform(8, 5542 + 5590 + 5686));
    check_by_hand(Case::Split, 16, &uniform(16, 5542 + 5590 + 5686 + 5878));
    // p=3 (as the allgather at 3): 0's 8 B → 1 at 4000 → 5542; 2's 8 B processed
    // 5542 → 7084; 1 sends 16 B to 2 at 7084 (CPU 8584, NIC 8174): 2 done 11084 +
    // 1590 = 12674; 1 sends 24 B to 0 at 8584 (CPU 10084): 0 done 12584 + 1638 = 14222.
    check_by_hand(Case::Split, 3, &[14222, 10084, 12674]);
}
