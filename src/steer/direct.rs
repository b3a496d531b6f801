//! Direct motion without a goal (Rodrigues et al. 2010, Sec 4.2, Eqs 10–12)
//! and the marker weights of shape formation (Eq 14) and alignment masks (Sec 5.3).

use crate::ir::Vec2;

/// Eqs. 10–11: `m_d = Σ w_k u_k` with `u_k = m_k − p`, over the markers in
/// the personal space given as `(m_k, w_k)`; with `Σ w_k`, which scales
/// `m_d` to the weighted centre's offset.
pub fn motion_direction(p: Vec2, weighted: impl Iterator<Item = (Vec2, f64)>) -> (Vec2, f64) {
    weighted.fold((Vec2::ZERO, 0.0), |(m_d, total), (m, w)| (m_d + (m - p) * w, total + w))
}

/// Eq. 12's displacement `β m_d / |m_d|` (without `d_enf`); zero when `m_d` vanishes.
pub fn step(m_d: Vec2, beta: f64) -> Vec2 {
    let len = m_d.length();
    if len > 0.0 && len.is_finite() {
        m_d * (beta / len)
    } else {
        Vec2::ZERO
    }
}

/// Eq. 14: `w_max` inside the target shape, 1 outside.
pub fn shape_weight(inside: bool, w_max: f64) -> f64 {
    if inside {
        w_max
    } else {
        1.0
    }
}

/// Sec 5.3: a mask marker weighs `dist(I, k)` for agent `I`; a marker in
/// several personal spaces weighs, for the closest of those agents, the sum
/// of what it weighs for each of them. `total` is the sum of the distances
/// from every agent whose personal space holds the marker (`I` included).
pub fn mask_weight(own: f64, total: f64, closest: bool) -> f64 {
    if closest {
        total
    } else {
        own
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq11_sums_weighted_offsets() {
        let p = Vec2::new(1.0, 1.0);
        let (m, total) = motion_direction(p, [(Vec2::new(2.0, 1.0), 10.0), (Vec2::new(1.0, 3.0), 1.0)].into_iter());
        assert_eq!((m, total), (Vec2::new(10.0, 2.0), 11.0));
        let s = step(m, 0.05);
        assert!((s.length() - 0.05).abs() < 1e-15);
        assert_eq!(step(Vec2::ZERO, 0.05), Vec2::ZERO);
    }

    #[test]
    fn eq14_and_mask_weights() {
        assert_eq!(shape_weight(true, 10.0), 10.0);
        assert_eq!(shape_weight(false, 10.0), 1.0);
        // The closest viewer gets the sum, the others their own distance.
        assert_eq!(mask_weight(0.5, 3.5, true), 3.5);
        assert_eq!(mask_weight(1.0, 3.5, false), 1.0);
    }
}
