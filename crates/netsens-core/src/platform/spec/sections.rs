//! A parsed TOML document read section by section, each over what the base preset
//! gives (if any): the top-level keys, `[cluster]` and `[node]`, `[shape]`, `[wan]`,
//! `[disks]`, `[noise]` and `[topology]` (read in `platform/topology.rs`). Unknown keys are errors that list the accepted ones.

use super::preset_names;
use super::values::{
    am_window_value, clusters_value, count, parse_cpu_speed, parse_rendezvous, parse_wan_shape, ranks_per_node_value,
    string, text,
};
use crate::error::Result;
use crate::input_err;
use crate::platform::{
    presets, topology::Topology, variability, Disks, Dist, LevelParams, Noise, Platform, Rendezvous, Shape, Wan,
    WanShape,
};
use crate::time::{PerByte, Time};
use crate::units::{parse_per_byte, parse_size, parse_time};
use toml::{Table, Value};

const TOP_KEYS: &[&str] = &[
    "name",
    "base",
    "rendezvous",
    "cpu_speed",
    "am_window",
    "cluster",
    "node",
    "shape",
    "wan",
    "noise",
    "disks",
    "topology",
];
const DISK_KEYS: &[&str] = &["count", "bandwidth"];
const LEVEL_KEYS: &[&str] = &["L", "o", "g", "G", "O", "S", "G_above", "o_control"];
const SHAPE_KEYS: &[&str] = &["clusters", "ranks_per_node", "cores_per_node"];
const WAN_KEYS: &[&str] = &["shape", "latency", "bandwidth", "hub", "gateway"];
const NOISE_KEYS: &[&str] =
    &["latency_jitter", "wan_jitter", "detour_interval", "detour_duration", "background", "faults"];
/// The eager limit when neither the file nor its base gives one.
const DEFAULT_EAGER_LIMIT: u64 = 64 * 1024;

/// `path` as written in errors: `cluster.L`, or `name` at the top level.
fn path(section: &str, key: &str) -> String {
    if section.is_empty() {
        key.to_string()
    } else {
        format!("{section}.{key}")
    }
}

/// Reject keys of `table` outside `accepted`, naming the section and the accepted keys.
fn check_keys(table: &Table, section: &str, accepted: &[&str]) -> Result<()> {
    for key in table.keys() {
        if !accepted.contains(&key.as_str()) {
            let place = if section.is_empty() { String::new() } else { format!(" in [{section}]") };
            return Err(input_err!("unknown key \"{key}\"{place}; accepted keys: {}", accepted.join(", ")));
        }
    }
    Ok(())
}

/// The section `[name]` as a table, if present.
fn section<'a>(doc: &'a Table, name: &str) -> Result<Option<&'a Table>> {
    match doc.get(name) {
        None => Ok(None),
        Some(Value::Table(t)) => Ok(Some(t)),
        Some(v) => Err(input_err!("{name}: expected a section [{name}], found a {}", v.type_str())),
    }
}

/// A level section (`[cluster]` or `[node]`): keys present override `start`; without a
/// `start`, L, o, g and G are required and O, S take their defaults.
fn level(table: &Table, name: &str, start: Option<&LevelParams>, hint: &str) -> Result<LevelParams> {
    check_keys(table, name, LEVEL_KEYS)?;
    let time = |key: &str, old: Option<Time>| -> Result<Time> {
        let p = path(name, key);
        match (table.get(key), old) {
            (Some(v), _) => parse_time(&p, &text(&p, v, "5us")?),
            (None, Some(old)) => Ok(old),
            (None, None) => Err(input_err!("{p} is missing; write a time such as {key} = \"5us\"{hint}")),
        }
    };
    let per_byte = |key: &str, old: Option<PerByte>| -> Result<PerByte> {
        let p = path(name, key);
        match (table.get(key), old) {
            (Some(v), _) => parse_per_byte(&p, &text(&p, v, "6ns/B")?),
            (None, Some(old)) => Ok(old),
            (None, None) => Err(input_err!(
                "{p} is missing; write a per-byte cost such as {key} = \"6ns/B\" or a bandwidth such as \
                 {key} = \"10Gbit/s\"{hint}"
            )),
        }
    };
    let s = start;
    Ok(LevelParams {
        latency: time("L", s.map(|s| s.latency))?,
        overhead: time("o", s.map(|s| s.overhead))?,
        gap: time("g", s.map(|s| s.gap))?,
        gap_per_byte: per_byte("G", s.map(|s| s.gap_per_byte))?,
        overhead_per_byte: per_byte("O", Some(s.map_or(PerByte::ZERO, |s| s.overhead_per_byte)))?,
        eager_limit: match table.get("S") {
            Some(v) => {
                let p = path(name, "S");
                parse_size(&p, &text(&p, v, "64KiB")?)?
            }
            None => s.map_or(DEFAULT_EAGER_LIMIT, |s| s.eager_limit),
        },
        gap_above: match table.get("G_above") {
            Some(v) => {
                let p = path(name, "G_above");
                parse_size(&p, &text(&p, v, "16B")?)?
            }
            None => s.map_or(0, |s| s.gap_above),
        },
        control_overhead: match table.get("o_control") {
            Some(v) => {
                let p = path(name, "o_control");
                Some(parse_time(&p, &text(&p, v, "2us")?)?)
            }
            None => s.and_then(|s| s.control_overhead),
        },
    })
}

/// A `[wan]` section over `start` (the base's links, if any).
fn wan(table: &Table, start: Option<&Wan>) -> Result<Wan> {
    check_keys(table, "wan", WAN_KEYS)?;
    let shape = match table.get("shape") {
        Some(v) => parse_wan_shape("wan.shape", string("wan.shape", v, "full")?)?,
        None => start.map_or(WanShape::Full, |w| w.shape),
    };
    let latency = match (table.get("latency"), start) {
        (Some(v), _) => parse_time("wan.latency", &text("wan.latency", v, "3ms")?)?,
        (None, Some(w)) => w.latency,
        (None, None) => return Err(input_err!("wan.latency is missing; write a time such as latency = \"3ms\"")),
    };
    let per_byte = match (table.get("bandwidth"), start) {
        (Some(v), _) => parse_per_byte("wan.bandwidth", &text("wan.bandwidth", v, "1MB/s")?)?,
        (None, Some(w)) => w.per_byte,
        (None, None) => {
            return Err(input_err!(
                "wan.bandwidth is missing; write a bandwidth such as bandwidth = \"1MB/s\" or a per-byte cost \
                 such as \"1us/B\""
            ))
        }
    };
    let hub = match table.get("hub") {
        Some(_) if shape != WanShape::Star => {
            return Err(input_err!("wan.hub: a hub is only used with shape = \"star\""));
        }
        Some(v) => usize::try_from(count("wan.hub", v, "0")?).unwrap_or(usize::MAX),
        None => match start {
            Some(w) if shape == WanShape::Star => w.hub,
            _ => 0,
        },
    };
    let gateway = match table.get("gateway") {
        Some(v) => parse_time("wan.gateway", &text("wan.gateway", v, "30us")?)?,
        None => start.map_or(0, |w| w.gateway),
    };
    Ok(Wan { shape, latency, per_byte, hub, gateway })
}

/// A `[disks]` section over `start` (the base's disks, if any).
fn disks(table: &Table, start: Option<&Disks>) -> Result<Disks> {
    check_keys(table, "disks", DISK_KEYS)?;
    let count = match table.get("count") {
        Some(v) => u32::try_from(count("disks.count", v, "2")?).unwrap_or(u32::MAX),
        None => start.map_or(2, |d| d.count),
    };
    let per_byte = match (table.get("bandwidth"), start) {
        (Some(v), _) => parse_per_byte("disks.bandwidth", &text("disks.bandwidth", v, "5.5MB/s")?)?,
        (None, Some(d)) => d.per_byte,
        (None, None) => {
            return Err(input_err!("disks.bandwidth is missing; write a bandwidth such as bandwidth = \"5.5MB/s\""))
        }
    };
    Ok(Disks { count, per_byte })
}

fn noise(table: &Table, start: Noise) -> Result<Noise> {
    check_keys(table, "noise", NOISE_KEYS)?;
    let dist = |key: &str, old: Dist| -> Result<Dist> {
        let p = path("noise", key);
        match table.get(key) {
            Some(v) => Dist::parse(&p, string(&p, v, "exponential(2us)")?),
            None => Ok(old),
        }
    };
    Ok(Noise {
        latency_jitter: dist("latency_jitter", start.latency_jitter)?,
        wan_jitter: dist("wan_jitter", start.wan_jitter)?,
        detour_interval: dist("detour_interval", start.detour_interval)?,
        detour_duration: dist("detour_duration", start.detour_duration)?,
        background: table.get("background").map_or(Ok(start.background), variability::parse_flows)?,
        faults: table.get("faults").map_or(Ok(start.faults), variability::parse_faults)?,
    })
}

/// The platform described by a parsed TOML document (errors without the origin).
pub(super) fn from_table(doc: &Table, origin: &str) -> Result<Platform> {
    check_keys(doc, "", TOP_KEYS)?;
    let base = match doc.get("base") {
        None => None,
        Some(v) => {
            let name = string("base", v, "now1997")?;
            Some(presets::get(name).ok_or_else(|| {
                input_err!("base: unknown platform preset \"{name}\"; known presets: {}", preset_names())
            })?)
        }
    };
    let name = match doc.get("name") {
        Some(v) => string("name", v, "mycluster")?.to_string(),
        None => origin.to_string(),
    };
    let rendezvous = match doc.get("rendezvous") {
        Some(v) => parse_rendezvous("rendezvous", string("rendezvous", v, "handshake")?)?,
        None => base.as_ref().map_or(Rendezvous::Handshake, |b| b.rendezvous),
    };
    let am_window = match doc.get("am_window") {
        Some(v) => Some(am_window_value("am_window", v)?),
        None => base.as_ref().and_then(|b| b.am_window),
    };
    let cpu_speed = match doc.get("cpu_speed") {
        Some(v) => parse_cpu_speed("cpu_speed", &text("cpu_speed", v, "1.0")?)?,
        None => base.as_ref().map_or(1.0, |b| b.cpu_speed),
    };
    let cluster = match (section(doc, "cluster")?, &base) {
        (Some(t), b) => level(
            t,
            "cluster",
            b.as_ref().map(|b| &b.cluster),
            &format!(" (or start from a preset with base = one of {})", preset_names()),
        )?,
        (None, Some(b)) => b.cluster.clone(),
        (None, None) => {
            return Err(input_err!(
                "the [cluster] section is missing; give L, o, g and G in [cluster], or start from a preset with \
                 base = one of {}",
                preset_names()
            ))
        }
    };
    let base_node = base.as_ref().and_then(|b| b.node.as_ref());
    let node = match section(doc, "node")? {
        Some(t) => Some(level(t, "node", Some(base_node.unwrap_or(&cluster)), "")?),
        None => base_node.cloned(),
    };
    let base_shape =
        base.as_ref().map_or(Shape { clusters: None, ranks_per_node: 1, cores_per_node: None }, |b| b.shape.clone());
    let shape = match section(doc, "shape")? {
        Some(t) => {
            check_keys(t, "shape", SHAPE_KEYS)?;
            Shape {
                clusters: match t.get("clusters") {
                    Some(v) => clusters_value("shape.clusters", v)?,
                    None => base_shape.clusters,
                },
                ranks_per_node: match t.get("ranks_per_node") {
                    Some(v) => ranks_per_node_value("shape.ranks_per_node", v)?,
                    None => base_shape.ranks_per_node,
                },
                cores_per_node: match t.get("cores_per_node") {
                    Some(v) => Some(u32::try_from(count("shape.cores_per_node", v, "2")?).unwrap_or(u32::MAX)),
                    None => base_shape.cores_per_node,
                },
            }
        }
        None => base_shape,
    };
    let base_wan = base.as_ref().and_then(|b| b.wan.as_ref());
    let wan = match section(doc, "wan")? {
        Some(t) => Some(wan(t, base_wan)?),
        None => base_wan.cloned(),
    };
    let base_noise = base.as_ref().map_or_else(Noise::none, |b| b.noise.clone());
    let noise = match section(doc, "noise")? {
        Some(t) => noise(t, base_noise)?,
        None => base_noise,
    };
    let base_disks = base.as_ref().and_then(|b| b.disks.as_ref());
    let disks = match section(doc, "disks")? {
        Some(t) => Some(disks(t, base_disks)?),
        None => base_disks.cloned(),
    };
    let topology = match section(doc, "topology")? {
        Some(t) => Some(Topology::from_table(t, origin)?),
        None => base.as_ref().and_then(|b| b.topology.clone()),
    };
    let p = Platform { name, node, cluster, wan, shape, cpu_speed, rendezvous, noise, disks, topology, am_window };
    p.validate()?;
    Ok(p)
}
