//! A DUMPI writer for tests and the reading benchmark, following the layout of
//! sst-dumpi's `dumpi/common/io.c` and `dumpiio.c` as libdumpi writes it (big-endian;
//! magic, body, end-of-stream label, header, footer, datatype sizes, index); written
//! apart from netsens's reader so that each checks the other.
#![allow(dead_code)] // each user takes what it needs

pub mod layouts;

const MAGIC: u64 = 0xffaa_dd44_554d_5049;
const END_OF_STREAM: u16 = 293;
/// `MPI_DOUBLE`'s datatype handle (8 bytes in the size table written); every other
/// handle below 15 is 1 byte.
pub const DOUBLE: u16 = 14;

/// One rank's `.bin`, written as libdumpi writes it.
pub struct Bin {
    buf: Vec<u8>,
    /// The DUMPI version written in the header: statuses carry their tag from 0.6.3 on.
    version: [u8; 3],
    body: u64,
    /// Calls per function label, for the footer.
    counts: Vec<u32>,
}

/// An argument of a call record.
#[derive(Clone)]
pub enum A {
    I(i32),
    H(u16),
    B(u8),
    Arr(Vec<i32>),
    /// One status: bytes, source, tag.
    Status(u32, i32, i32),
    Statuses(Vec<(u32, i32, i32)>),
    /// A 64-bit value.
    L(u64),
    /// Arrays of 16-bit and 8-bit values behind their 32-bit count.
    Arr16(Vec<u16>),
    Arr8(Vec<u8>),
    /// A string: its 32-bit length, its bytes.
    Str(String),
    /// A 32-bit count, then that many strings.
    Strs(Vec<String>),
}

impl A {
    /// The argument a layout code (src/dumpi/labels.rs) takes in records generated from
    /// the layout table: ranks and roots 0, other integers -2 (MPI_PROC_NULL as a peer,
    /// nothing as a count or request), handles 3 (MPI_COMM_SELF, a 1-byte datatype).
    pub fn sample(code: char) -> Vec<A> {
        let s = || A::Str("ab".into());
        match code {
            'i' => vec![A::I(-2)],
            'k' | 'o' => vec![A::I(0)],
            'h' => vec![A::H(3)],
            'b' => vec![A::B(1)],
            'l' => vec![A::L(7)],
            'I' | '9' | '8' => vec![A::Arr(vec![-2])],
            'H' => vec![A::Arr16(vec![3])],
            'B' => vec![A::Arr8(vec![1])],
            'J' => vec![A::I(1), A::Arr(vec![0, 0, 1])],
            's' => vec![s()],
            'S' | 'A' => vec![A::Strs(vec!["ab".into()])],
            'T' => vec![A::I(1), A::Strs(vec!["ab".into()])],
            't' => vec![A::Status(0, -2, -2)],
            '[' | ']' => vec![],
            other => panic!("layout code {other}"),
        }
    }

    /// A record's arguments from its layout, every field present.
    pub fn from_layout(layout: &str) -> Vec<A> {
        layout.chars().flat_map(A::sample).collect()
    }
}

impl Bin {
    /// Wall-clock seconds start at 1 700 000 000 (the offset the body records).
    const OFFSET_S: u32 = 1_700_000_000;

    pub fn new() -> Bin {
        Bin::of_version([0, 8, 0])
    }

    /// A file of DUMPI `version` (some layouts changed with it: src/dumpi/labels.rs).
    pub fn of_version(version: [u8; 3]) -> Bin {
        let mut b = Bin { buf: MAGIC.to_be_bytes().to_vec(), version, body: 8, counts: vec![0; 291] };
        b.body = b.buf.len() as u64;
        b.buf.extend(0u32.to_be_bytes()); // CPU offset
        b.buf.extend(Bin::OFFSET_S.to_be_bytes());
        b
    }

    fn time(&mut self, us: f64) {
        let ns = (us * 1000.0).round() as u64;
        self.buf.extend(((ns / 1_000_000_000) as u16).to_be_bytes());
        self.buf.extend(((ns % 1_000_000_000) as u32).to_be_bytes());
    }

    /// A call from `start` to `end` µs past the offset: statuses, wall times, thread 0.
    pub fn call(self, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.call_by(0, label, start, end, args)
    }

    /// A call whose record mask is `mask` (the thread and wall-clock bits set: a mask
    /// only a damaged file holds otherwise).
    pub fn call_masked(mut self, mask: u8, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        let at = self.buf.len() + 2;
        self = self.record(0, None, label, start, end, args);
        self.buf[at] = mask;
        self
    }

    /// A call made by thread `thread`.
    pub fn call_by(self, thread: u16, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.record(thread, None, label, start, end, args)
    }

    /// A call that also records the process's CPU time, µs, at its start and end.
    pub fn call_cpu(self, cpu: (f64, f64), label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.record(0, Some(cpu), label, start, end, args)
    }

    fn record(mut self, thread: u16, cpu: Option<(f64, f64)>, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        if let Some(n) = self.counts.get_mut(usize::from(label)) {
            *n += 1;
        }
        self.buf.extend(label.to_be_bytes());
        self.buf.push(if cpu.is_some() { 0b0100_1101 } else { 0b0100_1001 });
        self.buf.extend(thread.to_be_bytes());
        if let Some((cpu_start, cpu_end)) = cpu {
            self.time(cpu_start);
            self.time(cpu_end);
        }
        self.time(start);
        self.time(end);
        for a in args {
            match a {
                A::I(v) => self.buf.extend(v.to_be_bytes()),
                A::H(v) => self.buf.extend(v.to_be_bytes()),
                A::B(v) => self.buf.push(*v),
                A::Arr(v) => {
                    self.buf.extend((v.len() as u32).to_be_bytes());
                    v.iter().for_each(|x| self.buf.extend(x.to_be_bytes()));
                }
                A::Status(b, s, t) => self.statuses(&[(*b, *s, *t)]),
                A::Statuses(v) => self.statuses(v),
                A::L(v) => self.buf.extend(v.to_be_bytes()),
                A::Arr16(v) => {
                    self.buf.extend((v.len() as u32).to_be_bytes());
                    v.iter().for_each(|x| self.buf.extend(x.to_be_bytes()));
                }
                A::Arr8(v) => {
                    self.buf.extend((v.len() as u32).to_be_bytes());
                    self.buf.extend(v);
                }
                A::Str(v) => self.string(v),
                A::Strs(v) => {
                    self.buf.extend((v.len() as u32).to_be_bytes());
                    v.iter().for_each(|x| self.string(x));
                }
            }
        }
        self
    }

    fn string(&mut self, v: &str) {
        self.buf.extend((v.len() as u32).to_be_bytes());
        self.buf.extend(v.as_bytes());
    }

    fn statuses(&mut self, v: &[(u32, i32, i32)]) {
        self.buf.extend((v.len() as u32).to_be_bytes());
        for (bytes, source, tag) in v {
            self.buf.extend(bytes.to_be_bytes());
            self.buf.extend(source.to_be_bytes());
            self.buf.extend([0, 0]);
            if self.version >= [0, 6, 3] {
                self.buf.extend(tag.to_be_bytes());
            }
        }
    }

    /// The end-of-stream label, header (the file's version), footer (calls and ignored
    /// calls per label), datatype sizes, index.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.extend(END_OF_STREAM.to_be_bytes());
        let header = self.buf.len() as u64;
        self.buf.extend(self.version);
        self.buf.extend(0u64.to_be_bytes());
        for s in ["host", "user"] {
            self.buf.extend((s.len() as u16).to_be_bytes());
            self.buf.extend(s.as_bytes());
        }
        self.buf.extend([0u8; 8]); // mesh coordinates and sizes: none
        let footer = self.buf.len() as u64;
        self.buf.extend(0xf007_fee7u64.to_be_bytes());
        let counts = std::mem::take(&mut self.counts);
        counts.iter().chain(&[0; 291]).for_each(|n| self.buf.extend(n.to_be_bytes()));
        let sizes = self.buf.len() as u64;
        let table: Vec<u32> = (0..15).map(|t| if t == DOUBLE as u32 { 8 } else { 1 }).collect();
        self.buf.extend((table.len() as u32).to_be_bytes());
        table.iter().for_each(|s| self.buf.extend(s.to_be_bytes()));
        for word in [MAGIC, sizes, 0, 0, header, self.body, footer, 0] {
            self.buf.extend(word.to_be_bytes());
        }
        self.buf
    }
}
