//! Trace replay: an OTF2 archive of an MPI run (written by netsens's PMPI library in
//! trace mode, or by Score-P) read natively through libotf2, a liballprof or DUMPI
//! trace read by netsens's own readers, and turned into an engine schedule, replayed
//! under any platform; and its GOAL form. A rank's unsuccessful polls are waiting
//! (`polling.rs`); an archive of several runs replays one run at a time
//! ([`read_trace_run`]); the tracer's own cost between calls is not the program's
//! (`tracer_cost.rs`); what a rank paid per message is measured from its calls'
//! durations (`paid.rs`); [`write::write_archive`] writes archives of any shape for tests.

mod allprof;
pub mod collectives;
mod dumpi;
mod ffi;
mod formats;
pub mod goal_out;
pub mod info;
pub mod measure;
pub mod paid;
pub mod polling;
pub mod replay;
mod runs;
mod scorep_bytes;
pub mod served;
pub mod ti_out;
pub mod tracer_cost;
pub mod write;

pub use collectives::Algorithms;
pub use info::{trace_info, TraceInfo};
pub use paid::{overhead_paid, Paid, RankPaid};
pub use polling::PollRuns;
pub use replay::{
    call_support, count_events, read_trace, read_trace_compute, read_trace_options, read_trace_with, trace_ranks,
    Compute, ReadOptions, Replay, Support,
};
pub use runs::{median_index, read_trace_run, read_trace_run_options, trace_runs, RunChoice};
pub use served::{served_communicators, Served};

/// Write a synthetic archive (native/otf2read/otf2_synth.c) in the new directory
/// `dir`: every rank `iterations` times computes `compute_ns`, then exchanges
/// `bytes` with its neighbours in an `MPI_Sendrecv` (send right, receive from the
/// left); every `allreduce_every` iterations (0: never) an 8-byte `MPI_Allreduce`.
/// `faults` makes bad traces: bit 0, rank 0 sends nothing; bit 1, rank 1 ends with
/// an `MPI_Put`; bit 2, every rank starts with a 500 ns `MPI_Comm_dup`; bit 3, rank 1
/// ends inside an `MPI_Sendrecv` it never leaves. For tests and the reading benchmark.
/// Returns the anchor file's path.
pub fn write_synthetic(
    dir: &std::path::Path,
    ranks: u32,
    iterations: u64,
    compute_ns: u64,
    bytes: u64,
    allreduce_every: u64,
    faults: u32,
) -> Result<String, netsens_core::Error> {
    ffi::synth(dir, ranks, iterations, compute_ns, bytes, allreduce_every, faults)
}

/// Variants of [`write_scorep_style`] (bits): the allreduce as `MPI_Iallreduce` +
/// compute + `MPI_Wait` with Score-P 8's request records; the same calls as regions
/// only; no MPI at all (one process, 32 accelerator streams); rank 1 mapped to an
/// accelerator stream; persistent and non-blocking calls completed by
/// `MPI_Waitany`/`Testsome`/`Waitsome`, an unmatched `MPI_Iprobe`, `MPI_Comm_dup` and a
/// rendezvous-size `MPI_Sendrecv_replace`; an OpenMP thread that sends a message itself.
pub const SCOREP_NONBLOCKING: u32 = 1;
pub const SCOREP_REGIONS_ONLY: u32 = 2;
pub const SCOREP_NO_MPI: u32 = 4;
pub const SCOREP_STREAM_RANK: u32 = 8;
pub const SCOREP_OTHER_CALLS: u32 = 16;
pub const SCOREP_THREAD_MPI: u32 = 32;

/// Write a two-rank archive in Score-P's conventions (native/otf2read/otf2_scorep_synth.c
/// describes it: a 2.1 GHz clock, a far global offset, measurement off/on, a buffer
/// flush, thread, stream and metric locations, `MPI_COMM_SELF` and a split
/// communicator) in the new directory `dir`, as `variant` says. For tests. Returns the
/// anchor file's path.
pub fn write_scorep_style(dir: &std::path::Path, variant: u32) -> Result<String, netsens_core::Error> {
    ffi::scorep_synth(dir, variant)
}
