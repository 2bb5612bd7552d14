//! A platform written back as TOML, every value with its unit, so that
//! `netsens platform show` prints what `from_toml` reads again.

use crate::platform::{variability, LevelParams, Platform, Rendezvous, WanShape, ALL_RANKS};
use crate::units::{format_bandwidth_approx, format_per_byte, format_size, format_time};
use std::fmt::Write as _;
use toml::Value;

/// A TOML string literal (quoted and escaped).
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn write_level(out: &mut String, section: &str, l: &LevelParams) {
    let _ = writeln!(out, "\n[{section}]");
    let _ = writeln!(out, "L = \"{}\"", format_time(l.latency));
    let _ = writeln!(out, "o = \"{}\"", format_time(l.overhead));
    let _ = writeln!(out, "g = \"{}\"", format_time(l.gap));
    let _ =
        writeln!(out, "G = \"{}\"  # ~{}", format_per_byte(l.gap_per_byte), format_bandwidth_approx(l.gap_per_byte));
    let _ = writeln!(out, "O = \"{}\"", format_per_byte(l.overhead_per_byte));
    let _ = writeln!(out, "S = \"{}\"", format_size(l.eager_limit));
    let _ = writeln!(out, "G_above = \"{}\"  # G on messages above this size only", format_size(l.gap_above));
    if let Some(o) = l.control_overhead {
        let _ = writeln!(out, "o_control = \"{}\"  # o of the handshake's control messages", format_time(o));
    }
}

impl Platform {
    /// The platform as TOML with units on every value (reads back with `from_toml`).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# netsens platform; every quantity carries its unit");
        let _ = writeln!(out, "name = {}", quoted(&self.name));
        let rendezvous = match self.rendezvous {
            Rendezvous::Handshake => "handshake",
            Rendezvous::Loggopsim => "loggopsim",
        };
        let _ = writeln!(out, "rendezvous = \"{rendezvous}\"");
        let _ = writeln!(out, "cpu_speed = {:?}", self.cpu_speed);
        if let Some(w) = self.am_window {
            let _ = writeln!(out, "am_window = {w}  # Active Messages' requests outstanding per destination");
        }
        write_level(&mut out, "cluster", &self.cluster);
        if let Some(node) = &self.node {
            write_level(&mut out, "node", node);
        }
        let _ = writeln!(out, "\n[shape]");
        match &self.shape.clusters {
            None => {
                let _ = writeln!(out, "# clusters omitted: one cluster holding every rank");
            }
            Some(sizes) if sizes.len() > 1 && sizes.iter().all(|&s| s == sizes[0]) => {
                let _ = writeln!(out, "clusters = \"{}x{}\"", sizes.len(), sizes[0]);
            }
            Some(sizes) => {
                let list = sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
                let _ = writeln!(out, "clusters = [{list}]");
            }
        }
        if self.shape.ranks_per_node == ALL_RANKS {
            let _ = writeln!(out, "ranks_per_node = \"all\"");
        } else {
            let _ = writeln!(out, "ranks_per_node = {}", self.shape.ranks_per_node);
        }
        if let Some(cores) = self.shape.cores_per_node {
            let _ = writeln!(out, "cores_per_node = {cores}  # ranks on one core compute in turn");
        }
        if let Some(w) = &self.wan {
            let shape = match w.shape {
                WanShape::Full => "full",
                WanShape::Star => "star",
                WanShape::Ring => "ring",
            };
            let _ = writeln!(out, "\n[wan]");
            let _ = writeln!(out, "shape = \"{shape}\"");
            let _ = writeln!(out, "latency = \"{}\"", format_time(w.latency));
            let _ = writeln!(
                out,
                "bandwidth = \"{}\"  # ~{}",
                format_per_byte(w.per_byte),
                format_bandwidth_approx(w.per_byte)
            );
            if w.shape == WanShape::Star {
                let _ = writeln!(out, "hub = {}", w.hub);
            }
            if w.gateway > 0 {
                let _ =
                    writeln!(out, "gateway = \"{}\"  # each cluster's gateway, per message", format_time(w.gateway));
            }
        }
        if let Some(d) = &self.disks {
            let _ = writeln!(out, "\n[disks]");
            let _ = writeln!(out, "count = {}", d.count);
            let _ = writeln!(
                out,
                "bandwidth = \"{}\"  # ~{}",
                format_per_byte(d.per_byte),
                format_bandwidth_approx(d.per_byte)
            );
        }
        let nz = &self.noise;
        let _ = writeln!(out, "\n[noise]");
        let _ = writeln!(out, "latency_jitter = \"{}\"", nz.latency_jitter);
        let _ = writeln!(out, "wan_jitter = \"{}\"", nz.wan_jitter);
        let _ = writeln!(out, "detour_interval = \"{}\"", nz.detour_interval);
        let _ = writeln!(out, "detour_duration = \"{}\"", nz.detour_duration);
        variability::write_toml(&mut out, &nz.background, &nz.faults);
        if let Some(t) = &self.topology {
            // The section as it was written (its values keep their units).
            let mut doc = toml::Table::new();
            doc.insert("topology".into(), Value::Table(t.table.clone()));
            let _ = write!(out, "\n{}", toml::to_string(&doc).unwrap_or_default());
        }
        out
    }
}
