//! What completion offers where the cursor is: units after a number, a
//! model's parameters inside its `parameters` block, and elsewhere the
//! declared names (with the states and vars of the behaviour around the
//! cursor) and the language's words.

use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind};

use super::document::{in_comment, name_char, word_start, Document};
use crate::check::{params, range_text, show, Dim, Kind};
use crate::syntax::ast::{Item, Span};
use crate::syntax::keywords::KEYWORDS;

pub fn complete(doc: &Document, offset: usize) -> Vec<CompletionItem> {
    let text = doc.text();
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) || in_comment(text, offset) {
        return Vec::new();
    }
    let word_start = word_start(text, offset);
    let before = text[..word_start].trim_end_matches([' ', '\t']);
    if before.ends_with(|c: char| c.is_ascii_digit()) && !text[word_start..offset].starts_with(char::is_numeric) {
        return units();
    }
    let (head, name) = enclosing_item(doc, offset);
    if head.as_deref() == Some("parameters") {
        return name.map(|m| parameters(&m)).unwrap_or_default();
    }
    let behaviour = name.filter(|_| matches!(head.as_deref(), Some("behaviour" | "behavior")));
    let names = (doc.symbols.symbols.iter())
        .filter(|s| match s.kind {
            Kind::State | Kind::Var => s.scope.is_some() && s.scope == behaviour,
            _ => true,
        })
        .map(|s| CompletionItem {
            label: s.name.clone(),
            kind: Some(match s.kind {
                Kind::Var => CompletionItemKind::VARIABLE,
                Kind::State => CompletionItemKind::ENUM_MEMBER,
                Kind::Behaviour => CompletionItemKind::FUNCTION,
                Kind::Resource => CompletionItemKind::CONSTANT,
                _ => CompletionItemKind::REFERENCE,
            }),
            detail: Some(s.kind.noun().to_string()),
            ..CompletionItem::default()
        });
    let mut seen = std::collections::BTreeSet::new();
    let names: Vec<CompletionItem> = names.filter(|i| seen.insert(i.label.clone())).collect();
    let keywords = KEYWORDS.iter().map(|k| CompletionItem {
        label: k.word.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        documentation: Some(markdown(k.doc.to_string())),
        ..CompletionItem::default()
    });
    names.into_iter().chain(keywords).collect()
}

/// The first word and the name of the top-level item around an offset,
/// whether it parsed or not (a block being typed seldom does).
fn enclosing_item(doc: &Document, offset: usize) -> (Option<String>, Option<String>) {
    let inside = |s: &Span| s.start < offset && offset <= s.end;
    let parsed = doc.tree.items.iter().find_map(|item| match item {
        Item::Parameters(p) if inside(&p.span) => Some(p.span.clone()),
        Item::Behaviour(b) if inside(&b.span) => Some(b.span.clone()),
        _ => None,
    });
    let Some(span) = parsed.or_else(|| doc.tree.broken.iter().find(|s| inside(s)).cloned()) else {
        return (None, None);
    };
    let mut words = doc.text()[span].split(|c: char| !name_char(c)).filter(|w| !w.is_empty());
    (words.next().map(str::to_string), words.next().map(str::to_string))
}

fn units() -> Vec<CompletionItem> {
    let dims = [Dim::Length, Dim::Time, Dim::Speed, Dim::Angle, Dim::Density, Dim::Rate, Dim::Percent];
    (dims.iter())
        .flat_map(|d| d.units().split(", ").map(move |u| (u, d)))
        .map(|(u, d)| CompletionItem {
            label: u.to_string(),
            kind: Some(CompletionItemKind::UNIT),
            detail: Some(d.describe().to_string()),
            ..CompletionItem::default()
        })
        .collect()
}

fn parameters(model: &str) -> Vec<CompletionItem> {
    (params::of_model(model))
        .map(|p| CompletionItem {
            label: p.name.to_string(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(format!("default {}", show(p.default, p.dim))),
            documentation: Some(markdown(format!("{}\n\nValid: {}.", p.doc, range_text(p.dim, p.min, p.max, false)))),
            ..CompletionItem::default()
        })
        .collect()
}

fn markdown(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value })
}
