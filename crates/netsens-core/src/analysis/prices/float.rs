//! The engine's rounding of a price, in floats and in instructions that work on
//! several lanes at once (a pass's loop computes a node's cost in every lane
//! together): the same numbers as the integer arithmetic where the floats are exact.

/// The larger and the smaller of two values that are never NaN (as `f64::max` and
/// `f64::min` there, in instructions that work on several lanes at once).
#[inline(always)]
pub(crate) fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
pub(crate) fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// Products `bytes · fs` below this are exact in f64, and so is the rounding of
/// [`fs_time`]: its quotient is under 2^43, whose float is within 0.001 of it.
pub(crate) const EXACT_FS: f64 = 8.0e15;

/// `bytes · fs / 1000` ps rounded half up, as [`Rate::time`] does it in integers
/// (the same number where `bytes · fs < EXACT_FS`): the division is correctly
/// rounded, and a quotient under 2^43 that is not whole is at least 0.001 from the
/// next whole number, more than the float's error.
#[inline(always)]
pub(crate) fn fs_time(bytes: f64, fs: f64) -> f64 {
    ((bytes * fs + 500.0) / 1000.0).floor()
}

/// `y.round()` for `y ≥ 0` (half away from zero, as [`compute_time`]), in
/// instructions that work on several lanes at once: `y - floor(y)` is exact.
#[inline(always)]
pub(crate) fn round_half_up(y: f64) -> f64 {
    let r = y.floor();
    if y - r >= 0.5 {
        r + 1.0
    } else {
        r
    }
}
