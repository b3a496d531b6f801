//! Metrics over recorded frames, and the evaluation of a scenario's
//! expectations with them.
//!
//! Invariants: every metric is a pure function of recorded data (positions,
//! velocities, populations) and the scenario's geometry; neighbour searches go
//! through the spatial grid, never over all pairs; ties are broken by row order.
//! An expectation whose metric is not implemented yet fails as
//! "not implemented": it never passes by default.

use std::fmt;

use super::AgentLog;
use crate::ir::{Amount, AreaRef, Comparison, ExpectationKind, FormationKind, Program, Shape, Subject, Vec2};
use crate::math;
use crate::world::geometry::{contains, points_box};
use crate::world::grid::Grid;

use super::claims::when::{self, seen};
use super::claims::{arrive, bodies, groups, moved, near, speed, Frames, Num};
use super::read::{FrameSpan, Recorded};

/// Speeds below this count as standing when telling flow directions apart, m/s.
pub const MOVING: f64 = 0.1;
/// Lane order: neighbours within this lateral distance share a lane, m.
pub const LANE_HALF_WIDTH: f64 = 0.3;
/// Lane order: and within this distance along the flow, m.
pub const LANE_REACH: f64 = 3.0;

/// Whether an agent of population `population` is one of `subject`.
pub fn subject_matches(program: &Program, subject: Subject, population: u32) -> bool {
    subject.includes(program, crate::ir::PopulationId(population))
}

/// The closest pair closer than `r`: `(distance, i, j)` with `i < j`; ties go
/// to the first pair in row order.
pub fn min_distance_within(points: &[Vec2], r: f64) -> Option<(f64, usize, usize)> {
    if points.len() < 2 {
        return None;
    }
    let mut grid = Grid::new(points_box(points), r, (points.len() as u64 * 4).max(64));
    grid.rebuild(points);
    let mut best: Option<(f64, usize, usize)> = None;
    for (i, p) in points.iter().enumerate() {
        grid.for_each_candidate(*p, r, |j| {
            let j = j as usize;
            if j <= i {
                return;
            }
            let d = p.distance(points[j]);
            if d < r && best.is_none_or(|(b, bi, bj)| d < b || (d == b && (i, j) < (bi, bj))) {
                best = Some((d, i, j));
            }
        });
    }
    best
}

/// The closest pair of points, `(distance, i, j)`.
pub fn min_distance(points: &[Vec2]) -> Option<(f64, usize, usize)> {
    if points.len() < 2 {
        return None;
    }
    let b = points_box(points);
    let diag = b.min.distance(b.max);
    let mut r = 1.0;
    loop {
        if let Some(found) = min_distance_within(points, r) {
            return Some(found);
        }
        if r > diag {
            // Every pair is within the diagonal: only coincident-free degenerate cases land here.
            return min_distance_within(points, diag * 2.0 + 1.0);
        }
        r *= 4.0;
    }
}

/// Mean speed over the velocities, m/s.
pub fn mean_speed(vel: &[Vec2]) -> Option<f64> {
    (!vel.is_empty()).then(|| vel.iter().map(|v| v.length()).sum::<f64>() / vel.len() as f64)
}

/// Lane order parameter (after Rex & Löwen 2007): the flow axis is x or y,
/// whichever carries more of the speed; each moving agent with lane
/// neighbours (moving agents within [`LANE_HALF_WIDTH`] across and
/// [`LANE_REACH`] along the axis) scores `((same − opposite)/(same + opposite))²`;
/// the parameter is the mean score. 1: perfect lanes; near 0: mixed.
pub fn lane_order(pos: &[Vec2], vel: &[Vec2]) -> Option<f64> {
    lane_order_within(pos, vel, LANE_HALF_WIDTH)
}

/// The lane order parameter with lane neighbours up to `half_width` across:
/// wider than a body, it tells lanes of several abreast from single files
/// woven between each other.
pub fn lane_order_within(pos: &[Vec2], vel: &[Vec2], half_width: f64) -> Option<f64> {
    let moving: Vec<usize> = (0..pos.len()).filter(|&i| vel[i].length() > MOVING).collect();
    if moving.len() < 2 {
        return None;
    }
    let (sx, sy) = moving.iter().fold((0.0, 0.0), |(x, y), &i| (x + vel[i].x.abs(), y + vel[i].y.abs()));
    let along_x = sx >= sy;
    let axis = |v: Vec2| if along_x { (v.x, v.y) } else { (v.y, v.x) };
    let pts: Vec<Vec2> = moving.iter().map(|&i| pos[i]).collect();
    let mut grid = Grid::new(points_box(&pts), half_width, (pts.len() as u64 * 4).max(64));
    grid.rebuild(&pts);
    let (mut total, mut scored) = (0.0, 0u32);
    for (a, &i) in moving.iter().enumerate() {
        let dir = axis(vel[i]).0 > 0.0;
        let (mut same, mut opposite) = (0u32, 0u32);
        grid.for_each_candidate(pts[a], LANE_REACH.max(half_width), |b| {
            let b = b as usize;
            if b == a {
                return;
            }
            let (along, across) = axis(pts[b] - pts[a]);
            if along.abs() <= LANE_REACH && across.abs() <= half_width {
                if (axis(vel[moving[b]]).0 > 0.0) == dir {
                    same += 1;
                } else {
                    opposite += 1;
                }
            }
        });
        if same + opposite > 0 {
            let f = (f64::from(same) - f64::from(opposite)) / f64::from(same + opposite);
            total += f * f;
            scored += 1;
        }
    }
    (scored > 0).then(|| total / f64::from(scored))
}

/// How much of the circle around `center` the points cover: 2π minus the
/// largest angular gap between consecutive bearings, rad (0 for one point).
pub fn angular_spread(points: &[Vec2], center: Vec2) -> f64 {
    let mut bearings: Vec<f64> =
        points.iter().filter(|p| **p != center).map(|p| math::atan2(p.y - center.y, p.x - center.x)).collect();
    if bearings.len() < 2 {
        return 0.0;
    }
    bearings.sort_by(f64::total_cmp);
    let tau = std::f64::consts::TAU;
    let mut gap = bearings[0] + tau - bearings[bearings.len() - 1];
    for w in bearings.windows(2) {
        gap = gap.max(w[1] - w[0]);
    }
    tau - gap
}

/// The mask line test lives with the markers it tags; re-exported for callers here.
pub use crate::world::markers::on_mask;

pub fn area_contains(program: &Program, area: AreaRef, p: Vec2) -> bool {
    let shape = |s: &Shape| contains(s, p);
    match area {
        AreaRef::Region(r) => shape(&program.world.regions[r.index()].shape),
        AreaRef::Shape(s) => shape(&program.world.shapes[s.index()].shape),
        AreaRef::Space(s) => shape(&program.spaces[s.index()].shape),
        AreaRef::Mask(m) => on_mask(&program.world.masks[m.index()], p),
    }
}

/// Why an agent's goal does not serve its wants, if it does not: `goal` is
/// the label of the trace's `goal` cell, `wants` the population's wants.
pub fn goal_mismatch(program: &Program, goal: &str, wants: &[crate::ir::ResourceId]) -> Option<String> {
    let Some(object) = program.objects.iter().find(|o| o.name == goal) else {
        return Some(format!("`{goal}` is not an object, so it provides nothing"));
    };
    if object.provides.iter().any(|r| wants.contains(r)) {
        return None;
    }
    let names = |ids: &[crate::ir::ResourceId]| {
        ids.iter().map(|r| program.resources[r.index()].as_str()).collect::<Vec<_>>().join(", ")
    };
    Some(format!("`{goal}` provides {} but the agent wants {}", names(&object.provides), names(wants)))
}

/// An expectation's result.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Holds(String),
    Fails(String),
    NotImplemented(String),
}

impl Verdict {
    pub fn holds(&self) -> bool {
        matches!(self, Verdict::Holds(_))
    }
}

/// One expectation with its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub text: String,
    pub verdict: Verdict,
}

impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.verdict {
            Verdict::Holds(d) => write!(f, "holds: {} ({d})", self.text),
            Verdict::Fails(d) => write!(f, "FAILS: {} ({d})", self.text),
            Verdict::NotImplemented(d) => write!(f, "NOT IMPLEMENTED: {} ({d})", self.text),
        }
    }
}

/// Evaluates every expectation of the program over a recorded run.
pub fn evaluate(program: &Program, rec: &Recorded) -> Vec<Checked> {
    let frames = Frames::new(program, rec);
    program.expectations.iter().map(|e| Checked { text: e.text.clone(), verdict: verdict(&frames, &e.kind) }).collect()
}

fn verdict(fr: &Frames<'_>, kind: &ExpectationKind) -> Verdict {
    let program = fr.program;
    let rec = fr.rec;
    match kind {
        ExpectationKind::ReachesGoal { who, by } => arrive::reaches_goal(fr, *who, *by),
        ExpectationKind::MinDistance { among, distance, at } => when::lowest(
            fr,
            *at,
            distance - 1e-12,
            |f| closest_pair(fr, f, *among).map(|(d, a, b)| (d, (a, b))),
            |d, &(a, b), t| closest_detail(d, a, b, t),
            "never two such agents",
        ),
        ExpectationKind::NeverInside { who, obstacle } => {
            let obstacles: Vec<usize> = match obstacle {
                Some(o) => vec![o.index()],
                None => (0..program.world.obstacles.len()).collect(),
            };
            for f in &rec.frames {
                for r in fr.rows(f, *who) {
                    if let Some(&o) =
                        obstacles.iter().find(|&&o| contains(&program.world.obstacles[o].shape, rec.trace.pos[r]))
                    {
                        return Verdict::Fails(format!(
                            "agent {} is inside {} at {} s (frame {})",
                            rec.trace.id[r],
                            program.world.obstacles[o].name,
                            Num(f.t),
                            frame_index(rec, f)
                        ));
                    }
                }
            }
            Verdict::Holds(format!("checked {} frame(s)", rec.frames.len()))
        }
        ExpectationKind::Inside { who, comparison, amount, area, at } => when::over(fr, *at, |f| {
            let rows = fr.rows(f, *who);
            if rows.is_empty() && *comparison == Comparison::AtLeast {
                return Err(format!("no such agent at {} s", Num(f.t)));
            }
            let inside = rows.iter().filter(|&&r| area_contains(program, *area, rec.trace.pos[r])).count();
            seen(
                amount_compares(*comparison, *amount, inside, rows.len()),
                format!("{inside} of {} inside at {} s", rows.len(), Num(f.t)),
            )
        }),
        ExpectationKind::Lanes { width, among, threshold, at } => when::over(fr, *at, |f| {
            let rows = fr.rows(f, *among);
            let pos: Vec<Vec2> = rows.iter().map(|&r| rec.trace.pos[r]).collect();
            let vel: Vec<Vec2> = rows.iter().map(|&r| rec.trace.vel[r]).collect();
            match lane_order_within(&pos, &vel, width / 2.0) {
                None => Err(format!("fewer than two moving agents in lanes at {} s", Num(f.t))),
                Some(phi) => seen(phi >= threshold - 1e-12, format!("lane order {} at {} s", Num(phi), Num(f.t))),
            }
        }),
        ExpectationKind::Surrounds { who, target, spread, at } => when::over(fr, *at, |f| {
            let targets: Vec<Vec2> = fr.rows(f, *target).iter().map(|&r| rec.trace.pos[r]).collect();
            if targets.is_empty() {
                return Err(format!("no target agent at {} s", Num(f.t)));
            }
            let center = targets.iter().copied().sum::<Vec2>() / targets.len() as f64;
            let pts: Vec<Vec2> = fr.rows(f, *who).iter().map(|&r| rec.trace.pos[r]).collect();
            let got = angular_spread(&pts, center);
            seen(got >= spread - 1e-12, format!("spread {} deg at {} s", Num(got.to_degrees()), Num(f.t)))
        }),
        ExpectationKind::AwayFrom { who, from, distance, at } => when::over(fr, *at, |f| {
            let pts: Vec<Vec2> = fr.rows(f, *from).iter().map(|&r| rec.trace.pos[r]).collect();
            let mine = fr.rows(f, *who);
            if mine.is_empty() {
                return Err(format!("no such agent at {} s", Num(f.t)));
            }
            match closest_between(&mine.iter().map(|&r| rec.trace.pos[r]).collect::<Vec<_>>(), &pts) {
                None => Ok(format!("nobody to be away from at {} s", Num(f.t))),
                Some(d) => seen(d > *distance, format!("closest {} m at {} s", Num(d), Num(f.t))),
            }
        }),
        ExpectationKind::CountIs { who, count, tolerance, at } => when::over(fr, *at, |f| {
            let n = fr.rows(f, *who).len() as i64;
            seen((n - i64::from(*count)).abs() <= i64::from(*tolerance), format!("{n} alive at {} s", Num(f.t)))
        }),
        ExpectationKind::CountBound { who, comparison, bound, at } => when::over(fr, *at, |f| {
            let n = fr.rows(f, *who).len();
            let ok = match comparison {
                Comparison::AtMost => n <= *bound as usize,
                Comparison::AtLeast => n >= *bound as usize,
            };
            seen(ok, format!("{n} alive at {} s", Num(f.t)))
        }),
        ExpectationKind::NearestDistance { who, comparison, bound, at } => {
            near::nearest_distance(fr, *who, *comparison, *bound, *at)
        }
        ExpectationKind::MeanSpeed { who, comparison, bound, at } => {
            speed::mean_speed(fr, *who, *comparison, *bound, *at)
        }
        ExpectationKind::Near { who, of, distance, at } => {
            when::over(fr, *at, |f| near::within(fr, f, *who, *of, *distance))
        }
        ExpectationKind::Covers { who, area, distance, at } => near::covers(fr, *who, *area, *distance, *at),
        ExpectationKind::FormationError { group, comparison, bound, at } => {
            groups::formation_error(fr, *group, *comparison, *bound, *at)
        }
        ExpectationKind::Spread { group, comparison, bound, at } => {
            groups::spread(fr, *group, *comparison, *bound, *at)
        }
        ExpectationKind::Collisions { among, max } => bodies::collisions(fr, *among, *max),
        ExpectationKind::Overlap { among, max } => bodies::overlap(fr, *among, *max),
        ExpectationKind::Clearance { who, obstacle, distance, at } => {
            bodies::clearance(fr, *who, *obstacle, *distance, *at)
        }
        ExpectationKind::Stuck { who, max } => arrive::stuck(fr, *who, *max),
        ExpectationKind::TripsWithin { who, share, within } => arrive::trips_within(fr, *who, *share, *within),
        ExpectationKind::PicksGoals { who, count, by } => arrive::picks(fr, *who, Comparison::AtLeast, *count, *by),
        ExpectationKind::PicksAtMost { who, count, by } => arrive::picks(fr, *who, Comparison::AtMost, *count, *by),
        ExpectationKind::PathRatio { who, max } => moved::path_ratio(fr, *who, *max),
        ExpectationKind::Moves { who, distance, by } => moved::moves(fr, *who, *distance, *by),
        ExpectationKind::MoveLess { who, max, distance, by } => moved::move_less(fr, *who, *max, *distance, *by),
        ExpectationKind::NeverInCore { who, groups } => groups::never_in_core(fr, *who, *groups),
        ExpectationKind::GoalsProvideWants { who } => {
            let Some(goal) = &rec.goal else {
                return Verdict::Fails(
                    "the trace has no `goal` column: add `output { columns goal }` to the scenario".into(),
                );
            };
            let mut checked = 0usize;
            for f in &rec.frames {
                for r in fr.rows(f, *who) {
                    let Some(label) = goal[r] else { continue };
                    let Some(pop) = program.populations.get(rec.population[r] as usize) else { continue };
                    // Agents that want nothing have no wants to serve: any goal will do.
                    if pop.wants.is_empty() {
                        continue;
                    }
                    let name = rec.trace.goals.get(label as usize).map_or("?", String::as_str);
                    // Leaving by the population's exit is not a want: from the
                    // leaving time on, the exit region is the one goal allowed.
                    if let crate::ir::Leave::Via { region, from } = pop.leave {
                        if f.t >= from - 1e-9 && program.world.regions[region.index()].name == name {
                            continue;
                        }
                    }
                    checked += 1;
                    if let Some(why) = goal_mismatch(program, name, &pop.wants) {
                        return Verdict::Fails(format!("agent {} heads for {why} at {} s", rec.trace.id[r], Num(f.t)));
                    }
                }
            }
            Verdict::Holds(format!("{checked} goal cell(s) checked"))
        }
        ExpectationKind::FormationIs { group, formation, at } => when::over(fr, *at, |f| {
            let rows = fr.rows(f, *group);
            if rows.is_empty() {
                return Err(format!("no such agent at {} s", Num(f.t)));
            }
            match formation_of(&rows, &rec.formation) {
                FormationSeen::NoColumn => {
                    Err("the trace has no `formation` column (output { columns formation })".into())
                }
                FormationSeen::None => {
                    Err(format!("none of {} agent(s) walks in formation at {} s", rows.len(), Num(f.t)))
                }
                FormationSeen::Mixed(kinds) => {
                    Err(format!("the agents walk in different formations at {} s: {kinds}", Num(f.t)))
                }
                FormationSeen::One(k, count) => seen(
                    k == *formation,
                    format!("{count} of {} agent(s) walk {} at {} s", rows.len(), k.name(), Num(f.t)),
                ),
            }
        }),
    }
}

/// Whether `n` of `total` agents meet an `at least` / `at most` amount.
pub fn amount_compares(comparison: Comparison, amount: Amount, n: usize, total: usize) -> bool {
    let (n, total) = (n as f64, total as f64);
    let (have, bound) = match amount {
        Amount::Count(c) => (n, f64::from(c)),
        Amount::Share(s) if total == 0.0 => (0.0, s),
        Amount::Share(s) => (n / total, s),
    };
    compares(comparison, have, bound)
}

/// Whether `value` is within `bound` the way `comparison` says (to rounding).
pub fn compares(comparison: Comparison, value: f64, bound: f64) -> bool {
    match comparison {
        Comparison::AtMost => value <= bound + 1e-12,
        Comparison::AtLeast => value >= bound - 1e-12,
    }
}

/// What the `formation` column says about some rows.
#[derive(Clone, Debug, PartialEq)]
pub enum FormationSeen {
    /// The trace has no formation column.
    NoColumn,
    /// Every cell is empty: nobody walks in formation.
    None,
    /// Every non-empty cell names this formation (and how many there are).
    One(FormationKind, usize),
    /// Several formations, named in order of appearance.
    Mixed(String),
}

/// The formation of a group from its rows of one frame: the one formation
/// its members walking in formation share (members standing or walking
/// alone have an empty cell and do not count).
pub fn formation_of(rows: &[usize], column: &[Option<FormationKind>]) -> FormationSeen {
    if column.is_empty() {
        return FormationSeen::NoColumn;
    }
    let mut seen: Vec<(FormationKind, usize)> = Vec::new();
    for &r in rows {
        if let Some(k) = column.get(r).copied().flatten() {
            match seen.iter_mut().find(|(s, _)| *s == k) {
                Some((_, n)) => *n += 1,
                None => seen.push((k, 1)),
            }
        }
    }
    match seen.as_slice() {
        [] => FormationSeen::None,
        [(k, n)] => FormationSeen::One(*k, *n),
        _ => FormationSeen::Mixed(seen.iter().map(|(k, n)| format!("{n} {}", k.name())).collect::<Vec<_>>().join(", ")),
    }
}

/// The two closest agents of `among` in frame `f`: their distance and ids.
fn closest_pair(fr: &Frames<'_>, f: &FrameSpan, among: Subject) -> Option<(f64, u32, u32)> {
    let rows = fr.rows(f, among);
    let pts: Vec<Vec2> = rows.iter().map(|&r| fr.rec.trace.pos[r]).collect();
    min_distance(&pts).map(|(d, i, j)| (d, fr.rec.trace.id[rows[i]], fr.rec.trace.id[rows[j]]))
}

fn closest_detail(d: f64, a: u32, b: u32, t: f64) -> String {
    format!("closest: {} m between agents {a} and {b} at {} s", Num(d), Num(t))
}

/// The index of frame `f` among the recorded frames.
pub(crate) fn frame_index(rec: &Recorded, f: &FrameSpan) -> usize {
    rec.frames.iter().position(|g| std::ptr::eq(g, f)).unwrap_or(0)
}

/// The smallest distance from any point of `a` to any point of `b`.
pub fn closest_between(a: &[Vec2], b: &[Vec2]) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let bb = points_box(b);
    let span = bb.min.distance(bb.max).max(1.0);
    let mut grid = Grid::new(bb, span / (b.len() as f64).sqrt().max(1.0), (b.len() as u64 * 4).max(64));
    grid.rebuild(b);
    let mut r = grid.cell_size();
    loop {
        let mut best: Option<f64> = None;
        for p in a {
            grid.for_each_candidate(*p, r, |j| {
                let d = p.distance(b[j as usize]);
                if d <= r && best.is_none_or(|x| d < x) {
                    best = Some(d);
                }
            });
        }
        if best.is_some() {
            return best;
        }
        r *= 4.0;
    }
}

/// Per-run summary metrics (one row of `crowd batch`'s summary), gathered
/// frame by frame while the run records.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    rows: u64,
    speed_sum: f64,
    min_distance: Option<f64>,
    max_alive: u64,
    /// Goal labels below this are regions; the objects follow.
    regions: u32,
    /// By object: the resources it provides.
    provides: Vec<Vec<usize>>,
    resources: Vec<String>,
    /// By agent id: its group number (`NONE` alone) and its latest goal label.
    group_of: Vec<u32>,
    last_goal: Vec<u32>,
    /// By resource: goals taken at an object providing it.
    visits: Vec<u64>,
}

/// The fixed columns of a summary, before the groups and visits.
const FIXED: [&str; 6] = ["agents", "steps", "max_alive", "mean_speed", "min_distance", "goal_completion"];
/// Groups are counted by size up to this; larger ones go in the last column.
const GROUP_SIZES: usize = 3;

impl Summary {
    /// A summary for runs of `program` (its objects' resources name the visit columns).
    pub fn for_program(program: &Program) -> Summary {
        Summary {
            regions: program.world.regions.len() as u32,
            provides: program.objects.iter().map(|o| o.provides.iter().map(|r| r.index()).collect()).collect(),
            resources: program.resources.clone(),
            visits: vec![0; program.resources.len()],
            ..Summary::default()
        }
    }

    /// The column names, in order: the run's totals, groups by size
    /// (`groups_1` counts agents alone), then goals taken per resource.
    pub fn columns(&self) -> Vec<String> {
        let mut out: Vec<String> = FIXED.iter().map(|c| (*c).to_string()).collect();
        out.extend((1..=GROUP_SIZES).map(|k| format!("groups_{k}")));
        out.push(format!("groups_over_{GROUP_SIZES}"));
        out.extend(self.resources.iter().map(|r| format!("visits_{r}")));
        out
    }

    /// The named values, in the order of [`Summary::columns`]. `log` gives goal completion.
    pub fn values(&self, log: &[AgentLog], steps: u64) -> Vec<(String, f64)> {
        let seekers = log.iter().filter(|a| a.sought).count();
        let arrived = log.iter().filter(|a| a.sought && a.arrived.is_some()).count();
        let mut v = vec![
            log.len() as f64,
            steps as f64,
            self.max_alive as f64,
            if self.rows == 0 { 0.0 } else { self.speed_sum / self.rows as f64 },
            self.min_distance.unwrap_or(-1.0),
            if seekers == 0 { 1.0 } else { arrived as f64 / seekers as f64 },
        ];
        let mut sizes: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
        let mut by_size = [0u64; GROUP_SIZES + 1];
        for &g in &self.group_of {
            if g == super::NONE {
                by_size[0] += 1;
            } else {
                *sizes.entry(g).or_insert(0) += 1;
            }
        }
        for &n in sizes.values() {
            by_size[(n as usize).clamp(1, GROUP_SIZES + 1) - 1] += 1;
        }
        v.extend(by_size.iter().map(|&n| n as f64));
        v.extend(self.visits.iter().map(|&n| n as f64));
        self.columns().into_iter().zip(v).collect()
    }
}

impl super::Recorder for Summary {
    fn record(&mut self, frame: &super::FrameView<'_>) -> std::io::Result<()> {
        self.rows += frame.len() as u64;
        self.max_alive = self.max_alive.max(frame.len() as u64);
        self.speed_sum += frame.vel.iter().map(|v| v.length()).sum::<f64>();
        if let Some((d, _, _)) = min_distance(frame.pos) {
            self.min_distance = Some(self.min_distance.map_or(d, |m| m.min(d)));
        }
        for (k, &id) in frame.id.iter().enumerate() {
            let id = id as usize;
            if id >= self.group_of.len() {
                self.group_of.resize(id + 1, super::NONE);
                self.last_goal.resize(id + 1, super::NONE);
            }
            self.group_of[id] = frame.group[k];
            let goal = frame.goal[k];
            if goal != self.last_goal[id] {
                self.last_goal[id] = goal;
                let object = goal.checked_sub(self.regions).map(|o| o as usize);
                if let Some(provides) = object.and_then(|o| self.provides.get(o)) {
                    for &r in provides {
                        self.visits[r] += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn closest_pair_matches_brute_force() {
        let pts = vec![v(0.0, 0.0), v(5.0, 5.0), v(5.3, 5.0), v(9.0, 1.0), v(20.0, 20.0)];
        let (d, i, j) = min_distance(&pts).unwrap();
        assert!((d - 0.3).abs() < 1e-12 && (i, j) == (1, 2));
        assert_eq!(min_distance(&[v(0.0, 0.0), v(100.0, 0.0)]).map(|x| x.0), Some(100.0));
        assert_eq!(min_distance(&[v(0.0, 0.0)]), None);
    }

    #[test]
    fn lanes_tell_order_from_mixing() {
        // Two lanes, one each way.
        let mut pos = vec![];
        let mut vel = vec![];
        for k in 0..10 {
            pos.push(v(k as f64 * 0.6, 0.0));
            vel.push(v(1.0, 0.0));
            pos.push(v(k as f64 * 0.6, 1.0));
            vel.push(v(-1.0, 0.0));
        }
        assert_eq!(lane_order(&pos, &vel), Some(1.0));
        // One lane, alternating directions.
        let vel2: Vec<Vec2> = (0..20).map(|k| v(if k % 2 == 0 { 1.0 } else { -1.0 }, 0.0)).collect();
        let pos2: Vec<Vec2> = (0..20).map(|k| v(k as f64 * 0.6, 0.0)).collect();
        assert!(lane_order(&pos2, &vel2).unwrap() < 0.2);
    }

    #[test]
    fn a_group_formation_is_the_one_its_walking_members_share() {
        use FormationKind::*;
        let col = vec![Some(V), None, Some(V), Some(River)];
        assert_eq!(formation_of(&[0, 1, 2], &col), FormationSeen::One(V, 2));
        assert_eq!(formation_of(&[1], &col), FormationSeen::None);
        assert_eq!(formation_of(&[0, 3], &col), FormationSeen::Mixed("1 v, 1 river".into()));
        assert_eq!(formation_of(&[0], &[]), FormationSeen::NoColumn);
    }

    #[test]
    fn spread_covers_the_circle() {
        let c = v(0.0, 0.0);
        let four = [v(1.0, 0.0), v(0.0, 1.0), v(-1.0, 0.0), v(0.0, -1.0)];
        assert!((angular_spread(&four, c) - 1.5 * std::f64::consts::PI).abs() < 1e-12);
        assert_eq!(angular_spread(&four[..1], c), 0.0);
    }
}
