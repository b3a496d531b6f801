//! `collisions among X <= N` and `overlap among X <= D`: collision events and
//! the deepest overlap as `crowd metrics` counts them
//! ([`crate::trace::measure::collide`]), with the same body radii
//! ([`crate::trace::measure::report::radii`]: the trace's `radius` column,
//! else each population's radius, the mean of a drawn one).

use super::{Frames, Num};
use crate::ir::Subject;
use crate::trace::measure::collide::{collisions_among, Collisions};
use crate::trace::measure::report::radii;
use crate::trace::metrics::{subject_matches, Verdict};

fn among(fr: &Frames<'_>, who: Subject) -> Collisions {
    let trace = &fr.rec.trace;
    let (radius, _) = radii(trace, Some(fr.program));
    let population = &fr.rec.population;
    collisions_among(trace, &radius, &|r| subject_matches(fr.program, who, population[r]))
}

fn first(c: &Collisions) -> String {
    c.first.as_ref().map_or(String::new(), |f| format!("; first: agents {} and {} at {} s", f.a, f.b, Num(f.t)))
}

/// At most `max` collision events among the agents of `who` over the run.
pub fn collisions(fr: &Frames<'_>, who: Subject, max: u32) -> Verdict {
    let c = among(fr, who);
    let detail = format!("{} collision event(s) between {} pair(s){}", c.events, c.pairs, first(&c));
    if c.events <= u64::from(max) {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}

/// No two bodies of `who` overlap by more than `max` (m) in any frame.
pub fn overlap(fr: &Frames<'_>, who: Subject, max: f64) -> Verdict {
    let c = among(fr, who);
    let detail = format!("deepest overlap {} m{}", Num(c.max_depth), first(&c));
    if c.max_depth <= max + 1e-12 {
        Verdict::Holds(detail)
    } else {
        Verdict::Fails(detail)
    }
}
