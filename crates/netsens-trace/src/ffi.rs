//! The C reader's interface (native/otf2read/otf2_reader.h), and a safe wrapper that
//! hands definitions and events to a [`Sink`].

use std::ffi::{c_char, c_int, c_void, CStr, CString};

pub const ENTER: u8 = 0;
pub const LEAVE: u8 = 1;
pub const SEND: u8 = 2;
pub const ISEND: u8 = 3;
pub const ISEND_DONE: u8 = 4;
pub const RECV: u8 = 5;
pub const IRECV_POST: u8 = 6;
pub const IRECV_DONE: u8 = 7;
pub const COLL: u8 = 8;
pub const NBC_POST: u8 = 9;
pub const NBC_DONE: u8 = 10;
/// MeasurementOnOff: `bytes` 1 (on) or 0 (off).
pub const MEASURE: u8 = 11;
pub const CANCELLED: u8 = 12;
/// Region paradigms (`OTF2_Paradigm`) replay tells apart.
pub const PARADIGM_MPI: u8 = 4;
pub const PARADIGM_MEASUREMENT: u8 = 6;
/// A receive's `peer` or `tag` when it was posted with `MPI_ANY_SOURCE` or `MPI_ANY_TAG`
/// (a liballprof trace records what the call was given, not what it matched).
pub const ANY: u32 = u32::MAX;
/// `cpu_ps` of an archive without netsens's CPU time attribute (`NS_NO_CPU_TIME`).
pub const NO_CPU_TIME: u64 = u64::MAX;

/// One event as the C reader gives it (`struct ns_otf2_event`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Event {
    pub time_ps: u64,
    pub bytes: u64,
    pub bytes2: u64,
    pub req: u64,
    /// ENTER, LEAVE: the rank's thread CPU time then, ps, or [`NO_CPU_TIME`].
    pub cpu_ps: u64,
    pub peer: u32,
    pub tag: u32,
    pub comm: u32,
    pub region: u32,
    pub kind: u8,
    pub coll: u8,
}

#[repr(C)]
struct CSink {
    ctx: *mut c_void,
    ranks: extern "C" fn(*mut c_void, u32, *const c_char, u64) -> c_int,
    region: extern "C" fn(*mut c_void, u32, *const c_char, u8) -> c_int,
    comm: extern "C" fn(*mut c_void, u32, c_int, u32, *const u64) -> c_int,
    event: Option<extern "C" fn(*mut c_void, u32, u64, *const Event) -> c_int>,
    tracer_gap: Option<extern "C" fn(*mut c_void, u32, u64, u64) -> c_int>,
}

extern "C" {
    fn ns_otf2_read(anchor: *const c_char, sink: *const CSink, err: *mut c_char, errlen: usize) -> c_int;
}

/// A communicator's members.
#[derive(Clone, Copy, Debug)]
pub enum Members<'a> {
    /// World ranks, in the communicator's rank order.
    World(&'a [u64]),
    /// Every rank alone (`MPI_COMM_SELF` and the like).
    OwnRank,
}

/// What the reader's caller does with definitions and events; an `Err` stops reading.
pub trait Sink {
    /// The trace's ranks, its creator (the tracer that wrote it, "" if unknown) and its
    /// clock's ticks per second.
    fn ranks(&mut self, n: u32, creator: &str, resolution: u64) -> Result<(), String>;
    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String>;
    fn comm(&mut self, id: u32, members: Members) -> Result<(), String>;
    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String>;
    /// What netsens's tracer adds to each gap between two MPI calls of `rank`, ps, on
    /// the wall clock and the thread CPU clock ([`NO_CPU_TIME`]: not recorded); called
    /// for every rank before its events.
    fn tracer_gap(&mut self, _rank: u32, _wall_ps: u64, _cpu_ps: u64) -> Result<(), String> {
        Ok(())
    }
}

/// A sink that keeps nothing but the number of events: the reading benchmark's
/// baseline, and a reader's pass that needs only what it reads itself.
pub struct EventCount(pub u64);

impl Sink for EventCount {
    fn ranks(&mut self, _: u32, _: &str, _: u64) -> Result<(), String> {
        Ok(())
    }
    fn region(&mut self, _: u32, _: &str, _: u8) -> Result<(), String> {
        Ok(())
    }
    fn comm(&mut self, _: u32, _: Members) -> Result<(), String> {
        Ok(())
    }
    fn event(&mut self, _: u32, _: u64, _: &Event) -> Result<(), String> {
        self.0 += 1;
        Ok(())
    }
}

struct Ctx<'a> {
    sink: &'a mut dyn Sink,
    error: Option<String>,
}

fn call(ctx: *mut c_void, f: impl FnOnce(&mut dyn Sink) -> Result<(), String>) -> c_int {
    // SAFETY: ctx is the &mut Ctx that `read` passed to the C reader, alive for its call.
    let ctx = unsafe { &mut *(ctx as *mut Ctx) };
    match f(ctx.sink) {
        Ok(()) => 0,
        Err(e) => {
            ctx.error = Some(e);
            1
        }
    }
}

extern "C" fn on_ranks(ctx: *mut c_void, n: u32, creator: *const c_char, resolution: u64) -> c_int {
    // SAFETY: the C reader passes a NUL-terminated string alive during the call.
    let creator = unsafe { CStr::from_ptr(creator) }.to_string_lossy();
    call(ctx, |s| s.ranks(n, &creator, resolution))
}

extern "C" fn on_region(ctx: *mut c_void, id: u32, name: *const c_char, paradigm: u8) -> c_int {
    // SAFETY: the C reader passes a NUL-terminated string alive during the call.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    call(ctx, |s| s.region(id, &name, paradigm))
}

extern "C" fn on_comm(ctx: *mut c_void, id: u32, own: c_int, n: u32, world: *const u64) -> c_int {
    if own != 0 {
        return call(ctx, |s| s.comm(id, Members::OwnRank));
    }
    // SAFETY: the C reader passes `n` members alive during the call.
    let world = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(world, n as usize) } };
    call(ctx, |s| s.comm(id, Members::World(world)))
}

extern "C" fn on_event(ctx: *mut c_void, rank: u32, position: u64, ev: *const Event) -> c_int {
    // SAFETY: the C reader passes one event alive during the call.
    let ev = unsafe { &*ev };
    call(ctx, |s| s.event(rank, position, ev))
}

extern "C" fn on_tracer_gap(ctx: *mut c_void, rank: u32, wall_ps: u64, cpu_ps: u64) -> c_int {
    call(ctx, |s| s.tracer_gap(rank, wall_ps, cpu_ps))
}

/// Read the archive whose anchor file is `anchor` into `sink`; with `events` false,
/// only its definitions.
pub fn read(anchor: &str, sink: &mut dyn Sink, events: bool) -> Result<(), String> {
    let path = CString::new(anchor).map_err(|_| format!("{anchor}: the path contains a NUL byte"))?;
    let mut ctx = Ctx { sink, error: None };
    let c = CSink {
        ctx: &mut ctx as *mut Ctx as *mut c_void,
        ranks: on_ranks,
        region: on_region,
        comm: on_comm,
        event: if events { Some(on_event) } else { None },
        tracer_gap: Some(on_tracer_gap),
    };
    let mut err = vec![0 as c_char; 512];
    // SAFETY: every pointer outlives the call; the reader writes at most err.len() bytes.
    let rc = unsafe { ns_otf2_read(path.as_ptr(), &c, err.as_mut_ptr(), err.len()) };
    if let Some(e) = ctx.error {
        return Err(e);
    }
    if rc != 0 {
        // SAFETY: the reader NUL-terminates its message within err.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) }.to_string_lossy().into_owned();
        return Err(format!("{anchor}: {msg}"));
    }
    Ok(())
}

extern "C" {
    fn ns_otf2_synth(
        dir: *const c_char,
        ranks: u32,
        iterations: u64,
        compute_ns: u64,
        bytes: u64,
        every: u64,
        faults: u32,
    ) -> c_int;
}

extern "C" {
    fn ns_otf2_scorep_synth(dir: *const c_char, variant: u32) -> c_int;
}

pub fn scorep_synth(dir: &std::path::Path, variant: u32) -> Result<String, netsens_core::Error> {
    let text = dir.to_string_lossy().into_owned();
    let c = CString::new(text.clone()).map_err(|_| netsens_core::Error::Input(format!("{text}: a NUL byte")))?;
    // SAFETY: the path outlives the call.
    if unsafe { ns_otf2_scorep_synth(c.as_ptr(), variant) } != 0 {
        return Err(netsens_core::Error::Input(format!("{text}: cannot write the Score-P-style OTF2 archive")));
    }
    Ok(format!("{text}/traces.otf2"))
}

pub fn synth(
    dir: &std::path::Path,
    ranks: u32,
    iterations: u64,
    compute_ns: u64,
    bytes: u64,
    every: u64,
    faults: u32,
) -> Result<String, netsens_core::Error> {
    let text = dir.to_string_lossy().into_owned();
    let c = CString::new(text.clone()).map_err(|_| netsens_core::Error::Input(format!("{text}: a NUL byte")))?;
    // SAFETY: the path outlives the call.
    let rc = unsafe { ns_otf2_synth(c.as_ptr(), ranks, iterations, compute_ns, bytes, every, faults) };
    if rc != 0 {
        return Err(netsens_core::Error::Input(format!("{text}: cannot write the synthetic OTF2 archive")));
    }
    Ok(format!("{text}/traces.otf2"))
}
