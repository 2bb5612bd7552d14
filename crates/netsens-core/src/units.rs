//! Parsing and printing of quantities with units (DESIGN.md "Conventions").
//!
//! Every parser takes the parameter's name so that its error names it and shows an
//! accepted example, e.g. `L: "5" has no unit; write a time such as 5us`.
//!
//! Accepted units (optional whitespace between number and unit; decimal numbers such as
//! `2.5us` are fine, but the result must be exact and non-negative):
//! - time: `ps ns us µs μs ms s`;
//! - per-byte cost: a time per byte (`6ns/B`, `0ns/B`, `333.333ps/B`; whole femtoseconds
//!   per byte), or a bandwidth that is inverted and rounded to the nearest fs/B:
//!   `B/s KB/s MB/s GB/s TB/s` (decimal bytes, `kB/s` too), `KiB/s MiB/s GiB/s TiB/s`
//!   (binary bytes), `bit/s Kbit/s Mbit/s Gbit/s Tbit/s` (decimal bits);
//! - size: `B` (or GOAL's lowercase `b`), `KB MB GB TB` (decimal, `kB` too),
//!   `KiB MiB GiB TiB` (binary).
//!
//! The `format_*` functions print the shortest exact text that the matching parser
//! reads back to the same value.

use crate::error::Result;
use crate::input_err;
use crate::time::{PerByte, Time, MS, NS, S, US};

const TIME_EXAMPLE: &str = "write a time such as 5us";
const PER_BYTE_EXAMPLE: &str = "write a per-byte cost such as 6ns/B or a bandwidth such as 10Gbit/s";
const SIZE_EXAMPLE: &str = "write a size such as 64KiB";

/// Femtoseconds in one second (per-byte costs are kept in fs/B).
const FS_PER_S: u128 = 1_000_000_000_000_000;

/// A non-negative decimal number read exactly: `digits / 10^scale`.
struct Decimal {
    digits: u128,
    scale: u32,
}

/// Time units and their length in picoseconds.
fn time_unit_ps(unit: &str) -> Option<u64> {
    Some(match unit {
        "ps" => 1,
        "ns" => NS,
        "us" | "µs" | "μs" => US,
        "ms" => MS,
        "s" => S,
        _ => return None,
    })
}

/// Byte-count units and their size in bytes (`lowercase_b`: also GOAL's `b`).
fn byte_unit(unit: &str, lowercase_b: bool) -> Option<u64> {
    Some(match unit {
        "B" => 1,
        "b" if lowercase_b => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => return None,
    })
}

/// Bit-count units for bandwidths, in bits.
fn bit_unit(unit: &str) -> Option<u64> {
    Some(match unit {
        "bit" => 1,
        "Kbit" | "kbit" => 1_000,
        "Mbit" => 1_000_000,
        "Gbit" => 1_000_000_000,
        "Tbit" => 1_000_000_000_000,
        _ => return None,
    })
}

/// Split `text` into its number and its unit, checking the number's form and sign.
/// `example` ends the error messages (e.g. "write a time such as 5us").
fn split<'a>(param: &str, text: &'a str, example: &str) -> Result<(Decimal, &'a str)> {
    let t = text.trim();
    if t.is_empty() {
        return Err(input_err!("{param}: empty value; {example}"));
    }
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (&t[..end], t[end..].trim_start());
    let (negative, body) = match num.as_bytes().first() {
        Some(b'-') => (true, &num[1..]),
        Some(b'+') => (false, &num[1..]),
        _ => (false, num),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let well_formed = !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    if !well_formed {
        return Err(input_err!("{param}: \"{t}\" is not a number followed by a unit; {example}"));
    }
    if negative {
        return Err(input_err!("{param}: \"{t}\" is negative; {example}"));
    }
    if unit.is_empty() {
        return Err(input_err!("{param}: \"{t}\" has no unit; {example}"));
    }
    let frac = frac.trim_end_matches('0');
    let mut digits: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        digits = digits
            .checked_mul(10)
            .and_then(|d| d.checked_add(u128::from(b - b'0')))
            .ok_or_else(|| too_large(param, t))?;
    }
    let scale = frac.len() as u32;
    if 10u128.checked_pow(scale).is_none() {
        return Err(input_err!("{param}: \"{t}\" has too many decimal places"));
    }
    Ok((Decimal { digits, scale }, unit))
}

fn too_large(param: &str, text: &str) -> crate::error::Error {
    input_err!("{param}: \"{text}\" is too large")
}

/// `d * factor`, required to be a whole number that fits in a u64.
fn exact(param: &str, text: &str, d: &Decimal, factor: u64, what: &str) -> Result<u64> {
    let t = text.trim();
    let n = d.digits.checked_mul(u128::from(factor)).ok_or_else(|| too_large(param, t))?;
    let den = 10u128.pow(d.scale);
    if n % den != 0 {
        return Err(input_err!("{param}: \"{t}\" is not a whole number of {what}"));
    }
    u64::try_from(n / den).map_err(|_| too_large(param, t))
}

/// A time: `5us`, `2.5µs`, `3ms`, `40ps`, `1.5ns`, `2s`, `0ns` → picoseconds.
pub fn parse_time(param: &str, text: &str) -> Result<Time> {
    let (d, unit) = split(param, text, TIME_EXAMPLE)?;
    let Some(factor) = time_unit_ps(unit) else {
        return Err(input_err!("{param}: unknown unit \"{unit}\" in \"{}\"; {TIME_EXAMPLE}", text.trim()));
    };
    exact(param, text, &d, factor, "picoseconds")
}

/// A per-byte cost, either as time per byte (`6ns/B`, `40ps/B`) or as a bandwidth
/// (`1MB/s`, `10Gbit/s`, `12.5GB/s`, `100MiB/s`) which is inverted.
pub fn parse_per_byte(param: &str, text: &str) -> Result<PerByte> {
    let (d, unit) = split(param, text, PER_BYTE_EXAMPLE)?;
    let t = text.trim();
    let unknown = || input_err!("{param}: unknown unit \"{unit}\" in \"{t}\"; {PER_BYTE_EXAMPLE}");
    if let Some(time_unit) = unit.strip_suffix("/B") {
        let ps = time_unit_ps(time_unit).ok_or_else(unknown)?;
        return Ok(PerByte(exact(param, text, &d, ps * 1000, "femtoseconds per byte")?));
    }
    if let Some(amount_unit) = unit.strip_suffix("/s") {
        // bytes per second = digits * num / (10^scale * den); fs/B = 1e15 / that.
        let (num, den) = if let Some(bytes) = byte_unit(amount_unit, false) {
            (bytes, 1u128)
        } else if let Some(bits) = bit_unit(amount_unit) {
            (bits, 8u128)
        } else {
            return Err(unknown());
        };
        if d.digits == 0 {
            return Err(input_err!(
                "{param}: bandwidth \"{t}\" is zero; write a positive bandwidth such as 10Gbit/s, \
                 or 0ns/B for no per-byte cost"
            ));
        }
        let top = FS_PER_S
            .checked_mul(10u128.pow(d.scale))
            .and_then(|x| x.checked_mul(den))
            .ok_or_else(|| input_err!("{param}: \"{t}\" has too many decimal places"))?;
        let bottom = d.digits.checked_mul(u128::from(num)).ok_or_else(|| too_large(param, t))?;
        // Round to nearest: floor(top / bottom + 1/2).
        let fs = top / bottom + u128::from(top % bottom >= bottom - bottom / 2);
        if fs == 0 {
            return Err(input_err!(
                "{param}: bandwidth \"{t}\" is too high to express (less than 1 fs per byte); \
                 write 0ns/B for no per-byte cost"
            ));
        }
        return u64::try_from(fs).map(PerByte).map_err(|_| too_large(param, t));
    }
    if time_unit_ps(unit).is_some() {
        return Err(input_err!(
            "{param}: \"{t}\" is a time, not a per-byte cost; write {t}/B, or a bandwidth such as 10Gbit/s"
        ));
    }
    Err(unknown())
}

/// A size in bytes: `100B`, `64KiB`, `1MB`, `65535B`.
pub fn parse_size(param: &str, text: &str) -> Result<u64> {
    let (d, unit) = split(param, text, SIZE_EXAMPLE)?;
    let Some(factor) = byte_unit(unit, true) else {
        return Err(input_err!("{param}: unknown unit \"{unit}\" in \"{}\"; {SIZE_EXAMPLE}", text.trim()));
    };
    exact(param, text, &d, factor, "bytes")
}

/// `value / factor` as exact decimal text (`factor` a power of ten), without trailing zeros.
fn decimal_text(value: u64, factor: u64) -> String {
    let (int, frac) = (value / factor, value % factor);
    if frac == 0 {
        return int.to_string();
    }
    let width = factor.ilog10() as usize;
    let frac = format!("{frac:0width$}");
    format!("{int}.{}", frac.trim_end_matches('0'))
}

/// The shortest exact text of `value` (in the smallest unit, the last of `units`) among
/// the units it is at least one of; ties go to the larger unit.
fn shortest(value: u64, units: &[(u64, &str)]) -> String {
    let mut best: Option<String> = None;
    for (i, &(factor, name)) in units.iter().enumerate() {
        if value < factor && i + 1 < units.len() {
            continue;
        }
        let text = format!("{}{name}", decimal_text(value, factor));
        if best.as_ref().is_none_or(|b| text.chars().count() < b.chars().count()) {
            best = Some(text);
        }
    }
    best.unwrap_or_default()
}

/// `1500000` ps → `1.5us` (shortest exact form that `parse_time` reads back).
pub fn format_time(ps: Time) -> String {
    if ps == 0 {
        return "0ns".to_string();
    }
    shortest(ps, &[(S, "s"), (MS, "ms"), (US, "us"), (NS, "ns"), (1, "ps")])
}

/// `PerByte` → `6ns/B` (exact, reads back with `parse_per_byte`).
pub fn format_per_byte(cost: PerByte) -> String {
    let fs = cost.fs_per_byte();
    if fs == 0 {
        return "0ns/B".to_string();
    }
    let units = [(S * 1000, "s"), (MS * 1000, "ms"), (US * 1000, "us"), (NS * 1000, "ns"), (1000, "ps")];
    format!("{}/B", shortest(fs, &units))
}

/// Bytes → `64KiB` when exact, else `65535B`.
pub fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0B".to_string();
    }
    let units = ["TiB", "GiB", "MiB", "KiB", "TB", "GB", "MB", "KB", "B"];
    let mut best = format!("{bytes}B");
    for unit in units {
        let factor = byte_unit(unit, false).unwrap_or(1);
        if bytes.is_multiple_of(factor) {
            let text = format!("{}{unit}", bytes / factor);
            if text.len() < best.len() {
                best = text;
            }
        }
    }
    best
}

/// An approximate, human-readable bandwidth for a per-byte cost, e.g. `38MB/s` for
/// 26.315789ns/B, with at most four significant digits (decimal units). `0ns/B` is
/// `unlimited`. For comments and reports only: it need not read back exactly.
pub fn format_bandwidth_approx(cost: PerByte) -> String {
    let fs = cost.fs_per_byte();
    if fs == 0 {
        return "unlimited".to_string();
    }
    let bytes_per_s = FS_PER_S as f64 / fs as f64;
    let (scale, unit) = [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "KB/s"), (1.0, "B/s")]
        .into_iter()
        .find(|&(scale, _)| bytes_per_s >= scale)
        .unwrap_or((1.0, "B/s"));
    let v = bytes_per_s / scale;
    let decimals = if v >= 1000.0 {
        0
    } else if v >= 100.0 {
        1
    } else if v >= 10.0 {
        2
    } else {
        3
    };
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    format!("{text}{unit}")
}
