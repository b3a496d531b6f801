//! Goal seeking in a straight line: the goal term of the space-colonization motion.

use crate::ir::Vec2;

/// Rodrigues et al. 2010, Eq. 9: the goal term `β d/|d|` of
/// `p(t+1) = p(t) + β d/|d| + d_enf`, with `d` the vector from the agent to its
/// (local) goal.
///
/// NOTE: the step is shortened to `|d|` when the goal is closer than `β`, so an
/// agent lands on its goal instead of stepping over it and back.
#[inline]
pub fn goal_step(p: Vec2, goal: Vec2, beta: f64) -> Vec2 {
    let d = goal - p;
    let len2 = d.length_squared();
    if len2 == 0.0 {
        return Vec2::ZERO;
    }
    let len = len2.sqrt();
    // Not `f64::min`, which would hide a NaN step length.
    let step = if len <= beta { len } else { beta };
    d * (step / len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_beta_towards_the_goal_and_never_past_it() {
        let s = goal_step(Vec2::new(0.0, 0.0), Vec2::new(3.0, 4.0), 0.05);
        assert!((s.length() - 0.05).abs() < 1e-15);
        assert!((s.x / s.y - 0.75).abs() < 1e-12);
        assert_eq!(
            goal_step(Vec2::new(1.0, 1.0), Vec2::new(1.0, 1.02), 0.05),
            Vec2::new(1.0, 1.02) - Vec2::new(1.0, 1.0)
        );
        assert_eq!(goal_step(Vec2::new(1.0, 1.0), Vec2::new(1.0, 1.0), 0.05), Vec2::ZERO);
    }
}
