//! A run's result as JSON text. The per-rank list is written straight from the
//! result (as a tree of values, 2^23 ranks would take gigabytes), and for a reader
//! that only shows the spread over the ranks it can be replaced by that spread.

use netsens_core::platform::Platform;
use netsens_core::profile::{RankStats, RunResult};
use serde_json::{json, Value};

/// A column of the per-rank list: its name and how to read it.
type Column = (&'static str, fn(&RankStats) -> u64);

/// The columns the spread is given for (each rank's times, ps).
const COLUMNS: [Column; 5] = [
    ("end_ps", |r| r.end_ps),
    ("compute_ps", |r| r.compute_ps),
    ("overhead_ps", |r| r.overhead_ps),
    ("wait_ps", |r| r.wait_ps),
    ("noise_ps", |r| r.noise_ps),
];

/// A result as JSON text: the engine's fields, the resolved platform, the workload
/// and any `extra` top-level fields (replacing the engine's of the same name). With
/// `summary_over` and more ranks than that, `ranks` is empty and `rank_summary`
/// holds their number and each column's min, median (the lower middle) and max.
pub(crate) fn result_json(
    mut r: RunResult,
    p: &Platform,
    workload: Value,
    extra: &[(&str, Value)],
    summary_over: Option<usize>,
) -> String {
    let ranks = std::mem::take(&mut r.ranks);
    let mut v = serde_json::to_value(&r).expect("results serialize");
    let obj = v.as_object_mut().expect("a result is an object");
    obj.remove("ranks");
    obj.insert("platform".into(), serde_json::to_value(p).expect("platforms serialize"));
    obj.insert("platform_name".into(), p.name.clone().into());
    obj.insert("workload".into(), workload);
    for (k, x) in extra {
        obj.insert((*k).into(), x.clone());
    }
    let summarize = summary_over.is_some_and(|most| ranks.len() > most);
    if summarize {
        obj.insert("rank_summary".into(), spread(&ranks));
    }
    let mut out = v.to_string();
    out.pop(); // the closing brace: the ranks come last
    out.push_str(",\"ranks\":");
    if summarize {
        out.push_str("[]");
    } else {
        out.push_str(&serde_json::to_string(&ranks).expect("ranks serialize"));
    }
    out.push('}');
    out
}

/// The number of ranks and each column's min, lower median and max.
fn spread(ranks: &[RankStats]) -> Value {
    let (mut min, mut median, mut max) = (json!({}), json!({}), json!({}));
    let mut values = Vec::with_capacity(ranks.len());
    for (name, column) in COLUMNS {
        values.clear();
        values.extend(ranks.iter().map(column));
        min[name] = values.iter().copied().min().unwrap_or(0).into();
        max[name] = values.iter().copied().max().unwrap_or(0).into();
        if !values.is_empty() {
            let mid = (values.len() - 1) / 2;
            median[name] = (*values.select_nth_unstable(mid).1).into();
        }
    }
    json!({"ranks": ranks.len(), "min": min, "median": median, "max": max})
}
