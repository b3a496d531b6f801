//! Merging a batch: `summary.csv`, one row per run in run-list order, and
//! `manifest.json`, every run's values, files and SHA-256 digests. Both are
//! made from the run list and the runs' files alone, so a merge of shards
//! writes the bytes an unsharded batch writes.

use std::path::Path;

use rayon::prelude::*;
use serde_json::{json, Value as Json};

use super::folder::{self, Complete, PlanRecord};
use super::RunId;
use crate::trace::float::format_f64;

/// The summary file of a batch folder.
pub const SUMMARY_FILE: &str = "summary.csv";
/// The manifest file of a batch folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// What a run of the list left.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    Complete(Complete),
    Failed(String),
    Missing,
}

/// The state of every run of the plan in `dir`, in run-list order: `known`
/// gives what a batch has just seen of a run; the others are read through.
pub fn states(record: &PlanRecord, dir: &Path, known: &(dyn Fn(u64) -> Option<RunState> + Sync)) -> Vec<RunState> {
    // A run list fits in memory (`MAX_RUNS`), so its indices fit in a usize.
    (0..record.list.runs() as usize)
        .into_par_iter()
        .with_max_len(1)
        .map(|index| {
            let index = index as u64;
            if let Some(state) = known(index) {
                return state;
            }
            let run = record.list.run(index);
            let csv = record.list.trace(dir, &run);
            let overrides = record.overrides(&run);
            if let Some(c) = folder::complete(&csv, &record.identity, run.seed, &overrides, &record.columns) {
                RunState::Complete(c)
            } else if let Some(e) = folder::failed(&csv, &record.identity, run.seed, &overrides) {
                RunState::Failed(e)
            } else {
                RunState::Missing
            }
        })
        .collect()
}

/// The runs that left nothing, as people name them (at most `max`), and how many there are.
pub fn missing(record: &PlanRecord, states: &[RunState], max: usize) -> (Vec<String>, usize) {
    let runs: Vec<RunId> = (states.iter().enumerate())
        .filter(|(_, s)| **s == RunState::Missing)
        .map(|(i, _)| record.list.run(i as u64))
        .collect();
    (runs.iter().take(max).map(|r| record.list.describe(r)).collect(), runs.len())
}

/// `summary.csv`: the values set, the seed, the summary values and the
/// error of a run that failed (empty otherwise).
pub fn summary_csv(record: &PlanRecord, states: &[RunState]) -> String {
    let mut header: Vec<String> = record.list.keys.clone();
    header.push("seed".into());
    header.extend(record.columns.iter().cloned());
    header.push("error".into());
    let mut out = header.join(",");
    out.push('\n');
    for (i, state) in states.iter().enumerate() {
        let run = record.list.run(i as u64);
        let mut fields: Vec<String> =
            record.list.assignments(&run.point).into_iter().map(|(_, v, _)| v.to_string()).collect();
        fields.push(run.seed.to_string());
        match state {
            RunState::Complete(c) => {
                fields.extend(c.values.iter().map(|&v| format_f64(v)));
                fields.push(String::new());
            }
            RunState::Failed(e) => {
                fields.extend(record.columns.iter().map(|_| String::new()));
                fields.push(csv_field(e));
            }
            RunState::Missing => {
                fields.extend(record.columns.iter().map(|_| String::new()));
                fields.push("not run".into());
            }
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// A text field of a CSV row, quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// `manifest.json`: the batch and, per run, its seed, values, files (paths
/// relative to the batch folder) and digests, or its error.
pub fn manifest_json(record: &PlanRecord, states: &[RunState]) -> String {
    let runs: Vec<Json> = (states.iter().enumerate())
        .map(|(i, state)| {
            let run = record.list.run(i as u64);
            let trace = record.list.trace(Path::new(""), &run);
            let trace = trace.to_string_lossy().replace('\\', "/");
            let meta = crate::trace::meta_path(Path::new(&trace)).to_string_lossy().replace('\\', "/");
            let mut doc = json!({ "run": i, "seed": run.seed, "set": record.overrides(&run), "trace": trace });
            if let Json::Object(m) = &mut doc {
                match state {
                    RunState::Complete(c) => {
                        m.insert("status".into(), json!("complete"));
                        m.insert("rows".into(), json!(c.rows));
                        m.insert("trace_sha256".into(), json!(c.trace_sha256));
                        m.insert("meta".into(), json!(meta));
                        m.insert("meta_sha256".into(), json!(c.meta_sha256));
                    }
                    RunState::Failed(e) => {
                        m.insert("status".into(), json!("failed"));
                        m.insert("error".into(), json!(e));
                    }
                    RunState::Missing => {
                        m.insert("status".into(), json!("missing"));
                    }
                }
            }
            doc
        })
        .collect();
    let count = |f: fn(&RunState) -> bool| states.iter().filter(|s| f(s)).count();
    let doc = json!({
        "batch": record.to_value(),
        "complete": count(|s| matches!(s, RunState::Complete(_))),
        "failed": count(|s| matches!(s, RunState::Failed(_))),
        "digest": "sha256",
        "runs": runs,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
