//! The GOAL lexer: statements of up to [`MAX_TOKENS`] tokens, read a byte at a time
//! with a class table; comments count as blanks.

use super::{PResult, MAX_TOKENS};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Word,
    Colon,
    LBrace,
    RBrace,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Tok<'a> {
    pub(super) kind: Kind,
    pub(super) text: &'a str,
    pub(super) line: usize,
}

pub(super) const NO_TOK: Tok<'static> = Tok { kind: Kind::Word, text: "", line: 0 };

/// One statement: up to [`MAX_TOKENS`] tokens (extra ones are dropped; see there).
pub(super) struct Stmt<'a> {
    pub(super) toks: [Tok<'a>; MAX_TOKENS],
    pub(super) n: usize,
    /// Line on which the statement ended (for "found the end of the line").
    pub(super) end_line: usize,
}

impl<'a> Stmt<'a> {
    pub(super) fn get(&self, i: usize) -> Option<&Tok<'a>> {
        if i < self.n {
            Some(&self.toks[i])
        } else {
            None
        }
    }

    pub(super) fn word(&self, i: usize) -> Option<&'a str> {
        self.get(i).filter(|t| t.kind == Kind::Word).map(|t| t.text)
    }

    /// Line of token `i`, or of the statement's end when it is missing.
    pub(super) fn line_at(&self, i: usize) -> usize {
        self.get(i).map_or(self.end_line, |t| t.line)
    }

    /// `"tok"` or "the end of the line", for "expected X, found Y".
    pub(super) fn found(&self, i: usize) -> String {
        match self.get(i) {
            None => "the end of the line".to_string(),
            Some(t) => quote(t.text),
        }
    }
}

/// Quote a token for a message, shortening very long ones.
pub(super) fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.len() <= MAX {
        return format!("\"{s}\"");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("\"{}...\"", &s[..end])
}

/// Byte classes: 0 = word byte, 1 = blank, 2 = newline, 3 = punctuation, 4 = `/`.
pub(super) const CLASS: [u8; 256] = {
    let mut c = [0u8; 256];
    c[b' ' as usize] = 1;
    c[b'\t' as usize] = 1;
    c[b'\r' as usize] = 1;
    c[0x0b] = 1;
    c[0x0c] = 1;
    c[b'\n' as usize] = 2;
    c[b':' as usize] = 3;
    c[b'{' as usize] = 3;
    c[b'}' as usize] = 3;
    c[b'/' as usize] = 4;
    c
};

pub(super) struct Lexer<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
    /// Line of `pos`, 1-based.
    pub(super) line: usize,
}

impl<'a> Lexer<'a> {
    /// Is there a comment opening at `pos` (which holds a `/`)?
    #[inline]
    pub(super) fn comment_at(&self, pos: usize) -> bool {
        matches!(self.text.as_bytes().get(pos + 1), Some(b'/') | Some(b'*'))
    }

    /// Skip blanks and comments (not newlines, except inside block comments).
    #[inline]
    pub(super) fn skip_blanks(&mut self) -> PResult<()> {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            match CLASS[b[self.pos] as usize] {
                1 => self.pos += 1,
                4 if self.comment_at(self.pos) => {
                    if b[self.pos + 1] == b'/' {
                        // Line comment: up to (not including) the newline.
                        self.pos += 2;
                        while self.pos < b.len() && b[self.pos] != b'\n' {
                            self.pos += 1;
                        }
                    } else {
                        let open = self.line;
                        self.pos += 2;
                        loop {
                            match b.get(self.pos) {
                                None => {
                                    return Err((
                                        open,
                                        "unterminated \"/*\" comment (no \"*/\" before the end of the file)".into(),
                                    ))
                                }
                                Some(b'*') if b.get(self.pos + 1) == Some(&b'/') => {
                                    self.pos += 2;
                                    break;
                                }
                                Some(b'\n') => self.line += 1,
                                _ => {}
                            }
                            self.pos += 1;
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Read the next statement into `st`; `false` at the end of the text.
    pub(super) fn statement(&mut self, st: &mut Stmt<'a>) -> PResult<bool> {
        st.n = 0;
        let b = self.text.as_bytes();
        loop {
            self.skip_blanks()?;
            if self.pos >= b.len() {
                st.end_line = self.line;
                return Ok(st.n > 0);
            }
            let c = b[self.pos];
            let start = self.pos;
            let kind = match c {
                b'\n' => {
                    st.end_line = self.line;
                    self.pos += 1;
                    self.line += 1;
                    if st.n > 0 {
                        return Ok(true);
                    }
                    continue;
                }
                b'}' if st.n > 0 => {
                    // Ends the statement before it; read again as a statement of its own.
                    st.end_line = self.line;
                    return Ok(true);
                }
                b'}' => Kind::RBrace,
                b'{' => Kind::LBrace,
                b':' => Kind::Colon,
                _ => Kind::Word,
            };
            if kind == Kind::Word {
                self.pos += 1;
                while self.pos < b.len() {
                    match CLASS[b[self.pos] as usize] {
                        0 => self.pos += 1,
                        4 if !self.comment_at(self.pos) => self.pos += 1,
                        _ => break,
                    }
                }
            } else {
                self.pos += 1;
            }
            if st.n < MAX_TOKENS {
                st.toks[st.n] = Tok { kind, text: &self.text[start..self.pos], line: self.line };
                st.n += 1;
            }
            if kind == Kind::LBrace || kind == Kind::RBrace {
                st.end_line = self.line;
                return Ok(true);
            }
        }
    }
}
