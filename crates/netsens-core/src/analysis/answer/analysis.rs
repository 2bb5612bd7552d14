//! The analysis at the platform's point, as one answer: the first pass there (the
//! makespan, every slope, the critical path's choices), the critical path, then
//! every tolerance's search ([`crate::analysis::searches::tolerances`]).

use super::critical::CriticalPath;
use crate::analysis::record::graph::ExecGraph;
use crate::analysis::record::params::{Param, Point};
use crate::analysis::searches::search::MAX_SEARCH_STEPS;
use crate::analysis::searches::tolerances::ParamSensitivity;

/// The analysis at the platform's point: the makespan, the critical path and what
/// each parameter does.
pub struct Analysis {
    /// ps.
    pub makespan: f64,
    pub critical_path: CriticalPath,
    pub params: Vec<ParamSensitivity>,
    /// The points of each pass of Newton's steps (all parameters and ε together).
    pub newton_passes: Vec<usize>,
}

impl ExecGraph {
    /// Slopes and tolerances of `params` at `base` (see [`ExecGraph::analyze`]).
    pub fn sensitivities(&self, base: &Point, params: &[Param], epsilons: &[f64]) -> Vec<ParamSensitivity> {
        self.analyze(base, params, epsilons).params
    }

    /// The makespan, critical path, slopes and tolerances of `params` at `base`: the
    /// time of every node, every parameter's slopes and the predecessor that set each
    /// time in one pass, then each round of Newton steps of every (parameter, ε) in
    /// one more.
    pub fn analyze(&self, base: &Point, params: &[Param], epsilons: &[f64]) -> Analysis {
        self.analyze_within(base, params, epsilons, MAX_SEARCH_STEPS)
    }

    /// As [`ExecGraph::analyze`], each search taking at most `max_steps` passes.
    pub(crate) fn analyze_within(
        &self,
        base: &Point,
        params: &[Param],
        epsilons: &[f64],
        max_steps: usize,
    ) -> Analysis {
        let slots = self.slots();
        let at = self.at_base(&slots, base, params);
        let critical_path = self.critical_path_of(base, &at.choices, at.makespan);
        let (params, newton_passes) = self.tolerances(&slots, base, params, &at, epsilons, max_steps);
        Analysis { makespan: at.makespan, critical_path, params, newton_passes }
    }
}
