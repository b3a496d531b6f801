//! `mean speed of X`: how fast a subject moves, frame by frame. Settled
//! agents stand; agents that jitter in place do not, whatever their
//! displacement says.

use super::when::{self, Measured};
use super::{Frames, Num};
use crate::ir::{Comparison, Subject, When};
use crate::trace::metrics::{compares, frame_index, Verdict};

/// The mean over the live agents of `who` of their speed (the trace's
/// velocity, or the displacement since the last frame where it has none)
/// is at most / at least `bound`; a frame without such agents has no
/// measurement.
pub fn mean_speed(fr: &Frames<'_>, who: Subject, comparison: Comparison, bound: f64, at: When) -> Verdict {
    when::over_measured(fr, at, |f| {
        let rows = fr.rows(f, who);
        if rows.is_empty() {
            return Measured::Without(format!("no such agent at {} s", Num(f.t)));
        }
        let v = rows.iter().map(|&r| fr.rec.trace.vel[r].length()).sum::<f64>() / rows.len() as f64;
        let ok = compares(comparison, v, bound);
        let frame = frame_index(fr.rec, f);
        let detail =
            format!("mean speed {} m/s over {} agent(s) at {} s (frame {frame})", Num(v), rows.len(), Num(f.t));
        Measured::Seen(when::seen(ok, detail))
    })
}
