//! Named distributions for noise, sampled from seeded ChaCha streams.
//!
//! Draws are in picoseconds: a real-valued draw is clamped at 0 and rounded to the
//! nearest picosecond. `none` and `constant` consume no randomness; `uniform` draws an
//! integer number of picoseconds, inclusive of both bounds.

use crate::error::Result;
use crate::input_err;
use crate::time::Time;
use crate::units::{format_time, parse_time};
use rand::RngExt;
use rand_chacha::ChaCha12Rng;
use rand_distr::{Distribution, Exp1, StandardNormal};
use serde::Serialize;

const DIST_EXAMPLE: &str =
    "write none, constant(2us), uniform(0ns, 5us), exponential(2us), normal(5us, 1us) or lognormal(5us, 1us)";

/// A distribution of non-negative times. Text forms: `none`, `constant(2us)`,
/// `uniform(0ns, 5us)`, `exponential(2us)` (mean), `normal(5us, 1us)` (mean, sd;
/// negative draws clamp to 0), `lognormal(5us, 1us)` (mean, sd of the distribution).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Dist {
    None,
    Constant(Time),
    Uniform(Time, Time),
    Exponential(Time),
    Normal(Time, Time),
    LogNormal(Time, Time),
}

/// A real-valued draw in picoseconds → `Time`: negatives (and NaN) clamp to 0, the rest
/// round to the nearest picosecond, saturating at `Time::MAX`.
fn to_ps(x: f64) -> Time {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= Time::MAX as f64 {
        Time::MAX
    } else {
        x.round() as Time
    }
}

impl Dist {
    pub fn parse(param: &str, text: &str) -> Result<Dist> {
        let t = text.trim();
        if t == "none" {
            return Ok(Dist::None);
        }
        let Some((name, rest)) = t.split_once('(') else {
            return Err(input_err!("{param}: \"{t}\" is not a distribution; {DIST_EXAMPLE}"));
        };
        let Some(inner) = rest.strip_suffix(')') else {
            return Err(input_err!("{param}: \"{t}\" is missing its closing parenthesis; {DIST_EXAMPLE}"));
        };
        let name = name.trim();
        let arity = match name {
            "constant" | "exponential" => 1,
            "uniform" | "normal" | "lognormal" => 2,
            _ => return Err(input_err!("{param}: unknown distribution \"{name}\" in \"{t}\"; {DIST_EXAMPLE}")),
        };
        let args: Vec<&str> = if inner.trim().is_empty() { Vec::new() } else { inner.split(',').collect() };
        if args.len() != arity {
            let what = if arity == 1 { "1 time" } else { "2 times" };
            return Err(input_err!("{param}: {name} takes {what}, got {} in \"{t}\"; {DIST_EXAMPLE}", args.len()));
        }
        let args = args.iter().map(|a| parse_time(param, a)).collect::<Result<Vec<Time>>>()?;
        Ok(match name {
            "constant" => Dist::Constant(args[0]),
            "exponential" => Dist::Exponential(args[0]),
            "uniform" => {
                if args[0] > args[1] {
                    return Err(input_err!("{param}: \"{t}\" has its lower bound above its upper bound"));
                }
                Dist::Uniform(args[0], args[1])
            }
            "normal" => Dist::Normal(args[0], args[1]),
            _ => {
                if args[0] == 0 && args[1] > 0 {
                    return Err(input_err!(
                        "{param}: \"{t}\" needs a positive mean (a lognormal distribution has no draws at 0)"
                    ));
                }
                Dist::LogNormal(args[0], args[1])
            }
        })
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Dist::None)
    }

    /// The nominal mean in picoseconds, as written (for `normal`, before clamping
    /// negative draws to 0). 0 for `None`.
    pub fn mean_ps(&self) -> f64 {
        match *self {
            Dist::None => 0.0,
            Dist::Constant(t) | Dist::Exponential(t) | Dist::Normal(t, _) | Dist::LogNormal(t, _) => t as f64,
            Dist::Uniform(a, b) => (a as f64 + b as f64) / 2.0,
        }
    }

    /// One draw in picoseconds (0 for `None`).
    pub fn sample(&self, rng: &mut ChaCha12Rng) -> Time {
        match *self {
            Dist::None => 0,
            Dist::Constant(t) => t,
            Dist::Uniform(a, b) => {
                if a == b {
                    a
                } else {
                    rng.random_range(a..=b)
                }
            }
            Dist::Exponential(mean) => {
                if mean == 0 {
                    0
                } else {
                    let e: f64 = Exp1.sample(rng);
                    to_ps(mean as f64 * e)
                }
            }
            Dist::Normal(mean, sd) => {
                if sd == 0 {
                    mean
                } else {
                    let z: f64 = StandardNormal.sample(rng);
                    to_ps(mean as f64 + sd as f64 * z)
                }
            }
            Dist::LogNormal(mean, sd) => {
                if sd == 0 || mean == 0 {
                    mean
                } else {
                    // exp(N(mu, sigma^2)) has mean m and sd s when
                    // sigma^2 = ln(1 + s^2/m^2) and mu = ln(m) - sigma^2/2.
                    let cv = sd as f64 / mean as f64;
                    let sigma2 = (cv * cv).ln_1p();
                    let mu = (mean as f64).ln() - sigma2 / 2.0;
                    let z: f64 = StandardNormal.sample(rng);
                    to_ps((mu + sigma2.sqrt() * z).exp())
                }
            }
        }
    }
}

impl std::fmt::Display for Dist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Dist::None => write!(f, "none"),
            Dist::Constant(t) => write!(f, "constant({})", format_time(t)),
            Dist::Uniform(a, b) => write!(f, "uniform({}, {})", format_time(a), format_time(b)),
            Dist::Exponential(m) => write!(f, "exponential({})", format_time(m)),
            Dist::Normal(m, s) => write!(f, "normal({}, {})", format_time(m), format_time(s)),
            Dist::LogNormal(m, s) => write!(f, "lognormal({}, {})", format_time(m), format_time(s)),
        }
    }
}
