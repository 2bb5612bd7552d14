//! The radix-2 FFT that `ft` (NPB's 3-D FFT) and `fft1d` (the wide-area suite's 1-D
//! FFT) both compute with: complex numbers as `[re, im]`, twiddle factors planned once
//! per transform length.

use std::f64::consts::PI;

/// A complex number (re, im).
pub(crate) type C = [f64; 2];

pub(crate) fn mul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}

/// e^(−2πi·k/n).
pub(crate) fn root(k: usize, n: usize) -> C {
    let (s, c) = (-2.0 * PI * (k % n) as f64 / n as f64).sin_cos();
    [c, s]
}

/// Twiddle factors of a length-n transform: exp(−2πik/n), k < n/2.
pub(crate) struct Plan(Vec<C>);

impl Plan {
    pub(crate) fn new(n: usize) -> Plan {
        Plan((0..n / 2).map(|k| root(k, n)).collect())
    }
}

/// In-place radix-2 FFT of a power-of-two length (inverse: conjugate twiddles, no
/// scaling).
pub(crate) fn fft(a: &mut [C], plan: &Plan, inverse: bool) {
    let n = a.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            a.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let (half, step) = (len / 2, n / len);
        for start in (0..n).step_by(len) {
            for k in 0..half {
                let w = plan.0[k * step];
                let v = mul(a[start + k + half], if inverse { [w[0], -w[1]] } else { w });
                let u = a[start + k];
                a[start + k] = [u[0] + v[0], u[1] + v[1]];
                a[start + k + half] = [u[0] - v[0], u[1] - v[1]];
            }
        }
        len <<= 1;
    }
}
