//! Generated data and payload encoding shared by the applications.
//!
//! Data come from seeded ChaCha streams (DESIGN.md: randomness only from seeded
//! ChaCha), with random access, so that each rank generates only its own part of a
//! data set and every rank agrees on every value.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;

/// Stream `stream` of `seed`: one application uses a different stream number for
/// each of its data sets.
pub fn stream(seed: u64, stream: u64) -> ChaCha12Rng {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// A value in [0, 1) from the top 53 bits of one 64-bit draw.
pub fn unit_f64(rng: &mut ChaCha12Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Values `index .. index + len` of the sequence of [`unit_f64`] draws from
/// `stream(seed, id)`: the same numbers whichever rank asks, in O(len).
pub fn unit_f64s_at(seed: u64, id: u64, index: u64, len: usize) -> Vec<f64> {
    let mut rng = stream(seed, id);
    // One draw is one u64, two 32-bit words of the stream.
    rng.set_word_pos(u128::from(index) * 2);
    (0..len).map(|_| unit_f64(&mut rng)).collect()
}

/// `len` bytes of `rng`.
pub fn bytes(rng: &mut ChaCha12Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    rng.fill_bytes(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_access_agrees_with_sequential_draws() {
        let mut rng = stream(7, 3);
        let all: Vec<f64> = (0..100).map(|_| unit_f64(&mut rng)).collect();
        assert_eq!(unit_f64s_at(7, 3, 37, 20), all[37..57]);
        assert!(all.iter().all(|v| (0.0..1.0).contains(v)));
        assert_ne!(unit_f64s_at(7, 4, 0, 4), all[..4]);
    }
}
