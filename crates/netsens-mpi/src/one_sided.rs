//! The Split-C one-sided service: stores, puts, gets and active messages as real MPI
//! messages on private duplicates of the world (one for requests, one for replies),
//! so they never match the program's receives.
//!
//! A request is served when its target enters the communication layer: every call of
//! the rank that communicates or waits probes the request communicator (MPI_Iprobe)
//! and serves what is there, so the target's CPU pays o for it (the request and any
//! reply are real MPI messages, which an injection library delays like any other).
//! - store: one message (MPI_Issend), no reply;
//! - put: one message, then a 1-byte acknowledgement from the target;
//! - get: a request, then a reply carrying the bytes;
//! - active message: one message naming the handler (MPI_Issend), which runs on the
//!   target; its real work is its cost.
//!
//! `store_sync` waits until every store and active message this rank issued has been
//! matched by its target: they are sent with MPI_Issend, whose completion says so,
//! with no message the application level sees (the MPI library acknowledges a
//! synchronous send inside, one small control message per store).

use crate::transport::{self, Envelope, RawComm, Transfer};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{AsRaw, Communicator as _};
use netsens_core::program::Handler;

/// Request kinds, sent as the MPI tag of a request.
const STORE: i32 = 0;
const PUT: i32 = 1;
const GET: i32 = 2;
const AM: i32 = 3;

/// Reply tags cycle below MPI's guaranteed 32767.
const REPLY_TAGS: i32 = 1 << 15;

/// An active message received, for the caller to run outside any borrow of the
/// rank's state (the handler may use its rank's handle).
pub(crate) struct Delivery {
    pub handler: Handler,
    pub origin: u32,
    pub data: Vec<u8>,
}

pub(crate) struct OneSided {
    requests: SimpleCommunicator,
    replies: SimpleCommunicator,
    pub window: Vec<u8>,
    pub handlers: Vec<Handler>,
    /// Stores and active messages sent and not yet matched by their target.
    unsynced: Vec<Transfer>,
    /// Acknowledgements and get replies this rank sent, not yet complete.
    answers: Vec<Transfer>,
    next_reply_tag: i32,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl OneSided {
    pub fn new(world: &SimpleCommunicator) -> OneSided {
        OneSided {
            requests: world.duplicate(),
            replies: world.duplicate(),
            window: Vec::new(),
            handlers: Vec::new(),
            unsynced: Vec::new(),
            answers: Vec::new(),
            next_reply_tag: 0,
        }
    }

    fn raw(&self) -> RawComm {
        self.requests.as_raw()
    }

    fn reply_tag(&mut self) -> i32 {
        let t = self.next_reply_tag;
        self.next_reply_tag = (t + 1) % REPLY_TAGS;
        t
    }

    /// A store (`handler` None) or an active message: one synchronous-mode message.
    pub fn store(&mut self, dst: u32, offset: usize, data: &[u8], handler: Option<u32>) {
        let (kind, head) = match handler {
            None => (STORE, offset as u64),
            Some(h) => (AM, h as u64),
        };
        let mut msg = Vec::with_capacity(8 + data.len());
        msg.extend_from_slice(&head.to_le_bytes());
        msg.extend_from_slice(data);
        self.unsynced.push(Transfer::send(self.raw(), dst as i32, kind, msg, true));
    }

    /// A put: (the request, the acknowledgement to wait for).
    pub fn put(&mut self, dst: u32, offset: usize, data: &[u8]) -> (Transfer, Transfer) {
        let tag = self.reply_tag();
        let ack = Transfer::recv(self.replies.as_raw(), dst as i32, tag, 1);
        let mut msg = Vec::with_capacity(16 + data.len());
        msg.extend_from_slice(&(offset as u64).to_le_bytes());
        msg.extend_from_slice(&(tag as u64).to_le_bytes());
        msg.extend_from_slice(data);
        (Transfer::send(self.raw(), dst as i32, PUT, msg, false), ack)
    }

    /// A get: (the request, the reply that brings the bytes).
    pub fn get(&mut self, dst: u32, offset: usize, len: usize) -> (Transfer, Transfer) {
        let tag = self.reply_tag();
        let reply = Transfer::recv(self.replies.as_raw(), dst as i32, tag, len);
        let mut msg = Vec::with_capacity(24);
        for v in [offset as u64, len as u64, tag as u64] {
            msg.extend_from_slice(&v.to_le_bytes());
        }
        (Transfer::send(self.raw(), dst as i32, GET, msg, false), reply)
    }

    /// Serve the first request waiting, if any: `None` when there is none; a store,
    /// put or get is done here, an active message comes back to be run.
    pub fn serve_one(&mut self) -> Option<Option<Delivery>> {
        let Envelope { source, tag, len } =
            transport::probe(self.raw(), transport::any_source(), transport::any_tag())?;
        let mut incoming = Transfer::recv(self.raw(), source, tag, len);
        while !incoming.test() {
            std::thread::yield_now();
        }
        let msg = std::mem::take(&mut incoming.buffer);
        match tag {
            STORE => self.write(u64_at(&msg, 0) as usize, &msg[8..]),
            PUT => {
                self.write(u64_at(&msg, 0) as usize, &msg[16..]);
                let reply_tag = u64_at(&msg, 8) as i32;
                self.answers.push(Transfer::send(self.replies.as_raw(), source, reply_tag, vec![1], false));
            }
            GET => {
                let (offset, len, reply_tag) = (u64_at(&msg, 0) as usize, u64_at(&msg, 8) as usize, u64_at(&msg, 16));
                let data = self.read(offset, len);
                self.answers.push(Transfer::send(self.replies.as_raw(), source, reply_tag as i32, data, false));
            }
            AM => {
                let id = u64_at(&msg, 0) as usize;
                let handler = self
                    .handlers
                    .get(id)
                    .unwrap_or_else(|| panic!("no active-message handler {id} is registered"))
                    .clone();
                return Some(Some(Delivery { handler, origin: source as u32, data: msg[8..].to_vec() }));
            }
            other => panic!("one-sided request of unknown kind {other}"),
        }
        Some(None)
    }

    /// Write into the window, growing it as the simulator does.
    fn write(&mut self, offset: usize, data: &[u8]) {
        if self.window.len() < offset + data.len() {
            self.window.resize(offset + data.len(), 0);
        }
        self.window[offset..offset + data.len()].copy_from_slice(data);
    }

    /// Read `len` bytes of the window at `offset` (zeros past its end).
    fn read(&self, offset: usize, len: usize) -> Vec<u8> {
        let mut data = vec![0; len];
        let end = self.window.len().min(offset + len);
        if offset < end {
            data[..end - offset].copy_from_slice(&self.window[offset..end]);
        }
        data
    }

    /// Let the sends of this rank move on; drop the finished ones.
    pub fn progress(&mut self) {
        self.unsynced.retain_mut(|t| !t.test());
        self.answers.retain_mut(|t| !t.test());
    }

    /// Every store and active message of this rank has been matched by its target.
    pub fn synced(&self) -> bool {
        self.unsynced.is_empty()
    }

    /// Nothing of this rank is in flight (its stores matched, its replies sent).
    pub fn idle(&self) -> bool {
        self.unsynced.is_empty() && self.answers.is_empty()
    }
}
