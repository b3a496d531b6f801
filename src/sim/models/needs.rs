//! Which models a scenario needs, and which of them the executor has.
//!
//! Invariant: a scenario that needs a model the executor lacks is refused
//! before anything runs, with one line per use; nothing falls back silently.

use super::semantic_groups::SemanticGroups;
use super::Models;
use crate::ir::{Action, Formation, PlannerKind, PopulationId, Program, Target};

/// One line per unimplemented model use, in declaration order; empty when the
/// scenario can run.
pub fn unimplemented(program: &Program) -> Vec<String> {
    let mut lines = Vec::new();
    let mut need = |model: &str, what: String| {
        lines.push(format!("scenario {} needs the {model} model ({what}), which is not implemented yet", program.name));
    };
    for b in &program.behaviours {
        let modes: Vec<(&str, &[Action])> = match &b.body {
            crate::ir::BehaviourBody::Rules(rules) => rules.iter().map(|r| (r.name.as_str(), &r.actions[..])).collect(),
            crate::ir::BehaviourBody::States(states) => {
                states.iter().map(|s| (s.name.as_str(), &s.actions[..])).collect()
            }
        };
        for (mode, actions) in modes {
            for action in actions {
                // Dwelling, picking goals and the goal memory are decisions, which the core makes for every model.
                let decided =
                    matches!(action, Action::Dwell(_) | Action::PickGoal | Action::PushGoal(_) | Action::PopGoal);
                if !decided && !Models::drive(action, actions) {
                    need(action.model(), format!("{} in {mode} of behaviour {}", action.keyword(), b.name));
                }
                if let Action::Seek { target: Target::Subject(s), planner } = action {
                    if matches!(planner.kind, PlannerKind::Bvp | PlannerKind::CtSpace) {
                        let whom = s.name(program);
                        need(
                            planner.kind.keyword(),
                            format!("seeking {whom}, who moves, in {mode} of behaviour {}", b.name),
                        );
                    }
                }
                if let Action::Seek { planner, .. } | Action::Pursue { planner, .. } = action {
                    // The BVP and continuum models read their parameters from the action; the others do not yet.
                    let read = matches!(planner.kind, PlannerKind::Bvp | PlannerKind::Continuum)
                        && Models::drive(action, actions);
                    for (name, _) in planner.params.iter().filter(|_| !read) {
                        need(
                            "per-action parameter",
                            format!(
                                "{name} set on {} in {mode} of behaviour {}; set it in a parameters block instead",
                                action.keyword(),
                                b.name
                            ),
                        );
                    }
                }
            }
        }
    }
    let shaped = |f: &Option<Formation>| f.as_ref().is_some_and(|f| !SemanticGroups::keeps(f));
    // Groups keep formation along A* paths only; elsewhere the formation would be silently ignored.
    let walks_astar =
        |p: PopulationId| SemanticGroups::walks(&program.behaviours[program.populations[p.index()].behaviour.index()]);
    for (k, p) in program.populations.iter().enumerate() {
        if shaped(&p.formation) {
            need("group formation", format!("a formation shape for population {}", p.name));
        } else if p.formation.is_some() && !walks_astar(PopulationId(k as u32)) {
            need("group formation", format!("formation of population {} without `seek ... using astar`", p.name));
        }
    }
    let walks_bvp = |p: &PopulationId| {
        let b = &program.behaviours[program.populations[p.index()].behaviour.index()];
        b.body.actions().any(|a| matches!(a, Action::Seek { planner, .. } if planner.kind == PlannerKind::Bvp))
    };
    for g in &program.groups {
        if g.group_map.is_some() {
            // A group map keeps any formation (Silveira et al.); its members must walk on it.
            if !g.members.iter().all(walks_bvp) {
                need("bvp", format!("group map of group {} without `seek ... using bvp`", g.name));
            }
        } else if shaped(&g.formation) {
            need("group formation", format!("a formation shape for group {}", g.name));
        } else if g.formation.is_some() && (g.members.len() != 1 || g.leader.is_some() || g.followers.is_some()) {
            need(
                "group formation",
                format!("formation of group {}, which is not the agents of one population", g.name),
            );
        } else if g.formation.is_some() && !walks_astar(g.members[0]) {
            need("group formation", format!("formation of group {} without `seek ... using astar`", g.name));
        }
    }
    lines
}
