//! Time per named phase of each rank: a rank's `phase(name)` closes its open phase
//! and opens the next, both at the rank's clocks when the front end hands the ops
//! issued before it to the core. Shared by the program front end and the replay of a
//! recorded schedule, so that both report the same phases.

use crate::engine::Core;
use crate::profile::{PhaseStats, RunResult};
use crate::time::Time;
use std::collections::BTreeMap;

/// Time a rank has spent in one phase so far.
#[derive(Clone, Copy, Default)]
struct PhaseAcc {
    elapsed: Time,
    compute: Time,
    overhead: Time,
}

/// A rank's open phase: its name and the rank's clocks when it began.
pub(crate) struct OpenPhase {
    name: String,
    start: (Time, Time, Time),
}

/// Every rank's open phase and what its closed phases took.
pub(crate) struct PhaseBook {
    open: Vec<Option<OpenPhase>>,
    phases: Vec<BTreeMap<String, PhaseAcc>>,
}

/// Bytes a phase book keeps per rank before any phase opens.
pub(crate) const PER_RANK_BYTES: usize =
    std::mem::size_of::<Option<OpenPhase>>() + std::mem::size_of::<BTreeMap<String, PhaseAcc>>();

impl PhaseBook {
    pub fn new(ranks: usize) -> Self {
        PhaseBook { open: (0..ranks).map(|_| None).collect(), phases: vec![BTreeMap::new(); ranks] }
    }

    /// `rank` enters phase `name` now (its clocks read from `core`).
    pub fn enter(&mut self, core: &Core, rank: u32, name: String) {
        self.switch(rank, Some(name), rank_clocks(core, rank));
    }

    fn switch(&mut self, rank: u32, next: Option<String>, now: (Time, Time, Time)) {
        let r = rank as usize;
        if let Some(open) = self.open[r].take() {
            let acc = self.phases[r].entry(open.name).or_default();
            acc.elapsed += now.0.saturating_sub(open.start.0);
            acc.compute += now.1.saturating_sub(open.start.1);
            acc.overhead += now.2.saturating_sub(open.start.2);
        }
        self.open[r] = next.map(|name| OpenPhase { name, start: now });
    }

    /// Close every open phase at its rank's end and put the phases in `result`.
    pub fn finish(mut self, result: &mut RunResult) {
        for r in 0..self.open.len() {
            let st = &result.ranks[r];
            self.switch(r as u32, None, (st.end_ps, st.compute_ps, st.overhead_ps));
        }
        result.phases = self
            .phases
            .iter()
            .enumerate()
            .flat_map(|(rank, m)| {
                m.iter().map(move |(name, a)| PhaseStats {
                    rank: rank as u32,
                    phase: name.clone(),
                    elapsed_ps: a.elapsed,
                    compute_ps: a.compute,
                    overhead_ps: a.overhead,
                })
            })
            .collect();
    }
}

/// (current time, compute so far, overhead so far) of a rank.
fn rank_clocks(core: &Core, rank: u32) -> (Time, Time, Time) {
    let s = core.rank_stats(rank);
    (core.host_end(rank), s.compute_ps, s.overhead_ps)
}
