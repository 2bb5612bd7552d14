//! A GOAL file as text without holding it: a regular file is mapped read-only and
//! checked as UTF-8 a piece at a time, and the pages the parser has finished with
//! are handed back to the kernel, so the process never holds the whole text (a
//! traced application's schedule runs to gigabytes). Other files (pipes, devices)
//! are read into memory. Parse it with
//! [`parse_goal_releasing`](super::goal::parse_goal_releasing) and
//! [`GoalText::release_before`].

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::mapping::Mapping;

/// Bytes checked as UTF-8 before their pages are released.
const CHECK_PIECE: usize = 8 << 20;

/// The text of a GOAL file: mapped, or read when it cannot be mapped.
pub struct GoalText {
    source: Source,
}

enum Source {
    Mapped(Mapping),
    Read(String),
}

impl GoalText {
    /// Open `path`; an error is `std::fs::read_to_string`'s for the same file (the
    /// same kinds and messages, invalid UTF-8 included).
    pub fn open(path: &Path) -> io::Result<GoalText> {
        let Some(map) = Mapping::open(path)? else {
            return std::fs::read_to_string(path).map(|text| GoalText { source: Source::Read(text) });
        };
        map.advise_sequential();
        let text = GoalText { source: Source::Mapped(map) };
        text.check_utf8()?;
        Ok(text)
    }

    fn bytes(&self) -> &[u8] {
        match &self.source {
            Source::Mapped(map) => map.bytes(),
            Source::Read(text) => text.as_bytes(),
        }
    }

    /// Checks the mapping piece by piece, releasing each piece after its check.
    fn check_utf8(&self) -> io::Result<()> {
        let bytes = self.bytes();
        let mut start = 0;
        while start < bytes.len() {
            let end = (start + CHECK_PIECE).min(bytes.len());
            match std::str::from_utf8(&bytes[start..end]) {
                Ok(_) => start = end,
                // A character cut by the piece's end: check it with the next piece.
                Err(e) if e.error_len().is_none() && end < bytes.len() => start += e.valid_up_to(),
                Err(_) => return Err(io::Error::new(io::ErrorKind::InvalidData, "stream did not contain valid UTF-8")),
            }
            self.release_before(start);
        }
        Ok(())
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: `open` checked every byte as UTF-8 (or read a `String`).
        unsafe { std::str::from_utf8_unchecked(self.bytes()) }
    }

    /// Hand the pages wholly before `offset` back to the kernel: they are reread
    /// from the file (its page cache) if touched again, so the text stays intact.
    pub fn release_before(&self, offset: usize) {
        self.release(0, offset);
    }

    /// As [`GoalText::release_before`], for the pages wholly within `start..end`.
    pub fn release(&self, start: usize, end: usize) {
        if let Source::Mapped(map) = &self.source {
            map.release(start, end);
        }
    }

    /// Parse the text on every core, releasing it as it is parsed
    /// ([`parse_goal_threaded`](super::goal::parse_goal_threaded)). The schedule
    /// keeps the mapping and reads its labels back from it when a message names an
    /// op, so labels take no memory.
    pub fn parse(self: &Arc<Self>, file: &str) -> crate::error::Result<super::Schedule> {
        self.parse_reporting(file, &|_, _| {})
    }

    /// [`GoalText::parse`], telling `parsed(bytes, total)` how far the parse has come
    /// each time a part lets go of a piece of the text (every few megabytes).
    pub fn parse_reporting(
        self: &Arc<Self>,
        file: &str,
        parsed: &(dyn Fn(u64, u64) + Sync),
    ) -> crate::error::Result<super::Schedule> {
        use std::sync::atomic::{AtomicU64, Ordering};
        let total = self.bytes().len() as u64;
        let done = AtomicU64::new(0);
        let release = |start: usize, end: usize| {
            self.release(start, end);
            let piece = end.saturating_sub(start) as u64;
            let now = done.fetch_add(piece, Ordering::Relaxed) + piece;
            // A failed cut parses the text again in one pass: never report past the end.
            parsed(now.min(total), total);
        };
        let (mut s, blocks) = super::goal::parse_text(self.as_str(), file, true, &release)?;
        if done.load(Ordering::Relaxed) < total {
            parsed(total, total); // one pass leaves the text after its last block unreleased
        }
        self.check_unchanged(file)?;
        s.text_labels = Some(super::text_labels::TextLabels::new(Arc::clone(self), blocks));
        Ok(s)
    }

    /// An error if the mapped file was written since `open` (a schedule parsed from
    /// it could be part old text and part new).
    pub fn check_unchanged(&self, file: &str) -> crate::error::Result<()> {
        match &self.source {
            Source::Mapped(map) => map.check_unchanged(file),
            Source::Read(_) => Ok(()),
        }
    }
}
