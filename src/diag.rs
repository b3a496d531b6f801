//! Diagnostics about a `.crowd` file: data first, rendering second.
//!
//! Every diagnostic carries a stable code, a severity, the exact byte span, a
//! label saying what is wrong there, and a help line saying how to fix it.
//! Rendering goes through miette (human) or [`Diagnostic::to_json`] (editors, CI).

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan,
    SpanContents,
};

/// A source file: its display name and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Where lines start, computed on first use, so that placing many
    /// diagnostics in a large file does not rescan it for each one.
    lines: Arc<OnceLock<LineIndex>>,
}

#[derive(Debug)]
struct LineIndex {
    /// Offsets just after each `\n` (and 0): lines as `line_col` counts them.
    newline: Vec<usize>,
    /// Offsets of line starts as miette counts them (after `\n`, `\r\n` or a lone `\r`).
    miette: Arc<[usize]>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let b = text.as_bytes();
        let mut newline = vec![0];
        let mut miette = vec![0];
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\r' if b.get(i + 1) == Some(&b'\n') => {
                    i += 1;
                    newline.push(i + 1);
                    miette.push(i + 1);
                }
                b'\r' => miette.push(i + 1),
                b'\n' => {
                    newline.push(i + 1);
                    miette.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex { newline, miette: miette.into() }
    }
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        SourceFile { name: name.into(), text: text.into(), lines: Arc::default() }
    }

    fn index(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let starts = &self.index().newline;
        let line = starts.partition_point(|&s| s <= offset).max(1);
        let col = self.text[starts[line - 1]..offset].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem in a `.crowd` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Range<usize>,
    pub label: String,
    pub help: String,
    /// Secondary places, e.g. "first declared here".
    pub related: Vec<(Range<usize>, String)>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            help: String::new(),
            related: Vec::new(),
        }
    }

    pub fn warning(code: &'static str, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, span, message) }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = help.into();
        self
    }

    pub fn related(mut self, span: Range<usize>, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One JSON object on one line: file, code, severity, message, byte span,
    /// line/column (1-based) of the span's start and end, label, help.
    pub fn to_json(&self, file: &SourceFile) -> String {
        let (line, column) = file.line_col(self.span.start);
        let (end_line, end_column) = file.line_col(self.span.end);
        serde_json::json!({
            "file": file.name,
            "code": self.code,
            "severity": self.severity.as_str(),
            "message": self.message,
            "span": { "start": self.span.start, "end": self.span.end },
            "line": line,
            "column": column,
            "end_line": end_line,
            "end_column": end_column,
            "label": self.label,
            "help": self.help,
        })
        .to_string()
    }

    /// Renders with miette. `plain` gives the uncoloured, fixed-width (80) form
    /// used in snapshots and when stderr is not a terminal.
    pub fn render(&self, file: &SourceFile, plain: bool) -> String {
        let src = Indexed { name: file.name.clone(), text: file.text.clone(), lines: file.index().miette.clone() };
        let report = match self.far_right(file) {
            None => Report { diag: self.clone(), src, snippet: true },
            Some(places) => {
                let mut diag = self.clone();
                diag.message = format!("{} ({places}; the line is too long to show)", self.message);
                Report { diag, src, snippet: false }
            }
        };
        let handler = if plain {
            GraphicalReportHandler::new_themed(GraphicalTheme::none()).with_width(80).with_links(false)
        } else {
            GraphicalReportHandler::new().with_width(100)
        };
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = handler.render_report(&mut out, &report);
        out
    }
}

impl Diagnostic {
    /// Where the diagnostic points, in words, when one of its spans lies
    /// further right than a snippet can be drawn (miette pads to the column,
    /// and a formatting width stops at 65,535); `None` when all fit.
    fn far_right(&self, file: &SourceFile) -> Option<String> {
        let spans = std::iter::once((&self.span, &self.label)).chain(self.related.iter().map(|(s, l)| (s, l)));
        let far = spans.clone().any(|(s, _)| file.line_col(s.start).1.max(file.line_col(s.end).1) > SNIPPET_COLUMNS);
        far.then(|| {
            let place = |(s, l): (&Range<usize>, &String)| {
                let (line, column) = file.line_col(s.start);
                if l.is_empty() {
                    format!("line {line}, column {column}")
                } else {
                    format!("line {line}, column {column}: {l}")
                }
            };
            spans.map(place).collect::<Vec<_>>().join("; ")
        })
    }
}

/// The furthest column a snippet is drawn for.
const SNIPPET_COLUMNS: usize = 10_000;

/// The most diagnostics drawn for one file; the rest are counted. Nobody reads
/// past the first few hundred, and a generated file can hold a million.
pub const SHOWN_DIAGNOSTICS: usize = 200;

/// Renders a list of diagnostics (the first [`SHOWN_DIAGNOSTICS`]), then a summary line.
pub fn render_all(diags: &[Diagnostic], file: &SourceFile, plain: bool) -> String {
    let mut out: String = diags.iter().take(SHOWN_DIAGNOSTICS).map(|d| d.render(file, plain)).collect();
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    if diags.len() > SHOWN_DIAGNOSTICS {
        out.push_str(&format!(
            "... and {} more diagnostic(s) not shown (`crowd check --format json` lists every one)\n",
            diags.len() - SHOWN_DIAGNOSTICS
        ));
    }
    if !diags.is_empty() {
        out.push_str(&format!(
            "{}: {} error{}, {} warning{}\n",
            file.name,
            errors,
            if errors == 1 { "" } else { "s" },
            warnings,
            if warnings == 1 { "" } else { "s" }
        ));
    }
    out
}

struct Report {
    diag: Diagnostic,
    src: Indexed,
    /// Draw the source snippet (off when a span is too far right to draw).
    snippet: bool,
}

/// The source as miette reads it. miette finds a snippet's lines by scanning
/// from the start of the text; with an index of line starts it scans from a
/// few lines before the snippet instead, with the same result.
struct Indexed {
    name: String,
    text: Arc<str>,
    lines: Arc<[usize]>,
}

impl SourceCode for Indexed {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // The window starts at the first context line; miette's scan of it gives
        // the snippet relative to the window, shifted back below.
        let line = self.lines.partition_point(|&s| s <= span.offset()).saturating_sub(1);
        let first = line.saturating_sub(before);
        let start = self.lines.get(first).copied().unwrap_or(0).min(self.text.len());
        let window = &self.text.as_bytes()[start..];
        let shifted = SourceSpan::new(span.offset().saturating_sub(start).into(), span.len());
        let inner = window.read_span(&shifted, before, after)?;
        let at = inner.span();
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((at.offset() + start).into(), at.len()),
            inner.line() + first,
            inner.column(),
            inner.line_count() + first,
        )))
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.diag, f)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.diag.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Warning => miette::Severity::Warning,
            Severity::Error => miette::Severity::Error,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.diag.help.is_empty()).then(|| Box::new(&self.diag.help) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.snippet.then_some(&self.src as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.snippet {
            return None;
        }
        let primary = LabeledSpan::new_primary_with_span(
            (!self.diag.label.is_empty()).then(|| self.diag.label.clone()),
            self.diag.span.clone(),
        );
        let related =
            self.diag.related.iter().map(|(span, label)| LabeledSpan::new_with_span(Some(label.clone()), span.clone()));
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// Edit distance, for "did you mean".
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a likely typo.
/// Ties go to the candidate first in alphabetical order.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let a: Vec<char> = name.chars().collect();
    let limit = (a.len() / 3).max(1) + 1;
    let mut row = vec![0; a.len() + 1];
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // The distance is at least the difference in length: skip the hopeless ones cheaply.
        if c.chars().count().abs_diff(a.len()) > limit {
            continue;
        }
        let Some(d) = distance_within(&a, c, limit, &mut row) else { continue };
        let better = match best {
            Some(b) => (d, c) < b,
            None => true,
        };
        if better {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance from `a` to `b` if it is at most `limit`; gives up as soon
/// as every entry of a row exceeds the limit. `row` is scratch space of `a.len() + 1`.
fn distance_within(a: &[char], b: &str, limit: usize, row: &mut [usize]) -> Option<usize> {
    for (j, r) in row.iter_mut().enumerate() {
        *r = j;
    }
    for (i, cb) in b.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        let mut least = row[0];
        for (j, ca) in a.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(*ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
            least = least.min(row[j + 1]);
        }
        if least > limit {
            return None;
        }
    }
    let d = row[a.len()];
    (d <= limit).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What miette renders when it scans the whole text itself.
    fn render_unindexed(d: &Diagnostic, file: &SourceFile) -> String {
        struct Plain {
            diag: Diagnostic,
            src: miette::NamedSource<Arc<str>>,
        }
        impl fmt::Debug for Plain {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.diag, f)
            }
        }
        impl fmt::Display for Plain {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.diag.message)
            }
        }
        impl std::error::Error for Plain {}
        impl miette::Diagnostic for Plain {
            fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
                Some(Box::new(self.diag.code))
            }
            fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
                Some(Box::new(&self.diag.help))
            }
            fn source_code(&self) -> Option<&dyn SourceCode> {
                Some(&self.src)
            }
            fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
                let report = Report {
                    diag: self.diag.clone(),
                    src: Indexed { name: String::new(), text: Arc::from(""), lines: Arc::from(vec![0]) },
                    snippet: true,
                };
                let labels: Vec<LabeledSpan> = miette::Diagnostic::labels(&report)?.collect();
                Some(Box::new(labels.into_iter()))
            }
        }
        let plain = Plain { diag: d.clone(), src: miette::NamedSource::new(&file.name, file.text.clone()) };
        let mut out = String::new();
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::none()).with_width(80).with_links(false);
        let _ = handler.render_report(&mut out, &plain);
        out
    }

    #[test]
    fn indexed_snippets_match_a_full_scan() {
        let texts = [
            "a\nbb\nccc\ndddd\neeeee\nffffff\nggggggg\n",
            "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\n",
            "old\rmac\rline\rends\rhere\r",
            "café 日本\n°m²\n\n\n x y z\nlast line without a newline",
            "",
        ];
        for text in texts {
            let file = SourceFile::new("t.crowd", text);
            let mut offsets: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            offsets.push(text.len());
            for &start in &offsets {
                for &end in offsets.iter().filter(|&&e| e >= start).take(6) {
                    let mut d = Diagnostic::error("E000", start..end, "m").label("here").help("h");
                    if start > 2 && text.is_char_boundary(1) {
                        d = d.related(0..1, "first");
                    }
                    assert_eq!(d.render(&file, true), render_unindexed(&d, &file), "{text:?} at {start}..{end}");
                }
            }
        }
    }

    #[test]
    fn suggestions_are_the_closest_near_miss() {
        let names = ["entrance", "exit", "entrance_hall", "plaza", "entrance2"];
        assert_eq!(did_you_mean("entrence", names), Some("entrance"));
        assert_eq!(did_you_mean("extt", names), Some("exit"));
        assert_eq!(did_you_mean("garden", names), None);
        assert_eq!(did_you_mean("", names), None);
        // Agrees with the plain distance.
        for a in ["walker", "go", "wal", "kitchen", "é"] {
            for b in ["walk", "walker2", "g", "kitchen", "chicken", "e", ""] {
                let plain = levenshtein(a, b);
                let limit = (a.chars().count() / 3).max(1) + 1;
                let expected = (plain <= limit).then_some(b);
                assert_eq!(did_you_mean(a, [b]), expected, "{a} / {b}");
            }
        }
    }

    #[test]
    fn line_and_column_count_characters() {
        let file = SourceFile::new("t", "ab\r\ncé x\n\nz");
        assert_eq!(file.line_col(0), (1, 1));
        assert_eq!(file.line_col(4), (2, 1));
        assert_eq!(file.line_col(8), (2, 4));
        assert_eq!(file.line_col(7), (2, 3), "inside `é`: the character's column");
        assert_eq!(file.line_col(11), (4, 1));
        assert_eq!(file.line_col(99), (4, 2));
    }
}
