//! A host's unexpected queue: messages that arrived before a receive matched them, by
//! source, so that a receive from one source looks at that source's messages only (bh's
//! uncombined exchange leaves tens of thousands on a host; scanning them all for each
//! receive was most of such a run's time). Each arrival's sequence number orders the
//! messages across sources, for a receive from any source: it takes the earliest.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[derive(Default)]
pub(super) struct Unexpected {
    /// Per source with messages waiting: (arrival number, message), in arrival order.
    by_source: FxHashMap<u32, VecDeque<(u64, u32)>>,
}

impl Unexpected {
    #[inline]
    pub fn push(&mut self, src: u32, msg: u32, arrival: u64) {
        self.by_source.entry(src).or_default().push_back((arrival, msg));
    }

    /// Take out the earliest message from `src` (`None`: from any source) that
    /// `accepts` (its tag, given the message).
    #[inline]
    pub fn take(&mut self, src: Option<u32>, accepts: impl Fn(u32) -> bool) -> Option<u32> {
        let (source, pos) = match src {
            Some(s) => (s, self.by_source.get(&s)?.iter().position(|&(_, m)| accepts(m))?),
            None => {
                let mut best: Option<(u64, u32, usize)> = None;
                for (&s, list) in &self.by_source {
                    if let Some(pos) = list.iter().position(|&(_, m)| accepts(m)) {
                        let arrival = list[pos].0;
                        if best.is_none() || best.is_some_and(|(b, _, _)| arrival < b) {
                            best = Some((arrival, s, pos));
                        }
                    }
                }
                let (_, s, pos) = best?;
                (s, pos)
            }
        };
        let list = self.by_source.get_mut(&source).expect("the source has messages waiting");
        let (_, msg) = list.remove(pos).expect("position is in range");
        if list.is_empty() {
            self.by_source.remove(&source);
        }
        Some(msg)
    }

    /// Every message waiting, in arrival order.
    pub fn in_order(&self) -> Vec<u32> {
        let mut all: Vec<(u64, u32)> = self.by_source.values().flatten().copied().collect();
        all.sort_unstable();
        all.into_iter().map(|(_, m)| m).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_takes_its_own_earliest_and_any_source_the_earliest_of_all() {
        let mut q = Unexpected::default();
        // (source, message): messages 10..16 arrive in this order.
        for (i, &src) in [2, 1, 2, 3, 1, 2].iter().enumerate() {
            q.push(src, 10 + i as u32, i as u64);
        }
        assert_eq!(q.in_order(), [10, 11, 12, 13, 14, 15]);
        assert_eq!(q.take(Some(1), |_| true), Some(11));
        assert_eq!(q.take(Some(2), |m| m != 10), Some(12), "the first that accepts");
        assert_eq!(q.take(None, |m| m != 10), Some(13), "any source: the earliest of all");
        assert_eq!(q.take(None, |_| true), Some(10));
        assert_eq!(q.take(Some(3), |_| true), None);
        assert_eq!(q.in_order(), [14, 15]);
        assert_eq!(
            (q.take(Some(1), |_| true), q.take(Some(2), |_| true), q.take(None, |_| true)),
            (Some(14), Some(15), None)
        );
        assert!(q.by_source.is_empty(), "an emptied source leaves nothing behind");
    }
}
