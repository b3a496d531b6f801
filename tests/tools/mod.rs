//! The outside tools some tests need, looked for the same way by those
//! tests and by `build.rs`, which marks the tests ignored outside CI when
//! their tool is missing.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The Python the client tests run: `CROWD_PYTHON` (the virtual
/// environment `.ci/run` makes), else `python3`.
pub fn python() -> PathBuf {
    std::env::var_os("CROWD_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

fn imports(modules: &str) -> bool {
    Command::new(python()).args(["-c", &format!("import {modules}")]).output().is_ok_and(|o| o.status.success())
}

/// Whether that Python can import PedPy and what the comparison script uses.
pub fn pedpy_available() -> bool {
    imports("pedpy, pandas, shapely")
}

/// Whether that Python has the clients the exports are for: PedPy, JuPedSim and usd-core.
pub fn clients_available() -> bool {
    imports("pedpy, pandas, shapely, jupedsim, pxr")
}

/// Whether that Python can import pyarrow and pandas, which read the Parquet
/// trace back and the CSV beside it.
pub fn pyarrow_available() -> bool {
    imports("pyarrow, pandas")
}

/// Whether that Python has pygls, the language client the server is tested with.
pub fn pygls_available() -> bool {
    imports("pygls, lsprotocol")
}

/// `CROWD_CHROMIUM`, else the first Chromium or Chrome on `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROWD_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    on_path(&["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"])
}

/// Whether a SLURM cluster answers here: `sinfo` lists a node that can take
/// jobs (`.ci/slurm-up` brings one up on this machine).
pub fn slurm_available() -> bool {
    Command::new("sinfo").args(["-h", "-o", "%T"]).output().is_ok_and(|o| {
        o.status.success()
            && String::from_utf8_lossy(&o.stdout).lines().any(|s| ["idle", "mixed", "allocated"].contains(&s.trim()))
    })
}

/// Whether Node.js and the editor grammar's test dependencies
/// (`npm ci --prefix editors/vscode`) are here.
pub fn textmate_available() -> bool {
    let modules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/node_modules/vscode-textmate");
    modules.is_dir() && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The target of the cross-architecture test.
pub const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// What the cross-architecture test builds and runs `crowd` for aarch64 with.
pub struct Aarch64 {
    /// A rustc with the aarch64 standard library.
    pub rustc: PathBuf,
    /// The aarch64 C compiler, which links.
    pub linker: PathBuf,
    /// qemu-user for aarch64.
    pub qemu: PathBuf,
}

/// The first of `names` that is a file on `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name))).find(|p| p.is_file())
}

/// Whether `rustc` holds the standard library for [`AARCH64`].
fn has_aarch64_std(rustc: &std::path::Path) -> bool {
    Command::new(rustc).args(["--print", "target-libdir", "--target", AARCH64]).output().is_ok_and(|o| {
        let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        o.status.success()
            && std::fs::read_dir(dir)
                .is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-"))))
    })
}

/// The aarch64 toolchain and emulator: `CROWD_AARCH64_RUSTC`, else the
/// first of `rustc` on `PATH` (rustup's, with `rustup target add`) and
/// Debian's `/usr/bin/rustc` (`rustc-web` with `libstd-rust-web-dev:arm64`,
/// which `.ci/run` installs) that has the aarch64 standard library;
/// `aarch64-linux-gnu-gcc` with the static C library (the binary is linked
/// statically, see `tests/cross_arch.rs`); and `qemu-aarch64`. `None` when
/// any is missing.
pub fn aarch64() -> Option<Aarch64> {
    let candidates = match std::env::var_os("CROWD_AARCH64_RUSTC") {
        Some(r) => vec![Some(PathBuf::from(r))],
        None => vec![on_path(&["rustc"]), Some(PathBuf::from("/usr/bin/rustc"))],
    };
    let static_libc = std::path::Path::new("/usr/aarch64-linux-gnu/lib/libc.a").is_file();
    Some(Aarch64 {
        linker: on_path(&["aarch64-linux-gnu-gcc"]).filter(|_| static_libc)?,
        qemu: on_path(&["qemu-aarch64", "qemu-aarch64-static"])?,
        rustc: candidates.into_iter().flatten().find(|r| has_aarch64_std(r))?,
    })
}
