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
//! ranks_per_node = 1          # >= 1, divides every cluster size
//! [wan]                       # needed when there is more than one cluster
//! shape = "full"              # full | star | ring; default full
//! latency = "3ms"             # required (unless the base has a [wan])
//! bandwidth = "1MB/s"         # or a per-byte cost "1us/B"; required likewise
//! hub = 0                     # star only; < number of clusters
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

use super::{presets, variability, Disks, Dist, LevelParams, Noise, Platform, Rendezvous, Shape, Wan, WanShape};
use crate::error::{Error, Result};
use crate::input_err;
use crate::time::{PerByte, Time};
use crate::units::{
    format_bandwidth_approx, format_per_byte, format_size, format_time, parse_per_byte, parse_size, parse_time,
};
use std::fmt::Write as _;
use toml::{Table, Value};

const TOP_KEYS: &[&str] =
    &["name", "base", "rendezvous", "cpu_speed", "cluster", "node", "shape", "wan", "noise", "disks"];
const DISK_KEYS: &[&str] = &["count", "bandwidth"];
const LEVEL_KEYS: &[&str] = &["L", "o", "g", "G", "O", "S", "G_above"];
const SHAPE_KEYS: &[&str] = &["clusters", "ranks_per_node"];
const WAN_KEYS: &[&str] = &["shape", "latency", "bandwidth", "hub"];
const NOISE_KEYS: &[&str] =
    &["latency_jitter", "wan_jitter", "detour_interval", "detour_duration", "background", "faults"];

/// Keys accepted by [`Platform::set`] and [`Platform::set_all`].
pub const SET_KEYS: &[&str] = &[
    "L",
    "o",
    "g",
    "G",
    "O",
    "S",
    "G_above",
    "rendezvous",
    "cpu_speed",
    "clusters",
    "ranks_per_node",
    "disk_bandwidth",
    "disks_per_node",
    "wan_latency",
    "wan_bandwidth",
    "wan_shape",
    "wan_hub",
    "latency_jitter",
    "wan_jitter",
    "detour_interval",
    "detour_duration",
];

/// The eager limit when neither the file nor its base gives one.
const DEFAULT_EAGER_LIMIT: u64 = 64 * 1024;

fn preset_names() -> String {
    presets::list().iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

fn with_origin(origin: &str, e: Error) -> Error {
    match e {
        Error::Input(msg) => Error::Input(format!("{origin}: {msg}")),
        other => other,
    }
}

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

/// A value given as text with a unit. Numbers are turned into text so that the unit
/// parsers report them as missing a unit (`L = 5` → `"5" has no unit`).
fn text(p: &str, v: &Value, example: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        other => Err(input_err!("{p}: expected a string such as \"{example}\", found a {}", other.type_str())),
    }
}

/// A plain string value (names, keywords).
fn string<'a>(p: &str, v: &'a Value, example: &str) -> Result<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(input_err!("{p}: expected a string such as \"{example}\", found a {}", other.type_str())),
    }
}

/// A whole number (a TOML integer, or a string of digits).
fn count(p: &str, v: &Value, example: &str) -> Result<u64> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        Value::Integer(i) => Err(input_err!("{p}: {i} is negative; write a whole number such as {example}")),
        Value::String(s) => parse_count(p, s, example),
        other => Err(input_err!("{p}: expected a whole number such as {example}, found a {}", other.type_str())),
    }
}

fn parse_count(p: &str, s: &str, example: &str) -> Result<u64> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| input_err!("{p}: \"{s}\" is not a whole number; write a whole number such as {example}"))
}

fn parse_rendezvous(p: &str, s: &str) -> Result<Rendezvous> {
    match s.trim() {
        "handshake" => Ok(Rendezvous::Handshake),
        "loggopsim" => Ok(Rendezvous::Loggopsim),
        other => Err(input_err!("{p}: unknown rendezvous protocol \"{other}\"; write handshake or loggopsim")),
    }
}

fn parse_wan_shape(p: &str, s: &str) -> Result<WanShape> {
    match s.trim() {
        "full" => Ok(WanShape::Full),
        "star" => Ok(WanShape::Star),
        "ring" => Ok(WanShape::Ring),
        other => Err(input_err!("{p}: unknown wide-area shape \"{other}\"; write full, star or ring")),
    }
}

fn parse_cpu_speed(p: &str, s: &str) -> Result<f64> {
    let bad = || input_err!("{p}: \"{s}\" is not a positive number; write a speed such as 1.0 or 2.5");
    let v: f64 = s.trim().parse().map_err(|_| bad())?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(bad())
    }
}

/// Cluster sizes: `4x8` (4 clusters of 8 ranks), `8,8,16`, a single size `32`, or `all`
/// (one cluster holding every rank: `None`).
pub fn parse_clusters(p: &str, s: &str) -> Result<Option<Vec<u32>>> {
    let t = s.trim();
    let example = "write 4x8 (4 clusters of 8 ranks), a list such as 8,8,16, or all";
    if t == "all" {
        return Ok(None);
    }
    let size = |x: &str| -> Result<u32> {
        match x.trim().parse::<u32>() {
            Ok(0) => Err(input_err!("{p}: cluster sizes must be positive, got 0 in \"{t}\"")),
            Ok(n) => Ok(n),
            Err(_) => Err(input_err!("{p}: \"{t}\" is not a list of cluster sizes; {example}")),
        }
    };
    let sizes = if let Some((n, m)) = t.split_once('x') {
        let n = match n.trim().parse::<u32>() {
            Ok(0) => return Err(input_err!("{p}: the number of clusters must be positive, got 0 in \"{t}\"")),
            Ok(n) => n,
            Err(_) => return Err(input_err!("{p}: \"{t}\" is not a list of cluster sizes; {example}")),
        };
        vec![size(m)?; n as usize]
    } else {
        t.split(',').map(size).collect::<Result<Vec<u32>>>()?
    };
    check_total(p, &sizes)?;
    Ok(Some(sizes))
}

fn check_total(p: &str, sizes: &[u32]) -> Result<()> {
    let total: u64 = sizes.iter().map(|&n| u64::from(n)).sum();
    if total > u64::from(u32::MAX) {
        return Err(input_err!("{p}: {total} ranks in all is too many (at most {})", u32::MAX));
    }
    Ok(())
}

/// The `clusters` value of `[shape]`: a string (see [`parse_clusters`]), a list of
/// sizes, or one size.
fn clusters_value(p: &str, v: &Value) -> Result<Option<Vec<u32>>> {
    let size = |x: &Value| -> Result<u32> {
        match x {
            Value::Integer(i) if *i > 0 && *i <= i64::from(u32::MAX) => Ok(*i as u32),
            Value::Integer(i) => Err(input_err!("{p}: cluster sizes must be positive whole numbers, got {i}")),
            other => Err(input_err!("{p}: cluster sizes must be whole numbers, found a {}", other.type_str())),
        }
    };
    match v {
        Value::String(s) => parse_clusters(p, s),
        Value::Integer(_) => Ok(Some(vec![size(v)?])),
        Value::Array(a) if a.is_empty() => Err(input_err!("{p}: the list of cluster sizes is empty")),
        Value::Array(a) => {
            let sizes = a.iter().map(size).collect::<Result<Vec<u32>>>()?;
            check_total(p, &sizes)?;
            Ok(Some(sizes))
        }
        other => Err(input_err!("{p}: expected \"4x8\" or a list such as [8, 8, 16], found a {}", other.type_str())),
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
    Ok(Wan { shape, latency, per_byte, hub })
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
fn from_table(doc: &Table, origin: &str) -> Result<Platform> {
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
    let base_shape = base.as_ref().map_or(Shape { clusters: None, ranks_per_node: 1 }, |b| b.shape.clone());
    let shape = match section(doc, "shape")? {
        Some(t) => {
            check_keys(t, "shape", SHAPE_KEYS)?;
            Shape {
                clusters: match t.get("clusters") {
                    Some(v) => clusters_value("shape.clusters", v)?,
                    None => base_shape.clusters,
                },
                ranks_per_node: match t.get("ranks_per_node") {
                    Some(v) => u32::try_from(count("shape.ranks_per_node", v, "1")?).unwrap_or(u32::MAX),
                    None => base_shape.ranks_per_node,
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
    let p = Platform { name, node, cluster, wan, shape, cpu_speed, rendezvous, noise, disks };
    p.validate()?;
    Ok(p)
}

/// Number of clusters (1 when the shape does not list them).
fn num_clusters(p: &Platform) -> usize {
    p.shape.clusters.as_ref().map_or(1, Vec::len)
}

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
}

impl Platform {
    /// Parse and validate a platform TOML document; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Platform> {
        let doc: Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map_or(1, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let msg = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            Error::Parse { file: origin.to_string(), line, msg: format!("malformed TOML: {msg}") }
        })?;
        from_table(&doc, origin).map_err(|e| with_origin(origin, e))
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

    /// Apply one CLI override to the cluster level (and the node level if present):
    /// key is one of `L o g G O S` (case-sensitive), or `rendezvous`, `cpu_speed`,
    /// `clusters`, `ranks_per_node`, `wan_latency`, `wan_bandwidth`, `wan_shape`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let mut p = self.clone();
        p.apply(key, value)?;
        p.validate()?;
        *self = p;
        Ok(())
    }

    /// Apply several overrides as one change: the order does not matter, and the
    /// platform is validated once at the end (so `clusters = 4x8` may come before the
    /// wide-area links it needs, or `ranks_per_node` before `clusters`). On a platform
    /// without wide-area links, `wan_latency` and `wan_bandwidth` together add a full
    /// mesh of links (`wan_shape`, `wan_hub` may then change it); one without the other
    /// is an error. `wan_hub` is applied after `wan_shape`. Besides the keys of
    /// [`Platform::set`], `wan_hub` and the noise keys `latency_jitter`, `wan_jitter`,
    /// `detour_interval`, `detour_duration` are accepted (by `set` too). On error the
    /// platform is unchanged.
    pub fn set_all(&mut self, overrides: &[(&str, &str)]) -> Result<()> {
        let mut p = self.clone();
        if p.wan.is_none() {
            let last = |k: &str| overrides.iter().rev().find(|(key, _)| *key == k).map(|(_, v)| *v);
            let uses_wan = overrides.iter().find(|(k, _)| k.starts_with("wan_") && SET_KEYS.contains(k));
            match (last("wan_latency"), last("wan_bandwidth"), uses_wan) {
                (Some(l), Some(b), _) => {
                    p.wan = Some(Wan {
                        shape: WanShape::Full,
                        latency: parse_time("wan_latency", l)?,
                        per_byte: parse_per_byte("wan_bandwidth", b)?,
                        hub: 0,
                    });
                }
                (_, _, Some((k, _))) => {
                    return Err(input_err!(
                        "{k}: platform \"{}\" has no wide-area links; give wan_latency and wan_bandwidth together \
                         to add them",
                        self.name
                    ));
                }
                _ => {}
            }
        }
        // The hub last, once the shape it needs (star) is in place.
        let (hub, rest): (Vec<_>, Vec<_>) = overrides.iter().partition(|(k, _)| *k == "wan_hub");
        for (k, v) in rest.into_iter().chain(hub) {
            p.apply(k, v)?;
        }
        p.validate()?;
        *self = p;
        Ok(())
    }

    /// One override, without the cross-field checks of [`Platform::validate`].
    fn apply(&mut self, key: &str, value: &str) -> Result<()> {
        let levels = |p: &mut Platform, f: &dyn Fn(&mut LevelParams)| {
            f(&mut p.cluster);
            if let Some(n) = p.node.as_mut() {
                f(n);
            }
        };
        let no_wan = || {
            input_err!(
                "{key}: platform \"{}\" has no wide-area links; give wan_latency and wan_bandwidth together to \
                 add them",
                self.name
            )
        };
        match key {
            "L" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.latency = v);
            }
            "o" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.overhead = v);
            }
            "g" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.gap = v);
            }
            "G" => {
                let v = parse_per_byte(key, value)?;
                levels(self, &|l| l.gap_per_byte = v);
            }
            "O" => {
                let v = parse_per_byte(key, value)?;
                levels(self, &|l| l.overhead_per_byte = v);
            }
            "S" => {
                let v = parse_size(key, value)?;
                levels(self, &|l| l.eager_limit = v);
            }
            "G_above" => {
                let v = parse_size(key, value)?;
                levels(self, &|l| l.gap_above = v);
            }
            "rendezvous" => self.rendezvous = parse_rendezvous(key, value)?,
            "cpu_speed" => self.cpu_speed = parse_cpu_speed(key, value)?,
            "clusters" => self.shape.clusters = parse_clusters(key, value)?,
            "ranks_per_node" => {
                self.shape.ranks_per_node = u32::try_from(parse_count(key, value, "1")?).unwrap_or(u32::MAX)
            }
            "wan_latency" => self.wan.as_mut().ok_or_else(no_wan)?.latency = parse_time(key, value)?,
            "wan_bandwidth" => self.wan.as_mut().ok_or_else(no_wan)?.per_byte = parse_per_byte(key, value)?,
            "wan_shape" => {
                let shape = parse_wan_shape(key, value)?;
                let w = self.wan.as_mut().ok_or_else(no_wan)?;
                w.shape = shape;
                if shape != WanShape::Star {
                    w.hub = 0;
                }
            }
            "wan_hub" => {
                let hub = usize::try_from(parse_count(key, value, "0")?).unwrap_or(usize::MAX);
                let w = self.wan.as_mut().ok_or_else(no_wan)?;
                if w.shape != WanShape::Star {
                    return Err(input_err!("{key}: a hub is only used with wan_shape = star"));
                }
                w.hub = hub;
            }
            "disk_bandwidth" => {
                let per_byte = parse_per_byte(key, value)?;
                let count = self.disks.as_ref().map_or(2, |d| d.count);
                self.disks = Some(Disks { count, per_byte });
            }
            "disks_per_node" => {
                let count = u32::try_from(parse_count(key, value, "2")?).unwrap_or(u32::MAX);
                self.disks
                    .as_mut()
                    .ok_or_else(|| input_err!("{key}: give disk_bandwidth first (the platform has no disks)"))?
                    .count = count;
            }
            "latency_jitter" => self.noise.latency_jitter = Dist::parse(key, value)?,
            "wan_jitter" => self.noise.wan_jitter = Dist::parse(key, value)?,
            "detour_interval" => self.noise.detour_interval = Dist::parse(key, value)?,
            "detour_duration" => self.noise.detour_duration = Dist::parse(key, value)?,
            _ => return Err(input_err!("unknown platform parameter \"{key}\"; accepted: {}", SET_KEYS.join(", "))),
        }
        Ok(())
    }

    /// Check the relations between fields: `cpu_speed` finite and > 0, positive cluster
    /// sizes, `ranks_per_node` >= 1 and dividing every cluster size, wide-area links when
    /// there is more than one cluster, the hub an existing cluster, detour interval and
    /// duration given together with a positive mean interval. Errors name TOML fields.
    pub fn validate(&self) -> Result<()> {
        if !(self.cpu_speed.is_finite() && self.cpu_speed > 0.0) {
            return Err(input_err!("cpu_speed: must be a finite number above 0, got {}", self.cpu_speed));
        }
        if let Some(d) = &self.disks {
            if d.count == 0 {
                return Err(input_err!("disks.count: must be at least 1, got 0"));
            }
        }
        let rpn = self.shape.ranks_per_node;
        if rpn == 0 {
            return Err(input_err!("shape.ranks_per_node: must be at least 1, got 0"));
        }
        if let Some(sizes) = &self.shape.clusters {
            if sizes.is_empty() {
                return Err(input_err!("shape.clusters: the list of cluster sizes is empty"));
            }
            for (i, &n) in sizes.iter().enumerate() {
                if n == 0 {
                    return Err(input_err!("shape.clusters: cluster {i} has 0 ranks; sizes must be positive"));
                }
                if n % rpn != 0 {
                    return Err(input_err!(
                        "shape.ranks_per_node: {rpn} does not divide the size {n} of cluster {i}; every cluster \
                         must hold whole nodes"
                    ));
                }
            }
        }
        let n = num_clusters(self);
        match &self.wan {
            None if n > 1 => {
                return Err(input_err!(
                    "shape.clusters: {n} clusters need wide-area links; add a [wan] section with latency and \
                     bandwidth"
                ))
            }
            Some(w) if w.hub >= n => {
                return Err(input_err!(
                    "wan.hub: cluster {} does not exist; the platform has {n} cluster{} (0..{})",
                    w.hub,
                    if n == 1 { "" } else { "s" },
                    n - 1
                ))
            }
            _ => {}
        }
        let nz = &self.noise;
        match (nz.detour_interval.is_none(), nz.detour_duration.is_none()) {
            (false, true) => {
                return Err(input_err!("noise.detour_interval is given without noise.detour_duration; give both"))
            }
            (true, false) => {
                return Err(input_err!("noise.detour_duration is given without noise.detour_interval; give both"))
            }
            (false, false) if nz.detour_interval.mean_ps() <= 0.0 => {
                return Err(input_err!(
                    "noise.detour_interval: \"{}\" has mean 0; the time between detours must be positive",
                    nz.detour_interval
                ))
            }
            _ => {}
        }
        variability::validate(self, n)?;
        Ok(())
    }

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
        let _ = writeln!(out, "ranks_per_node = {}", self.shape.ranks_per_node);
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
        out
    }
}
