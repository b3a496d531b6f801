//! 1-thread and 2-thread runs interleaved in pairs. The speed of a shared
//! machine drifts by tens of percent over minutes, so the speed-up is the
//! ratio within each pair (two runs a second apart), reported as the median
//! and range over the pairs, not the ratio of two best times taken minutes
//! apart.

/// Rates (e.g. agent-steps per second) of interleaved runs on 1 and 2 threads.
pub struct Pairs {
    pub one: Vec<f64>,
    pub two: Vec<f64>,
}

impl Pairs {
    /// Runs `pairs` pairs; `rate(threads)` does one run and returns its rate.
    pub fn run(pairs: usize, mut rate: impl FnMut(usize) -> f64) -> Pairs {
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for _ in 0..pairs.max(1) {
            one.push(rate(1));
            two.push(rate(2));
        }
        Pairs { one, two }
    }

    /// The median 2-thread / 1-thread ratio over the pairs, and its range.
    pub fn speed_up(&self) -> (f64, f64, f64) {
        ratio(&self.two, &self.one)
    }
}

/// The median of `a[k] / b[k]` and its range, for rates of two programs
/// measured in the same pairs (each ratio taken seconds apart).
pub fn ratio(a: &[f64], b: &[f64]) -> (f64, f64, f64) {
    let ratios: Vec<f64> = a.iter().zip(b).map(|(a, b)| a / b).collect();
    let sorted = sorted(&ratios);
    (median(&ratios), sorted[0], sorted[sorted.len() - 1])
}

pub fn median(v: &[f64]) -> f64 {
    let s = sorted(v);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}
