//! The crowd extension under pressure (`docs/pressure/`): counterflow at 100
//! per direction does not meet the bar on completed trips (the flows start
//! jammed in their ends, and the reservation caps the flow; see
//! `docs/space-colonization.md`), but nobody stands for good: a walker
//! beside a wall whose tree could not grow used to stand for the rest of
//! the run, and everyone behind it with it.

mod scenario_support;
use scenario_support::{compile, failures};

#[test]
fn nobody_stands_for_good_at_100_per_direction() {
    let program = compile("docs/pressure/counterflow_reserve_100.crowd");
    let failed = failures(&program);
    assert!(!failed.iter().any(|f| f.contains("stuck")), "agents stuck: {failed:?}");
    // The bars still not met, so that this file is revisited when they are.
    for claim in ["at least 95% of trips of everyone complete within 80 s", "collisions among everyone <= 0"] {
        assert!(failed.iter().any(|f| f.contains(claim)), "`{claim}` now holds: update docs/space-colonization.md");
    }
}
