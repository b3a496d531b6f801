//! Portable float functions, and unit vectors.
//!
//! The determinism contract allows only `+ - * / sqrt` from the hardware;
//! every transcendental function goes through `libm`, one pure-Rust
//! implementation, so traces match across platforms. Call these, never the
//! `f64` methods of the same name (clippy's `disallowed-methods` enforces it).

#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}
#[inline]
pub fn acos(x: f64) -> f64 {
    libm::acos(x)
}
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `v / |v|`, or `None` for a zero (or degenerate) vector. Dividing (rather
/// than multiplying by the reciprocal) keeps axis-aligned headings exact.
#[inline]
pub fn unit(v: crate::ir::Vec2) -> Option<crate::ir::Vec2> {
    let len = v.length();
    let u = v / len;
    (len > 0.0 && u.is_finite()).then_some(u)
}
