//! Ping-pong over message sizes: ranks 0 and 1 bounce a message of 1 B, 2 B, 4 B, …
//! up to the preset's largest size, `reps` round trips per size; any other rank
//! idles. The payload is seeded random bytes and rank 0 checks that every echo equals
//! what it sent. Each size is a phase named by its size (`1B`, …, `1KiB`, …), so
//! the profile gives the time per size: on an idle network one round trip of `s`
//! bytes (eager) costs 2·(2o + L + (s−1)·G), the α–β line the calibration recovers.

use crate::app::{App, Backend, Job, Size};
use crate::data;
use netsens_core::program::Rank;
use netsens_core::{input_err, Result};

pub const APP: App = App {
    name: "pingpong",
    description: "ranks 0 and 1 exchange messages of 1 B, 2 B, 4 B ... (example, not the suite)",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

const TAG: i32 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Largest message (a power of two), bytes.
    pub max_bytes: usize,
    /// Round trips per size.
    pub reps: u32,
    /// Seed of the payloads.
    pub seed: u64,
}

impl Config {
    /// tiny: up to 1 KiB, 2 round trips; small: 64 KiB, 10; paper: 1 MiB, 20.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (max_bytes, reps) = match size {
            Size::Tiny => (1 << 10, 2),
            Size::Small => (64 << 10, 10),
            Size::Paper => (1 << 20, 20),
        };
        Config { max_bytes, reps, seed }
    }

    /// The message sizes, 1 B doubling up to `max_bytes`.
    pub fn sizes(&self) -> impl Iterator<Item = usize> {
        let max = self.max_bytes;
        std::iter::successors(Some(1usize), |s| s.checked_mul(2)).take_while(move |&s| s <= max)
    }
}

/// A size as a phase name: `512B`, `1KiB`, `64KiB`, `1MiB`.
pub fn label(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

/// The program: ranks 0 and 1 play, the others return at once.
pub async fn pingpong<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let w = r.world();
    let me = r.rank();
    if me > 1 {
        return Ok(());
    }
    for (i, size) in cfg.sizes().enumerate() {
        let name = label(size);
        r.phase(&name);
        // One payload stream per size; every round trip sends fresh bytes.
        let mut rng = data::stream(cfg.seed, i as u64);
        for rep in 0..cfg.reps {
            if me == 0 {
                let sent = data::bytes(&mut rng, size);
                r.send(&w, 1, TAG, sent.clone()).await;
                let echo = r.recv(&w, 1, TAG).await;
                if echo.data != sent {
                    return Err(format!("the echo of round trip {rep} of {name} differs from what rank 0 sent"));
                }
            } else {
                let m = r.recv(&w, 0, TAG).await;
                if m.data.len() != size {
                    return Err(format!("round trip {rep} of {name} brought {} bytes", m.data.len()));
                }
                r.send(&w, 0, TAG, m.data).await;
            }
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    if job.ranks < 2 {
        return Err(input_err!(
            "pingpong needs at least 2 ranks (ranks 0 and 1 play, any others idle), got {}",
            job.ranks
        ));
    }
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| pingpong(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_labels() {
        let cfg = Config::preset(Size::Tiny, 0);
        let labels: Vec<String> = cfg.sizes().map(label).collect();
        assert_eq!(labels.len(), 11);
        assert_eq!((labels[0].as_str(), labels[9].as_str(), labels[10].as_str()), ("1B", "512B", "1KiB"));
        assert_eq!(Config::preset(Size::Paper, 0).sizes().last().map(label).as_deref(), Some("1MiB"));
    }
}
