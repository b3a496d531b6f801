//! Trace rows: the CSV writer and reader, run metadata, golden comparison and metrics.
//!
//! Invariants of a trace (the format is described in `docs/trace.md`):
//! - one CSV per run, one header row, no comment lines, rows sorted by (frame, id);
//! - columns `id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state`, then the
//!   scenario's optional columns in the order it lists them;
//! - numbers in the form of [`float`]: shortest round-trip decimals, no exponents, no `-0`;
//! - a file at its final path is always complete: every writer goes through
//!   [`write_atomic`] (temporary name in the same folder, fsync, rename); a
//!   device or pipe (`/dev/null`) is written in place, never replaced.
//!
//! `trace` reads results; it never calls back into `sim`.

pub mod claims;
pub mod csv;
pub mod float;
pub mod frame;
pub mod golden;
pub mod log;
pub mod measure;
pub mod meta;
pub mod metrics;
pub mod read;

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub use frame::{FrameView, Labels, Recorder, NONE};
pub use log::AgentLog;

/// Writes a file through a temporary name in the same folder, an fsync and a
/// rename: an interrupted or failed write leaves the previous file (or none),
/// never a partial one. Creates the parent folder if it is missing.
pub fn write_atomic(path: &Path, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    write_atomic_with(path, |w| f(w))
}

/// [`write_atomic`] for writers whose failure is richer than an I/O error
/// (a simulation that stops mid-run, for instance), and that may hand the
/// file to another thread.
pub fn write_atomic_with<E: From<io::Error>>(
    path: &Path,
    f: impl FnOnce(&mut (dyn Write + Send)) -> Result<(), E>,
) -> Result<(), E> {
    write_atomic_path(path, |tmp| {
        let file = File::create(tmp)?;
        // Writes at least this large bypass the buffer: trace frames arrive in
        // big formatted chunks and are not copied twice.
        let mut w = BufWriter::with_capacity(1 << 16, file);
        f(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    })
}

/// [`write_atomic`] for writers that open the file themselves, by path (as
/// SQLite does): `f` writes the temporary file, which is then synced and
/// renamed. Creates the parent folder if it is missing.
pub fn write_atomic_path<E: From<io::Error>>(path: &Path, f: impl FnOnce(&Path) -> Result<(), E>) -> Result<(), E> {
    // A rename would put a file where the device or pipe stood: `-o /dev/null`
    // replaced the system's /dev/null with a trace.
    if is_special(path) {
        return f(path);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let tmp = temp_path(&dir, path);
    let result = f(&tmp).and_then(|()| {
        File::open(&tmp)?.sync_all()?;
        fs::rename(&tmp, path)?;
        // Persist the rename itself; not every platform can open a folder.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Whether `path` names something other than a file or a folder: a device
/// (`/dev/null`), a pipe, a socket. It is written in place, and no metadata
/// file sits beside it.
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Removes the temporary files that killed writers of `targets` (files of
/// one folder) left beside them: those whose process is gone. Where the
/// system cannot say (no `/proc`), they stay: a live writer's file must
/// never be taken from under it. One look at the folder for all targets, so
/// a batch of many runs pays once.
pub fn sweep_stale(targets: &[PathBuf]) {
    let proc = Path::new("/proc");
    let Some(first) = targets.first() else { return };
    if !proc.is_dir() {
        return;
    }
    let dir = match first.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut names: Vec<String> =
        targets.iter().filter_map(|t| t.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    names.sort_unstable();
    let Ok(entries) = fs::read_dir(&dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        // `.NAME.tmp-PID-N`, as `temp_path` makes them.
        let Some((name, rest)) = file.strip_prefix('.').and_then(|f| f.rsplit_once(".tmp-")) else { continue };
        if names.binary_search_by(|n| n.as_str().cmp(name)).is_err() {
            continue;
        }
        // Another machine's writer (a shared folder of a cluster) is not ours to judge.
        let mut parts = rest.splitn(3, '-');
        let Some(pid) = parts.next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        let host = parts.nth(1);
        if host.is_some_and(|h| h != this_host()) {
            continue;
        }
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn temp_path(dir: &Path, path: &Path) -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // The host too: processes of two machines writing to one shared folder can have one id.
    dir.join(format!(".{name}.tmp-{}-{n}-{}", std::process::id(), this_host()))
}

/// This machine's name, as a temporary file's name can hold it.
fn this_host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let name = fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let name: String =
            name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_').collect();
        if name.is_empty() {
            "host".into()
        } else {
            name
        }
    })
}

/// The metadata file that travels beside a trace: `out/a.csv` → `out/a.meta.json`.
pub fn meta_path(trace: &Path) -> PathBuf {
    let stem = trace.file_stem().map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    trace.with_file_name(format!("{stem}.meta.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_or_keeps_previous() {
        let dir = std::env::temp_dir().join(format!("crowd-atomic-{}", std::process::id()));
        let path = dir.join("sub").join("a.csv");
        write_atomic(&path, |w| w.write_all(b"one")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        let failed = write_atomic(&path, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"one");
        let leftovers = fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "the temporary file is removed after a failure");
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("crowd-pipe-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let pipe = dir.join("p.csv");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) makes the pipe");
        // The reader waits in its open for a writer: a channel, so that a
        // pipe nobody wrote fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let read_end = pipe.clone();
        std::thread::spawn(move || tx.send(fs::read(read_end).unwrap()));
        write_atomic(&pipe, |w| w.write_all(b"id,frame\n")).unwrap();
        assert!(fs::metadata(&pipe).unwrap().file_type().is_fifo(), "still a pipe");
        let carried = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("written through the pipe");
        assert_eq!(carried, b"id,frame\n");
        assert!(is_special(&pipe) && !is_special(&dir) && !is_special(&dir.join("none")));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn meta_path_sits_beside_the_trace() {
        assert_eq!(meta_path(Path::new("out/a.csv")), PathBuf::from("out/a.meta.json"));
    }
}
