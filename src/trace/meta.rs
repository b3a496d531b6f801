//! The metadata that travels beside a trace (`NAME.meta.json`): enough to
//! re-make the trace and to read it without the scenario.
//!
//! Invariants: the JSON's keys are sorted and nothing in it depends on the
//! machine, the clock or the thread count, so the same run writes the same
//! bytes; the scenario hash is FNV-1a 64 over the file's bytes (stable across
//! versions and platforms).

use serde_json::{json, Map, Value};

use super::float::format_f64;
use crate::hash::fnv1a64;
use crate::ir::{Program, Shape, Vec2, World};
use crate::math;

/// Segments used for a circle in the walkable-area outline.
const CIRCLE_SEGMENTS: u32 = 64;

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
        "frame_rate_hz": h.frame_rate(),
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

/// The walkable area as WKT: the bounds as the outer ring, each obstacle with
/// an area as a hole (circles as 64-gons, thick polylines as their outline).
/// Segments have no area and are left out. Obstacles that overlap each other
/// or the bounds' edge give holes that touch; tools that need a valid polygon
/// can repair it (e.g. shapely's `make_valid`).
pub fn walkable_wkt(world: &World) -> String {
    let b = world.bounds;
    let outer = vec![b.min, Vec2::new(b.max.x, b.min.y), b.max, Vec2::new(b.min.x, b.max.y)];
    let mut rings = vec![ring(&outer)];
    for o in &world.obstacles {
        if let Some(points) = outline(&o.shape) {
            // Holes run clockwise, against the outer ring.
            let mut points = points;
            if signed_area(&points) > 0.0 {
                points.reverse();
            }
            rings.push(ring(&points));
        }
    }
    format!("POLYGON ({})", rings.join(", "))
}

fn ring(points: &[Vec2]) -> String {
    let mut parts: Vec<String> = points.iter().map(|p| format!("{} {}", format_f64(p.x), format_f64(p.y))).collect();
    if let Some(first) = parts.first().cloned() {
        parts.push(first);
    }
    format!("({})", parts.join(", "))
}

fn signed_area(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n).map(|i| points[i].perp_dot(points[(i + 1) % n])).sum::<f64>() / 2.0
}

/// The outline of an obstacle with an area, counter-clockwise or clockwise.
fn outline(shape: &Shape) -> Option<Vec<Vec2>> {
    match shape {
        Shape::Rect(r) => Some(vec![r.min, Vec2::new(r.max.x, r.min.y), r.max, Vec2::new(r.min.x, r.max.y)]),
        Shape::Circle { center, radius } => Some(
            (0..CIRCLE_SEGMENTS)
                .map(|k| {
                    let a = f64::from(k) * std::f64::consts::TAU / f64::from(CIRCLE_SEGMENTS);
                    *center + Vec2::new(math::cos(a), math::sin(a)) * *radius
                })
                .collect(),
        ),
        Shape::Polygon(points) => Some(points.clone()),
        Shape::Polyline { points, width } => polyline_outline(points, width / 2.0),
        Shape::Segment { .. } => None,
    }
}

/// Left side forward, right side back, mitred at the joints (miters capped).
fn polyline_outline(points: &[Vec2], half: f64) -> Option<Vec<Vec2>> {
    if points.len() < 2 {
        return None;
    }
    let normal = |a: Vec2, b: Vec2| {
        let t = (b - a).normalize_or_zero();
        Vec2::new(-t.y, t.x)
    };
    let n = points.len();
    let offsets: Vec<Vec2> = (0..n)
        .map(|i| {
            let before = (i > 0).then(|| normal(points[i - 1], points[i]));
            let after = (i + 1 < n).then(|| normal(points[i], points[i + 1]));
            match (before, after) {
                (Some(a), Some(b)) => {
                    let m = (a + b).normalize_or_zero();
                    let cos = m.dot(a).max(0.25);
                    m * (half / cos)
                }
                (Some(a), None) | (None, Some(a)) => a * half,
                (None, None) => Vec2::ZERO,
            }
        })
        .collect();
    let mut out: Vec<Vec2> = (0..n).map(|i| points[i] + offsets[i]).collect();
    out.extend((0..n).rev().map(|i| points[i] - offsets[i]));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Markers, Obstacle, Rect};

    #[test]
    fn wkt_has_the_bounds_and_a_hole_per_obstacle() {
        let world = World {
            bounds: Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(30.0, 20.0) },
            obstacles: vec![Obstacle {
                name: "wall".into(),
                shape: Shape::Rect(Rect { min: Vec2::new(12.0, 4.0), max: Vec2::new(14.0, 16.0) }),
            }],
            regions: vec![],
            markers: Markers { base: None, overrides: vec![], estimated_count: 0, events: vec![] },
            shapes: vec![],
            masks: vec![],
        };
        assert_eq!(walkable_wkt(&world), "POLYGON ((0 0, 30 0, 30 20, 0 20, 0 0), (12 16, 14 16, 14 4, 12 4, 12 16))");
    }
}
