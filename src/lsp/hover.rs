//! What hovering over a word shows: a declared name's kind, declaration and
//! uses; a model parameter's meaning, unit, default, valid range and source;
//! a keyword's meaning and where the language reference describes it.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

use super::document::Document;
use crate::check::{range_text, show, ParamSpec, Symbol};
use crate::ir::params::MODELS;
use crate::syntax::keywords::keyword;

pub fn hover(doc: &Document, offset: usize) -> Option<Hover> {
    let word = doc.word_at(offset)?;
    let text = doc.text();
    let markdown = if let Some(s) = doc.symbols.at(offset) {
        name(doc, &doc.symbols.symbols[s], doc.symbols.occurrences(s).len() - 1)
    } else if let Some(p) = doc.symbols.param_at(offset) {
        param(p)
    } else if let Some(m) = MODELS.iter().find(|(m, _)| *m == &text[word.clone()]) {
        model(m.0, m.1)
    } else {
        let k = keyword(&text[word.clone()])?;
        format!("**`{}`** — keyword\n\n{}\n\n*Language reference:* {}", k.word, k.doc, k.section)
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }),
        range: Some(doc.lines.range(text, &word)),
    })
}

fn name(doc: &Document, s: &Symbol, uses: usize) -> String {
    let text = doc.text();
    let (line, _) = doc.file.line_col(s.span.start);
    let start = text[..s.span.start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let end = text[s.span.end..].find(['\n', '\r']).map_or(text.len(), |i| s.span.end + i);
    let declaration: String = text[start..end].trim().chars().take(160).collect();
    let of = s.scope.as_ref().map(|b| format!(" of behaviour `{b}`")).unwrap_or_default();
    let times = if uses == 1 { "once".to_string() } else { format!("{uses} times") };
    format!(
        "**{}** `{}`{of}\n\n```crowd\n{declaration}\n```\n\nDeclared on line {line}; used {times}.",
        s.kind.noun(),
        s.name
    )
}

/// Eq numbers and symbols of the paper are in the parameter's doc.
fn param(p: &ParamSpec) -> String {
    let source = MODELS.iter().find(|(m, _)| *m == p.model).map_or("", |(_, s)| s);
    let unit = p.dim.units().split(", ").next().unwrap_or("");
    format!(
        "**`{}`** — parameter of `{}`\n\n{}\n\n- unit: {} ({})\n- default: {}\n- valid: {}\n\n*Source:* {source}",
        p.name,
        p.model,
        p.doc,
        unit,
        p.dim.describe(),
        show(p.default, p.dim),
        range_text(p.dim, p.min, p.max, false),
    )
}

fn model(name: &str, source: &str) -> String {
    let params: Vec<String> = crate::check::params::of_model(name).map(|p| format!("`{}`", p.name)).collect();
    format!("**`{name}`** — model\n\n{source}\n\nParameters: {}", params.join(", "))
}
