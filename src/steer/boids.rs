//! Boids with predators and prey (Durupınar 2007, §3.1, Eqs 3.1–3.13, after
//! Reynolds 1987): the forces on a prey from its flockmates and the
//! predators in its visibility sphere, a predator's attack force, and the
//! integration of Eq 3.2 with a unit mass.
//!
//! Read with the corrections of `../shared/papers/README.md`, and two more.
//! Eq 3.6 as printed, `c_al Σ v_j/|V_i|`, never reads the boid's own
//! velocity: a flock flying one way would speed up for ever and a boid
//! never turns towards its mates' heading unless faster than them. It is
//! corrected as Eq 3.5 is, to the neighbours' mean minus the own value,
//! `c_al (Σ v_j/|V_i| − v_i)`: Reynolds' velocity matching. Eq 3.4 as printed, `c_sep Σ (x_i − x_j)`, is `|V_i| (x_i − centroid)`,
//! exactly opposite to the cohesion of Eq 3.5, so the two can only cancel
//! or disperse the flock together. Each term is weighted by `1/|x_i − x_j|²`
//! instead (Reynolds' "avoid crowding": strongest at contact), which gives
//! flockmates a rest distance of `√(c_sep / c_coh)` against cohesion.

use crate::ir::Vec2;
use crate::math::{exp, unit};

/// The flocking weights of Eqs 3.4–3.6.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub separation: f64,
    pub cohesion: f64,
    pub alignment: f64,
}

/// What a boid gathers from the flockmates in its visibility sphere (Eq 3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mates {
    /// Σ (x_i − x_j)/|x_i − x_j|².
    pub crowding: Vec2,
    /// Σ x_j.
    pub positions: Vec2,
    /// Σ v_j.
    pub velocities: Vec2,
    /// |V_i|.
    pub count: u32,
}

impl Mates {
    /// Adds flockmate `j` at `xj` with velocity `vj`, seen from `xi`.
    #[inline]
    pub fn add(&mut self, xi: Vec2, xj: Vec2, vj: Vec2) {
        let d = xi - xj;
        let d2 = d.length_squared();
        // Two boids on one point push each other nowhere in particular.
        if d2 > 0.0 {
            self.crowding += d / d2;
        }
        self.positions += xj;
        self.velocities += vj;
        self.count += 1;
    }
}

/// Eqs 3.4–3.6: separation, cohesion and alignment, summed, for a boid at
/// `xi` flying `vi`.
pub fn flocking(w: &Weights, xi: Vec2, vi: Vec2, mates: &Mates) -> Vec2 {
    if mates.count == 0 {
        return Vec2::ZERO;
    }
    let n = f64::from(mates.count);
    // Eq 3.4, each term weighted by 1/|x_i − x_j|² (see the module's note).
    let separation = w.separation * mates.crowding;
    // Eq 3.5 as corrected: towards the centroid, from the own position.
    let cohesion = w.cohesion * (mates.positions / n - xi);
    // Eq 3.6 as corrected: towards the mean velocity, from the own.
    let alignment = w.alignment * (mates.velocities / n - vi);
    separation + cohesion + alignment
}

/// Eq 3.8: prey at `xi` avoiding a predator at `xp`, with the logistic
/// fall-off of steepness `omega` around the visibility radius `r`.
pub fn avoidance(c_av: f64, omega: f64, r: f64, xi: Vec2, xp: Vec2) -> Vec2 {
    let x_pi = xi - xp;
    c_av * x_pi / (1.0 + exp(omega * (x_pi.length() - r)))
}

/// Eqs 3.12–3.13: a predator at `xp` with velocity `vp` attacking a target
/// at `target`. The desired velocity points at the target at the predator's
/// top speed: with Eq 3.12's unit length it would brake any predator faster
/// than 1 m/s, where Reynolds' seek, which the proposal follows, flies at
/// full speed.
pub fn attack(c_at: f64, xp: Vec2, vp: Vec2, target: Vec2, top_speed: f64) -> Vec2 {
    let Some(towards) = unit(target - xp) else { return Vec2::ZERO };
    // Eq 3.12.
    let v_des = towards * top_speed;
    // Eq 3.13.
    unit(v_des - vp).map_or(Vec2::ZERO, |d| c_at * d)
}

/// Eq 3.2 with `m = 1`, by semi-implicit Euler: the velocity after `dt`
/// under `force`, no faster than `limit`.
pub fn integrate(v: Vec2, force: Vec2, dt: f64, limit: f64) -> Vec2 {
    let next = v + force * dt;
    let speed = next.length();
    if speed > limit {
        next * (limit / speed)
    } else {
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Weights = Weights { separation: 1.5, cohesion: 1.0, alignment: 1.0 };

    fn close(a: Vec2, b: Vec2) -> bool {
        a.distance(b) < 1e-12
    }

    #[test]
    fn two_mates_by_hand() {
        // i at the origin; mates at (2, 0) moving (0, 1) and (0, 1) moving (1, 0).
        let xi = Vec2::ZERO;
        let mut m = Mates::default();
        m.add(xi, Vec2::new(2.0, 0.0), Vec2::new(0.0, 1.0));
        m.add(xi, Vec2::new(0.0, 1.0), Vec2::new(1.0, 0.0));
        // crowding: (−2, 0)/4 + (0, −1)/1 = (−0.5, −1).
        assert!(close(m.crowding, Vec2::new(-0.5, -1.0)));
        // separation 1.5·(−0.5, −1) = (−0.75, −1.5); cohesion (1, 0.5);
        // alignment (0.5, 0.5) − (1, 1) = (−0.5, −0.5).
        assert!(close(flocking(&W, xi, Vec2::new(1.0, 1.0), &m), Vec2::new(-0.25, -1.5)));
    }

    #[test]
    fn no_mates_no_force() {
        assert_eq!(flocking(&W, Vec2::new(3.0, 4.0), Vec2::new(1.0, 0.0), &Mates::default()), Vec2::ZERO);
    }

    #[test]
    fn a_coincident_mate_only_pulls_and_aligns() {
        let xi = Vec2::new(1.0, 1.0);
        let mut m = Mates::default();
        m.add(xi, xi, Vec2::new(2.0, 0.0));
        assert!(close(flocking(&W, xi, Vec2::ZERO, &m), Vec2::new(2.0, 0.0)));
    }

    #[test]
    fn mates_rest_at_the_square_root_of_the_weights_ratio() {
        // Two still boids: separation c_sep/d against cohesion c_coh·d.
        let d = (W.separation / W.cohesion).sqrt();
        let mut m = Mates::default();
        m.add(Vec2::ZERO, Vec2::new(d, 0.0), Vec2::ZERO);
        assert!(flocking(&W, Vec2::ZERO, Vec2::ZERO, &m).length() < 1e-12);
    }

    #[test]
    fn avoidance_by_hand() {
        // |x_pi| = r: the logistic is 1/2.
        let f = avoidance(10.0, 4.0, 5.0, Vec2::new(5.0, 0.0), Vec2::ZERO);
        assert!(close(f, Vec2::new(25.0, 0.0)));
        // |x_pi| = 4, r = 5, ω = 4: 10·4/(1 + e⁻⁴).
        let f = avoidance(10.0, 4.0, 5.0, Vec2::new(0.0, 4.0), Vec2::ZERO);
        let want = 40.0 / (1.0 + exp(-4.0));
        assert!((f.y - want).abs() < 1e-12 && f.x == 0.0);
        // Far outside the sphere it fades: at 8 m, below 0.01 of its size.
        let f = avoidance(10.0, 4.0, 5.0, Vec2::new(8.0, 0.0), Vec2::ZERO);
        assert!(f.x > 0.0 && f.x < 0.01 * 80.0);
    }

    #[test]
    fn attack_by_hand() {
        // Predator at the origin flying (1, 0) at 1 m/s; prey at (0, 10); top speed 3.
        // v_des = (0, 3); v_des − v = (−1, 3); force C_at·(−1, 3)/√10.
        let f = attack(5.0, Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 10.0), 3.0);
        assert!(close(f, Vec2::new(-1.0, 3.0) * (5.0 / 10f64.sqrt())));
        // Already flying at the desired velocity: no force.
        assert_eq!(attack(5.0, Vec2::ZERO, Vec2::new(0.0, 3.0), Vec2::new(0.0, 10.0), 3.0), Vec2::ZERO);
    }

    #[test]
    fn integration_clamps_the_speed() {
        let v = integrate(Vec2::new(1.0, 0.0), Vec2::new(0.0, 30.0), 0.1, 2.0);
        assert!((v.length() - 2.0).abs() < 1e-12);
        let v = integrate(Vec2::new(1.0, 0.0), Vec2::new(0.0, 5.0), 0.1, 2.0);
        assert!(close(v, Vec2::new(1.0, 0.5)));
    }
}
