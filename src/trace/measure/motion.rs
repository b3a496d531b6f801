//! How agents move: path lengths against the straight line, speed statistics,
//! turning and reversals (jitter), local density and effort.

use crate::ir::Vec2;
use crate::math;
use crate::trace::metrics::MOVING;
use crate::world::geometry::{points_box, polyline_length};
use crate::world::grid::Grid;

use super::goals::Goals;
use super::load::Trace;

/// Paths whose ends are closer than this have no meaningful ratio, m.
pub const MIN_STRAIGHT: f64 = 1.0;
/// Local density counts agents within this distance (the agent included), m.
pub const DENSITY_RADIUS: f64 = 1.0;

/// Path length over the straight distance between its ends; `None` when the
/// ends are closer than [`MIN_STRAIGHT`].
pub fn path_ratio(points: &[Vec2]) -> Option<f64> {
    let (a, b) = (points.first()?, points.last()?);
    let straight = a.distance(*b);
    (straight >= MIN_STRAIGHT).then(|| polyline_length(points) / straight)
}

/// Per track: path length and, when defined, the ratio to the straight line.
pub fn paths(trace: &Trace) -> Vec<(f64, Option<f64>)> {
    let mut pts = Vec::new();
    (0..trace.tracks.len())
        .map(|k| {
            pts.clear();
            pts.extend(trace.tracks.rows(k).iter().map(|&r| trace.pos[r as usize]));
            (polyline_length(&pts), path_ratio(&pts))
        })
        .collect()
}

/// The path ratios `crowd metrics` reports, with their tracks: per
/// completed trip when goals are known and a trip was completed, else per
/// agent (first to last position, from [`paths`]); `true` when per trip.
pub fn path_ratios(paths: &[(f64, Option<f64>)], goals: Option<&Goals>) -> (Vec<(u32, f64)>, bool) {
    match goals {
        Some(g) if g.trips_done > 0 => (g.trip_ratios.clone(), true),
        _ => (paths.iter().enumerate().filter_map(|(k, &(_, r))| Some((k as u32, r?))).collect(), false),
    }
}

/// How [`path_ratios`] measured, for a report.
pub fn path_ratios_note(per_trip: bool) -> &'static str {
    if per_trip {
        "path ratios per completed trip (start of the trip to arrival)"
    } else {
        "path ratios per agent (first to last position)"
    }
}

/// Summary statistics of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub count: usize,
    pub mean: f64,
    /// Population standard deviation.
    pub sd: f64,
    pub min: f64,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

/// Statistics of `values` (sorted in place); `None` for an empty sample.
/// Quantiles interpolate linearly between order statistics.
pub fn stats(values: &mut [f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
    let q = |p: f64| {
        let x = p * (n - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        values[lo] + (values[hi] - values[lo]) * (x - lo as f64)
    };
    Some(Stats {
        count: n,
        mean,
        sd: var.sqrt(),
        min: values[0],
        p10: q(0.1),
        median: q(0.5),
        p90: q(0.9),
        max: values[n - 1],
    })
}

/// Turning of moving agents between consecutive frames.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Turning {
    /// Σ |heading change| between consecutive frames where the agent moved in both, rad.
    pub total: f64,
    /// The time those frame pairs span, s.
    pub time: f64,
    /// Heading changes of more than 90° between consecutive frames.
    pub reversals: u64,
}

/// Heading changes along every track (headings from the velocity columns).
pub fn turning(trace: &Trace) -> Turning {
    let mut out = Turning::default();
    for k in 0..trace.tracks.len() {
        for w in trace.tracks.rows(k).windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let (va, vb) = (trace.vel[a], trace.vel[b]);
            if va.length() <= MOVING || vb.length() <= MOVING {
                continue;
            }
            let angle = math::atan2(va.perp_dot(vb), va.dot(vb)).abs();
            out.total += angle;
            out.time += trace.frames[trace.frame_of(b)].t - trace.frames[trace.frame_of(a)].t;
            if angle > std::f64::consts::FRAC_PI_2 {
                out.reversals += 1;
            }
        }
    }
    out
}

/// Each point's local density: the points within [`DENSITY_RADIUS`] (itself
/// included) over the disc's area, 1/m².
pub fn local_density(pos: &[Vec2]) -> Vec<f64> {
    if pos.is_empty() {
        return Vec::new();
    }
    let mut grid = Grid::new(points_box(pos), DENSITY_RADIUS, (pos.len() as u64 * 4).max(64));
    grid.rebuild(pos);
    let disc = std::f64::consts::PI * DENSITY_RADIUS * DENSITY_RADIUS;
    pos.iter()
        .map(|p| {
            let mut n = 0u32;
            grid.for_each_candidate(*p, DENSITY_RADIUS, |j| {
                if p.distance_squared(pos[j as usize]) <= DENSITY_RADIUS * DENSITY_RADIUS {
                    n += 1;
                }
            });
            f64::from(n) / disc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_walk_has_ratio_one() {
        let pts: Vec<Vec2> = (0..11).map(|k| Vec2::new(k as f64 * 0.5, 2.0)).collect();
        assert_eq!(path_ratio(&pts), Some(1.0));
        let detour = [Vec2::new(0.0, 0.0), Vec2::new(3.0, 4.0), Vec2::new(6.0, 0.0)];
        assert_eq!(path_ratio(&detour), Some(10.0 / 6.0));
        assert_eq!(path_ratio(&[Vec2::ZERO, Vec2::new(0.5, 0.0)]), None);
    }

    #[test]
    fn quantiles_interpolate() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0, 5.0];
        let s = stats(&mut v).unwrap();
        assert_eq!((s.min, s.median, s.max, s.mean), (1.0, 3.0, 5.0, 3.0));
        assert!((s.p10 - 1.4).abs() < 1e-12 && (s.p90 - 4.6).abs() < 1e-12);
        assert_eq!(stats(&mut []), None);
    }

    #[test]
    fn density_counts_neighbours_within_a_metre() {
        let pos = [Vec2::new(0.0, 0.0), Vec2::new(0.5, 0.0), Vec2::new(3.0, 0.0)];
        let d = local_density(&pos);
        let disc = std::f64::consts::PI;
        assert_eq!(d, vec![2.0 / disc, 2.0 / disc, 1.0 / disc]);
    }
}
