//! Text → typed AST with spans. The only module that knows pest.
//!
//! To report every syntax error at once, the file is cut into top-level
//! chunks at the braces that close an item, and each chunk is parsed on its
//! own: a mistake in one item does not hide the mistakes in the next.

pub mod ast;
mod build;
mod errors;
pub mod format;
pub mod keywords;

use pest::Parser;

use crate::diag::Diagnostic;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/crowd.pest"]
pub(crate) struct CrowdParser;

/// Brackets (`{` and `(`) may nest this deep. Real scenarios nest a handful of
/// levels; the limit keeps the parser's and checker's recursion bounded.
pub const MAX_NESTING: usize = 256;

/// Syntax errors reported per file before the parser gives up on the rest.
pub const MAX_SYNTAX_ERRORS: usize = 100;

/// Files at least this large have their chunks parsed on several threads.
const PARALLEL_BYTES: usize = 64 * 1024;

/// What became of one chunk.
enum Outcome {
    Parsed(Vec<ast::Item>, Vec<Diagnostic>),
    Failed(Box<pest::error::Error<Rule>>),
    TooDeep(usize),
}

fn parse_chunk(text: &str, chunk: &Chunk) -> Outcome {
    if let Some(at) = chunk.too_deep {
        return Outcome::TooDeep(at);
    }
    match CrowdParser::parse(Rule::file, &text[chunk.range.clone()]) {
        Ok(mut pairs) => {
            let Some(file) = pairs.next() else { return Outcome::Parsed(Vec::new(), Vec::new()) };
            let mut builder = build::Builder::new(chunk.range.start);
            let items = builder.file(file);
            Outcome::Parsed(items, builder.diags)
        }
        Err(e) => Outcome::Failed(Box::new(e)),
    }
}

/// Parses a whole file. Returns the items that parsed, and a diagnostic for
/// every chunk that did not.
pub fn parse(text: &str) -> (ast::File, Vec<Diagnostic>) {
    // A byte-order mark some editors write first is blank: read as three
    // spaces, its three bytes, so every span still points into the file.
    let unmarked;
    let text = match text.strip_prefix('\u{FEFF}') {
        Some(rest) => {
            unmarked = format!("   {rest}");
            unmarked.as_str()
        }
        None => text,
    };
    let chunks = chunks(text);
    // Chunks are independent: a large file parses them in parallel, in order.
    let outcomes: Vec<Outcome> = if text.len() >= PARALLEL_BYTES && chunks.len() > 1 {
        use rayon::prelude::*;
        chunks.par_iter().map(|c| parse_chunk(text, c)).collect()
    } else {
        chunks.iter().map(|c| parse_chunk(text, c)).collect()
    };
    let mut items = Vec::new();
    let mut broken = Vec::new();
    let mut diags = Vec::new();
    let mut failed = 0;
    for (chunk, outcome) in chunks.into_iter().zip(outcomes) {
        let range = chunk.range;
        if failed >= MAX_SYNTAX_ERRORS {
            diags.push(
                Diagnostic::error(
                    "E001",
                    range.start..range.start,
                    format!("too many syntax errors: stopped after {failed}"),
                )
                .label("the rest of the file is not read")
                .help("fix the errors above, then check again"),
            );
            broken.push(range.start..text.len());
            break;
        }
        match outcome {
            Outcome::Parsed(parsed, more) => {
                items.extend(parsed);
                diags.extend(more);
            }
            Outcome::TooDeep(at) => {
                diags.push(
                    Diagnostic::error("E003", at..at + 1, format!("brackets nest more than {MAX_NESTING} levels deep"))
                        .label("too deep")
                        .help("close each `{` with `}` and each `(` with `)`; scenarios nest a few levels at most"),
                );
                broken.push(range);
                failed += 1;
            }
            Outcome::Failed(e) => {
                diags.push(errors::to_diagnostic(&e, &text[range.clone()], range.start, chunk.unclosed));
                broken.push(range);
                failed += 1;
            }
        }
    }
    (ast::File { items, broken }, diags)
}

/// A top-level piece of the file, parsed on its own.
struct Chunk {
    range: std::ops::Range<usize>,
    /// Offset of the first bracket nested deeper than [`MAX_NESTING`].
    too_deep: Option<usize>,
    /// Offset of the outermost `{` still open at the end of the chunk.
    unclosed: Option<usize>,
}

/// The top-level chunks: each ends just after a `}` that brings the brace
/// depth back to zero; the rest of the file is the last one.
fn chunks(text: &str) -> Vec<Chunk> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0usize, 0usize);
    // Offsets of the open `{`, and the number of open `(`.
    let mut open: Vec<usize> = Vec::new();
    let mut parens = 0usize;
    let mut too_deep = None;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'{' | b'(' => {
                if bytes[i] == b'{' {
                    open.push(i);
                } else {
                    parens += 1;
                }
                if too_deep.is_none() && open.len() + parens > MAX_NESTING {
                    too_deep = Some(i);
                }
            }
            b')' => parens = parens.saturating_sub(1),
            b'}' => {
                open.pop();
                if open.is_empty() {
                    out.push(Chunk { range: start..i + 1, too_deep: too_deep.take(), unclosed: None });
                    parens = 0;
                    start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let rest = start.min(text.len())..text.len();
    if out.is_empty() || too_deep.is_some() || !is_blank(&text[rest.clone()]) {
        out.push(Chunk { range: rest, too_deep, unclosed: open.first().copied() });
    }
    out
}

/// Whether a piece of text holds only white space and comments.
fn is_blank(text: &str) -> bool {
    CrowdParser::parse(Rule::file, text).is_ok_and(|mut p| p.next().is_some_and(|f| f.into_inner().len() == 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_at_closing_braces_and_skip_comments() {
        let text = "a { b { } } // }\nc { }\n";
        let parts: Vec<&str> = chunks(text).into_iter().map(|c| &text[c.range]).collect();
        assert_eq!(parts, vec!["a { b { } }", " // }\nc { }"]);
    }

    #[test]
    fn two_broken_items_give_two_errors() {
        let (_, diags) = parse("scenario a { seed x }\nworld { bounds }\n");
        assert_eq!(diags.len(), 2, "{diags:#?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let deep = format!("world {}", "{".repeat(100_000));
        let (file, diags) = parse(&deep);
        assert!(file.items.is_empty());
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E003"], "{diags:#?}");
        assert_eq!(diags[0].span.start, 6 + MAX_NESTING);

        let parens = "(".repeat(5_000_000);
        let (_, diags) = parse(&parens);
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E003"]);
    }

    #[test]
    fn nesting_within_the_limit_is_parsed() {
        let depth = MAX_NESTING - 1;
        let mut text = String::new();
        for i in 0..depth {
            text.push_str(&format!("space s{i} rect (0 m, 0 m) to (100 m, 100 m) {{\n"));
        }
        text.push_str(&"}".repeat(depth));
        text.push('\n');
        let (file, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(file.items.len(), 1);
    }

    #[test]
    fn syntax_errors_stop_after_the_limit() {
        let text = "}\n".repeat(10_000);
        let (file, diags) = parse(&text);
        assert_eq!(diags.len(), MAX_SYNTAX_ERRORS + 1);
        assert!(diags.last().unwrap().message.starts_with("too many syntax errors"));
        assert_eq!(file.broken.last().unwrap().end, text.len());
    }
}
