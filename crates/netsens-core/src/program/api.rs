//! The API a rank program sees. Applications are written once against [`Rank`]
//! (generic over it), so the simulator backend here and a real-MPI backend can run
//! the same source. Names follow MPI where MPI has the concept.

use crate::engine::CONTEXT_SHIFT;
use crate::time::Time;
use std::rc::Rc;
use std::sync::Arc;

pub type Tag = i32;

/// Receive from any source / with any tag.
pub const ANY_SOURCE: i32 = -1;
pub const ANY_TAG: Tag = -1;
/// Largest user tag (MPI guarantees at least 32767).
pub const MAX_TAG: Tag = (1 << CONTEXT_SHIFT) - 1;
/// Communicators available in one run (each uses two contexts: point-to-point and collectives).
pub const MAX_COMMUNICATORS: u32 = 1 << 14;

/// A group of ranks with its own message space (MPI's communicator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Communicator {
    /// Message context: even for point-to-point, odd for the same group's collectives.
    pub(crate) context: u32,
    /// World rank of each member, by rank in this communicator.
    pub(crate) members: Arc<[u32]>,
    /// This process's rank in the communicator.
    pub(crate) me: u32,
}

impl Communicator {
    /// The world as seen by rank `me`; every rank shares one member list.
    pub(crate) fn world(members: &Arc<[u32]>, me: u32) -> Self {
        Communicator { context: 0, members: members.clone(), me }
    }

    pub(crate) fn new(context: u32, members: Arc<[u32]>, me: u32) -> Self {
        Communicator { context, members, me }
    }

    /// A communicator from its parts, for other backends: `context` even for
    /// point-to-point (the collectives' is `context | 1`), `members` the world rank
    /// of each member by rank, `me` this process's rank among them.
    pub fn from_parts(context: u32, members: Arc<[u32]>, me: u32) -> Self {
        Communicator { context, members, me }
    }

    /// Message context: `2 · id`, plus 1 in the collectives' message space.
    pub fn context(&self) -> u32 {
        self.context
    }

    pub fn rank(&self) -> u32 {
        self.me
    }

    pub fn size(&self) -> u32 {
        self.members.len() as u32
    }

    /// World rank of member `r`.
    pub fn world_rank(&self, r: u32) -> u32 {
        self.members[r as usize]
    }

    /// Rank in this communicator of world rank `world`, if a member.
    pub fn rank_of(&self, world: u32) -> Option<u32> {
        self.members.iter().position(|&m| m == world).map(|p| p as u32)
    }

    /// The same group in the message space reserved for collectives, so that a
    /// collective's messages never match the program's own receives.
    pub fn collective(&self) -> Communicator {
        Communicator { context: self.context | 1, ..self.clone() }
    }

    pub fn is_collective(&self) -> bool {
        self.context & 1 == 1
    }

    /// Communicator id (context / 2), unique in a run.
    pub fn id(&self) -> u32 {
        self.context / 2
    }
}

/// Handle of a non-blocking operation; redeem it with [`Rank::wait`].
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a request must be waited for"]
pub struct Request(pub(crate) u32);

impl Request {
    /// A request named by the backend's own number, for other backends.
    pub fn from_id(id: u32) -> Self {
        Request(id)
    }

    /// The backend's number of this request.
    pub fn id(&self) -> u32 {
        self.0
    }
}

/// A completed operation: for a receive, who sent what; for a get, the bytes read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// Sender's rank in the receive's communicator (the target for a get).
    pub source: u32,
    pub tag: Tag,
    pub data: Vec<u8>,
}

/// An active-message handler, run on the target when the message is processed:
/// gets the sender's world rank and the payload, returns the compute it costs (ps).
pub type Handler = Rc<dyn Fn(u32, &[u8]) -> Time>;

/// Id of a registered handler (ranks register their handlers in the same order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandlerId(pub(crate) u32);

impl HandlerId {
    /// The handler registered `index`-th (from 0), for other backends.
    pub fn from_index(index: u32) -> Self {
        HandlerId(index)
    }

    pub fn index(self) -> u32 {
        self.0
    }
}

/// One rank's view of the parallel machine.
///
/// Blocking calls are `async`: a program is an `async fn` generic over `R: Rank`,
/// and awaiting lets the backend run the other ranks. Times are picoseconds.
#[allow(async_fn_in_trait)] // programs run on one thread; futures need not be Send
pub trait Rank: Clone + 'static {
    /// All ranks.
    fn world(&self) -> Communicator;

    /// This rank in the world.
    fn rank(&self) -> u32 {
        self.world().rank()
    }

    /// Number of ranks in the world.
    fn size(&self) -> u32 {
        self.world().size()
    }

    /// The eager/rendezvous threshold S (bytes) of the network inside a cluster;
    /// collectives switch algorithms above it.
    fn eager_limit(&self) -> u64;

    // ---- machine shape ----

    /// Ranks per cluster, in rank order (consecutive ranks share a cluster); one
    /// entry, the world size, on a machine of one cluster.
    fn cluster_sizes(&self) -> Vec<u32>;

    /// The cluster holding world rank `world_rank` (from [`Rank::cluster_sizes`]).
    fn cluster_of(&self, world_rank: u32) -> u32 {
        let mut end = 0;
        for (c, n) in self.cluster_sizes().into_iter().enumerate() {
            end += n;
            if world_rank < end {
                return c as u32;
            }
        }
        panic!("rank {world_rank} is in no cluster (the world has {end} ranks)")
    }

    // ---- point-to-point ----

    /// Start sending `data` to member `dst` of `comm`.
    fn isend(&self, comm: &Communicator, dst: u32, tag: Tag, data: Vec<u8>) -> Request;

    /// Start receiving from member `src` of `comm` (or [`ANY_SOURCE`]) with `tag` (or [`ANY_TAG`]).
    fn irecv(&self, comm: &Communicator, src: i32, tag: Tag) -> Request;

    /// Wait for a request; a receive's or get's data comes back in the message.
    async fn wait(&self, req: Request) -> Message;

    /// Wait for every request, results in request order.
    async fn wait_all(&self, reqs: Vec<Request>) -> Vec<Message>;

    /// Whether a request has completed (it must still be waited for).
    fn test(&self, req: &Request) -> bool;

    async fn send(&self, comm: &Communicator, dst: u32, tag: Tag, data: Vec<u8>) {
        let r = self.isend(comm, dst, tag, data);
        self.wait(r).await;
    }

    async fn recv(&self, comm: &Communicator, src: i32, tag: Tag) -> Message {
        let r = self.irecv(comm, src, tag);
        self.wait(r).await
    }

    // ---- computation ----

    /// Charge `cost` of computation (scaled by the platform's CPU speed).
    async fn compute(&self, cost: Time);

    /// Run `f` (the real work) and charge `cost` for it, or, when the run measures
    /// compute, the thread CPU time `f` took.
    async fn work<T>(&self, cost: Time, f: impl FnOnce() -> T) -> T;

    /// Start reading or writing `bytes` on disk `disk` of this rank's node (the
    /// platform's `[disks]`). Each disk serves one request at a time, first come first
    /// served; the CPU is free meanwhile, so a program can overlap I/O with messages.
    fn idisk(&self, disk: u32, bytes: u64) -> Request;

    async fn disk(&self, disk: u32, bytes: u64) {
        let r = self.idisk(disk, bytes);
        self.wait(r).await;
    }

    /// This rank's current time (virtual in simulation).
    fn now(&self) -> Time;

    // ---- profile ----

    /// From here on, this rank's time counts toward phase `name`.
    fn phase(&self, name: &str);

    /// Count one use of a primitive (collectives call it with their kind).
    fn count(&self, primitive: &'static str);

    // ---- one-sided (Split-C style) ----

    /// Give this rank a window of `bytes` zeroed bytes that others may store to,
    /// put to and get from.
    fn expose(&self, bytes: usize);

    /// Access this rank's own window.
    fn window<T>(&self, f: impl FnOnce(&mut Vec<u8>) -> T) -> T;

    /// Write `data` into world rank `dst`'s window at `offset`; no reply.
    fn store(&self, dst: u32, offset: usize, data: Vec<u8>);

    /// Wait until every store this rank has issued has been processed by its target.
    async fn store_sync(&self);

    /// Start a put: write into `dst`'s window, acknowledged by a 1-byte reply.
    fn iput(&self, dst: u32, offset: usize, data: Vec<u8>) -> Request;

    /// Start a get of `len` bytes at `offset` of `dst`'s window; the data comes back
    /// in the request's message.
    fn iget(&self, dst: u32, offset: usize, len: usize) -> Request;

    async fn put(&self, dst: u32, offset: usize, data: Vec<u8>) {
        let r = self.iput(dst, offset, data);
        self.wait(r).await;
    }

    /// A blocking read: a round trip (≥ 2L + 4o).
    async fn get(&self, dst: u32, offset: usize, len: usize) -> Vec<u8> {
        let r = self.iget(dst, offset, len);
        self.wait(r).await.data
    }

    /// Register an active-message handler; every rank registers the same handlers
    /// in the same order, so ids agree.
    fn register(&self, handler: Handler) -> HandlerId;

    /// Send an active message: `handler` runs on world rank `dst` with `data`, its
    /// compute charged to `dst`'s CPU. One way, like a store (`store_sync` covers it).
    fn am(&self, dst: u32, handler: HandlerId, data: Vec<u8>);

    // ---- communicators ----

    /// A communicator of `members` (world ranks, in rank order), derived from
    /// `parent`; every member must call it with the same arguments (after agreeing
    /// on them, as `split` does).
    fn derive(&self, parent: &Communicator, members: Vec<u32>) -> Communicator;
}
