//! Helpers shared by the application tests.
#![allow(dead_code)]

use netsens_apps::registry::{run_app, AppInfo};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;

/// The `loggopsim` preset (L=2500 o=1500 g=1000 ns, G=6 ns/B, O=0, S=65535 B) with
/// the handshake rendezvous, plus overrides.
pub fn loggopsim(overrides: &[(&str, &str)]) -> Platform {
    let mut p = Platform::resolve("loggopsim").expect("a preset");
    p.set("rendezvous", "handshake").expect("a protocol");
    p.set_all(overrides).expect("valid overrides");
    p
}

/// `app` at size tiny on `ranks` ranks of `p`, seed 0.
pub fn run_on(p: &Platform, app: &str, ranks: u32) -> Result<(RunResult, AppInfo), Error> {
    run_app(app, ranks, "tiny", 0, p, &RunOptions::default(), &mut |_| true)
}

/// `app` at size tiny on `loggopsim`, which must verify its answer.
pub fn run(app: &str, ranks: u32) -> RunResult {
    let (r, info) = run_on(&loggopsim(&[]), app, ranks).expect("the app runs");
    assert_eq!(info, AppInfo { app: app.into(), size: "tiny".into(), verified: true });
    r
}

/// How often `rank` used `primitive`.
pub fn count(r: &RunResult, rank: u32, primitive: &str) -> u64 {
    r.primitives.iter().find(|p| p.rank == rank && p.primitive == primitive).map_or(0, |p| p.count)
}
