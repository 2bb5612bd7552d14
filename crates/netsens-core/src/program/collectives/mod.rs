//! Collective operations built from point-to-point messages on the [`Rank`] trait
//! only, so they run unchanged on any backend (the simulator today, real MPI later).
//!
//! Every collective
//! - runs on `comm.collective()`, the communicator's message context reserved for
//!   collectives, with fixed internal tags, so its messages never match the
//!   program's own receives (and consecutive collectives on one communicator stay
//!   apart by MPI's non-overtaking order, as in MPICH);
//! - counts itself once per call with [`Rank::count`] under its kind (`"barrier"`,
//!   `"bcast"`, `"reduce"`, `"allreduce"`, `"gather"`, `"scatter"`, `"allgather"`,
//!   `"alltoall"`, `"alltoallv"`, `"split"`); the point-to-point messages inside it
//!   count as `coll_send` / `coll_recv`;
//! - takes ranks (roots, peers) relative to `comm`;
//! - charges no compute for local work (copies, the reduction arithmetic): only the
//!   messages cost virtual time.
//!
//! The algorithms are those of `LOGGP.md` ("Collectives"), written as MPICH writes
//! them; each has an enum to pick it explicitly (`*_with`), and the plain function
//! is `Auto`:
//!
//! | collective | `Auto` picks (the other choices are the enum's variants) |
//! |---|---|
//! | [`barrier`] | dissemination |
//! | [`bcast`] | binomial tree; scatter + ring allgather when the message is larger than S |
//! | [`reduce`] | binomial tree |
//! | [`allreduce`] | recursive doubling; Rabenseifner when the vector is larger than S |
//! | [`gather`], [`scatter`] | binomial tree |
//! | [`allgather`] | recursive doubling; ring when the gathered vector is larger than S |
//! | [`alltoall`], [`alltoallv`] | pairwise exchange |
//!
//! **Threshold.** S is [`Rank::eager_limit`]. The comparison is on the size of the
//! whole vector the collective moves, as MPICH does: the broadcast message (bcast),
//! the reduced vector (allreduce), the gathered result `size × block` (allgather).
//! For bcast and allreduce that is exactly the size of every message of the
//! small-message algorithm, so `Auto` switches when those messages would go by
//! rendezvous. Rabenseifner is picked only when the vector also has at least as
//! many elements as the largest power of two ≤ size (MPICH's `count >= pof2`).
//!
//! **Non-powers of two.** Recursive doubling (allreduce, allgather) and Rabenseifner
//! fold the extra ranks in as MPICH does: with `pof2` the largest power of two ≤ p
//! and `rem = p − pof2`, each even rank `2i < 2·rem` first sends its whole vector to
//! the odd rank `2i+1` and sits out; the `pof2` remaining ranks (new rank `i` for odd
//! rank `2i+1` when `i < rem`, else new rank `i` is rank `i + rem`) run the
//! power-of-two algorithm; at the end each odd rank `2i+1` sends the whole result
//! back to `2i`. Binomial trees, dissemination, ring and pairwise exchange need no
//! fold-in (a tree's children beyond p are skipped; pairwise exchange pairs rank
//! `me+i` / `me−i` mod p instead of `me XOR i`).
//!
//! **Reduction order.** Floating-point sums depend on the order of the additions;
//! every algorithm here uses one fixed order, so a run is reproducible and every
//! rank of an allreduce gets bit-identical results:
//! - binomial reduce: a rank starts from its own vector and combines its children's
//!   partial results in increasing distance (`acc = acc ⊕ child`), i.e. the tree
//!   of MPICH's `MPIR_Reduce_intra_binomial`;
//! - recursive doubling / Rabenseifner: in each exchange the partner with the lower
//!   rank contributes the left operand (`lower ⊕ upper`); the fold-in computes
//!   `even ⊕ odd`.
//!
//! Payloads are bytes; [`encode`] / [`decode`] convert slices of numbers (little
//! endian), and the reductions are typed over [`Element`] with an [`Op`].
//!
//! One module a family: `barrier`; `distribute` (bcast, scatter: the root's data
//! down a binomial tree); `collect` (reduce, gather: the members' data up one);
//! `allreduce`; `allgather`; `alltoall` (pairwise exchange); `split`. The steps they
//! share are in `steps` (send-receive) and `fold` (ranks of non-powers of two).
//!
//! [`Rank`]: crate::program::Rank
//! [`Rank::count`]: crate::program::Rank::count
//! [`Rank::eager_limit`]: crate::program::Rank::eager_limit

mod allgather;
mod allreduce;
mod alltoall;
mod barrier;
mod collect;
mod distribute;
mod fold;
mod split;
mod steps;

pub use super::payload::{decode, encode, Element, Op};
pub use allgather::{allgather, allgather_with, AllgatherAlgorithm};
pub use allreduce::{allreduce, allreduce_with, AllreduceAlgorithm};
pub use alltoall::{alltoall, alltoall_with, alltoallv, alltoallv_with, AlltoallAlgorithm};
pub use barrier::{barrier, barrier_with, BarrierAlgorithm};
pub use collect::{gather, gather_with, reduce, reduce_with, GatherAlgorithm, ReduceAlgorithm};
pub use distribute::{bcast, bcast_with, scatter, scatter_with, BcastAlgorithm, ScatterAlgorithm};
pub use split::split;

use super::api::Tag;

// ---- tags (on the collective context, so they never meet user tags) -------------

const TAG_BARRIER: Tag = 1;
const TAG_BCAST: Tag = 2;
const TAG_BCAST_SCATTER: Tag = 3;
const TAG_BCAST_ALLGATHER: Tag = 4;
const TAG_REDUCE: Tag = 5;
const TAG_ALLREDUCE: Tag = 6;
const TAG_GATHER: Tag = 7;
const TAG_SCATTER: Tag = 8;
const TAG_ALLGATHER: Tag = 9;
const TAG_ALLTOALL: Tag = 10;
const TAG_ALLTOALLV: Tag = 11;
const TAG_SPLIT: Tag = 12;
