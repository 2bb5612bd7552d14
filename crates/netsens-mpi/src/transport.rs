//! Thin wrappers over the few MPI point-to-point calls the backend makes (bytes only,
//! on raw communicators), so that the rest of the crate holds no `unsafe`. Every call
//! is an ordinary MPI call, so a PMPI library preloaded under the program sees it.

use mpi::ffi;
use std::os::raw::c_int;

pub(crate) type RawComm = ffi::MPI_Comm;

/// A message found by a probe: who sent it, with which tag, how many bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Envelope {
    pub source: i32,
    pub tag: i32,
    pub len: usize,
}

/// An MPI request with the buffer it reads from or writes into: the buffer lives
/// (and does not move: a `Vec`'s heap block) until the request completes.
pub(crate) struct Transfer {
    request: ffi::MPI_Request,
    pub buffer: Vec<u8>,
    done: bool,
    /// Of a completed receive: its envelope.
    pub envelope: Option<Envelope>,
}

fn bytes_type() -> ffi::MPI_Datatype {
    // SAFETY: a constant the MPI library initialises before MPI_Init returns.
    unsafe { ffi::RSMPI_UINT8_T }
}

pub(crate) fn any_source() -> i32 {
    // SAFETY: as above, a constant.
    unsafe { ffi::RSMPI_ANY_SOURCE }
}

pub(crate) fn any_tag() -> i32 {
    // SAFETY: as above, a constant.
    unsafe { ffi::RSMPI_ANY_TAG }
}

fn count(len: usize) -> c_int {
    c_int::try_from(len).unwrap_or_else(|_| panic!("a message of {len} bytes is larger than MPI's count (2^31 - 1)"))
}

impl Transfer {
    /// Start sending `data` to `dst` (`synchronous`: MPI_Issend, complete once the
    /// receiver has matched it; else MPI_Isend).
    pub fn send(comm: RawComm, dst: i32, tag: i32, data: Vec<u8>, synchronous: bool) -> Transfer {
        let mut request = null_request();
        let (ptr, n) = (data.as_ptr().cast(), count(data.len()));
        // SAFETY: the buffer is owned by the returned Transfer and outlives the request.
        unsafe {
            if synchronous {
                ffi::MPI_Issend(ptr, n, bytes_type(), dst, tag, comm, &mut request);
            } else {
                ffi::MPI_Isend(ptr, n, bytes_type(), dst, tag, comm, &mut request);
            }
        }
        Transfer { request, buffer: data, done: false, envelope: None }
    }

    /// Start receiving up to `len` bytes from `src` with `tag`.
    pub fn recv(comm: RawComm, src: i32, tag: i32, len: usize) -> Transfer {
        let mut request = null_request();
        let mut buffer = vec![0u8; len];
        // SAFETY: as for `send`.
        unsafe {
            ffi::MPI_Irecv(buffer.as_mut_ptr().cast(), count(len), bytes_type(), src, tag, comm, &mut request);
        }
        Transfer { request, buffer, done: false, envelope: None }
    }

    /// Whether the transfer has completed (MPI_Test, once it has not yet).
    pub fn test(&mut self) -> bool {
        if !self.done {
            let mut flag: c_int = 0;
            // SAFETY: a zeroed status is a valid out-parameter.
            let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
            // SAFETY: the request is live (not yet completed) and owned here.
            unsafe { ffi::MPI_Test(&mut self.request, &mut flag, &mut status) };
            if flag != 0 {
                self.done = true;
                let mut n: c_int = 0;
                // SAFETY: the status of a completed request.
                unsafe { ffi::MPI_Get_count(&status, bytes_type(), &mut n) };
                self.envelope =
                    Some(Envelope { source: status.MPI_SOURCE, tag: status.MPI_TAG, len: n.max(0) as usize });
            }
        }
        self.done
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        // A transfer is only dropped unfinished when the run is being torn down after
        // an error: let MPI release it (the buffer is leaked, MPI may still touch it).
        if !self.done {
            // SAFETY: a live request; freeing it detaches it from this handle.
            unsafe { ffi::MPI_Request_free(&mut self.request) };
            std::mem::forget(std::mem::take(&mut self.buffer));
        }
    }
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: a constant.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// The first message waiting on `comm` from `src` with `tag` (either may be "any").
pub(crate) fn probe(comm: RawComm, src: i32, tag: i32) -> Option<Envelope> {
    let mut flag: c_int = 0;
    // SAFETY: as in `Transfer::test`.
    let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
    unsafe { ffi::MPI_Iprobe(src, tag, comm, &mut flag, &mut status) };
    if flag == 0 {
        return None;
    }
    let mut n: c_int = 0;
    // SAFETY: the status of a successful probe.
    unsafe { ffi::MPI_Get_count(&status, bytes_type(), &mut n) };
    Some(Envelope { source: status.MPI_SOURCE, tag: status.MPI_TAG, len: n.max(0) as usize })
}

/// A non-blocking barrier on `comm`: the run's end, when every rank has finished.
pub(crate) struct Fence {
    request: ffi::MPI_Request,
    done: bool,
}

impl Fence {
    pub fn start(comm: RawComm) -> Fence {
        let mut request = null_request();
        // SAFETY: the request is owned by the returned fence.
        unsafe { ffi::MPI_Ibarrier(comm, &mut request) };
        Fence { request, done: false }
    }

    pub fn test(&mut self) -> bool {
        if !self.done {
            let mut flag: c_int = 0;
            // SAFETY: a live request owned here; the status is ignored.
            unsafe { ffi::MPI_Test(&mut self.request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
            self.done = flag != 0;
        }
        self.done
    }
}

/// The largest of every member's `value` (MPI_Allreduce with MPI_MAX).
pub(crate) fn max_over(comm: RawComm, value: u32) -> u32 {
    let mut out: u32 = 0;
    // SAFETY: one u32 in, one out.
    unsafe {
        ffi::MPI_Allreduce(
            (&value as *const u32).cast(),
            (&mut out as *mut u32).cast(),
            1,
            ffi::RSMPI_UINT32_T,
            ffi::RSMPI_MAX,
            comm,
        )
    };
    out
}

/// End every process of the job with `code` (when the others cannot finish).
pub fn abort(code: i32) -> ! {
    // SAFETY: MPI_Abort does not return on any implementation we support.
    unsafe { ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code) };
    std::process::exit(code)
}

/// `MPI_Pcontrol(level)`: profilers' convention (level 0 pauses what they record, any
/// other level resumes it); a no-op for MPI itself.
pub(crate) fn pcontrol(level: i32) {
    // SAFETY: a call with no pointers; MPI is initialised.
    unsafe { ffi::MPI_Pcontrol(level) };
}
