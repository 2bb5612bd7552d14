//! Helpers shared by the application tests.
#![allow(dead_code)]

use netsens_apps::registry::{run_app, AppInfo};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;

/// A preset as it is, plus overrides.
pub fn platform(preset: &str, overrides: &[(&str, &str)]) -> Platform {
    let mut p = Platform::resolve(preset).expect("a preset");
    p.set_all(overrides).expect("valid overrides");
    p
}

/// The `loggopsim` preset (L=2500 o=1500 g=1000 ns, G=6 ns/B, O=0, S=65535 B) with
/// the handshake rendezvous, plus overrides.
pub fn loggopsim(overrides: &[(&str, &str)]) -> Platform {
    let mut p = platform("loggopsim", &[("rendezvous", "handshake")]);
    p.set_all(overrides).expect("valid overrides");
    p
}

/// `app` at `size` on `ranks` ranks of `p`, seed 0.
pub fn run_sized(p: &Platform, app: &str, ranks: u32, size: &str) -> Result<(RunResult, AppInfo), Error> {
    run_app(app, ranks, size, 0, p, &RunOptions::default(), &mut |_| true)
}

/// `app` at size tiny on `ranks` ranks of `p`, seed 0.
pub fn run_on(p: &Platform, app: &str, ranks: u32) -> Result<(RunResult, AppInfo), Error> {
    run_sized(p, app, ranks, "tiny")
}

/// `app` at `size` on `p`, which must run and verify its answer.
pub fn verified(p: &Platform, app: &str, ranks: u32, size: &str) -> RunResult {
    let (r, info) = run_sized(p, app, ranks, size).expect("the app runs");
    assert_eq!(info, AppInfo { app: app.into(), size: size.into(), verified: true });
    r
}

/// `app` at size tiny on `loggopsim`, which must verify its answer.
pub fn run(app: &str, ranks: u32) -> RunResult {
    verified(&loggopsim(&[]), app, ranks, "tiny")
}

/// How often `rank` used `primitive`.
pub fn count(r: &RunResult, rank: u32, primitive: &str) -> u64 {
    r.primitives.iter().find(|p| p.rank == rank && p.primitive == primitive).map_or(0, |p| p.count)
}
