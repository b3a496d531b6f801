//! Where every named thing of a file is declared and where it is used, as
//! the checker resolved it: what an editor needs for go to definition, find
//! references and rename, and what a hover says about a name.
//!
//! Gathered during checking, so it holds exactly the checker's resolution
//! (one namespace for declared names; resources, and each behaviour's states
//! and vars, in their own), and it is there for a file with errors too: every
//! item that parsed is resolved.

use super::params::ParamSpec;
use super::Kind;
use crate::syntax::ast::{Name, Span};

/// A declared thing: its name, what it is, the span of its declaring name.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub kind: Kind,
    pub span: Span,
    /// The behaviour a state or var belongs to.
    pub scope: Option<String>,
}

#[derive(Clone, Default)]
pub struct Symbols {
    /// In order of declaration.
    pub symbols: Vec<Symbol>,
    /// Each use of a symbol (its name's span, the symbol's index), a second
    /// declaration of the same name included.
    pub uses: Vec<(Span, usize)>,
    /// Each model parameter named in the file, with its row.
    pub params: Vec<(Span, &'static ParamSpec)>,
}

impl Symbols {
    pub(super) fn declare(&mut self, name: &Name, kind: Kind, scope: Option<&str>) -> usize {
        self.symbols.push(Symbol {
            name: name.text.clone(),
            kind,
            span: name.span.clone(),
            scope: scope.map(str::to_string),
        });
        self.symbols.len() - 1
    }

    pub(super) fn use_at(&mut self, name: &Name, symbol: usize) {
        self.uses.push((name.span.clone(), symbol));
    }

    /// The symbol declared or used at a byte offset (a name's end counts, so
    /// a cursor just after a name finds it).
    pub fn at(&self, offset: usize) -> Option<usize> {
        let hit = |s: &Span| s.start <= offset && offset <= s.end;
        (self.symbols.iter().position(|s| hit(&s.span)))
            .or_else(|| self.uses.iter().find(|(span, _)| hit(span)).map(|(_, i)| *i))
    }

    /// The parameter named at a byte offset.
    pub fn param_at(&self, offset: usize) -> Option<&'static ParamSpec> {
        self.params.iter().find(|(s, _)| s.start <= offset && offset <= s.end).map(|(_, p)| *p)
    }

    /// Every span where a symbol is written: its declaration first, then its
    /// uses in the order of the file.
    pub fn occurrences(&self, symbol: usize) -> Vec<Span> {
        let mut uses: Vec<Span> = (self.uses.iter()).filter(|(_, i)| *i == symbol).map(|(s, _)| s.clone()).collect();
        uses.sort_by_key(|s| s.start);
        uses.dedup();
        let mut all = vec![self.symbols[symbol].span.clone()];
        all.extend(uses);
        all
    }
}
