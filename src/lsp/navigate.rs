//! Going from a name to its declaration and its uses, and renaming it
//! everywhere it is written.

use lsp_types::{DocumentSymbol, Location, Range, SymbolKind, TextEdit, Uri};

use super::document::{name_char, Document};
use crate::check::Kind;
use crate::syntax::keywords::keyword;

pub fn definition(doc: &Document, uri: &Uri, offset: usize) -> Option<Location> {
    let s = doc.symbols.at(offset)?;
    Some(Location::new(uri.clone(), doc.lines.range(doc.text(), &doc.symbols.symbols[s].span)))
}

pub fn references(doc: &Document, uri: &Uri, offset: usize, with_declaration: bool) -> Vec<Location> {
    let Some(s) = doc.symbols.at(offset) else { return Vec::new() };
    let all = doc.symbols.occurrences(s);
    let skip = usize::from(!with_declaration);
    all[skip..].iter().map(|span| Location::new(uri.clone(), doc.lines.range(doc.text(), span))).collect()
}

/// The name that would be renamed, and its text.
pub fn prepare_rename(doc: &Document, offset: usize) -> Option<(Range, String)> {
    let s = doc.symbols.at(offset)?;
    let span = doc.symbols.occurrences(s).into_iter().find(|sp| sp.start <= offset && offset <= sp.end)?;
    Some((doc.lines.range(doc.text(), &span), doc.symbols.symbols[s].name.clone()))
}

/// The edits renaming the name at an offset, or why it cannot be renamed so.
pub fn rename(doc: &Document, offset: usize, new_name: &str) -> Result<Vec<TextEdit>, String> {
    let s = doc.symbols.at(offset).ok_or("no declared name here: only declared names can be renamed")?;
    let symbol = &doc.symbols.symbols[s];
    let ident = new_name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && new_name.chars().all(name_char);
    if !ident {
        return Err(format!("`{new_name}` is not a name: a letter or `_`, then letters, digits or `_`"));
    }
    if keyword(new_name).is_some() {
        return Err(format!("`{new_name}` is a keyword of the language"));
    }
    // The namespace the symbol lives in: one for declared names, one for
    // resources, and each behaviour's own states and vars.
    let same_space = |other: &crate::check::Symbol| match symbol.kind {
        Kind::Resource | Kind::State | Kind::Var => other.kind == symbol.kind && other.scope == symbol.scope,
        _ => !matches!(other.kind, Kind::Resource | Kind::State | Kind::Var),
    };
    if let Some(taken) = doc.symbols.symbols.iter().find(|o| o.name == new_name && same_space(o)) {
        let (line, _) = doc.file.line_col(taken.span.start);
        return Err(format!("`{new_name}` is already {} (line {line})", taken.kind.article()));
    }
    // A var's output column shows every var of that name: renaming one
    // would take the others' values out of the trace or this one's.
    let shared = |span: &crate::syntax::ast::Span| doc.symbols.uses.iter().any(|(u, o)| u == span && *o != s);
    if let Some(span) = doc.symbols.occurrences(s).iter().find(|sp| shared(sp)) {
        let (line, _) = doc.file.line_col(span.start);
        return Err(format!(
            "`{}` on line {line} also names another declaration of that name: rename them together by hand",
            symbol.name
        ));
    }
    let text = doc.text();
    Ok((doc.symbols.occurrences(s).iter())
        .map(|span| TextEdit::new(doc.lines.range(text, span), new_name.to_string()))
        .collect())
}

/// The file's declared names, for an editor's outline.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written.
pub fn outline(doc: &Document) -> Vec<DocumentSymbol> {
    let text = doc.text();
    (doc.symbols.symbols.iter())
        .map(|s| {
            let range = doc.lines.range(text, &s.span);
            DocumentSymbol {
                name: s.name.clone(),
                detail: Some(match &s.scope {
                    Some(b) => format!("{} of {b}", s.kind.noun()),
                    None => s.kind.noun().to_string(),
                }),
                kind: symbol_kind(s.kind),
                tags: None,
                deprecated: None,
                range,
                selection_range: range,
                children: None,
            }
        })
        .collect()
}

fn symbol_kind(kind: Kind) -> SymbolKind {
    match kind {
        Kind::Region | Kind::Obstacle | Kind::Shape | Kind::Mask | Kind::Space => SymbolKind::STRUCT,
        Kind::Object | Kind::Door => SymbolKind::OBJECT,
        Kind::Population | Kind::Agent | Kind::Group => SymbolKind::CLASS,
        Kind::Behaviour => SymbolKind::FUNCTION,
        Kind::Resource => SymbolKind::CONSTANT,
        Kind::State => SymbolKind::ENUM_MEMBER,
        Kind::Var => SymbolKind::VARIABLE,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::lsp::position::Encoding;
    use crate::test_files::crowd_files;

    fn apply(doc: &Document, edits: &[TextEdit]) -> String {
        let mut text = doc.text().to_string();
        let mut spans: Vec<(crate::syntax::ast::Span, &str)> =
            edits.iter().map(|e| (doc.lines.span(doc.text(), e.range), e.new_text.as_str())).collect();
        spans.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
        for (span, new) in spans {
            text.replace_range(span, new);
        }
        text
    }

    /// Every name of every shipped scenario and valid fixture, renamed: the
    /// file still checks, to the same program but for the name. A use the
    /// checker resolves but the symbols miss would break the file.
    #[test]
    fn renaming_any_name_changes_nothing_but_the_name() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = crowd_files(&root.join("scenarios"));
        files.extend(crowd_files(&root.join("tests/fixtures/ok")));
        let (mut renamed, mut refused) = (0, 0);
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = Document::new(&path.display().to_string(), text, Encoding::Utf16, usize::MAX);
            let Ok(before) = crate::compile(&doc.file) else { continue };
            let before = crate::ir::to_text(&before.program);
            for (i, symbol) in doc.symbols.symbols.iter().enumerate() {
                let fresh = format!("qq{i}qq");
                let edits = match rename(&doc, symbol.span.start, &fresh) {
                    Ok(edits) => edits,
                    Err(why) if why.contains("also names another declaration") => {
                        refused += 1;
                        continue;
                    }
                    Err(why) => panic!("{}: `{}`: {why}", path.display(), symbol.name),
                };
                let after = crate::SourceFile::new("renamed", apply(&doc, &edits));
                let program = crate::compile(&after)
                    .unwrap_or_else(|d| panic!("{}: renaming `{}` broke the file: {d:?}", path.display(), symbol.name));
                let after = crate::ir::to_text(&program.program).replace(&fresh, &symbol.name);
                assert_eq!(after, before, "{}: renaming `{}`", path.display(), symbol.name);
                renamed += 1;
            }
        }
        println!("{renamed} names renamed; {refused} refused as var columns shared with another behaviour");
        assert!(renamed > 500, "{renamed} renamed, {refused} refused");
    }

    #[test]
    fn a_rename_that_would_clash_or_is_no_name_is_refused() {
        let text = "world { bounds (0 m, 0 m) to (9 m, 9 m)\n region a rect (0 m, 0 m) to (1 m, 1 m)\n \
                    region b rect (2 m, 2 m) to (3 m, 3 m) }";
        let doc = Document::new("t.crowd", text.into(), Encoding::Utf8, usize::MAX);
        let a = text.find("a rect").unwrap();
        assert!(rename(&doc, a, "b").unwrap_err().contains("already a region"));
        assert!(rename(&doc, a, "region").unwrap_err().contains("keyword"));
        assert!(rename(&doc, a, "9lives").unwrap_err().contains("not a name"));
        assert!(rename(&doc, text.find("bounds").unwrap(), "x").is_err());
        assert_eq!(rename(&doc, a, "plaza").unwrap().len(), 1);
    }
}
