//! The same run, repeated, gives a bit-identical result: noise is drawn from seeded
//! streams, never from the clock or a hash order.

use netsens_core::engine::RunOptions;
use netsens_core::platform::{presets, Dist};
use netsens_core::schedule::executor::run_schedule;
use netsens_core::schedule::goal::parse_goal;
use netsens_core::time::{NS, US};

#[test]
fn a_noisy_run_repeated_100_times_is_bit_identical() {
    let path = format!("{}/../../examples/goal/dissemination16.goal", env!("CARGO_MANIFEST_DIR"));
    let schedule = parse_goal(&std::fs::read_to_string(&path).unwrap(), "dissemination16.goal").unwrap();
    let mut platform = presets::get("loggopsim").unwrap();
    platform.noise.latency_jitter = Dist::Uniform(0, 2 * US);
    platform.noise.detour_interval = Dist::Exponential(3 * US);
    platform.noise.detour_duration = Dist::Constant(500 * NS);
    let opts = RunOptions { seed: 7, ..RunOptions::default() };
    let first = serde_json::to_string(&run_schedule(&schedule, &platform, &opts).unwrap()).unwrap();
    for _ in 1..100 {
        let again = serde_json::to_string(&run_schedule(&schedule, &platform, &opts).unwrap()).unwrap();
        assert_eq!(again, first);
    }
    // The noise is really there: another seed gives another result.
    let other = RunOptions { seed: 8, ..opts };
    assert_ne!(serde_json::to_string(&run_schedule(&schedule, &platform, &other).unwrap()).unwrap(), first);
}
