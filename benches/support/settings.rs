//! Bench settings from `CROWD_BENCH_*` environment variables.

use std::str::FromStr;

/// `CROWD_BENCH_<name>` parsed, or `default` when it is unset. A value that
/// does not parse stops the bench, naming it, rather than being ignored.
pub fn setting<T: FromStr>(name: &str, default: T) -> T {
    let key = format!("CROWD_BENCH_{name}");
    match std::env::var_os(&key) {
        None => default,
        Some(v) => {
            let text = v.to_string_lossy();
            text.trim().parse().unwrap_or_else(|_| panic!("{key}={text:?} is not a valid value"))
        }
    }
}

/// Whether `CROWD_BENCH_<name>` is set (to anything).
#[allow(dead_code)]
pub fn flag(name: &str) -> bool {
    std::env::var_os(format!("CROWD_BENCH_{name}")).is_some()
}
