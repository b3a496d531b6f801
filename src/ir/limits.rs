//! Sizes past which a scenario is refused at check time, before anything is
//! allocated: a typo such as `density 8000000 per m2` must be an error with
//! the computed figure, not an out-of-memory crash.

/// Markers over the whole walkable area (24 bytes each: ~1.2 GB at the limit).
pub const MAX_MARKERS: u64 = 50_000_000;
/// Agents alive at once, over all populations.
pub const MAX_AGENTS: u64 = 2_000_000;
/// Cells of any planner grid.
pub const MAX_GRID_CELLS: u64 = 16_777_216;
/// Simulation steps of one run.
pub const MAX_STEPS: u64 = 100_000_000;
/// Agent-steps of one run (work, not memory: a guard against runs that cannot finish).
pub const MAX_AGENT_STEPS: u64 = 1_000_000_000_000;
/// The trace a run may write before `crowd run` refuses it unless raised
/// (`--max-trace-gb`), GB: a typo in a count or a record interval must not
/// fill a disk.
pub const DEFAULT_MAX_TRACE_GB: f64 = 16.0;

/// About how many bytes a trace row takes: its twelve columns in shortest
/// round-trip decimals, as measured on the shipped scenarios' goldens
/// (60–90), rounded up; an optional column adds about 12.
pub fn trace_row_bytes(optional_columns: usize) -> f64 {
    100.0 + 12.0 * optional_columns as f64
}

/// About how large a trace can grow, bytes, and of how many agents and
/// recorded frames: every agent the populations declare alive in every frame.
pub fn trace_bytes(header: &super::Header, populations: &[super::Population], columns: usize) -> (f64, u64, f64) {
    let agents: u64 = populations.iter().map(|p| u64::from(p.max_count())).sum();
    let frames = (header.steps() / u64::from(header.record_every.max(1))) as f64 + 1.0;
    (agents as f64 * frames * trace_row_bytes(columns), agents, frames)
}

/// Bytes a USD stage holds per sample (an agent at a frame) until it is
/// written: position, heading and frame, and the vector's slack.
pub const USD_SAMPLE_BYTES: f64 = 48.0;

/// The most memory a USD stage written from a run may hold, GB: past it,
/// `crowd run --format usd` refuses before the run.
pub const MAX_USD_HELD_GB: f64 = 4.0;

/// The procedural-population group size limit (Hocevar et al.).
pub const MAX_PROCEDURAL_GROUP: u32 = 3;

/// `P covers S within D` samples S on a grid of spacing [`cover_spacing`];
/// the checker refuses an area that would need more points than this.
pub const MAX_COVER_SAMPLES: f64 = 1e6;

/// The spacing of the points sampled to check that an area is covered within
/// `d`: half of it, so a gap between agents cannot hide between samples by
/// more than a quarter of `d`, and at most 0.25 m (m).
pub fn cover_spacing(d: f64) -> f64 {
    (d / 2.0).min(0.25)
}

/// Grid cells the planners may visit in one step, over all agents, past
/// which `crowd run` refuses a scenario unless raised (`--max-plan-cells`):
/// at a few nanoseconds a cell, about a few seconds a step.
pub const DEFAULT_MAX_PLAN_CELLS: f64 = 1e9;

/// The cells of the CT-space bitmap when a planner gives no grid (Li et al.: 128 x 128).
const CT_SPACE_DEFAULT_CELLS: f64 = 128.0 * 128.0;

/// The most planner work one behaviour's agents may ask for in a step: the
/// cells of its largest grid planner times the searches over it: one per
/// agent that runs it (each may search the whole grid when its goal
/// changes), or, for continuum crowds, one per group (people sharing a goal
/// share a potential).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanWork {
    pub cells: f64,
    /// How many searches, and of what: "agents" or "continuum groups".
    pub searches: u64,
    pub by: &'static str,
    pub behaviour: usize,
}

impl PlanWork {
    pub fn cells_per_step(&self) -> f64 {
        self.cells * self.searches as f64
    }
}

/// The behaviour whose grid planners could visit the most cells in a step, if any plans on a grid.
pub fn plan_work(program: &super::Program) -> Option<PlanWork> {
    use super::{Action, PlannerKind};
    let area = program.world.bounds.area();
    let over = |cell: f64| area / (cell * cell);
    let cells_of = |planner: &super::Planner| -> Option<f64> {
        let param = |name: &str| planner.params.iter().find(|(n, _)| n == name).map(|&(_, v)| v);
        let grid = planner.grid.map(|(x, y)| f64::from(x) * f64::from(y));
        match planner.kind {
            PlannerKind::AStar => {
                grid.or_else(|| Some(over(param("astar_cell").unwrap_or(program.params.semantic_groups.astar_cell))))
            }
            PlannerKind::Bvp => grid.or_else(|| Some(over(param("cell").unwrap_or(program.params.bvp.cell)))),
            PlannerKind::CtSpace => Some(grid.unwrap_or(CT_SPACE_DEFAULT_CELLS)),
            PlannerKind::Continuum => grid.or_else(|| Some(over(program.params.continuum.cell))),
            PlannerKind::Straight | PlannerKind::TreePaths => None,
        }
    };
    (program.behaviours.iter().enumerate())
        .filter_map(|(b, behaviour)| {
            let (cells, kind) = (behaviour.body.actions())
                .filter_map(|a| match a {
                    Action::Seek { planner, .. } | Action::Pursue { planner, .. } => {
                        cells_of(planner).map(|c| (c, planner.kind))
                    }
                    _ => None,
                })
                .reduce(|a, b| if b.0 > a.0 { b } else { a })?;
            let running = program.populations.iter().filter(|p| p.behaviour.index() == b);
            let agents: u64 = running.clone().map(|p| u64::from(p.max_count())).sum();
            if kind == PlannerKind::Continuum {
                // A group per goal: one per fixed target, for `seek goal` one per
                // population with a goal of its own, or any object it may pick, and
                // one per exit its leavers walk to.
                let picks = program.objects.len().max(1) as u64;
                let goals: u64 = (behaviour.body.actions())
                    .map(|a| match a {
                        Action::Seek { target: super::Target::OwnGoal, planner }
                            if planner.kind == PlannerKind::Continuum =>
                        {
                            running.clone().map(|p| if p.goal.is_some() { 1 } else { picks }).sum()
                        }
                        Action::Seek { planner, .. } if planner.kind == PlannerKind::Continuum => 1,
                        _ => 0,
                    })
                    .sum();
                let exits = running.clone().filter(|p| matches!(p.leave, super::Leave::Via { .. })).count() as u64;
                let groups = (goals + exits).max(1).min(agents);
                return Some(PlanWork { cells, searches: groups, by: "continuum groups", behaviour: b });
            }
            Some(PlanWork { cells, searches: agents, by: "agents", behaviour: b })
        })
        .max_by(|a, b| a.cells_per_step().total_cmp(&b.cells_per_step()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    fn program(text: &str) -> super::super::Program {
        crate::compile(&SourceFile::new("t.crowd", text.to_string())).expect("compiles").program
    }

    #[test]
    fn continuum_work_is_a_potential_per_goal_not_per_person() {
        let p = program(
            "scenario s { seed 1; duration 1 s; step 1 s }
             world {
               bounds (0 m, 0 m) to (64 m, 64 m)
               region a rect (1 m, 1 m) to (5 m, 5 m)
               region b rect (59 m, 59 m) to (63 m, 63 m)
               region gate rect (59 m, 1 m) to (63 m, 5 m)
             }
             population one { count 1000; spawn in a; goal region b; behaviour go }
             population two { count 1000; spawn in b; goal region a; leave via gate from 0 s; behaviour go }
             behaviour go { seek goal using continuum grid 64 x 64 }",
        );
        let work = plan_work(&p).expect("a grid planner");
        // Each population's own goal, and the exit its leavers walk to.
        assert_eq!((work.searches, work.by, work.cells), (3, "continuum groups", 4096.0));
    }
}
