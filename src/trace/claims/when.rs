//! Time qualifiers: a claim about one frame, checked `at T`, `during T1 to
//! T2` or `for at least X% of T1 to T2`; for a claim on a measurement some
//! frames lack, how those frames count ([`over_measured`]).

use super::{Frames, Num};
use crate::ir::When;
use crate::trace::metrics::Verdict;
use crate::trace::read::FrameSpan;

/// What a claim says about one frame: `Ok` when it holds there, `Err` when
/// not, each with a detail for the report.
pub type Seen = Result<String, String>;

/// `Ok(detail)` when `ok`, else `Err(detail)`.
pub fn seen(ok: bool, detail: String) -> Seen {
    if ok {
        Ok(detail)
    } else {
        Err(detail)
    }
}

/// A claim that a frame's least value (the closest pair, the smallest gap)
/// is at least `bound`: at the frames `at` names, or over the whole run,
/// where the frame with the least value decides. `least` gives a frame's
/// value and what `detail(value, what, t)` names; `None` for a frame with
/// nothing to measure, which holds (`none` says what it lacks).
pub fn lowest<T>(
    fr: &Frames<'_>,
    at: Option<When>,
    bound: f64,
    least: impl Fn(&FrameSpan) -> Option<(f64, T)>,
    detail: impl Fn(f64, &T, f64) -> String,
    none: &str,
) -> Verdict {
    if let Some(at) = at {
        return over(fr, at, |f| match least(f) {
            None => Ok(format!("{none} at {} s", Num(f.t))),
            Some((v, what)) => seen(v >= bound, detail(v, &what, f.t)),
        });
    }
    let mut worst: Option<(f64, T, f64)> = None;
    for f in &fr.rec.frames {
        if let Some((v, what)) = least(f) {
            if worst.as_ref().is_none_or(|w| v < w.0) {
                worst = Some((v, what, f.t));
            }
        }
    }
    match worst {
        None => Verdict::Holds(format!("{none} at once")),
        Some((v, what, t)) if v >= bound => Verdict::Holds(detail(v, &what, t)),
        Some((v, what, t)) => Verdict::Fails(detail(v, &what, t)),
    }
}

/// What a claim on a measurement that some frames lack says about one
/// frame: the claim's verdict there, or why the frame has no measurement.
pub enum Measured {
    Seen(Seen),
    Without(String),
}

/// Checks `frame` over the frames `when` names. `During` fails at the first
/// frame that fails and names its time; `Share` reports the share reached.
pub fn over(fr: &Frames<'_>, when: When, mut frame: impl FnMut(&FrameSpan) -> Seen) -> Verdict {
    over_measured(fr, when, |f| Measured::Seen(frame(f)))
}

/// [`over`] for a measurement some frames lack (a group's formation error
/// while it stands): `at T` fails at a frame without one, naming the nearest
/// frames with one; `during` and `for at least X% of` count only the frames
/// with one, and fail when none has.
pub fn over_measured(fr: &Frames<'_>, when: When, mut frame: impl FnMut(&FrameSpan) -> Measured) -> Verdict {
    match when {
        When::At(t) => {
            let f = match fr.at(t) {
                Ok(f) => f,
                Err(e) => return Verdict::Fails(e),
            };
            match frame(f) {
                Measured::Seen(Ok(d)) => Verdict::Holds(d),
                Measured::Seen(Err(d)) => Verdict::Fails(d),
                Measured::Without(why) => Verdict::Fails(format!("{why}; {}", nearest_measured(fr, f, &mut frame))),
            }
        }
        When::During(from, to) => {
            let frames = match window(fr, from, to) {
                Ok(f) => f,
                Err(e) => return Verdict::Fails(e),
            };
            let mut last = String::new();
            let mut without = Without::default();
            for f in &frames {
                match frame(f) {
                    Measured::Seen(Ok(d)) => last = d,
                    Measured::Seen(Err(d)) => return Verdict::Fails(format!("first fails at {} s: {d}", Num(f.t))),
                    Measured::Without(why) => without.add(why),
                }
            }
            let measured = frames.len() - without.count;
            if measured == 0 {
                return Verdict::Fails(without.none(from, to));
            }
            Verdict::Holds(format!(
                "held in all {measured} frame(s) from {from} s to {to} s{}; last: {last}",
                without.note()
            ))
        }
        When::Share { share, from, to } => {
            let frames = match window(fr, from, to) {
                Ok(f) => f,
                Err(e) => return Verdict::Fails(e),
            };
            let mut held = 0usize;
            let mut first_failure: Option<(f64, String)> = None;
            let mut without = Without::default();
            for f in &frames {
                match frame(f) {
                    Measured::Seen(Ok(_)) => held += 1,
                    Measured::Seen(Err(d)) => {
                        first_failure.get_or_insert((f.t, d));
                    }
                    Measured::Without(why) => without.add(why),
                }
            }
            let measured = frames.len() - without.count;
            if measured == 0 {
                return Verdict::Fails(without.none(from, to));
            }
            let got = held as f64 / measured as f64;
            let detail = format!(
                "held in {held} of {measured} frame(s) from {from} s to {to} s: {}%, {}% needed{}",
                percent(got),
                percent(share),
                without.note()
            );
            match first_failure {
                Some((t, d)) if got < share - 1e-12 => {
                    Verdict::Fails(format!("{detail}; first failure at {} s: {d}", Num(t)))
                }
                _ => Verdict::Holds(detail),
            }
        }
    }
}

/// The frames of a window that have no measurement: how many, and why the first has none.
#[derive(Default)]
struct Without {
    count: usize,
    first: Option<String>,
}

impl Without {
    fn add(&mut self, why: String) {
        self.count += 1;
        self.first.get_or_insert(why);
    }

    /// What the report adds when some frames were not counted (nothing when none).
    fn note(&self) -> String {
        match &self.first {
            Some(why) => format!("; {} frame(s) without a measurement not counted (first: {why})", self.count),
            None => String::new(),
        }
    }

    /// The failure of a window none of whose frames has a measurement.
    fn none(&self, from: f64, to: f64) -> String {
        format!(
            "none of the {} frame(s) from {from} s to {to} s has a measurement (first: {})",
            self.count,
            self.first.as_deref().unwrap_or("")
        )
    }
}

/// Where the frames nearest to `at` that have a measurement are, for the
/// failure of an `at T` claim whose frame has none.
fn nearest_measured(fr: &Frames<'_>, at: &FrameSpan, frame: &mut impl FnMut(&FrameSpan) -> Measured) -> String {
    let frames = &fr.rec.frames;
    let k = frames.iter().position(|g| std::ptr::eq(g, at)).unwrap_or(0);
    let mut has = |g: &FrameSpan| matches!(frame(g), Measured::Seen(_));
    let before = frames[..k].iter().rev().find(|g| has(g)).map(|g| g.t);
    let after = frames[k + 1..].iter().find(|g| has(g)).map(|g| g.t);
    match (before, after) {
        (None, None) => "no frame of the run has a measurement".into(),
        (Some(t), None) | (None, Some(t)) => format!("the nearest frame with a measurement is at {} s", Num(t)),
        (Some(b), Some(a)) => format!("the nearest frames with a measurement are at {} s and {} s", Num(b), Num(a)),
    }
}

/// A fraction as a percentage with at most one decimal.
fn percent(x: f64) -> f64 {
    (x * 1000.0).round() / 10.0
}

/// The recorded frames from `from` to `to` (both included); the run must reach `to`.
fn window<'a>(fr: &'a Frames<'_>, from: f64, to: f64) -> Result<Vec<&'a FrameSpan>, String> {
    if to > fr.end() + 1e-9 {
        return Err(format!("the run ends at {} s, before {to} s", Num(fr.end())));
    }
    let frames: Vec<&FrameSpan> = fr.rec.frames.iter().filter(|f| f.t >= from - 1e-9 && f.t <= to + 1e-9).collect();
    if frames.is_empty() {
        return Err(format!("no frame was recorded from {from} s to {to} s"));
    }
    Ok(frames)
}
