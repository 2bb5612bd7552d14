//! The ops' labels (GOAL labels, kept for error messages) in one text: per op an
//! 8-byte span into it instead of a string of its own, so labels cost a GOAL file's
//! op table 8 bytes plus the label's bytes, with no allocation per op.

/// Bits of a span holding the label's length; the rest hold its start.
const LEN_BITS: u32 = 24;
/// Longest label kept; a longer one keeps its first bytes (whole characters).
const MAX_LEN: usize = (1 << LEN_BITS) - 1;

#[derive(Default)]
pub(crate) struct OpLabels {
    text: String,
    /// Per op: `start << LEN_BITS | len` in `text`; 0 is the empty label.
    spans: Vec<u64>,
}

impl OpLabels {
    /// `ops` ops, all unlabeled.
    pub(crate) fn unlabeled(ops: usize) -> Self {
        OpLabels { text: String::new(), spans: vec![0; ops] }
    }

    /// One more op, unlabeled.
    pub(crate) fn push_unlabeled(&mut self) {
        self.spans.push(0);
    }

    pub(crate) fn set(&mut self, op: usize, label: &str) {
        let mut len = label.len().min(MAX_LEN);
        while !label.is_char_boundary(len) {
            len -= 1;
        }
        let start = self.text.len() as u64;
        self.text.push_str(&label[..len]);
        self.spans[op] = start << LEN_BITS | len as u64;
    }

    /// The label of `op`, empty when it has none.
    pub(crate) fn get(&self, op: usize) -> &str {
        let span = self.spans[op];
        let start = (span >> LEN_BITS) as usize;
        &self.text[start..start + (span as usize & MAX_LEN)]
    }

    /// `other`'s ops after these, with their labels.
    pub(crate) fn append(&mut self, other: OpLabels) {
        let shift = (self.text.len() as u64) << LEN_BITS;
        self.text.push_str(&other.text);
        drop(other.text);
        super::append::append_draining(&mut self.spans, other.spans, |s| if s == 0 { 0 } else { s + shift });
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.spans.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_whatever_the_order_they_are_set_in() {
        let mut l = OpLabels::unlabeled(2);
        l.push_unlabeled();
        l.set(2, "recv_7");
        l.set(0, "é1");
        l.set(2, "again");
        assert_eq!([l.get(0), l.get(1), l.get(2)], ["é1", "", "again"]);
    }

    #[test]
    fn a_label_past_the_longest_keeps_its_first_whole_characters() {
        let mut l = OpLabels::unlabeled(1);
        let long = format!("a{}", "é".repeat(MAX_LEN / 2));
        l.set(0, &long);
        // MAX_LEN = 2^24 - 1 bytes: "a" and 2^23 - 1 two-byte characters.
        assert_eq!(l.get(0).len(), MAX_LEN);
        assert!(long.starts_with(l.get(0)));
    }
}
