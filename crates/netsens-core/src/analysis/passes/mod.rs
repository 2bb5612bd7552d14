//! The passes: evaluating the record at many points at once. One pass over the
//! nodes in their recorded order gives each node's time, the makespan and the
//! slopes of a parameter ([`eval`]: one point, the reference); a batched pass
//! carries up to [`lanes::LANES`] points ([`lanes`], their prices laid out lane by
//! lane: [`terms`]); the first pass at the platform's own point also keeps the
//! critical path's choices and the sizes priced ([`at_base`]); another kind finds
//! the steepest path's line in each parameter ([`steepest`]). A pass keeps a node's
//! value only while a later node reads it ([`slots`]: made at the run's end).
//!
//! Above the prices (a pass adds the nodes' prices up), below the searches.

pub mod at_base;
pub mod eval;
pub mod lanes;
pub mod slots;
pub mod steepest;
mod terms;
