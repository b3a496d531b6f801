//! Runtime errors: everything that can stop a run after the scenario compiled.
//!
//! Each names what the user needs to find the cause: the agent, its
//! population, the step, the simulated time and the phase.

use std::fmt;
use std::io;

#[derive(Debug)]
pub enum SimError {
    /// The scenario uses models the executor does not have yet; one line per use.
    NotImplemented(Vec<String>),
    /// No walkable spawn point was found.
    Spawn { population: String, place: String, attempts: u32 },
    /// A position or velocity stopped being a finite number.
    NonFinite { agent: u32, population: String, step: u64, t: f64, phase: &'static str, what: &'static str },
    /// An agent was told to seek its own goal but has none.
    NoGoal { agent: u32, population: String, step: u64, t: f64 },
    /// An agent must pick a goal but no object provides what it wants.
    NothingProvides { agent: u32, population: String, wants: String },
    /// A model cannot go on (a relaxation that does not converge, a goal outside the world).
    Model { step: u64, t: f64, message: String },
    /// Writing the trace failed.
    Record(io::Error),
    /// Stopped from outside (an interrupt) before the step at `step` (`t` s).
    Interrupted { step: u64, t: f64 },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::NotImplemented(lines) => f.write_str(&lines.join("\n")),
            SimError::Spawn { population, place, attempts } => write!(
                f,
                "population {population}: no walkable spawn point found in {place} after {attempts} attempts \
                 (is the area covered by obstacles, or too narrow for the agents' radius?)"
            ),
            SimError::NonFinite { agent, population, step, t, phase, what } => write!(
                f,
                "agent {agent} (population {population}) got a non-finite {what} at step {step} (t = {t} s) \
                 in the {phase} phase; the run was stopped and no trace was written"
            ),
            SimError::NoGoal { agent, population, step, t } => write!(
                f,
                "agent {agent} (population {population}) seeks its own goal at step {step} (t = {t} s) but has none: \
                 give the population a goal, or pick one first"
            ),
            SimError::NothingProvides { agent, population, wants } => {
                write!(f, "agent {agent} (population {population}) must pick a goal, but no object provides {wants}")
            }
            SimError::Model { step, t, message } => {
                write!(f, "at step {step} (t = {t} s): {message}; the run was stopped and no trace was written")
            }
            SimError::Record(e) => write!(f, "cannot write the trace: {e}"),
            SimError::Interrupted { step, t } => {
                write!(f, "interrupted at step {step} (t = {t} s): the run was stopped before its end")
            }
        }
    }
}

impl std::error::Error for SimError {}

impl From<io::Error> for SimError {
    fn from(e: io::Error) -> Self {
        SimError::Record(e)
    }
}
