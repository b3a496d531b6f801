//! Every `crowd` code block of the documentation is a complete scenario that
//! checks with no error and no warning, as `docs/language.md` promises.

use std::path::Path;

use crowd::diag::render_all;
use crowd::SourceFile;

/// The `crowd` blocks of a Markdown text, with the line each starts on.
fn crowd_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (k, line) in text.lines().enumerate() {
        match &mut open {
            None if line.trim_start() == "```crowd" => open = Some((k + 1, String::new())),
            None => {}
            Some(_) if line.trim_start() == "```" => blocks.extend(open.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a crowd block is never closed");
    blocks
}

#[test]
fn every_crowd_block_of_the_docs_checks_without_errors_or_warnings() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut paths: Vec<_> = std::fs::read_dir(&docs)
        .expect("docs/ exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("a readable doc");
        let name = path.file_name().expect("a file name").to_string_lossy().into_owned();
        for (line, block) in crowd_blocks(&text) {
            checked += 1;
            let file = SourceFile::new(format!("{name}:{line}"), block);
            let diags = match crowd::compile(&file) {
                Ok(compiled) => compiled.warnings,
                Err(diags) => diags,
            };
            if !diags.is_empty() {
                failures.push(render_all(&diags, &file, true));
            }
        }
    }
    assert!(checked >= 10, "only {checked} crowd blocks found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
