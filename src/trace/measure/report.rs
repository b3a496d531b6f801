//! Every metric of a run at once: the named summary values and the per-frame
//! series that `crowd metrics` prints.

use crate::ir::{Dist, Params, Program, Rect, Vec2};
use crate::trace::metrics::{lane_order, min_distance};

use super::area;
use super::collide::{collisions, intrusions};
use super::goals::{goals, targets, Reach};
use super::groups;
use super::load::{Trace, DEFAULT_RADIUS};
use super::motion::{local_density, path_ratios, path_ratios_note, paths, stats, turning};

/// SteerBench's default weights: score = 50 × collisions + time + energy.
pub const STEERBENCH_WEIGHTS: (f64, f64, f64) = (50.0, 1.0, 1.0);

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Measurement area for classic density and speed.
    pub area: Option<Rect>,
    /// Individual speed window: rows either side (PedPy's `frame_step`).
    pub speed_step: usize,
    /// Arrival reach for point goals, m (default: arrival radius + [`super::goals::ARRIVAL_SLACK`]).
    pub goal_reach: Option<f64>,
}

/// A metric's value, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Count(u64),
    Missing(&'static str),
}

impl Value {
    fn from_option(v: Option<f64>, why: &'static str) -> Value {
        v.map_or(Value::Missing(why), Value::Number)
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(v) => Some(*v),
            Value::Count(n) => Some(*n as f64),
            Value::Missing(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub name: &'static str,
    pub value: Value,
    pub unit: &'static str,
}

/// One frame's measures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameRow {
    pub frame: usize,
    pub t: f64,
    pub alive: u32,
    pub mean_speed: Option<f64>,
    /// Overlapping pairs in the frame.
    pub contacts: u32,
    /// Collision events that started in the frame.
    pub collisions: u32,
    pub min_distance: Option<f64>,
    pub density_mean: Option<f64>,
    pub density_max: Option<f64>,
    pub lane_order: Option<f64>,
    pub cohesion: Option<f64>,
    pub formation_error: Option<f64>,
    pub area_count: Option<u32>,
    pub area_density: Option<f64>,
    pub area_speed: Option<f64>,
}

/// The per-frame columns, in order, for tables and CSV.
pub const FRAME_COLUMNS: [&str; 15] = [
    "frame",
    "t",
    "alive",
    "mean_speed",
    "contacts",
    "collisions",
    "min_distance",
    "density_mean",
    "density_max",
    "lane_order",
    "cohesion",
    "formation_error",
    "area_count",
    "area_density",
    "area_speed",
];

impl FrameRow {
    /// The values in [`FRAME_COLUMNS`] order.
    pub fn values(&self) -> [Option<f64>; 15] {
        [
            Some(self.frame as f64),
            Some(self.t),
            Some(f64::from(self.alive)),
            self.mean_speed,
            Some(f64::from(self.contacts)),
            Some(f64::from(self.collisions)),
            self.min_distance,
            self.density_mean,
            self.density_max,
            self.lane_order,
            self.cohesion,
            self.formation_error,
            self.area_count.map(f64::from),
            self.area_density,
            self.area_speed,
        ]
    }
}

#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub metrics: Vec<Metric>,
    pub frames: Vec<FrameRow>,
    /// Where inputs came from (radii, goals), for the reader.
    pub notes: Vec<String>,
}

impl Measured {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.metrics.iter().find(|m| m.name == name).map(|m| &m.value)
    }
}

/// The mean of a distribution (the radius an agent most likely has).
pub fn dist_mean(d: &Dist) -> f64 {
    match d {
        Dist::Constant(v) => *v,
        Dist::Uniform { min, max } => (min + max) / 2.0,
        Dist::Normal { mean, .. } => *mean,
        Dist::Choice(options) => options.iter().map(|(v, p)| v * p).sum(),
    }
}

/// Each row's body radius, and where it came from: the trace's `radius`
/// column; else the scenario population's radius (its mean when it is drawn
/// from a distribution: the drawn value is not in the trace); else
/// [`DEFAULT_RADIUS`].
pub fn radii(trace: &Trace, program: Option<&Program>) -> (Vec<f64>, String) {
    if let Some(r) = &trace.radius {
        return (r.clone(), "radii from the trace's radius column".into());
    }
    if let Some(program) = program {
        let mut drawn = false;
        let per_pop: Vec<f64> = trace
            .populations
            .iter()
            .map(|name| {
                program.populations.iter().find(|p| &p.name == name).map_or(DEFAULT_RADIUS, |p| {
                    drawn |= !matches!(p.radius, Dist::Constant(_));
                    dist_mean(&p.radius)
                })
            })
            .collect();
        let note = if drawn {
            "radii from the scenario (the mean of a drawn radius: add `radius` to the output columns for exact values)"
        } else {
            "radii from the scenario"
        };
        return (trace.population.iter().map(|&p| per_pop[p as usize]).collect(), note.into());
    }
    (vec![DEFAULT_RADIUS; trace.rows()], format!("radii: {DEFAULT_RADIUS} m (no radius column, no scenario)"))
}

/// Checks that `trace` can be a run of `program`: every population it names
/// is declared, and no agent is far outside the world.
pub fn check_against(trace: &Trace, program: &Program) -> Result<(), String> {
    if trace.has_column("population") {
        for name in &trace.populations {
            if !program.populations.iter().any(|p| &p.name == name) {
                let known: Vec<&str> = program.populations.iter().map(|p| p.name.as_str()).collect();
                return Err(format!(
                    "the trace does not match scenario {}: it has population `{name}`, the scenario has {}",
                    program.name,
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                ));
            }
        }
    }
    let b = program.world.bounds;
    let margin = ((b.max - b.min).max_element() * 0.25).max(5.0);
    let outer = Rect { min: b.min - margin, max: b.max + margin };
    if let Some(r) = (0..trace.rows()).find(|&r| !outer.contains(trace.pos[r])) {
        return Err(format!(
            "the trace does not match scenario {}: agent {} is at ({}, {}) in frame {}, far outside the world {}..{}",
            program.name,
            trace.id[r],
            trace.pos[r].x,
            trace.pos[r].y,
            trace.frame[r],
            fmt_point(b.min),
            fmt_point(b.max)
        ));
    }
    Ok(())
}

fn fmt_point(p: Vec2) -> String {
    format!("({}, {})", p.x, p.y)
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0u64), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

fn max(v: impl Iterator<Item = f64>) -> Option<f64> {
    v.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
}

/// Measures everything about a run. With a scenario, the trace must match it
/// (see [`check_against`]).
pub fn measure(trace: &Trace, program: Option<&Program>, opts: &Options) -> Result<Measured, String> {
    if let Some(p) = program {
        check_against(trace, p)?;
    }
    if let Some(a) = &opts.area {
        if !(a.min.x < a.max.x && a.min.y < a.max.y) {
            return Err("the measurement area must have x0 < x1 and y0 < y1".into());
        }
    }
    let mut m: Vec<Metric> = Vec::new();
    let mut put = |name: &'static str, value: Value, unit: &'static str| m.push(Metric { name, value, unit });
    let mut notes = Vec::new();
    let (radius, radius_note) = radii(trace, program);
    notes.push(radius_note);

    // The run.
    let n_frames = trace.frames.len();
    let duration = trace.frames.last().map_or(0.0, |f| f.t) - trace.frames.first().map_or(0.0, |f| f.t);
    put("agents", Value::Count(trace.tracks.len() as u64), "");
    put("frames", Value::Count(n_frames as u64), "");
    put("duration", Value::Number(duration), "s");
    put("frame_interval", Value::Number(trace.interval), "s");
    put("max_alive", Value::Count(trace.frames.iter().map(|f| f.rows.len()).max().unwrap_or(0) as u64), "");

    // Per-frame series.
    let mut frames: Vec<FrameRow> = trace
        .frames
        .iter()
        .enumerate()
        .map(|(k, f)| FrameRow { frame: k, t: f.t, alive: f.rows.len() as u32, ..FrameRow::default() })
        .collect();
    let mut all_density = Vec::with_capacity(trace.rows());
    for (k, row) in frames.iter_mut().enumerate() {
        let rows = trace.frame_rows(k);
        let pos = &trace.pos[rows.clone()];
        let vel = &trace.vel[rows.clone()];
        row.mean_speed = mean(vel.iter().map(|v| v.length()));
        row.min_distance = min_distance(pos).map(|(d, _, _)| d);
        let density = local_density(pos);
        row.density_mean = mean(density.iter().copied());
        row.density_max = max(density.iter().copied());
        all_density.extend(density);
        row.lane_order = lane_order(pos, vel);
    }

    // Collisions.
    let c = collisions(trace, &radius);
    for (row, &(contacts, new)) in frames.iter_mut().zip(&c.per_frame) {
        row.contacts = contacts;
        row.collisions = new;
    }
    put("collision_events", Value::Count(c.events), "");
    put("collision_pairs", Value::Count(c.pairs), "");
    put("collision_pair_frames", Value::Count(c.pair_frames), "");
    put("max_overlap", Value::Number(c.max_depth), "m");
    put("min_distance", Value::from_option(min_over(&frames, |f| f.min_distance), "never two agents at once"), "m");
    if let Some(first) = &c.first {
        notes.push(format!(
            "first collision: agents {} and {} at {} s (frame {})",
            first.a, first.b, first.t, first.frame
        ));
    }

    // Obstacles and bounds.
    match program {
        Some(p) => {
            let i = intrusions(trace, &radius, &p.world.obstacles);
            put("intrusion_events", Value::Count(i.events), "");
            put("intrusion_agent_frames", Value::Count(i.agent_frames), "");
            put("max_intrusion", Value::Number(i.max_depth), "m");
            put("min_clearance", Value::from_option(i.min_clearance, "no obstacle, or no agent"), "m");
            put("centre_inside_obstacle_frames", Value::Count(i.centre_inside), "");
            let outside = trace.pos.iter().filter(|q| !p.world.bounds.contains(**q)).count();
            put("outside_bounds_frames", Value::Count(outside as u64), "");
            if let Some(f) = &i.first {
                notes.push(format!(
                    "first intrusion: agent {} into {} at {} s (frame {})",
                    f.a, p.world.obstacles[f.b as usize].name, f.t, f.frame
                ));
            }
            if let Some(f) = &i.first_inside {
                notes.push(format!(
                    "first centre inside an obstacle: agent {} in {} at {} s (frame {})",
                    f.a, p.world.obstacles[f.b as usize].name, f.t, f.frame
                ));
            }
        }
        None => {
            for name in [
                "intrusion_events",
                "intrusion_agent_frames",
                "max_intrusion",
                "min_clearance",
                "centre_inside_obstacle_frames",
                "outside_bounds_frames",
            ] {
                put(
                    name,
                    Value::Missing("needs --scenario"),
                    if matches!(name, "max_intrusion" | "min_clearance") { "m" } else { "" },
                );
            }
        }
    }

    // Goals.
    // Without a scenario, the parameters' defaults.
    let params = program.map_or_else(Params::default, |p| p.params.clone());
    let mut reach = Reach::of(&params);
    if let Some(r) = opts.goal_reach {
        reach.point = r;
    }
    let goal_info = targets(trace, program).map(|t| goals(trace, &t, reach));
    let no_goals = "no goal column and no --scenario goals";
    let mut arrival_time: Vec<Option<f64>> = vec![None; trace.tracks.len()];
    match &goal_info {
        Some(g) if g.agents_with_goal > 0 => {
            let mut tt = g.travel_times.clone();
            let s = stats(&mut tt);
            put("agents_with_goal", Value::Count(g.agents_with_goal), "");
            put("goal_completion", Value::Number(g.agents_arrived as f64 / g.agents_with_goal as f64), "");
            put("trips", Value::Count(g.trips), "");
            put("trips_completed", Value::Count(g.trips_done), "");
            put("travel_time_mean", Value::from_option(s.map(|s| s.mean), "no trip completed"), "s");
            put("travel_time_median", Value::from_option(s.map(|s| s.median), "no trip completed"), "s");
            put("travel_time_max", Value::from_option(s.map(|s| s.max), "no trip completed"), "s");
            put("stuck_agents", Value::Count(g.stuck.len() as u64), "");
            if !g.stuck.is_empty() {
                let shown: Vec<String> = g.stuck.iter().take(10).map(u32::to_string).collect();
                notes.push(format!(
                    "stuck ({}): agents {}{}",
                    super::goals::stuck_rule(),
                    shown.join(", "),
                    if g.stuck.len() > 10 { ", ..." } else { "" }
                ));
            }
            notes.push(format!(
                "goals reached within {} m of a point, inside a region, within {} m of an agent",
                reach.point, reach.agent
            ));
            arrival_time.clone_from(&g.first_arrival);
        }
        _ => {
            for (name, unit) in [
                ("agents_with_goal", ""),
                ("goal_completion", ""),
                ("trips", ""),
                ("trips_completed", ""),
                ("travel_time_mean", "s"),
                ("travel_time_median", "s"),
                ("travel_time_max", "s"),
                ("stuck_agents", ""),
            ] {
                put(name, Value::Missing(no_goals), unit);
            }
        }
    }

    // Paths: per completed trip when goals are known, else per agent.
    let p = paths(trace);
    let (per_track, per_trip) = path_ratios(&p, goal_info.as_ref());
    notes.push(path_ratios_note(per_trip).into());
    let mut ratios: Vec<f64> = per_track.into_iter().map(|(_, x)| x).collect();
    let rs = stats(&mut ratios);
    put("path_length_mean", Value::from_option(mean(p.iter().map(|(l, _)| *l)), "no agents"), "m");
    let short = "no path ended 1 m from where it started";
    put("path_ratio_mean", Value::from_option(rs.map(|s| s.mean), short), "");
    put("path_ratio_median", Value::from_option(rs.map(|s| s.median), short), "");
    put("path_ratio_max", Value::from_option(rs.map(|s| s.max), short), "");

    // Speed.
    let mut speeds: Vec<f64> = trace.vel.iter().map(|v| v.length()).collect();
    let s = stats(&mut speeds);
    put("speed_mean", Value::from_option(s.map(|s| s.mean), "no rows"), "m/s");
    put("speed_sd", Value::from_option(s.map(|s| s.sd), "no rows"), "m/s");
    put("speed_p10", Value::from_option(s.map(|s| s.p10), "no rows"), "m/s");
    put("speed_median", Value::from_option(s.map(|s| s.median), "no rows"), "m/s");
    put("speed_p90", Value::from_option(s.map(|s| s.p90), "no rows"), "m/s");
    put("speed_max", Value::from_option(s.map(|s| s.max), "no rows"), "m/s");
    put("frame_speed_min", Value::from_option(min_over(&frames, |f| f.mean_speed), "no rows"), "m/s");
    put("frame_speed_max", Value::from_option(max(frames.iter().filter_map(|f| f.mean_speed)), "no rows"), "m/s");

    // Density.
    let d = stats(&mut all_density);
    put("local_density_mean", Value::from_option(d.map(|s| s.mean), "no rows"), "1/m2");
    put("local_density_p90", Value::from_option(d.map(|s| s.p90), "no rows"), "1/m2");
    put("local_density_max", Value::from_option(d.map(|s| s.max), "no rows"), "1/m2");

    // Measurement area.
    match &opts.area {
        Some(a) => {
            let speed = area::individual_speed(trace, opts.speed_step.max(1));
            let af = area::per_frame(trace, a, &speed);
            for (row, f) in frames.iter_mut().zip(&af) {
                row.area_count = Some(f.count);
                row.area_density = Some(f.density);
                row.area_speed = f.speed;
            }
            put("area_density_mean", Value::from_option(mean(af.iter().map(|f| f.density)), "no frames"), "1/m2");
            put("area_density_max", Value::from_option(max(af.iter().map(|f| f.density)), "no frames"), "1/m2");
            put(
                "area_speed_mean",
                Value::from_option(mean(af.iter().filter_map(|f| f.speed)), "nobody with a speed in the area"),
                "m/s",
            );
            notes.push(format!(
                "measurement area ({}, {})..({}, {}), {} m2; individual speed over ±{} frame(s)",
                a.min.x,
                a.min.y,
                a.max.x,
                a.max.y,
                a.area(),
                opts.speed_step.max(1)
            ));
        }
        None => {
            for (name, unit) in
                [("area_density_mean", "1/m2"), ("area_density_max", "1/m2"), ("area_speed_mean", "m/s")]
            {
                put(name, Value::Missing("needs --area"), unit);
            }
        }
    }

    // Groups.
    let formations = program.map(|p| groups::declared(trace, p)).unwrap_or_default();
    let gf = groups::per_frame(trace, &formations);
    for (row, g) in frames.iter_mut().zip(&gf) {
        row.cohesion = g.cohesion;
        row.formation_error = g.formation_error;
    }
    let mut group_numbers: Vec<u32> = trace.group.iter().copied().filter(|&g| g != crate::trace::NONE).collect();
    group_numbers.sort_unstable();
    group_numbers.dedup();
    put("groups", Value::Count(group_numbers.len() as u64), "");
    let no_groups = "no group with two members alive at once";
    put("cohesion_mean", Value::from_option(mean(gf.iter().filter_map(|g| g.cohesion)), no_groups), "m");
    put("cohesion_max", Value::from_option(max(gf.iter().filter_map(|g| g.spread)), no_groups), "m");
    put(
        "formation_error_mean",
        Value::from_option(
            mean(gf.iter().filter_map(|g| g.formation_error)),
            if program.is_none() {
                "needs --scenario"
            } else if formations.is_empty() {
                "no formation declared"
            } else {
                "no group walked in formation"
            },
        ),
        "m",
    );

    // Lanes.
    let lanes = "never two moving agents";
    put("lane_order_mean", Value::from_option(mean(frames.iter().filter_map(|f| f.lane_order)), lanes), "");
    put("lane_order_max", Value::from_option(max(frames.iter().filter_map(|f| f.lane_order)), lanes), "");
    put("lane_order_last", Value::from_option(frames.iter().rev().find_map(|f| f.lane_order), lanes), "");

    // Motion quality.
    let tr = turning(trace);
    put(
        "turning_rate",
        Value::from_option((tr.time > 0.0).then(|| tr.total.to_degrees() / tr.time), "nobody walked two frames"),
        "deg/s",
    );
    put("reversals", Value::Count(tr.reversals), "");

    // SteerBench-style totals.
    let mut total_time = 0.0;
    for (k, arrived) in arrival_time.iter().enumerate() {
        let rows = trace.tracks.rows(k);
        let (Some(&a), Some(&b)) = (rows.first(), rows.last()) else { continue };
        let born = trace.frames[trace.frame[a as usize] as usize].t;
        let end = arrived.unwrap_or(trace.frames[trace.frame[b as usize] as usize].t);
        total_time += end - born;
    }
    let energy = trace.vel.iter().map(|v| 0.5 * v.length_squared()).sum::<f64>() * trace.interval;
    let (wc, wt, we) = STEERBENCH_WEIGHTS;
    put("total_time", Value::Number(total_time), "s");
    put("kinetic_energy", Value::Number(energy), "J/kg");
    put("steerbench_score", Value::Number(wc * c.events as f64 + wt * total_time + we * energy), "");

    Ok(Measured { metrics: m, frames, notes })
}

fn min_over(frames: &[FrameRow], f: impl Fn(&FrameRow) -> Option<f64>) -> Option<f64> {
    frames.iter().filter_map(f).fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.min(x))))
}
