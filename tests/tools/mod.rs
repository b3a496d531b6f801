//! The outside tools some tests need, looked for the same way by those
//! tests and by `build.rs`, which marks the tests ignored outside CI when
//! their tool is missing.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// Whether `python3` can import PedPy and what the comparison script uses.
pub fn pedpy_available() -> bool {
    Command::new("python3").args(["-c", "import pedpy, pandas, shapely"]).output().is_ok_and(|o| o.status.success())
}

/// The Python that runs the client checks: `CROWD_PYTHON`, else `python3`.
pub fn python() -> OsString {
    std::env::var_os("CROWD_PYTHON").unwrap_or_else(|| "python3".into())
}

/// Whether [`python`] can import pyarrow and pandas, which read the Parquet
/// trace back and the CSV beside it.
pub fn pyarrow_available() -> bool {
    Command::new(python()).args(["-c", "import pyarrow, pandas"]).output().is_ok_and(|o| o.status.success())
}

/// `CROWD_CHROMIUM`, else the first Chromium or Chrome on `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROWD_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Whether a SLURM cluster answers here: `sinfo` lists a node that can take
/// jobs (`.ci/slurm-up` brings one up on this machine).
pub fn slurm_available() -> bool {
    Command::new("sinfo").args(["-h", "-o", "%T"]).output().is_ok_and(|o| {
        o.status.success()
            && String::from_utf8_lossy(&o.stdout).lines().any(|s| ["idle", "mixed", "allocated"].contains(&s.trim()))
    })
}
