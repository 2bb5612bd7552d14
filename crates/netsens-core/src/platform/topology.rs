//! A platform's `[topology]`: the shape of the switched network inside a cluster
//! (fat-tree, torus, dragonfly or a listed graph), where its ranks' nodes sit, and
//! how concurrent messages share its links (docs/guides/topology.md).
//!
//! This module only reads and checks the description; `crate::fabric` builds the
//! links and routes from it for one run.
//!
//! ```toml
//! [topology]
//! kind = "fat-tree"            # fat-tree | torus | dragonfly | graph
//! down = [16, 4]               # fat-tree: children of a switch per level, leaves first
//! taper = "2:1"                # or up = [8]: parents of a switch per level below the top
//! bandwidth = "12.5GB/s"       # per level (a list) or every level
//! latency = "100ns"
//! placement = "linear"         # linear | round-robin | random | [host of node 0, ...]
//! model = "max-min"            # max-min | lv08 | cm02 (SimGrid's models)
//! ```

use crate::error::Result;
use crate::input_err;
use crate::time::{PerByte, Time};
use crate::units::{parse_per_byte, parse_size, parse_time};
use serde::Serialize;
use toml::{Table, Value};

/// One kind of link: its bandwidth (as a per-byte cost) and one-way latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    pub per_byte: PerByte,
    pub latency: Time,
}

/// A link of a `graph` topology between two named vertices (hosts `h0`, `h1`, ... or
/// listed switches).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphLink {
    pub ends: (String, String),
    pub spec: LinkSpec,
    /// Name of the link's class in the link statistics (`"link"` unless given).
    pub class: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Shape {
    /// An extended generalised fat-tree: `down[i]` children and `up[i]` parents per
    /// switch of level i + 1 (leaves are level 1; the top has no parents), a host has
    /// one link; `links[i]` joins level i to level i + 1 (level 0: the hosts).
    FatTree { down: Vec<u32>, up: Vec<u32>, links: Vec<LinkSpec> },
    /// A torus (or mesh where `wrap` is false) of routers, one host each;
    /// dimension-order routing, the shorter way round a ring (ties upward).
    Torus { dims: Vec<u32>, wrap: Vec<bool>, link: LinkSpec },
    /// Groups of routers, all-to-all inside a group, one global link between every two
    /// groups; minimal routing (local, global, local), or Valiant's through an
    /// intermediate group (`valiant`).
    Dragonfly {
        groups: u32,
        routers: u32,
        hosts: u32,
        host: LinkSpec,
        local: LinkSpec,
        global: LinkSpec,
        valiant: bool,
    },
    /// Hosts `h0..h{hosts-1}`, switches and links as listed; shortest paths (hops),
    /// equal-cost paths spread by (source, destination).
    Graph { hosts: u32, switches: Vec<String>, links: Vec<GraphLink> },
}

/// Which host each node (a group of `ranks_per_node` ranks) sits on.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Node i on host i.
    Linear,
    /// Nodes dealt to the first-hop switches in turn (node 0 on switch 0, node 1 on
    /// switch 1, ...), filling each switch's hosts in order.
    RoundRobin,
    /// A seeded random permutation of the hosts.
    Random(u64),
    /// Node i on host `list[i]`.
    List(Vec<u32>),
}

/// How flows share a link (SimGrid's CM02/LV08 family; docs/guides/topology.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sharing {
    /// `max-min`, `lv08` or `cm02`: the model the factors below started from.
    pub model: String,
    /// A flow's route latency is multiplied by this before its bytes move.
    pub latency_factor: f64,
    /// Every link carries this fraction of its bandwidth.
    pub bandwidth_factor: f64,
    /// Flows weigh 1 / (route latency + weight_s · Σ 1/bandwidth) in the sharing
    /// (SimGrid's RTT-unfair sharing); false: every flow weighs 1 (plain max-min).
    pub rtt_weighted: bool,
    /// SimGrid's weight-S, bytes.
    pub weight_s: f64,
    /// SimGrid's TCP window gamma, bytes: a flow moves at most gamma / (2 · latency);
    /// 0 = no such bound.
    pub tcp_gamma: f64,
}

impl Sharing {
    fn named(p: &str, name: &str) -> Result<Sharing> {
        let (lf, bf, rtt, ws, gamma) = match name {
            "max-min" => (1.0, 1.0, false, 0.0, 0.0),
            // SimGrid 3.32's defaults for these models (network/TCP-gamma 4 MiB).
            "lv08" => (13.01, 0.97, true, 20537.0, 4_194_304.0),
            "cm02" => (1.0, 1.0, true, 0.0, 4_194_304.0),
            other => return Err(input_err!("{p}: unknown sharing model \"{other}\"; write max-min, lv08 or cm02")),
        };
        Ok(Sharing {
            model: name.to_string(),
            latency_factor: lf,
            bandwidth_factor: bf,
            rtt_weighted: rtt,
            weight_s: ws,
            tcp_gamma: gamma,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Topology {
    pub shape: Shape,
    pub placement: Placement,
    pub sharing: Sharing,
    /// The file it came from, for errors found when a run places its ranks.
    #[serde(skip)]
    pub origin: String,
    /// The `[topology]` section as written, so that `to_toml` writes it back.
    #[serde(skip)]
    pub table: Table,
}

impl PartialEq for Topology {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.placement == other.placement && self.sharing == other.sharing
    }
}

const KINDS: &str = "fat-tree, torus, dragonfly or graph";
const COMMON_KEYS: &[&str] =
    &["kind", "placement", "seed", "model", "latency_factor", "bandwidth_factor", "weight_s", "tcp_gamma"];
const FAT_TREE_KEYS: &[&str] = &["levels", "radix", "down", "up", "taper", "bandwidth", "latency"];
const TORUS_KEYS: &[&str] = &["dims", "wrap", "routing", "bandwidth", "latency"];
const DRAGONFLY_KEYS: &[&str] = &[
    "groups",
    "routers",
    "hosts",
    "routing",
    "host_bandwidth",
    "host_latency",
    "local_bandwidth",
    "local_latency",
    "global_bandwidth",
    "global_latency",
];
const GRAPH_KEYS: &[&str] = &["hosts", "switches", "links", "routing"];
const GRAPH_LINK_KEYS: &[&str] = &["ends", "bandwidth", "latency", "class"];
/// Hosts and switches, and links, of one topology at most (the fabric's tables grow
/// with them; a graph's route table with hosts × vertices).
const MAX_VERTICES: u64 = 1 << 22;
const MAX_LINKS: u128 = 1 << 24;
const MAX_ROUTE_TABLE: u64 = 1 << 26;
/// Levels of a fat-tree and dimensions of a torus at most.
const MAX_LEVELS: usize = 16;

fn field(key: &str) -> String {
    format!("topology.{key}")
}

fn as_str<'a>(p: &str, v: &'a Value, example: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| input_err!("{p}: expected a string such as {example}, found a {}", v.type_str()))
}

fn whole(p: &str, v: &Value, example: &str) -> Result<u64> {
    match v {
        Value::Integer(i) if *i >= 1 => Ok(*i as u64),
        Value::Integer(i) => Err(input_err!("{p}: {i} must be at least 1; write a whole number such as {example}")),
        other => Err(input_err!("{p}: expected a whole number such as {example}, found a {}", other.type_str())),
    }
}

/// A value given once for every item or as a list of `n` items.
fn each<'a>(p: &str, v: &'a Value, n: usize) -> Result<Vec<(String, &'a Value)>> {
    match v {
        Value::Array(a) if a.len() == n => Ok(a.iter().enumerate().map(|(i, x)| (format!("{p}[{i}]"), x)).collect()),
        Value::Array(a) => {
            Err(input_err!("{p}: {} values for {n} levels; give one per level or a single value", a.len()))
        }
        single => Ok((0..n).map(|_| (p.to_string(), single)).collect()),
    }
}

fn counts(p: &str, v: &Value, example: &str) -> Result<Vec<u32>> {
    let Value::Array(a) = v else {
        return Err(input_err!("{p}: expected a list of whole numbers such as {example}, found a {}", v.type_str()));
    };
    if a.is_empty() {
        return Err(input_err!("{p}: the list is empty; write a list such as {example}"));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| whole(&format!("{p}[{i}]"), x, example).map(|n| u32::try_from(n).unwrap_or(u32::MAX)))
        .collect()
}

fn bandwidth(p: &str, v: &Value) -> Result<PerByte> {
    let text = as_str(p, v, "\"12.5GB/s\"")?;
    let per_byte = parse_per_byte(p, text).map_err(|e| match e {
        // The unit parser's own hint (0ns/B: no per-byte cost) is no link.
        crate::Error::Input(m) if m.contains("is zero") => {
            input_err!("{p}: \"{text}\" is no bandwidth; a link needs one above 0, such as \"12.5GB/s\"")
        }
        other => other,
    })?;
    if per_byte.is_zero() {
        return Err(input_err!("{p}: a link needs a finite bandwidth; write one such as \"12.5GB/s\""));
    }
    Ok(per_byte)
}

fn latency(p: &str, v: &Value) -> Result<Time> {
    parse_time(p, as_str(p, v, "\"100ns\"")?)
}

/// A required key of the section.
fn need<'a>(t: &'a Table, key: &str, example: &str) -> Result<&'a Value> {
    t.get(key).ok_or_else(|| input_err!("{} is missing; write {key} = {example}", field(key)))
}

/// Bandwidth and latency from `bw_key` and `lat_key` (latency 0 when absent).
fn link_spec(t: &Table, bw_key: &str, lat_key: &str) -> Result<LinkSpec> {
    let per_byte = bandwidth(&field(bw_key), need(t, bw_key, "\"12.5GB/s\"")?)?;
    let latency = t.get(lat_key).map_or(Ok(0), |v| latency(&field(lat_key), v))?;
    Ok(LinkSpec { per_byte, latency })
}

fn check_keys(t: &Table, accepted: &[&str], what: &str) -> Result<()> {
    for key in t.keys() {
        if !COMMON_KEYS.contains(&key.as_str()) && !accepted.contains(&key.as_str()) {
            return Err(input_err!(
                "{}: not a key of a {what} topology; accepted keys: {}, {}",
                field(key),
                COMMON_KEYS.join(", "),
                accepted.join(", ")
            ));
        }
    }
    Ok(())
}

fn only_minimal(t: &Table, accepted: &str) -> Result<()> {
    match t.get("routing") {
        None => Ok(()),
        Some(v) => {
            let p = field("routing");
            let r = as_str(&p, v, &format!("\"{accepted}\""))?;
            if r == accepted {
                Ok(())
            } else {
                Err(input_err!("{p}: unknown routing \"{r}\"; this topology routes {accepted}"))
            }
        }
    }
}

/// A taper `"2:1"` (or a number 2): down ports per up port.
fn taper(p: &str, v: &Value) -> Result<(u64, u64)> {
    let text = match v {
        Value::Integer(i) => format!("{i}:1"),
        Value::String(s) => s.clone(),
        other => return Err(input_err!("{p}: expected a ratio such as \"2:1\", found a {}", other.type_str())),
    };
    let bad = || input_err!("{p}: \"{text}\" is not a ratio of whole numbers such as \"2:1\"");
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let (a, b): (u64, u64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a == 0 || b == 0 {
        return Err(input_err!("{p}: \"{text}\" leaves no path up the tree; both sides must be at least 1"));
    }
    Ok((a, b))
}

fn fat_tree(t: &Table) -> Result<Shape> {
    check_keys(t, FAT_TREE_KEYS, "fat-tree")?;
    let down = match (t.get("down"), t.get("radix")) {
        (Some(_), Some(_)) => return Err(input_err!("{}: give down or radix, not both", field("radix"))),
        (Some(v), None) => counts(&field("down"), v, "[16, 4]")?,
        (None, Some(v)) => {
            let radix = whole(&field("radix"), v, "16")?;
            let levels = whole(&field("levels"), need(t, "levels", "2")?, "2")?;
            if levels > MAX_LEVELS as u64 {
                return Err(input_err!("{}: {levels} levels; at most {MAX_LEVELS}", field("levels")));
            }
            if radix < 2 || radix % 2 == 1 {
                return Err(input_err!(
                    "{}: {radix} must be even and at least 2 (half the ports go down)",
                    field("radix")
                ));
            }
            let half = u32::try_from(radix / 2).unwrap_or(u32::MAX);
            // k-ary tree: half the ports down and half up below the top, all down at the top.
            let mut d = vec![half; levels as usize - 1];
            d.push(half.saturating_mul(2));
            d
        }
        (None, None) => return Err(input_err!("{} is missing; write down = [16, 4] or radix = 16", field("down"))),
    };
    if down.len() > MAX_LEVELS {
        return Err(input_err!("{}: {} levels; at most {MAX_LEVELS}", field("down"), down.len()));
    }
    if let Some(v) = t.get("levels") {
        let levels = whole(&field("levels"), v, "2")?;
        if levels as usize != down.len() {
            return Err(input_err!("{}: {levels} levels but down lists {}", field("levels"), down.len()));
        }
    }
    let below_top = down.len() - 1;
    let up = match (t.get("up"), t.get("taper")) {
        (Some(_), Some(_)) => return Err(input_err!("{}: give up or taper, not both", field("taper"))),
        (Some(v), None) => {
            let up = counts(&field("up"), v, "[8]")?;
            if up.len() != below_top {
                return Err(input_err!(
                    "{}: {} values; a {}-level tree has {below_top} levels below the top",
                    field("up"),
                    up.len(),
                    down.len()
                ));
            }
            up
        }
        (None, Some(v)) => each(&field("taper"), v, below_top)?
            .into_iter()
            .zip(&down)
            .map(|((p, v), &d)| {
                let (a, b) = taper(&p, v)?;
                let up = d as u64 * b / a;
                if up == 0 {
                    return Err(input_err!("{p}: {a}:{b} leaves no up port on a switch of {d} down ports"));
                }
                if !(d as u64 * b).is_multiple_of(a) {
                    return Err(input_err!("{p}: {a}:{b} of {d} down ports is not a whole number of up ports"));
                }
                Ok(u32::try_from(up).unwrap_or(u32::MAX))
            })
            .collect::<Result<Vec<u32>>>()?,
        (None, None) => down[..below_top].to_vec(),
    };
    let levels = down.len();
    let bws = each(&field("bandwidth"), need(t, "bandwidth", "\"12.5GB/s\"")?, levels)?;
    let lats = match t.get("latency") {
        Some(v) => {
            each(&field("latency"), v, levels)?.into_iter().map(|(p, v)| latency(&p, v)).collect::<Result<_>>()?
        }
        None => vec![0; levels],
    };
    let links = bws
        .into_iter()
        .zip(lats)
        .map(|((p, v), latency)| Ok(LinkSpec { per_byte: bandwidth(&p, v)?, latency }))
        .collect::<Result<Vec<_>>>()?;
    // Vertices: hosts = Π down; switches of level l = Π_{j>l} down_j · Π_{j<l} up_j.
    let product = |xs: &[u32]| xs.iter().fold(1u128, |p, &x| p.saturating_mul(x as u128));
    let mut vertices = product(&down);
    for l in 0..levels {
        vertices = vertices.saturating_add(product(&down[l + 1..]).saturating_mul(product(&up[..l])));
    }
    if vertices > MAX_VERTICES as u128 {
        return Err(input_err!(
            "{}: the tree has {vertices} hosts and switches; at most {MAX_VERTICES}",
            field("down")
        ));
    }
    Ok(Shape::FatTree { down, up, links })
}

fn torus(t: &Table) -> Result<Shape> {
    check_keys(t, TORUS_KEYS, "torus")?;
    only_minimal(t, "dimension-order")?;
    let dims = counts(&field("dims"), need(t, "dims", "[4, 4, 4]")?, "[4, 4, 4]")?;
    if dims.len() > MAX_LEVELS {
        return Err(input_err!("{}: {} dimensions; at most {MAX_LEVELS}", field("dims"), dims.len()));
    }
    let wrap = match t.get("wrap") {
        None => vec![true; dims.len()],
        Some(v) => each(&field("wrap"), v, dims.len())?
            .into_iter()
            .map(|(p, v)| {
                v.as_bool().ok_or_else(|| input_err!("{p}: expected true or false, found a {}", v.type_str()))
            })
            .collect::<Result<_>>()?,
    };
    let n: u128 = dims.iter().fold(1u128, |p, &d| p.saturating_mul(d as u128));
    if n > MAX_VERTICES as u128 {
        return Err(input_err!("{}: {n} routers; at most {MAX_VERTICES}", field("dims")));
    }
    Ok(Shape::Torus { dims, wrap, link: link_spec(t, "bandwidth", "latency")? })
}

fn dragonfly(t: &Table) -> Result<Shape> {
    check_keys(t, DRAGONFLY_KEYS, "dragonfly")?;
    let valiant = match t.get("routing") {
        None => false,
        Some(v) => match as_str(&field("routing"), v, "\"minimal\" or \"valiant\"")? {
            "minimal" => false,
            "valiant" => true,
            r => {
                let p = field("routing");
                return Err(input_err!("{p}: unknown routing \"{r}\"; a dragonfly routes minimal or valiant"));
            }
        },
    };
    let num = |key: &str, ex: &str| -> Result<u32> {
        Ok(u32::try_from(whole(&field(key), need(t, key, ex)?, ex)?).unwrap_or(u32::MAX))
    };
    let (groups, routers, hosts) = (num("groups", "9")?, num("routers", "4")?, num("hosts", "2")?);
    let (g, r, h) = (groups as u128, routers as u128, hosts as u128);
    if g * r * (h + 1) > MAX_VERTICES as u128 || g * g + g * r * r > MAX_LINKS {
        return Err(input_err!(
            "{}: {groups} groups of {routers} routers of {hosts} hosts is too large; at most {MAX_VERTICES} hosts \
             and routers and {MAX_LINKS} links",
            field("groups")
        ));
    }
    let local = link_spec(t, "local_bandwidth", "local_latency")?;
    let global = link_spec(t, "global_bandwidth", "global_latency")?;
    // Host links default to the local links.
    let host = LinkSpec {
        per_byte: t.get("host_bandwidth").map_or(Ok(local.per_byte), |v| bandwidth(&field("host_bandwidth"), v))?,
        latency: t.get("host_latency").map_or(Ok(local.latency), |v| latency(&field("host_latency"), v))?,
    };
    Ok(Shape::Dragonfly { groups, routers, hosts, host, local, global, valiant })
}

fn graph(t: &Table) -> Result<Shape> {
    check_keys(t, GRAPH_KEYS, "graph")?;
    only_minimal(t, "shortest-path")?;
    let hosts = u32::try_from(whole(&field("hosts"), need(t, "hosts", "8")?, "8")?).unwrap_or(u32::MAX);
    let switches: Vec<String> = match t.get("switches") {
        None => Vec::new(),
        Some(Value::Integer(n)) if *n >= 0 && *n as u64 <= MAX_VERTICES => (0..*n).map(|i| format!("s{i}")).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| as_str(&format!("{}[{i}]", field("switches")), v, "\"s0\"").map(str::to_string))
            .collect::<Result<_>>()?,
        Some(v) => {
            return Err(input_err!(
                "{}: expected a count or a list of names, found a {}",
                field("switches"),
                v.type_str()
            ))
        }
    };
    let vertices = hosts as u64 + switches.len() as u64;
    if vertices > MAX_VERTICES || hosts as u64 * vertices > MAX_ROUTE_TABLE {
        return Err(input_err!(
            "{}: {hosts} hosts and {} switches is too large a graph (hosts × vertices at most {MAX_ROUTE_TABLE})",
            field("hosts"),
            switches.len()
        ));
    }
    let Some(Value::Array(items)) = t.get("links") else {
        return Err(input_err!(
            "{} is missing; list them as [[topology.links]] with ends = [\"h0\", \"s0\"] and a bandwidth",
            field("links")
        ));
    };
    let mut links = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{}[{i}]", field("links"));
        let Value::Table(l) = item else {
            return Err(input_err!("{p}: expected a table with ends, bandwidth and latency"));
        };
        for key in l.keys() {
            if !GRAPH_LINK_KEYS.contains(&key.as_str()) {
                return Err(input_err!("{p}.{key}: unknown key; accepted keys: {}", GRAPH_LINK_KEYS.join(", ")));
            }
        }
        let ends = match l.get("ends") {
            Some(Value::Array(e)) if e.len() == 2 => {
                let name = |j: usize| as_str(&format!("{p}.ends[{j}]"), &e[j], "\"h0\"").map(str::to_string);
                (name(0)?, name(1)?)
            }
            _ => return Err(input_err!("{p}.ends: write the two ends such as ends = [\"h0\", \"s0\"]")),
        };
        let per_byte = match l.get("bandwidth") {
            Some(v) => bandwidth(&format!("{p}.bandwidth"), v)?,
            None => return Err(input_err!("{p}.bandwidth is missing; write bandwidth = \"12.5GB/s\"")),
        };
        let latency = l.get("latency").map_or(Ok(0), |v| latency(&format!("{p}.latency"), v))?;
        let class = match l.get("class") {
            Some(v) => as_str(&format!("{p}.class"), v, "\"uplink\"")?.to_string(),
            None => "link".to_string(),
        };
        links.push(GraphLink { ends, spec: LinkSpec { per_byte, latency }, class });
    }
    Ok(Shape::Graph { hosts, switches, links })
}

/// The placements a `[topology]` takes, for errors.
const PLACEMENTS: &str = "linear, round-robin, random, random:SEED or a list of hosts";

/// `"random:7"`: a random placement with its seed in the name, so that a study axis
/// can vary it (without a `seed` key beside it).
fn seeded_random(p: &str, name: &str, seed: Option<u64>) -> Result<Placement> {
    if seed.is_some() {
        return Err(input_err!("{p}: \"{name}\" names its seed; leave {} out", field("seed")));
    }
    let given = name["random:".len()..].parse::<u64>();
    let bad = |_| input_err!("{p}: \"{name}\": the seed after random: is a whole number such as 7");
    Ok(Placement::Random(given.map_err(bad)?))
}

fn placement(t: &Table) -> Result<Placement> {
    let p = field("placement");
    let seed = match t.get("seed") {
        Some(Value::Integer(i)) if *i >= 0 => Some(*i as u64),
        Some(_) => return Err(input_err!("{}: expected a whole number such as 7", field("seed"))),
        None => None,
    };
    let placement = match t.get("placement") {
        None => Placement::Linear,
        Some(Value::String(s)) => match s.as_str() {
            "linear" => Placement::Linear,
            "round-robin" => Placement::RoundRobin,
            "random" => Placement::Random(seed.unwrap_or(1)),
            other if other.starts_with("random:") => seeded_random(&p, other, seed)?,
            other => return Err(input_err!("{p}: unknown placement \"{other}\"; write {PLACEMENTS}")),
        },
        Some(Value::Array(a)) => Placement::List(
            a.iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Integer(h) if *h >= 0 && *h <= u32::MAX as i64 => Ok(*h as u32),
                    _ => Err(input_err!("{p}[{i}]: expected a host number such as 0")),
                })
                .collect::<Result<_>>()?,
        ),
        Some(v) => {
            return Err(input_err!("{p}: expected a name such as \"linear\" or a list, found a {}", v.type_str()))
        }
    };
    if seed.is_some() && !matches!(placement, Placement::Random(_)) {
        return Err(input_err!("{}: a seed is only used with placement = \"random\"", field("seed")));
    }
    Ok(placement)
}

fn factor(t: &Table, key: &str, old: f64, min_exclusive: f64) -> Result<f64> {
    match t.get(key) {
        None => Ok(old),
        Some(v) => {
            let p = field(key);
            let x = match v {
                Value::Float(f) => *f,
                Value::Integer(i) => *i as f64,
                other => return Err(input_err!("{p}: expected a number such as 1.0, found a {}", other.type_str())),
            };
            if !x.is_finite() || x <= min_exclusive {
                return Err(input_err!("{p}: {x} must be a finite number above {min_exclusive}"));
            }
            Ok(x)
        }
    }
}

fn bytes(t: &Table, key: &str, old: f64) -> Result<f64> {
    match t.get(key) {
        None => Ok(old),
        Some(v) => {
            let p = field(key);
            Ok(parse_size(&p, as_str(&p, v, "\"20537B\"")?)? as f64)
        }
    }
}

fn sharing(t: &Table) -> Result<Sharing> {
    let p = field("model");
    let name = t.get("model").map_or(Ok("max-min"), |v| as_str(&p, v, "\"max-min\""))?;
    let s = Sharing::named(&p, name)?;
    let weight_s = bytes(t, "weight_s", s.weight_s)?;
    Ok(Sharing {
        latency_factor: factor(t, "latency_factor", s.latency_factor, 0.0)?,
        bandwidth_factor: factor(t, "bandwidth_factor", s.bandwidth_factor, 0.0)?,
        rtt_weighted: s.rtt_weighted || t.contains_key("weight_s"),
        weight_s,
        tcp_gamma: bytes(t, "tcp_gamma", s.tcp_gamma)?,
        model: s.model,
    })
}

impl Topology {
    /// The `[topology]` section of the file `origin` (errors name `topology.<field>`;
    /// the platform reader prefixes the file).
    pub fn from_table(t: &Table, origin: &str) -> Result<Topology> {
        let p = field("kind");
        let kind = as_str(&p, need(t, "kind", "\"fat-tree\"")?, "\"fat-tree\"")?;
        let shape = match kind {
            "fat-tree" => fat_tree(t)?,
            "torus" => torus(t)?,
            "dragonfly" => dragonfly(t)?,
            "graph" => graph(t)?,
            other => return Err(input_err!("{p}: unknown topology \"{other}\"; write {KINDS}")),
        };
        Ok(Topology {
            shape,
            placement: placement(t)?,
            sharing: sharing(t)?,
            origin: origin.to_string(),
            table: t.clone(),
        })
    }

    /// An error found when a run builds or places this topology: one line naming the
    /// file and the field.
    pub fn error(&self, key: &str, msg: impl std::fmt::Display) -> crate::error::Error {
        input_err!("{}: {}: {msg}", self.origin, field(key))
    }
}
