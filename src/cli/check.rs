//! `crowd check` and `crowd ir`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{print_out, read_source, stderr_is_terminal, DiagFormat};
use crate::diag::render_all;

#[derive(Args)]
pub struct CheckArgs {
    /// Scenario files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value_t = DiagFormat::Human)]
    format: DiagFormat,
}

#[derive(Args)]
pub struct IrArgs {
    /// The scenario file.
    file: PathBuf,
}

pub fn check(args: CheckArgs) -> ExitCode {
    let plain = !stderr_is_terminal();
    let mut worst = 0u8;
    for path in &args.files {
        let file = match read_source(path) {
            Ok(file) => file,
            Err(failure) => {
                worst = worst.max(failure.code);
                eprintln!("error: {}", failure.message);
                continue;
            }
        };
        let diags = match crate::compile(&file) {
            Ok(compiled) => compiled.warnings,
            Err(diags) => {
                worst = worst.max(1);
                diags
            }
        };
        match args.format {
            DiagFormat::Json => {
                for d in &diags {
                    print_out(&format!("{}\n", d.to_json(&file)));
                }
            }
            DiagFormat::Human => {
                if diags.is_empty() {
                    eprintln!("{}: ok", file.name);
                } else {
                    eprint!("{}", render_all(&diags, &file, plain));
                }
            }
        }
    }
    ExitCode::from(worst)
}

pub fn ir(args: IrArgs) -> ExitCode {
    match super::load(&args.file) {
        Ok((_, compiled)) => {
            print_out(&crate::ir::to_text(&compiled.program));
            ExitCode::SUCCESS
        }
        Err(failure) => failure.exit(),
    }
}
