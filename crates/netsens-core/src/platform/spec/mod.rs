//! Platform from TOML text, from a preset name or file, and CLI overrides.
//!
//! The TOML layout (every quantity a string with its unit; counts and `cpu_speed` are
//! numbers):
//!
//! ```toml
//! name = "mycluster"          # optional; defaults to the file name (origin)
//! base = "now1997"            # optional: start from a preset, then override fields
//! rendezvous = "handshake"    # or "loggopsim"; default handshake (or the base's)
//! cpu_speed = 1.0             # finite, > 0; default 1.0 (or the base's)
//! am_window = 4               # optional, >= 1: Active Messages' requests outstanding per
//!                             # destination (one-sided ops of rank programs); omitted: none
//! [cluster]                   # L, o, g, G required unless base is given; O = 0ns/B, S = 64KiB
//! L = "5us"
//! o = "2.9us"
//! g = "5.8us"
//! G = "38MB/s"                # a bandwidth, or a per-byte cost such as "26ns/B"
//! O = "0ns/B"
//! S = "64KiB"                 # may be 0B
//! [node]                      # optional, same keys; missing keys inherit from [cluster]
//! [shape]
//! clusters = "4x8"            # or [8, 8, 16], "8,8,16", "all"; omitted = one cluster of all ranks
//! ranks_per_node = 1          # >= 1, divides every cluster size; "all": one node of every rank
//! cores_per_node = 2          # optional: ranks of a node take its cores in turn (rank r on
//!                             # core r mod 2) and ranks on one core compute in turn (layout.rs);
//!                             # omitted: a core per rank
//! [wan]                       # needed when there is more than one cluster
//! shape = "full"              # full | star | ring; default full
//! latency = "3ms"             # required (unless the base has a [wan])
//! bandwidth = "1MB/s"         # or a per-byte cost "1us/B"; required likewise
//! hub = 0                     # star only; < number of clusters
//! gateway = "30us"            # each cluster's gateway busy per message; default 0
//! [disks]                     # optional: disks of every node (programs that use disks)
//! count = 2                   # disks per node; default 2
//! bandwidth = "5.5MB/s"       # of one disk, or a per-byte cost
//! [noise]                     # each defaults to "none"
//! latency_jitter = "exponential(200ns)"
//! wan_jitter = "none"
//! detour_interval = "exponential(1ms)"   # detour_interval and detour_duration go together
//! detour_duration = "constant(20us)"
//! ```
//!
//! When `base` is given, a `[node]` section starts from the base's node level if it has
//! one (else from the resulting cluster level), and `[wan]` from the base's links.
//!
//! Every error is one line naming the file and the field, e.g.
//! `platform.toml: cluster.L: "5" has no unit; write a time such as 5us`.
//!
//! One concept a module: `sections` reads a document section by section, `values`
//! reads one value into its field, `overrides` applies command-line settings,
//! `validation` checks the relations between fields, `to_toml` writes a platform back.

mod overrides;
mod sections;
mod to_toml;
mod validation;
mod values;

pub use overrides::SET_KEYS;
pub use values::parse_clusters;

use super::{presets, Platform};
use crate::error::{Error, Result};
use crate::input_err;
use sections::from_table;
use toml::Table;

fn preset_names() -> String {
    presets::list().iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

fn with_origin(origin: &str, e: Error) -> Error {
    match e {
        Error::Input(msg) => Error::Input(format!("{origin}: {msg}")),
        other => other,
    }
}

impl Platform {
    /// Parse and validate a platform TOML document; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Platform> {
        let doc: Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map_or(1, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let msg = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            Error::Parse { file: origin.to_string(), line, msg: format!("malformed TOML: {msg}") }
        })?;
        let p = from_table(&doc, origin).map_err(|e| with_origin(origin, e))?;
        if let Some(t) = &p.topology {
            // Links that name no vertex, hosts with no path: found once, on reading.
            crate::fabric::network::Network::build(t)?;
        }
        Ok(p)
    }

    /// A preset name (`loggopsim`, `now1997`, ...) or a path to a `.toml` file.
    pub fn resolve(spec: &str) -> Result<Platform> {
        if spec.ends_with(".toml") || spec.contains('/') || spec.contains(std::path::MAIN_SEPARATOR) {
            let text = std::fs::read_to_string(spec).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    input_err!("platform file \"{spec}\" not found")
                } else {
                    input_err!("platform file \"{spec}\" cannot be read: {e}")
                }
            })?;
            return Platform::from_toml(&text, spec);
        }
        presets::get(spec).ok_or_else(|| {
            input_err!("unknown platform preset \"{spec}\"; known presets: {} (or give a .toml file)", preset_names())
        })
    }
}
