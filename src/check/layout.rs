//! The canonical layout of a file (`syntax::format`) with its promise kept:
//! a file that does not check is left alone, and a layout that would change
//! what the file means is refused. `crowd fmt` and the language server's
//! formatting both come through here.

use super::compile;
use crate::diag::{Diagnostic, SourceFile};

/// Why a file keeps its layout.
#[derive(Debug)]
pub enum Refused {
    /// The file has errors (all its diagnostics, warnings too).
    Errors(Vec<Diagnostic>),
    /// The new layout would lower to another program: a fault of the
    /// formatter, never of the file.
    MeaningChanged,
}

/// The file in the canonical layout, or `None` when it already is.
pub fn relayout(file: &SourceFile) -> Result<Option<String>, Refused> {
    let before = compile(file).map_err(Refused::Errors)?;
    let text = crate::syntax::format::format(&file.text);
    if text == *file.text {
        return Ok(None);
    }
    let formatted = SourceFile::new(file.name.clone(), text.as_str());
    let meaning = |p: &crate::ir::Program| crate::ir::meaning_text(p);
    match compile(&formatted) {
        Ok(after) if meaning(&after.program) == meaning(&before.program) => Ok(Some(text)),
        _ => Err(Refused::MeaningChanged),
    }
}
