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
        self.rec.frame_at(t).ok_or_else(|| format!("the run ends at {} s, before {t} s", self.end()))
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
