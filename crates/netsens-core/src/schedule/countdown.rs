//! Per op, the predecessors a running schedule still waits for, in one byte: an op
//! with 254 or more predecessors (rare) keeps its count in a side map.

use rustc_hash::FxHashMap;

use super::{OpId, Schedule};

/// The byte of an op whose count is in the side map.
const SPILLED: u8 = 254;
/// The byte of a finished op.
const DONE: u8 = 255;

pub(crate) struct Countdown {
    left: Vec<u8>,
    spilled: FxHashMap<OpId, u32>,
}

impl Countdown {
    /// Every op's predecessors (requires and irequires) in `s`.
    pub(crate) fn new(s: &Schedule) -> Self {
        let mut c = Countdown { left: vec![0; s.num_ops()], spilled: FxHashMap::default() };
        for op in 0..s.num_ops() as OpId {
            for (to, _) in s.dependents(op) {
                let byte = &mut c.left[to as usize];
                match *byte {
                    b if b < SPILLED - 1 => *byte += 1,
                    SPILLED => *c.spilled.get_mut(&to).expect("a spilled count") += 1,
                    _ => {
                        *byte = SPILLED;
                        c.spilled.insert(to, SPILLED as u32);
                    }
                }
            }
        }
        c
    }

    /// One predecessor of `op` is satisfied; true when it was the last.
    #[inline]
    pub(crate) fn satisfy(&mut self, op: OpId) -> bool {
        let byte = &mut self.left[op as usize];
        if *byte == SPILLED {
            return self.satisfy_spilled(op);
        }
        *byte -= 1;
        *byte == 0
    }

    #[cold]
    fn satisfy_spilled(&mut self, op: OpId) -> bool {
        let n = self.spilled.get_mut(&op).expect("a spilled count");
        *n -= 1;
        if *n < SPILLED as u32 {
            self.left[op as usize] = *n as u8;
            self.spilled.remove(&op);
        }
        self.left[op as usize] == 0
    }

    /// `op` is done.
    #[inline]
    pub(crate) fn finish(&mut self, op: OpId) {
        self.left[op as usize] = DONE;
    }

    /// The predecessors `op` waits for, `None` once it is done.
    pub(crate) fn left(&self, op: OpId) -> Option<u32> {
        match self.left[op as usize] {
            DONE => None,
            SPILLED => Some(self.spilled[&op]),
            b => Some(b as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::ScheduleBuilder;

    #[test]
    fn counts_past_a_byte_spill_and_come_back() {
        // Op 0 waits for 300 calcs, op 301 for 253 (the largest kept in the byte).
        let mut b = ScheduleBuilder::new(1);
        let sink = b.calc(0, 1, 0);
        let first: Vec<OpId> = (0..300).map(|_| b.calc(0, 1, 0)).collect();
        let small = b.calc(0, 1, 0);
        let second: Vec<OpId> = (0..253).map(|_| b.calc(0, 1, 0)).collect();
        first.iter().for_each(|&op| b.requires(sink, op));
        second.iter().for_each(|&op| b.requires(small, op));
        let s = b.build().unwrap();
        let mut c = Countdown::new(&s);
        assert_eq!((c.left(sink), c.left(small), c.spilled.len()), (Some(300), Some(253), 1));
        for i in 0..300 {
            assert_eq!(c.satisfy(sink), i == 299, "after {} of 300", i + 1);
            assert_eq!(c.left(sink), Some(299 - i));
        }
        assert!(c.spilled.is_empty());
        c.finish(sink);
        assert_eq!(c.left(sink), None);
    }
}
