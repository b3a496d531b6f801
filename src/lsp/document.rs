//! An open file as the editor holds it: its text, edited as the client says,
//! and what checking it found, redone after every change.

use lsp_types::TextDocumentContentChangeEvent;

use super::position::{Encoding, Lines};
use crate::check::{analyse, Symbols};
use crate::diag::{Diagnostic, SourceFile};
use crate::syntax::ast::{self, Span};

pub struct Document {
    pub file: SourceFile,
    pub lines: Lines,
    /// Errors and warnings, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    pub symbols: Symbols,
    pub tree: ast::File,
}

impl Document {
    /// The file checked, unless it is larger than `max_bytes`: then one
    /// error says so and nothing else is known of it.
    pub fn new(name: &str, text: String, encoding: Encoding, max_bytes: usize) -> Self {
        let file = SourceFile::new(name, text.as_str());
        if text.len() > max_bytes {
            let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
            let too_large = Diagnostic::error(
                "E004",
                0..0,
                format!(
                    "this file is {:.1} MB, larger than the {:.0} MB a scenario may be",
                    mb(text.len()),
                    mb(max_bytes)
                ),
            )
            .help("split it, or start the server with `crowd lsp --max-input-mb MB`");
            return Document {
                lines: Lines::new(&text, encoding),
                file,
                diagnostics: vec![too_large],
                symbols: Symbols::default(),
                tree: ast::File { items: Vec::new(), broken: Vec::new() },
            };
        }
        let analysis = analyse(&file);
        let diagnostics = match analysis.outcome {
            Ok(compiled) => compiled.warnings,
            Err(diags) => diags,
        };
        Document {
            lines: Lines::new(&text, encoding),
            file,
            diagnostics,
            symbols: analysis.symbols,
            tree: analysis.tree,
        }
    }

    pub fn text(&self) -> &str {
        &self.file.text
    }

    /// The text after the client's changes, each applied to the text the
    /// previous one left (a change without a range replaces everything).
    pub fn changed(&self, changes: Vec<TextDocumentContentChangeEvent>, encoding: Encoding, max_bytes: usize) -> Self {
        let mut text = self.text().to_string();
        for change in changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let span = Lines::new(&text, encoding).span(&text, range);
                    text.replace_range(span, &change.text);
                }
            }
        }
        Document::new(&self.file.name, text, encoding, max_bytes)
    }

    /// The byte span of the name, keyword or number under (or just before)
    /// an offset, if it is not inside a comment.
    pub fn word_at(&self, offset: usize) -> Option<Span> {
        let text = self.text();
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        if in_comment(text, offset) {
            return None;
        }
        let start = word_start(text, offset);
        let end = text[offset..].find(|c: char| !name_char(c)).map_or(text.len(), |i| offset + i);
        (start < end).then_some(start..end)
    }
}

/// Whether a character may stand in a name (or a keyword, or a number's digits).
pub fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Where the run of name characters ending at `offset` starts.
pub fn word_start(text: &str, offset: usize) -> usize {
    // The run starts after the whole of the character before it (`±` is two bytes).
    text[..offset].char_indices().rev().find(|&(_, c)| !name_char(c)).map_or(0, |(i, c)| i + c.len_utf8())
}

/// Whether an offset lies in a `//` or `/* */` comment.
pub fn in_comment(text: &str, offset: usize) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < offset.min(b.len()) {
        if b[i..].starts_with(b"//") {
            match text[i..].find(['\n', '\r']) {
                Some(end) if i + end < offset => i += end,
                _ => return true,
            }
        } else if b[i..].starts_with(b"/*") {
            match text[i + 2..].find("*/") {
                Some(end) if i + 2 + end + 2 <= offset => i += 2 + end + 2,
                _ => return true,
            }
        } else {
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_right_after_a_wide_character_starts_after_all_of_it() {
        let text = "expect { count of guests is 16 ±1 at 45 s }";
        let at = text.find("±1").unwrap() + "±1".len();
        assert_eq!(&text[word_start(text, at)..at], "1");
        assert_eq!(word_start("±", 2), 2);
        assert_eq!(word_start("é_x", 4), 2);
    }
}
