//! Where each node's value lives during a pass, as the record keeps it (assigned
//! when the run ends, see `batch`): the slots and what reads them.

/// Where each node's value lives during a pass: a slot is reused once the last
/// node that reads it has been evaluated.
#[derive(Clone)]
pub struct Slots {
    /// The slot of each node.
    pub(crate) node: Vec<u32>,
    /// The slot of each predecessor, parallel to `ExecGraph::preds`; `None` where
    /// they are written over the record's own (a record ended by its run: no second
    /// array of a predecessor's size).
    pub(crate) preds: Option<Vec<u32>>,
    /// Slots in use at most at once.
    pub count: usize,
}

impl Slots {
    /// Bytes the slots hold beside the record.
    pub(crate) fn held(&self) -> usize {
        4 * (self.node.len() + self.preds.as_ref().map_or(0, Vec::len))
    }

    /// The slot of each node.
    pub(crate) fn nodes(&self) -> &[u32] {
        &self.node
    }

    /// The last node before `before` whose value lives in `slot`: the node a
    /// predecessor of `before` in that slot is (no other takes the slot while that
    /// value is live). A walk back from the end scans each node once.
    pub(crate) fn last_in(&self, slot: u32, before: usize) -> usize {
        const CHUNK: usize = 32;
        let mut end = before;
        while end > 0 {
            let start = end.saturating_sub(CHUNK);
            let chunk = &self.node[start..end];
            // A whole chunk compared at once (vector instructions), then the match.
            if chunk.iter().fold(false, |any, &s| any | (s == slot)) {
                let i = chunk.iter().rposition(|&s| s == slot).expect("a match in the chunk");
                return start + i;
            }
            end = start;
        }
        panic!("slot {slot} is given to no node before {before}")
    }
}
