//! Time qualifiers: a claim about one frame, checked `at T`, `during T1 to
//! T2` or `for at least X% of T1 to T2`.

use super::Frames;
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

/// Checks `frame` over the frames `when` names. `During` fails at the first
/// frame that fails and names its time; `Share` reports the share reached.
pub fn over(fr: &Frames<'_>, when: When, mut frame: impl FnMut(&FrameSpan) -> Seen) -> Verdict {
    match when {
        When::At(t) => match fr.at(t).map(&mut frame) {
            Err(e) | Ok(Err(e)) => Verdict::Fails(e),
            Ok(Ok(d)) => Verdict::Holds(d),
        },
        When::During(from, to) => {
            let frames = match window(fr, from, to) {
                Ok(f) => f,
                Err(e) => return Verdict::Fails(e),
            };
            let mut last = String::new();
            for f in &frames {
                match frame(f) {
                    Ok(d) => last = d,
                    Err(d) => return Verdict::Fails(format!("first fails at {} s: {d}", f.t)),
                }
            }
            Verdict::Holds(format!("held in all {} frame(s) from {from} s to {to} s; last: {last}", frames.len()))
        }
        When::Share { share, from, to } => {
            let frames = match window(fr, from, to) {
                Ok(f) => f,
                Err(e) => return Verdict::Fails(e),
            };
            let mut held = 0usize;
            let mut first_failure: Option<(f64, String)> = None;
            for f in &frames {
                match frame(f) {
                    Ok(_) => held += 1,
                    Err(d) => {
                        first_failure.get_or_insert((f.t, d));
                    }
                }
            }
            let got = held as f64 / frames.len() as f64;
            let detail = format!(
                "held in {held} of {} frame(s) from {from} s to {to} s: {}%, {}% needed",
                frames.len(),
                percent(got),
                percent(share)
            );
            match first_failure {
                Some((t, d)) if got < share - 1e-12 => Verdict::Fails(format!("{detail}; first failure at {t} s: {d}")),
                _ => Verdict::Holds(detail),
            }
        }
    }
}

/// A fraction as a percentage with at most one decimal.
fn percent(x: f64) -> f64 {
    (x * 1000.0).round() / 10.0
}

/// The recorded frames from `from` to `to` (both included); the run must reach `to`.
fn window<'a>(fr: &'a Frames<'_>, from: f64, to: f64) -> Result<Vec<&'a FrameSpan>, String> {
    if to > fr.end() + 1e-9 {
        return Err(format!("the run ends at {} s, before {to} s", fr.end()));
    }
    let frames: Vec<&FrameSpan> = fr.rec.frames.iter().filter(|f| f.t >= from - 1e-9 && f.t <= to + 1e-9).collect();
    if frames.is_empty() {
        return Err(format!("no frame was recorded from {from} s to {to} s"));
    }
    Ok(frames)
}
