//! Decimal text for trace numbers.
//!
//! Invariants of every number this module writes:
//! - no exponent (`1e-7` is written `0.0000001`), so every consumer parses it;
//! - `-0` is written `0`, so a sign never depends on how a zero was computed;
//! - without a precision, the shortest decimal that reads back to the same
//!   `f64` (round-trip exact), integers without a trailing `.0`;
//! - with a precision `N`, exactly `N` decimals, correctly rounded.
//!
//! Non-finite values never reach this module: the executor stops the run
//! first (see `sim`), so they are a programming error here.

use std::io::Write;

/// Appends `x` in the trace's number form.
pub fn write_f64(out: &mut Vec<u8>, x: f64, precision: Option<u8>) {
    debug_assert!(x.is_finite(), "non-finite value {x} reached the trace writer");
    match precision {
        None => write_shortest(out, x),
        Some(n) => write_fixed(out, x, n),
    }
}

/// `x` in the trace's shortest round-trip form.
pub fn format_f64(x: f64) -> String {
    let mut out = Vec::with_capacity(24);
    write_shortest(&mut out, x);
    // Only ASCII digits, '-' and '.' are written.
    String::from_utf8(out).unwrap_or_default()
}

/// `x` with exactly `decimals` decimals.
pub fn format_fixed(x: f64, decimals: u8) -> String {
    let mut out = Vec::with_capacity(24);
    write_fixed(&mut out, x, decimals);
    String::from_utf8(out).unwrap_or_default()
}

fn write_shortest(out: &mut Vec<u8>, x: f64) {
    if x == 0.0 {
        out.push(b'0');
        return;
    }
    // zmij (Schubfach) gives the shortest round-trip digits in positional
    // form for decimal exponents -5..=15 and with an exponent outside, which
    // is rewritten below in positional form.
    let mut buf = Aligned(zmij::Buffer::new());
    let s = buf.0.format_finite(x).as_bytes();
    let a = x.abs();
    // Well inside the positional range no exponent can appear (the shortest
    // digits may round up a decade, never two): skip looking for one.
    if (1e-4..1e15).contains(&a) {
        push_short(out, s.strip_suffix(b".0").unwrap_or(s));
        return;
    }
    match s.iter().position(|&b| b == b'e') {
        None => out.extend_from_slice(s.strip_suffix(b".0").unwrap_or(s)),
        Some(e) => write_plain(out, &s[..e], parse_exponent(&s[e + 1..])),
    }
}

/// zmij's buffer (24 bytes) kept inside one cache line. zmij writes its
/// digits with a 16-byte store and moves them within the buffer; where the
/// buffer happened to straddle a line (it depends on the callers' stack
/// frames), the shortest form took a third longer for the same code.
#[repr(align(32))]
struct Aligned(zmij::Buffer);

/// Appends `s`, short ones (numbers, labels: most of a trace) with a few
/// fixed-size moves instead of a call to `memcpy`.
#[inline(always)]
pub(crate) fn append(out: &mut Vec<u8>, s: &[u8]) {
    if s.len() > 32 {
        out.extend_from_slice(s);
    } else {
        push_short(out, s);
    }
}

/// [`append`] for at most 32 bytes.
#[inline(always)]
fn push_short(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    debug_assert!(n <= 32);
    let at = out.len();
    out.resize(at + 32, 0);
    let dst = &mut out[at..at + 32];
    // Two moves of the largest size that fits, overlapping in the middle.
    if n >= 16 {
        dst[..16].copy_from_slice(&s[..16]);
        dst[n - 16..][..16].copy_from_slice(&s[n - 16..][..16]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&s[..8]);
        dst[n - 8..][..8].copy_from_slice(&s[n - 8..][..8]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&s[..4]);
        dst[n - 4..][..4].copy_from_slice(&s[n - 4..][..4]);
    } else {
        dst[..n].copy_from_slice(s);
    }
    out.truncate(at + n);
}

fn parse_exponent(s: &[u8]) -> i32 {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = digits.iter().fold(0i32, |v, &d| v * 10 + i32::from(d - b'0'));
    if neg {
        -v
    } else {
        v
    }
}

/// Writes `mantissa × 10^exp` (mantissa like `-1.2345` or `7`) positionally.
fn write_plain(out: &mut Vec<u8>, mantissa: &[u8], exp: i32) {
    let (neg, m) = match mantissa.first() {
        Some(b'-') => (true, &mantissa[1..]),
        _ => (false, mantissa),
    };
    if neg {
        out.push(b'-');
    }
    let mut digits: Vec<u8> = m.iter().copied().filter(|&b| b != b'.').collect();
    // The decimal point sits after the first digit of the mantissa.
    let point = 1 + exp;
    while digits.len() > 1 && digits.last() == Some(&b'0') && (digits.len() as i32) > point {
        digits.pop();
    }
    if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat(b'0').take((-point) as usize));
        out.extend_from_slice(&digits);
    } else if point as usize >= digits.len() {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat(b'0').take(point as usize - digits.len()));
    } else {
        out.extend_from_slice(&digits[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[point as usize..]);
    }
}

fn write_fixed(out: &mut Vec<u8>, x: f64, decimals: u8) {
    let start = out.len();
    // Writing into a Vec cannot fail.
    let _ = write!(out, "{:.*}", usize::from(decimals), x);
    if out[start] == b'-' && out[start + 1..].iter().all(|&b| b == b'0' || b == b'.') {
        out.remove(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_zero_is_zero() {
        assert_eq!(format_f64(-0.0), "0");
        assert_eq!(format_f64(0.0), "0");
        assert_eq!(format_fixed(-0.0, 3), "0.000");
        assert_eq!(format_fixed(-0.0001, 3), "0.000");
        assert_eq!(format_fixed(-0.0006, 3), "-0.001");
    }

    #[test]
    fn no_exponents_for_tiny_or_huge_values() {
        assert_eq!(format_f64(1e-7), "0.0000001");
        assert_eq!(format_f64(-1.5e-7), "-0.00000015");
        assert_eq!(format_f64(1e16), "10000000000000000");
        assert_eq!(format_f64(1.25e20), "125000000000000000000");
        assert_eq!(format_f64(5e-324), format!("{}", 5e-324));
        assert_eq!(format_f64(f64::MAX), format!("{}", f64::MAX));
        for s in [format_f64(1e-300), format_f64(1e300), format_f64(-2.5e-9)] {
            assert!(!s.contains('e') && !s.contains('E'), "{s}");
        }
    }

    #[test]
    fn integers_have_no_trailing_fraction() {
        assert_eq!(format_f64(1.0), "1");
        assert_eq!(format_f64(-12.0), "-12");
        assert_eq!(format_f64(0.5), "0.5");
        assert_eq!(format_f64(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn shortest_form_round_trips_and_is_as_short_as_std_display() {
        // A fixed pseudo-random sweep over bit patterns, including extreme exponents.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if !x.is_finite() {
                continue;
            }
            let ours = format_f64(x);
            let std = format!("{x}");
            let std = if std == "-0" { "0".to_string() } else { std };
            // Same digit count as std's shortest form; when two shortest
            // candidates tie, zmij rounds half to even and may pick the other.
            assert_eq!(ours.len(), std.len(), "bits {state:#x}: {ours} vs {std}");
            assert!(!ours.contains('e'));
            assert_eq!(ours.parse::<f64>().map(f64::to_bits).ok(), Some(if x == 0.0 { 0 } else { x.to_bits() }));
        }
    }
}
