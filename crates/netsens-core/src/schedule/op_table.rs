//! The schedule's operations in 16 bytes each (four records to a cache line): the
//! rank, the peer, the size and one word packing kind, cpu, nic and tag. A calc
//! keeps its 64-bit duration in the peer and size words (it has neither). The rare
//! op whose fields do not fit (a message past 4 GiB, a tag of 2^20 - 1 or more, a
//! cpu or nic index past 15) is "wide": its size word indexes a side table of full
//! [`OpDesc`] records.

use crate::engine::{OpDesc, OpId, OpKind, ANY};

/// One packed operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed {
    rank: u32,
    peer: u32,
    size: u32,
    /// `tag << TAG_SHIFT | nic << 8 | cpu << 4 | WIDE | kind`.
    meta: u32,
}

const _: () = assert!(std::mem::size_of::<Packed>() == 16);

const KIND_MASK: u32 = 0b111;
const WIDE: u32 = 1 << 3;
const UNIT_BITS: u32 = 4;
const UNIT_MASK: u32 = (1 << UNIT_BITS) - 1;
const TAG_SHIFT: u32 = 12;
/// The tag field's all-ones value stands for [`ANY`]; tags below it are stored.
const TAG_ANY: u32 = u32::MAX >> TAG_SHIFT;

const KINDS: [OpKind; 7] =
    [OpKind::Send, OpKind::Recv, OpKind::Calc, OpKind::Store, OpKind::Put, OpKind::Get, OpKind::Disk];

/// Packed operations with their side table of wide ones.
#[derive(Default)]
pub(crate) struct OpTable {
    ops: Vec<Packed>,
    wide: Vec<OpDesc>,
}

impl OpTable {
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    pub(crate) fn reserve(&mut self, ops: usize) {
        self.ops.reserve_exact(ops);
    }

    /// Append `d`; returns its id.
    pub(crate) fn push(&mut self, d: &OpDesc) -> OpId {
        let id = self.ops.len() as OpId;
        let fits_units = (d.cpu as u32) <= UNIT_MASK && (d.nic as u32) <= UNIT_MASK;
        let units = (d.nic as u32) << 8 | (d.cpu as u32) << UNIT_BITS;
        let packed = match d.kind {
            OpKind::Calc if fits_units => {
                Some(Packed { rank: d.rank, peer: (d.size >> 32) as u32, size: d.size as u32, meta: units | 2 })
            }
            OpKind::Send | OpKind::Recv if fits_units => {
                let tag = match d.tag {
                    ANY => Some(TAG_ANY),
                    t if (0..TAG_ANY as i32).contains(&t) => Some(t as u32),
                    _ => None,
                };
                match (tag, u32::try_from(d.size)) {
                    (Some(tag), Ok(size)) => Some(Packed {
                        rank: d.rank,
                        peer: d.peer as u32,
                        size,
                        meta: tag << TAG_SHIFT | units | d.kind as u32,
                    }),
                    _ => None,
                }
            }
            _ => None,
        };
        let record = packed.unwrap_or_else(|| {
            self.wide.push(*d);
            Packed { rank: d.rank, peer: 0, size: (self.wide.len() - 1) as u32, meta: WIDE | d.kind as u32 }
        });
        self.ops.push(record);
        id
    }

    #[inline]
    pub(crate) fn get(&self, id: OpId) -> OpDesc {
        let p = self.ops[id as usize];
        if p.meta & WIDE != 0 {
            return self.wide[p.size as usize];
        }
        let kind = KINDS[(p.meta & KIND_MASK) as usize];
        let cpu = (p.meta >> UNIT_BITS & UNIT_MASK) as u8;
        let nic = (p.meta >> 8 & UNIT_MASK) as u8;
        if kind == OpKind::Calc {
            let size = (p.peer as u64) << 32 | p.size as u64;
            return OpDesc { kind, rank: p.rank, peer: 0, tag: 0, size, cpu, nic };
        }
        let tag = match p.meta >> TAG_SHIFT {
            TAG_ANY => ANY,
            t => t as i32,
        };
        OpDesc { kind, rank: p.rank, peer: p.peer as i32, tag, size: p.size as u64, cpu, nic }
    }

    /// The rank of `id` (without unpacking the rest).
    #[inline]
    pub(crate) fn rank(&self, id: OpId) -> u32 {
        self.ops[id as usize].rank
    }

    /// Start fetching `id`'s record into the cache.
    #[inline]
    pub(crate) fn prefetch(&self, id: OpId) {
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.ops.get(id as usize) {
            // SAFETY: a prefetch only hints the cache; the pointer is in bounds.
            unsafe { std::arch::x86_64::_mm_prefetch(std::ptr::from_ref(p).cast(), std::arch::x86_64::_MM_HINT_T0) };
        }
    }

    /// `other`'s ops after these (their wide indices shifted), giving `other`'s
    /// memory back as it moves.
    pub(crate) fn append(&mut self, other: OpTable) {
        let shift = self.wide.len() as u32;
        self.wide.extend_from_slice(&other.wide);
        super::append::append_draining(&mut self.ops, other.ops, |mut p| {
            if p.meta & WIDE != 0 {
                p.size += shift;
            }
            p
        });
    }

    /// Give back the room reserved for ops never added.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    /// Bytes held (for the benchmarks).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.ops.capacity() * std::mem::size_of::<Packed>() + self.wide.capacity() * std::mem::size_of::<OpDesc>()
    }

    /// Ops stored in the side table.
    #[cfg(test)]
    fn wide_ops(&self) -> usize {
        self.wide.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(kind: OpKind, peer: i32, tag: i32, size: u64, cpu: u8, nic: u8) -> OpDesc {
        OpDesc { kind, rank: 7, peer, tag, size, cpu, nic }
    }

    #[test]
    fn every_op_reads_back_as_pushed_packed_or_wide() {
        let cases = [
            // Packed: small fields, ANY peer and tag, the largest packed tag, a
            // calc of 2^64 - 1 ps, the largest packed cpu and nic, a 4 GiB - 1 message.
            (desc(OpKind::Send, 3, 0, 1, 0, 0), false),
            (desc(OpKind::Recv, ANY, ANY, 8, 1, 2), false),
            (desc(OpKind::Recv, i32::MAX, (1 << 20) - 2, u32::MAX as u64, 15, 15), false),
            (desc(OpKind::Calc, 0, 0, u64::MAX, 15, 0), false),
            // Wide: a tag of 2^20 - 1 (the ANY code) or more, a 4 GiB message, cpu 16,
            // a calc on cpu 16, a kind a GOAL file does not make.
            (desc(OpKind::Send, 1, (1 << 20) - 1, 8, 0, 0), true),
            (desc(OpKind::Send, 1, i32::MAX, 8, 0, 0), true),
            (desc(OpKind::Recv, 1, 0, 1 << 32, 0, 0), true),
            (desc(OpKind::Send, 1, 0, 8, 16, 0), true),
            (desc(OpKind::Send, 1, 0, 8, 0, 254), true),
            (desc(OpKind::Calc, 0, 0, 5, 16, 0), true),
            (desc(OpKind::Put, 2, 0, 5, 0, 0), true),
        ];
        let mut t = OpTable::default();
        for (d, _) in &cases {
            t.push(d);
        }
        let wide = cases.iter().filter(|(_, w)| *w).count();
        assert_eq!(t.wide_ops(), wide);
        for (i, (d, _)) in cases.iter().enumerate() {
            assert_eq!(t.get(i as OpId), *d, "op {i}");
            assert_eq!(t.rank(i as OpId), 7);
        }
    }

    #[test]
    fn appending_keeps_the_wide_ops_of_both_tables() {
        let (a, b) = (desc(OpKind::Send, 1, i32::MAX, 8, 0, 0), desc(OpKind::Recv, 2, 5, 1 << 40, 0, 0));
        let mut first = OpTable::default();
        first.push(&a);
        first.push(&desc(OpKind::Calc, 0, 0, 9, 0, 0));
        let mut second = OpTable::default();
        second.push(&b);
        first.append(second);
        assert_eq!([first.get(0), first.get(2)], [a, b]);
    }
}
