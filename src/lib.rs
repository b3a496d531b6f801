//! `crowd`: a compiler for the `.crowd` scenario language and a seeded,
//! deterministic crowd-simulation runner.
//!
//! The pipeline runs one way: text → [`syntax`] (AST with spans) → [`check`]
//! (diagnostics, or the [`ir`]) → [`sim`] (a seeded run) → [`trace`] (CSV).

pub mod batch;
pub mod behave;
pub mod check;
pub mod cli;
pub mod diag;
pub mod export;
pub mod hash;
pub mod ir;
pub mod lsp;
pub mod math;
pub mod plan;
pub mod render;
pub mod rng;
pub mod sim;
pub mod steer;
pub mod syntax;
#[cfg(test)]
mod test_files;
pub mod trace;
pub mod world;

pub use check::{compile, Compiled};
pub use diag::{Diagnostic, Severity, SourceFile};
pub use sim::{run, Run};
