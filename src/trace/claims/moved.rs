//! `X moves at least D by T` and `at most N of X move less than D by T`:
//! displacement from the first recorded position, not path length, so an
//! agent jittering in place does not move. `path ratio of X <= R`: how much
//! longer than the straight line X's paths are, as `crowd metrics` measures
//! `path_ratio_max`.

use super::{Frames, Num};
use crate::ir::{Amount, Comparison, Subject};
use crate::trace::measure::motion::{path_ratios, path_ratios_note, paths, MIN_STRAIGHT};
use crate::trace::metrics::{amount_compares, Verdict};

/// No path of `who` is longer than `max` times the straight line between its ends.
pub fn path_ratio(fr: &Frames<'_>, who: Subject, max: f64) -> Verdict {
    // `tracks` lists its tracks in ascending order.
    let mine = fr.tracks(who);
    let (ratios, per_trip) = path_ratios(&paths(&fr.rec.trace), fr.goals());
    let measured: Vec<(u32, f64)> =
        ratios.into_iter().filter(|&(k, _)| mine.binary_search(&(k as usize)).is_ok()).collect();
    let Some(&(k, worst)) = measured.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0))) else {
        return Verdict::Fails(format!(
            "no path of the {} agent(s) measured ({}; paths ending less than {MIN_STRAIGHT} m from their start are left out)",
            mine.len(),
            path_ratios_note(per_trip)
        ));
    };
    let detail = format!(
        "{} path(s), {}; the longest: agent {}, {} times the straight line",
        measured.len(),
        path_ratios_note(per_trip),
        fr.rec.trace.tracks.id[k as usize],
        Num(worst)
    );
    if worst <= max {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}

/// Per agent of `who` recorded by `by`: (its id, the farthest it got from
/// its first recorded position up to `by`).
fn farthest(fr: &Frames<'_>, who: Subject, by: f64) -> Vec<(u32, f64)> {
    let trace = &fr.rec.trace;
    fr.tracks(who)
        .into_iter()
        .filter_map(|k| {
            let rows = trace.tracks.rows(k);
            let start = trace.pos[*rows.first()? as usize];
            let upto = rows.iter().map(|&r| r as usize).take_while(|&r| trace.frames[trace.frame_of(r)].t <= by + 1e-9);
            let mut far = None;
            for r in upto {
                far = Some(far.unwrap_or(0.0f64).max(trace.pos[r].distance(start)));
            }
            far.map(|d| (trace.tracks.id[k], d))
        })
        .collect()
}

/// Every agent of `who` recorded by `by` got at least `distance` from where it started.
pub fn moves(fr: &Frames<'_>, who: Subject, distance: f64, by: f64) -> Verdict {
    let far = farthest(fr, who, by);
    let Some(&(id, d)) = far.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Verdict::Fails(format!("no such agent was recorded by {by} s"));
    };
    let detail = format!("{} agent(s); the least moved: agent {id}, {} m from its start by {by} s", far.len(), Num(d));
    if d >= distance - 1e-12 {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}

/// At most `max` of the agents of `who` recorded by `by` stay within `distance` of where they started.
pub fn move_less(fr: &Frames<'_>, who: Subject, max: Amount, distance: f64, by: f64) -> Verdict {
    let far = farthest(fr, who, by);
    let short: Vec<&(u32, f64)> = far.iter().filter(|(_, d)| *d < distance - 1e-12).collect();
    let mut detail = format!("{} of {} agent(s) moved less than {distance} m by {by} s", short.len(), far.len());
    if let Some((id, d)) = short.first() {
        detail.push_str(&format!("; first: agent {id}, {} m", Num(*d)));
    }
    if amount_compares(Comparison::AtMost, max, short.len(), far.len()) {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}
