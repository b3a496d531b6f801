//! `crowd fmt`: the canonical layout never changes what a file means (the
//! lowered program is the same), is reached in one pass, keeps comments,
//! and leaves a file with errors as it is.

use std::fs;
use std::path::{Path, PathBuf};

use crowd::syntax::format::format;
use crowd::SourceFile;
use proptest::prelude::*;

mod cli_support;
use cli_support::{crowd, crowd_files, temp_dir};

/// Every scenario and valid fixture.
fn valid_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = crowd_files(&root.join("scenarios"));
    files.extend(crowd_files(&root.join("tests/fixtures/ok")));
    files
}

fn ir(name: &str, text: &str) -> Result<String, String> {
    crowd::compile(&SourceFile::new(name, text))
        .map(|c| crowd::ir::meaning_text(&c.program))
        .map_err(|d| format!("{d:?}"))
}

#[test]
fn every_scenario_and_fixture_is_in_the_canonical_layout_and_formatting_keeps_its_program() {
    let files = valid_files();
    assert!(files.len() > 80);
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        let name = f.display().to_string();
        let formatted = format(&text);
        assert_eq!(formatted, text, "{name} is not in the canonical layout: run `crowd fmt` on it");
        // The same program from a layout made as unlike the canonical one as
        // blanks allow: every separator doubled, tabs for indentation (but
        // in comments, which are the author's words, kept as written).
        let scrambled: String = text
            .lines()
            .map(|l| {
                if l.contains("//") || l.contains("/*") || l.contains("*/") {
                    l.to_string()
                } else {
                    l.replace(' ', "  ").replacen("  ", "\t", 1)
                }
            })
            .map(|l| l + "\n")
            .collect();
        assert_eq!(ir(&name, &scrambled), ir(&name, &text), "{name}: scrambling changed the program");
        assert_eq!(format(&scrambled), text, "{name}: the canonical layout of the scrambled file");
    }
}

fn seeds() -> Vec<String> {
    valid_files().iter().take(40).map(|f| fs::read_to_string(f).unwrap()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Blanks, tabs and line breaks inserted anywhere, and characters
    /// deleted: whatever compiles lowers to the same program once formatted
    /// (but for the blanks of expectations' texts, kept as written),
    /// formatting is reached in one pass, and nothing panics.
    #[test]
    fn mutated_files_keep_their_program_when_formatted(
        pick in 0usize..40,
        edits in prop::collection::vec((0.0f64..1.0, 0u8..4), 1..12),
    ) {
        let seeds = seeds();
        let mut text: Vec<char> = seeds[pick % seeds.len()].chars().collect();
        for (at, kind) in edits {
            let i = ((text.len() as f64) * at) as usize;
            match kind {
                0 => text.insert(i.min(text.len()), ' '),
                1 => text.insert(i.min(text.len()), '\t'),
                2 => text.insert(i.min(text.len()), '\n'),
                _ => { if i < text.len() { text.remove(i); } }
            }
        }
        let text: String = text.into_iter().collect();
        let once = format(&text);
        prop_assert_eq!(format(&once), once.clone(), "formatting twice changed the file");
        if let Ok(program) = ir("m.crowd", &text) {
            prop_assert_eq!(ir("m.crowd", &once), Ok(program), "formatting changed the program");
        }
    }
}

#[test]
fn fmt_rewrites_check_lists_and_a_broken_file_is_left_as_it_is() {
    let dir = temp_dir("fmt");
    let messy = "scenario s {seed 1;duration 2s;step 1 s}\nworld {\nbounds (0 m,0 m) to (10m, 10 m) // room\n}\n";
    let tidy =
        "scenario s { seed 1; duration 2 s; step 1 s }\nworld {\n  bounds (0 m, 0 m) to (10 m, 10 m) // room\n}\n";
    fs::write(dir.join("a.crowd"), messy).unwrap();
    fs::write(dir.join("b.crowd"), tidy).unwrap();
    fs::write(dir.join("broken.crowd"), "scenario s { seed 1;;; duration\n").unwrap();

    let o = crowd(&dir, &["fmt", "--check", "a.crowd", "b.crowd"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a.crowd\n");
    assert_eq!(fs::read_to_string(dir.join("a.crowd")).unwrap(), messy, "--check changes nothing");

    let o = crowd(&dir, &["fmt", "a.crowd", "b.crowd"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("formatted a.crowd"));
    assert_eq!(fs::read_to_string(dir.join("a.crowd")).unwrap(), tidy);
    let o = crowd(&dir, &["fmt", "--check", "a.crowd", "b.crowd"]);
    assert!(o.status.success() && o.stdout.is_empty());

    let o = crowd(&dir, &["fmt", "broken.crowd"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("E001") && err.contains("broken.crowd has errors: left as it is"), "{err}");
    assert_eq!(fs::read_to_string(dir.join("broken.crowd")).unwrap(), "scenario s { seed 1;;; duration\n");
    let _ = fs::remove_dir_all(&dir);
}
