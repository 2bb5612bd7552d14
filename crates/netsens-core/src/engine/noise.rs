//! Seeded noise during a run: one ChaCha stream per (run seed, host) for latency
//! jitter and CPU detours, and one per wide-area link. Streams are created lazily,
//! so a noiseless run pays nothing and the draws do not depend on unrelated hosts.

use crate::platform::{Dist, Noise};
use crate::time::Time;
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;
use std::collections::HashMap;

/// Stream ids: kind in the top bits, index below, so streams never collide.
const JITTER: u64 = 1 << 60;
const DETOUR: u64 = 2 << 60;
const WAN: u64 = 3 << 60;

struct Detours {
    rng: ChaCha12Rng,
    /// Start of the next detour on this host.
    next: Time,
}

pub(crate) struct NoiseState {
    seed: u64,
    spec: Noise,
    jitter_on: bool,
    wan_on: bool,
    detours_on: bool,
    streams: HashMap<u64, ChaCha12Rng>,
    detours: HashMap<u32, Detours>,
}

impl NoiseState {
    pub fn new(spec: &Noise, seed: u64) -> Self {
        NoiseState {
            seed,
            jitter_on: !spec.latency_jitter.is_none(),
            wan_on: !spec.wan_jitter.is_none(),
            detours_on: !spec.detour_interval.is_none() && !spec.detour_duration.is_none(),
            spec: spec.clone(),
            streams: HashMap::new(),
            detours: HashMap::new(),
        }
    }

    /// Whether message latencies can vary, so that per-pair order must be enforced.
    pub fn reorders(&self) -> bool {
        self.jitter_on || self.wan_on
    }

    fn stream(seed: u64, id: u64) -> ChaCha12Rng {
        let mut rng = ChaCha12Rng::seed_from_u64(seed);
        rng.set_stream(id);
        rng
    }

    fn draw(&mut self, dist_is_wan: bool, id: u64) -> Time {
        let seed = self.seed;
        let rng = self.streams.entry(id).or_insert_with(|| Self::stream(seed, id));
        let dist: &Dist = if dist_is_wan { &self.spec.wan_jitter } else { &self.spec.latency_jitter };
        dist.sample(rng)
    }

    /// Extra latency of a message leaving `host`.
    #[inline]
    pub fn latency_jitter(&mut self, host: u32) -> Time {
        if !self.jitter_on {
            return 0;
        }
        self.draw(false, JITTER | host as u64)
    }

    /// Extra latency of one traversal of wide-area link `link`.
    #[inline]
    pub fn wan_jitter(&mut self, link: usize) -> Time {
        if !self.wan_on {
            return 0;
        }
        self.draw(true, WAN | link as u64)
    }

    /// The CPU of `host` is busy from `start` for `len`; returns the detour time
    /// that lands inside the busy interval (which stretches it).
    #[inline]
    pub fn detour(&mut self, host: u32, start: Time, len: Time) -> Time {
        if !self.detours_on {
            return 0;
        }
        let (seed, spec) = (self.seed, &self.spec);
        let d = self.detours.entry(host).or_insert_with(|| {
            let mut rng = Self::stream(seed, DETOUR | host as u64);
            let next = spec.detour_interval.sample(&mut rng).max(1);
            Detours { rng, next }
        });
        // Detours that fell in idle time cost nothing.
        // Saturating: a busy interval near the engine's largest time stops the run
        // where the caller adds `extra` to its clock (checked there).
        while d.next < start {
            d.next = d.next.saturating_add(spec.detour_interval.sample(&mut d.rng).max(1));
        }
        let mut end = start.saturating_add(len);
        let mut extra: Time = 0;
        while d.next < end {
            let dur = spec.detour_duration.sample(&mut d.rng);
            extra = extra.saturating_add(dur);
            end = end.saturating_add(dur);
            d.next = d.next.saturating_add(spec.detour_interval.sample(&mut d.rng).max(1));
        }
        extra
    }
}
