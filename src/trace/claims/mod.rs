//! The claims of `expect` blocks that rest on the measurements of
//! `crowd metrics`, and the time qualifiers every timed claim shares.
//!
//! Invariant: a claim about trips, stuck agents or collisions calls the
//! measurement in [`super::measure`] that `crowd metrics` reports, never a
//! copy of it, so the two cannot disagree about what happened.

pub mod arrive;
pub mod bodies;
pub mod groups;
pub mod moved;
pub mod near;
pub mod speed;
pub mod when;

use std::cell::OnceCell;
use std::fmt;

use crate::ir::{Program, Subject};

use super::measure::goals::{goals, targets, Goals, Reach};
use super::metrics::subject_matches;
use super::read::{FrameSpan, Recorded};

/// A recorded run and its scenario, with the measurements claims share,
/// each made at most once.
pub struct Frames<'a> {
    pub program: &'a Program,
    pub rec: &'a Recorded,
    goals: OnceCell<Option<Goals>>,
}

impl<'a> Frames<'a> {
    pub fn new(program: &'a Program, rec: &'a Recorded) -> Frames<'a> {
        Frames { program, rec, goals: OnceCell::new() }
    }

    /// The rows of frame `f` whose agents are of `who`.
    pub fn rows(&self, f: &FrameSpan, who: Subject) -> Vec<usize> {
        f.rows.clone().filter(|&r| subject_matches(self.program, who, self.rec.population[r])).collect()
    }

    /// The last frame recorded at or before `t`.
    pub fn at(&self, t: f64) -> Result<&FrameSpan, String> {
        self.rec.frame_at(t).ok_or_else(|| format!("the run ends at {} s, before {t} s", Num(self.end())))
    }

    /// The time of the last recorded frame, s.
    pub fn end(&self) -> f64 {
        self.rec.frames.last().map_or(0.0, |f| f.t)
    }

    /// The tracks (indices into the trace's tracks) of the agents of `who`.
    pub fn tracks(&self, who: Subject) -> Vec<usize> {
        let tracks = &self.rec.trace.tracks;
        (0..tracks.len())
            .filter(|&k| {
                let first = tracks.rows(k).first().map(|&r| r as usize);
                first.is_some_and(|r| subject_matches(self.program, who, self.rec.population[r]))
            })
            .collect()
    }

    /// Trips, arrivals and stuck agents as `crowd metrics` measures them
    /// (with the scenario's reach); `None` when nothing says what the agents
    /// walk to.
    pub fn goals(&self) -> Option<&Goals> {
        self.goals
            .get_or_init(|| {
                let trace = &self.rec.trace;
                targets(trace, Some(self.program)).map(|t| goals(trace, &t, Reach::of(&self.program.params)))
            })
            .as_ref()
    }
}

/// A measured number as a claim's detail shows it: six significant digits,
/// without trailing zeros. Frame times such as 17.166666666666668 s read
/// 17.1667 s, while a distance just short of a bound (0.49996 m against
/// 0.5 m) still shows on which side it lies.
#[derive(Clone, Copy)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: usize = 6;
        let x = self.0;
        if x == 0.0 {
            return f.write_str("0");
        }
        if !x.is_finite() {
            return write!(f, "{x}");
        }
        let m = x.abs();
        if !(1e-4..1e9).contains(&m) {
            return write!(f, "{x:.prec$e}", prec = DIGITS - 1);
        }
        // Digits after the point: DIGITS less those before it (or plus the
        // zeros after it).
        let mut places = DIGITS - 1;
        let mut scaled = m;
        while scaled >= 10.0 && places > 0 {
            scaled /= 10.0;
            places -= 1;
        }
        while scaled < 1.0 {
            scaled *= 10.0;
            places += 1;
        }
        let s = format!("{x:.places$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
        f.write_str(if s == "-0" { "0" } else { s })
    }
}

#[cfg(test)]
mod tests {
    use super::Num;

    #[test]
    fn numbers_read_with_six_significant_digits() {
        let cases = [
            (17.166666666666668, "17.1667"),
            (87.16666666666667, "87.1667"),
            (80.0, "80"),
            (0.49996, "0.49996"),
            (0.5037000000000001, "0.5037"),
            (0.041666666666666664, "0.0416667"),
            (123456.7, "123457"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (-0.0, "0"),
            (-1e-12, "-1.00000e-12"),
            (3e-7, "3.00000e-7"),
            (f64::INFINITY, "inf"),
        ];
        for (x, shown) in cases {
            assert_eq!(Num(x).to_string(), shown, "{x}");
        }
    }
}
