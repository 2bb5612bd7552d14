//! Background traffic and soft faults during a run (`platform::variability`). Flows
//! are played lazily: before a rank's NIC or a wide-area link is used at time t, the
//! flow messages that came before t occupy it first, so a platform without flows or
//! faults pays one test of a flag per use.

use crate::platform::variability::{Fault, Flow, Param, Route};
use crate::platform::{Dist, Layout, LevelParams};
use crate::time::{PerByte, Time};
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

/// Stream ids apart from `noise`'s (kind in the top bits).
const FLOW: u64 = 4 << 60;

/// The times of one flow's messages, drawn in order from the flow's own stream.
#[derive(Clone)]
struct Cursor {
    rng: ChaCha12Rng,
    next: Time,
    interval: Dist,
}

impl Cursor {
    /// The next message time, then move past it.
    fn take(&mut self) -> Time {
        let t = self.next;
        self.next += self.interval.sample(&mut self.rng).max(1);
        t
    }
}

struct FlowState {
    flow: Flow,
    /// The same series of send times, read at the sender (or link) and at the
    /// receiver, which may ask at different moments.
    send: Cursor,
    recv: Cursor,
    /// The directed wide-area link it crosses.
    link: Option<usize>,
}

pub(crate) struct Variability {
    faults: Vec<Fault>,
    flows: Vec<FlowState>,
    pub faults_on: bool,
    pub flows_on: bool,
}

impl Variability {
    pub fn new(flows: &[Flow], faults: &[Fault], seed: u64, layout: &Layout) -> Self {
        let flows: Vec<FlowState> = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut rng = ChaCha12Rng::seed_from_u64(seed);
                rng.set_stream(FLOW | i as u64);
                let send = Cursor { rng, next: f.start, interval: f.interval.clone() };
                let link = match f.route {
                    Route::WanLink(a, b) => Some(layout.link_id(a as usize, b as usize)),
                    Route::Ranks(..) => None,
                };
                FlowState { flow: f.clone(), recv: send.clone(), send, link }
            })
            .collect();
        Variability { faults_on: !faults.is_empty(), flows_on: !flows.is_empty(), faults: faults.to_vec(), flows }
    }

    /// The parameters of a message between ranks `a` and `b` at time `t`, degraded by
    /// every fault that covers it.
    pub fn degrade(&self, p: &mut LevelParams, a: u32, b: u32, t: Time) {
        for f in self.faults.iter().filter(|f| f.covers(a, b, t)) {
            let scale = |x: Time| (x as f64 * f.factor).round() as Time;
            match f.param {
                Param::L => p.latency = scale(p.latency),
                Param::O => {
                    p.overhead = scale(p.overhead);
                    p.control_overhead = p.control_overhead.map(scale);
                }
                Param::G => p.gap_per_byte = PerByte((p.gap_per_byte.0 as f64 * f.factor).round() as u64),
            }
        }
    }

    /// Play the flow messages `host` sends before `t` on its send NIC clock
    /// (each `g + (s−1)G` on the NIC, as another process's messages would).
    pub fn before_send(&mut self, host: u32, t: Time, nic_s: &mut Time, p: &LevelParams) {
        for s in self.flows.iter_mut() {
            let Route::Ranks(src, _) = s.flow.route else { continue };
            if src != host {
                continue;
            }
            let k = s.flow.size.saturating_sub(1);
            while s.send.next <= t {
                let start = s.send.take().max(*nic_s);
                *nic_s = start + p.gap + p.gap_per_byte.cost(k);
            }
        }
    }

    /// Play the flow messages that reach `host` before `t` on its receive NIC clock;
    /// each arrives `o + L` after its send time.
    pub fn before_receive(&mut self, host: u32, t: Time, nic_r: &mut Time, p: &LevelParams) {
        let delay = p.overhead + p.latency;
        for s in self.flows.iter_mut() {
            let Route::Ranks(_, dst) = s.flow.route else { continue };
            if dst != host {
                continue;
            }
            let k = s.flow.size.saturating_sub(1);
            while s.recv.next + delay <= t {
                let ta = s.recv.take() + delay;
                *nic_r = ta.max(*nic_r) + p.gap + p.gap_per_byte.cost(k);
            }
        }
    }

    /// Play the flow messages that enter wide-area link `link` before `t`.
    pub fn before_link(&mut self, link: usize, t: Time, link_free: &mut Time, per_byte: PerByte) {
        for s in self.flows.iter_mut().filter(|s| s.link == Some(link)) {
            while s.send.next <= t {
                let start = s.send.take().max(*link_free);
                *link_free = start + per_byte.cost(s.flow.size);
            }
        }
    }
}
