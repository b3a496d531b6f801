//! Geometry, walkable space, markers and spatial indexes: pure functions over IR data.

pub mod bare;
pub mod chaos;
pub mod geometry;
pub mod grid;
pub mod lattice;
pub mod markers;
pub mod outline;
pub mod walkable;
