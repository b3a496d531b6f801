//! `crowd fmt`: files rewritten in the canonical layout (`syntax::format`),
//! only when the program they lower to stays the same.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{read_source, Failure};
use crate::check::layout::{relayout, Refused};
use crate::diag::render_all;

#[derive(Args)]
pub struct FmtArgs {
    /// The scenario files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Change nothing: list the files that are not in the canonical layout
    /// and exit 1 if there are any.
    #[arg(long)]
    check: bool,
}

/// What became of one file.
enum Outcome {
    Unchanged,
    /// Reformatted, or (with `--check`) would be.
    Changed,
}

pub fn fmt(args: FmtArgs) -> ExitCode {
    let mut worst = 0u8;
    let mut changed = Vec::new();
    for path in &args.files {
        match one(path, args.check) {
            Ok(Outcome::Unchanged) => {}
            Ok(Outcome::Changed) => changed.push(path.display().to_string()),
            Err(f) => {
                worst = worst.max(f.code);
                let _ = Failure { code: f.code, message: f.message }.exit();
            }
        }
    }
    if args.check {
        for f in &changed {
            println!("{f}");
        }
        if !changed.is_empty() {
            eprintln!("{} file(s) not in the canonical layout: `crowd fmt` them", changed.len());
            worst = worst.max(1);
        }
    } else {
        for f in &changed {
            eprintln!("formatted {f}");
        }
    }
    ExitCode::from(worst)
}

fn one(path: &Path, check: bool) -> Result<Outcome, Failure> {
    let file = read_source(path)?;
    let text = match relayout(&file) {
        Ok(None) => return Ok(Outcome::Unchanged),
        Ok(Some(text)) => text,
        Err(Refused::Errors(diags)) => {
            eprint!("{}", render_all(&diags, &file, !super::stderr_is_terminal()));
            return Err(Failure::failed(format!("{} has errors: left as it is", path.display())));
        }
        Err(Refused::MeaningChanged) => {
            return Err(Failure::io(format!(
                "{}: the canonical layout would change what the file means (a fault of crowd fmt); left as it is",
                path.display()
            )))
        }
    };
    if !check {
        super::write_atomic(path, text.as_bytes())?;
    }
    Ok(Outcome::Changed)
}
