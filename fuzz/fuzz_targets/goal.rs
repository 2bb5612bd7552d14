//! The GOAL parser on any text: a schedule or an error, never a panic. Small schedules
//! are also run on the loggopsim preset: a result or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsens_core::engine::RunOptions;
use netsens_core::platform::presets;
use netsens_core::schedule::{executor::run_schedule, goal::parse_goal};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(schedule) = parse_goal(text, "fuzz.goal") else { return };
    if schedule.num_ranks <= 64 && schedule.num_ops() <= 10_000 {
        let _ = run_schedule(&schedule, &presets::get("loggopsim").unwrap(), &RunOptions::default());
    }
});
