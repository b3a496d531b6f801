//! The crowd extension under pressure (`docs/pressure/`): counterflow at 100
//! per direction does not meet the bar on completed trips (the flows start
//! jammed in their ends, the reservation caps the flow, and with room to
//! start they can lock; see `docs/space-colonization.md`). What holds at
//! the scenes' seed: nobody stands for good in the packed scene (a walker
//! beside a wall whose tree could not grow used to stand for the rest of
//! the run, and everyone behind it with it), and no bodies touch where
//! there is room to start.

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

#[test]
fn flows_with_room_to_start_do_not_touch_at_100_per_direction() {
    let program = compile("docs/pressure/counterflow_reserve_100_roomy.crowd");
    let failed = failures(&program);
    assert!(!failed.iter().any(|f| f.contains("collisions")), "bodies touched: {failed:?}");
    // Not met: at 1 of seeds 1-20 (17) the flows lock for good (the docs say how).
    let claim = "at least 95% of trips of everyone complete within 80 s";
    assert!(failed.iter().any(|f| f.contains(claim)), "`{claim}` now holds: update docs/space-colonization.md");
}
