//! Goals, trips and travel times, read from the trace.
//!
//! What an agent walks to comes from the trace's `goal` column when it has
//! one (a point `(x y)`, or a region or object of the scenario), else from the
//! scenario (the population's goal; its exit region once the agent is in state
//! `leaving`). A *trip* is a run of frames with the same goal; it is complete
//! at the first frame the agent is inside the goal region (a door: within the
//! reach of it) or within the reach of the goal point. The reach defaults to
//! the scenario's `motion.arrival_radius` plus [`ARRIVAL_SLACK`]: an agent in a
//! crowd that stops around a point arrives by touching an agent that has
//! already arrived, up to that far away. A goal that is another agent (the
//! `goal` cell names a population or group, or the population's goal is
//! `agent NAME`) is that subject's first live agent in each frame, as the
//! executor finds it; it is reached within `space_colonization.t_min` (the
//! minimum distance bodies keep) plus `motion.arrival_radius`: the two cannot
//! get closer. An agent that disappears before the
//! end of the run while walking to a region, within one frame's walk of it
//! at the fastest it walked,
//! arrived there between two frames (the executor removes agents on arrival at
//! their exit); its arrival time is taken as its last frame's.

use crate::ir::{Goal, Leave, Params, Program, Shape, Subject, Vec2};
use crate::trace::frame::NONE;
use crate::world::geometry::{closest_on_segment, signed_distance};

use super::load::Trace;
use super::motion::path_ratio;

/// How far beyond the arrival radius an agent may stop and still have arrived, m.
pub const ARRIVAL_SLACK: f64 = 2.0;
/// An agent is stuck if it moved less than this over its last [`STUCK_WINDOW`] s, m.
pub const STUCK_DISTANCE: f64 = 0.5;
/// s. A trip younger than this is not judged: an agent that waited in line
/// for room and was just given a new goal has not yet had time to move.
pub const STUCK_WINDOW: f64 = 5.0;

/// What "stuck" means, as reports and claims say it.
pub fn stuck_rule() -> String {
    format!("trip unfinished for {STUCK_WINDOW} s or more, moved < {STUCK_DISTANCE} m in its last {STUCK_WINDOW} s")
}

/// How close to a goal counts as arrived (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// To a point goal (an object, a fixed point) or a door, m.
    pub point: f64,
    /// To another agent, m.
    pub agent: f64,
}

impl Reach {
    /// The reach a scenario's parameters give: `arrival_radius` plus
    /// [`ARRIVAL_SLACK`] to points; `t_min` (the minimum distance of
    /// `sim::models::min_distance`, which this layer cannot name) plus
    /// `arrival_radius` to agents.
    pub fn of(params: &Params) -> Reach {
        let arrival = params.motion.arrival_radius;
        Reach { point: arrival + ARRIVAL_SLACK, agent: params.space_colonization.t_min + arrival }
    }
}

/// Something an agent walks to.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Point(Vec2),
    /// A region or space: reached inside; a segment (door): within the reach.
    Area(Shape),
    /// Another agent: the first live agent (lowest id) of these populations
    /// (indices into the trace's population names).
    Agent(Vec<u32>),
    /// Known by name only (a resource, an unknown name): trips to it are not measured.
    Unknown,
}

impl Target {
    /// Whether an agent at `p` has reached the target; `anchor` is where the
    /// target agent is in the same frame (for [`Target::Agent`]).
    fn reached(&self, p: Vec2, reach: Reach, anchor: Option<Vec2>) -> bool {
        let near = |q: Vec2, r: f64| p.distance_squared(q) <= r * r;
        match self {
            Target::Point(q) => near(*q, reach.point),
            Target::Area(Shape::Segment { a, b }) => near(closest_on_segment(*a, *b, p), reach.point),
            Target::Area(s) => crate::world::geometry::contains(s, p),
            Target::Agent(_) => anchor.is_some_and(|q| near(q, reach.agent)),
            Target::Unknown => false,
        }
    }

    fn distance(&self, p: Vec2) -> f64 {
        match self {
            Target::Point(q) => p.distance(*q),
            Target::Area(s) => signed_distance(s, p).max(0.0),
            Target::Agent(_) | Target::Unknown => f64::INFINITY,
        }
    }
}

/// The trace's population indices whose first agent is `subject`'s anchor
/// (a group's leader population when it has one, else its members'; the
/// followers of a group: its members but the leader).
fn anchor_populations(trace: &Trace, program: &Program, subject: Subject) -> Vec<u32> {
    let index = |name: &str| trace.populations.iter().position(|p| p == name).map(|k| k as u32);
    let named = |ids: &mut dyn Iterator<Item = usize>| -> Vec<u32> {
        ids.filter_map(|p| index(&program.populations[p].name)).collect()
    };
    match subject {
        Subject::Everyone => (0..trace.populations.len() as u32).collect(),
        Subject::Population(p) => named(&mut std::iter::once(p.index())),
        Subject::Group(g) => {
            let g = &program.groups[g.index()];
            match g.leader {
                Some(l) => named(&mut std::iter::once(l.index())),
                None => named(&mut g.members.iter().map(|m| m.index())),
            }
        }
        Subject::Followers(g) => {
            let g = &program.groups[g.index()];
            named(&mut (0..program.populations.len()).filter(|&p| g.follows(crate::ir::PopulationId(p as u32))))
        }
    }
}

/// Where the first live agent of `populations` is in each frame.
fn anchor_track(trace: &Trace, populations: &[u32]) -> Vec<Option<Vec2>> {
    trace
        .frames
        .iter()
        .map(|f| f.rows.clone().find(|&r| populations.contains(&trace.population[r])).map(|r| trace.pos[r]))
        .collect()
}

/// Each row's target: an index into `targets`, or [`NONE`].
#[derive(Clone, Debug, Default)]
pub struct Targets {
    pub targets: Vec<Target>,
    pub row: Vec<u32>,
    /// When the run ended, s, if the scenario says: a trace has no rows
    /// after its last agent left, so its last frame can be earlier.
    pub run_end: Option<f64>,
}

/// Parses a point goal as the trace writes it: `(x y)`.
pub fn parse_point(s: &str) -> Option<Vec2> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut it = inner.split_whitespace();
    let x = it.next()?.parse::<f64>().ok().filter(|v| v.is_finite())?;
    let y = it.next()?.parse::<f64>().ok().filter(|v| v.is_finite())?;
    it.next().is_none().then_some(Vec2::new(x, y))
}

fn named(trace: &Trace, program: Option<&Program>, name: &str) -> Target {
    if let Some(p) = parse_point(name) {
        return Target::Point(p);
    }
    let Some(program) = program else { return Target::Unknown };
    if let Some(r) = program.world.regions.iter().find(|r| r.name == name) {
        return Target::Area(r.shape.clone());
    }
    if let Some(o) = program.objects.iter().find(|o| o.name == name) {
        return Target::Point(o.position);
    }
    if let Some(s) = program.spaces.iter().find(|s| s.name == name) {
        return Target::Area(s.shape.clone());
    }
    // The executor labels a walk to another agent with its subject's name.
    let group = |name: &str| program.groups.iter().position(|g| g.name == name).map(|g| crate::ir::GroupId(g as u32));
    let subject = match program.populations.iter().position(|p| p.name == name) {
        Some(p) => Some(Subject::Population(crate::ir::PopulationId(p as u32))),
        None => match name.strip_prefix("followers of ") {
            Some(g) => group(g).map(Subject::Followers),
            None => group(name).map(Subject::Group),
        },
    };
    match subject {
        Some(s) => Target::Agent(anchor_populations(trace, program, s)),
        None => Target::Unknown,
    }
}

fn goal_target(trace: &Trace, program: &Program, goal: &Goal) -> Target {
    match goal {
        Goal::Point(p) => Target::Point(*p),
        Goal::Region(r) => Target::Area(program.world.regions[r.index()].shape.clone()),
        Goal::Object(o) => Target::Point(program.objects[o.index()].position),
        Goal::Agent(p) => Target::Agent(anchor_populations(trace, program, Subject::Population(*p))),
        Goal::Resource(_) => Target::Unknown,
    }
}

/// Every row's target, or `None` when neither the trace nor the scenario says.
pub fn targets(trace: &Trace, program: Option<&Program>) -> Option<Targets> {
    if trace.has_column("goal") {
        let targets: Vec<Target> = trace.goals.iter().map(|g| named(trace, program, g)).collect();
        return Some(Targets { targets, row: trace.goal.clone(), run_end: program.map(|p| p.header.duration) });
    }
    let program = program?;
    // Per population: its goal, and its exit region for agents in state `leaving`.
    let mut targets = Vec::new();
    let mut by_population: Vec<(u32, u32)> = Vec::new();
    for name in &trace.populations {
        let p = program.populations.iter().find(|p| &p.name == name);
        let mut add = |t: Option<Target>| match t {
            None => NONE,
            Some(t) => {
                targets.push(t);
                targets.len() as u32 - 1
            }
        };
        let goal = add(p.and_then(|p| p.goal.as_ref()).map(|g| goal_target(trace, program, g)));
        let exit = add(p.and_then(|p| match p.leave {
            Leave::Via { region, .. } => Some(Target::Area(program.world.regions[region.index()].shape.clone())),
            _ => None,
        }));
        by_population.push((goal, exit));
    }
    if targets.is_empty() {
        return None;
    }
    let leaving = trace.states.iter().position(|s| s == "leaving").map_or(NONE, |k| k as u32);
    let row = (0..trace.rows())
        .map(|r| {
            let (goal, exit) = by_population[trace.population[r] as usize];
            if leaving != NONE && trace.state[r] == leaving && exit != NONE {
                exit
            } else {
                goal
            }
        })
        .collect();
    Some(Targets { targets, row, run_end: Some(program.header.duration) })
}

/// Goal metrics over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Goals {
    /// Agents that had a measurable goal at some frame.
    pub agents_with_goal: u64,
    /// Of those, the agents that reached one at least once.
    pub agents_arrived: u64,
    pub trips: u64,
    pub trips_done: u64,
    /// Duration of every completed trip, in track order, s.
    pub travel_times: Vec<f64>,
    /// Path length over the straight line of every completed trip that ended
    /// at least [`super::motion::MIN_STRAIGHT`] from where it started, with
    /// its track, in track order.
    pub trip_ratios: Vec<(u32, f64)>,
    /// Per track: when the agent first arrived, s.
    pub first_arrival: Vec<Option<f64>>,
    /// Per track: whether the agent ever had a measurable goal.
    pub had_goal: Vec<bool>,
    /// Per completed trip, in track order: the track it belongs to (beside `travel_times`).
    pub trip_track: Vec<u32>,
    /// Per track: its trips, completed or not.
    pub track_trips: Vec<u32>,
    /// Agents whose last trip is unfinished after [`STUCK_WINDOW`] s or more
    /// and who barely moved over the last [`STUCK_WINDOW`] s.
    pub stuck: Vec<u32>,
}

/// Trips and arrivals of every agent. `reach`: see the module documentation.
pub fn goals(trace: &Trace, targets: &Targets, reach: Reach) -> Goals {
    let mut out = Goals::default();
    let last_frame = trace.frames.len().saturating_sub(1);
    // Where each agent target is, frame by frame, found once.
    let anchors: Vec<Vec<Option<Vec2>>> = targets
        .targets
        .iter()
        .map(|t| match t {
            Target::Agent(pops) => anchor_track(trace, pops),
            _ => Vec::new(),
        })
        .collect();
    for k in 0..trace.tracks.len() {
        let trips_before = out.trips;
        let rows = trace.tracks.rows(k);
        let mut current = NONE;
        let mut trip_start = 0.0;
        let mut trip_done = true;
        let mut had_goal = false;
        let mut first: Option<f64> = None;
        let mut trip_from = 0usize;
        let mut pts: Vec<crate::ir::Vec2> = Vec::new();
        let mut ratio = |from: usize, to: usize, out: &mut Goals| {
            pts.clear();
            pts.extend(rows[from..=to].iter().map(|&r| trace.pos[r as usize]));
            if let Some(x) = path_ratio(&pts) {
                out.trip_ratios.push((k as u32, x));
            }
        };
        for (i, &r) in rows.iter().enumerate() {
            let r = r as usize;
            let frame = trace.frame_of(r);
            let t = trace.frames[frame].t;
            let target = targets.row[r];
            if target != current {
                current = target;
                let measurable = target != NONE && targets.targets[target as usize] != Target::Unknown;
                trip_done = !measurable;
                if measurable {
                    out.trips += 1;
                    had_goal = true;
                    trip_start = t;
                    trip_from = i;
                }
            }
            let anchor = || anchors[current as usize].get(frame).copied().flatten();
            if !trip_done && targets.targets[current as usize].reached(trace.pos[r], reach, anchor()) {
                trip_done = true;
                out.trips_done += 1;
                out.travel_times.push(t - trip_start);
                out.trip_track.push(k as u32);
                ratio(trip_from, i, &mut out);
                first.get_or_insert(t);
            }
        }
        let Some(&last) = rows.last() else {
            out.first_arrival.push(None);
            out.had_goal.push(false);
            out.track_trips.push(0);
            continue;
        };
        let last = last as usize;
        let gone_at = trace.frames[trace.frame_of(last)].t;
        let vanished =
            trace.frame_of(last) < last_frame || targets.run_end.is_some_and(|end| gone_at + trace.interval <= end);
        if !trip_done && vanished {
            if let Target::Area(_) = &targets.targets[current as usize] {
                // At the fastest it walked: it may have stood at its last frame and walked off since.
                let fastest = rows.iter().map(|&r| trace.vel[r as usize].length()).fold(0.0, f64::max);
                let walk = fastest * trace.interval * 1.5;
                if targets.targets[current as usize].distance(trace.pos[last]) <= walk + 1e-9 {
                    let t = gone_at;
                    trip_done = true;
                    out.trips_done += 1;
                    out.travel_times.push(t - trip_start);
                    out.trip_track.push(k as u32);
                    ratio(trip_from, rows.len() - 1, &mut out);
                    first.get_or_insert(t);
                }
            }
        }
        if !trip_done && is_stuck(trace, rows, trip_start) {
            out.stuck.push(trace.tracks.id[k]);
        }
        out.agents_with_goal += u64::from(had_goal);
        out.agents_arrived += u64::from(first.is_some());
        out.first_arrival.push(first);
        out.had_goal.push(had_goal);
        out.track_trips.push((out.trips - trips_before) as u32);
    }
    out
}

/// Whether the agent, on a trip since `trip_start` (s), moved less than
/// [`STUCK_DISTANCE`] over the last [`STUCK_WINDOW`] s of its track, all of
/// them on that trip.
pub fn is_stuck(trace: &Trace, rows: &[u32], trip_start: f64) -> bool {
    let Some(&b) = rows.last() else { return false };
    let t_end = trace.frames[trace.frame_of(b as usize)].t;
    if t_end - trip_start < STUCK_WINDOW - 1e-9 {
        return false;
    }
    let end = trace.pos[b as usize];
    rows.iter()
        .rev()
        .map(|&r| r as usize)
        .take_while(|&r| t_end - trace.frames[trace.frame_of(r)].t <= STUCK_WINDOW + 1e-9)
        .all(|r| trace.pos[r].distance(end) < STUCK_DISTANCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse_as_the_trace_writes_them() {
        assert_eq!(parse_point("(37 10)"), Some(Vec2::new(37.0, 10.0)));
        assert_eq!(parse_point("(1.5 -2)"), Some(Vec2::new(1.5, -2.0)));
        assert_eq!(parse_point("tv"), None);
        assert_eq!(parse_point("(1 2 3)"), None);
    }

    #[test]
    fn a_walk_to_a_point_is_one_trip() {
        let mut csv = String::from("id,frame,t,x,y,goal\n");
        for k in 0..10 {
            csv.push_str(&format!("0,{k},{k},{},0,(9 0)\n", k));
        }
        let trace = Trace::parse(csv.as_bytes()).unwrap();
        let targets = targets(&trace, None).unwrap();
        let g = goals(&trace, &targets, Reach { point: 0.3, agent: 0.3 });
        assert_eq!((g.agents_with_goal, g.agents_arrived, g.trips, g.trips_done), (1, 1, 1, 1));
        assert_eq!(g.travel_times, vec![9.0]);
        assert!(g.stuck.is_empty());
    }

    /// An agent that stood for the last 6 s of a trip begun at 0 s is stuck;
    /// one that stood as long waiting for room and was given its new goal
    /// 2 s before the end is not: its trip is too young to judge.
    #[test]
    fn only_a_trip_older_than_the_window_is_judged_stuck() {
        let stand = |goal_changes_at: u32| {
            let mut csv = String::from("id,frame,t,x,y,goal\n");
            for k in 0..=10 {
                // Walks 1 m/s for 4 s, then stands.
                let x = f64::from(k.min(4));
                let goal = if k >= goal_changes_at { "(0 9)" } else { "(9 0)" };
                csv.push_str(&format!("0,{k},{k},{x},0,{goal}\n"));
            }
            let trace = Trace::parse(csv.as_bytes()).unwrap();
            goals(&trace, &targets(&trace, None).unwrap(), Reach { point: 0.3, agent: 0.3 }).stuck
        };
        assert_eq!(stand(11), vec![0]);
        assert!(stand(8).is_empty());
        // A trip exactly the window old is judged.
        assert_eq!(stand(5), vec![0]);
    }

    /// A walker that stood at its last frame 0.8 m short of its region,
    /// then walked in and was removed there before the next frame.
    #[test]
    fn an_agent_gone_between_frames_arrived_at_the_speed_it_walked() {
        let text = "scenario s { seed 1; duration 20 s; step 1 s }\n\
                    world { bounds (0 m, 0 m) to (20 m, 4 m)\n region end rect (10 m, 0 m) to (12 m, 4 m) }\n\
                    population p { count 1; spawn at (0 m, 2 m); goal region end; behaviour go }\n\
                    behaviour go { seek goal }";
        let program = crate::compile(&crate::diag::SourceFile::new("s.crowd", text.to_string())).unwrap().program;
        let walk = |rows: &mut String, id: u32, last: u32| {
            for k in 0..=last {
                // 1 m/s until 9.2 m, then standing there.
                let (x, vx) = if k < 9 { (f64::from(k), 1.0) } else { (9.2, 0.0) };
                rows.push_str(&format!("{id},{k},{k},{x},2,{vx},0,end\n"));
            }
        };
        let reach = Reach { point: 0.3, agent: 0.3 };
        // Another agent is recorded after the walker is gone.
        let mut csv = String::from("id,frame,t,x,y,vx,vy,goal\n");
        walk(&mut csv, 0, 10);
        csv.push_str("1,11,11,0,1,0,0,end\n");
        let trace = Trace::parse(csv.as_bytes()).unwrap();
        let g = goals(&trace, &targets(&trace, Some(&program)).unwrap(), reach);
        assert_eq!(g.travel_times, vec![10.0]);
        // The walker is the last agent: the trace ends with it, the run does not.
        let mut csv = String::from("id,frame,t,x,y,vx,vy,goal\n");
        walk(&mut csv, 0, 10);
        let trace = Trace::parse(csv.as_bytes()).unwrap();
        let g = goals(&trace, &targets(&trace, Some(&program)).unwrap(), reach);
        assert_eq!(g.travel_times, vec![10.0]);
        // Without the scenario the run may have ended with that frame.
        let g = goals(&trace, &Targets { run_end: None, ..targets(&trace, Some(&program)).unwrap() }, reach);
        assert!(g.travel_times.is_empty());
    }
}
