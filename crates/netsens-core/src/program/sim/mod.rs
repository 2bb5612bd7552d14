//! The simulator backend of [`Rank`]: every call records an operation in a table
//! shared with the program front end, which hands it to the engine core and polls
//! the rank's coroutine again when one of its operations completes.
//!
//! `op_table` holds the operations and their slots, `waits` the futures a program
//! awaits, `rank` the handle that implements [`Rank`] on both, `credits` Active Messages' flow
//! control (a platform's `am_window`).
//!
//! [`Rank`]: crate::program::Rank

mod credits;
mod op_table;
mod rank;
mod waits;

pub(crate) use credits::{is_request, Credits};
pub(crate) use op_table::{prefetch, Shared, Slot, Wake, PRIM_NAMES};
pub(crate) use rank::context_of;
pub use rank::{thread_cpu_time, SimRank};
