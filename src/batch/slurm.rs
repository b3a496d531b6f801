//! The sbatch script of `crowd batch --emit-slurm`: a job array whose task
//! `I` runs shard `I` of the batch, with the same arguments, in the folder
//! the script was written from, on the same `crowd` build.

use std::path::Path;

/// Per-task resources and placement, as sbatch takes them.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    pub tasks: u64,
    pub cpus_per_task: u16,
    /// `--time`, e.g. `01:00:00`.
    pub time: Option<String>,
    /// `--mem`, e.g. `4G`.
    pub mem: Option<String>,
    pub partition: Option<String>,
    pub account: Option<String>,
}

/// What the script runs.
pub struct Job<'a> {
    /// The scenario's name, and its file as given.
    pub name: &'a str,
    pub scenario: &'a str,
    pub runs: u64,
    /// The folder the script was written from: tasks start there, so that
    /// paths mean what they meant and the runs' metadata names the scenario
    /// file as an unsharded batch would.
    pub workdir: &'a Path,
    pub out: &'a Path,
    /// Where the script is written.
    pub script: &'a Path,
    /// The `crowd` executable, and its build id (`--expect-build`).
    pub crowd: &'a Path,
    pub build: &'a str,
    /// `crowd batch`'s arguments, but for the jobs, the shard and the build check.
    pub args: Vec<String>,
}

/// The script's text.
pub fn script(job: &Job<'_>, r: &Resources) -> String {
    let mut s = String::from("#!/bin/bash\n");
    let mut opt = |line: String| {
        s.push_str("#SBATCH ");
        s.push_str(&line);
        s.push('\n');
    };
    opt(format!("--job-name=crowd-{}", job_name(job.name)));
    opt(format!("--array=0-{}", r.tasks.saturating_sub(1)));
    opt("--ntasks=1".into());
    opt(format!("--cpus-per-task={}", r.cpus_per_task));
    opt(format!("--chdir={}", job.workdir.display()));
    opt(format!("--output={}", logs(job).join("%A_%a.out").display()));
    for (name, value) in [("time", &r.time), ("mem", &r.mem), ("partition", &r.partition), ("account", &r.account)] {
        if let Some(v) = value {
            opt(format!("--{name}={v}"));
        }
    }
    let mut command = vec![quote(&job.crowd.display().to_string()), "batch".into()];
    command.extend(job.args.iter().map(|a| quote(a)));
    command.push("--jobs".into());
    command.push("\"${SLURM_CPUS_PER_TASK:-1}\"".into());
    command.push("--expect-build".into());
    command.push(quote(job.build));
    s.push_str(&format!(
        "#\n# {runs} run(s) of {scenario} in {tasks} task(s); each task runs the shard of its array index\n\
         # (SLURM_ARRAY_TASK_ID), and refuses to run on a crowd build other than {build}.\n\
         # Submit it as it is:   sbatch {script}\n\
         # When every task has finished:   crowd batch --merge {out}\n\
         # (a task that failed or was killed: submit again, or run `crowd batch` with the same arguments;\n\
         # complete runs are kept)\n\
         set -euo pipefail\n\
         exec {command}\n",
        runs = job.runs,
        scenario = job.scenario,
        tasks = r.tasks,
        build = job.build,
        script = quote(&job.script.display().to_string()),
        out = quote(&job.out.display().to_string()),
        command = command.join(" "),
    ));
    s
}

/// Where the tasks' logs go: a folder beside the script (`job.sh` →
/// `job-logs/`), made before submission: sbatch does not make it, and a
/// task whose log cannot open fails unseen. Not in the batch folder, which
/// holds the batch's files alone.
pub fn logs(job: &Job<'_>) -> std::path::PathBuf {
    let script = if job.script.is_absolute() { job.script.to_path_buf() } else { job.workdir.join(job.script) };
    let stem = script.file_stem().map_or_else(|| "crowd".into(), |s| s.to_string_lossy().into_owned());
    script.with_file_name(format!("{stem}-logs"))
}

/// This `crowd`'s build: its version and the start of its executable's
/// SHA-256. Two builds of one version can differ; a job array whose tasks
/// ran different builds would not be one batch.
pub fn build_id() -> std::io::Result<String> {
    let exe = std::fs::read(std::env::current_exe()?)?;
    Ok(format!("{}+{}", crate::trace::meta::CROWD_VERSION, &crate::hash::sha256_hex(&exe)[..16]))
}

/// A job name from the scenario's: letters, digits, `-` and `_`.
fn job_name(scenario: &str) -> String {
    scenario.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// A word for the shell, in single quotes unless it needs none.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(quote("p.crowd"), "p.crowd");
        assert_eq!(quote("boids.max_speed=1 m/s,2 m/s"), "'boids.max_speed=1 m/s,2 m/s'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }
}
