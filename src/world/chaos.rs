//! The logistic map `x ← r x (1 − x)`, by which Durupınar (2007, §3.1)
//! places boids "according to chaos rules", and what an `r` does to it.
//!
//! Invariants: for `0 < r ≤ 4` every iterate of a value in `[0, 1]` stays in
//! `[0, 1]` (the maximum of `x (1 − x)` is 1/4), so an orbit never leaves the
//! box it is mapped onto and never becomes NaN; an orbit that rounding drives
//! onto 0 (from 1, or from 1/2 at `r = 4`) would stay there for good, so it is
//! started again from the stream instead.

use crate::math;
use crate::rng::Stream;

/// `r` when a scenario gives none: well inside the chaotic range, away from
/// the period-3 window near 3.83.
pub const DEFAULT_R: f64 = 3.9;

/// Starting values keep this far from 0, 1, the fixed point `1 − 1/r` and
/// its preimage `1/r`: started there, an orbit stays put or falls onto 0.
const START_MARGIN: f64 = 0.01;
/// Iterates left out before the Lyapunov exponent is averaged...
const TRANSIENT: usize = 1000;
/// ...and averaged over.
const AVERAGED: usize = 2000;
/// The longest cycle [`fate`] looks for.
const LONGEST_CYCLE: usize = 64;

/// One step of the map.
#[inline]
pub fn step(r: f64, x: f64) -> f64 {
    r * x * (1.0 - x)
}

/// Two orbits of the map, one for each axis, advanced together.
#[derive(Clone, Debug)]
pub struct Orbit {
    r: f64,
    x: f64,
    y: f64,
}

impl Orbit {
    /// Starts both orbits from values drawn from `rng`.
    pub fn start(r: f64, rng: &mut Stream) -> Orbit {
        let x = start_value(r, rng);
        let y = start_value(r, rng);
        Orbit { r, x, y }
    }

    /// The next iterate of both orbits, each in `[0, 1]`; a coordinate that
    /// reached 0 or 1 starts again from `rng`.
    pub fn next(&mut self, rng: &mut Stream) -> (f64, f64) {
        for v in [&mut self.x, &mut self.y] {
            *v = step(self.r, *v);
            if *v <= 0.0 || *v >= 1.0 {
                *v = start_value(self.r, rng);
            }
        }
        (self.x, self.y)
    }
}

/// A starting value strictly inside (0, 1), at least [`START_MARGIN`] from
/// 0, 1, `1 − 1/r` and `1/r`.
pub fn start_value(r: f64, rng: &mut Stream) -> f64 {
    let avoid = [1.0 - 1.0 / r, 1.0 / r];
    let mut x = 0.5;
    // The excluded set is at most 6% of the draws: 64 tries never all miss
    // in practice, and the cap keeps the loop bounded whatever the stream.
    for _ in 0..64 {
        x = START_MARGIN + (1.0 - 2.0 * START_MARGIN) * rng.unit();
        if avoid.iter().all(|a| (x - a).abs() >= START_MARGIN) {
            break;
        }
    }
    x
}

/// What the orbits of the map do for one `r`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fate {
    /// The Lyapunov exponent is positive: nearby starts drift apart.
    Chaotic { lyapunov: f64 },
    /// Every orbit converges to 0 (`r ≤ 1`).
    Zero { lyapunov: f64 },
    /// Every orbit converges to the fixed point `1 − 1/r` (`1 < r ≤ 3`).
    Fixed { point: f64, lyapunov: f64 },
    /// Orbits settle on a cycle of this many values.
    Cycle { length: usize, lyapunov: f64 },
    /// The exponent is not positive, but no cycle of up to
    /// [`LONGEST_CYCLE`] values was found (near the edge of chaos).
    Settles { lyapunov: f64 },
}

impl Fate {
    pub fn lyapunov(self) -> f64 {
        match self {
            Fate::Chaotic { lyapunov }
            | Fate::Zero { lyapunov }
            | Fate::Fixed { lyapunov, .. }
            | Fate::Cycle { lyapunov, .. }
            | Fate::Settles { lyapunov } => lyapunov,
        }
    }
}

/// The Lyapunov exponent `λ = mean ln|r (1 − 2x)|` over [`AVERAGED`]
/// iterates after [`TRANSIENT`], from a fixed start, and what it means.
/// `-∞` when the orbit passes through 1/2 (a superstable cycle).
pub fn fate(r: f64) -> Fate {
    let mut x = 0.1;
    for _ in 0..TRANSIENT {
        x = step(r, x);
    }
    let mut sum = 0.0;
    let mut tail = [0.0; LONGEST_CYCLE + 1];
    for i in 0..AVERAGED {
        sum += math::ln((r * (1.0 - 2.0 * x)).abs());
        x = step(r, x);
        if i + tail.len() >= AVERAGED {
            tail[i + tail.len() - AVERAGED] = x;
        }
    }
    let lyapunov = sum / AVERAGED as f64;
    if lyapunov > 0.0 {
        return Fate::Chaotic { lyapunov };
    }
    if r <= 1.0 {
        return Fate::Zero { lyapunov };
    }
    if r <= 3.0 {
        return Fate::Fixed { point: 1.0 - 1.0 / r, lyapunov };
    }
    let last = tail[LONGEST_CYCLE];
    match (1..=LONGEST_CYCLE).find(|&n| (tail[LONGEST_CYCLE - n] - last).abs() <= 1e-6) {
        Some(length) => Fate::Cycle { length, lyapunov },
        None => Fate::Settles { lyapunov },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    #[test]
    fn chaotic_and_periodic_values_of_r() {
        for r in [3.7, 3.9, 4.0] {
            assert!(matches!(fate(r), Fate::Chaotic { .. }), "r = {r}: {:?}", fate(r));
        }
        assert!(matches!(fate(2.4), Fate::Fixed { .. }));
        assert!(matches!(fate(0.5), Fate::Zero { .. }));
        assert_eq!(fate(3.2), Fate::Cycle { length: 2, lyapunov: fate(3.2).lyapunov() });
        assert!(matches!(fate(3.5), Fate::Cycle { length: 4, .. }));
        assert!(matches!(fate(3.83), Fate::Cycle { length: 3, .. }));
        // λ = ln 2 at r = 4.
        assert!((fate(4.0).lyapunov() - std::f64::consts::LN_2).abs() < 0.05);
    }

    #[test]
    fn orbits_stay_in_the_unit_interval() {
        let mut rng = stream(3, Purpose::Chaos, Entity { population: 1, index: 0 }, 0);
        for r in [0.5, 2.4, 3.2, 3.83, 3.9, 4.0] {
            let mut orbit = Orbit::start(r, &mut rng);
            for _ in 0..100_000 {
                let (x, y) = orbit.next(&mut rng);
                assert!((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y), "r = {r}: ({x}, {y})");
            }
        }
    }

    #[test]
    fn starting_values_keep_away_from_the_fixed_point() {
        let mut rng = stream(5, Purpose::Chaos, Entity { population: 2, index: 0 }, 0);
        for r in [2.4, 3.9, 4.0] {
            for _ in 0..1000 {
                let x = start_value(r, &mut rng);
                assert!(x > 0.0 && x < 1.0 && (x - (1.0 - 1.0 / r)).abs() >= START_MARGIN);
            }
        }
    }
}
