//! Labels of a mapped GOAL file read back from the file when a message needs one:
//! a schedule keeps the file's mapping (its pages released, so it costs no memory)
//! and, per rank block, its first op and where its `rank` line is; the op table
//! holds no label at all (they were a quarter of it).

use std::sync::Arc;

use super::goal::nth_op_label;
use super::goal_file::GoalText;
use super::OpId;

pub(crate) struct TextLabels {
    text: Arc<GoalText>,
    /// Per rank block, in op order: (its first op, offset of its `rank` line).
    blocks: Vec<(OpId, usize)>,
}

impl TextLabels {
    pub(crate) fn new(text: Arc<GoalText>, blocks: Vec<(OpId, usize)>) -> Self {
        TextLabels { text, blocks }
    }

    /// The label of `op`, empty when it has none.
    pub(crate) fn get(&self, op: OpId) -> &str {
        let i = self.blocks.partition_point(|&(first, _)| first <= op);
        let Some(&(first, offset)) = i.checked_sub(1).and_then(|i| self.blocks.get(i)) else {
            return "";
        };
        let block = &self.text.as_str()[offset..];
        nth_op_label(block, (op - first) as usize).unwrap_or("")
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<(OpId, usize)>()
    }
}
