//! The layering of the source tree, read from the files themselves: which
//! module names which (its `use` declarations and the paths in its code).
//!
//! - no module under `src/sim/` names a module that names it back, however
//!   many steps around;
//! - the ground floor (`world/`, `plan/`, `steer/`, `behave/`, `trace/`,
//!   `ir/`, random streams, hashes, math) never names `sim`;
//! - the executor's core names no model: models are reached through the
//!   registry (`sim/models/mod.rs`), which lists every model folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::visit::Visit;

/// A module path below the crate root: `["sim", "models"]`.
type Module = Vec<String>;

struct Tree {
    /// Every file module, and the file it is in.
    files: BTreeMap<Module, PathBuf>,
}

impl Tree {
    fn read() -> Tree {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = BTreeMap::new();
        let mut stack = vec![src.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let rel = path.strip_prefix(&src).expect("under src/").with_extension("");
                    let mut module: Module = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
                    if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                        module.pop();
                    }
                    files.insert(module, path);
                }
            }
        }
        Tree { files }
    }

    /// The source of `module`'s file, parsed.
    fn parse(&self, module: &Module) -> syn::File {
        let text = std::fs::read_to_string(&self.files[module]).expect("a source file");
        syn::parse_file(&text).unwrap_or_else(|e| panic!("{} parses: {e}", self.files[module].display()))
    }

    /// The modules that `module`'s file names, other than itself.
    fn names(&self, module: &Module) -> BTreeSet<Module> {
        let mut found = Found::default();
        found.visit_file(&self.parse(module));
        found.paths.iter().filter_map(|path| self.resolve(module, path)).filter(|m| m != module).collect()
    }

    /// The deepest file module a path from `module` reaches, if it starts
    /// at the crate root, a parent, itself or one of its child modules.
    fn resolve(&self, module: &Module, path: &[String]) -> Option<Module> {
        let mut at: Module;
        let mut rest = path;
        match path.first()?.as_str() {
            "crate" => {
                at = Vec::new();
                rest = &path[1..];
            }
            "self" => {
                at = module.clone();
                rest = &path[1..];
            }
            "super" => {
                at = module.clone();
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop()?;
                    rest = &rest[1..];
                }
            }
            first => {
                let mut child = module.clone();
                child.push(first.to_string());
                if !self.files.contains_key(&child) {
                    return None;
                }
                at = module.clone();
            }
        }
        for seg in rest {
            let mut next = at.clone();
            next.push(seg.clone());
            if self.files.contains_key(&next) {
                at = next;
            } else {
                break;
            }
        }
        Some(at)
    }
}

/// What a file's code names: every path of two or more segments (with
/// `use` trees expanded) and every identifier. Its unit tests (`#[cfg(test)]`
/// modules, whose `super` is the file's own module) are left out.
#[derive(Default)]
struct Found {
    paths: Vec<Vec<String>>,
    idents: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Found {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let tests =
            m.attrs.iter().any(|a| a.path().is_ident("cfg") && a.to_token_stream().to_string().contains("test"));
        if !tests {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        use_tree(&u.tree, &mut Vec::new(), &mut self.paths);
        syn::visit::visit_item_use(self, u);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 {
            self.paths.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.idents.insert(i.to_string());
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.scan(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

impl Found {
    /// The identifiers and paths in a macro's tokens, which `syn` leaves unparsed.
    fn scan(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Spacing, TokenTree};
        let mut path: Vec<String> = Vec::new();
        // A `::` is a `:` joined to the next `:`; after it the path goes on.
        let (mut half, mut sep) = (false, false);
        for t in tokens {
            match t {
                TokenTree::Ident(i) => {
                    self.idents.insert(i.to_string());
                    if !sep {
                        self.flush(&mut path);
                    }
                    path.push(i.to_string());
                    sep = false;
                }
                TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Joint => half = true,
                TokenTree::Punct(p) if p.as_char() == ':' && half => {
                    (half, sep) = (false, true);
                }
                TokenTree::Group(g) => {
                    self.flush(&mut path);
                    self.scan(g.stream());
                    (half, sep) = (false, false);
                }
                _ => {
                    self.flush(&mut path);
                    (half, sep) = (false, false);
                }
            }
        }
        self.flush(&mut path);
    }

    fn flush(&mut self, path: &mut Vec<String>) {
        if path.len() > 1 {
            self.paths.push(std::mem::take(path));
        }
        path.clear();
    }
}

/// Expands a `use` tree (`a::b::{c, d::e}`) into its paths.
fn use_tree(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => out.push([prefix.as_slice(), &[n.ident.to_string()]].concat()),
        syn::UseTree::Rename(r) => out.push([prefix.as_slice(), &[r.ident.to_string()]].concat()),
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_tree(t, prefix, out)),
    }
}

fn module(path: &str) -> Module {
    path.split("::").map(String::from).collect()
}

fn under(m: &Module, prefix: &Module) -> bool {
    m.starts_with(prefix)
}

/// A cycle among `nodes`, if their edges have one.
fn find_cycle(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        m: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for n in edges.get(m).into_iter().flatten() {
            match state.get(n) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == n).unwrap_or(0);
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(n.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(n, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if !state.contains_key(m) {
            if let Some(c) = visit(m, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn show(cycle: &[Module]) -> String {
    cycle.iter().map(|m| m.join("::")).collect::<Vec<_>>().join(" -> ")
}

#[test]
fn no_module_under_sim_names_a_module_that_names_it_back() {
    let tree = Tree::read();
    let sim = module("sim");
    let edges: BTreeMap<Module, BTreeSet<Module>> = tree
        .files
        .keys()
        .filter(|m| under(m, &sim))
        .map(|m| (m.clone(), tree.names(m).into_iter().filter(|n| under(n, &sim)).collect()))
        .collect();
    assert!(edges.len() > 10, "the sim modules were found: {:?}", edges.keys().collect::<Vec<_>>());
    if let Some(cycle) = find_cycle(&edges) {
        panic!("modules under src/sim/ name each other in a circle: {}", show(&cycle));
    }
}

#[test]
fn the_ground_floor_never_names_sim() {
    let tree = Tree::read();
    let floor = ["world", "plan", "steer", "behave", "trace", "ir", "rng", "hash", "math"].map(module);
    let sim = module("sim");
    for m in tree.files.keys().filter(|m| floor.iter().any(|f| under(m, f))) {
        let up: Vec<String> = tree.names(m).iter().filter(|n| under(n, &sim)).map(|n| n.join("::")).collect();
        assert!(up.is_empty(), "{} names {}", m.join("::"), up.join(", "));
    }
}

#[test]
fn the_core_names_no_model_and_the_registry_lists_every_model() {
    let tree = Tree::read();
    let models = module("sim::models");
    let folders: BTreeSet<String> = tree
        .files
        .keys()
        .filter(|m| m.len() == 3 && under(m, &models) && !["needs", "in_force"].contains(&m[2].as_str()))
        .map(|m| m[2].clone())
        .collect();
    assert!(folders.len() >= 3, "the models were found: {folders:?}");
    let camel = |s: &str| -> String { s.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect() };
    let core =
        ["sim", "sim::agents", "sim::aims", "sim::decide", "sim::motion", "sim::scene", "sim::spawn", "sim::stage"];
    for c in core {
        let mut found = Found::default();
        found.visit_file(&tree.parse(&module(c)));
        let idents = found.idents;
        for f in &folders {
            for name in [f.clone(), camel(f)] {
                assert!(!idents.contains(&name), "the core file of {c} names the model {name}");
            }
        }
    }
    // The registry's list is the invocation of `models!`: the model folders its entries name.
    let mut listed = Found::default();
    for item in &tree.parse(&models).items {
        if let syn::Item::Macro(m) = item {
            if m.mac.path.is_ident("models") {
                listed.scan(m.mac.tokens.clone());
            }
        }
    }
    let listed = listed.idents;
    for f in &folders {
        assert!(listed.contains(f), "the registry's `models!` list lacks the model folder {f}");
    }
}
