//! Sizes past which a scenario is refused at check time, before anything is
//! allocated: a typo such as `density 8000000 per m2` must be an error with
//! the computed figure, not an out-of-memory crash.

/// Markers over the whole walkable area (24 bytes each: ~1.2 GB at the limit).
pub const MAX_MARKERS: u64 = 50_000_000;
/// Agents alive at once, over all populations.
pub const MAX_AGENTS: u64 = 2_000_000;
/// Cells of any planner grid.
pub const MAX_GRID_CELLS: u64 = 16_777_216;
/// Simulation steps of one run.
pub const MAX_STEPS: u64 = 100_000_000;
/// Agent-steps of one run (work, not memory: a guard against runs that cannot finish).
pub const MAX_AGENT_STEPS: u64 = 1_000_000_000_000;
/// The trace a run may write before `crowd run` refuses it unless raised
/// (`--max-trace-gb`), GB: a typo in a count or a record interval must not
/// fill a disk.
pub const DEFAULT_MAX_TRACE_GB: f64 = 16.0;

/// About how many bytes a trace row takes: its twelve columns in shortest
/// round-trip decimals, as measured on the shipped scenarios' goldens
/// (60–90), rounded up; an optional column adds about 12.
pub fn trace_row_bytes(optional_columns: usize) -> f64 {
    100.0 + 12.0 * optional_columns as f64
}

/// About how large a trace can grow, bytes, and of how many agents and
/// recorded frames: every agent the populations declare alive in every frame.
pub fn trace_bytes(header: &super::Header, populations: &[super::Population], columns: usize) -> (f64, u64, f64) {
    let agents: u64 = populations.iter().map(|p| u64::from(p.max_count())).sum();
    let frames = (header.steps() / u64::from(header.record_every.max(1))) as f64 + 1.0;
    (agents as f64 * frames * trace_row_bytes(columns), agents, frames)
}

/// The procedural-population group size limit (Hocevar et al.).
pub const MAX_PROCEDURAL_GROUP: u32 = 3;

/// `P covers S within D` samples S on a grid of spacing [`cover_spacing`];
/// the checker refuses an area that would need more points than this.
pub const MAX_COVER_SAMPLES: f64 = 1e6;

/// The spacing of the points sampled to check that an area is covered within
/// `d`: half of it, so a gap between agents cannot hide between samples by
/// more than a quarter of `d`, and at most 0.25 m (m).
pub fn cover_spacing(d: f64) -> f64 {
    (d / 2.0).min(0.25)
}
