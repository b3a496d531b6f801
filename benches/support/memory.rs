//! Peak memory of a run, measured in a fresh process of the bench itself:
//! the bench starts itself again with `MEMORY_OF` set to what the child
//! runs, and the child prints its peak resident memory.

/// Set in a child process of a bench: which run's peak memory it measures.
pub const MEMORY_OF: &str = "CROWD_BENCH_MEMORY_OF";

/// This process's peak resident memory, bytes (Linux; 0 elsewhere).
pub fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    peak.unwrap_or(0) * 1024
}

/// The peak resident memory of a fresh process of this bench that runs
/// `what` once (by the bench's own convention; "nothing": compiling the
/// scenario only), bytes.
pub fn peak_of(what: &str) -> u64 {
    let me = std::env::current_exe().expect("the bench knows its path");
    let out = std::process::Command::new(me).env(MEMORY_OF, what).output().expect("the bench runs itself");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0)
}
