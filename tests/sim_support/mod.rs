//! Hand-built programs for the executor's tests: small builders over the IR,
//! so the tests do not depend on the scenario syntax.
#![allow(dead_code)]

use crowd::ir::*;
use crowd::sim::{self, Outcome, SimError};
use crowd::trace::csv::CsvWriter;
use crowd::trace::read::Recorded;

pub fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x, y)
}

pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
    Rect { min: v(x0, y0), max: v(x1, y1) }
}

pub fn straight() -> Planner {
    Planner {
        kind: PlannerKind::Straight,
        reserve_markers: false,
        disjoint_markers: false,
        bias: None,
        grid: None,
        crowd_aware: false,
        pairwise_checks: false,
        params: vec![],
    }
}

/// A behaviour of one unconditional rule.
pub fn rule(name: &str, actions: Vec<Action>) -> Behaviour {
    Behaviour {
        name: name.into(),
        vars: vec![],
        body: BehaviourBody::Rules(vec![Rule { name: "default".into(), priority: 0, when: None, actions }]),
    }
}

pub fn seek_goal() -> Behaviour {
    rule("go", vec![Action::Seek { target: Target::OwnGoal, planner: straight() }])
}

/// A population of `count` agents spawned at `spawn`, seeking `goal`, speed 1.2 m/s, radius 0.25 m.
pub fn population(name: &str, count: u32, spawn: Place, goal: Option<Goal>) -> Population {
    Population {
        name: name.into(),
        schedule: Schedule::Fixed { count },
        leave: Leave::Never,
        spawn,
        group_sizes: vec![(1, 1.0)],
        speed: Dist::Constant(1.2),
        radius: Dist::Constant(0.25),
        personal_space: Dist::Constant(1.2),
        goal,
        wants: vec![],
        dwell: Dist::Constant(0.0),
        behaviour: BehaviourId(0),
        formation: None,
    }
}

pub fn region(name: &str, shape: Shape) -> Region {
    Region { name: name.into(), shape, discomfort: 0.0, slope: None }
}

/// An empty scenario over `bounds`: 24 steps per second, every step recorded,
/// the paper's `t_min` of 0.5 m, arrival within 0.3 m.
pub fn program(bounds: Rect, duration: f64) -> Program {
    Program {
        name: "test".into(),
        header: Header { seed: 1, duration, dt: 1.0 / 24.0, record_every: 1 },
        world: World {
            bounds,
            obstacles: vec![],
            regions: vec![],
            markers: Markers { base: None, overrides: vec![], estimated_count: 0, events: vec![] },
            shapes: vec![],
            masks: vec![],
        },
        spaces: vec![],
        objects: vec![],
        resources: vec![],
        populations: vec![],
        groups: vec![],
        behaviours: vec![seek_goal()],
        params: Params::default(),
        expectations: vec![],
        output: Output { columns: vec![] },
        switches: Switches::default(),
    }
}

pub fn set_param(p: &mut Program, model: &str, name: &str, value: f64) {
    assert!(p.params.set(model, name, value), "no parameter {model}.{name}");
}

/// Runs a program with `seed` (on `threads` workers, or the global pool) and returns the CSV bytes and the outcome.
pub fn run_with(program: &Program, seed: u64, threads: Option<usize>) -> Result<(Vec<u8>, Outcome), SimError> {
    sim::with_threads(threads, || {
        let mut bytes = Vec::new();
        let mut csv = CsvWriter::new(&mut bytes, &sim::labels(program), &program.output.columns, None)?;
        let outcome = crowd::run(program, seed, &mut csv, &mut |_, _| {})?;
        drop(csv);
        Ok((bytes, outcome))
    })
    .expect("a thread pool")
}

pub fn run(program: &Program) -> (Vec<u8>, Outcome) {
    run_with(program, program.header.seed, None).unwrap_or_else(|e| panic!("the run failed: {e}"))
}

pub fn recorded(program: &Program, bytes: &[u8]) -> Recorded {
    Recorded::parse(bytes, program).expect("the trace reads back")
}
