//! Local motion: each model turns a plan and the perceived neighbours into a
//! displacement for one step.
//!
//! Invariants: pure functions of their arguments (positions, the spatial
//! index, parameters); no randomness, no printing; every sum over neighbours
//! runs in the spatial index's fixed order, so results never depend on threads.

pub mod boids;
pub mod coherent;
pub mod direct;
pub mod enforce;
pub mod follow;
pub mod seek;
