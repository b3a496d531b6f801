//! `crowd test`'s golden comparison from bytes: two traces (the input cut
//! at its first 0xFF byte, which no CSV trace holds) are compared, and any
//! mismatch is described, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len() / 2);
    let (golden, trace) = (&data[..cut], &data[(cut + 1).min(data.len())..]);
    if let Some(m) = crowd::trace::golden::compare(golden, trace) {
        let _ = m.to_string();
    }
    assert!(crowd::trace::golden::compare(trace, trace).is_none(), "a trace differs from itself");
});
