//! Algorithm choice: above S the large-message algorithms, picked automatically
//! or explicitly.

use super::*;

fn coll_sends(r: &RunResult) -> u64 {
    r.primitives.iter().filter(|x| x.primitive == "coll_send").map(|x| x.count).sum()
}

fn sends_of(p: u32, case: Case) -> (Vec<u64>, u64) {
    let r = go(p, move |r| async move { run_case(&r, case).await });
    (ends(&r), coll_sends(&r))
}

#[test]
fn above_s_algorithms_are_chosen_automatically_and_explicitly() {
    let p = 8;
    // bcast: binomial sends p − 1 messages; scatter + allgather p − 1 scatter pieces
    // and p·(p − 1) ring messages.
    let bc = |n, algo| Case::Bcast { root: 0, n, algo };
    let (t_auto, m_auto) = sends_of(p, bc(S + 1, BcastAlgorithm::Auto));
    let (t_sag, m_sag) = sends_of(p, bc(S + 1, BcastAlgorithm::ScatterAllgather));
    let (t_bin, m_bin) = sends_of(p, bc(S + 1, BcastAlgorithm::Binomial));
    assert_eq!((m_auto, m_sag, m_bin), (7 + 56, 7 + 56, 7));
    assert_eq!(t_auto, t_sag);
    assert_ne!(t_auto, t_bin);
    assert_eq!(sends_of(p, bc(S, BcastAlgorithm::Auto)).1, 7, "S bytes exactly stay binomial");

    // allreduce: recursive doubling sends log2 p = 3 messages per rank, Rabenseifner 6.
    let ar = |n, algo| Case::Allreduce { n, algo };
    let big = S / 8 + 1; // 8 × 8192 = 65536 > S
    let (t_auto, m_auto) = sends_of(p, ar(big, AllreduceAlgorithm::Auto));
    let (t_rab, m_rab) = sends_of(p, ar(big, AllreduceAlgorithm::Rabenseifner));
    let (t_rd, m_rd) = sends_of(p, ar(big, AllreduceAlgorithm::RecursiveDoubling));
    assert_eq!((m_auto, m_rab, m_rd), (48, 48, 24));
    assert_eq!(t_auto, t_rab);
    assert_ne!(t_auto, t_rd);
    assert_eq!(sends_of(p, ar(big - 1, AllreduceAlgorithm::Auto)).1, 24, "8 × 8191 bytes ≤ S");
    // Explicit Rabenseifner on a small vector runs it even there.
    assert_eq!(sends_of(p, ar(16, AllreduceAlgorithm::Rabenseifner)).1, 48);

    // allgather: recursive doubling 3 messages per rank, ring 7 — chosen by the
    // gathered size p·b against S.
    let ag = |b, algo| Case::Allgather { b, algo };
    let (t_auto, m_auto) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::Auto));
    let (t_ring, m_ring) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::Ring));
    let (_, m_rd) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::RecursiveDoubling));
    assert_eq!((m_auto, m_ring, m_rd), (56, 56, 24));
    assert_eq!(t_auto, t_ring);
    assert_eq!(sends_of(p, ag(S / 8, AllgatherAlgorithm::Auto)).1, 24);
}
