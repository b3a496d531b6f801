//! Sampling the IR's distributions from a [`Stream`].
//!
//! Invariants: only `+ - * / sqrt` and `crate::math` (libm) are used, so a
//! draw is the same on every platform; a sample always lies in the
//! distribution's stated range.

use crate::ir::Dist;
use crate::math;
use crate::rng::Stream;

/// Truncated normals resample at most this often, then clamp (a normal
/// truncated this far into its tail is a scenario mistake, not a draw).
const NORMAL_ATTEMPTS: u32 = 1000;

pub fn sample(dist: &Dist, rng: &mut Stream) -> f64 {
    match dist {
        Dist::Constant(v) => *v,
        Dist::Uniform { min, max } => min + (max - min) * rng.unit(),
        Dist::Normal { mean, sd, min, max } => {
            for _ in 0..NORMAL_ATTEMPTS {
                let v = mean + sd * standard_normal(rng);
                if v >= *min && v <= *max {
                    return v;
                }
            }
            mean.clamp(*min, *max)
        }
        Dist::Choice(options) => options[choose(options.iter().map(|(_, p)| *p), rng)].0,
    }
}

/// Box–Muller: `sqrt(-2 ln u1) cos(2π u2)`.
pub fn standard_normal(rng: &mut Stream) -> f64 {
    let u1 = rng.unit_open0();
    let u2 = rng.unit();
    (-2.0 * math::ln(u1)).sqrt() * math::cos(std::f64::consts::TAU * u2)
}

/// Index of a weighted choice; weights need not sum exactly to 1 (the last
/// option absorbs rounding).
pub fn choose(weights: impl Iterator<Item = f64> + Clone, rng: &mut Stream) -> usize {
    let total: f64 = weights.clone().sum();
    let mut u = rng.unit() * total;
    let mut last = 0;
    for (i, w) in weights.enumerate() {
        last = i;
        if u < w {
            return i;
        }
        u -= w;
    }
    last
}

/// The largest value the distribution can produce.
pub fn upper_bound(dist: &Dist) -> f64 {
    match dist {
        Dist::Constant(v) => *v,
        Dist::Uniform { max, .. } | Dist::Normal { max, .. } => *max,
        Dist::Choice(options) => options.iter().map(|(v, _)| *v).fold(f64::NEG_INFINITY, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Entity, Purpose};

    fn rng() -> Stream {
        stream(5, Purpose::Body, Entity { population: 0, index: 0 }, 0)
    }

    #[test]
    fn truncated_normal_stays_in_range_with_the_right_mean() {
        let d = Dist::Normal { mean: 1.3, sd: 0.15, min: 0.5, max: 1.5 };
        let mut r = rng();
        let xs: Vec<f64> = (0..20_000).map(|_| sample(&d, &mut r)).collect();
        assert!(xs.iter().all(|x| (0.5..=1.5).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 1.27).abs() < 0.02, "{mean}");
    }

    #[test]
    fn choice_follows_weights() {
        let d = Dist::Choice(vec![(1.0, 0.4), (2.0, 0.35), (3.0, 0.25)]);
        let mut r = rng();
        let mut counts = [0u32; 3];
        for _ in 0..20_000 {
            counts[sample(&d, &mut r) as usize - 1] += 1;
        }
        assert!((counts[0] as f64 / 20_000.0 - 0.4).abs() < 0.02);
        assert!((counts[2] as f64 / 20_000.0 - 0.25).abs() < 0.02);
    }

    #[test]
    fn uniform_in_range() {
        let d = Dist::Uniform { min: 10.0, max: 40.0 };
        let mut r = rng();
        assert!((0..1000).map(|_| sample(&d, &mut r)).all(|x| (10.0..40.0).contains(&x)));
        assert_eq!(upper_bound(&d), 40.0);
    }
}
