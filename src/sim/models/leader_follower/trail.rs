//! A leader's trace (Li et al. §4.2, Fig 7): the points it walked through,
//! kept so a follower who lost sight of it can head for "the latest point in
//! this path where a collision-free straight-line segment can be connected",
//! at the path distance `d1 + d2`.

use crate::ir::Vec2;

/// A new point is kept once the leader is this far from the last one, m.
const SPACING: f64 = 0.25;
/// The most points a trace keeps (the oldest are dropped): 1 km of walk.
const KEEP: usize = 4000;

#[derive(Clone, Debug, Default)]
pub(super) struct Trail {
    points: Vec<Vec2>,
    /// Arc length from the first point ever kept to each point, m.
    arc: Vec<f64>,
}

impl Trail {
    /// The leader is at `p` now.
    pub fn walk(&mut self, p: Vec2) {
        let Some(&last) = self.points.last() else {
            self.points.push(p);
            self.arc.push(0.0);
            return;
        };
        let step = last.distance(p);
        if step >= SPACING {
            let s = self.arc[self.arc.len() - 1] + step;
            self.points.push(p);
            self.arc.push(s);
            if self.points.len() > 2 * KEEP {
                self.points.drain(..KEEP);
                self.arc.drain(..KEEP);
            }
        }
    }

    /// Where a follower at `p` heads and its path distance to the leader at
    /// `leader`: the leader when it sees it (`sees(p, q)`), else the latest
    /// trace point it sees, with `d1 + d2` (Fig 7); the leader when it sees none.
    pub fn source(&self, p: Vec2, leader: Vec2, sees: impl Fn(Vec2, Vec2) -> bool) -> (Vec2, f64) {
        if sees(p, leader) {
            return (leader, p.distance(leader));
        }
        let Some(&last) = self.points.last() else { return (leader, p.distance(leader)) };
        // d2: along the trace to its last point, then on to the leader.
        let tail = last.distance(leader);
        let end = self.arc[self.arc.len() - 1];
        for k in (0..self.points.len()).rev() {
            let q = self.points[k];
            if sees(p, q) {
                return (q, p.distance(q) + (end - self.arc[k]) + tail);
            }
        }
        (leader, p.distance(leader))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_visible_point_is_taken_with_the_distance_along_the_trace() {
        let mut t = Trail::default();
        for k in 0..=40 {
            t.walk(Vec2::new(f64::from(k) * 0.25, 0.0));
        }
        // The leader went on to (10, 5); a follower at (0, 5) sees only the trace up to x = 4.
        let leader = Vec2::new(10.0, 5.0);
        let sees = |_: Vec2, q: Vec2| q.y == 0.0 && q.x <= 4.0;
        let (q, d) = t.source(Vec2::new(0.0, 5.0), leader, sees);
        assert_eq!(q, Vec2::new(4.0, 0.0));
        let d1 = Vec2::new(0.0, 5.0).distance(q);
        let d2 = 6.0 + 5.0;
        assert!((d - (d1 + d2)).abs() < 1e-9, "{d}");
        // In sight: the leader itself.
        assert_eq!(t.source(Vec2::ZERO, leader, |_, _| true), (leader, leader.length()));
    }

    #[test]
    fn a_trace_keeps_a_bounded_number_of_points() {
        let mut t = Trail::default();
        for k in 0..(5 * KEEP) {
            t.walk(Vec2::new(k as f64 * 0.5, 0.0));
        }
        assert!(t.points.len() <= 2 * KEEP && t.points.len() == t.arc.len());
    }
}
