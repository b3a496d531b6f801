//! `X reaches goal [within T]`: arrival as `crowd metrics` measures it
//! (see [`crate::trace::measure::goals`]): an agent reaches its goal at the
//! end of its first completed trip.

use super::Frames;
use crate::ir::Subject;
use crate::trace::measure::goals::{STUCK_DISTANCE, STUCK_WINDOW};
use crate::trace::metrics::Verdict;

/// Every agent of `who` completes a trip, no later than `by` when given.
pub fn reaches_goal(fr: &Frames<'_>, who: Subject, by: Option<f64>) -> Verdict {
    let mine = fr.tracks(who);
    if mine.is_empty() {
        return Verdict::Fails("no such agent was ever created".into());
    }
    let Some(g) = fr.goals() else {
        return Verdict::Fails("neither the trace's `goal` column nor the scenario says where the agents walk".into());
    };
    let tracks = &fr.rec.trace.tracks;
    let limit = by.unwrap_or(f64::INFINITY);
    let late: Vec<usize> =
        mine.iter().copied().filter(|&k| g.first_arrival[k].map_or(true, |t| t > limit + 1e-9)).collect();
    if late.is_empty() {
        let latest = mine.iter().filter_map(|&k| g.first_arrival[k]).fold(f64::NEG_INFINITY, f64::max);
        return Verdict::Holds(format!("{} agent(s), the last arrived at {latest} s", mine.len()));
    }
    let first = late[0];
    let mut detail = format!(
        "{} of {} agent(s) did not arrive{}; first: agent {}",
        late.len(),
        mine.len(),
        by.map_or(String::new(), |b| format!(" by {b} s")),
        tracks.id[first]
    );
    if let Some(t) = g.first_arrival[first] {
        detail.push_str(&format!(" (arrived at {t} s)"));
    }
    let stuck = late.iter().filter(|&&k| g.stuck.contains(&tracks.id[k])).count();
    if stuck > 0 {
        detail.push_str(&format!(
            "; {stuck} stuck (goal unreached, moved < {STUCK_DISTANCE} m in their last {STUCK_WINDOW} s)"
        ));
    }
    let goalless = late.iter().filter(|&&k| !g.had_goal[k]).count();
    if goalless > 0 {
        detail.push_str(&format!("; {goalless} never had a goal the trace can measure"));
    }
    Verdict::Fails(detail)
}
