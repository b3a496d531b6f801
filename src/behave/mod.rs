//! Behaviours and their rules: group formations, group space and the
//! free-space test that chooses a formation.

pub mod formations;
pub mod groups;
