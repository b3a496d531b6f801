//! `crowd lsp` in a real editor session: pygls's language client (from PyPI,
//! not written here) opens a shipped scenario, breaks and mends it, and asks
//! hover, definition, references, completion, rename, formatting and the
//! outline, checking each answer (`tests/clients/lsp_session.py` lists them),
//! once with positions in UTF-16 and once in UTF-8.
//!
//! Needs a Python with pygls (`CROWD_PYTHON`, else `python3`; `.ci/run`
//! makes a virtual environment). Without it the test is ignored, except
//! under `CI`, where it fails.

use std::path::Path;
use std::process::Command;

mod tools;

#[test]
#[cfg_attr(no_pygls, ignore = "no Python with pygls (set CROWD_PYTHON); CI runs it")]
fn a_pygls_client_edits_and_navigates_a_scenario() {
    assert!(tools::pygls_available(), "no Python with pygls: .ci/run makes one");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for encoding in ["utf-16", "utf-8"] {
        let o = Command::new(tools::python())
            .arg(root.join("tests/clients/lsp_session.py"))
            .arg(env!("CARGO_BIN_EXE_crowd"))
            .arg(root.join("scenarios/behaviour_flocks/village_wolf.crowd"))
            .arg(encoding)
            .output()
            .expect("python runs");
        let out = String::from_utf8_lossy(&o.stdout);
        eprintln!("{encoding}:\n{out}");
        assert!(o.status.success(), "{encoding}: {out}\n{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("all checks passed"), "{out}");
    }
}
