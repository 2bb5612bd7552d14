//! One value read into its field, from TOML or from the command line: strings with
//! units, whole numbers, keywords and cluster sizes. Each error names the field.

use crate::error::Result;
use crate::input_err;
use crate::platform::{Rendezvous, WanShape, ALL_RANKS};
use toml::Value;

/// A value given as text with a unit. Numbers are turned into text so that the unit
/// parsers report them as missing a unit (`L = 5` → `"5" has no unit`).
pub(super) fn text(p: &str, v: &Value, example: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        other => Err(input_err!("{p}: expected a string such as \"{example}\", found a {}", other.type_str())),
    }
}

/// A plain string value (names, keywords).
pub(super) fn string<'a>(p: &str, v: &'a Value, example: &str) -> Result<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(input_err!("{p}: expected a string such as \"{example}\", found a {}", other.type_str())),
    }
}

/// A whole number (a TOML integer, or a string of digits).
pub(super) fn count(p: &str, v: &Value, example: &str) -> Result<u64> {
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        Value::Integer(i) => Err(input_err!("{p}: {i} is negative; write a whole number such as {example}")),
        Value::String(s) => parse_count(p, s, example),
        other => Err(input_err!("{p}: expected a whole number such as {example}, found a {}", other.type_str())),
    }
}

pub(super) fn parse_count(p: &str, s: &str, example: &str) -> Result<u64> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| input_err!("{p}: \"{s}\" is not a whole number; write a whole number such as {example}"))
}

/// Ranks per node: a whole number, or `all` (one node holding every rank).
pub(super) fn parse_ranks_per_node(p: &str, s: &str) -> Result<u32> {
    if s.trim() == "all" {
        return Ok(ALL_RANKS);
    }
    Ok(u32::try_from(parse_count(p, s, "1 or \"all\"")?).unwrap_or(u32::MAX))
}

/// The `ranks_per_node` value of `[shape]`: a whole number or `"all"`.
pub(super) fn ranks_per_node_value(p: &str, v: &Value) -> Result<u32> {
    match v {
        Value::String(s) => parse_ranks_per_node(p, s),
        other => Ok(u32::try_from(count(p, other, "1 or \"all\"")?).unwrap_or(u32::MAX)),
    }
}

pub(super) fn parse_rendezvous(p: &str, s: &str) -> Result<Rendezvous> {
    match s.trim() {
        "handshake" => Ok(Rendezvous::Handshake),
        "loggopsim" => Ok(Rendezvous::Loggopsim),
        other => Err(input_err!("{p}: unknown rendezvous protocol \"{other}\"; write handshake or loggopsim")),
    }
}

/// Active Messages' window of outstanding requests per destination: a whole number ≥ 1.
pub(super) fn parse_am_window(p: &str, s: &str) -> Result<u32> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err(input_err!("{p}: a window of 0 requests lets none through; write a whole number ≥ 1 such as 4")),
        Ok(w) => Ok(w),
        Err(_) => Err(input_err!("{p}: \"{s}\" is not a whole number of requests; write a whole number ≥ 1 such as 4")),
    }
}

/// The `am_window` value of a platform file: a TOML integer ≥ 1 (or a string of digits).
pub(super) fn am_window_value(p: &str, v: &Value) -> Result<u32> {
    match v {
        Value::Integer(i) => parse_am_window(p, &i.to_string()),
        Value::String(s) => parse_am_window(p, s),
        other => Err(input_err!("{p}: expected a whole number of requests such as 4, found a {}", other.type_str())),
    }
}

pub(super) fn parse_wan_shape(p: &str, s: &str) -> Result<WanShape> {
    match s.trim() {
        "full" => Ok(WanShape::Full),
        "star" => Ok(WanShape::Star),
        "ring" => Ok(WanShape::Ring),
        other => Err(input_err!("{p}: unknown wide-area shape \"{other}\"; write full, star or ring")),
    }
}

pub(super) fn parse_cpu_speed(p: &str, s: &str) -> Result<f64> {
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
pub(super) fn clusters_value(p: &str, v: &Value) -> Result<Option<Vec<u32>>> {
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
