//! Two hidden programs that exercise the error paths end to end (CLI and Python
//! tests run them by name): one deadlocks, one reports a wrong answer. Neither is
//! listed by `netsens apps`.

use crate::registry::{App, Job, Size};
use netsens_core::engine::Progress;
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program_with_progress, Rank};
use netsens_core::Result;

pub const DEADLOCK: App = App {
    name: "_deadlock",
    description: "rank 0 waits for a message from the last rank that never comes (a test)",
    sizes: &Size::ALL,
    verifies: false,
    hidden: true,
    run: deadlock,
};

pub const WRONG_ANSWER: App = App {
    name: "_wrong-answer",
    description: "the last rank reports a wrong answer (a test)",
    sizes: &Size::ALL,
    verifies: false,
    hidden: true,
    run: wrong_answer,
};

fn deadlock(job: &Job<'_>, progress: &mut dyn FnMut(Progress) -> bool) -> Result<RunResult> {
    let program = |r: netsens_core::program::SimRank| async move {
        if r.rank() == 0 {
            r.recv(&r.world(), (r.size() - 1) as i32, 0).await;
        }
        Ok(())
    };
    run_program_with_progress(job.platform, job.ranks, job.opts, program, progress)
}

fn wrong_answer(job: &Job<'_>, progress: &mut dyn FnMut(Progress) -> bool) -> Result<RunResult> {
    let program = |r: netsens_core::program::SimRank| async move {
        r.compute(1000).await;
        if r.rank() + 1 == r.size() {
            return Err("checksum 41 != 42 (a deliberately wrong answer)".to_string());
        }
        Ok(())
    };
    run_program_with_progress(job.platform, job.ranks, job.opts, program, progress)
}
