use std::process::ExitCode;

fn main() -> ExitCode {
    crowd::cli::main()
}
