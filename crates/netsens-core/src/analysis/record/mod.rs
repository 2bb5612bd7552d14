//! The record: what a run leaves for the analysis. Every time the engine set is a
//! node of an execution graph ([`graph::ExecGraph`]), made by the recorder beside the
//! event loop ([`recorder`]); each node's cost is stored as a kind, a level and a
//! byte count ([`kind`], [`nodes`]), not as a number, so that the record is a
//! function of the platform's parameters ([`params`]). At the run's end each node is
//! given the slot its value lives in during a pass ([`slots`]) and a code into a
//! short table of the run's prices ([`codes`]).
//!
//! The lowest layer: it uses none of the others (prices, passes, searches, answer).

pub mod codes;
pub mod graph;
mod grow;
pub mod kind;
pub mod nodes;
pub mod params;
mod recorder;
pub mod slots;
pub mod threads;
