//! The answer: one request's report as JSON with a unit on every number
//! ([`report`]), the critical path that sets the run's end and what its time was
//! spent on ([`critical`]), and the run drawn as ranks × time ([`timeline`]).
//!
//! The top layer: it uses the others, none uses it.

pub mod analysis;
pub mod critical;
pub mod report;
pub mod timeline;
