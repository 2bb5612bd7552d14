//! The same times through the schedule front end.

use super::plans::{same_as_schedule, schedule_ends};
use super::*;

fn all_cases(p: u32) -> Vec<Case> {
    let last = p - 1;
    vec![
        Case::Barrier,
        Case::Bcast { root: 0, n: 1, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: last, n: 100, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: 1 % p, n: 2 * p as usize + 1, algo: BcastAlgorithm::ScatterAllgather },
        Case::Reduce { root: 0, n: 1 },
        Case::Reduce { root: last, n: 3 },
        Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner },
        Case::Allreduce { n: 13, algo: AllreduceAlgorithm::Rabenseifner },
        Case::Gather { root: 0, b: 1 },
        Case::Gather { root: last, b: 24 },
        Case::Scatter { root: 0, b: 1 },
        Case::Scatter { root: last, b: 24 },
        Case::Allgather { b: 1, algo: AllgatherAlgorithm::Auto },
        Case::Allgather { b: 3, algo: AllgatherAlgorithm::Ring },
        Case::Alltoall { b: 1 },
        Case::Alltoallv { unit: 1 },
        Case::Alltoallv { unit: 40 },
        Case::Split,
    ]
}

/// Cases with messages above S (rendezvous handshake), algorithms picked by `Auto`
/// except where the small-message algorithm is forced on a large message.
fn large_cases(p: u32) -> Vec<Case> {
    let last = p - 1;
    vec![
        Case::Bcast { root: 0, n: 200_000, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: last, n: 100_000, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: 0, n: 100_000, algo: BcastAlgorithm::Binomial },
        Case::Reduce { root: 1 % p, n: 10_000 },
        Case::Allreduce { n: 20_000, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 10_001, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 10_000, algo: AllreduceAlgorithm::RecursiveDoubling },
        Case::Gather { root: 0, b: 40_000 },
        Case::Scatter { root: last, b: 40_000 },
        Case::Allgather { b: 70_000, algo: AllgatherAlgorithm::Auto },
        Case::Allgather { b: 70_000, algo: AllgatherAlgorithm::RecursiveDoubling },
        Case::Alltoall { b: 70_000 },
        Case::Alltoallv { unit: 30_000 },
    ]
}

#[test]
fn every_collective_matches_its_schedule() {
    for p in [2, 3, 8, 16] {
        for case in all_cases(p) {
            same_as_schedule(p, case);
        }
    }
}

#[test]
fn large_messages_match_their_schedules() {
    for p in [2, 3, 8, 16] {
        for case in large_cases(p) {
            same_as_schedule(p, case);
        }
    }
}

#[test]
fn schedules_reproduce_the_hand_derived_times() {
    // The hand-derived cases of a few tests above, through the schedule alone.
    assert_eq!(schedule_ends(3, Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto }), [14126, 10084, 12626]);
    assert_eq!(
        schedule_ends(3, Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner }),
        [28036, 23274, 17396]
    );
    assert_eq!(
        schedule_ends(3, Case::Bcast { root: 0, n: 3, algo: BcastAlgorithm::ScatterAllgather }),
        [21000, 16500, 17000]
    );
    assert_eq!(schedule_ends(8, Case::Scatter { root: 0, b: 1 }), [4500, 8500, 8506, 12506, 8518, 12518, 12524, 16524]);
    // The dissemination barrier is also `schedule::patterns::dissemination`.
    assert_eq!(ends(&run(&dissemination(16, 0), &defaults())), uniform(16, 22000));
}
