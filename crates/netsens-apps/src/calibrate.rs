//! The seeds' LogP calibration (Martin, Vahdat, Culler, Anderson, ISCA'97), extended
//! to LogGOPS: a handful of two-rank microbenchmarks that time themselves with
//! [`Rank::now`] (the wall clock of a real run), and an analysis that turns their
//! timings into estimates of L, o (send and receive side), g, G, O and S, plus the
//! α–β line of the ping-pong. In simulation it recovers the dialled parameters of the
//! platform's cluster level; on a real machine it would measure what that delivers.
//!
//! # Method
//! Two ranks on separate nodes of one cluster. Every timing below is one rank's clock
//! difference, so the ranks need no common clock. A message of `s` bytes has
//! `k = s − 1` extra bytes; `s_e` is the largest eager size probed (`k_e = s_e − 1`).
//!
//! **Bursts.** Rank 0 sends `n` messages of `s` bytes back to back, computing `Δ`
//! between them; the interval between the ends of consecutive sends is, in steady
//! state, `P(k, Δ) = max(o + k·O + Δ, g + k·G)`: the CPU or the NIC binds.
//! - `P₀ = P(0, 0) = max(o, g)`.
//! - **o_s** `= P(0, Δ₁) − Δ₁` with `Δ₁ = P₀`, which makes `o + Δ₁ ≥ g` (the CPU binds).
//!   Where the CPU binds, `P(k, Δ) − Δ` is each send's time from the end of the compute
//!   before it: the spaced bursts are timed so, which on a real machine keeps a compute
//!   that lasts longer on the wall clock than charged from passing for overhead.
//! - **g** `= P₀` when `P₀ > o_s` (the NIC binds). Otherwise `g ≤ o` and a burst of
//!   1-byte messages cannot show it; a burst of the largest eager messages can:
//!   `P_big = P(k_e, 0) = max(o + k_e·O, g + k_e·G)`, and when `P_big > o_s + k_e·O`,
//!   **g** `= P_big − k_e·G`. When neither binds, g is reported as not observable, with
//!   the bound `g ≤ min(P₀, P_big − k_e·G)` the bursts do prove.
//!
//! **Receive overhead.** In each round rank 1 sends a 1-byte "go", computes `C`, then
//! receives rank 0's 1-byte reply, which arrived during the computation and waited for
//! the CPU (LOGGP.md: a busy CPU delays an arrival). The round, minus `C`, is
//! **o_r** (timed from the compute's end, for the same reason as the spaced bursts).
//! `C = RTT(1) + P₀` covers the go's and the reply's trips and frees the NIC.
//!
//! **Streaming.** What a rank pays per message when messages stream (Martin's burst
//! microbenchmark, read for the CPU): a back-to-back burst issues a message every `P₀`,
//! so **o_s (stream)** `= min(P₀, o_s)`; rank 1 computes until a burst of `n` messages
//! has arrived, then receives them back to back, a message every `R = max(o, g)`, so
//! **o_r (stream)** `= min(R, o_r)`. In the model both equal o (the minimum keeps a
//! NIC-bound burst from passing for the CPU's cost); on a real machine a rank that
//! streams pays less per message than the spaced burst and the single receive show
//! (caches and the MPI library's fast path stay warm), which is what an application
//! sending many small messages pays.
//!
//! **Ping-pong.** Rank 0 pauses `P₀` (so that `g` never delays a send), then times a
//! round trip of `s` bytes, for `s` = 1, 2, 4, … up to `s_e`. Half a round trip is
//! `T(s) = o_s + L + o_r + k·max(G, O)` (the receiver's CPU pays `o + max(k·O, k·G)`), so
//! **L** `= T(1) − o_s − o_r`, and the least-squares line `T(s) = α + β·s` has
//! **β** `= max(G, O)` and **α** `= L + 2o − β`.
//!
//! **Per-byte costs.** A burst of `s_e`-byte messages spaced by `Δ_b = P₀ + k_e·β`
//! (enough for the NIC to free up) costs `P(k_e, Δ_b) = o + k_e·O + Δ_b` per message:
//! **O** `= (P(k_e, Δ_b) − Δ_b − o_s) / k_e`. Then **G** `= β` when `β > O`; when
//! `β = O = 0`, G = 0; otherwise the CPU's copy hides the NIC: not observable, `G ≤ O`.
//!
//! **Long messages.** LogGP's G is the cost per byte of long messages, and over the
//! eager sizes above its slope is worth little next to the noise of a round trip (on
//! a real machine the short messages' slope is not even the long ones'). A second
//! ping-pong times sizes from a quarter of `max_size` (and above S, so one protocol
//! serves them all) up to `max_size`, one round trip of each size in turn, `reps`
//! times, and the fastest of each size (a wait that a loaded machine ends late is most
//! of such a round trip); its slope is `max(G, O)` too, and
//! **G_long** `= β_long` when `β_long > O`, else not observable, `G ≤ β_long` (which
//! `calibrate --live --save` saves: the long messages' cost per byte either way).
//!
//! **Eager limit.** An eager send completes without the receiver; a rendezvous send
//! cannot complete before the receiver posts the receive. Rank 1 computes
//! `D = RTT(1) + P₀` before receiving one message of `s` bytes while rank 0 times its
//! send: `c`. A second run waits `D' = 2·(D + c)` instead: an eager send takes `c < D'`
//! again (it never waits for the receiver), a rendezvous one at least `D'`. Noise
//! (a preempted sender) only makes an eager send look rendezvous, never the reverse,
//! so on a real machine a size is rendezvous only when several such runs all say so
//! ([`BenchRunner::eager_tries`]). Bisection
//! over `2 ..= max_size` finds **S**, the largest eager size; when `max_size` itself is
//! eager, S is not observable and reported as `S ≥ max_size`.
//!
//! Every formula is exact in the model, so a noiseless simulation recovers the
//! parameters up to the picosecond rounding of per-byte costs; with noise the
//! estimates include it. The two ranks run at CPU speed 1 (the compute between sends
//! is subtracted as charged) and without the node level or wide-area links.

use netsens_core::engine::RunOptions;
use netsens_core::platform::{LevelParams, Platform, Shape};
use netsens_core::program::{run_program, Rank, SimRank};
use netsens_core::time::Time;
use netsens_core::{input_err, Result};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

/// How much to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Messages per burst, round trips per size, receive rounds.
    pub reps: u32,
    /// Largest message the eager-limit probe tries, bytes.
    pub max_size: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { reps: 8, max_size: 16 << 20 }
    }
}

/// What a value is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Picoseconds.
    Time,
    /// Picoseconds per byte.
    PerByte,
    Bytes,
}

impl Unit {
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Time => "ps",
            Unit::PerByte => "ps/B",
            Unit::Bytes => "B",
        }
    }
}

/// One parameter's estimate: a value, or a bound when the method cannot see it.
#[derive(Clone, Debug, PartialEq)]
pub enum Estimate {
    Measured(f64),
    /// Not observable; the measurements prove only `parameter ≤ value`.
    AtMost {
        value: f64,
        why: String,
    },
    /// Not observable; the measurements prove only `parameter ≥ value`.
    AtLeast {
        value: f64,
        why: String,
    },
}

impl Estimate {
    /// The value, when measured.
    pub fn value(&self) -> Option<f64> {
        match self {
            Estimate::Measured(v) => Some(*v),
            _ => None,
        }
    }
}

/// A dialled parameter next to its estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `L`, `o_s`, `o_r`, `g`, `G`, `O`, `S`, `o_s_stream`, `o_r_stream` or `G_long`.
    pub name: &'static str,
    pub unit: Unit,
    /// The platform's value (both o_s and o_r are its o).
    pub dialled: f64,
    pub estimate: Estimate,
}

impl Param {
    pub fn measured(&self) -> Option<f64> {
        self.estimate.value()
    }

    /// (measured − dialled) / dialled; 0 when both are 0, infinite when only the dialled one is.
    pub fn relative_error(&self) -> Option<f64> {
        let m = self.measured()?;
        Some(if self.dialled == 0.0 {
            if m == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (m - self.dialled) / self.dialled
        })
    }
}

/// The α–β line of half a round trip, `T(s) = α + β·s`: measured, and what the
/// dialled parameters predict (`β = max(G, O)`, `α = L + 2o − β`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// Intercept, ps.
    pub alpha: f64,
    /// Slope, ps/B.
    pub beta: f64,
    pub model_alpha: f64,
    pub model_beta: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The platform's name.
    pub platform: String,
    /// L, o_s, o_r, g, G, O, S, o_s_stream, o_r_stream, G_long in that order.
    pub params: Vec<Param>,
    pub line: Line,
}

impl Calibration {
    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// The timings the microbenchmarks produce (ps), the input of [`analyse`].
#[derive(Clone, Debug, PartialEq)]
pub struct Measurements {
    /// Interval of a 1-byte burst sent back to back: `P₀`.
    pub p0: f64,
    /// The compute `Δ₁` between the sends of the spaced 1-byte burst, and its interval.
    pub spaced: (f64, f64),
    /// Mean receive round minus its compute: o_r.
    pub receive: f64,
    /// Interval between the ends of receives of a burst that arrived while the
    /// receiver computed: `R`.
    pub receive_burst: f64,
    /// (size, half round trip) for each eager size of the ping-pong, from 1 byte up.
    pub half_rtt: Vec<(u64, f64)>,
    /// The largest eager size found, or `None` when every probed size was eager.
    pub eager_limit: Option<u64>,
    /// The largest size probed.
    pub max_size: u64,
    /// Bursts of the largest eager message `s_e`.
    pub big: BigBursts,
    /// (size, half round trip) of the long messages ([`long_sizes`]); empty when fewer
    /// than two sizes fit.
    pub long_half_rtt: Vec<(u64, f64)>,
}

/// Bursts of the largest eager message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BigBursts {
    pub size: u64,
    /// Interval sent back to back: `P_big`.
    pub back_to_back: f64,
    /// The compute `Δ_b` between sends of the spaced burst, and its interval.
    pub spaced: (f64, f64),
}

/// Timestamps or durations a rank records, read after the run.
/// The times one microbenchmark logs (only one of its two ranks logs).
pub type Log = Rc<RefCell<Vec<Time>>>;

const TAG: i32 = 0;

/// Rank 0 sends `n` messages of `size` bytes, computing `delta` between them, and
/// logs the end of each send, and of each compute after it; rank 1 receives them.
async fn burst<R: Rank>(r: R, size: usize, delta: Time, n: u32, log: Log) -> std::result::Result<(), String> {
    let w = r.world();
    for _ in 0..n {
        if r.rank() == 0 {
            r.send(&w, 1, TAG, vec![0; size]).await;
            log.borrow_mut().push(r.now());
            if delta > 0 {
                r.compute(delta).await;
                log.borrow_mut().push(r.now());
            }
        } else {
            r.recv(&w, 0, TAG).await;
        }
    }
    Ok(())
}

/// `reps` round trips of each size, each after rank 0 computed `pause`; rank 0 logs
/// every round trip's time.
async fn ping_pong<R: Rank>(
    r: R,
    sizes: Vec<usize>,
    reps: u32,
    pause: Time,
    log: Log,
) -> std::result::Result<(), String> {
    let w = r.world();
    for &size in &sizes {
        for _ in 0..reps {
            if r.rank() == 0 {
                r.compute(pause).await;
                let start = r.now();
                r.send(&w, 1, TAG, vec![0; size]).await;
                r.recv(&w, 1, TAG).await;
                log.borrow_mut().push(r.now() - start);
            } else {
                let m = r.recv(&w, 0, TAG).await;
                r.send(&w, 0, TAG, m.data).await;
            }
        }
    }
    Ok(())
}

/// `n` rounds: rank 1 sends a go, computes `compute`, receives rank 0's reply (which
/// waited for the CPU) and logs the round from the compute's end (the round minus the
/// compute, in the model).
async fn receive_rounds<R: Rank>(r: R, n: u32, compute: Time, log: Log) -> std::result::Result<(), String> {
    let w = r.world();
    for _ in 0..n {
        if r.rank() == 1 {
            r.send(&w, 0, TAG, vec![0]).await;
            r.compute(compute).await;
            let computed = r.now();
            r.recv(&w, 0, TAG).await;
            log.borrow_mut().push(r.now() - computed);
        } else {
            r.recv(&w, 1, TAG).await;
            r.send(&w, 1, TAG, vec![0]).await;
        }
    }
    Ok(())
}

/// Rank 0 sends `n` 1-byte messages back to back; rank 1 computes `compute` (until
/// all have arrived), then receives them and logs the end of each receive.
async fn receive_burst<R: Rank>(r: R, n: u32, compute: Time, log: Log) -> std::result::Result<(), String> {
    let w = r.world();
    if r.rank() == 0 {
        for _ in 0..n {
            r.send(&w, 1, TAG, vec![0]).await;
        }
    } else {
        r.compute(compute).await;
        for _ in 0..n {
            r.recv(&w, 0, TAG).await;
            log.borrow_mut().push(r.now());
        }
    }
    Ok(())
}

/// Rank 1 computes `wait` before receiving one message of `size` bytes; rank 0 logs
/// how long its send took.
async fn eager_probe<R: Rank>(r: R, size: usize, wait: Time, log: Log) -> std::result::Result<(), String> {
    let w = r.world();
    if r.rank() == 0 {
        let start = r.now();
        r.send(&w, 1, TAG, vec![0; size]).await;
        log.borrow_mut().push(r.now() - start);
    } else {
        r.compute(wait).await;
        r.recv(&w, 0, TAG).await;
    }
    Ok(())
}

/// Runs one two-rank microbenchmark and returns what it logged: the simulator runs
/// each as a fresh run; a real machine (`netsens-mpi`) runs them one after another on
/// the same two processes and hands the logging rank's times to both, since later
/// microbenchmarks are chosen from earlier results.
pub trait BenchRunner {
    type Rank: Rank;
    fn run<P, F>(&self, program: P) -> Result<Vec<Time>>
    where
        P: Fn(Self::Rank, Log) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static;

    /// How many times a size that looks rendezvous is probed again before it counts
    /// as one. The probe errs one way only: a send preempted past the receiver's wait
    /// looks rendezvous, an eager-looking send is eager. A noiseless simulation needs
    /// one probe; a shared real machine more.
    fn eager_tries(&self) -> u32 {
        1
    }
}

/// Each microbenchmark a fresh simulation on the calibration's platform, so every
/// clock starts idle.
struct SimBench<'a> {
    platform: Platform,
    opts: &'a RunOptions,
}

impl BenchRunner for SimBench<'_> {
    type Rank = SimRank;

    fn run<P, F>(&self, program: P) -> Result<Vec<Time>>
    where
        P: Fn(SimRank, Log) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        let log = Log::default();
        let shared = log.clone();
        run_program(&self.platform, 2, self.opts, move |r| program(r, shared.clone()))?;
        Ok(log.take())
    }
}

/// The microbenchmarks, each run by `runner`.
struct Bench<'a, B> {
    runner: &'a B,
    reps: u32,
}

impl<B: BenchRunner> Bench<'_, B> {
    fn run<P, F>(&self, program: P) -> Result<Vec<Time>>
    where
        P: Fn(B::Rank, Log) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        self.runner.run(program)
    }

    /// Steady-state interval of a burst: the steady pace of its send ends. With a
    /// compute between the sends (the CPU binds), `delta` plus the median send from the
    /// end of the compute before it: in the model the same, while on a real machine a
    /// compute that lasts longer than charged on the wall clock (its thread descheduled,
    /// by the host of a virtual machine too) does not pass for overhead, however long
    /// the compute (6 times as long with 20 us of o injected as without).
    fn burst(&self, size: u64, delta: Time) -> Result<f64> {
        let n = self.reps;
        let t = self.run(|r, log| burst(r, size as usize, delta, n, log))?;
        if delta == 0 {
            return Ok(steady_interval(&t));
        }
        // [send end, compute end] per message: each send from the compute before it.
        let sends: Vec<Time> = t.chunks_exact(2).zip(t.chunks_exact(2).skip(1)).map(|(a, b)| b[0] - a[1]).collect();
        Ok(delta as f64 + median(&sends))
    }

    /// Median half round trip of each size.
    fn half_rtts(&self, sizes: &[u64], pause: Time) -> Result<Vec<(u64, f64)>> {
        let reps = self.reps;
        let list: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
        let t = self.run(|r, log| ping_pong(r, list.clone(), reps, pause, log))?;
        let per_size = t.chunks(reps as usize).map(|c| median(c) / 2.0);
        Ok(sizes.iter().copied().zip(per_size).collect())
    }

    /// Half the fastest round trip of each size, the sizes taken in turn (one round
    /// trip of each, `reps` times), so that a stretch of load on the machine falls on
    /// every size alike.
    fn fastest_half_rtts(&self, sizes: &[u64], pause: Time) -> Result<Vec<(u64, f64)>> {
        let turns: Vec<usize> = (0..self.reps).flat_map(|_| sizes.iter().map(|&s| s as usize)).collect();
        let t = self.run(|r, log| ping_pong(r, turns.clone(), 1, pause, log))?;
        let fastest = |i: usize| t.iter().skip(i).step_by(sizes.len()).min().map_or(0.0, |&v| v as f64 / 2.0);
        Ok(sizes.iter().enumerate().map(|(i, &s)| (s, fastest(i))).collect())
    }

    fn receive(&self, compute: Time) -> Result<f64> {
        let t = self.run(|r, log| receive_rounds(r, self.reps, compute, log))?;
        Ok(median(&t))
    }

    /// Steady-state interval between the receives of a burst that waited for the CPU.
    fn receive_burst(&self, compute: Time) -> Result<f64> {
        let t = self.run(|r, log| receive_burst(r, self.reps, compute, log))?;
        Ok(steady_interval(&t))
    }

    /// Whether a message of `size` bytes is sent eagerly (see the module doc).
    fn eager(&self, size: u64, wait: Time) -> Result<bool> {
        let first = self.run(|r, log| eager_probe(r, size as usize, wait, log))?[0];
        let longer = 2 * (wait + first);
        for _ in 0..self.runner.eager_tries().max(1) {
            if self.run(|r, log| eager_probe(r, size as usize, longer, log))?[0] < longer {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl Calibration {
    /// As JSON: per parameter its unit, dialled and measured values and relative
    /// error, or, when the method cannot observe it, the bound it proves and why; then
    /// the α–β line of half a round trip, measured and modelled.
    pub fn to_json(&self) -> Value {
        let c = self;
        let params: Vec<Value> = c
            .params
            .iter()
            .map(|p| {
                let (bound, why) = match &p.estimate {
                    Estimate::Measured(_) => (Value::Null, Value::Null),
                    Estimate::AtMost { value, why } => {
                        (json!({"kind": "at_most", "value": value}), why.as_str().into())
                    }
                    Estimate::AtLeast { value, why } => {
                        (json!({"kind": "at_least", "value": value}), why.as_str().into())
                    }
                };
                json!({
                    "name": p.name,
                    "unit": p.unit.symbol(),
                    "dialled": p.dialled,
                    "measured": p.measured(),
                    "relative_error": p.relative_error(),
                    "bound": bound,
                    "why": why,
                })
            })
            .collect();
        let l = &c.line;
        json!({
            "platform_name": c.platform,
            "parameters": params,
            "alpha": {"unit": "ps", "measured": l.alpha, "model": l.model_alpha},
            "beta": {"unit": "ps/B", "measured": l.beta, "model": l.model_beta},
        })
    }
}

/// Run the calibration on the cluster level of `platform` and compare the estimates
/// with its parameters. An error when even 2-byte messages use rendezvous (the
/// method needs eager messages with extra bytes), or when a run fails.
pub fn calibrate(platform: &Platform, opts: &RunOptions, options: &Options) -> Result<Calibration> {
    let measurements = measure(platform, opts, options)?;
    Ok(analyse(&measurements, &platform.cluster, &platform.name))
}

/// The microbenchmarks of the module doc, each choosing its compute from the
/// earlier ones' results.
pub fn measure(platform: &Platform, opts: &RunOptions, options: &Options) -> Result<Measurements> {
    let runner = SimBench {
        platform: Platform {
            node: None,
            wan: None,
            shape: Shape { clusters: None, ranks_per_node: 1, cores_per_node: None },
            cpu_speed: 1.0,
            topology: None,
            ..platform.clone()
        },
        opts,
    };
    measure_with(&runner, options)
}

/// The microbenchmarks of the module doc, each run by `runner` (on a real machine,
/// both processes run this in step and reach the same decisions).
pub fn measure_with<B: BenchRunner>(runner: &B, options: &Options) -> Result<Measurements> {
    if options.reps < 2 || options.max_size < 2 {
        return Err(input_err!("calibrate: needs at least 2 repetitions and a largest size of at least 2 B"));
    }
    let bench = Bench { runner, reps: options.reps };
    let p0 = bench.burst(1, 0)?;
    let pause = p0.ceil() as Time;
    let spaced = (pause as f64, bench.burst(1, pause)?);
    let rtt1 = 2.0 * bench.half_rtts(&[1], pause)?[0].1;
    let wait = rtt1.ceil() as Time + pause;
    let receive = bench.receive(wait)?;
    // Long enough for the whole burst to arrive: its issue, then a trip.
    let receive_burst = bench.receive_burst(wait + options.reps as Time * pause)?;

    if !bench.eager(2, wait)? {
        return Err(input_err!(
            "calibrate: messages of 2 bytes already use rendezvous (S < 2B); the method needs eager messages"
        ));
    }
    let eager_limit = if bench.eager(options.max_size, wait)? {
        None
    } else {
        // Invariant: `lo` is eager, `hi` is not.
        let (mut lo, mut hi) = (2, options.max_size);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if bench.eager(mid, wait)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    };
    let largest = eager_limit.unwrap_or(options.max_size);

    let mut sizes: Vec<u64> = std::iter::successors(Some(1u64), |s| Some(s * 2)).take_while(|&s| s < largest).collect();
    sizes.push(largest);
    let half_rtt = bench.half_rtts(&sizes, pause)?;
    let (_, beta) = fit(&half_rtt);

    let long = long_sizes(eager_limit, options.max_size);
    // The fastest round trip of each long size: their time is mostly waiting (for the
    // copy, for an injected per-byte delay), and on a loaded machine a wait ends late,
    // never early, by up to a scheduler time slice, which moves a median by a share of
    // a millisecond and the slope over 768 KiB with it.
    let long_half_rtt = if long.len() < 2 { Vec::new() } else { bench.fastest_half_rtts(&long, pause)? };

    let k = (largest - 1) as f64;
    let big_delta = pause + (k * beta.max(0.0)).ceil() as Time;
    let big = BigBursts {
        size: largest,
        back_to_back: bench.burst(largest, 0)?,
        spaced: (big_delta as f64, bench.burst(largest, big_delta)?),
    };
    Ok(Measurements {
        p0,
        spaced,
        receive,
        receive_burst,
        half_rtt,
        eager_limit,
        max_size: options.max_size,
        big,
        long_half_rtt,
    })
}

/// The long messages' sizes: a quarter, five eighths and all of `max_size`, each above
/// the eager limit when there is one below `max_size` (so every size uses one
/// protocol); fewer than two when too few sizes lie above it.
pub fn long_sizes(eager_limit: Option<u64>, max_size: u64) -> Vec<u64> {
    let lo = (max_size / 4).max(eager_limit.map_or(1, |s| s + 1));
    let mut sizes = vec![lo.min(max_size), lo + max_size.saturating_sub(lo) / 2, max_size];
    sizes.dedup();
    sizes
}

/// The steady interval of a burst's event times: the median of the mean intervals
/// over every span of [`SPAN`] intervals. Its two failure modes pull opposite ways:
/// - A real machine wakes from a timed wait late (here 17-40 us), while the injected
///   pace runs on absolute deadlines, so a late send is followed by a short interval,
///   and late and on-time sends alternate: single intervals alternate g + x and g - x
///   and their median is one of them (one calibration in eight was 5-15 % off, idle).
///   A mean over an even span cancels the alternation and divides other jitter.
/// - A preempted event delays every later one (a step): it moves the spans that
///   hold it, a few of many, not their median.
///
/// In a noiseless run every span of the steady state is exact, so the value is too.
fn steady_interval(times: &[Time]) -> f64 {
    if times.len() < 2 {
        return 0.0;
    }
    let span = SPAN.min(times.len() - 1);
    let means: Vec<f64> = times.windows(span + 1).map(|w| (w[span] - w[0]) as f64 / span as f64).collect();
    median_f64(means)
}

/// Intervals per span of [`steady_interval`]: even, and short beside a burst's 30+.
const SPAN: usize = 4;

/// The middle value, or the mean of the two middle ones.
fn median_f64(mut values: Vec<f64>) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The median of repeated timings: in a noiseless run every repetition of a steady
/// state is the same, and on a shared real machine one preempted repetition does not
/// move it (a mean would).
fn median(times: &[Time]) -> f64 {
    median_f64(times.iter().map(|&t| t as f64).collect())
}

/// Least-squares line through the points: (intercept, slope).
fn fit(points: &[(u64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|&(x, _)| x as f64).sum::<f64>() / n;
    let mean_y = points.iter().map(|&(_, y)| y).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|&(x, _)| (x as f64 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|&(x, y)| (x as f64 - mean_x) * (y - mean_y)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (mean_y - slope * mean_x, slope)
}

/// `a` exceeds `b` by more than a part in a million: the resource behind `a` binds.
/// Smaller differences are the rounding of per-byte costs to picoseconds or
/// floating-point noise (the timings are otherwise exact in a noiseless run).
fn binds(a: f64, b: f64) -> bool {
    a > b + 1e-6 * b.abs().max(1.0)
}

/// Turn the timings into estimates (the formulas of the module doc), next to the
/// dialled parameters of `level`. `m.big.size` must be at least 2, as [`measure`]
/// ensures.
pub fn analyse(m: &Measurements, level: &LevelParams, platform: &str) -> Calibration {
    let o_s = m.spaced.1 - m.spaced.0;
    let o_r = m.receive;
    let latency = m.half_rtt[0].1 - o_s - o_r;
    let (alpha, beta) = fit(&m.half_rtt);
    let k = (m.big.size - 1) as f64;
    let per_byte_cpu = (m.big.spaced.1 - m.big.spaced.0 - o_s) / k;

    let gap_per_byte = if binds(beta, per_byte_cpu) {
        Estimate::Measured(beta)
    } else if beta == 0.0 {
        Estimate::Measured(0.0)
    } else {
        Estimate::AtMost { value: per_byte_cpu, why: "G <= O: the receiver's per-byte CPU cost hides the NIC's".into() }
    };
    let nic_big = gap_per_byte.value().map(|g_b| m.big.back_to_back - k * g_b);
    let gap = if binds(m.p0, o_s) {
        Estimate::Measured(m.p0)
    } else {
        match nic_big {
            Some(g) if binds(m.big.back_to_back, o_s + k * per_byte_cpu) => Estimate::Measured(g),
            _ => Estimate::AtMost {
                value: nic_big.map_or(m.p0, |g| g.min(m.p0)),
                why: format!("g <= o: the CPU binds every burst, up to {} B messages", m.big.size),
            },
        }
    };
    let long_gap_per_byte = if m.long_half_rtt.len() < 2 {
        Estimate::AtLeast {
            value: 0.0,
            why: format!("fewer than two long sizes above the eager limit, up to {} B", m.max_size),
        }
    } else {
        let (_, beta_long) = fit(&m.long_half_rtt);
        if binds(beta_long, per_byte_cpu) || beta_long == 0.0 {
            Estimate::Measured(beta_long)
        } else {
            // On a real machine the eager bursts' O (a copy per byte) is not the long
            // messages' (copied once, or by the kernel), and often exceeds their slope.
            Estimate::AtMost {
                value: beta_long,
                why: "G <= the long messages' slope: the eager per-byte CPU cost O is as large".into(),
            }
        }
    };
    let eager_limit = match m.eager_limit {
        Some(s) => Estimate::Measured(s as f64),
        None => Estimate::AtLeast {
            value: m.max_size as f64,
            why: format!("every size probed, up to {} B, was eager", m.max_size),
        },
    };

    let o = level.overhead as f64;
    let big_g = level.gap_per_byte.fs_per_byte() as f64 / 1000.0;
    let big_o = level.overhead_per_byte.fs_per_byte() as f64 / 1000.0;
    let param = |name, unit, dialled, estimate| Param { name, unit, dialled, estimate };
    let model_beta = big_g.max(big_o);
    Calibration {
        platform: platform.to_string(),
        params: vec![
            param("L", Unit::Time, level.latency as f64, Estimate::Measured(latency)),
            param("o_s", Unit::Time, o, Estimate::Measured(o_s)),
            param("o_r", Unit::Time, o, Estimate::Measured(o_r)),
            param("g", Unit::Time, level.gap as f64, gap),
            param("G", Unit::PerByte, big_g, gap_per_byte),
            param("O", Unit::PerByte, big_o, Estimate::Measured(per_byte_cpu)),
            param("S", Unit::Bytes, level.eager_limit as f64, eager_limit),
            param("o_s_stream", Unit::Time, o, Estimate::Measured(m.p0.min(o_s))),
            param("o_r_stream", Unit::Time, o, Estimate::Measured(m.receive_burst.min(o_r))),
            param("G_long", Unit::PerByte, big_g, long_gap_per_byte),
        ],
        line: Line { alpha, beta, model_alpha: level.latency as f64 + 2.0 * o - model_beta, model_beta },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_line() {
        let points: Vec<(u64, f64)> = [1, 2, 4, 100].iter().map(|&s| (s, 7.0 + 3.0 * s as f64)).collect();
        let (a, b) = fit(&points);
        assert!((a - 7.0).abs() < 1e-9 && (b - 3.0).abs() < 1e-9);
    }

    /// The simulator's runs with a preempted sender: of every three one-entry logs
    /// (the eager probes' send times), the second and third come back 10 ms late.
    struct Preempted<'a> {
        inner: SimBench<'a>,
        probes: std::cell::Cell<u32>,
        tries: u32,
    }

    impl BenchRunner for Preempted<'_> {
        type Rank = SimRank;
        fn run<P, F>(&self, program: P) -> Result<Vec<Time>>
        where
            P: Fn(SimRank, Log) -> F,
            F: Future<Output = std::result::Result<(), String>> + 'static,
        {
            let mut times = self.inner.run(program)?;
            if times.len() == 1 {
                let k = self.probes.get();
                self.probes.set(k + 1);
                if !k.is_multiple_of(3) {
                    times[0] += 10_000_000_000;
                }
            }
            Ok(times)
        }
        fn eager_tries(&self) -> u32 {
            self.tries
        }
    }

    #[test]
    fn a_preempted_eager_send_is_probed_again() {
        let platform = Platform::resolve("loggopsim").unwrap();
        let opts = RunOptions::default();
        let options = Options { reps: 8, max_size: 1 << 20 };
        let exact = measure(&platform, &opts, &options).unwrap().eager_limit;
        assert!(exact.is_some());
        let noisy = |tries| {
            let inner = SimBench { platform: platform.clone(), opts: &opts };
            measure_with(&Preempted { inner, probes: 0.into(), tries }, &options)
        };
        // One probe takes the first eager size for rendezvous: no eager messages.
        assert!(noisy(1).is_err());
        assert_eq!(noisy(3).unwrap().eager_limit, exact);
    }

    #[test]
    fn a_burst_paced_on_deadlines_keeps_its_pace_through_late_wake_ups() {
        // 40 us in ps. Thirty sends paced at g, every other one ending 6 us late: the
        // single intervals alternate 46 and 34 us, and their median is 46 us.
        const G: Time = 40_000_000;
        let late = |i: Time| if i % 2 == 1 { 6_000_000 } else { 0 };
        let times: Vec<Time> = (0..30).map(|i| i * G + late(i)).collect();
        let intervals: Vec<Time> = times.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(median(&intervals), 46_000_000.0);
        assert_eq!(steady_interval(&times), G as f64);
        // A 6 us late wake-up every third send: each span is off by at most 6 us / 4.
        let times: Vec<Time> = (0..30).map(|i| i * G + if i % 3 == 0 { 6_000_000 } else { 0 }).collect();
        assert!((steady_interval(&times) - G as f64).abs() <= 1_500_000.0);
    }

    #[test]
    fn a_preempted_send_or_a_slow_start_leaves_the_pace_exact() {
        const G: Time = 40_000_000;
        let mut times: Vec<Time> = (0..30).map(|i| 5_000_000 + i * G).collect();
        times[0] = 0; // the first interval is longer
        for t in &mut times[17..] {
            *t += 1_000_000_000; // one preemption of 1 ms delays all later sends
        }
        assert_eq!(steady_interval(&times), G as f64);
        assert_eq!(steady_interval(&[7, 7 + G]), G as f64);
        assert_eq!(steady_interval(&[7]), 0.0);
    }

    #[test]
    fn binds_ignores_rounding_only() {
        assert!(!binds(1000.0, 1000.0));
        assert!(!binds(1000.0 + 1e-7, 1000.0));
        assert!(binds(1001.0, 1000.0));
    }
}
