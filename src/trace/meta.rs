//! The metadata that travels beside a trace (`NAME.meta.json`): enough to
//! re-make the trace and to read it without the scenario.
//!
//! Invariants: the JSON's keys are sorted and nothing in it depends on the
//! machine, the clock or the thread count, so the same run writes the same
//! bytes; the scenario hash is FNV-1a 64 over the file's bytes (stable across
//! versions and platforms).

use serde_json::{json, Map, Value};

use crate::hash::fnv1a64;
use crate::ir::{Program, World};

/// The `crowd_version` a run records.
pub const CROWD_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `scenario.hash` a run of a scenario file with these bytes records.
pub fn scenario_hash(bytes: &[u8]) -> String {
    format!("fnv1a64:{:016x}", fnv1a64(bytes))
}

/// What a run adds to the scenario's own description.
#[derive(Clone, Debug)]
pub struct RunInfo<'a> {
    /// The scenario file as the user named it.
    pub scenario_file: &'a str,
    pub scenario_bytes: &'a [u8],
    pub seed: u64,
    pub steps: u64,
    pub frames: u64,
    pub rows: u64,
    pub agents: u32,
    /// The predators' catches: (step, predator id, prey id), in the order made.
    pub catches: Vec<(u64, u32, u32)>,
    /// Per-run summary metrics (`crowd batch`), in a fixed order.
    pub summary: Option<Vec<(String, f64)>>,
    /// `--precision`, if any.
    pub precision: Option<u8>,
    /// The values `--set` gave (`{key: value}`, SI units), `None` if none.
    pub overrides: Option<Value>,
}

/// The metadata document, pretty-printed with sorted keys and a final newline.
pub fn meta_json(program: &Program, info: &RunInfo<'_>) -> String {
    let h = &program.header;
    let mut params: Map<String, Value> = Map::new();
    for (model, name, value) in program.params.values() {
        let entry = params.entry(model).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = entry {
            m.insert(name.into(), json!(value));
        }
    }
    let b = program.world.bounds;
    let mut columns: Vec<&str> = super::csv::BASE_COLUMNS.to_vec();
    columns.extend(program.output.columns.iter().map(|c| c.header()));
    let mut doc = json!({
        "scenario": {
            "name": program.name,
            "file": info.scenario_file,
            "hash": scenario_hash(info.scenario_bytes),
        },
        "seed": info.seed,
        "crowd_version": CROWD_VERSION,
        "time_step_s": h.dt,
        "record_every_steps": h.record_every,
        "frame_rate": h.frame_rate(),
        "duration_s": h.duration,
        "steps": info.steps,
        "frames": info.frames,
        "rows": info.rows,
        "agents": info.agents,
        "columns": columns,
        "units": { "length": "m", "time": "s", "speed": "m/s" },
        "bounds": { "min": [b.min.x, b.min.y], "max": [b.max.x, b.max.y] },
        "walkable_area_wkt": walkable_wkt(&program.world),
        "parameters": params,
    });
    if let (false, Value::Object(m)) = (info.catches.is_empty(), &mut doc) {
        let catches: Vec<Value> = (info.catches.iter())
            .map(|&(step, predator, prey)| json!({ "step": step, "predator": predator, "prey": prey }))
            .collect();
        m.insert("catches".into(), Value::Array(catches));
    }
    if let (Some(p), Value::Object(m)) = (info.precision, &mut doc) {
        m.insert("precision_decimals".into(), json!(p));
    }
    if let (Some(o), Value::Object(m)) = (&info.overrides, &mut doc) {
        m.insert("overrides".into(), o.clone());
    }
    if let (Some(summary), Value::Object(m)) = (&info.summary, &mut doc) {
        let s: Map<String, Value> = summary.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        m.insert("summary".into(), Value::Object(s));
    }
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// The walkable area as WKT: valid polygons, the bounds less the union of
/// the obstacles (`world::outline`).
pub fn walkable_wkt(world: &World) -> String {
    crate::world::outline::wkt(&crate::world::outline::walkable_area(world))
}
