//! The simulator backend of [`Rank`]: every call records an operation in a table
//! shared with the program front end, which hands it to the engine core and polls
//! the rank's coroutine again when one of its operations completes.
//!
//! `op_table` holds the operations and their slots, `waits` the futures a program
//! awaits, `rank` the handle that implements [`Rank`] on both.
//!
//! [`Rank`]: crate::program::Rank

mod op_table;
mod rank;
mod waits;

pub(crate) use op_table::{prefetch, Shared, Wake, PRIM_NAMES};
pub(crate) use rank::context_of;
pub use rank::{thread_cpu_time, SimRank};
