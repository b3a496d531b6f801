//! A batch folder: what each run left in it, and whether it belongs there.
//!
//! A run is complete when its metadata (written last) is this batch's, of its
//! seed and values, and its trace has the header and number of rows the
//! metadata records; a run that failed leaves `seed-N.failed.json` with its
//! error instead. A folder holds the runs of one batch: one scenario, as one
//! text, made by one `crowd` version with one `--precision`; runs of other
//! parameter points of that batch may sit beside them.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value as Json};

use super::{RunId, RunList, Seeds};
use crate::hash::Sha256Tee;
use crate::trace::meta_path;

/// The record of the run list, written by every batch into its folder.
pub const PLAN_FILE: &str = "batch.json";

/// What a run's metadata says it is a run of: everything that decides its
/// files but the seed and the values set.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    pub name: String,
    pub hash: String,
    pub version: String,
    /// `--precision`, `None` for the shortest exact form.
    pub precision: Option<u64>,
}

impl Identity {
    /// `None` for a document that is not a run's metadata, a failure or a plan.
    pub fn of(doc: &Json) -> Option<Identity> {
        let text = |pointer: &str| doc.pointer(pointer).and_then(Json::as_str).map(String::from);
        Some(Identity {
            name: text("/scenario/name")?,
            hash: text("/scenario/hash")?,
            version: text("/crowd_version")?,
            precision: doc.get("precision_decimals").and_then(Json::as_u64),
        })
    }

    /// How `found`, the identity of `what` (a run, a plan), differs from this
    /// batch, the first difference only.
    pub fn mismatch(&self, found: &Identity, what: &str, scenario_file: &str) -> String {
        let precision =
            |p: Option<u64>| p.map_or_else(|| "without --precision".into(), |p| format!("with --precision {p}"));
        if found.name != self.name {
            format!(
                "is {what} of scenario `{}`, this batch runs scenario `{}` ({scenario_file})",
                found.name, self.name
            )
        } else if found.hash != self.hash {
            format!(
                "is {what} of scenario `{}` as another text ({}); {scenario_file} is now {} (edited since {}?)",
                found.name,
                found.hash,
                self.hash,
                if what == "a run" { "the run" } else { "then" }
            )
        } else if found.version != self.version {
            format!("was made by crowd {}; this is crowd {}", found.version, self.version)
        } else {
            format!("was written {}; this batch writes {}", precision(found.precision), precision(self.precision))
        }
    }
}

/// The overrides of a run as its metadata records them: `{key: value}`.
pub fn overrides_json(assignments: &[(&str, &str, f64)]) -> Json {
    Json::Object(assignments.iter().map(|(k, text, v)| ((*k).to_string(), number(text, *v))).collect())
}

/// A value as JSON, written as its canonical text: a count stays a whole number.
fn number(text: &str, v: f64) -> Json {
    serde_json::from_str::<serde_json::Number>(text).map_or_else(|_| json!(v), Json::Number)
}

/// The first document in `dir` (the runs' metadata and failures, in name
/// order, one folder deep, then the plan) that says it belongs to another
/// batch: its path and how it differs. Documents that cannot be read say
/// nothing: their runs are made again when asked for.
pub fn foreign(dir: &Path, ours: &Identity, scenario_file: &str) -> Option<(PathBuf, String)> {
    let mut docs = Vec::new();
    let mut level = vec![dir.to_path_buf()];
    for depth in 0..2 {
        let mut next = Vec::new();
        for d in &level {
            let Ok(entries) = fs::read_dir(d) else { continue };
            let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
            entries.sort();
            for p in entries {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if p.is_dir() && depth == 0 {
                    next.push(p);
                } else if name.starts_with("seed-") && (name.ends_with(".meta.json") || name.ends_with(".failed.json"))
                {
                    docs.push(p);
                }
            }
        }
        level = next;
    }
    docs.push(dir.join(PLAN_FILE));
    docs.into_iter().find_map(|path| {
        let doc: Json = serde_json::from_slice(&fs::read(&path).ok()?).ok()?;
        let found = Identity::of(&doc)?;
        (found != *ours).then(|| {
            let what = if path.ends_with(PLAN_FILE) { "the plan of a batch" } else { "a run" };
            let why = ours.mismatch(&found, what, scenario_file);
            (path, why)
        })
    })
}

/// A complete run, as a merge lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Complete {
    /// The summary values, in the order of the plan's columns.
    pub values: Vec<f64>,
    pub rows: u64,
    pub trace_sha256: String,
    pub meta_sha256: String,
}

/// The run at `csv` if it is a complete run of this batch's `seed` at these
/// values: read through once, to count its rows and take its digest.
pub fn complete(csv: &Path, ours: &Identity, seed: u64, overrides: &Json, columns: &[String]) -> Option<Complete> {
    let meta_bytes = fs::read(meta_path(csv)).ok()?;
    let meta: Json = serde_json::from_slice(&meta_bytes).ok()?;
    if Identity::of(&meta).as_ref() != Some(ours) || meta.get("seed")?.as_u64()? != seed {
        return None;
    }
    let empty = Json::Object(Map::new());
    if meta.get("overrides").unwrap_or(&empty) != overrides {
        return None;
    }
    let summary = meta.get("summary")?;
    let values = columns.iter().map(|c| summary.get(c).and_then(Json::as_f64)).collect::<Option<_>>()?;
    let header: Vec<&str> = meta.get("columns")?.as_array()?.iter().map(Json::as_str).collect::<Option<_>>()?;
    let rows = meta.get("rows")?.as_u64()?;
    let (first, lines, trace_sha256) = read_through(csv).ok()?;
    (first == header.join(",") && lines == rows + 1).then(|| Complete {
        values,
        rows,
        trace_sha256,
        meta_sha256: crate::hash::sha256_hex(&meta_bytes),
    })
}

/// The first line of a file, its number of lines and its SHA-256, read in
/// blocks: a batch's traces can be large.
fn read_through(path: &Path) -> std::io::Result<(String, u64, String)> {
    let mut r = BufReader::with_capacity(1 << 16, fs::File::open(path)?);
    let mut digest = Sha256Tee::new(std::io::sink());
    let mut first = Vec::new();
    r.read_until(b'\n', &mut first)?;
    digest.write_all(&first)?;
    let mut lines = u64::from(first.pop_if(|&mut b| b == b'\n').is_some());
    loop {
        let block = r.fill_buf()?;
        if block.is_empty() {
            break;
        }
        lines += block.iter().filter(|&&b| b == b'\n').count() as u64;
        digest.write_all(block)?;
        let n = block.len();
        r.consume(n);
    }
    Ok((String::from_utf8_lossy(&first).into_owned(), lines, digest.hex()))
}

/// Where a failed run's error goes, beside where its trace would be.
pub fn failure_path(csv: &Path) -> PathBuf {
    let stem = csv.file_stem().map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    csv.with_file_name(format!("{stem}.failed.json"))
}

/// The record of a failed run: who it is and its error.
pub fn failure_json(ours: &Identity, seed: u64, overrides: &Json, error: &str) -> String {
    let mut doc = json!({
        "scenario": { "name": ours.name, "hash": ours.hash },
        "crowd_version": ours.version,
        "seed": seed,
        "overrides": overrides,
        "error": error,
    });
    if let (Some(p), Json::Object(m)) = (ours.precision, &mut doc) {
        m.insert("precision_decimals".into(), json!(p));
    }
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// The error of the run at `csv` if it failed in this batch.
pub fn failed(csv: &Path, ours: &Identity, seed: u64, overrides: &Json) -> Option<String> {
    let doc: Json = serde_json::from_slice(&fs::read(failure_path(csv)).ok()?).ok()?;
    let empty = Json::Object(Map::new());
    (Identity::of(&doc).as_ref() == Some(ours)
        && doc.get("seed")?.as_u64()? == seed
        && doc.get("overrides").unwrap_or(&empty) == overrides)
        .then(|| doc.get("error")?.as_str().map(String::from))?
}

/// What `batch.json` records: the batch's identity, its run list and the
/// summary's columns. Every shard writes the same bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRecord {
    pub identity: Identity,
    pub scenario_file: String,
    /// The SHA-256 of the scenario's text (its `hash` is the FNV-1a the runs' metadata records).
    pub scenario_sha256: String,
    pub list: RunList,
    pub columns: Vec<String>,
}

impl PlanRecord {
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_value()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The document [`PlanRecord::to_json`] writes.
    pub fn to_value(&self) -> Json {
        let set: Vec<Json> = (self.list.keys.iter().zip(&self.list.values))
            .map(|(k, vs)| json!({ "key": k, "values": vs.iter().map(|(t, v)| number(t, *v)).collect::<Vec<_>>() }))
            .collect();
        let mut doc = json!({
            "scenario": {
                "name": self.identity.name,
                "file": self.scenario_file,
                "hash": self.identity.hash,
                "sha256": self.scenario_sha256,
            },
            "crowd_version": self.identity.version,
            "seeds": { "first": self.list.seeds.first, "last": self.list.seeds.last },
            "set": set,
            "runs": self.list.runs(),
            "summary_columns": self.columns,
        });
        if let (Some(p), Json::Object(m)) = (self.identity.precision, &mut doc) {
            m.insert("precision_decimals".into(), json!(p));
        }
        doc
    }

    /// Reads `dir/batch.json`; the error says what is wrong with it.
    pub fn read(dir: &Path) -> Result<PlanRecord, String> {
        let path = dir.join(PLAN_FILE);
        let bytes = fs::read(&path)
            .map_err(|e| format!("cannot read {}: {e} (is {} a batch folder?)", path.display(), dir.display()))?;
        let bad = |what: &str| format!("{} is not a batch's plan: {what}", path.display());
        let doc: Json = serde_json::from_slice(&bytes).map_err(|e| bad(&e.to_string()))?;
        let identity = Identity::of(&doc).ok_or_else(|| bad("no scenario or crowd_version"))?;
        let num = |p: &str| doc.pointer(p).and_then(Json::as_u64).ok_or_else(|| bad(&format!("no {p}")));
        let seeds = Seeds { first: num("/seeds/first")?, last: num("/seeds/last")? };
        if seeds.first > seeds.last {
            return Err(bad("an empty range of seeds"));
        }
        let mut keys = Vec::new();
        let mut values = Vec::new();
        for s in doc.get("set").and_then(Json::as_array).ok_or_else(|| bad("no set"))? {
            keys.push(s.get("key").and_then(Json::as_str).ok_or_else(|| bad("a setting without key"))?.to_string());
            let vs: Vec<f64> =
                (s.get("values").and_then(Json::as_array).ok_or_else(|| bad("a setting without values"))?)
                    .iter()
                    .map(Json::as_f64)
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad("a value that is not a number"))?;
            if vs.is_empty() {
                return Err(bad("a setting without values"));
            }
            values.push(vs.into_iter().map(|v| (crate::trace::float::format_f64(v), v)).collect());
        }
        let list = RunList { seeds, keys, values };
        let points = list.values.iter().map(|v| v.len() as u64).fold(1, u64::saturating_mul);
        if points.saturating_mul(seeds.count()) > super::MAX_RUNS {
            return Err(bad("more runs than a batch may list"));
        }
        let columns = (doc.get("summary_columns").and_then(Json::as_array).ok_or_else(|| bad("no summary_columns"))?)
            .iter()
            .map(|c| c.as_str().map(String::from))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("a summary column that is not text"))?;
        let text = |p: &str| doc.pointer(p).and_then(Json::as_str).unwrap_or("").to_string();
        let (scenario_file, scenario_sha256) = (text("/scenario/file"), text("/scenario/sha256"));
        Ok(PlanRecord { identity, scenario_file, scenario_sha256, list, columns })
    }

    /// The overrides `run` records in its metadata.
    pub fn overrides(&self, run: &RunId) -> Json {
        overrides_json(&self.list.assignments(&run.point))
    }
}
