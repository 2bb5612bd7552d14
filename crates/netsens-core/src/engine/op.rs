//! What the engine core knows about one operation, whichever front end made it.

/// Index of an operation in its front end's table.
pub type OpId = u32;

/// Wildcard source or tag of a receive (GOAL's `-1`, MPI's `ANY_SOURCE`/`ANY_TAG`).
pub const ANY: i32 = -1;

/// Message tags carry a context (a communicator) in their high bits: a tag is
/// `context << CONTEXT_SHIFT | user tag`. GOAL tags are context 0.
pub const CONTEXT_SHIFT: u32 = 16;

/// A receive tag matching any tag of one context: `-2 - context`.
#[inline]
pub fn any_tag_in(context: u32) -> i32 {
    -2 - context as i32
}

/// Whether a receive posted with `recv_tag` accepts a message tagged `msg_tag`.
#[inline]
pub fn tag_matches(recv_tag: i32, msg_tag: i32) -> bool {
    recv_tag == msg_tag || recv_tag == ANY || (recv_tag < ANY && msg_tag >> CONTEXT_SHIFT == -2 - recv_tag)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OpKind {
    Send = 0,
    Recv = 1,
    Calc = 2,
    /// One-way write (Split-C store, or an active message): no reply; the target's
    /// front end is told when it is processed. Done once off the sender's CPU.
    Store = 3,
    /// Write acknowledged by a 1-byte reply; done when the reply is processed.
    Put = 4,
    /// 1-byte request; the target replies with `size` bytes; done when the reply is processed.
    Get = 5,
    /// Read or write `size` bytes on disk `peer` of the rank's node; the CPU is free meanwhile.
    Disk = 6,
}

/// What the core needs to know about one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpDesc {
    pub kind: OpKind,
    /// The rank (host) the operation runs on.
    pub rank: u32,
    /// Destination of a send or one-sided op, source of a receive (or [`ANY`]).
    pub peer: i32,
    /// Message tag (or a wildcard for a receive).
    pub tag: i32,
    /// Bytes of a message; picoseconds of a calc (before CPU-speed scaling).
    pub size: u64,
    pub cpu: u8,
    pub nic: u8,
}
