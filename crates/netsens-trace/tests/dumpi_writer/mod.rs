//! A DUMPI writer for tests and the reading benchmark, following the layout of
//! sst-dumpi's `dumpi/common/io.c` and `dumpiio.c` as libdumpi writes it (big-endian;
//! magic, body, end-of-stream label, header, footer, datatype sizes, index); written
//! apart from netsens's reader so that each checks the other.
#![allow(dead_code)] // each user takes what it needs

const MAGIC: u64 = 0xffaa_dd44_554d_5049;
const END_OF_STREAM: u16 = 293;
/// `MPI_DOUBLE`'s datatype handle (8 bytes in the size table written); every other
/// handle below 15 is 1 byte.
pub const DOUBLE: u16 = 14;

/// One rank's `.bin`, written as libdumpi writes it.
pub struct Bin {
    buf: Vec<u8>,
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
}

impl Bin {
    /// Wall-clock seconds start at 1 700 000 000 (the offset the body records).
    const OFFSET_S: u32 = 1_700_000_000;

    pub fn new() -> Bin {
        let mut b = Bin { buf: MAGIC.to_be_bytes().to_vec(), body: 8, counts: vec![0; 291] };
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

    /// A call made by thread `thread`.
    pub fn call_by(self, thread: u16, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.record(thread, None, label, start, end, args)
    }

    /// A call that also records the process's CPU time, µs, at its start and end.
    pub fn call_cpu(self, cpu: (f64, f64), label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.record(0, Some(cpu), label, start, end, args)
    }

    fn record(mut self, thread: u16, cpu: Option<(f64, f64)>, label: u16, start: f64, end: f64, args: &[A]) -> Bin {
        self.counts[usize::from(label)] += 1;
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
            }
        }
        self
    }

    fn statuses(&mut self, v: &[(u32, i32, i32)]) {
        self.buf.extend((v.len() as u32).to_be_bytes());
        for (bytes, source, tag) in v {
            self.buf.extend(bytes.to_be_bytes());
            self.buf.extend(source.to_be_bytes());
            self.buf.extend([0, 0]);
            self.buf.extend(tag.to_be_bytes());
        }
    }

    /// The end-of-stream label, header (version 0.8.0), footer (calls and ignored
    /// calls per label), datatype sizes, index.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.extend(END_OF_STREAM.to_be_bytes());
        let header = self.buf.len() as u64;
        self.buf.extend([0, 8, 0]);
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
