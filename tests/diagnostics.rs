//! Snapshot tests of the front end.
//!
//! - Every file in `fixtures/invalid/` renders its diagnostics as `crowd check`
//!   prints them (plain, 80 columns); each snapshot holds the source and the
//!   diagnostics, so it reads on its own.
//! - Every invalid file reports the code its name starts with (`e010_...` → E010).
//! - Every valid scenario (`fixtures/ok/`, `scenarios/`) compiles with no
//!   error, and its `crowd ir` text (`docs/ir.md`) is snapshotted.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crowd::diag::render_all;
use crowd::SourceFile;

fn fixtures(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir)
}

/// The file with its bare file name as the display name, so snapshots do not
/// depend on where the repository lives.
fn load(path: &Path) -> SourceFile {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
    SourceFile::new(name, text)
}

/// insta's `glob!` keeps its failure count on one global stack: two globs
/// running at once on different test threads would count each other's failures.
static GLOB: Mutex<()> = Mutex::new(());

fn one_glob_at_a_time() -> MutexGuard<'static, ()> {
    GLOB.lock().unwrap_or_else(|e| e.into_inner())
}

fn diagnostics(file: &SourceFile) -> Vec<crowd::Diagnostic> {
    match crowd::compile(file) {
        Ok(compiled) => compiled.warnings,
        Err(diags) => diags,
    }
}

#[test]
fn invalid_files_render_their_diagnostics() {
    let _one = one_glob_at_a_time();
    insta::glob!("fixtures/invalid/*.crowd", |path| {
        let file = load(path);
        let diags = diagnostics(&file);
        let rendered = render_all(&diags, &file, true);
        let text = format!("----- SOURCE\n{}\n----- DIAGNOSTICS\n{}", file.text.trim_end(), rendered);
        insta::assert_snapshot!(text);
    });
}

/// The code a fixture is named after: `e010_unknown_region.crowd` → `E010`.
fn code_of(name: &str) -> Option<String> {
    let prefix = name.split('_').next()?;
    let valid = prefix.len() == 4 && prefix[1..].bytes().all(|b| b.is_ascii_digit());
    valid.then(|| prefix.to_ascii_uppercase())
}

#[test]
fn every_invalid_file_reports_the_code_it_is_named_after() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures("invalid"))
        .expect("tests/fixtures/invalid exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "crowd"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 45, "only {} invalid fixtures", paths.len());
    let mut wrong = Vec::new();
    for path in &paths {
        let file = load(path);
        let Some(code) = code_of(&file.name) else {
            wrong.push(format!("{}: the name does not start with a code such as `e010_`", file.name));
            continue;
        };
        let diags = diagnostics(&file);
        if !diags.iter().any(|d| d.code == code) {
            let found: Vec<&str> = diags.iter().map(|d| d.code).collect();
            wrong.push(format!("{}: expected {code}, found {found:?}", file.name));
        }
        let first = file.text.lines().next().unwrap_or("");
        if !first.starts_with("// ") {
            wrong.push(format!("{}: the first line should be a `//` comment saying what is wrong", file.name));
        }
        // A warning-only file checks clean; every other invalid file must fail.
        let only_warnings = code.starts_with('W');
        if crowd::compile(&file).is_ok() != only_warnings {
            wrong.push(format!("{}: compiles = {}, expected {}", file.name, !only_warnings, only_warnings));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every error code the checker documents is shown by at least one fixture.
#[test]
fn every_diagnostic_code_has_a_fixture() {
    let codes = [
        "E001", "E002", "E003", "E010", "E011", "E012", "E020", "E021", "E022", "E030", "E031", "E032", "E040", "E041",
        "E042", "E043", "E044", "E045", "E046", "E047", "E048", "E050", "E060", "E061", "E062", "E063", "E070", "E071",
        "E072", "E080", "E081", "E091", "E092", "E093", "E094", "E049", "E095", "E096", "W001", "W002", "W003", "W004",
        "W005", "W006",
    ];
    let names: Vec<String> = std::fs::read_dir(fixtures("invalid"))
        .expect("tests/fixtures/invalid exists")
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().to_ascii_uppercase())
        .collect();
    let missing: Vec<&str> = codes.iter().copied().filter(|c| !names.iter().any(|n| n.starts_with(c))).collect();
    assert!(missing.is_empty(), "no fixture for {missing:?}");
}

/// Compiles a valid scenario and snapshots its IR as `diagnostics__<name>@<path>.snap`,
/// `path` relative to `root` with `/` written `__`, so names do not depend on
/// how many files a folder holds.
fn ir_snapshot(name: &str, root: &Path, path: &Path) {
    let file = load(path);
    let text = match crowd::compile(&file) {
        Ok(compiled) => crowd::ir::to_text(&compiled.program),
        Err(diags) => panic!("{} does not compile:\n{}", file.name, render_all(&diags, &file, true)),
    };
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let relative = path.strip_prefix(&root).unwrap_or(path).to_string_lossy().replace(['/', '\\'], "__");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_suffix(relative);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn valid_fixtures_compile_to_stable_ir() {
    let _one = one_glob_at_a_time();
    let root = fixtures("ok");
    insta::glob!("fixtures/ok/*.crowd", |path| ir_snapshot("ir_ok", &root, path));
}

#[test]
fn example_scenarios_compile_to_stable_ir() {
    let _one = one_glob_at_a_time();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut settings = insta::Settings::clone_current();
    settings.set_allow_empty_glob(true);
    settings.bind(|| insta::glob!("../scenarios", "**/*.crowd", |path| ir_snapshot("ir_scenario", &root, path)));
}
