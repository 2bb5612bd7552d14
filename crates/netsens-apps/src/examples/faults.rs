//! Two hidden programs that exercise the error paths end to end (CLI and Python
//! tests run them by name): one deadlocks, one reports a wrong answer. Neither is
//! listed by `netsens apps`.

use crate::app::{App, Backend, Job, Size};
use netsens_core::program::Rank;
use netsens_core::Result;

pub const DEADLOCK: App = App {
    name: "_deadlock",
    description: "rank 0 waits for a message from the last rank that never comes (a test)",
    sizes: &Size::ALL,
    verifies: false,
    hidden: true,
};

pub const WRONG_ANSWER: App = App {
    name: "_wrong-answer",
    description: "the last rank reports a wrong answer (a test)",
    sizes: &Size::ALL,
    verifies: false,
    hidden: true,
};

pub(crate) fn deadlock<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let program = |r: B::Rank| async move {
        if r.rank() == 0 {
            r.recv(&r.world(), (r.size() - 1) as i32, 0).await;
        }
        Ok(())
    };
    backend.run(job.platform, program)
}

pub(crate) fn wrong_answer<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let program = |r: B::Rank| async move {
        r.compute(1000).await;
        if r.rank() + 1 == r.size() {
            return Err("checksum 41 != 42 (a deliberately wrong answer)".to_string());
        }
        Ok(())
    };
    backend.run(job.platform, program)
}
