//! Every `crowd` code block of the documentation is a complete scenario that
//! checks with no error and no warning, as `docs/language.md` promises; the
//! example of `docs/ir.md` is what `crowd ir` prints.

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

/// The lines of the first `text` block after the first line of `text` that
/// contains `marker`.
fn text_block_after<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| !l.contains(marker));
    assert!(lines.next().is_some(), "no line contains {marker:?}");
    let mut lines = lines.skip_while(|l| l.trim_start() != "```text");
    assert!(lines.next().is_some(), "no text block after {marker:?}");
    lines.take_while(|l| l.trim_start() != "```").collect()
}

/// Whether `example` is `actual` with runs of lines replaced by `...`.
fn shortened(example: &[&str], actual: &[&str]) -> Result<(), String> {
    let mut at = 0;
    let mut skipping = false;
    for &line in example {
        if line == "..." {
            skipping = true;
            continue;
        }
        let found = if skipping {
            actual[at..].iter().position(|&l| l == line).map(|k| at + k)
        } else {
            (actual.get(at) == Some(&line)).then_some(at)
        };
        match found {
            Some(k) => at = k + 1,
            None => {
                let here = actual.get(at).copied().unwrap_or("the end of the output");
                return Err(format!("`{line}` is not what `crowd ir` prints at line {}: `{here}`", at + 1));
            }
        }
        skipping = false;
    }
    if !skipping && at < actual.len() {
        return Err(format!("the example stops at line {at}, before `{}`", actual[at]));
    }
    Ok(())
}

#[test]
fn the_crowd_ir_example_is_what_crowd_ir_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ir.md")).expect("docs/ir.md");
    let scenario = "scenarios/basics/party.crowd";
    let example = text_block_after(&doc, &format!("`crowd ir {scenario}` prints"));
    assert!(example.len() > 40, "only {} lines", example.len());
    let file = SourceFile::new(scenario, std::fs::read_to_string(root.join(scenario)).expect("the scenario"));
    let program = match crowd::compile(&file) {
        Ok(compiled) => compiled.program,
        Err(diags) => panic!("{}", render_all(&diags, &file, true)),
    };
    let text = crowd::ir::to_text(&program);
    let actual: Vec<&str> = text.lines().collect();
    if let Err(e) = shortened(&example, &actual) {
        panic!("docs/ir.md: {e}\n\n{text}");
    }
}
