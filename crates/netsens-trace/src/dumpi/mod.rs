//! DUMPI traces (SST/macro's and CODES's format, written by sst-dumpi's `libdumpi`): a
//! `.meta` text file (`numprocs=N`, `fileprefix=P`, ...) beside one binary file per
//! rank, `P-NNNN.bin`, read into the same [`Sink`] as OTF2 archives, so replay,
//! `trace info` and `trace to-goal` treat every format alike.
//!
//! A reader of netsens's own, written against the layout sst-dumpi's
//! `dumpi/common/io.c` and `dumpiio.c` define (docs/guides/traces.md says why not the
//! library). A `.bin` is big-endian: DUMPI's magic number; the body (two 32-bit
//! second offsets, CPU and wall clock, then one record per call); the end-of-stream
//! label; the header, footer, datatype sizes and other tables; and at the end an index
//! of their offsets behind the magic number again. A call record is its function label
//! (16 bits), a mask saying what follows (statuses, CPU and wall times, thread,
//! hardware counters), then the call's arguments in the order of its `dumpi_write_*`.
//! Records carry no length, but their list is closed: labels.rs holds every call's
//! layout, so a call with no message of the program's own is read past by it, and only
//! a damaged record (a label or mask libdumpi never writes, a count past the calls) is
//! refused, in one line naming the file and the damage.
//!
//! Communicators are per-process handles: `MPI_COMM_WORLD`, `MPI_COMM_SELF`, their
//! duplicates and splits, those made from a group of theirs (groups record their
//! ranks) and topologies on `MPI_COMM_WORLD` map (comms.rs); any other is refused where
//! a message uses it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::ffi::{self, Event, Members, Sink};

mod comms;
mod labels;

use comms::{Communicators, Local, SELF, WORLD};
use labels::{CALLS, FUNCTION_LAYOUT};

/// The creator a DUMPI trace reports to the sink.
pub const CREATOR: &str = "DUMPI";
/// The first and last eight bytes' magic number (`DUMPI_HEAD_MAGIC`).
const MAGIC: u64 = 0xffaa_dd44_554d_5049;
/// The label after the last call record (`DUMPI_END_OF_STREAM`).
const END_OF_STREAM: u16 = 293;
/// Profiled user functions' entry and exit (`DUMPI_Function_enter`, `_exit`).
const FUNCTION_ENTER: u16 = 291;
const FUNCTION_EXIT: u16 = 292;
/// The calls that create an intra-communicator this reader maps (counted in a file's
/// footer: a trace without them needs no first pass).
const CREATIONS: [&str; 6] =
    ["MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create", "MPI_Cart_create", "MPI_Graph_create", "MPI_Cart_sub"];
/// The footer's magic number (`DUMPI_FOOT_MAGIC`).
const FOOT_MAGIC: u64 = 0xf007_fee7;
/// The record mask's bits (`dumpi/common/settings.h`).
const STATUSES: u8 = 0b11;
const CPU_TIME: u8 = 1 << 2;
const WALL_TIME: u8 = 1 << 3;
const THREAD: u8 = 1 << 6;
const COUNTERS: u8 = 1 << 7;
/// Bits of the record mask no DUMPI version sets: a record with one is damaged.
const UNUSED_MASK_BITS: u8 = 0b0011_0000;
/// The layout of a call libdumpi writes no record for (labels.rs).
const NOT_WRITTEN: &str = "-";
/// DUMPI's communicator handles for the predefined communicators.
const DUMPI_COMM_WORLD: u16 = 2;
const DUMPI_COMM_SELF: u16 = 3;
/// How far a call may start before the previous one's end (a clock adjusted while the
/// program ran) before the file's times are refused as unreadable: 1 s.
const CLOCK_SLACK_PS: u64 = 1_000_000_000_000;
/// `DUMPI_GROUP_EMPTY`'s handle.
const DUMPI_GROUP_EMPTY: u16 = 2;
/// The color of a communicator whose members this reader cannot tell.
const UNKNOWN_MEMBERS: i32 = i32::MIN;
/// `DUMPI_ANY_SOURCE`, `DUMPI_ANY_TAG`.
const DUMPI_ANY: i32 = -1;

/// The `.meta` file of the DUMPI trace at `path` (the file itself, or a directory
/// holding exactly one); None when `path` is not a DUMPI trace.
pub fn meta_file(path: &str) -> Option<Result<PathBuf, String>> {
    let p = Path::new(path);
    if p.extension().is_some_and(|e| e == "meta") {
        if p.is_dir() {
            return Some(Err(format!("{path}: a directory, not a DUMPI .meta file")));
        }
        return Some(Ok(p.to_path_buf()));
    }
    if !p.is_dir() {
        return None;
    }
    let metas: Vec<PathBuf> = std::fs::read_dir(p)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|f| f.extension().is_some_and(|e| e == "meta") && f.is_file())
        .collect();
    match metas.len() {
        0 => None,
        1 => Some(Ok(metas.into_iter().next()?)),
        n => Some(Err(format!("{path}: {n} DUMPI .meta files: give one of them"))),
    }
}

/// The rank files the `.meta` file `meta` names: `numprocs` of them, `fileprefix-NNNN.bin`
/// beside it.
fn bin_files(meta: &Path) -> Result<Vec<PathBuf>, String> {
    let name = meta.display();
    let text = std::fs::read_to_string(meta).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let value = |key: &str| text.lines().find_map(|l| l.trim().strip_prefix(key)?.strip_prefix('=')).map(str::trim);
    let ranks: u32 = match value("numprocs").map(str::parse) {
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return Err(format!("{name}: numprocs is not a positive number of ranks")),
        None => return Err(format!("{name}: not a DUMPI .meta file: it has no numprocs=N line")),
    };
    let prefix = value("fileprefix").ok_or_else(|| format!("{name}: not a DUMPI .meta file: no fileprefix= line"))?;
    // the prefix as the tracing machine wrote it; its files lie beside the .meta
    let stem = Path::new(prefix).file_name().ok_or_else(|| format!("{name}: fileprefix \"{prefix}\" names no file"))?;
    let dir = meta.parent().unwrap_or(Path::new("."));
    let files: Vec<PathBuf> = (0..ranks).map(|r| dir.join(format!("{}-{r:04}.bin", stem.to_string_lossy()))).collect();
    if let Some(missing) = files.iter().find(|f| !f.exists()) {
        let present = files.iter().filter(|f| f.exists()).count();
        return Err(format!(
            "{}: missing: {name} says {ranks} ranks, {present} of their .bin files are there",
            missing.display()
        ));
    }
    if let Some(dir) = files.iter().find(|f| f.is_dir()) {
        return Err(format!("{}: a directory, not a DUMPI .bin file", dir.display()));
    }
    Ok(files)
}

/// Whether `handle` is MPI_COMM_WORLD's or MPI_COMM_SELF's, which no call redefines.
fn is_predefined(handle: u16) -> bool {
    handle == DUMPI_COMM_WORLD || handle == DUMPI_COMM_SELF
}

/// The ranks of a group range (first, last, stride), as `MPI_Group_range_incl` reads it.
fn group_range(range: &[i32]) -> Vec<i32> {
    let &[first, last, stride] = range else { return Vec::new() };
    if stride == 0 {
        return Vec::new();
    }
    let n = ((i64::from(last) - i64::from(first)) / i64::from(stride)).max(-1) + 1;
    (0..n.min(1 << 20)).map(|i| (i64::from(first) + i * i64::from(stride)) as i32).collect()
}

/// One rank's `.bin`: where its call records are, and what they need.
struct Bin {
    file: String,
    data: Vec<u8>,
    /// The first call record, and the end of the body.
    body: usize,
    body_end: usize,
    wall_offset_s: u32,
    cpu_offset_s: u32,
    /// The DUMPI version that wrote the file (major, minor, patch): a few layouts
    /// changed with it (labels.rs).
    version: [u8; 3],
    /// Bytes per datatype handle (the file's datatype size table).
    type_sizes: Vec<u32>,
    /// Whether the rank duplicates or splits a communicator (its footer's call counts
    /// say so; without a footer, taken as yes).
    creates_comms: bool,
}

/// A big-endian cursor over a file's bytes that names the file when they run out.
struct Cursor<'a> {
    file: &'a str,
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.pos + n > self.end {
            return Err(format!(
                "{}: truncated: a record at byte {} runs past the end of the calls ({} bytes)",
                self.file, self.pos, self.end
            ));
        }
        self.pos += n;
        Ok(&self.data[self.pos - n..self.pos])
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn i32(&mut self) -> Result<i32, String> {
        Ok(self.u32()? as i32)
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    /// An array of 32-bit values behind its length.
    fn array(&mut self) -> Result<Vec<i32>, String> {
        self.values(4)
    }
    /// An array of `width`-byte values (4, 2 or 1) behind its 32-bit length.
    fn values(&mut self, width: usize) -> Result<Vec<i32>, String> {
        let n = self.count(width)?;
        (0..n)
            .map(|_| match width {
                4 => self.i32(),
                2 => self.u16().map(i32::from),
                _ => self.u8().map(i32::from),
            })
            .collect()
    }
    /// A 32-bit count of items of at least `width` bytes each, checked against what is
    /// left of the calls (a damaged count would otherwise claim gigabytes).
    fn count(&mut self, width: usize) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u32()? as usize;
        if n > (self.end - self.pos) / width.max(1) {
            return Err(format!(
                "{}: truncated or damaged: a count at byte {at} of {n} values runs past the calls",
                self.file
            ));
        }
        Ok(n)
    }
    /// A length-prefixed string (32-bit length), skipped.
    fn chars(&mut self) -> Result<(), String> {
        let n = self.count(1)?;
        self.take(n).map(|_| ())
    }
    /// A 32-bit count of strings, skipped.
    fn strings(&mut self) -> Result<(), String> {
        let n = self.count(4)?;
        (0..n).try_for_each(|_| self.chars())
    }
}

impl Bin {
    fn open(path: &Path) -> Result<Bin, String> {
        let file = path.display().to_string();
        let data = std::fs::read(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
        let len = data.len();
        let word = |at: usize| u64::from_be_bytes(data[at..at + 8].try_into().expect("8 bytes"));
        if len < 8 || word(0) != MAGIC {
            return Err(format!("{file}: not a DUMPI file (it does not start with DUMPI's magic number)"));
        }
        // the index ends the file: header, body, footer and keyval offsets in its last
        // 32 bytes, behind the magic number and the optional datatype size, address
        // and counter label offsets (older files lack the first ones)
        if len < 8 + 64 {
            return Err(format!("{file}: truncated: {len} bytes, too short for DUMPI's index"));
        }
        let Some(index) = [64, 56, 48, 40].into_iter().map(|back| len - back).find(|&at| word(at) == MAGIC) else {
            return Err(format!(
                "{file}: truncated: it does not end with DUMPI's index (written when MPI_Finalize returns)"
            ));
        };
        let sizes_at = if index == len - 64 { word(index + 8) } else { 0 };
        let index = len - 64;
        let header = word(index + 32) as usize;
        let body = word(index + 40) as usize;
        if !(8..index).contains(&body) || !(body..index).contains(&header) || sizes_at as usize >= index {
            return Err(format!("{file}: truncated or damaged: its index points outside the file"));
        }
        let mut head = Cursor { file: &file, data: &data, pos: header, end: index };
        let version = [head.u8()?, head.u8()?, head.u8()?];
        let mut type_sizes = Vec::new();
        if sizes_at > 0 {
            let mut c = Cursor { file: &file, data: &data, pos: sizes_at as usize, end: index };
            type_sizes = c.array()?.into_iter().map(|s| s.max(0) as u32).collect();
        }
        let mut c = Cursor { file: &file, data: &data, pos: body, end: header };
        let cpu_offset_s = c.u32()?;
        let wall_offset_s = c.u32()?;
        let footer = word(index + 48) as usize;
        let mut f = Cursor { file: &file, data: &data, pos: footer, end: index };
        let creates_comms = footer == 0 || f.u64() != Ok(FOOT_MAGIC) || {
            let counts: Vec<u32> = (0..CALLS.len()).map_while(|_| f.u32().ok()).collect();
            CALLS
                .iter()
                .zip(0..)
                .any(|(&(name, _), l)| CREATIONS.contains(&name) && counts.get(l).is_none_or(|&n| n > 0))
        };
        Ok(Bin {
            body: c.pos,
            body_end: header,
            wall_offset_s,
            cpu_offset_s,
            version,
            type_sizes,
            creates_comms,
            file,
            data,
        })
    }
}

/// One argument of a record, as [`RankReader::fields`] reads it.
#[derive(Clone, Debug, PartialEq)]
enum Field {
    Int(i32),
    Ints(Vec<i32>),
    /// Read past: a string, statuses, a 64-bit value.
    Other,
}

impl Field {
    fn int(&self) -> i32 {
        match self {
            Field::Int(v) => *v,
            _ => 0,
        }
    }
    fn ints(&self) -> &[i32] {
        match self {
            Field::Ints(v) => v,
            _ => &[],
        }
    }
}

/// One status of a completed receive: what it matched.
#[derive(Clone, Copy)]
struct Status {
    bytes: u64,
    source: i32,
    tag: i32,
}

/// A request in flight, or a persistent one's template: what its completion records.
#[derive(Clone, Copy)]
enum Pending {
    Send(Event),
    Recv(Event),
}

struct RankReader<'a> {
    bin: &'a Bin,
    rank: u32,
    sink: &'a mut dyn Sink,
    regions: &'a mut HashMap<&'static str, u32>,
    /// The earliest wall-clock second offset of all ranks: times are ps from there.
    base_s: u32,
    position: u64,
    record: u64,
    /// The latest end of a call so far, ps.
    last_end: u64,
    /// This process's communicator handles that map.
    comms: HashMap<u16, Local>,
    communicators: &'a mut Communicators,
    /// Communicators this rank created so far, per parent.
    created: HashMap<u32, u32>,
    pending: HashMap<u32, Pending>,
    persistent: HashMap<u32, Pending>,
    /// Groups by handle: their members as world ranks, None where not known (a group
    /// of another communicator than MPI_COMM_WORLD or MPI_COMM_SELF).
    groups: HashMap<u16, Option<Vec<u32>>>,
    /// Cartesian communicators made from MPI_COMM_WORLD: their dimensions and this
    /// rank's rank in them.
    carts: HashMap<u16, (Vec<i32>, u32)>,
}

impl<'a> RankReader<'a> {
    fn new(
        bin: &'a Bin,
        rank: u32,
        sink: &'a mut dyn Sink,
        regions: &'a mut HashMap<&'static str, u32>,
        base_s: u32,
        communicators: &'a mut Communicators,
    ) -> RankReader<'a> {
        let comms =
            HashMap::from([(DUMPI_COMM_WORLD, communicators.world(rank)), (DUMPI_COMM_SELF, Communicators::own())]);
        RankReader {
            bin,
            rank,
            sink,
            regions,
            base_s,
            position: 0,
            record: 0,
            last_end: 0,
            comms,
            communicators,
            created: HashMap::new(),
            pending: HashMap::new(),
            persistent: HashMap::new(),
            groups: HashMap::from([(DUMPI_GROUP_EMPTY, Some(Vec::new()))]),
            carts: HashMap::new(),
        }
    }

    fn err(&self, name: &str, what: impl std::fmt::Display) -> String {
        format!("{}: record {} ({name}): {what}", self.bin.file, self.record)
    }

    fn emit(&mut self, ev: Event) -> Result<(), String> {
        let position = self.position;
        self.position += 1;
        self.sink.event(self.rank, position, &ev)
    }

    fn region(&mut self, name: &'static str) -> Result<u32, String> {
        if let Some(&id) = self.regions.get(name) {
            return Ok(id);
        }
        let id = self.regions.len() as u32;
        self.regions.insert(name, id);
        self.sink.region(id, name, ffi::PARADIGM_MPI)?;
        Ok(id)
    }

    /// A wall-clock time (16-bit seconds past the file's offset, nanoseconds) in ps
    /// from the trace's earliest offset.
    fn time(&self, c: &mut Cursor) -> Result<u64, String> {
        let s = u64::from(c.u16()?) + u64::from(self.bin.wall_offset_s - self.base_s);
        let ns = u64::from(c.u32()?);
        Ok((s * 1_000_000_000 + ns) * 1000)
    }

    fn statuses(&self, c: &mut Cursor, mask: u8) -> Result<Vec<Status>, String> {
        if mask & STATUSES == 0 {
            return Ok(Vec::new());
        }
        let n = c.u32()?;
        (0..n)
            .map(|_| {
                let (bytes, source) = (c.u32()?, c.i32()?);
                c.u16()?; // cancelled, error
                let tag = if self.bin.version >= [0, 6, 3] { c.i32()? } else { DUMPI_ANY };
                Ok(Status { bytes: u64::from(bytes), source, tag })
            })
            .collect()
    }

    /// A record's arguments read by its layout (labels.rs): its scalars and arrays, in
    /// order (strings and statuses are read past, as [`Field::Other`]).
    fn fields(&self, c: &mut Cursor, layout: &str, mask: u8) -> Result<Vec<Field>, String> {
        let mut fields = Vec::with_capacity(layout.len());
        let (mut commrank, mut root) = (None, None);
        let mut skipping = false;
        for code in layout.chars() {
            match code {
                '[' => {
                    skipping = commrank != root;
                    continue;
                }
                ']' => {
                    skipping = false;
                    continue;
                }
                _ if skipping => continue,
                _ => {}
            }
            let old = |v: [u8; 3]| self.bin.version < v;
            let field = match code {
                'i' | 'k' | 'o' => {
                    let v = c.i32()?;
                    if code == 'k' {
                        commrank = Some(v);
                    } else if code == 'o' {
                        root = Some(v);
                    }
                    Field::Int(v)
                }
                'h' => Field::Int(i32::from(c.u16()?)),
                'b' => Field::Int(i32::from(c.u8()?)),
                'l' => {
                    c.u64()?;
                    Field::Other
                }
                'I' => Field::Ints(c.values(4)?),
                'H' => Field::Ints(c.values(2)?),
                'B' => Field::Ints(c.values(1)?),
                '9' if old([0, 6, 9]) => Field::Int(c.i32()?),
                '8' if old([0, 6, 8]) => Field::Int(c.i32()?),
                '9' | '8' => Field::Ints(c.values(4)?),
                'J' => {
                    let n = c.count(4)?;
                    (0..n).try_for_each(|_| c.values(4).map(|_| ()))?;
                    Field::Other
                }
                's' => {
                    c.chars()?;
                    Field::Other
                }
                'S' => {
                    c.strings()?;
                    Field::Other
                }
                'A' => {
                    let argc = c.count(4)?;
                    if old([0, 6, 2]) {
                        c.u32()?; // written twice
                    }
                    (0..argc).try_for_each(|_| c.chars())?;
                    Field::Other
                }
                'T' => {
                    let n = c.count(4)?;
                    (0..n).try_for_each(|_| c.strings())?;
                    Field::Other
                }
                't' => {
                    self.statuses(c, mask)?;
                    Field::Other
                }
                other => unreachable!("layout code {other} (labels.rs)"),
            };
            fields.push(field);
        }
        Ok(fields)
    }

    fn type_size(&self, name: &str, handle: u16) -> Result<u64, String> {
        self.bin
            .type_sizes
            .get(usize::from(handle))
            .map(|&s| u64::from(s))
            .ok_or_else(|| self.err(name, format!("datatype {handle} is not in the file's datatype size table")))
    }

    fn bytes(&self, name: &str, c: &mut Cursor) -> Result<u64, String> {
        let count = c.i32()?.max(0) as u64;
        Ok(count * self.type_size(name, c.u16()?)?)
    }

    /// Counts then the datatype: their sum in bytes.
    fn total(&self, name: &str, counts: &[i32], handle: u16) -> Result<u64, String> {
        Ok(counts.iter().map(|&n| n.max(0) as u64).sum::<u64>() * self.type_size(name, handle)?)
    }

    fn comm(&self, name: &str, handle: u16) -> Result<Local, String> {
        self.comms.get(&handle).copied().ok_or_else(|| {
            self.err(
                name,
                format!(
                    "communicator {handle} is not one whose members the trace tells: those are MPI_COMM_WORLD, \
                     MPI_COMM_SELF and the communicators duplicated, split, created from a group of theirs, or laid \
                     out as a topology on MPI_COMM_WORLD"
                ),
            )
        })
    }

    /// A rank of `comm` (size `size`): None for `MPI_PROC_NULL` (any other negative).
    fn peer(&self, name: &str, rank: i32, size: u32) -> Result<Option<u32>, String> {
        match rank {
            r if r < 0 => Ok(None),
            r if (r as u32) < size => Ok(Some(r as u32)),
            r => Err(self.err(name, format!("rank {r} is not in a communicator of {size} ranks"))),
        }
    }

    fn tag(&self, name: &str, tag: i32) -> Result<u32, String> {
        match tag {
            DUMPI_ANY => Ok(ffi::ANY),
            t if t >= 0 => Ok(t as u32),
            t => Err(self.err(name, format!("tag {t} is not an MPI tag"))),
        }
    }

    /// A send's event (`kind` SEND or ISEND); None to `MPI_PROC_NULL`.
    fn send(&self, name: &str, c: &mut Cursor, kind: u8) -> Result<Option<Event>, String> {
        let bytes = self.bytes(name, c)?;
        let (dest, tag) = (c.i32()?, c.i32()?);
        let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
        let Some(peer) = self.peer(name, dest, size)? else { return Ok(None) };
        Ok(Some(Event { kind, peer, tag: self.tag(name, tag)?, bytes, comm, ..Event::default() }))
    }

    /// A receive's event as posted; None from `MPI_PROC_NULL`.
    fn recv(&self, name: &str, c: &mut Cursor) -> Result<Option<Event>, String> {
        let bytes = self.bytes(name, c)?;
        let (source, tag) = (c.i32()?, c.i32()?);
        let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
        let peer = if source == DUMPI_ANY {
            ffi::ANY
        } else {
            match self.peer(name, source, size)? {
                Some(p) => p,
                None => return Ok(None),
            }
        };
        Ok(Some(Event { kind: ffi::RECV, peer, tag: self.tag(name, tag)?, bytes, comm, ..Event::default() }))
    }

    /// A receive completed with `status`: the source, tag and size it matched where it
    /// was posted with any.
    fn matched(ev: Event, status: Option<&Status>) -> Event {
        let Some(s) = status else { return ev };
        let peer = if ev.peer == ffi::ANY && s.source >= 0 { s.source as u32 } else { ev.peer };
        let tag = if ev.tag == ffi::ANY && s.tag >= 0 { s.tag as u32 } else { ev.tag };
        Event { peer, tag, bytes: s.bytes.min(ev.bytes), ..ev }
    }

    fn post(&mut self, req: u32, p: Pending, at: u64) -> Result<(), String> {
        self.pending.insert(req, p);
        match p {
            Pending::Send(ev) => self.emit(Event { kind: ffi::ISEND, req: u64::from(req), time_ps: at, ..ev }),
            Pending::Recv(_) => {
                self.emit(Event { kind: ffi::IRECV_POST, req: u64::from(req), time_ps: at, ..Event::default() })
            }
        }
    }

    fn complete(&mut self, at: u64, req: u32, status: Option<&Status>) -> Result<(), String> {
        let req64 = u64::from(req);
        match self.pending.remove(&req) {
            None => Ok(()), // MPI_REQUEST_NULL, or a request of MPI_PROC_NULL
            Some(Pending::Send(_)) => {
                self.emit(Event { kind: ffi::ISEND_DONE, req: req64, time_ps: at, ..Event::default() })
            }
            Some(Pending::Recv(ev)) => {
                let ev = Self::matched(ev, status);
                self.emit(Event { kind: ffi::IRECV_DONE, req: req64, time_ps: at, ..ev })
            }
        }
    }

    /// The requests of an array whose `indices` completed, with their statuses.
    fn complete_some(&mut self, at: u64, reqs: &[i32], indices: &[i32], statuses: &[Status]) -> Result<(), String> {
        for (k, &i) in indices.iter().enumerate() {
            if let Some(&req) = usize::try_from(i).ok().and_then(|i| reqs.get(i)) {
                self.complete(at, req as u32, statuses.get(k))?;
            }
        }
        Ok(())
    }

    /// The call records up to the end-of-stream label.
    fn records(&mut self) -> Result<(), String> {
        let bin = self.bin;
        let mut c = Cursor { file: &bin.file, data: &bin.data, pos: bin.body, end: bin.body_end };
        loop {
            if c.pos >= c.end {
                return Err(format!("{}: truncated: its calls end without DUMPI's end-of-stream label", bin.file));
            }
            let label = c.u16()?;
            if label == END_OF_STREAM {
                return Ok(());
            }
            self.record += 1;
            let (name, layout) = match label {
                FUNCTION_ENTER | FUNCTION_EXIT => ("a profiled function", FUNCTION_LAYOUT),
                l => match CALLS.get(usize::from(l)) {
                    Some(&(name, layout)) if layout != NOT_WRITTEN => (name, layout),
                    found => {
                        let what = match found {
                            Some((name, _)) => format!("label {l} ({name}), which libdumpi never writes"),
                            None => format!("{l}, not a DUMPI function label"),
                        };
                        return Err(format!(
                            "{}: damaged: record {} at byte {} opens with {what}",
                            bin.file,
                            self.record,
                            c.pos - 2
                        ));
                    }
                },
            };
            let mask = c.u8()?;
            if mask & UNUSED_MASK_BITS != 0 {
                return Err(self.err(name, format!("damaged: its mask {mask:#04x} sets bits DUMPI never sets")));
            }
            let thread = if mask & THREAD != 0 { c.u16()? } else { 0 };
            if thread != 0 {
                // MPI_THREAD_MULTIPLE: netsens maps one thread per rank
                return Err(self.err(name, format!("called by thread {thread}: replay maps one thread per rank")));
            }
            // the process's CPU time: `--compute cpu` (the default) charges it between
            // calls, as for netsens's own traces
            let cpu = if mask & CPU_TIME != 0 {
                let offset = u64::from(self.bin.cpu_offset_s);
                let mut at = || -> Result<u64, String> {
                    Ok(((u64::from(c.u16()?) + offset) * 1_000_000_000 + u64::from(c.u32()?)) * 1000)
                };
                (at()?, at()?)
            } else {
                (ffi::NO_CPU_TIME, ffi::NO_CPU_TIME)
            };
            if mask & WALL_TIME == 0 {
                return Err(self.err(name, "no wall-clock times: replay needs a trace recorded with wall times"));
            }
            let (start, end) = (self.time(&mut c)?, self.time(&mut c)?);
            if mask & COUNTERS != 0 {
                let n = c.u8()?;
                c.take(16 * usize::from(n))?;
            }
            if matches!(label, FUNCTION_ENTER | FUNCTION_EXIT) {
                c.u64()?; // the function's address: the program's own time continues
                continue;
            }
            if end < start {
                return Err(self.err(name, "it ends before it starts"));
            }
            if start.saturating_add(CLOCK_SLACK_PS) < self.last_end {
                // DUMPI keeps a call's seconds in 16 bits past the file's offset: a run
                // of over 18 h wraps them, and no clock of one process runs back
                return Err(self.err(
                    name,
                    format!(
                        "its wall clock runs back {} s from the previous call's end: the times cannot be read \
                         (DUMPI keeps 16-bit seconds, which a run of over 65 536 s wraps)",
                        (self.last_end - start) / 1_000_000_000_000
                    ),
                ));
            }
            self.last_end = self.last_end.max(end);
            let region = self.region(name)?;
            self.emit(Event { kind: ffi::ENTER, region, time_ps: start, cpu_ps: cpu.0, ..Event::default() })?;
            self.call(name, layout, mask, &mut c, start, end)?;
            self.emit(Event { kind: ffi::LEAVE, region, time_ps: end, cpu_ps: cpu.1, ..Event::default() })?;
        }
    }

    /// A collective's event (netsens's byte convention: what this rank sends and receives).
    fn coll(&self, op: u8, root: u32, sent: u64, received: u64, comm: u32, at: u64) -> Event {
        Event {
            kind: ffi::COLL,
            coll: op,
            peer: root,
            bytes: sent,
            bytes2: received,
            comm,
            time_ps: at,
            ..Event::default()
        }
    }

    /// One call's arguments, read in the order of its `dumpi_write_*`, and its events.
    fn call(
        &mut self,
        name: &'static str,
        layout: &str,
        mask: u8,
        c: &mut Cursor,
        t: u64,
        end: u64,
    ) -> Result<(), String> {
        match name {
            "MPI_Send" | "MPI_Bsend" | "MPI_Ssend" | "MPI_Rsend" => {
                if let Some(ev) = self.send(name, c, ffi::SEND)? {
                    self.emit(Event { time_ps: t, ..ev })?;
                }
            }
            "MPI_Isend" | "MPI_Ibsend" | "MPI_Issend" | "MPI_Irsend" => {
                let ev = self.send(name, c, ffi::ISEND)?;
                let req = c.u32()?;
                if let Some(ev) = ev {
                    self.post(req, Pending::Send(ev), t)?;
                }
            }
            "MPI_Recv" => {
                let ev = self.recv(name, c)?;
                let status = self.statuses(c, mask)?;
                if let Some(ev) = ev {
                    self.emit(Event { time_ps: end, ..Self::matched(ev, status.first()) })?;
                }
            }
            "MPI_Irecv" => {
                let ev = self.recv(name, c)?;
                let req = c.u32()?;
                if let Some(ev) = ev {
                    self.post(req, Pending::Recv(ev), t)?;
                }
            }
            "MPI_Send_init" | "MPI_Bsend_init" | "MPI_Ssend_init" | "MPI_Rsend_init" | "MPI_Recv_init" => {
                let ev = if name == "MPI_Recv_init" {
                    self.recv(name, c)?.map(Pending::Recv)
                } else {
                    self.send(name, c, ffi::ISEND)?.map(Pending::Send)
                };
                let req = c.u32()?;
                if let Some(p) = ev {
                    self.persistent.insert(req, p);
                }
            }
            "MPI_Start" | "MPI_Startall" => {
                let reqs = if name == "MPI_Start" {
                    vec![c.i32()?]
                } else {
                    c.i32()?;
                    c.array()?
                };
                for req in reqs {
                    if let Some(&p) = self.persistent.get(&(req as u32)) {
                        self.post(req as u32, p, t)?;
                    }
                }
            }
            "MPI_Request_free" => {
                let req = c.u32()?;
                self.persistent.remove(&req);
            }
            "MPI_Wait" => {
                let req = c.u32()?;
                let status = self.statuses(c, mask)?;
                self.complete(end, req, status.first())?;
            }
            "MPI_Test" => {
                let (req, flag) = (c.u32()?, c.i32()?);
                let status = self.statuses(c, mask)?;
                if flag != 0 {
                    self.complete(end, req, status.first())?;
                }
            }
            "MPI_Waitany" | "MPI_Testany" => {
                c.i32()?;
                let reqs = c.array()?;
                let index = c.i32()?;
                let flag = if name == "MPI_Testany" { c.i32()? } else { 1 };
                let status = self.statuses(c, mask)?;
                if flag != 0 {
                    self.complete_some(end, &reqs, &[index], &status)?;
                }
            }
            "MPI_Waitall" | "MPI_Testall" => {
                c.i32()?;
                let reqs = c.array()?;
                let flag = if name == "MPI_Testall" { c.i32()? } else { 1 };
                let statuses = self.statuses(c, mask)?;
                if flag != 0 {
                    let all: Vec<i32> = (0..reqs.len() as i32).collect();
                    self.complete_some(end, &reqs, &all, &statuses)?;
                }
            }
            "MPI_Waitsome" | "MPI_Testsome" => {
                c.i32()?;
                let reqs = c.array()?;
                c.i32()?;
                let indices = c.array()?;
                let statuses = self.statuses(c, mask)?;
                self.complete_some(end, &reqs, &indices, &statuses)?;
            }
            "MPI_Iprobe" | "MPI_Probe" => {
                c.take(4 + 4 + 2)?; // source, tag, comm
                if name == "MPI_Iprobe" {
                    c.i32()?;
                }
                self.statuses(c, mask)?;
            }
            "MPI_Sendrecv" | "MPI_Sendrecv_replace" => {
                let sent = self.bytes(name, c)?;
                let (dest, send_tag) = (c.i32()?, c.i32()?);
                let received = if name == "MPI_Sendrecv" { self.bytes(name, c)? } else { sent };
                let (source, recv_tag) = (c.i32()?, c.i32()?);
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let status = self.statuses(c, mask)?;
                if let Some(peer) = self.peer(name, dest, size)? {
                    let tag = self.tag(name, send_tag)?;
                    self.emit(Event { kind: ffi::SEND, peer, tag, bytes: sent, comm, time_ps: t, ..Event::default() })?;
                }
                let from = if source == DUMPI_ANY { Some(ffi::ANY) } else { self.peer(name, source, size)? };
                if let Some(peer) = from {
                    let tag = self.tag(name, recv_tag)?;
                    let ev =
                        Event { kind: ffi::RECV, peer, tag, bytes: received, comm, time_ps: end, ..Event::default() };
                    self.emit(Self::matched(ev, status.first()))?;
                }
            }
            "MPI_Barrier" => {
                let Local { id: comm, .. } = self.comm(name, c.u16()?)?;
                self.emit(self.coll(0, 0, 0, 0, comm, end))?;
            }
            "MPI_Bcast" => {
                let n = self.bytes(name, c)?;
                let root = c.i32()?;
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let root = self.root(name, root, size)?;
                self.emit(self.coll(1, root, n, n, comm, end))?;
            }
            "MPI_Reduce" | "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => {
                let n = self.bytes(name, c)?;
                c.u8()?; // the operation
                let root = if name == "MPI_Reduce" { c.i32()? } else { 0 };
                let Local { id: comm, size, me } = self.comm(name, c.u16()?)?;
                let root = self.root(name, root, size)?;
                let ev = match name {
                    "MPI_Reduce" => self.coll(12, root, n, if root == me { n } else { 0 }, comm, end),
                    "MPI_Allreduce" => self.coll(11, 0, n, n, comm, end),
                    "MPI_Scan" => self.coll(14, 0, n, n, comm, end),
                    _ => self.coll(15, 0, n, n, comm, end),
                };
                self.emit(ev)?;
            }
            "MPI_Gather" | "MPI_Scatter" => {
                let commrank = c.i32()?;
                let mine = self.bytes(name, c)?;
                let root = c.i32()?;
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let root = self.root(name, root, size)?;
                let at_root = if commrank == root as i32 { self.bytes(name, c)? * u64::from(size) } else { 0 };
                let ev = if name == "MPI_Gather" {
                    self.coll(2, root, mine, at_root, comm, end)
                } else {
                    self.coll(4, root, at_root, mine, comm, end)
                };
                self.emit(ev)?;
            }
            "MPI_Gatherv" => {
                let (commrank, _) = (c.i32()?, c.i32()?);
                let sent = self.bytes(name, c)?;
                let root = c.i32()?;
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let root = self.root(name, root, size)?;
                let counts = if commrank == root as i32 {
                    let counts = c.array()?;
                    c.array()?; // displacements
                    counts
                } else {
                    Vec::new()
                };
                let received = self.total(name, &counts, c.u16()?)?;
                self.emit(self.coll(3, root, sent, received, comm, end))?;
            }
            "MPI_Scatterv" => {
                let (commrank, _) = (c.i32()?, c.i32()?);
                let send_type = c.u16()?;
                let received = self.bytes(name, c)?;
                let root = c.i32()?;
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let root = self.root(name, root, size)?;
                let sent = if commrank == root as i32 {
                    let counts = c.array()?;
                    c.array()?; // displacements
                    self.total(name, &counts, send_type)?
                } else {
                    0
                };
                self.emit(self.coll(5, root, sent, received, comm, end))?;
            }
            "MPI_Allgather" | "MPI_Alltoall" => {
                let (sent, received) = (self.bytes(name, c)?, self.bytes(name, c)?);
                let Local { id: comm, size, .. } = self.comm(name, c.u16()?)?;
                let p = u64::from(size);
                let ev = if name == "MPI_Allgather" {
                    self.coll(6, 0, sent, p * received, comm, end)
                } else {
                    self.coll(8, 0, p * sent, p * received, comm, end)
                };
                self.emit(ev)?;
            }
            "MPI_Allgatherv" => {
                c.i32()?;
                let sent = self.bytes(name, c)?;
                let counts = c.array()?;
                c.array()?; // displacements
                let received = self.total(name, &counts, c.u16()?)?;
                let Local { id: comm, .. } = self.comm(name, c.u16()?)?;
                self.emit(self.coll(7, 0, sent, received, comm, end))?;
            }
            "MPI_Alltoallv" => {
                c.i32()?;
                let send_counts = c.array()?;
                c.array()?;
                let sent = self.total(name, &send_counts, c.u16()?)?;
                let recv_counts = c.array()?;
                c.array()?;
                let received = self.total(name, &recv_counts, c.u16()?)?;
                let Local { id: comm, .. } = self.comm(name, c.u16()?)?;
                self.emit(self.coll(9, 0, sent, received, comm, end))?;
            }
            "MPI_Reduce_scatter" => {
                c.i32()?;
                let counts = c.array()?;
                let handle = c.u16()?;
                c.u8()?; // the operation
                let Local { id: comm, me, .. } = self.comm(name, c.u16()?)?;
                let mine = counts.get(me as usize).copied().unwrap_or(0);
                let size = self.type_size(name, handle)?;
                self.emit(self.coll(13, 0, self.total(name, &counts, handle)?, mine.max(0) as u64 * size, comm, end))?;
            }
            "MPI_Alltoallw" => {
                let f = self.fields(c, layout, mask)?;
                let Local { id: comm, .. } = self.comm(name, f[7].int() as u16)?;
                let sent = self.typed_total(name, f[1].ints(), f[3].ints())?;
                let received = self.typed_total(name, f[4].ints(), f[6].ints())?;
                self.emit(self.coll(9, 0, sent, received, comm, end))?;
            }
            "MPI_Comm_dup" | "MPI_Comm_split" => {
                let old = c.u16()?;
                let (color, key) = if name == "MPI_Comm_split" { (c.i32()?, c.i32()?) } else { (0, 0) };
                let new = c.u16()?;
                let parent = self.comms.get(&old).copied();
                self.create(parent, color, key, new);
            }
            "MPI_Comm_create" => {
                let f = self.fields(c, layout, mask)?;
                let parent = self.comms.get(&(f[0].int() as u16)).copied();
                // the group's members, as world ranks: the communicator is them in the
                // group's order (its rank in the group is its rank in the communicator)
                let (color, key) = match self.groups.get(&(f[1].int() as u16)) {
                    Some(Some(members)) => match members.iter().position(|&w| w == self.rank) {
                        Some(at) => (members.iter().min().map_or(-1, |&w| w as i32), at as i32),
                        None => (-1, 0),
                    },
                    _ => (UNKNOWN_MEMBERS, 0),
                };
                self.create(parent, color, key, f[2].int() as u16);
            }
            "MPI_Cart_create" | "MPI_Graph_create" => {
                let f = self.fields(c, layout, mask)?;
                // ranks beyond the topology's size get MPI_COMM_NULL; the others keep
                // their order (what MPICH and Open MPI do, reorder or not), known here
                // on MPI_COMM_WORLD
                let (old, nodes, new) = if name == "MPI_Cart_create" {
                    (f[0].int(), f[2].ints().iter().map(|&d| d.max(0) as u64).product::<u64>(), f[5].int())
                } else {
                    (f[1].int(), f[2].int().max(0) as u64, f[6].int())
                };
                let parent = self.comms.get(&(old as u16)).copied();
                let (color, key) = match parent {
                    Some(Local { id: WORLD, me, .. }) if u64::from(me) < nodes => (0, me as i32),
                    Some(Local { id: WORLD, .. }) => (-1, 0),
                    _ => (UNKNOWN_MEMBERS, 0),
                };
                self.create(parent, color, key, new as u16);
                if name == "MPI_Cart_create" && color == 0 {
                    self.carts.insert(new as u16, (f[2].ints().to_vec(), self.rank));
                }
            }
            "MPI_Cart_sub" => {
                let f = self.fields(c, layout, mask)?;
                let old = f[1].int() as u16;
                let parent = self.comms.get(&old).copied();
                // a rank's coordinates (row-major); the kept ones order the new
                // communicator, the dropped ones tell the ranks that share it
                let (color, key) = match self.carts.get(&old) {
                    Some((dims, me)) => {
                        let mut left = i64::from(*me);
                        let mut coords = vec![0; dims.len()];
                        for (x, &d) in coords.iter_mut().zip(dims).rev() {
                            *x = left % i64::from(d.max(1));
                            left /= i64::from(d.max(1));
                        }
                        let (mut rest, mut kept) = (0i64, 0i64);
                        for (i, (&d, &x)) in dims.iter().zip(&coords).enumerate() {
                            if f[2].ints().get(i).is_some_and(|&r| r != 0) {
                                kept = kept * i64::from(d.max(1)) + x;
                            } else {
                                rest = rest * i64::from(d.max(1)) + x;
                            }
                        }
                        (rest as i32, kept as i32)
                    }
                    None => (UNKNOWN_MEMBERS, 0),
                };
                self.create(parent, color, key, f[3].int() as u16);
            }
            "MPI_Intercomm_create"
            | "MPI_Intercomm_merge"
            | "MPI_Comm_accept"
            | "MPI_Comm_connect"
            | "MPI_Comm_join"
            | "MPI_Comm_get_parent"
            | "MPI_Comm_spawn"
            | "MPI_Comm_spawn_multiple" => {
                // inter-communicators (and the merge of one): their members are not
                // in the trace; used for a message, they are refused there
                let f = self.fields(c, layout, mask)?;
                let new = match name {
                    "MPI_Intercomm_create" => f[5].int(),
                    "MPI_Intercomm_merge" => f[2].int(),
                    "MPI_Comm_accept" | "MPI_Comm_connect" => f[4].int(),
                    "MPI_Comm_spawn_multiple" => f[4].int(),
                    "MPI_Comm_spawn" => f[3].int(),
                    _ => f[f.len() - 1].int(),
                };
                self.forget(new as u16);
            }
            "MPI_Comm_free" | "MPI_Comm_disconnect" => {
                let handle = c.u16()?;
                self.forget(handle);
                self.carts.remove(&handle);
            }
            "MPI_Comm_group" => {
                let (comm, group) = (c.u16()?, c.u16()?);
                let members = match self.comms.get(&comm) {
                    Some(Local { id: WORLD, .. }) => Some((0..self.communicators.ranks()).collect()),
                    Some(Local { id: SELF, .. }) => Some(vec![self.rank]),
                    _ => None,
                };
                self.groups.insert(group, members);
            }
            "MPI_Group_incl" | "MPI_Group_excl" | "MPI_Group_range_incl" | "MPI_Group_range_excl" => {
                let group = c.u16()?;
                c.i32()?; // the count, again in the array
                let picked: Vec<i32> = if name.contains("range") {
                    let ranges = (0..c.count(4)?).map(|_| c.array()).collect::<Result<Vec<_>, _>>()?;
                    ranges.iter().flat_map(|r| group_range(r)).collect()
                } else {
                    c.array()?
                };
                let new = c.u16()?;
                let members = self.groups.get(&group).cloned().flatten().map(|g| {
                    let at = |i: i32| usize::try_from(i).ok().and_then(|i| g.get(i).copied());
                    if name.contains("incl") {
                        picked.iter().filter_map(|&i| at(i)).collect()
                    } else {
                        (0..g.len()).filter(|&i| !picked.contains(&(i as i32))).map(|i| g[i]).collect()
                    }
                });
                self.groups.insert(new, members);
            }
            "MPI_Group_union" | "MPI_Group_intersection" | "MPI_Group_difference" => {
                let (a, b, new) = (c.u16()?, c.u16()?, c.u16()?);
                let known = |g: u16| self.groups.get(&g).cloned().flatten();
                let members = known(a).zip(known(b)).map(|(a, b)| match name {
                    "MPI_Group_union" => a.iter().chain(b.iter().filter(|w| !a.contains(w))).copied().collect(),
                    "MPI_Group_intersection" => a.into_iter().filter(|w| b.contains(w)).collect(),
                    _ => a.into_iter().filter(|w| !b.contains(w)).collect(),
                });
                self.groups.insert(new, members);
            }
            "MPI_Group_free" => {
                let group = c.u16()?;
                self.groups.remove(&group);
            }
            "MPI_Comm_remote_group" | "MPI_Win_get_group" | "MPI_File_get_group" => {
                let f = self.fields(c, layout, mask)?;
                self.groups.insert(f[1].int() as u16, None);
            }
            // every other call: no message of the program's own; read past by its layout
            _ => {
                self.fields(c, layout, mask)?;
            }
        }
        Ok(())
    }

    /// A communicator created on `parent` (None: one whose members are not known)
    /// with `color` and `key` (as `MPI_Comm_split`'s; negative: this rank is not in
    /// it), under the handle `new`.
    fn create(&mut self, parent: Option<Local>, color: i32, key: i32, new: u16) {
        self.forget(new); // a freed handle, reused
        let Some(parent) = parent else { return };
        // every rank of the parent counts the creation: the k-th is one call on all
        let k = self.created.entry(parent.id).or_default();
        let at = *k;
        *k += 1;
        if color == UNKNOWN_MEMBERS || is_predefined(new) {
            return;
        }
        if let Some(local) = self.communicators.create(parent, at, color, key, self.rank) {
            self.comms.insert(new, local);
        }
    }

    /// The handle `handle` no longer names a communicator this reader maps.
    fn forget(&mut self, handle: u16) {
        if !is_predefined(handle) {
            self.comms.remove(&handle);
        }
    }

    /// The bytes of `counts` values of the datatypes `types`, one of each per rank.
    fn typed_total(&self, name: &str, counts: &[i32], types: &[i32]) -> Result<u64, String> {
        counts
            .iter()
            .zip(types)
            .try_fold(0, |sum, (&n, &t)| Ok(sum + n.max(0) as u64 * self.type_size(name, t as u16)?))
    }

    fn root(&self, name: &str, root: i32, size: u32) -> Result<u32, String> {
        self.peer(name, root, size)?.ok_or_else(|| self.err(name, format!("root {root} is not a rank")))
    }
}

/// Read the DUMPI trace whose `.meta` file is `meta` into `sink`; with `events` false,
/// only the definitions.
pub fn read(meta: &Path, sink: &mut dyn Sink, events: bool) -> Result<(), String> {
    let files = bin_files(meta)?;
    let ranks = files.len() as u32;
    sink.ranks(ranks, CREATOR, 1_000_000_000)?;
    let world: Vec<u64> = (0..u64::from(ranks)).collect();
    sink.comm(WORLD, Members::World(&world))?;
    sink.comm(SELF, Members::OwnRank)?;
    if !events {
        return Ok(());
    }
    let bins: Vec<Bin> = files.iter().map(|f| Bin::open(f)).collect::<Result<_, _>>()?;
    let base_s = bins.iter().map(|b| b.wall_offset_s).min().unwrap_or(0);
    let mut communicators = Communicators::new(ranks);
    if bins.iter().any(|b| b.creates_comms) {
        // a first pass collects the communicators' colors and keys from every rank
        for (rank, bin) in bins.iter().enumerate() {
            let mut regions = HashMap::new();
            RankReader::new(bin, rank as u32, &mut ffi::EventCount(0), &mut regions, base_s, &mut communicators)
                .records()?;
        }
        communicators.resolve();
        for (id, members) in communicators.created() {
            let members: Vec<u64> = members.iter().map(|&w| u64::from(w)).collect();
            sink.comm(id, Members::World(&members))?;
        }
    }
    let mut regions = HashMap::new();
    for (rank, bin) in bins.iter().enumerate() {
        RankReader::new(bin, rank as u32, sink, &mut regions, base_s, &mut communicators).records()?;
    }
    Ok(())
}
