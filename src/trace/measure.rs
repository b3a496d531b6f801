//! Measuring a recorded run: a trace read without its scenario ([`Trace`]),
//! and the metrics `crowd metrics` reports — collisions, obstacle intrusions,
//! goals and travel times, path lengths, speed and density over time, group
//! cohesion, formation error, lanes, motion quality, SteerBench-style
//! totals, and distances to the nearest other agent.
//!
//! Invariants:
//! - every metric is a pure function of the trace (and, when given, the
//!   scenario's geometry); the same inputs give the same numbers, bit for bit;
//! - neighbour and pair queries go through [`crate::world::grid::Grid`], never
//!   over all pairs of agents;
//! - results are gathered in row, id or frame order: nothing iterates a hash map;
//! - the metrics `crowd test` evaluates (minimum distance, lane order, angular
//!   spread, "nobody inside") are the functions of [`super::metrics`], called
//!   from here, not copies of them.

pub mod area;
pub mod collide;
pub mod goals;
pub mod groups;
pub mod load;
pub mod motion;
pub mod report;
pub mod spacing;

pub use load::{Trace, DEFAULT_RADIUS};
pub use report::{measure, Measured, Options, Value};
