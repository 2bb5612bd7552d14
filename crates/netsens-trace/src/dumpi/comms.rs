//! Communicators across a DUMPI trace's ranks. DUMPI records, per process, the handle a
//! new communicator got and, for `MPI_Comm_split`, the color and key; never the
//! members. They follow from every rank's records: creating a communicator is
//! collective over its parent, called in the same order on every member (MPI's rule),
//! so the k-th creation on a parent is one call on all of them. A first pass over the
//! trace collects each creation's colors and keys; a split's communicator is then the
//! ranks of one color in (key, rank in the parent) order, a duplicate its parent's
//! ranks in their order. The reader gives every other creation it can tell the members
//! of as a split: `MPI_Comm_create` from a group (color: the group's least world rank,
//! key: the rank's place in the group), a topology (color 0, key: the rank in its
//! parent), `MPI_Cart_sub` (color: the dropped coordinates, key: the kept ones).

use std::collections::HashMap;

/// The ids the reader gives the sink's predefined communicators.
pub const WORLD: u32 = 0;
pub const SELF: u32 = 1;

/// A communicator as one rank sees it.
#[derive(Clone, Copy, Debug)]
pub struct Local {
    /// The sink's id.
    pub id: u32,
    pub size: u32,
    /// This rank's rank in it.
    pub me: u32,
}

/// The communicators a trace's ranks create.
pub struct Communicators {
    ranks: u32,
    /// (parent, the k-th creation on it, color): the created communicator's id.
    ids: HashMap<(u32, u32, i32), u32>,
    /// Per created communicator (id − 2): its parent and its members' (key, world rank)
    /// as collected; after [`Communicators::resolve`], its world ranks in rank order.
    parent: Vec<u32>,
    collected: Vec<Vec<(i32, u32)>>,
    members: Vec<Vec<u32>>,
    /// Set by [`Communicators::resolve`]: no creation is collected after it.
    resolved: bool,
}

impl Communicators {
    pub fn new(ranks: u32) -> Communicators {
        Communicators {
            ranks,
            ids: HashMap::new(),
            parent: Vec::new(),
            collected: Vec::new(),
            members: Vec::new(),
            resolved: false,
        }
    }

    /// The ranks of the trace (of MPI_COMM_WORLD).
    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    pub fn world(&self, rank: u32) -> Local {
        Local { id: WORLD, size: self.ranks, me: rank }
    }

    pub fn own() -> Local {
        Local { id: SELF, size: 1, me: 0 }
    }

    /// The communicator world rank `rank` gets from its `k`-th creation on `parent`
    /// with `color` and `key` (a duplicate: 0 and 0); None for a negative color
    /// (`MPI_UNDEFINED`: no communicator). Before [`Communicators::resolve`] the
    /// creation is collected and the size is the world's, an upper bound.
    pub fn create(&mut self, parent: Local, k: u32, color: i32, key: i32, rank: u32) -> Option<Local> {
        if parent.id == SELF {
            return Some(parent); // MPI_COMM_SELF split or duplicated: the rank alone
        }
        if color < 0 {
            return None;
        }
        let next = 2 + self.parent.len() as u32;
        if self.resolved && !self.ids.contains_key(&(parent.id, k, color)) {
            return None; // not met when collecting: its members are not known
        }
        let id = *self.ids.entry((parent.id, k, color)).or_insert(next);
        if id == next {
            self.parent.push(parent.id);
            self.collected.push(Vec::new());
        }
        let i = (id - 2) as usize;
        match self.members.get(i) {
            None => {
                self.collected[i].push((key, rank));
                Some(Local { id, size: self.ranks, me: 0 })
            }
            Some(members) => {
                let me = members.iter().position(|&w| w == rank)? as u32;
                Some(Local { id, size: members.len() as u32, me })
            }
        }
    }

    /// Order each created communicator's members; a parent is always created (and so
    /// numbered) before its children, so parents are ordered first.
    pub fn resolve(&mut self) {
        self.resolved = true;
        for i in 0..self.collected.len() {
            let position = |world: u32| match self.parent[i] {
                WORLD => Some(world as usize),
                p => self.members[(p - 2) as usize].iter().position(|&w| w == world),
            };
            let mut members = self.collected[i].clone();
            members.sort_by_key(|&(key, world)| (key, position(world)));
            self.members.push(members.into_iter().map(|(_, w)| w).collect());
        }
    }

    /// The created communicators: id and world ranks in rank order.
    pub fn created(&self) -> impl Iterator<Item = (u32, &[u32])> {
        self.members.iter().enumerate().map(|(i, m)| (2 + i as u32, m.as_slice()))
    }
}
