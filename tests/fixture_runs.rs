//! A file `crowd check` accepts either runs to its end or is refused before
//! its first step because it needs a model that is not implemented yet:
//! never a runtime error that checking could have caught (the cafeteria
//! fixture once passed `check` and stopped at 15 s with a goal missing).

use std::path::Path;

use crowd::diag::SourceFile;
use crowd::sim::{labels, SimError};
use crowd::trace::csv::CsvWriter;

#[test]
fn every_valid_fixture_runs_or_is_refused_before_running() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failures = Vec::new();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "crowd")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let program = match crowd::compile(&SourceFile::new(name.clone(), text)) {
            Ok(c) => c.program,
            Err(d) => panic!("{name} does not compile: {d:?}"),
        };
        let mut sink = Vec::new();
        let mut csv = CsvWriter::new(&mut sink, &labels(&program), &program.output.columns, None).unwrap();
        match crowd::run(&program, program.header.seed, &mut csv, &mut |_, _| {}) {
            Ok(_) | Err(SimError::NotImplemented(_)) => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
