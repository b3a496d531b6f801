//! `X within D of Y`, `X covers S within D` and `nearest distance of X`:
//! distances to the nearest agent, found on the spatial grid (never over
//! all pairs).

use super::when::{self, Measured, Seen};
use super::{Frames, Num};
use crate::ir::limits::cover_spacing;
use crate::ir::{AreaRef, Comparison, Shape, Subject, Vec2, When};
use crate::trace::measure::spacing::{mean_nearest, Spacing};
use crate::trace::metrics::{compares, frame_index, Verdict};
use crate::trace::read::FrameSpan;
use crate::world::geometry::{bounding_box, contains};

/// In frame `f`, every agent of `who` is within `distance` of the nearest
/// other agent of `of`; the detail names the farthest one.
pub fn within(fr: &Frames<'_>, f: &FrameSpan, who: Subject, of: Subject, distance: f64) -> Seen {
    let rec = fr.rec;
    let mine = fr.rows(f, who);
    if mine.is_empty() {
        return Err(format!("no such agent at {} s", Num(f.t)));
    }
    let theirs = fr.rows(f, of);
    let pts: Vec<Vec2> = theirs.iter().map(|&r| rec.trace.pos[r]).collect();
    let spacing = Spacing::new(&pts, distance);
    let mut worst: Option<(f64, u32)> = None;
    for &r in &mine {
        // An agent of both subjects is not near itself.
        let skip = theirs.binary_search(&r).ok();
        let Some(d) = spacing.nearest(rec.trace.pos[r], skip, distance) else {
            return Err(format!("agent {} has no other agent to be near at {} s", rec.trace.id[r], Num(f.t)));
        };
        if worst.is_none_or(|(w, _)| d > w) {
            worst = Some((d, rec.trace.id[r]));
        }
    }
    let (d, id) = worst.expect("at least one agent");
    when::seen(d <= distance + 1e-12, format!("farthest: agent {id}, {} m from the nearest at {} s", Num(d), Num(f.t)))
}

/// The mean over the live agents of `who` of each one's distance to its
/// nearest other live agent of `who` is at most / at least `bound`; a frame
/// with fewer than two of them has no measurement.
pub fn nearest_distance(fr: &Frames<'_>, who: Subject, comparison: Comparison, bound: f64, at: When) -> Verdict {
    when::over_measured(fr, at, |f| {
        let pts: Vec<Vec2> = fr.rows(f, who).iter().map(|&r| fr.rec.trace.pos[r]).collect();
        let Some(d) = mean_nearest(&pts) else {
            return Measured::Without(format!("{} such agent(s) at {} s, fewer than two", pts.len(), Num(f.t)));
        };
        let ok = compares(comparison, d, bound);
        let frame = frame_index(fr.rec, f);
        let detail =
            format!("mean nearest distance {} m over {} agent(s) at {} s (frame {frame})", Num(d), pts.len(), Num(f.t));
        Measured::Seen(when::seen(ok, detail))
    })
}

/// Points inside `shape` on a grid of spacing `h` (cell centres).
fn samples(shape: &Shape, h: f64) -> Vec<Vec2> {
    let b = bounding_box(shape);
    let nx = ((b.max.x - b.min.x) / h).ceil().max(1.0) as usize;
    let ny = ((b.max.y - b.min.y) / h).ceil().max(1.0) as usize;
    let mut out = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let p = Vec2::new(b.min.x + (i as f64 + 0.5) * h, b.min.y + (j as f64 + 0.5) * h);
            if contains(shape, p) {
                out.push(p);
            }
        }
    }
    out
}

/// Every sampled point of the area is within `distance` of a live agent of
/// `who`; the detail names the worst-covered point.
pub fn covers(fr: &Frames<'_>, who: Subject, area: AreaRef, distance: f64, at: When) -> Verdict {
    let program = fr.program;
    let shape = match area {
        AreaRef::Region(r) => &program.world.regions[r.index()].shape,
        AreaRef::Shape(s) => &program.world.shapes[s.index()].shape,
        AreaRef::Space(s) => &program.spaces[s.index()].shape,
        AreaRef::Mask(_) => return Verdict::Fails("a mask has no inside to cover".into()),
    };
    let h = cover_spacing(distance);
    let points = samples(shape, h);
    if points.is_empty() {
        return Verdict::Fails(format!("no point of the area lies on the {} m sampling grid", Num(h)));
    }
    when::over(fr, at, |f| {
        let pts: Vec<Vec2> = fr.rows(f, who).iter().map(|&r| fr.rec.trace.pos[r]).collect();
        if pts.is_empty() {
            return Err(format!("no such agent at {} s", Num(f.t)));
        }
        let spacing = Spacing::new(&pts, distance);
        let mut worst = (0.0, points[0]);
        for &p in &points {
            let d = spacing.nearest(p, None, distance).unwrap_or(f64::INFINITY);
            if d > worst.0 {
                worst = (d, p);
            }
        }
        let (d, p) = worst;
        when::seen(
            d <= distance + 1e-12,
            format!(
                "{} point(s) sampled every {} m; worst covered: ({} m, {} m), {} m from the nearest agent at {} s",
                points.len(),
                Num(h),
                Num(p.x),
                Num(p.y),
                Num(d),
                Num(f.t)
            ),
        )
    })
}
