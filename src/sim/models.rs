//! Which models a scenario needs, and which of them the executor has.
//!
//! Invariant: a scenario that needs a model the executor lacks is refused
//! before anything runs, with one line per use; nothing falls back silently.

use crate::ir::{Action, BehaviourBody, Formation, PlannerKind, Program};

/// One line per unimplemented model use, in declaration order; empty when the
/// scenario can run.
pub fn unimplemented(program: &Program) -> Vec<String> {
    let mut lines = Vec::new();
    let mut need = |model: &str, what: String| {
        lines.push(format!("scenario {} needs the {model} model ({what}), which is not implemented yet", program.name));
    };
    for b in &program.behaviours {
        let actions: Vec<(&str, &Action)> = match &b.body {
            BehaviourBody::Rules(rules) => {
                rules.iter().flat_map(|r| r.actions.iter().map(move |a| (r.name.as_str(), a))).collect()
            }
            BehaviourBody::States(states) => {
                states.iter().flat_map(|s| s.actions.iter().map(move |a| (s.name.as_str(), a))).collect()
            }
        };
        for (mode, action) in actions {
            if !implemented(action) {
                need(action.model(), format!("{} in {mode} of behaviour {}", keyword(action), b.name));
            }
            if let Action::Seek { planner, .. } | Action::Pursue { planner, .. } = action {
                for (name, _) in &planner.params {
                    need(
                        "per-action parameter",
                        format!(
                            "{name} set on {} in {mode} of behaviour {}; set it in a parameters block instead",
                            keyword(action),
                            b.name
                        ),
                    );
                }
            }
        }
    }
    let shaped = |f: &Option<Formation>| matches!(f, Some(Formation::Points { .. }));
    // Groups keep formation along A* paths only; elsewhere the formation would be silently ignored.
    let walks_astar = |p: crate::ir::PopulationId| {
        let b = &program.behaviours[program.populations[p.index()].behaviour.index()];
        super::decide::actions_of(&b.body)
            .any(|a| matches!(a, Action::Seek { planner, .. } if planner.kind == PlannerKind::AStar))
    };
    for (k, p) in program.populations.iter().enumerate() {
        if shaped(&p.formation) {
            need("group formation", format!("a formation shape for population {}", p.name));
        } else if p.formation.is_some() && !walks_astar(crate::ir::PopulationId(k as u32)) {
            need("group formation", format!("formation of population {} without `seek ... using astar`", p.name));
        }
    }
    for g in &program.groups {
        if shaped(&g.formation) {
            need("group formation", format!("a formation shape for group {}", g.name));
        } else if g.formation.is_some() && (g.members.len() != 1 || g.leader.is_some() || g.followers.is_some()) {
            need(
                "group formation",
                format!("formation of group {}, which is not the agents of one population", g.name),
            );
        } else if g.formation.is_some() && !walks_astar(g.members[0]) {
            need("group formation", format!("formation of group {} without `seek ... using astar`", g.name));
        }
        if g.group_map.is_some() {
            need("bvp", format!("group map of group {}", g.name));
        }
    }
    lines
}

fn implemented(action: &Action) -> bool {
    match action {
        Action::Seek { planner, .. } | Action::Pursue { planner, .. } => {
            matches!(planner.kind, PlannerKind::Straight | PlannerKind::TreePaths | PlannerKind::AStar)
        }
        Action::Dwell(_)
        | Action::PickGoal
        | Action::Surround { .. }
        | Action::Escape { .. }
        | Action::Form { .. }
        | Action::Align { .. } => true,
        _ => false,
    }
}

/// How the action reads in a scenario, for messages.
pub fn keyword(action: &Action) -> &'static str {
    match action {
        Action::Seek { .. } => "seek",
        Action::Wander => "wander",
        Action::Dwell(_) => "dwell",
        Action::PickGoal => "pick goal",
        Action::Pursue { .. } => "pursue",
        Action::Surround { .. } => "surround",
        Action::Escape { .. } => "escape",
        Action::Form { .. } => "form",
        Action::Align { .. } => "align",
        Action::Follow { .. } => "follow",
        Action::Flock { .. } => "flock",
        Action::Hunt { .. } => "hunt",
        Action::Flee { .. } => "flee",
        Action::Evacuate { .. } => "evacuate",
        Action::SetFormation(_) => "formation",
    }
}
