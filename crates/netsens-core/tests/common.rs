//! Helpers shared by the engine's integration tests: platforms built field by
//! field (independent of the TOML parser) and small schedules.
#![allow(dead_code)]

use netsens_core::engine::RunOptions;
use netsens_core::platform::{LevelParams, Noise, Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program, SimRank};
use netsens_core::schedule::{executor::run_schedule, Schedule, ScheduleBuilder};
use netsens_core::time::{PerByte, NS};
use std::future::Future;

/// LogGOPS parameters in nanoseconds (G and O in ns per byte).
pub fn level(l: u64, o: u64, g: u64, big_g: u64, big_o: u64, s: u64) -> LevelParams {
    LevelParams {
        latency: l * NS,
        overhead: o * NS,
        gap: g * NS,
        gap_per_byte: PerByte::from_ps(big_g * NS),
        overhead_per_byte: PerByte::from_ps(big_o * NS),
        eager_limit: s,
        gap_above: 0,
        control_overhead: None,
    }
}

pub fn flat(params: LevelParams, rendezvous: Rendezvous) -> Platform {
    Platform {
        name: "test".into(),
        node: None,
        cluster: params,
        wan: None,
        shape: Shape { clusters: None, ranks_per_node: 1, cores_per_node: None },
        cpu_speed: 1.0,
        rendezvous,
        noise: Noise::none(),
        disks: None,
        topology: None,
        am_window: None,
    }
}

/// LOGGP.md's defaults of LogGOPSim: L=2500 o=1500 g=1000 G=6 O=0 S=65535.
pub fn loggopsim_defaults(rendezvous: Rendezvous) -> Platform {
    flat(level(2500, 1500, 1000, 6, 0, 65535), rendezvous)
}

pub fn two_clusters(params: LevelParams, per_cluster: u32, wan_latency: u64, wan_ps_per_byte: u64) -> Platform {
    let mut p = flat(params, Rendezvous::Handshake);
    p.shape.clusters = Some(vec![per_cluster, per_cluster]);
    p.wan = Some(Wan {
        shape: WanShape::Full,
        latency: wan_latency,
        per_byte: PerByte::from_ps(wan_ps_per_byte),
        hub: 0,
        gateway: 0,
    });
    p
}

pub fn run(s: &Schedule, p: &Platform) -> RunResult {
    run_schedule(s, p, &RunOptions::default()).expect("the run finishes")
}

pub fn end_ns(r: &RunResult, rank: usize) -> u64 {
    assert_eq!(r.ranks[rank].end_ps % NS, 0, "end time is a whole ns");
    r.ranks[rank].end_ps / NS
}

/// One message of `bytes` from rank 0 to rank 1, both posted at time 0.
pub fn one_message(bytes: u64) -> Schedule {
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, bytes, 0, 0, 0);
    b.recv(1, 0, bytes, 0, 0, 0);
    b.build().unwrap()
}

/// A 1-byte ping-pong: 0 sends, 1 receives then replies, 0 receives.
pub fn ping_pong(bytes: u64) -> Schedule {
    let mut b = ScheduleBuilder::new(2);
    let s0 = b.send(0, 1, bytes, 0, 0, 0);
    let r0 = b.recv(0, 1, bytes, 0, 0, 0);
    b.requires(r0, s0);
    let r1 = b.recv(1, 0, bytes, 0, 0, 0);
    let s1 = b.send(1, 0, bytes, 0, 0, 0);
    b.requires(s1, r1);
    b.build().unwrap()
}

/// The dissemination barrier of `schedule::patterns` (LOGGP.md vector 3's shape).
pub fn dissemination(p: u32, bytes: u64) -> Schedule {
    netsens_core::schedule::patterns::dissemination(p, bytes).unwrap()
}

/// Run a rank program on `ranks` ranks of LogGOPSim's defaults (handshake rendezvous).
pub fn go<P, F>(ranks: u32, program: P) -> RunResult
where
    P: Fn(SimRank) -> F,
    F: Future<Output = Result<(), String>> + 'static,
{
    run_program(&loggopsim_defaults(Rendezvous::Handshake), ranks, &RunOptions::default(), program)
        .expect("the program runs")
}
