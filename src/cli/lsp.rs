//! `crowd lsp`: the language server, on stdin and stdout.

use std::process::ExitCode;

use clap::Args;

#[derive(Args)]
pub struct LspArgs {
    /// Accepted for editors that pass it; stdio is the only transport.
    #[arg(long)]
    stdio: bool,
}

pub fn lsp(_: LspArgs) -> ExitCode {
    let max = super::MAX_INPUT_BYTES.load(std::sync::atomic::Ordering::Relaxed);
    match crate::lsp::serve_stdio(usize::try_from(max).unwrap_or(usize::MAX)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: crowd lsp: {e}");
            ExitCode::from(2)
        }
    }
}
