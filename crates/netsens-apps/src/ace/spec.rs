//! An emulated application's specification: `pattern=ring,size=1MB,load=30%,
//! iterations=100,ranks=0-15`, parsed and checked before anything runs.

use super::pattern::Pattern;
use netsens_core::units::parse_size;
use netsens_core::{input_err, Result};

/// One emulated application (EA): a pattern repeated in compute/communicate cycles on
/// its own set of ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct EaSpec {
    pub pattern: Pattern,
    /// Message size in bytes (per destination for alltoall, gather and scatter).
    pub size: u64,
    /// Share of a cycle spent communicating, strictly between 0 and 1.
    pub load: f64,
    /// Cycles of phase two.
    pub iterations: u32,
    /// World ranks, ascending.
    pub ranks: Vec<u32>,
    /// Repetitions of each size in phase one's benchmark.
    pub bench_reps: u32,
}

/// The keys of a specification, for the error message.
const KEYS: &str = "pattern, size, load, iterations, ranks, reps";

impl EaSpec {
    /// Parse `text` (`key=value` pairs separated by commas); `world` is the number of
    /// ranks of the run when known (needed by `even`, `odd` and `all`).
    pub fn parse(text: &str, world: Option<u32>) -> Result<EaSpec> {
        let ctx = |msg: String| input_err!("--ea \"{text}\": {msg}");
        let (mut pattern, mut size, mut load, mut iterations, mut ranks, mut reps) =
            (None, None, None, 100u32, None, 10u32);
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) =
                part.split_once('=').ok_or_else(|| ctx(format!("\"{part}\" is not key=value; keys: {KEYS}")))?;
            let value = value.trim();
            match key.trim() {
                "pattern" => pattern = Some(Pattern::parse(value).map_err(&ctx)?),
                "size" => size = Some(parse_size("size", value).map_err(|e| ctx(e.to_string()))?),
                "load" => load = Some(parse_load(value).map_err(&ctx)?),
                "iterations" => iterations = parse_count("iterations", value).map_err(&ctx)?,
                "reps" => reps = parse_count("reps", value).map_err(&ctx)?,
                "ranks" => ranks = Some(parse_ranks(value, world).map_err(&ctx)?),
                other => return Err(ctx(format!("unknown key \"{other}\"; keys: {KEYS}"))),
            }
        }
        let pattern = pattern.ok_or_else(|| ctx(format!("needs a pattern; patterns: {}", Pattern::NAMES)))?;
        let ranks = ranks.ok_or_else(|| ctx("needs ranks, e.g. ranks=0-15".into()))?;
        let spec = EaSpec {
            pattern,
            size: size.ok_or_else(|| ctx("needs a size with its unit, e.g. size=64KiB".into()))?,
            load: load.ok_or_else(|| ctx("needs a load between 1% and 99%, e.g. load=30%".into()))?,
            iterations,
            ranks,
            bench_reps: reps,
        };
        if spec.ranks.len() < pattern.min_ranks() {
            return Err(ctx(format!(
                "{} needs at least {} ranks, got {}",
                pattern.name(),
                pattern.min_ranks(),
                spec.ranks.len()
            )));
        }
        if spec.size == 0 {
            return Err(ctx("size must be at least 1B".into()));
        }
        Ok(spec)
    }
}

/// `30%`: a load carries its unit and lies strictly inside (0 %, 100 %).
fn parse_load(text: &str) -> std::result::Result<f64, String> {
    let number = text.strip_suffix('%').ok_or_else(|| format!("load \"{text}\" needs its unit, e.g. load=30%"))?;
    let pct: f64 = number.trim().parse().map_err(|_| format!("load \"{text}\" is not a percentage, e.g. load=30%"))?;
    if !(pct > 0.0 && pct < 100.0) {
        return Err(format!(
            "load {text} must be above 0% and below 100% (a cycle needs both compute and communication)"
        ));
    }
    Ok(pct / 100.0)
}

fn parse_count(key: &str, text: &str) -> std::result::Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{key} \"{text}\" must be a whole number of at least 1")),
    }
}

/// `0-15`, `7`, `even`, `odd`, `all`, or several joined by `+` (`0-3+8-11`).
pub fn parse_ranks(text: &str, world: Option<u32>) -> std::result::Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in text.split('+').map(str::trim) {
        let whole = |what: &str| {
            world.ok_or_else(|| format!("ranks \"{what}\" needs the run's rank count (--ranks or a platform shape)"))
        };
        match part {
            "all" => out.extend(0..whole(part)?),
            "even" => out.extend((0..whole(part)?).step_by(2)),
            "odd" => out.extend((1..whole(part)?).step_by(2)),
            _ => {
                let number = |s: &str| {
                    s.trim().parse::<u32>().map_err(|_| format!("ranks \"{part}\": expected N, A-B, even, odd or all"))
                };
                let (a, b) = match part.split_once('-') {
                    Some((a, b)) => (number(a)?, number(b)?),
                    None => (number(part)?, number(part)?),
                };
                if a > b {
                    return Err(format!("ranks \"{part}\": the range is empty"));
                }
                out.extend(a..=b);
            }
        }
    }
    out.sort_unstable();
    if let Some(w) = out.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("ranks \"{text}\": rank {} is listed twice", w[0]));
    }
    Ok(out)
}

/// Check a set of EAs together: no rank in two EAs, none past the run's `world`.
pub fn check_all(specs: &[EaSpec], world: u32) -> Result<()> {
    if specs.is_empty() {
        return Err(input_err!("ace: needs at least one --ea"));
    }
    let mut owner = vec![None; world as usize];
    for (i, spec) in specs.iter().enumerate() {
        for &r in &spec.ranks {
            let slot = owner.get_mut(r as usize).ok_or_else(|| {
                input_err!(
                    "EA {}: rank {r} is past the platform's {world} ranks (0-{})",
                    i + 1,
                    world.saturating_sub(1)
                )
            })?;
            if let Some(j) = *slot {
                return Err(input_err!("EA {} and EA {} overlap: rank {r} is in both", j + 1, i + 1));
            }
            *slot = Some(i);
        }
    }
    Ok(())
}
