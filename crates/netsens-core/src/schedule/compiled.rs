//! A compiled schedule (`.nsg`): the op table of a parsed GOAL file in a versioned,
//! checksummed binary form, so a study over a large file parses it once. Loading
//! maps the file, checks it, and rebuilds the schedule from its tables through
//! [`ScheduleBuilder`] (whose checks a hand-made file cannot get around); no text
//! is parsed.
//!
//! Layout, little-endian: a 48-byte header (`MAGIC`, format version, flags, ranks,
//! op and edge counts, label bytes, CRC-32 of the header before the CRC and of
//! everything after the header), then per op `kind u8, cpu u8, nic u8, 0 u8, rank
//! u32, peer i32, tag i32, size u64` (24 B), per op the end of its edges (u32), the
//! edges (dependent op, top bit for `irequires`, u32), per op the end of its label
//! (u32), the labels' text.

use std::io::Write;
use std::path::Path;

use super::mapping::Mapping;
use super::{OpId, OpKind, Schedule, ScheduleBuilder, START_EDGE};
use crate::error::{Error, Result};

/// The first bytes of every compiled schedule.
pub const MAGIC: &[u8; 8] = b"NSGSCHED";
/// The layout this netsens writes and reads.
pub const VERSION: u32 = 1;
const HEADER: usize = 48;
const OP_BYTES: usize = 24;

/// Whether `bytes` (a file's first bytes) start a compiled schedule.
pub fn is_compiled(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Whether the file at `path` is a compiled schedule (by its first bytes; a file
/// that cannot be read is not).
pub fn file_is_compiled(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; MAGIC.len()];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && is_compiled(&head)
}

/// Write `s` to `path` as a compiled schedule.
pub fn write(s: &Schedule, path: &Path) -> Result<()> {
    let n = s.num_ops();
    let mut body = Vec::with_capacity(n * (OP_BYTES + 12) + s.num_edges() * 4);
    for o in (0..n as OpId).map(|op| s.op(op)) {
        if !matches!(o.kind, OpKind::Send | OpKind::Recv | OpKind::Calc) {
            return Err(Error::Input(format!("a compiled schedule holds send, recv and calc only, not {:?}", o.kind)));
        }
        body.extend_from_slice(&[o.kind as u8, o.cpu, o.nic, 0]);
        body.extend_from_slice(&o.rank.to_le_bytes());
        body.extend_from_slice(&o.peer.to_le_bytes());
        body.extend_from_slice(&o.tag.to_le_bytes());
        body.extend_from_slice(&o.size.to_le_bytes());
    }
    let mut end = 0u32;
    for op in 0..n as OpId {
        end += s.dependents(op).count() as u32;
        body.extend_from_slice(&end.to_le_bytes());
    }
    for op in 0..n as OpId {
        for (to, start) in s.dependents(op) {
            body.extend_from_slice(&(to | if start { START_EDGE } else { 0 }).to_le_bytes());
        }
    }
    let mut text = Vec::new();
    for op in 0..n as OpId {
        text.extend_from_slice(s.label(op).unwrap_or("").as_bytes());
        let end = u32::try_from(text.len()).map_err(|_| Error::Input("the labels pass 4 GiB".into()))?;
        body.extend_from_slice(&end.to_le_bytes());
    }
    body.extend_from_slice(&text);
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes()); // flags: none yet
    header.extend_from_slice(&s.num_ranks.to_le_bytes());
    header.extend_from_slice(&[s.ncpus, s.nnics, 0, 0]);
    header.extend_from_slice(&(n as u64).to_le_bytes());
    header.extend_from_slice(&(s.num_edges() as u64).to_le_bytes());
    header.extend_from_slice(&(text.len() as u32).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header);
    crc.update(&body);
    header.extend_from_slice(&crc.finalize().to_le_bytes());
    debug_assert_eq!(header.len(), HEADER);
    let io = |e: std::io::Error| Error::Input(format!("cannot write \"{}\": {e}", path.display()));
    let mut f = std::fs::File::create(path).map_err(io)?;
    f.write_all(&header).map_err(io)?;
    f.write_all(&body).map_err(io)?;
    f.sync_all().map_err(io)
}

/// Load the compiled schedule at `path` (`name` in messages).
pub fn read(path: &Path, name: &str) -> Result<Schedule> {
    let io = |e: std::io::Error| Error::Input(format!("cannot read \"{name}\": {e}"));
    match Mapping::open(path).map_err(io)? {
        Some(map) => {
            let s = load(map.bytes(), name)?;
            map.check_unchanged(name)?;
            Ok(s)
        }
        None => load(&std::fs::read(path).map_err(io)?, name),
    }
}

fn load(b: &[u8], name: &str) -> Result<Schedule> {
    let bad = |why: &str| Error::Input(format!("\"{name}\" {why}"));
    if !is_compiled(b) {
        return Err(bad("is not a compiled netsens schedule (.nsg)"));
    }
    if b.len() < HEADER {
        return Err(bad("is truncated (shorter than its header); compile it again"));
    }
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let version = u32_at(8);
    if version != VERSION {
        return Err(bad(&format!(
            "was compiled in format {version}; this netsens reads format {VERSION}: compile the GOAL file again"
        )));
    }
    let (num_ranks, ncpus, nnics) = (u32_at(16), b[20], b[21]);
    let (n, n_edges, text_len) = (u64_at(24), u64_at(32), u32_at(40) as u64);
    let need = (n as u128) * (OP_BYTES as u128 + 8) + n_edges as u128 * 4 + text_len as u128 + HEADER as u128;
    if need != b.len() as u128 {
        return Err(bad(&format!("is truncated or damaged ({} bytes where its header says {need})", b.len())));
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..44]);
    crc.update(&b[HEADER..]);
    if crc.finalize() != u32_at(44) {
        return Err(bad("is damaged (its checksum does not match); compile it again"));
    }
    let n = n as usize;
    let ends = HEADER + n * OP_BYTES;
    let edges = ends + n * 4;
    let label_ends = edges + n_edges as usize * 4;
    let text = &b[label_ends + n * 4..];
    let mut builder = ScheduleBuilder::new(num_ranks);
    builder.reserve(n, n_edges as usize);
    for i in 0..n {
        let o = &b[HEADER + i * OP_BYTES..HEADER + (i + 1) * OP_BYTES];
        let word = |k: usize| u32::from_le_bytes(o[k..k + 4].try_into().expect("4 bytes"));
        let (rank, peer, tag) = (word(4), word(8) as i32, word(12) as i32);
        let size = u64::from_le_bytes(o[16..24].try_into().expect("8 bytes"));
        let (cpu, nic) = (o[1], o[2]);
        if cpu >= ncpus.max(1) || nic >= nnics.max(1) {
            return Err(bad(&format!("is damaged (op {i} uses a CPU or NIC past the header's)")));
        }
        match o[0] {
            k if k == OpKind::Send as u8 && peer >= 0 => builder.send(rank, peer as u32, size, tag, cpu, nic),
            k if k == OpKind::Recv as u8 => builder.recv(rank, peer, size, tag, cpu, nic),
            k if k == OpKind::Calc as u8 => builder.calc(rank, size, cpu),
            _ => return Err(bad(&format!("is damaged (op {i} has an unknown kind)"))),
        };
    }
    let (mut start, mut label_start) = (0usize, 0usize);
    for from in 0..n {
        let end = u32_at(ends + from * 4) as usize;
        let label_end = u32_at(label_ends + from * 4) as usize;
        if end < start || end > n_edges as usize || label_end < label_start || label_end > text.len() {
            return Err(bad(&format!("is damaged (op {from}'s edges or label are out of place)")));
        }
        for e in start..end {
            let to = u32_at(edges + e * 4);
            let target = to & !START_EDGE;
            if target as usize >= n {
                return Err(bad(&format!("is damaged (an edge of op {from} names op {target})")));
            }
            if to & START_EDGE != 0 {
                builder.irequires(target, from as OpId);
            } else {
                builder.requires(target, from as OpId);
            }
        }
        let label = std::str::from_utf8(&text[label_start..label_end])
            .map_err(|_| bad(&format!("is damaged (op {from}'s label is not UTF-8)")))?;
        if !label.is_empty() {
            builder.label(from as OpId, label);
        }
        (start, label_start) = (end, label_end);
    }
    builder.build().map_err(|e| match e {
        Error::Input(msg) => Error::Input(format!("{name}: {msg}")),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::goal::parse_goal;

    const GOAL: &str = "num_ranks 2\nrank 0 {\na: send 8b to 1 tag 3\nc: calc 100\nc requires a\n}\nrank 1 {\nr: \
                        recv 8b from -1 tag -1 cpu 1\nsend 70000b to 0\n}\n";

    /// `text` compiled into a file named after `test`, read back whole.
    fn compiled(text: &str, test: &str) -> Vec<u8> {
        let s = parse_goal(text, "t.goal").unwrap();
        let path = std::env::temp_dir().join(format!("netsens-{}-{test}.nsg", std::process::id()));
        write(&s, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }

    #[test]
    fn a_compiled_schedule_loads_back_op_for_op() {
        let s = parse_goal(GOAL, "t.goal").unwrap();
        let bytes = compiled(GOAL, "loads");
        // 48 B header, 4 ops × (24 + 4 + 4) B, 1 edge × 4 B, labels "a", "c", "r".
        assert_eq!(bytes.len(), 48 + 4 * 32 + 4 + 3);
        let back = load(&bytes, "t.nsg").unwrap();
        assert_eq!((back.num_ops(), back.num_ranks, back.ncpus, back.nnics), (4, 2, 2, 1));
        for op in 0..4 {
            assert_eq!(back.op_info(op), s.op_info(op));
            assert!(back.dependents(op).eq(s.dependents(op)));
        }
    }

    #[test]
    fn foreign_truncated_damaged_and_other_version_files_are_one_error_each() {
        let bytes = compiled(GOAL, "errors");
        let err = |b: &[u8]| load(b, "t.nsg").err().expect("an error").to_string();
        assert!(err(b"num_ranks 2\n").contains("is not a compiled netsens schedule"));
        assert!(err(&bytes[..20]).contains("truncated"));
        assert!(err(&bytes[..bytes.len() - 1]).contains("truncated or damaged"));
        let mut flipped = bytes.clone();
        flipped[60] ^= 1;
        assert!(err(&flipped).contains("checksum"));
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert!(err(&v2).contains("format 2; this netsens reads format 1"));
    }
}
