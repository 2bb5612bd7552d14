//! Variability beyond jitter and detours, as the ACE seed's setting needs: background
//! traffic (periodic or random messages between two ranks or across a wide-area
//! link, with their own size) and soft faults (a node or a link whose L, G or o is
//! multiplied by a factor during a time window). Both are part of `[noise]`:
//!
//! ```toml
//! [[noise.background]]
//! between = [0, 8]              # ranks; or link = [0, 1]: the wide-area link from cluster 0 to 1
//! size = "64KiB"
//! interval = "constant(100us)"  # periodic; "exponential(100us)" for random (Poisson) traffic
//! start = "0us"                 # optional
//!
//! [[noise.faults]]
//! node = 5                      # or link = [3, 4]: the messages between ranks 3 and 4
//! param = "L"                   # L, G or o
//! factor = 10.0
//! from = "1ms"
//! to = "2ms"
//! ```

use super::Dist;
use crate::error::Result;
use crate::input_err;
use crate::time::Time;
use crate::units::{format_size, format_time, parse_size, parse_time};
use serde::Serialize;
use std::fmt::Write as _;
use toml::{Table, Value};

/// Where a background flow's messages go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Route {
    /// From one rank to another: they occupy the sender's and receiver's NICs.
    Ranks(u32, u32),
    /// Across the wide-area link from one cluster to another: they occupy the link.
    WanLink(u32, u32),
}

/// Background traffic: messages of `size` bytes every `interval` from `start`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flow {
    pub route: Route,
    pub size: u64,
    pub interval: Dist,
    pub start: Time,
}

/// What a soft fault degrades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// Every message to or from the rank.
    Node(u32),
    /// Every message between the two ranks, either way.
    Link(u32, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Param {
    L,
    G,
    O,
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::L => "L",
            Param::G => "G",
            Param::O => "o",
        }
    }
}

/// A parameter multiplied by `factor` for messages that start in `[from, to)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fault {
    pub target: Target,
    pub param: Param,
    pub factor: f64,
    pub from: Time,
    pub to: Time,
}

impl Fault {
    pub fn covers(&self, a: u32, b: u32, t: Time) -> bool {
        let hit = match self.target {
            Target::Node(n) => a == n || b == n,
            Target::Link(x, y) => (a, b) == (x, y) || (a, b) == (y, x),
        };
        hit && t >= self.from && t < self.to
    }
}

const FLOW_KEYS: &[&str] = &["between", "link", "size", "interval", "start"];
const FAULT_KEYS: &[&str] = &["node", "link", "param", "factor", "from", "to"];

fn tables<'a>(p: &str, v: &'a Value) -> Result<Vec<&'a Table>> {
    let list = v.as_array().ok_or_else(|| input_err!("{p}: expected a list of tables, e.g. [[{p}]]"))?;
    list.iter()
        .map(|t| t.as_table().ok_or_else(|| input_err!("{p}: expected a list of tables, e.g. [[{p}]]")))
        .collect()
}

fn check_keys(t: &Table, p: &str, keys: &[&str]) -> Result<()> {
    match t.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(input_err!("{p}.{k}: unknown key; keys: {}", keys.join(", "))),
        None => Ok(()),
    }
}

fn text<'a>(p: &str, t: &'a Table, key: &str, example: &str) -> Result<Option<&'a str>> {
    match t.get(key) {
        None => Ok(None),
        Some(v) => v.as_str().map(Some).ok_or_else(|| input_err!("{p}.{key}: expected a string such as \"{example}\"")),
    }
}

fn needed<T>(p: &str, key: &str, v: Option<T>, example: &str) -> Result<T> {
    v.ok_or_else(|| input_err!("{p}.{key}: missing; e.g. {key} = {example}"))
}

fn rank(p: &str, v: &Value) -> Result<u32> {
    v.as_integer()
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| input_err!("{p}: expected a rank number such as 3, got {v}"))
}

fn pair(p: &str, v: &Value) -> Result<(u32, u32)> {
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok((rank(p, a)?, rank(p, b)?)),
        _ => Err(input_err!("{p}: expected two numbers such as [0, 8], got {v}")),
    }
}

/// `[[noise.background]]` tables.
pub fn parse_flows(v: &Value) -> Result<Vec<Flow>> {
    let base = "noise.background";
    tables(base, v)?
        .into_iter()
        .map(|t| {
            check_keys(t, base, FLOW_KEYS)?;
            let route = match (t.get("between"), t.get("link")) {
                (Some(v), None) => {
                    let (a, b) = pair(&format!("{base}.between"), v)?;
                    if a == b {
                        return Err(input_err!("{base}.between: a flow needs two different ranks, got [{a}, {b}]"));
                    }
                    Route::Ranks(a, b)
                }
                (None, Some(v)) => {
                    let (a, b) = pair(&format!("{base}.link"), v)?;
                    Route::WanLink(a, b)
                }
                _ => return Err(input_err!("{base}: give either between = [rank, rank] or link = [cluster, cluster]")),
            };
            let size = parse_size(
                &format!("{base}.size"),
                needed(base, "size", text(base, t, "size", "64KiB")?, "\"64KiB\"")?,
            )?;
            let interval_text =
                needed(base, "interval", text(base, t, "interval", "constant(100us)")?, "\"constant(100us)\"")?;
            let interval = Dist::parse(&format!("{base}.interval"), interval_text)?;
            if interval.mean_ps() <= 0.0 {
                return Err(input_err!(
                    "{base}.interval: \"{interval_text}\" has mean 0; the time between messages must be positive"
                ));
            }
            let start = match text(base, t, "start", "0us")? {
                Some(s) => parse_time(&format!("{base}.start"), s)?,
                None => 0,
            };
            Ok(Flow { route, size, interval, start })
        })
        .collect()
}

/// `[[noise.faults]]` tables.
pub fn parse_faults(v: &Value) -> Result<Vec<Fault>> {
    let base = "noise.faults";
    tables(base, v)?
        .into_iter()
        .map(|t| {
            check_keys(t, base, FAULT_KEYS)?;
            let target = match (t.get("node"), t.get("link")) {
                (Some(v), None) => Target::Node(rank(&format!("{base}.node"), v)?),
                (None, Some(v)) => {
                    let (a, b) = pair(&format!("{base}.link"), v)?;
                    Target::Link(a, b)
                }
                _ => return Err(input_err!("{base}: give either node = rank or link = [rank, rank]")),
            };
            let param = match needed(base, "param", text(base, t, "param", "L")?, "\"L\"")? {
                "L" => Param::L,
                "G" => Param::G,
                "o" => Param::O,
                other => return Err(input_err!("{base}.param: \"{other}\" is not L, G or o")),
            };
            let factor = match t.get("factor") {
                Some(Value::Float(f)) => *f,
                Some(Value::Integer(i)) => *i as f64,
                Some(v) => return Err(input_err!("{base}.factor: expected a number such as 10.0, got {v}")),
                None => return Err(input_err!("{base}.factor: missing; e.g. factor = 10.0")),
            };
            if !(factor.is_finite() && factor > 0.0) {
                return Err(input_err!("{base}.factor: must be a finite number above 0, got {factor}"));
            }
            let from =
                parse_time(&format!("{base}.from"), needed(base, "from", text(base, t, "from", "1ms")?, "\"1ms\"")?)?;
            let to = parse_time(&format!("{base}.to"), needed(base, "to", text(base, t, "to", "2ms")?, "\"2ms\"")?)?;
            if to <= from {
                return Err(input_err!(
                    "{base}: the window from {} to {} is empty",
                    format_time(from),
                    format_time(to)
                ));
            }
            Ok(Fault { target, param, factor, from, to })
        })
        .collect()
}

/// The flows and faults as TOML that reads back with the parsers above.
pub fn write_toml(out: &mut String, flows: &[Flow], faults: &[Fault]) {
    for f in flows {
        let _ = writeln!(out, "\n[[noise.background]]");
        let _ = match f.route {
            Route::Ranks(a, b) => writeln!(out, "between = [{a}, {b}]"),
            Route::WanLink(a, b) => writeln!(out, "link = [{a}, {b}]"),
        };
        let _ = writeln!(out, "size = \"{}\"", format_size(f.size));
        let _ = writeln!(out, "interval = \"{}\"", f.interval);
        let _ = writeln!(out, "start = \"{}\"", format_time(f.start));
    }
    for f in faults {
        let _ = writeln!(out, "\n[[noise.faults]]");
        let _ = match f.target {
            Target::Node(n) => writeln!(out, "node = {n}"),
            Target::Link(a, b) => writeln!(out, "link = [{a}, {b}]"),
        };
        let _ = writeln!(out, "param = \"{}\"", f.param.name());
        let _ = writeln!(out, "factor = {:?}", f.factor);
        let _ = writeln!(out, "from = \"{}\"", format_time(f.from));
        let _ = writeln!(out, "to = \"{}\"", format_time(f.to));
    }
}

/// Wide-area flows need links between two existing, different clusters (`n` of
/// them); ranks are checked against the run's size when it starts ([`check_ranks`]).
pub fn validate(p: &super::Platform, n: usize) -> Result<()> {
    for f in &p.noise.background {
        if let Route::WanLink(a, b) = f.route {
            if p.wan.is_none() || a == b || a as usize >= n || b as usize >= n {
                return Err(input_err!(
                    "noise.background.link: [{a}, {b}] is not a wide-area link; give two different clusters of \
                     the {n} with [wan] links"
                ));
            }
        }
    }
    Ok(())
}

/// Every rank a flow or fault names exists in a run of `ranks` ranks, and no flow
/// between ranks sends faster than a NIC takes its messages (`g + (s−1)G` of the
/// `cluster` level): it alone would saturate the NIC and starve every other message.
pub fn check_run(noise: &super::Noise, ranks: u32, cluster: &super::LevelParams) -> Result<()> {
    for f in &noise.background {
        let busy = cluster.gap + cluster.gap_per_byte.cost(f.size.saturating_sub(1));
        if matches!(f.route, Route::Ranks(..)) && f.interval.mean_ps() <= busy as f64 {
            return Err(input_err!(
                "noise.background.interval: \"{}\" is faster than a NIC takes {} messages ({} each); the flow \
                 alone would saturate it",
                f.interval,
                format_size(f.size),
                format_time(busy)
            ));
        }
    }
    let named = noise
        .background
        .iter()
        .filter_map(|f| match f.route {
            Route::Ranks(a, b) => Some(("noise.background.between", a.max(b))),
            Route::WanLink(..) => None,
        })
        .chain(noise.faults.iter().map(|f| match f.target {
            Target::Node(n) => ("noise.faults.node", n),
            Target::Link(a, b) => ("noise.faults.link", a.max(b)),
        }));
    for (p, r) in named {
        if r >= ranks {
            return Err(input_err!("{p}: rank {r} does not exist in a run of {ranks} ranks"));
        }
    }
    Ok(())
}
