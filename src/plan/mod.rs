//! Global planners: each turns a goal and the world into a path an agent can
//! walk, or a field whose descent leads there.
//!
//! Invariants: pure data structures and functions; no randomness except the
//! uniforms handed in by the executor, no printing.

pub mod astar;
pub mod bvp;
mod cell_heap;
pub mod ct_space;
pub mod eikonal;
pub mod tree;
