//! Every tolerance of a run, all parameters and ε together: each search's steps
//! ([`Search`]) a pass at a time, every open search's points in one pass, until each
//! has its answer or its bound. The driver of the searches; what they start from
//! (the first pass at the platform's point) is the answer's to ask for.

use super::search::{self, Search};
use crate::analysis::passes::at_base::AtBase;
use crate::analysis::passes::eval::Eval;
use crate::analysis::passes::lanes::{self, Lane, LANES};
use crate::analysis::prices::stairs::Stairs;
use crate::analysis::record::graph::ExecGraph;
use crate::analysis::record::params::{Param, Point};
use crate::analysis::record::slots::Slots;

/// What one parameter does to the run.
#[derive(Clone, Debug)]
pub struct ParamSensitivity {
    pub param: Param,
    /// The platform's value (in `param.unit()`).
    pub value: f64,
    pub slope: Eval,
    /// (ε, largest Δx with T ≤ (1 + ε)·T0; `None`: unbounded).
    pub tolerances: Vec<(f64, Option<f64>)>,
    /// Per ε, where its search stopped at [`search::MAX_SEARCH_STEPS`] passes: the
    /// largest Δx not known to fail (the tolerance is at least its Δx above and at
    /// most this; infinite: no point past the target was found). `None`: exact.
    pub at_most: Vec<Option<f64>>,
}

impl ExecGraph {
    /// Each parameter's slopes (from the first pass, `at`) and tolerances at every
    /// ε in `epsilons`, each search taking at most `max_steps` passes; and the points
    /// of each pass of Newton's steps.
    pub(crate) fn tolerances(
        &self,
        slots: &Slots,
        base: &Point,
        params: &[Param],
        at: &AtBase,
        epsilons: &[f64],
        max_steps: usize,
    ) -> (Vec<ParamSensitivity>, Vec<usize>) {
        let slopes = at.slopes.clone();
        // Flat at the platform's value, a parameter's search starts from its steepest path.
        let flat: Vec<Param> = params.iter().zip(&slopes).filter(|(_, e)| e.slope_up <= 0.0).map(|(&x, _)| x).collect();
        let steepest = self.steepest_lanes(slots, base, &flat);
        let steepest_of = |x: Param| flat.iter().position(|&f| f == x).map(|i| steepest[i]);
        // Where a per-byte cost's T can rise on the fs/B grid: the byte counts it
        // prices, noted by the first pass.
        let per_byte = |x: Param| x.grid().is_some_and(|g| g < 1.0);
        let searched = |(x, e0): (&Param, &Eval)| e0.slope_up > 0.0 || steepest_of(*x).is_some_and(|s| s.slope > 0.0);
        let any_searched =
            |of: &dyn Fn(Param) -> bool| params.iter().zip(&slopes).any(|(x, e0)| of(*x) && searched((x, e0)));
        let counts = any_searched(&per_byte).then_some(&at.sizes.counts);
        // Where 1/cpu_speed's T can rise: the computations' sizes, where few (the first pass's too).
        let sizes = any_searched(&|x| x == Param::CpuTime).then_some(at.sizes.sizes).flatten();
        // (parameter, its search for each ε; `None`: unbounded).
        let mut searches: Vec<Vec<Option<Search>>> = params
            .iter()
            .zip(&slopes)
            .map(|(&x, e0)| {
                let steepest = steepest_of(x);
                let stairs = counts.filter(|_| per_byte(x)).map(|c| Stairs::of(c, base, x));
                let sizes = sizes.filter(|_| x == Param::CpuTime);
                epsilons
                    .iter()
                    .map(|&eps| {
                        Search::start(self, base, x, e0, eps, steepest, stairs)
                            .map(|s| s.with_sizes(sizes).within(max_steps))
                    })
                    .collect()
            })
            .collect();
        let mut newton_passes = Vec::new();
        loop {
            // Every open search's step and the points between it takes anyway, then
            // the lanes the pass carries spare, shared among the searches on a grid
            // (where every point of a parameter answers each of its ε).
            // A search whose first step can wait for the largest ε's first step waits.
            let open: Vec<(usize, usize)> = (0..params.len())
                .flat_map(|i| (0..epsilons.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| {
                    let Some(s) = searches[i][j].filter(|s| !s.at.done) else { return false };
                    let top = searches[i].iter().flatten().max_by(|a, b| a.at.target.total_cmp(&b.at.target));
                    !top.is_some_and(|top| s.waits_for(top))
                })
                .collect();
            if open.is_empty() {
                break;
            }
            let mut between: Vec<usize> = open.iter().map(|&(i, j)| searches[i][j].expect("open").between()).collect();
            // Searches halving a span per fs/B want no slopes: their points go in a
            // pass of makespans alone, the others' in one with slopes going down.
            let slopes: Vec<bool> = open.iter().map(|&(i, j)| searches[i][j].expect("open").wants_slopes()).collect();
            for group in [true, false] {
                let members: Vec<usize> = (0..open.len()).filter(|&o| slopes[o] == group).collect();
                let wanted = members.iter().map(|&o| 1 + between[o]).sum::<usize>();
                let sharing: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&o| searches[open[o].0][open[o].1].is_some_and(|s| s.shares()))
                    .collect();
                for n in 0..(lanes::width(wanted) - wanted) {
                    if let Some(&o) = sharing.get(n % sharing.len().max(1)) {
                        between[o] += 1;
                    }
                }
            }
            let points: Vec<Vec<f64>> =
                open.iter().zip(&between).map(|(&(i, j), &b)| searches[i][j].expect("open").points(b)).collect();
            let lanes_of = |group: bool| -> Vec<Lane> {
                open.iter()
                    .zip(&points)
                    .zip(&slopes)
                    .filter(|(_, &s)| s == group)
                    .flat_map(|((&(i, _), list), _)| {
                        list.iter().map(move |&v| Lane { point: base.with(params[i], v), param: params[i] })
                    })
                    .collect()
            };
            let (mut with_slopes, times_alone) = (lanes_of(true), lanes_of(false));
            let lanes = with_slopes.len() + times_alone.len();
            // Where both fit one pass of every thread, one pass: a pass costs mostly
            // by the record it reads, and the makespans are the same numbers in a pass
            // with slopes (those points' slopes are dropped, as a pass without gives none).
            let one_pass = !with_slopes.is_empty() && !times_alone.is_empty() && lanes <= lanes::threads() * LANES;
            let (mut evals_with, mut evals_alone) = if one_pass {
                let n = with_slopes.len();
                with_slopes.extend_from_slice(&times_alone);
                let mut all = self.eval_lanes_down(slots, &with_slopes);
                // As a pass of makespans alone gives them: no slope.
                let alone: Vec<Eval> = all
                    .split_off(n)
                    .into_iter()
                    .map(|e| Eval { slope_down: f64::NAN, slope_up: f64::NAN, ..e })
                    .collect();
                (all.into_iter(), alone.into_iter())
            } else {
                (
                    self.eval_lanes_down(slots, &with_slopes).into_iter(),
                    self.eval_lanes_times(slots, &times_alone).into_iter(),
                )
            };
            // Back in the order of the open searches' points.
            let evals: Vec<Eval> = points
                .iter()
                .zip(&slopes)
                .flat_map(|(list, &s)| {
                    let from = if s { &mut evals_with } else { &mut evals_alone };
                    from.by_ref().take(list.len()).collect::<Vec<_>>()
                })
                .collect();
            newton_passes.push(lanes);
            // Each parameter's points on a grid, learnt by all its searches.
            let mut known: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); params.len()];
            let mut first = 0;
            for (&(i, j), list) in open.iter().zip(&points) {
                let s = searches[i][j].as_mut().expect("open");
                let evals = &evals[first..first + list.len()];
                first += list.len();
                if s.shares() {
                    s.stepped();
                    known[i].extend(search::known(list, evals));
                } else {
                    s.step(list, evals);
                }
            }
            for (list, known) in searches.iter_mut().zip(&known) {
                for s in list.iter_mut().flatten().filter(|s| s.shares()) {
                    s.learn(known);
                }
            }
            for &(i, j) in &open {
                searches[i][j].as_mut().expect("open").check_bound();
            }
        }
        let params = params
            .iter()
            .zip(slopes)
            .zip(searches)
            .map(|((&x, slope), list)| ParamSensitivity {
                param: x,
                value: base.get(x),
                slope,
                tolerances: epsilons.iter().zip(&list).map(|(&e, s)| (e, s.map(|s| s.delta()))).collect(),
                at_most: list.iter().map(|s| s.and_then(|s| s.at_most())).collect(),
            })
            .collect();
        (params, newton_passes)
    }
}
