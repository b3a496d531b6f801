//! Decimal text for trace numbers.
//!
//! Invariants of every number this module writes:
//! - no exponent (`1e-7` is written `0.0000001`), so every consumer parses it;
//! - `-0` is written `0`, so a sign never depends on how a zero was computed;
//! - without a precision, the shortest decimal that reads back to the same
//!   `f64` (round-trip exact), integers without a trailing `.0`;
//! - with a precision `N`, exactly `N` decimals, correctly rounded: the exact
//!   binary value, ties to even, as std's `{:.N}` (which it matches byte for byte).
//!
//! Non-finite values never reach this module: the executor stops the run
//! first (see `sim`), so they are a programming error here.

use std::io::Write;
use std::mem::MaybeUninit;

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
        // zmij ends exactly the integers with ".0" here (below 2^53 no other
        // value is within half an ulp of an integer). Telling them from the
        // value spares reading back the end of zmij's buffer before its
        // stores have landed, which stalls (store forwarding fails).
        let integer = a == (a as i64) as f64;
        debug_assert_eq!(integer, s.ends_with(b".0"), "{x}");
        push_short(out, &s[..s.len() - if integer { 2 } else { 0 }]);
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

/// [`append`] for at most 32 bytes: the moves go straight to the Vec's spare
/// capacity (no zero fill first, which costs a few percent of a trace).
#[inline(always)]
fn push_short(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    debug_assert!(n <= 32);
    out.reserve(32);
    let at = out.len();
    let dst = &mut out.spare_capacity_mut()[..32];
    // Two moves of the largest size that fits, overlapping in the middle.
    if n >= 16 {
        put::<16>(dst, s, 0);
        put::<16>(dst, s, n - 16);
    } else if n >= 8 {
        put::<8>(dst, s, 0);
        put::<8>(dst, s, n - 8);
    } else if n >= 4 {
        put::<4>(dst, s, 0);
        put::<4>(dst, s, n - 4);
    } else {
        for (d, &b) in dst.iter_mut().zip(s) {
            d.write(b);
        }
    }
    // SAFETY: the moves above initialized bytes at..at + n (n <= 32, or `dst[..]` panicked).
    unsafe { out.set_len(at + n) };
}

/// Copies `s[from..from + N]` to `dst[from..from + N]` in one move.
#[inline(always)]
fn put<const N: usize>(dst: &mut [MaybeUninit<u8>], s: &[u8], from: usize) {
    let bytes: [u8; N] = s[from..from + N].try_into().unwrap_or([0; N]);
    dst[from..from + N].copy_from_slice(&bytes.map(MaybeUninit::new));
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
        out.extend(std::iter::repeat_n(b'0', (-point) as usize));
        out.extend_from_slice(&digits);
    } else if point as usize >= digits.len() {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', point as usize - digits.len()));
    } else {
        out.extend_from_slice(&digits[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[point as usize..]);
    }
}

fn write_fixed(out: &mut Vec<u8>, x: f64, decimals: u8) {
    match fixed_digits(x, decimals) {
        Some(q) => write_scaled(out, x.is_sign_negative() && q != 0, q, usize::from(decimals)),
        None => write_fixed_std(out, x, decimals),
    }
}

/// The largest precision of the exact integer path: `10^N` times a 53-bit
/// significand stays far inside `u128`, and the result inside `u64`.
const FIXED_MAX_DECIMALS: u8 = 9;

/// Values at or above `2^FIXED_MAX_BITS` in magnitude take the std path.
const FIXED_MAX_BITS: i32 = 32;

/// `round(|x| × 10^decimals)`, rounded half to even on the exact binary
/// value as std's `{:.N}` does, or `None` outside the exact integer path.
#[inline]
fn fixed_digits(x: f64, decimals: u8) -> Option<u64> {
    if decimals > FIXED_MAX_DECIMALS {
        return None;
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // |x| = m × 2^-s with a 53-bit m (fewer bits for subnormals).
    let (m, s) = if biased == 0 { (fraction, 1074) } else { (fraction | 1 << 52, 1075 - biased) };
    // Below 2^32, s >= 21 and the result is below 2^32 × 10^9 < 2^62.
    if biased >= 1023 + FIXED_MAX_BITS {
        return None;
    }
    // m × 10^9 < 2^83, so for s above 84 the scaled value is below one half.
    if s > 84 {
        return Some(0);
    }
    let scaled = u128::from(m) * u128::from(POW10[usize::from(decimals)]);
    let q = (scaled >> s) as u64;
    let rest = scaled & ((1u128 << s) - 1);
    let half = 1u128 << (s - 1);
    Some(q + u64::from(rest > half || (rest == half && q & 1 == 1)))
}

const POW10: [u64; FIXED_MAX_DECIMALS as usize + 1] =
    [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];

/// Writes `q / 10^decimals` with exactly `decimals` decimals.
#[inline]
fn write_scaled(out: &mut Vec<u8>, negative: bool, q: u64, decimals: usize) {
    let mut ints = itoa::Buffer::new();
    let digits = ints.format(q).as_bytes();
    // At most 21 bytes: '-', the 19 digits of q < 2^62 and '.'; or '-', "0." and 9 decimals.
    let mut text = [b'0'; 32];
    if negative {
        text[0] = b'-';
    }
    let mut len = usize::from(negative);
    if decimals == 0 {
        text[len..len + digits.len()].copy_from_slice(digits);
        len += digits.len();
    } else if digits.len() > decimals {
        let point = digits.len() - decimals;
        text[len..len + point].copy_from_slice(&digits[..point]);
        text[len + point] = b'.';
        text[len + point + 1..len + digits.len() + 1].copy_from_slice(&digits[point..]);
        len += digits.len() + 1;
    } else {
        // "0." then zeros up to the digits (`text` is filled with '0').
        text[len + 1] = b'.';
        let end = len + 2 + decimals;
        text[end - digits.len()..end].copy_from_slice(digits);
        len = end;
    }
    push_short(out, &text[..len]);
}

/// `{:.N}` from std, without the sign of a zero.
#[cold]
fn write_fixed_std(out: &mut Vec<u8>, x: f64, decimals: u8) {
    let start = out.len();
    // Writing into a Vec cannot fail.
    let _ = write!(out, "{:.*}", usize::from(decimals), x);
    if out[start] == b'-' && out[start + 1..].iter().all(|&b| b == b'0' || b == b'.') {
        out.remove(start);
    }
}

#[cfg(test)]
// Powers of ten and two make the inputs of the property tests below; no
// trace depends on them.
#[allow(clippy::disallowed_methods)]
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

    #[test]
    fn append_writes_exactly_the_bytes_at_every_length() {
        let text: Vec<u8> = (b'a'..=b'z').chain(b'A'..=b'Z').collect();
        for before in [0, 1, 7, 31] {
            for n in 0..=40 {
                // Full and nearly full Vecs too: the spare capacity is reserved first.
                let mut out = Vec::with_capacity(before);
                out.extend(std::iter::repeat_n(b'-', before));
                append(&mut out, &text[..n]);
                append(&mut out, &text[n..n + 3]);
                let mut expected = vec![b'-'; before];
                expected.extend_from_slice(&text[..n + 3]);
                assert_eq!(out, expected, "{before} bytes before, {n} appended");
            }
        }
    }

    /// A fixed pseudo-random sequence of bit patterns.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn shortest_form_drops_exactly_zmijs_trailing_point_zero() {
        // The positional range where the integer test replaces the suffix
        // test: the same bytes as stripping ".0" from zmij's output.
        let mut next = xorshift(0x853c_49e6_748f_ea9bu64);
        for i in 0..100_000u32 {
            let r = next();
            let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
            let magnitude = 10f64.powi((r % 20) as i32 - 5);
            let halves = (next() >> (next() % 64)) as f64 / 2f64.powi((next() % 8) as i32);
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            for x in [unit * magnitude, (unit * magnitude).round(), halves, 1e15 - halves, 1e-4 + unit * 1e-4] {
                let x = sign * x;
                if !(1e-4..1e15).contains(&x.abs()) {
                    continue;
                }
                let mut buf = zmij::Buffer::new();
                let s = buf.format_finite(x);
                assert_eq!(format_f64(x), s.strip_suffix(".0").unwrap_or(s), "bits {:#x}", x.to_bits());
            }
        }
    }

    /// std's `{:.N}` with the trace's `-0` rule: the reference for [`format_fixed`].
    fn std_fixed(x: f64, n: u8) -> String {
        let s = format!("{:.*}", usize::from(n), x);
        match s.strip_prefix('-') {
            Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
            _ => s,
        }
    }

    #[test]
    fn fixed_ties_round_half_to_even_on_the_binary_value() {
        for (x, n, text) in [
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.5, 0, "2"),
            (3.5, 0, "4"),
            (0.5, 0, "0"),
            (1.5, 0, "2"),
            (-0.5, 0, "0"),
            (-1.5, 0, "-2"),
            (0.0625, 3, "0.062"),
            (1.0 / 1024.0, 9, "0.000976562"),
            // Binary values just below and just above the decimal tie.
            (1.005, 2, "1.00"),
            (0.0005, 3, "0.001"),
            (999.9995, 3, "1000.000"),
            (-999.9995, 3, "-1000.000"),
            (5e-324, 9, "0.000000000"),
            (12.0, 0, "12"),
            (-7.25, 4, "-7.2500"),
        ] {
            assert_eq!(format_fixed(x, n), text, "{x:e} with {n} decimals");
            assert_eq!(std_fixed(x, n), text, "std: {x:e} with {n} decimals");
        }
    }

    #[test]
    fn fixed_takes_the_integer_path_for_trace_values() {
        for x in [0.0, -0.0, 1e-300, 0.1, -3.75, 1234.5678, 4294967295.5, -4294967295.0] {
            for n in 0..=FIXED_MAX_DECIMALS {
                assert!(fixed_digits(x, n).is_some(), "{x} with {n} decimals");
            }
        }
        assert_eq!(fixed_digits(4294967296.0, 3), None);
        assert_eq!(fixed_digits(1.0, FIXED_MAX_DECIMALS + 1), None);
    }

    #[test]
    fn fixed_matches_std_on_random_ties_integers_and_tiny_values() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let check = |x: f64, n: u8| {
            if x.is_finite() {
                assert_eq!(format_fixed(x, n), std_fixed(x, n), "bits {:#x} with {n} decimals", x.to_bits());
            }
        };
        for i in 0..60_000u64 {
            // Precisions 0..=12 (past the integer path too), and the common 0..=9.
            let (n1, n2) = ((i % 13) as u8, ((i / 13) % 10) as u8);
            let r = next();
            let sign = if r & 1 == 0 { 1.0 } else { -1.0 };
            let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
            // Any bit pattern.
            let x = f64::from_bits(next());
            check(x, n1);
            check(x, n2);
            // Uniform in [-1000, 1000].
            let x = unit * 2000.0 - 1000.0;
            check(x, n1);
            check(x, n2);
            // k / 2^j: exact ties at N decimals when j = N + 1 and k is odd.
            let j = (next() % 64) as i32;
            let k = (next() >> (next() % 64)) as f64;
            for x in [k / 2f64.powi(j), (2.0 * (k % 1e6) + 1.0) / 2f64.powi(i32::from(n1) + 1)] {
                check(sign * x, n1);
                check(sign * x, n2);
            }
            // Integers, small and up to past the 2^32 bound of the integer path.
            let x = sign * ((next() >> (next() % 64)) as f64);
            check(x, n1);
            check(x, n2);
            check(sign * (4294967296.0 - unit * 4.0), n1);
            // Tiny: any exponent below one, and next to the half-unit of N decimals.
            let x = sign * unit * 2f64.powi(-((next() % 1075) as i32));
            check(x, n1);
            check(x, n2);
            let half = 0.5 / 10f64.powi(i32::from(n1));
            let step = next() % 5;
            check(sign * f64::from_bits(half.to_bits() + step - 2), n1);
        }
    }
}
