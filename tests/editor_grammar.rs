//! The VS Code extension of `editors/vscode/`: its TextMate grammar
//! tokenises every scenario and fixture as VS Code would (vscode-textmate on
//! Oniguruma, from npm), knows every keyword of `grammar/crowd.pest`, and
//! gives keywords, declared names, numbers, units and comments their scopes
//! (`editors/vscode/test/tokenize.mjs`); and it starts the language server.
//!
//! Needs Node.js and `npm ci --prefix editors/vscode` (`.ci/run` does it).
//! Without them the test is ignored, except under `CI`, where it fails.

use std::path::Path;
use std::process::Command;

mod tools;

#[test]
#[cfg_attr(
    no_textmate,
    ignore = "no Node.js or editors/vscode/node_modules (npm ci --prefix editors/vscode); CI runs it"
)]
fn the_textmate_grammar_scopes_every_scenario_and_fixture() {
    assert!(tools::textmate_available(), "Node.js or editors/vscode/node_modules is missing: .ci/run installs them");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new("node")
        .args(["editors/vscode/test/tokenize.mjs", "grammar/crowd.pest", "scenarios", "tests/fixtures"])
        .current_dir(root)
        .output()
        .expect("node runs");
    let out = String::from_utf8_lossy(&o.stdout);
    eprintln!("{out}");
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("; 0 mismatches"), "{out}");
}

/// The VS Code extension starts `crowd lsp` for `.crowd` files
/// (`editors/vscode/test/extension.js`, with VS Code stood in for).
#[test]
#[cfg_attr(
    no_textmate,
    ignore = "no Node.js or editors/vscode/node_modules (npm ci --prefix editors/vscode); CI runs it"
)]
fn the_vscode_extension_starts_the_language_server() {
    assert!(tools::textmate_available(), "Node.js or editors/vscode/node_modules is missing: .ci/run installs them");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new("node").arg("editors/vscode/test/extension.js").current_dir(root).output().expect("node runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
}
