//! One request, one answer: the critical path, every parameter's slopes and
//! tolerances, and the curves asked for, as JSON with a unit on every number.

use crate::analysis::passes::eval::Buffers;
use crate::analysis::record::graph::ExecGraph;
use crate::analysis::record::params::{Param, Point};
use crate::engine::OpId;
use crate::error::{Error, Result};
use crate::platform::Platform;
use serde_json::{json, Value};

/// What to compute besides the critical path.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Parameter names (`None`: every parameter of the platform).
    pub params: Option<Vec<String>>,
    /// Each in (0, 1): T may grow by this fraction.
    pub epsilons: Vec<f64>,
    /// (parameter, range in its unit; `None`: 0.1× to 100× the platform's value).
    pub curves: Vec<(String, Option<(f64, f64)>)>,
    /// (parameter, values in its unit): T at each value alone, without the curve's
    /// corners (all values lanes of the same passes; far cheaper than a curve).
    pub at: Vec<(String, Vec<f64>)>,
    /// Critical-path steps listed at most (the rest are counted).
    pub chain_limit: usize,
    /// The part of the run to give as a timeline, if any.
    pub timeline: Option<super::timeline::Window>,
    /// A parameter to give the whole graph for, as lines in it (a second method, a
    /// linear program, can then check the tolerances); small runs only.
    pub graph: Option<String>,
}

/// Nodes a graph is given for at most.
pub const GRAPH_NODES_MAX: usize = 200_000;

/// The ε LLAMP and the issue ask for: 1, 2, 5 and 10 %.
pub const EPSILONS: [f64; 4] = [0.01, 0.02, 0.05, 0.10];

/// A curve to draw: the parameter and its range (in its unit).
type CurveRange = (Param, f64, f64);

/// What the request asks for, its names resolved and its numbers checked.
struct Resolved {
    params: Vec<Param>,
    curves: Vec<CurveRange>,
    at: Vec<(Param, Vec<f64>)>,
}

impl Request {
    /// Check every name, ε and range before anything is computed.
    fn resolve(&self, platform: &Platform) -> Result<Resolved> {
        for &e in &self.epsilons {
            if !(e > 0.0 && e < 1.0) {
                return Err(Error::Input(format!(
                    "epsilon: must be between 0 and 1 (a fraction of the run time, e.g. 0.05 for 5 %), got {e}"
                )));
            }
        }
        let params = match &self.params {
            None => Param::all(platform),
            Some(names) => names.iter().map(|n| Param::parse(n, platform)).collect::<Result<_>>()?,
        };
        let base = Point::of(platform);
        let mut curves = Vec::new();
        for (name, range) in &self.curves {
            let x = Param::parse(name, platform)?;
            let (lo, hi) = match *range {
                Some(r) => r,
                None if base.get(x) > 0.0 => (0.1 * base.get(x), 100.0 * base.get(x)),
                None => {
                    return Err(Error::Input(format!(
                        "curve of {name}: it is 0 on this platform, so there is no default range (0.1× to 100×); \
                         give one, e.g. {name}=0:{}",
                        if x.unit() == "ps" { "10us" } else { "10ns" }
                    )))
                }
            };
            if !(lo >= 0.0 && hi > lo && hi.is_finite()) {
                return Err(Error::Input(format!(
                    "curve of {name}: the range must go from a value ≥ 0 up to a larger one, got {lo} to {hi} {}",
                    x.unit()
                )));
            }
            curves.push((x, lo, hi));
        }
        let mut at = Vec::new();
        for (name, values) in &self.at {
            let x = Param::parse(name, platform)?;
            let example = match x.unit() {
                "ps" => "1us,2us",
                "ps/B" => "1ns/B,2ns/B",
                _ => "0.5,1",
            };
            if values.is_empty() {
                return Err(Error::Input(format!("at {name}: no values; give at least one, e.g. {name}={example}")));
            }
            if let Some(v) = values.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
                return Err(Error::Input(format!(
                    "at {name}: every value must be a finite number ≥ 0 {}, got {v}",
                    x.unit()
                )));
            }
            at.push((x, values.clone()));
        }
        Ok(Resolved { params, curves, at })
    }
}

/// One tolerance: ε and Δx; where its search stopped at its bound, Δx is at least
/// `delta` and at most `delta_at_most` (null: no value past the target was found).
pub(crate) fn tolerance_json(eps: f64, delta: Option<f64>, at_most: Option<f64>) -> Value {
    let mut t = json!({"epsilon": eps, "delta": delta});
    if let Some(most) = at_most {
        t["delta_at_most"] = json!(most.is_finite().then_some(most));
    }
    t
}

/// The analysis of recorded run `g` on `platform`; `describe(op)` names a
/// schedule's operation (a rank program's are named by their kind).
pub fn report(
    g: &ExecGraph,
    platform: &Platform,
    req: &Request,
    describe: Option<&dyn Fn(OpId) -> String>,
) -> Result<Value> {
    let Resolved { params, curves, at } = req.resolve(platform)?;
    let base = Point::of(platform);
    let mut buf = Buffers::default();
    let analysis = g.analyze(&base, &params, &req.epsilons);
    let (t0, cp) = (analysis.makespan, &analysis.critical_path);
    let parts: Vec<Value> = cp
        .parts
        .iter()
        .map(|(p, &ps)| json!({"part": p.name(), "ps": ps, "share": if t0 > 0.0 { ps / t0 } else { 0.0 }}))
        .collect();
    // The class's name is the fabric's (the run's `links.classes`, by index);
    // null: the wide-area links.
    let by_class: Vec<Value> = cp
        .link_queue_by_class
        .iter()
        .map(|(&c, &ps)| {
            let class = (c != super::critical::WIDE_AREA).then_some(c);
            json!({"class_index": class, "ps": ps, "share": if t0 > 0.0 { ps / t0 } else { 0.0 }})
        })
        .collect();
    let chain: Vec<Value> = cp
        .ops
        .iter()
        .take(req.chain_limit)
        .map(|s| {
            let what = describe.map_or_else(|| format!("{:?}", s.kind).to_lowercase(), |d| d(s.op));
            let what = if s.arrival { format!("arrival of {what}") } else { what };
            json!({"op": s.op, "rank": s.rank, "what": what, "until_ps": s.until_ps})
        })
        .collect();
    let sens: Vec<Value> = analysis
        .params
        .iter()
        .map(|s| {
            json!({
                "param": s.param.name(), "unit": s.param.unit(), "value": s.value,
                "slope_down": s.slope.slope_down, "slope_up": s.slope.slope_up,
                "slope_unit": format!("ps per {}", s.param.unit()),
                "tolerance": s.tolerances.iter().zip(&s.at_most).map(|(&(e, d), &most)| tolerance_json(e, d, most))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let curves: Vec<Value> = curves
        .iter()
        .map(|&(x, lo, hi)| {
            let points = g.curve(&base, x, lo, hi, &mut buf);
            json!({"param": x.name(), "unit": x.unit(), "points": points, "time_unit": "ps"})
        })
        .collect();
    let at: Vec<Value> = if at.is_empty() {
        Vec::new()
    } else {
        let found = g.curves_at(&g.slots(), &base, &at);
        at.iter()
            .zip(found)
            .map(|((x, values), ts)| {
                json!({"param": x.name(), "unit": x.unit(), "values": values, "makespan_ps": ts, "time_unit": "ps"})
            })
            .collect()
    };
    let graph = match &req.graph {
        Some(name) => {
            let x = Param::parse(name, platform)?;
            if g.nodes.len() > GRAPH_NODES_MAX {
                return Err(Error::Input(format!(
                    "graph: the record has {} nodes, more than the {GRAPH_NODES_MAX} it is given for",
                    g.nodes.len()
                )));
            }
            Some(g.lines_json(&base, x))
        }
        None => None,
    };
    let timeline = req.timeline.map(|w| {
        g.times(&base, &mut buf.times);
        g.timeline(&base, &buf.times, &w)
    });
    Ok(json!({
        "timeline": timeline,
        "graph": graph,
        "makespan_ps": t0,
        "timing_dependent": g.wildcards,
        // On a topology the links' time (route latency, transmission, sharing) is
        // recorded as constants: slopes and curves hold it fixed.
        "link_waits_held_fixed": platform.topology.is_some(),
        "record": {"nodes": g.nodes.len(), "predecessors": g.preds.len(), "bytes": g.bytes()},
        // The lanes of each pass Newton's steps took: what the tolerances cost.
        "newton_passes": analysis.newton_passes,
        "critical_path": {
            "parts": parts, "nic_wait_ps": cp.nic_wait, "link_queueing_by_class": by_class,
            "steps": cp.ops.len(), "chain": chain,
        },
        "params": sens,
        "curves": curves,
        "at": at,
    }))
}
