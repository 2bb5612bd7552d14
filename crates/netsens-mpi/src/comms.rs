//! The communicator map: each context of the program's [`Communicator`]s names one
//! MPI communicator of this process. The world is a duplicate of MPI_COMM_WORLD
//! (context 0) and its collectives another (context 1), so that a collective's
//! messages, sent on `comm.collective()`, never match the program's own receives.

use crate::transport::{self, RawComm};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{AsRaw, Communicator as _, Group as _};
use netsens_core::program::Communicator;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Tags of MPI_Comm_create_group stay below MPI's guaranteed 32767.
const CREATE_TAGS: u64 = 1 << 15;

pub(crate) struct Comms {
    by_context: HashMap<u32, SimpleCommunicator>,
    /// How often this process derived a group (member list) from a parent context.
    derived: HashMap<(u32, Vec<u32>), u32>,
    /// The smallest context this process has not used.
    next_context: u32,
}

impl Comms {
    pub fn new(world: &SimpleCommunicator) -> Comms {
        let by_context = HashMap::from([(0, world.duplicate()), (1, world.duplicate())]);
        Comms { by_context, derived: HashMap::new(), next_context: 2 }
    }

    /// The MPI communicator of `comm`'s context.
    pub fn raw(&self, comm: &Communicator) -> RawComm {
        match self.by_context.get(&comm.context()) {
            Some(c) => c.as_raw(),
            None => panic!("communicator {} is not known to this rank", comm.id()),
        }
    }

    /// A communicator of `members` (world ranks) derived from `parent`, called by
    /// the members only. MPI_Comm_create_group makes it (its tag from the group and
    /// how often this group was derived from this parent, so that concurrent
    /// derivations of overlapping groups do not mix); the members then agree on its
    /// context with one MPI_Allreduce (the largest of their next free contexts), so
    /// the n-th derivation of a group from a parent has one context on every member,
    /// as in the simulator, and no member has used it before.
    pub fn derive(&mut self, parent: &Communicator, members: Vec<u32>, me_world: u32) -> Communicator {
        let me = members.iter().position(|&m| m == me_world).expect("derive: this rank is not a member") as u32;
        let parent_ctx = parent.context() & !1;
        let seq = self.derived.entry((parent_ctx, members.clone())).or_insert(0);
        let mut h = DefaultHasher::new();
        (&members, *seq).hash(&mut h);
        *seq += 1;
        let tag = (h.finish() % CREATE_TAGS) as i32;
        let ranks: Vec<i32> = members
            .iter()
            .map(|&w| parent.rank_of(w).unwrap_or_else(|| panic!("derive: rank {w} is not in the parent")) as i32)
            .collect();
        let parent_mpi = &self.by_context[&parent_ctx];
        let group = parent_mpi.group().include(&ranks);
        let comm = parent_mpi
            .split_by_subgroup_with_tag(&group, tag)
            .expect("MPI_Comm_create_group gave no communicator to a member");
        let context = transport::max_over(comm.as_raw(), self.next_context);
        self.next_context = context + 2;
        let collective = comm.duplicate();
        self.by_context.insert(context, comm);
        self.by_context.insert(context | 1, collective);
        Communicator::from_parts(context, Arc::from(members), me)
    }
}
