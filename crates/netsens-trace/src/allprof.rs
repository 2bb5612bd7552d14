//! liballprof traces (LogGOPSim's PMPI tracer): one text file per rank,
//! `pmpi-trace-rank-N.txt` (N zero-padded to the width of the largest rank), or
//! `htor-coll-rank-N.dat` as the tracer family's collective profiler names them, read
//! into the same [`Sink`] as OTF2 archives, so replay, `trace info` and `trace to-goal`
//! treat both alike.
//!
//! A file starts with `#` lines (`# htor's PMPI Tracer 0.9 Output File`, or the older
//! `collprof 0.9`), then one line per MPI call: `MPI_Name:start:arg:...:end`. The
//! arguments follow the C prototype; a datatype is `id,size,extent`, a communicator
//! `id,rank,size`, a count array `pointer:c0,c1,...`; a request or status is the
//! address of the program's variable. Times are µs of `MPI_Wtime` (integers, or with
//! decimals in the older dialect); `MPI_Init`'s start and `MPI_Finalize`'s end are `-`.
//!
//! `MPI_Wtime` is often seconds since the epoch (1.7·10⁹ s is 1.7·10²¹ ps, past a
//! 64-bit count of ps), so times are read exactly as decimals and taken relative to
//! the trace's origin: the earliest first time of any rank. A time that still does not
//! fit, or one before the origin, is a clock the reader cannot interpret: refused.
//!
//! What liballprof does not record is refused in one line naming the file and line:
//! the members of a communicator other than `MPI_COMM_WORLD`, which request
//! `MPI_Waitany`/`Waitsome` completed. A receive keeps the source and tag it was posted
//! with (`-1`: any), as Schedgen reads it; `MPI_Test*` is taken as unsuccessful (the
//! flag is not recorded) and a request it completed is never waited for, as in
//! Schedgen.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::ffi::{self, Event, Members, Sink};

/// The creator a liballprof trace reports to the sink.
pub const CREATOR: &str = "liballprof";
/// The rank files' names: (prefix, suffix) around the rank.
const NAMINGS: [(&str, &str); 2] = [("pmpi-trace-rank-", ".txt"), ("htor-coll-rank-", ".dat")];
/// The communicator id the reader gives `MPI_COMM_WORLD` (and its world-sized copies).
const WORLD: u32 = 0;
/// `sizeof(MPI_Request)` in Open MPI (a pointer) and MPICH (an int): an
/// `MPI_Waitall`'s array holds its requests at one of these strides.
const REQUEST_STRIDES: [u64; 2] = [8, 4];

/// The rank in a rank file's name, and which naming it follows.
fn rank_of(name: &str) -> Option<(u32, usize)> {
    NAMINGS
        .iter()
        .enumerate()
        .find_map(|(i, (prefix, suffix))| Some((name.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()?, i)))
}

/// The rank files of the liballprof trace at `path` (its directory, or one of its
/// files), in rank order; None when `path` is not a liballprof trace.
pub fn rank_files(path: &str) -> Option<Result<Vec<PathBuf>, String>> {
    let p = Path::new(path);
    let (dir, naming) = if p.is_dir() {
        (p.to_path_buf(), None)
    } else {
        let (_, naming) = rank_of(p.file_name()?.to_str()?)?;
        (p.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf), Some(naming))
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => return Some(Err(format!("{path}: cannot list the directory: {e}"))),
    };
    let mut files: Vec<(usize, u32, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        if let Some((rank, n)) = entry.file_name().to_str().and_then(rank_of) {
            files.push((n, rank, entry.path()));
        }
    }
    // A directory holding both namings: a file given names its own; else the first.
    let naming = naming.or_else(|| files.iter().map(|f| f.0).min())?;
    files.retain(|f| f.0 == naming);
    let (prefix, suffix) = NAMINGS[naming];
    if files.is_empty() {
        return Some(Err(format!("{path}: no {prefix}N{suffix} files")));
    }
    files.sort();
    if let Some((i, _)) = files.iter().enumerate().find(|(i, (_, rank, _))| *rank != *i as u32) {
        return Some(Err(format!(
            "{path}: the rank files are not 0 to {}: rank {i}'s ({prefix}{i}{suffix}) is missing",
            files.len() - 1
        )));
    }
    Some(Ok(files.into_iter().map(|(_, _, f)| f).collect()))
}

/// A request in flight: what its completion records.
#[derive(Clone, Copy)]
enum Pending {
    Send,
    Recv { peer: u32, tag: u32, bytes: u64 },
    Coll(Event),
}

struct RankReader<'a> {
    file: String,
    rank: u32,
    ranks: u32,
    sink: &'a mut dyn Sink,
    regions: &'a mut HashMap<String, u32>,
    position: u64,
    pending: HashMap<u64, Pending>,
    line: usize,
    finalized: bool,
    /// The trace's origin, ps of the tracer's clock (see the module's comment).
    origin: i128,
}

/// Fields of one call line; times in ps of the tracer's clock.
struct Call<'l> {
    name: &'l str,
    start: Option<i128>,
    end: i128,
    args: Vec<&'l str>,
}

impl RankReader<'_> {
    fn err(&self, what: impl std::fmt::Display) -> String {
        format!("{}: line {}: {what}", self.file, self.line)
    }

    fn emit(&mut self, ev: Event) -> Result<(), String> {
        let position = self.position;
        self.position += 1;
        self.sink.event(self.rank, position, &ev)
    }

    fn region(&mut self, name: &str) -> Result<u32, String> {
        if let Some(&id) = self.regions.get(name) {
            return Ok(id);
        }
        let id = self.regions.len() as u32;
        self.regions.insert(name.to_string(), id);
        self.sink.region(id, name, ffi::PARADIGM_MPI)?;
        Ok(id)
    }

    fn int(&self, call: &Call, i: usize) -> Result<i64, String> {
        let text = call.args.get(i).ok_or_else(|| self.err(format!("{} has too few fields", call.name)))?;
        text.trim()
            .parse()
            .map_err(|_| self.err(format!("{}: field {} is not an integer: \"{text}\"", call.name, i + 2)))
    }

    fn parts(&self, call: &Call, i: usize, n: usize) -> Result<Vec<i64>, String> {
        let text = call.args.get(i).ok_or_else(|| self.err(format!("{} has too few fields", call.name)))?;
        let parts: Result<Vec<i64>, _> = text.split(',').map(|t| t.trim().parse()).collect();
        match parts {
            Ok(p) if p.len() >= n => Ok(p),
            _ => {
                Err(self.err(format!("{}: field {} is not {n} comma-separated integers: \"{text}\"", call.name, i + 2)))
            }
        }
    }

    /// The size of the datatype at argument `i`, bytes.
    fn type_size(&self, call: &Call, i: usize) -> Result<u64, String> {
        Ok(self.parts(call, i, 3)?[1].max(0) as u64)
    }

    fn count_bytes(&self, call: &Call, count: usize, dtype: usize) -> Result<u64, String> {
        Ok(self.int(call, count)?.max(0) as u64 * self.type_size(call, dtype)?)
    }

    /// The communicator at argument `i`: `MPI_COMM_WORLD` or a world-sized copy in which
    /// this rank keeps its world rank; others' members are not in the trace.
    fn comm(&self, call: &Call, i: usize) -> Result<u32, String> {
        let c = self.parts(call, i, 3)?;
        if c[2] == i64::from(self.ranks) && c[1] == i64::from(self.rank) {
            return Ok(WORLD);
        }
        Err(self.err(format!(
            "{} on communicator {} ({} ranks, this rank {} in it): liballprof records no communicator's members, \
             so only MPI_COMM_WORLD and its world-ordered copies can be replayed",
            call.name, c[0], c[2], c[1]
        )))
    }

    /// Sum of the count array at argument `i` (`pointer:c0,c1,...` is two arguments).
    fn counts(&self, call: &Call, i: usize) -> Result<Vec<u64>, String> {
        Ok(self.parts(call, i + 1, 1)?.into_iter().map(|c| c.max(0) as u64).collect())
    }

    fn peer(&self, call: &Call, i: usize) -> Result<u32, String> {
        match self.int(call, i)? {
            -1 => Ok(u32::MAX),
            r if (0..i64::from(self.ranks)).contains(&r) => Ok(r as u32),
            r => Err(self.err(format!("{}: rank {r} is not in a world of {} ranks", call.name, self.ranks))),
        }
    }

    fn tag(&self, call: &Call, i: usize) -> Result<u32, String> {
        match self.int(call, i)? {
            -1 => Ok(u32::MAX),
            t if (0..=i64::from(i32::MAX)).contains(&t) => Ok(t as u32),
            t => Err(self.err(format!("{}: tag {t} is not an MPI tag", call.name))),
        }
    }

    fn request(&self, call: &Call, i: usize) -> Result<u64, String> {
        let text = call.args.get(i).ok_or_else(|| self.err(format!("{} has too few fields", call.name)))?;
        text.trim().parse().map_err(|_| self.err(format!("{}: field {} is not a request address", call.name, i + 2)))
    }

    fn complete(&mut self, at: u64, req: u64) -> Result<bool, String> {
        let Some(p) = self.pending.remove(&req) else { return Ok(false) };
        let ev = match p {
            Pending::Send => Event { kind: ffi::ISEND_DONE, req, ..Event::default() },
            Pending::Recv { peer, tag, bytes } => {
                Event { kind: ffi::IRECV_DONE, peer, tag, bytes, comm: WORLD, req, ..Event::default() }
            }
            Pending::Coll(done) => Event { req, ..done },
        };
        self.emit(Event { time_ps: at, ..ev })?;
        Ok(true)
    }

    /// One call line: its events between an enter and a leave of its region.
    fn call(&mut self, call: &Call) -> Result<(), String> {
        if self.finalized {
            return Err(self.err(format!("{} after MPI_Finalize", call.name)));
        }
        let end = self.since_origin(call.name, call.end)?;
        let start = call.start.map_or(Ok(end), |t| self.since_origin(call.name, t))?;
        if end < start {
            return Err(self.err(format!("{} ends ({} µs) before it starts", call.name, end as f64 / 1e6)));
        }
        let region = self.region(call.name)?;
        self.emit(Event { kind: ffi::ENTER, region, time_ps: start, cpu_ps: ffi::NO_CPU_TIME, ..Event::default() })?;
        self.events(call, start, end)?;
        self.emit(Event { kind: ffi::LEAVE, region, time_ps: end, cpu_ps: ffi::NO_CPU_TIME, ..Event::default() })
    }

    /// A time of the tracer's clock as ps since the trace's origin.
    fn since_origin(&self, name: &str, ps: i128) -> Result<u64, String> {
        u64::try_from(ps - self.origin).map_err(|_| {
            self.err(format!(
                "{name} at {} µs of the tracer's clock, {} µs from the trace's first time: a clock this reader \
                 cannot interpret (before the trace starts, or more than 213 days after)",
                ps as f64 / 1e6,
                (ps - self.origin) as f64 / 1e6
            ))
        })
    }

    fn events(&mut self, c: &Call, t: u64, end: u64) -> Result<(), String> {
        let p2p = |kind, peer, tag, bytes, req| Event {
            kind,
            peer,
            tag,
            bytes,
            req,
            comm: WORLD,
            time_ps: t,
            ..Event::default()
        };
        let coll = |op: u8, root: u32, sent: u64, received: u64| Event {
            kind: ffi::COLL,
            coll: op,
            peer: root,
            bytes: sent,
            bytes2: received,
            comm: WORLD,
            time_ps: end,
            ..Event::default()
        };
        let p = u64::from(self.ranks);
        match c.name {
            "MPI_Send" | "MPI_Ssend" | "MPI_Rsend" | "MPI_Bsend" => {
                self.comm(c, 5)?;
                let ev = p2p(ffi::SEND, self.peer(c, 3)?, self.tag(c, 4)?, self.count_bytes(c, 1, 2)?, 0);
                self.emit(ev)?;
            }
            "MPI_Isend" | "MPI_Issend" | "MPI_Irsend" | "MPI_Ibsend" => {
                self.comm(c, 5)?;
                let req = self.request(c, 6)?;
                let ev = p2p(ffi::ISEND, self.peer(c, 3)?, self.tag(c, 4)?, self.count_bytes(c, 1, 2)?, req);
                self.pending.insert(req, Pending::Send);
                self.emit(ev)?;
            }
            "MPI_Recv" => {
                self.comm(c, 5)?;
                let ev = p2p(ffi::RECV, self.peer(c, 3)?, self.tag(c, 4)?, self.count_bytes(c, 1, 2)?, 0);
                self.emit(Event { time_ps: end, ..ev })?;
            }
            "MPI_Irecv" => {
                self.comm(c, 5)?;
                let req = self.request(c, 6)?;
                let (peer, tag, bytes) = (self.peer(c, 3)?, self.tag(c, 4)?, self.count_bytes(c, 1, 2)?);
                self.pending.insert(req, Pending::Recv { peer, tag, bytes });
                self.emit(p2p(ffi::IRECV_POST, 0, 0, 0, req))?;
            }
            "MPI_Sendrecv" => {
                self.comm(c, 10)?;
                self.emit(p2p(ffi::SEND, self.peer(c, 3)?, self.tag(c, 4)?, self.count_bytes(c, 1, 2)?, 0))?;
                let ev = p2p(ffi::RECV, self.peer(c, 8)?, self.tag(c, 9)?, self.count_bytes(c, 6, 7)?, 0);
                self.emit(Event { time_ps: end, ..ev })?;
            }
            "MPI_Sendrecv_replace" => {
                self.comm(c, 7)?;
                let bytes = self.count_bytes(c, 1, 2)?;
                self.emit(p2p(ffi::SEND, self.peer(c, 3)?, self.tag(c, 4)?, bytes, 0))?;
                let ev = p2p(ffi::RECV, self.peer(c, 5)?, self.tag(c, 6)?, bytes, 0);
                self.emit(Event { time_ps: end, ..ev })?;
            }
            "MPI_Wait" => {
                let req = self.request(c, 0)?;
                self.complete(end, req)?;
            }
            "MPI_Waitall" => {
                let n = self.int(c, 0)?.max(0) as u64;
                let base = self.request(c, 1)?;
                let stride = REQUEST_STRIDES
                    .into_iter()
                    .find(|s| (0..n).any(|i| self.pending.contains_key(&(base + i * s))))
                    .unwrap_or(REQUEST_STRIDES[0]);
                for i in 0..n {
                    self.complete(end, base + i * stride)?;
                }
            }
            "MPI_Waitany" | "MPI_Waitsome" => {
                return Err(self.err(format!(
                    "{}: liballprof does not record which request it completed, so replay cannot tell what waits",
                    c.name
                )))
            }
            "MPI_Barrier" => {
                self.comm(c, 0)?;
                self.emit(coll(0, 0, 0, 0))?;
            }
            "MPI_Bcast" => {
                self.comm(c, 4)?;
                let n = self.count_bytes(c, 1, 2)?;
                self.emit(coll(1, self.peer(c, 3)?, n, n))?;
            }
            "MPI_Reduce" => {
                self.comm(c, 6)?;
                let (n, root) = (self.count_bytes(c, 2, 3)?, self.peer(c, 5)?);
                self.emit(coll(12, root, n, if root == self.rank { n } else { 0 }))?;
            }
            "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => {
                self.comm(c, 5)?;
                let n = self.count_bytes(c, 2, 3)?;
                let op = match c.name {
                    "MPI_Allreduce" => 11,
                    "MPI_Scan" => 14,
                    _ => 15,
                };
                self.emit(coll(op, 0, n, n))?;
            }
            "MPI_Gather" | "MPI_Scatter" | "MPI_Allgather" | "MPI_Alltoall" => {
                let rooted = matches!(c.name, "MPI_Gather" | "MPI_Scatter");
                self.comm(c, if rooted { 7 } else { 6 })?;
                let root = if rooted { self.peer(c, 6)? } else { 0 };
                let at_root = |bytes: u64| if root == self.rank || !rooted { bytes } else { 0 };
                let (sent, received) = (self.count_bytes(c, 1, 2)?, self.count_bytes(c, 4, 5)?);
                let ev = match c.name {
                    "MPI_Gather" => coll(2, root, sent, at_root(p * received)),
                    "MPI_Scatter" => coll(4, root, at_root(p * sent), received),
                    "MPI_Allgather" => coll(6, 0, sent, p * received),
                    _ => coll(8, 0, p * sent, p * received),
                };
                self.emit(ev)?;
            }
            "MPI_Ibarrier" | "MPI_Ibcast" | "MPI_Ireduce" | "MPI_Iallreduce" => {
                // (comm, request), (buf, count, dt, root, comm, request), (sbuf, rbuf,
                // count, dt, op, [root,] comm, request)
                let (op, comm, root, count) = match c.name {
                    "MPI_Ibarrier" => (0, 0, None, None),
                    "MPI_Ibcast" => (1, 4, Some(3), Some(1)),
                    "MPI_Ireduce" => (12, 6, Some(5), Some(2)),
                    _ => (11, 5, None, Some(2)),
                };
                self.comm(c, comm)?;
                let req = self.request(c, comm + 1)?;
                let root = root.map_or(Ok(0), |i| self.peer(c, i))?;
                let n = count.map_or(Ok(0), |i| self.count_bytes(c, i, i + 1))?;
                let received = if op == 12 && root != self.rank { 0 } else { n };
                let done = Event { kind: ffi::NBC_DONE, ..coll(op, root, n, received) };
                self.pending.insert(req, Pending::Coll(done));
                self.emit(Event { kind: ffi::NBC_POST, req, time_ps: t, ..Event::default() })?;
            }
            "MPI_Alltoallv" => {
                self.comm(c, 12)?;
                let sent: u64 = self.counts(c, 1)?.iter().sum::<u64>() * self.type_size(c, 5)?;
                let received: u64 = self.counts(c, 7)?.iter().sum::<u64>() * self.type_size(c, 11)?;
                self.emit(coll(9, 0, sent, received))?;
            }
            "MPI_Allgatherv" => {
                self.comm(c, 9)?;
                let received: u64 = self.counts(c, 4)?.iter().sum::<u64>() * self.type_size(c, 8)?;
                self.emit(coll(7, 0, self.count_bytes(c, 1, 2)?, received))?;
            }
            "MPI_Gatherv" => {
                self.comm(c, 10)?;
                let root = self.peer(c, 9)?;
                let total: u64 = self.counts(c, 4)?.iter().sum::<u64>() * self.type_size(c, 8)?;
                let received = if root == self.rank { total } else { 0 };
                self.emit(coll(3, root, self.count_bytes(c, 1, 2)?, received))?;
            }
            "MPI_Scatterv" => {
                self.comm(c, 10)?;
                let root = self.peer(c, 9)?;
                let total: u64 = self.counts(c, 1)?.iter().sum::<u64>() * self.type_size(c, 5)?;
                let sent = if root == self.rank { total } else { 0 };
                self.emit(coll(5, root, sent, self.count_bytes(c, 7, 8)?))?;
            }
            "MPI_Reduce_scatter" => {
                self.comm(c, 6)?;
                let counts = self.counts(c, 2)?;
                let size = self.type_size(c, 4)?;
                let mine = counts.get(self.rank as usize).copied().unwrap_or(0) * size;
                self.emit(coll(13, 0, counts.iter().sum::<u64>() * size, mine))?;
            }
            "MPI_Init"
            | "MPI_Init_thread"
            | "MPI_Finalize"
            | "MPI_Comm_rank"
            | "MPI_Comm_size"
            | "MPI_Get_count"
            | "MPI_Iprobe"
            | "MPI_Probe"
            | "MPI_Test"
            | "MPI_Testall"
            | "MPI_Testany"
            | "MPI_Testsome"
            | "MPI_Wtime"
            | "MPI_Comm_dup"
            | "MPI_Comm_split"
            | "MPI_Comm_free"
            | "MPI_Type_commit"
            | "MPI_Type_free"
            | "MPI_Type_contiguous"
            | "MPI_Type_vector"
            | "MPI_Op_create"
            | "MPI_Op_free"
            | "MPI_Abort"
            | "MPI_Pcontrol"
            | "MPI_Initialized"
            | "MPI_Finalized"
            | "MPI_Get_processor_name"
            | "MPI_Request_free"
            | "MPI_Cancel" => {
                // no message of the program's own; communicator creation keeps its
                // duration as compute (crate::replay's OPAQUE)
                self.finalized = c.name == "MPI_Finalize";
            }
            other => return Err(self.err(format!("{other} is a call this reader does not know"))),
        }
        Ok(())
    }
}

/// A time in µs as liballprof prints it (`1712345678901234`, `12.345678`, or as
/// floating point would, `1.5e3`), exactly in ps where it is a plain decimal.
fn us_to_ps(text: &str) -> Option<i128> {
    const PS_PER_US: i128 = 1_000_000;
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let ps = if !whole.is_empty() && plain(whole) && plain(frac) && whole.len() <= 24 {
        // ps: the whole µs, then the fraction's first six digits, rounded at the seventh
        let mut ps = whole.parse::<i128>().ok()? * PS_PER_US;
        let mut scale = PS_PER_US;
        for b in frac.bytes().take(6) {
            scale /= 10;
            ps += i128::from(b - b'0') * scale;
        }
        if frac.as_bytes().get(6).is_some_and(|&b| b >= b'5') {
            ps += 1;
        }
        ps
    } else {
        let us: f64 = digits.parse().ok()?;
        if !us.is_finite() || us.abs() > 1e24 {
            return None;
        }
        (us * 1e6).round() as i128
    };
    Some(if negative { -ps } else { ps })
}

/// One call line's fields; None for a comment or an empty line, Err(()) for a line
/// that is not a call record (a truncated one).
fn parse_line(line: &str) -> Option<Result<Call<'_>, ()>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    Some(parse_call(line))
}

fn parse_call(line: &str) -> Result<Call<'_>, ()> {
    let fields: Vec<&str> = line.split(':').map(str::trim).collect();
    if fields.len() < 3 || !fields[0].starts_with("MPI_") {
        return Err(());
    }
    let start = match fields[1] {
        "-" => None,
        t => Some(us_to_ps(t).ok_or(())?),
    };
    // MPI_Finalize's end is `-` (MPI_Wtime is not callable after it): its start
    let end = match (fields[fields.len() - 1], start) {
        ("-", Some(start)) => start,
        (t, _) => us_to_ps(t).ok_or(())?,
    };
    Ok(Call { name: fields[0], start, end, args: fields[2..fields.len() - 1].to_vec() })
}

/// A rank file's text, checked to be liballprof's.
fn read_text(file: &Path) -> Result<String, String> {
    let name = file.display();
    let text = std::fs::read(file).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| format!("{name}: not a text file (not a liballprof trace)"))?;
    let first = text.lines().next().unwrap_or("");
    if !(first.starts_with('#') && (first.contains("PMPI Tracer") || first.contains("collprof"))) {
        return Err(format!(
            "{name}: not a liballprof trace (its first line is not \"# htor's PMPI Tracer ...\" or \"# collprof ...\")"
        ));
    }
    Ok(text)
}

/// The trace's origin: the earliest first time of any rank, ps of the tracer's clock
/// (each file's first call record, read alone; a file that holds none, or is not a
/// trace, is reported when it is read whole).
fn origin(files: &[PathBuf]) -> i128 {
    use std::io::BufRead;
    let first = |file: &PathBuf| {
        let lines = std::io::BufReader::new(std::fs::File::open(file).ok()?).lines();
        let call =
            lines.map_while(Result::ok).find_map(|line| parse_line(&line).map(|c| c.map(|c| c.start.unwrap_or(c.end))));
        call?.ok()
    };
    files.iter().filter_map(first).min().unwrap_or(0)
}

/// Read the liballprof trace whose rank files are `files` into `sink`; with `events`
/// false, only the definitions.
pub fn read(files: &[PathBuf], sink: &mut dyn Sink, events: bool) -> Result<(), String> {
    let ranks = files.len() as u32;
    sink.ranks(ranks, CREATOR, 1_000_000)?;
    let world: Vec<u64> = (0..u64::from(ranks)).collect();
    sink.comm(WORLD, Members::World(&world))?;
    if !events {
        return Ok(());
    }
    let mut regions = HashMap::new();
    let origin = origin(files);
    for (rank, file) in files.iter().enumerate() {
        let name = file.display().to_string();
        let text = read_text(file)?;
        let mut reader = RankReader {
            file: name.clone(),
            rank: rank as u32,
            ranks,
            sink: &mut *sink,
            regions: &mut regions,
            position: 0,
            pending: HashMap::new(),
            line: 0,
            finalized: false,
            origin,
        };
        for (i, line) in text.lines().enumerate() {
            reader.line = i + 1;
            match parse_line(line) {
                None => {}
                Some(Ok(call)) => reader.call(&call)?,
                Some(Err(())) => return Err(reader.err(format!("not a call record: \"{}\"", line.trim()))),
            }
        }
        if !reader.finalized {
            return Err(format!("{name}: truncated: it ends before MPI_Finalize (line {})", reader.line));
        }
    }
    Ok(())
}
