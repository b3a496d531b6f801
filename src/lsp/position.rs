//! Byte offsets of the file against the protocol's positions: a line and a
//! column counted in the code units the client and server agreed on (UTF-16
//! unless the client offers UTF-8). Lines end at LF, CRLF or a lone CR, as
//! the protocol says and as the grammar reads them.

use lsp_types::{Position, Range};

use crate::syntax::ast::Span;

/// The unit columns are counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Where each line of a text starts.
#[derive(Clone, Debug)]
pub struct Lines {
    starts: Vec<usize>,
    encoding: Encoding,
}

impl Lines {
    pub fn new(text: &str, encoding: Encoding) -> Self {
        let b = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\r' if b.get(i + 1) == Some(&b'\n') => {
                    i += 1;
                    starts.push(i + 1);
                }
                b'\r' | b'\n' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Lines { starts, encoding }
    }

    /// The position of a byte offset (inside a character: of its start).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        // Between a CR and its LF is still the end of the line's content.
        let before = text[self.starts[line]..offset].trim_end_matches('\r');
        let character = match self.encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.encode_utf16().count(),
        };
        Position::new(line as u32, character as u32)
    }

    /// The byte offset of a position; a column past the line's end means
    /// its end, a line past the last the end of the text (as the protocol
    /// asks), and a column inside a character its start.
    pub fn offset(&self, text: &str, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else { return text.len() };
        let end = self.starts.get(p.line as usize + 1).copied().unwrap_or(text.len());
        let line = text[start..end].trim_end_matches(['\n', '\r']);
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        start + line.len()
    }

    pub fn range(&self, text: &str, span: &Span) -> Range {
        Range::new(self.position(text, span.start), self.position(text, span.end))
    }

    pub fn span(&self, text: &str, range: Range) -> Span {
        let start = self.offset(text, range.start);
        start..self.offset(text, range.end).max(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_the_agreed_units() {
        // "é" is 2 bytes and 1 UTF-16 unit; "𝛼" is 4 bytes and 2 units.
        let text = "ab\r\né𝛼x\rlast";
        for (encoding, x_col) in [(Encoding::Utf8, 6), (Encoding::Utf16, 3)] {
            let lines = Lines::new(text, encoding);
            let x = text.find('x').unwrap();
            assert_eq!(lines.position(text, x), Position::new(1, x_col));
            assert_eq!(lines.offset(text, Position::new(1, x_col)), x);
            assert_eq!(lines.position(text, text.find("last").unwrap()), Position::new(2, 0));
            // Past the end of a line: its end, before the line break.
            assert_eq!(lines.offset(text, Position::new(0, 99)), 2);
            assert_eq!(lines.offset(text, Position::new(9, 0)), text.len());
        }
    }

    #[test]
    fn every_offset_round_trips() {
        let text = "a é\n𝛼 b\r\n\rend";
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let lines = Lines::new(text, encoding);
            for (i, _) in text.char_indices().filter(|&(i, c)| !(c == '\n' && text[..i].ends_with('\r'))) {
                assert_eq!(lines.offset(text, lines.position(text, i)), i, "{encoding:?} at {i}");
            }
        }
    }
}
