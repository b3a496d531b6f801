//! Units: every quantity is converted to SI here, or rejected with the units
//! its place accepts.

use crate::diag::Diagnostic;
use crate::syntax::ast::Quantity;

pub use crate::ir::params::Dim;

impl Dim {
    pub fn describe(self) -> &'static str {
        match self {
            Dim::Length => "a length",
            Dim::Time => "a time",
            Dim::Speed => "a speed",
            Dim::Angle => "an angle",
            Dim::Density => "a density",
            Dim::Rate => "a rate",
            Dim::Percent => "a percentage",
            Dim::Number => "a plain number",
            Dim::Count => "a whole number",
        }
    }

    pub fn units(self) -> &'static str {
        match self {
            Dim::Length => "m, cm, mm, km",
            Dim::Time => "s, ms, min, h",
            Dim::Speed => "m/s, km/h, cm/s",
            Dim::Angle => "deg, rad",
            Dim::Density => "per m2",
            Dim::Rate => "per s, per min",
            Dim::Percent => "%",
            Dim::Number | Dim::Count => "no unit",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Dim::Length => "2 m",
            Dim::Time => "30 s",
            Dim::Speed => "1.3 m/s",
            Dim::Angle => "45 deg",
            Dim::Density => "8 per m2",
            Dim::Rate => "0.5 per s",
            Dim::Percent => "40%",
            Dim::Number => "10",
            Dim::Count => "2",
        }
    }
}

/// How a value in a unit becomes a value in SI units.
#[derive(Clone, Copy)]
enum Scale {
    Times(f64),
    /// Dividing by an exact number rather than multiplying by its inverse,
    /// which no double holds exactly: `35 cm` is then the double nearest
    /// 0.35, the same as `0.35 m`, not 0.35000000000000003.
    Over(f64),
}

impl Scale {
    fn apply(self, v: f64) -> f64 {
        match self {
            Scale::Times(f) => v * f,
            Scale::Over(d) => v / d,
        }
    }
}

/// The dimension and SI scale of a unit as written.
fn unit_info(unit: &str) -> Option<(Dim, Scale)> {
    use Scale::*;
    Some(match unit {
        "m" => (Dim::Length, Times(1.0)),
        "cm" => (Dim::Length, Over(100.0)),
        "mm" => (Dim::Length, Over(1000.0)),
        "km" => (Dim::Length, Times(1000.0)),
        "s" => (Dim::Time, Times(1.0)),
        "ms" => (Dim::Time, Over(1000.0)),
        "min" => (Dim::Time, Times(60.0)),
        "h" => (Dim::Time, Times(3600.0)),
        "m/s" => (Dim::Speed, Times(1.0)),
        "km/h" => (Dim::Speed, Over(3.6)),
        "cm/s" => (Dim::Speed, Over(100.0)),
        "deg" | "°" => (Dim::Angle, Times(std::f64::consts::PI / 180.0)),
        "rad" => (Dim::Angle, Times(1.0)),
        "per m2" | "per m²" | "/m2" | "/m²" => (Dim::Density, Times(1.0)),
        "per s" | "/s" => (Dim::Rate, Times(1.0)),
        "per min" | "/min" => (Dim::Rate, Over(60.0)),
        "%" => (Dim::Percent, Over(100.0)),
        _ => return None,
    })
}

fn si_unit(dim: Dim) -> &'static str {
    match dim {
        Dim::Length => "metres",
        Dim::Time => "seconds",
        Dim::Speed => "metres per second",
        Dim::Angle => "radians",
        Dim::Density => "markers per m2",
        Dim::Rate => "per second",
        Dim::Percent => "a fraction",
        Dim::Number | Dim::Count => "a number",
    }
}

/// Converts `q` to SI units of dimension `dim`.
// The error is the diagnostic itself, built once per bad quantity: boxing it buys nothing.
#[allow(clippy::result_large_err)]
pub fn si(q: &Quantity, dim: Dim) -> Result<f64, Diagnostic> {
    if !q.value.is_finite() {
        return Err(Diagnostic::error("E022", q.span.clone(), "this number is not finite")
            .label("a division by zero or an overflow")
            .help("write a finite number, e.g. `1/24` rather than `1/0`"));
    }
    match (&q.unit, dim) {
        (None, Dim::Number) => Ok(q.value),
        (None, Dim::Count) if q.value.fract() == 0.0 => Ok(q.value),
        (None, Dim::Count) => {
            Err(Diagnostic::error("E030", q.span.clone(), format!("{} is not a whole number", q.value))
                .label("a fraction")
                .help(format!("write a whole number, e.g. `{}`", dim.example())))
        }
        (None, _) => {
            Err(Diagnostic::error("E020", q.span.clone(), format!("missing unit: expected {}", dim.describe()))
                .label("no unit")
                .help(format!("write a unit ({}), e.g. `{}`", dim.units(), dim.example())))
        }
        (Some(unit), _) => {
            let (found, scale) = unit_info(unit).expect("the grammar admits only known units");
            if found == dim {
                let v = scale.apply(q.value);
                if !v.is_finite() {
                    return Err(Diagnostic::error("E022", q.span.clone(), "this quantity is too large")
                        .label(format!("overflows when converted to {}", si_unit(dim)))
                        .help("write a number of a sensible size"));
                }
                Ok(v)
            } else {
                let what = if dim == Dim::Number { "a plain number".to_string() } else { dim.describe().to_string() };
                let plain = matches!(dim, Dim::Number | Dim::Count);
                Err(Diagnostic::error(
                    "E021",
                    q.span.clone(),
                    format!("wrong unit: expected {what}, found {} (`{unit}`)", found.describe()),
                )
                .label(format!("`{unit}` is {}", found.describe()))
                .help(if plain {
                    "remove the unit".to_string()
                } else {
                    format!("use one of: {} (e.g. `{}`)", dim.units(), dim.example())
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(value: f64, unit: Option<&str>) -> Quantity {
        Quantity { value, unit: unit.map(str::to_string), span: 0..1 }
    }

    #[test]
    fn converts_to_si() {
        assert_eq!(si(&q(36.0, Some("km/h")), Dim::Speed).unwrap(), 10.0);
        assert_eq!(si(&q(2.0, Some("min")), Dim::Time).unwrap(), 120.0);
        assert_eq!(si(&q(40.0, Some("%")), Dim::Percent).unwrap(), 0.4);
        assert_eq!(si(&q(180.0, Some("deg")), Dim::Angle).unwrap(), std::f64::consts::PI);
        assert_eq!(si(&q(30.0, Some("per min")), Dim::Rate).unwrap(), 0.5);
        assert_eq!(si(&q(2.0, Some("/s")), Dim::Rate).unwrap(), 2.0);
    }

    #[test]
    fn a_whole_number_of_a_smaller_unit_is_the_double_nearest_its_si_value() {
        assert_eq!(si(&q(35.0, Some("cm")), Dim::Length).unwrap(), 0.35);
        assert_eq!(si(&q(70.0, Some("%")), Dim::Percent).unwrap(), 0.7);
        assert_eq!(si(&q(7.0, Some("ms")), Dim::Time).unwrap(), 0.007);
        assert_eq!(si(&q(35.0, Some("cm/s")), Dim::Speed).unwrap(), 0.35);
    }

    #[test]
    fn rejects_missing_and_wrong_units() {
        assert_eq!(si(&q(2.0, None), Dim::Length).unwrap_err().code, "E020");
        assert_eq!(si(&q(2.0, Some("s")), Dim::Length).unwrap_err().code, "E021");
        assert_eq!(si(&q(f64::INFINITY, Some("m")), Dim::Length).unwrap_err().code, "E022");
    }
}
