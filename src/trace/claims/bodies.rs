//! `collisions among X <= N` and `overlap among X <= D`: collision events and
//! the deepest overlap as `crowd metrics` counts them
//! ([`crate::trace::measure::collide`]); `clearance of X >= D`: bodies' gaps
//! to obstacles, as `min_clearance` measures them. All with the same body radii
//! ([`crate::trace::measure::report::radii`]: the trace's `radius` column,
//! else each population's radius, the mean of a drawn one).

use super::{when, Frames, Num};
use crate::ir::{ObstacleId, Subject, When};
use crate::trace::measure::collide::{collisions_among, Collisions, Walls};
use crate::trace::measure::report::radii;
use crate::trace::metrics::{subject_matches, Verdict};

/// How far inside an obstacle a body's edge may lie and still only touch it, m.
const CONTACT: f64 = 1e-9;

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

/// The gap between the edge of every body of `who` and the obstacle (or
/// every obstacle) is at least `distance` (m), in every frame or in those `at` names.
pub fn clearance(
    fr: &Frames<'_>,
    who: Subject,
    obstacle: Option<ObstacleId>,
    distance: f64,
    at: Option<When>,
) -> Verdict {
    let (trace, program) = (&fr.rec.trace, fr.program);
    let (radius, _) = radii(trace, Some(program));
    let walls = Walls::new(&program.world.obstacles);
    let only = obstacle.map(|o| o.index());
    let detail = |gap: f64, &(r, o): &(usize, usize), t: f64| {
        let name = &program.world.obstacles[o].name;
        format!("closest: agent {} {} m from {name} at {} s", trace.id[r], Num(gap), Num(t))
    };
    // Bodies the executor holds against a wall end within round-off of
    // contact (1e-10 m at a pillar's edge): touching, not overlapping.
    when::lowest(
        fr,
        at,
        distance - CONTACT,
        |f| walls.closest(&trace.pos, &radius, &fr.rows(f, who), only).map(|(gap, r, o)| (gap, (r, o))),
        detail,
        "no such agent",
    )
}
