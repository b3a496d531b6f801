//! A member's step on a group map (Silveira, Prestes, Nedel 2008, "Moving
//! Individuals"): `Δr = v_max [μ E + (1 − μ) α F]`, the environment's
//! descent `E` blended with the pull `F` of the member's formation point.
//!
//! Directions are blended as unit vectors, not as raw angles, so the blend
//! does not break where angles wrap at ±π; and `Ψ` of the angle between two
//! unit vectors is their dot product when it is positive (`cos` of an angle
//! up to π/2), else 0, which needs no angle at all.

use crate::ir::Vec2;
use crate::math::unit;

/// What a member remembers between steps: its orientation `φ_{t−1}` and the
/// direction `ω_{t−1}` of its formation force.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Heading {
    pub phi: Option<Vec2>,
    pub omega: Option<Vec2>,
}

/// What a member senses this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sense {
    /// `ζ_t`: the descent of the group map at the member's cell (any length).
    pub descent: Vec2,
    /// `z`: from the member to its formation point, m; `None` without a formation.
    pub to_point: Option<Vec2>,
    /// `μ_βi` of the member's cell.
    pub mu: f64,
    /// `η`: inertia of the orientation.
    pub eta: f64,
}

// Ψ(|a − b|) for unit directions a and b: cos of the angle up to π/2, else 0.
fn psi(a: Vec2, b: Vec2) -> f64 {
    a.dot(b).max(0.0)
}

/// The member's step as a fraction of `v_max` (length at most 1), and what it
/// remembers for the next step.
pub fn step(before: Heading, sense: Sense) -> (Vec2, Heading) {
    // E = Ψ(|φ_{t−1} − ζ_t|)(cos φ_t, sin φ_t), φ_t = η φ_{t−1} + (1 − η) ζ_t.
    let (e, phi) = match unit(sense.descent) {
        Some(zeta) => {
            let prev = before.phi.unwrap_or(zeta);
            let phi = unit(prev * sense.eta + zeta * (1.0 - sense.eta)).unwrap_or(zeta);
            (phi * psi(prev, zeta), Some(phi))
        }
        None => (Vec2::ZERO, before.phi),
    };
    let Some(z) = sense.to_point else {
        // Without a formation: Δr = v_max E.
        return (e, Heading { phi, omega: None });
    };
    // F = Ψ(|ω_t − ω_{t−1}|)(cos ω_t, sin ω_t), α = min(|z|, 1).
    let (f, omega) = match unit(z) {
        Some(w) => (w * psi(before.omega.unwrap_or(w), w), Some(w)),
        None => (Vec2::ZERO, before.omega),
    };
    let alpha = z.length().min(1.0);
    (e * sense.mu + f * ((1.0 - sense.mu) * alpha), Heading { phi, omega })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sense(descent: Vec2, to_point: Option<Vec2>, mu: f64) -> Sense {
        Sense { descent, to_point, mu, eta: 0.0 }
    }

    #[test]
    fn without_a_formation_a_member_follows_the_descent_at_full_speed() {
        let (d, h) = step(Heading::default(), sense(Vec2::new(0.0, -0.02), None, 0.5));
        assert_eq!(d, Vec2::new(0.0, -1.0));
        assert_eq!(h.phi, Some(Vec2::new(0.0, -1.0)));
    }

    #[test]
    fn a_descent_turned_back_stops_the_member() {
        // Ψ = 0 when the descent turns more than π/2 from the orientation: it waits.
        let before = Heading { phi: Some(Vec2::new(1.0, 0.0)), omega: None };
        let (d, _) = step(before, sense(Vec2::new(-1.0, 0.1), None, 1.0));
        assert_eq!(d, Vec2::ZERO);
    }

    #[test]
    fn the_formation_pull_fades_within_a_metre_of_the_point() {
        let s = sense(Vec2::ZERO, Some(Vec2::new(0.25, 0.0)), 0.5);
        let (d, _) = step(Heading::default(), s);
        assert!((d - Vec2::new(0.125, 0.0)).length() < 1e-15, "{d}");
    }

    #[test]
    fn inertia_blends_unit_directions_across_the_wrap() {
        // φ_{t−1} at 179°, ζ at −179°: the blend points west, not east.
        let a = crate::math::cos(179f64.to_radians());
        let b = crate::math::sin(179f64.to_radians());
        let before = Heading { phi: Some(Vec2::new(a, b)), omega: None };
        let s = Sense { descent: Vec2::new(a, -b), to_point: None, mu: 1.0, eta: 0.5 };
        let (d, _) = step(before, s);
        assert!(d.x < -0.99, "{d}");
    }
}
