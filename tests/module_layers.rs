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

    /// The modules that `module`'s file names, other than itself.
    fn names(&self, module: &Module) -> BTreeSet<Module> {
        let code = code_of(&std::fs::read_to_string(&self.files[module]).expect("a source file"));
        let mut out = BTreeSet::new();
        for path in paths(&code) {
            if let Some(m) = self.resolve(module, &path) {
                if &m != module {
                    out.insert(m);
                }
            }
        }
        out
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

/// The source without comments, string literals and its unit tests (an
/// inline `mod tests` at the end, whose `super` is the file's own module).
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every path of two or more segments in `code`, with `use` trees expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let end = tokens[i..].iter().position(|t| t == ";").map_or(tokens.len(), |k| i + k);
            use_tree(&tokens[i + 1..end], &[], &mut out);
            i = end + 1;
            continue;
        }
        let starts = is_ident(&tokens[i]) && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let mut path = vec![tokens[i].clone()];
            let mut k = i + 1;
            while k + 1 < tokens.len() && tokens[k] == "::" && is_ident(&tokens[k + 1]) {
                path.push(tokens[k + 1].clone());
                k += 2;
            }
            if path.len() > 1 {
                out.push(path);
            }
        }
        i += 1;
    }
    out
}

/// Expands a `use` tree (`a::b::{c, d::e}`) into its paths.
fn use_tree(tokens: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut k = 0;
    while k < tokens.len() {
        match tokens[k].as_str() {
            "::" => k += 1,
            "{" => {
                let mut depth = 0;
                let mut start = k + 1;
                for j in k..tokens.len() {
                    match tokens[j].as_str() {
                        "{" => depth += 1,
                        "}" | "," if depth == 1 => {
                            use_tree(&tokens[start..j], &path, out);
                            start = j + 1;
                            if tokens[j] == "}" {
                                depth -= 1;
                            }
                        }
                        "}" => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                }
                return;
            }
            "as" => break,
            t if is_ident(t) => {
                path.push(t.to_string());
                k += 1;
            }
            _ => k += 1,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(code[i..end].to_string());
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            out.push("::".into());
        } else if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    out
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
        .filter(|m| m.len() == 3 && under(m, &models) && m[2] != "needs")
        .map(|m| m[2].clone())
        .collect();
    assert!(folders.len() >= 3, "the models were found: {folders:?}");
    let camel = |s: &str| -> String { s.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect() };
    let core =
        ["sim", "sim::agents", "sim::aims", "sim::decide", "sim::motion", "sim::scene", "sim::spawn", "sim::stage"];
    for c in core {
        let code = code_of(&std::fs::read_to_string(&tree.files[&module(c)]).expect("a core file"));
        let idents: BTreeSet<String> = tokens(&code).into_iter().filter(|t| is_ident(t)).collect();
        for f in &folders {
            for name in [f.clone(), camel(f)] {
                assert!(!idents.contains(&name), "the core file of {c} names the model {name}");
            }
        }
    }
    let registry = code_of(&std::fs::read_to_string(&tree.files[&models]).expect("the registry"));
    let listed = registry.split("models!").nth(1).unwrap_or("");
    for f in &folders {
        assert!(listed.contains(&format!("{f}::")), "the registry's `models!` list lacks the model folder {f}");
    }
}
