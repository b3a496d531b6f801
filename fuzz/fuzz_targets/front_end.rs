//! The front end from bytes: whatever a `.crowd` file holds, checking it
//! gives diagnostics or a program, never a panic; the diagnostics render
//! (as `crowd check` prints them) and a program prints (as `crowd ir` does).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = crowd::SourceFile::new("fuzz.crowd", text.as_ref());
    let diags = match crowd::compile(&file) {
        Ok(compiled) => {
            let _ = crowd::ir::to_text(&compiled.program);
            compiled.warnings
        }
        Err(diags) => {
            assert!(diags.iter().any(|d| d.is_error()), "refused without an error");
            diags
        }
    };
    let _ = crowd::diag::render_all(&diags, &file, true);
});
