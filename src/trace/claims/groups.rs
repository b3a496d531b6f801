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

use super::when::{self, seen, Measured};
use super::Frames;
use crate::behave::groups::Layout;
use crate::ir::{Comparison, Formation, GroupId, When};
use crate::trace::measure::groups::{declared_by_group, measure, Measures, NoFormationError};
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
        [] => Err(format!("no member of group {name} is alive at {} s", f.t)),
        [one] => Err(format!("only agent {} of group {name} is alive at {} s", rec.trace.id[*one], f.t)),
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
                format!("formation error {e} m at {} s ({n} members walking at {} m/s)", f.t, m.heading.length()),
            )),
            Err(NoFormationError::Standing) => Measured::Without(format!(
                "no formation error: group {name} is not walking at {} s (mean velocity {} m/s, at most {MOVING} m/s)",
                f.t,
                m.heading.length()
            )),
            Err(NoFormationError::Unknown) => Measured::Without(format!(
                "no formation error: the members of group {name} do not all walk in one formation at {} s (the trace's `formation` column)",
                f.t
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
                m.spread, f.t, fr.rec.trace.id[m.farthest]
            ),
        )),
    })
}
