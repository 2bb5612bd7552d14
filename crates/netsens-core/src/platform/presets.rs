//! Named platforms, each with a comment citing where its numbers come from.
//!
//! Every preset but `now1997` runs at `cpu_speed = 1.0`; none has noise; a TOML file can start from one
//! with `base = "<name>"` and override any field.

use super::{LevelParams, Noise, Platform, Rendezvous, Shape, Wan, WanShape};
use crate::time::{PerByte, Time, NS, US};

/// What each DAS gateway machine is busy per message it forwards between a cluster's
/// Myrinet and the wide-area ATM link (Plaat, Bal, Hofman 1998): at most 32 µs, since
/// the fastest wide-area setting they measured is 0.1 ms one way at application level,
/// through two gateways and two Myrinet hops of 18 µs ((100 − 2·18) / 2 = 32 µs). Their
/// text gives no lower bound; netsens takes the upper one (guides/wide-area-seeds.md).
pub const DAS_GATEWAY: Time = 32 * US;

/// The NOW's 167 MHz UltraSPARC-I against the suite's 1 Gflop/s cost unit (see `now1997`):
/// 167e6 Hz × 2 flop/cycle × 1/4 sustained / 1e9 flop/s.
pub const NOW1997_CPU_SPEED: f64 = 0.0835;

const PRESETS: &[(&str, &str)] = &[
    ("loggopsim", "LogGOPSim's defaults: L=2.5us o=1.5us g=1us G=6ns/B S=65535B, its own rendezvous"),
    ("now1997", "Berkeley NOW, Myrinet + Active Messages (Martin et al., ISCA'97): L=5us o=2.9us g=5.8us 38MB/s bulk, 167MHz CPUs"),
    ("das1998", "DAS, 4 Myrinet clusters of 8 joined by 0.55MB/s, 1.375ms ATM links (Plaat, Bal, Hofman 1998)"),
    ("ib100", "100 Gbit/s InfiniBand (EDR/HDR100 class), typical MPI figures: L=600ns o=200ns"),
    ("eth10g", "10 Gbit/s Ethernet with a kernel TCP stack, typical MPI-over-TCP figures: L=10us o=5us"),
];

/// (name, one-line description) of every preset.
pub fn list() -> Vec<(&'static str, &'static str)> {
    PRESETS.to_vec()
}

/// The preset called `name`, or `None`.
pub fn get(name: &str) -> Option<Platform> {
    let p = match name {
        // LogGOPSim (Hoefler, Schneider, Lumsdaine, HPDC'10): the defaults of its command
        // line in `simulator.ggo` (L=2500, o=1500, g=1000 ns; G=6, O=0 ns per byte;
        // S=65535 bytes), with its own rendezvous protocol.
        "loggopsim" => single(
            name,
            level(2500 * NS, 1500 * NS, 1000 * NS, PerByte::from_ps(6000), PerByte::ZERO, 65535),
            Rendezvous::Loggopsim,
        ),
        // Berkeley NOW baseline of Martin, Vahdat, Culler, Anderson, "Effects of
        // communication latency, overhead, and bandwidth in a cluster architecture",
        // ISCA'97: Myrinet with Generic Active Messages, calibrated with their LogP
        // microbenchmark: L = 5.0 us, o = 2.9 us, g = 5.8 us, bulk bandwidth 38 MB/s
        // (G = 1 / 38 MB/s = 26.315789 ns/B). No per-byte CPU overhead is modelled (O = 0).
        // AM medium/bulk transfers had no rendezvous; S = 64 KiB is chosen above the
        // suite's message sizes so that messages stay eager as on the NOW.
        // G only on bulk transfers (Martin's thesis §3.3.4: "we do not slow down
        // transmission of small messages, but rather add a delay corresponding to the
        // size of the message for each bulk message"): Generic Active Messages' short
        // requests carry at most four 32-bit words, so messages of more than 16 bytes
        // are the bulk ones.
        // CPU: one 167 MHz UltraSPARC-I per node. Its peak is 334 Mflop/s (two
        // floating-point pipelines, add and multiply, each one operation per cycle);
        // sustaining a quarter of peak on these codes (an assumption, typical of
        // cache-based RISC nodes of the time on the NAS kernels) gives 83.5 Mflop/s
        // against the suite's 1 Gflop/s cost unit: cpu_speed = 0.0835.
        "now1997" => Platform {
            cpu_speed: NOW1997_CPU_SPEED,
            ..single(
                name,
                LevelParams {
                    gap_above: 16,
                    control_overhead: None,
                    ..level(5 * US, 2900 * NS, 5800 * NS, bandwidth(38_000_000), PerByte::ZERO, 64 * 1024)
                },
                Rendezvous::Handshake,
            )
        },
        // DAS as used by Plaat, Bal, Hofman, "Bandwidth and latency sensitivity of
        // parallel applications in a wide-area system" (1998): Myrinet at application
        // level 50 MB/s and 18 us one-way. The paper gives only the one-way total; its
        // split into o = 2 us at each end plus L = 14 us is an assumption, as are
        // g = 2 us and S = 64 KiB. Four clusters of 8 (the paper's 4x8 runs), joined by a
        // full mesh of wide-area ATM links: 6 Mbit/s PVCs giving 0.55 MB/s at application
        // level over TCP, and one-way latency 1.375 ms (the paper's 2.5–3 ms round trip
        // between the furthest sites: midpoint 2.75 ms, halved).
        "das1998" => Platform {
            shape: Shape { clusters: Some(vec![8; 4]), ranks_per_node: 1, cores_per_node: None },
            wan: Some(Wan {
                shape: WanShape::Full,
                latency: 1375 * US,
                per_byte: bandwidth(550_000),
                hub: 0,
                gateway: DAS_GATEWAY,
            }),
            ..single(
                name,
                level(14 * US, 2 * US, 2 * US, bandwidth(50_000_000), PerByte::ZERO, 64 * 1024),
                Rendezvous::Handshake,
            )
        },
        // 100 Gbit/s InfiniBand (EDR / HDR100 class): representative published MPI
        // ping-pong figures (about 1 us small-message half round trip = L + 2o, link rate
        // 100 Gbit/s = 80 ps/B, eager limit 16 KiB as in common MPI defaults), not a
        // measurement of one machine.
        "ib100" => single(
            name,
            level(600 * NS, 200 * NS, 50 * NS, PerByte::from_ps(80), PerByte::ZERO, 16 * 1024),
            Rendezvous::Handshake,
        ),
        // 10 Gbit/s Ethernet with a kernel TCP stack: representative published
        // MPI-over-TCP figures (about 20 us small-message half round trip = L + 2o, link
        // rate 10 Gbit/s = 800 ps/B, per-byte copy overhead O = 0.1 ns/B, eager limit
        // 64 KiB), not a measurement of one machine.
        "eth10g" => single(
            name,
            level(10 * US, 5 * US, 2 * US, PerByte::from_ps(800), PerByte::from_ps(100), 64 * 1024),
            Rendezvous::Handshake,
        ),
        _ => return None,
    };
    Some(p)
}

fn level(l: Time, o: Time, g: Time, big_g: PerByte, big_o: PerByte, s: u64) -> LevelParams {
    LevelParams {
        latency: l,
        overhead: o,
        gap: g,
        gap_per_byte: big_g,
        overhead_per_byte: big_o,
        eager_limit: s,
        gap_above: 0,
        control_overhead: None,
    }
}

/// 1 / (`bytes_per_s` B/s) in fs/B, rounded to nearest (as `parse_per_byte` does).
fn bandwidth(bytes_per_s: u64) -> PerByte {
    const FS_PER_S: u64 = 1_000_000_000_000_000;
    PerByte((FS_PER_S + bytes_per_s / 2) / bytes_per_s)
}

/// One cluster holding every rank, a node per rank, no wide-area links, no noise.
fn single(name: &str, cluster: LevelParams, rendezvous: Rendezvous) -> Platform {
    Platform {
        name: name.to_string(),
        node: None,
        cluster,
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
