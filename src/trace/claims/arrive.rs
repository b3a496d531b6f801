//! Claims about goals: `X reaches goal [within T]`, stuck agents, trips
//! completed in time, goals picked. Arrival, trips and "stuck" are those of
//! `crowd metrics` (see [`crate::trace::measure::goals`]): an agent reaches
//! its goal at the end of its first completed trip.

use super::{Frames, Num};
use crate::ir::{Amount, Comparison, Subject};
use crate::trace::measure::goals::stuck_rule;
use crate::trace::metrics::{amount_compares, Verdict};

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
        mine.iter().copied().filter(|&k| g.first_arrival[k].is_none_or(|t| t > limit + 1e-9)).collect();
    if late.is_empty() {
        let latest = mine.iter().filter_map(|&k| g.first_arrival[k]).fold(f64::NEG_INFINITY, f64::max);
        return Verdict::Holds(format!("{} agent(s), the last arrived at {} s", mine.len(), Num(latest)));
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
        detail.push_str(&format!(" (arrived at {} s)", Num(t)));
    }
    let stuck = late.iter().filter(|&&k| g.stuck.contains(&tracks.id[k])).count();
    if stuck > 0 {
        detail.push_str(&format!("; {stuck} stuck ({})", stuck_rule()));
    }
    let goalless = late.iter().filter(|&&k| !g.had_goal[k]).count();
    if goalless > 0 {
        detail.push_str(&format!("; {goalless} never had a goal the trace can measure"));
    }
    Verdict::Fails(detail)
}

/// At most `max` of `who` are stuck, as `crowd metrics` counts `stuck_agents`.
pub fn stuck(fr: &Frames<'_>, who: Subject, max: Amount) -> Verdict {
    let mine = fr.tracks(who);
    let Some(g) = fr.goals() else {
        return Verdict::Fails("neither the trace's `goal` column nor the scenario says where the agents walk".into());
    };
    let ids = &fr.rec.trace.tracks.id;
    let stuck: Vec<u32> = mine.iter().map(|&k| ids[k]).filter(|id| g.stuck.contains(id)).collect();
    let mut detail = format!("{} of {} agent(s) stuck ({})", stuck.len(), mine.len(), stuck_rule());
    if let Some(first) = stuck.first() {
        detail.push_str(&format!("; first: agent {first}"));
    }
    let ok = amount_compares(Comparison::AtMost, max, stuck.len(), mine.len());
    if ok {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}

/// At least `share` of `who`'s trips (as `crowd metrics` counts `trips`)
/// complete with a travel time of at most `within`.
pub fn trips_within(fr: &Frames<'_>, who: Subject, share: f64, within: f64) -> Verdict {
    let Some(g) = fr.goals() else {
        return Verdict::Fails("neither the trace's `goal` column nor the scenario says where the agents walk".into());
    };
    let mine = fr.tracks(who);
    let trips: u64 = mine.iter().map(|&k| u64::from(g.track_trips[k])).sum();
    if trips == 0 {
        return Verdict::Fails("no trip to a measurable goal was recorded".into());
    }
    let mut done = 0u64;
    let mut slowest = f64::NEG_INFINITY;
    for (&k, &t) in g.trip_track.iter().zip(&g.travel_times) {
        if mine.binary_search(&(k as usize)).is_ok() {
            slowest = slowest.max(t);
            done += u64::from(t <= within + 1e-9);
        }
    }
    let got = done as f64 / trips as f64;
    let detail = format!(
        "{done} of {trips} trip(s) completed within {within} s ({}%){}",
        (got * 1000.0).round() / 10.0,
        if slowest.is_finite() { format!("; slowest completed trip: {} s", Num(slowest)) } else { String::new() }
    );
    if got >= share - 1e-12 {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}

/// Every agent of `who` recorded by `by` picks at least (at most) `count`
/// goals up to `by`: a pick is a frame whose `goal` cell is non-empty and
/// differs from the agent's previous frame's (the first goal is a pick).
/// The detail names the agent with the fewest (most) picks.
pub fn picks(fr: &Frames<'_>, who: Subject, comparison: Comparison, count: u32, by: f64) -> Verdict {
    let Some(goal) = &fr.rec.goal else {
        return Verdict::Fails("the trace has no `goal` column: add `output { columns goal }` to the scenario".into());
    };
    let trace = &fr.rec.trace;
    let at_most = comparison == Comparison::AtMost;
    // The agent farthest on the side the claim bounds: fewest picks for
    // `at least`, most for `at most`; ties go to the first track.
    let mut extreme: Option<(u32, u32)> = None;
    let mut agents = 0usize;
    for k in fr.tracks(who) {
        let rows = trace.tracks.rows(k).iter().map(|&r| r as usize);
        let upto: Vec<usize> = rows.take_while(|&r| trace.frames[trace.frame_of(r)].t <= by + 1e-9).collect();
        if upto.is_empty() {
            continue;
        }
        agents += 1;
        let mut previous = None;
        let mut n = 0u32;
        for r in upto {
            if goal[r].is_some() && goal[r] != previous {
                n += 1;
            }
            previous = goal[r];
        }
        if extreme.is_none_or(|(m, _)| if at_most { n > m } else { n < m }) {
            extreme = Some((n, trace.tracks.id[k]));
        }
    }
    match extreme {
        None => Verdict::Fails(format!("no such agent was recorded by {by} s")),
        Some((n, id)) => {
            let most = if at_most { "most" } else { "fewest" };
            let detail = format!("{agents} agent(s); {most} picks by {by} s: {n}, agent {id}");
            if (at_most && n <= count) || (!at_most && n >= count) {
                Verdict::Holds(detail)
            } else {
                Verdict::Fails(detail)
            }
        }
    }
}
