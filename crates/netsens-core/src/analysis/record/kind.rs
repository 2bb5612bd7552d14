//! Cost kinds as stored (one byte); `RECV_CPU_NO_G` is a receive whose bytes pay no G.

pub const ZERO: u8 = 0;
pub const COMPUTE: u8 = 1;
pub const SEND_CPU: u8 = 2;
pub const RECV_CPU: u8 = 3;
pub const RECV_CPU_NO_G: u8 = 4;
pub const GAP: u8 = 5;
pub const WIRE: u8 = 6;
pub const TO_LINK: u8 = 7;
pub const LINK_BYTES: u8 = 8;
pub const LINK_LATENCY: u8 = 9;
pub const FIXED: u8 = 10;
/// A topology's route latency, its links' time alone beyond `w·G`, and its wait
/// on links shared with other messages: constants of the run (held fixed).
pub const ROUTE: u8 = 11;
pub const LINK_TRANSMIT: u8 = 12;
pub const LINK_WAIT: u8 = 13;

/// Kinds of node (see `graph::kind`).
pub(crate) const KINDS: usize = 14;
