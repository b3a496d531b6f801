//! Every ` ```crowd ` example of `docs/language.md` is a complete file that
//! checks without errors or warnings, as the page promises.

use crowd::diag::render_all;
use crowd::SourceFile;

#[test]
fn every_language_example_checks_clean() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/language.md");
    let page = std::fs::read_to_string(path).expect("docs/language.md");
    let mut examples = 0;
    let mut wrong = Vec::new();
    let mut rest = page.as_str();
    while let Some(start) = rest.find("```crowd\n") {
        let body = &rest[start + "```crowd\n".len()..];
        let end = body.find("```").expect("a closed code block");
        let line = page[..page.len() - rest.len() + start].lines().count() + 1;
        let file = SourceFile::new(format!("language.md:{line}"), body[..end].to_string());
        let diags = match crowd::compile(&file) {
            Ok(c) => c.warnings,
            Err(d) => d,
        };
        if !diags.is_empty() {
            wrong.push(render_all(&diags, &file, true));
        }
        examples += 1;
        rest = &body[end + 3..];
    }
    assert!(examples >= 10, "only {examples} examples found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
