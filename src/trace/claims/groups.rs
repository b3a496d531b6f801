//! `formation error of G <= D WHEN` and `spread of G <= D WHEN` (or `>=`):
//! one named group's formation error and spread, measured in each frame by
//! the function `crowd metrics` measures every group with
//! ([`crate::trace::measure::groups::measure`]).
//!
//! The group's agents in a frame are the rows with its trace group number
//! (an explicit group's number is its index). A frame in which fewer than
//! two of them are alive has neither measure, and one in which they do not
//! walk (mean velocity at most [`MOVING`]) has no formation error: such
//! frames are not counted ([`when::over_measured`]).
//!
//! `nobody of X inside group space of Y`: every frame, each group's reserved
//! core as [`crate::trace::measure::groups::core`] measures it.

use super::when::{self, seen, Measured};
use super::{Frames, Num};
use crate::behave::groups::Layout;
use crate::ir::{Comparison, Dist, Formation, GroupId, Subject, Vec2, When};
use crate::trace::measure::groups::{core, declared_by_group, frame_groups, measure, Core, Measures, NoFormationError};
use crate::trace::metrics::{compares, Verdict, MOVING};
use crate::trace::read::FrameSpan;

/// The group's measures in frame `f` and how many members it has there, or
/// why it has no measures there.
fn measures(
    fr: &Frames<'_>,
    f: &FrameSpan,
    group: GroupId,
    formation: Option<(&Formation, &Layout)>,
) -> Result<(Measures, usize), String> {
    let rec = fr.rec;
    let name = &fr.program.groups[group.index()].name;
    let rows: Vec<usize> = f.rows.clone().filter(|&r| rec.group[r] == Some(group.0)).collect();
    match rows.as_slice() {
        [] => Err(format!("no member of group {name} is alive at {} s", Num(f.t))),
        [one] => Err(format!("only agent {} of group {name} is alive at {} s", rec.trace.id[*one], Num(f.t))),
        _ => Ok((measure(&rec.trace, &rows, formation).expect("two or more members"), rows.len())),
    }
}

/// The formation error of `group` compares with `bound` (m) in the frames `at` names.
pub fn formation_error(fr: &Frames<'_>, group: GroupId, comparison: Comparison, bound: f64, at: When) -> Verdict {
    let name = &fr.program.groups[group.index()].name;
    let Some((formation, layout)) = declared_by_group(fr.program, group) else {
        return Verdict::Fails(format!("group {name} declares no formation to measure an error against"));
    };
    if formation == Formation::Auto && !fr.rec.trace.has_column("formation") {
        return Verdict::Fails(format!(
            "group {name} keeps formation `auto`: which one it walks in is read from the trace's `formation` \
             column, and the trace has none (output {{ columns formation }})"
        ));
    }
    when::over_measured(fr, at, |f| {
        let (m, n) = match measures(fr, f, group, Some((&formation, &layout))) {
            Ok(m) => m,
            Err(why) => return Measured::Without(format!("no formation error: {why}")),
        };
        match m.formation_error {
            Ok(e) => Measured::Seen(seen(
                compares(comparison, e, bound),
                format!("formation error {} m at {} s ({n} members walking at {} m/s)", Num(e), Num(f.t), Num(m.heading.length())),
            )),
            Err(NoFormationError::Standing) => Measured::Without(format!(
                "no formation error: group {name} is not walking at {} s (mean velocity {} m/s, at most {MOVING} m/s)",
                Num(f.t),
                Num(m.heading.length())
            )),
            Err(NoFormationError::Unknown) => Measured::Without(format!(
                "no formation error: the members of group {name} do not all walk in one formation at {} s (the trace's `formation` column)",
                Num(f.t)
            )),
            Err(NoFormationError::Undeclared) => Measured::Without(format!("group {name} declares no formation")),
        }
    })
}

/// The largest distance of a member of `group` to its centroid compares with
/// `bound` (m) in the frames `at` names.
pub fn spread(fr: &Frames<'_>, group: GroupId, comparison: Comparison, bound: f64, at: When) -> Verdict {
    when::over_measured(fr, at, |f| match measures(fr, f, group, None) {
        Err(why) => Measured::Without(format!("no spread: {why}")),
        Ok((m, n)) => Measured::Seen(seen(
            compares(comparison, m.spread, bound),
            format!(
                "spread {} m at {} s (agent {} farthest from the centroid of {n} members)",
                Num(m.spread),
                Num(f.t),
                fr.rec.trace.id[m.farthest]
            ),
        )),
    })
}

/// The smallest body a population's radius distribution gives, m. Used when
/// the trace has no `radius` column: a smaller body only shrinks a group
/// space, so a core entry found with it is an entry with the real bodies too.
fn smallest_radius(d: &Dist) -> f64 {
    match *d {
        Dist::Constant(c) => c,
        Dist::Uniform { min, .. } | Dist::Normal { min, .. } => min,
        _ => 0.0,
    }
    .max(0.0)
}

/// `nobody of WHO inside group space of GROUPS`: in no frame does an agent
/// of `who` stand in the reserved core of a group with members in
/// `groups`, unless it belongs to that group.
pub fn never_in_core(fr: &Frames<'_>, who: Subject, groups: Subject) -> Verdict {
    let (program, rec) = (fr.program, fr.rec);
    let params = &program.params.semantic_groups;
    let drawn: Vec<f64>;
    let radius: &[f64] = match &rec.trace.radius {
        Some(r) => r,
        None => {
            let by_pop: Vec<f64> = program.populations.iter().map(|p| smallest_radius(&p.radius)).collect();
            drawn = rec.population.iter().map(|&p| by_pop.get(p as usize).copied().unwrap_or(0.0)).collect();
            &drawn
        }
    };
    let (mut seen, mut closest) = (0usize, None::<(f64, u32, u32, f64)>);
    for (k, f) in rec.frames.iter().enumerate() {
        let mut numbers: Vec<u32> = fr.rows(f, groups).iter().filter_map(|&r| rec.group[r]).collect();
        if numbers.is_empty() {
            continue;
        }
        numbers.sort_unstable();
        numbers.dedup();
        let cores: Vec<Core> = frame_groups(&rec.trace, k)
            .into_iter()
            .filter(|(g, _)| numbers.binary_search(g).is_ok())
            .filter_map(|(g, members)| {
                let pos: Vec<Vec2> = members.iter().map(|&r| rec.trace.pos[r]).collect();
                let radii: Vec<f64> = members.iter().map(|&r| radius[r]).collect();
                core(g, &pos, &radii, params.social_distance, params.core)
            })
            .collect();
        if cores.is_empty() {
            continue;
        }
        seen += 1;
        for r in fr.rows(f, who) {
            for c in cores.iter().filter(|c| rec.group[r] != Some(c.group)) {
                let margin = c.margin(rec.trace.pos[r]);
                if c.radius > 0.0 && margin <= 0.0 {
                    return Verdict::Fails(format!(
                        "agent {} is inside the core of group {}'s space at {} s (frame {k}): {:.3} m from its centre, core radius {:.3} m",
                        rec.trace.id[r],
                        c.group,
                        Num(f.t),
                        rec.trace.pos[r].distance(c.centre),
                        c.radius
                    ));
                }
                if closest.is_none_or(|(m, ..)| margin < m) {
                    closest = Some((margin, rec.trace.id[r], c.group, f.t));
                }
            }
        }
    }
    Verdict::Holds(match closest {
        None => format!("checked {seen} frame(s) with a group space, none with anyone else near"),
        Some((m, a, g, t)) => {
            format!(
                "checked {seen} frame(s) with a group space; closest: agent {a}, {} m outside group {g}'s core at {} s",
                Num(m),
                Num(t)
            )
        }
    })
}
