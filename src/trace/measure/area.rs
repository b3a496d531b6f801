//! Density and speed in a measurement area, defined as PedPy defines them so
//! the two tools agree on the same trace:
//!
//! - *classic density* (`pedpy.compute_classic_density`): the agents strictly
//!   inside the area in a frame over the area, 1/m² (a point on the border is
//!   outside, as shapely's `contains` has it);
//! - *individual speed* (`pedpy.compute_individual_speed` with
//!   `SpeedCalculation.BORDER_EXCLUDE`): for an agent's `k`-th row, the
//!   displacement from its row `k - n` to its row `k + n` over the frames
//!   between them divided by the frame rate, m/s; undefined within `n` rows of
//!   either end of its track;
//! - *mean speed in the area*: the mean individual speed of the agents
//!   strictly inside the area that have one, per frame.

use crate::ir::{Rect, Vec2};

use super::load::Trace;

/// Whether `p` is strictly inside `area`.
pub fn strictly_inside(area: &Rect, p: Vec2) -> bool {
    p.x > area.min.x && p.x < area.max.x && p.y > area.min.y && p.y < area.max.y
}

/// Every row's individual speed over a window of `step` rows either side, m/s.
pub fn individual_speed(trace: &Trace, step: usize) -> Vec<Option<f64>> {
    let mut out = vec![None; trace.rows()];
    let fps = trace.frame_rate();
    if step == 0 || fps <= 0.0 {
        return out;
    }
    for k in 0..trace.tracks.len() {
        let rows = trace.tracks.rows(k);
        for i in step..rows.len().saturating_sub(step) {
            let (a, b) = (rows[i - step] as usize, rows[i + step] as usize);
            let window = (trace.frame[b] - trace.frame[a]) as f64 / fps;
            out[rows[i] as usize] = Some(trace.pos[b].distance(trace.pos[a]) / window);
        }
    }
    out
}

/// One frame's measures in the area.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AreaFrame {
    pub count: u32,
    /// Classic density, 1/m².
    pub density: f64,
    /// Mean individual speed of the agents inside that have one, m/s.
    pub speed: Option<f64>,
}

/// Classic density and mean speed in `area`, per frame.
pub fn per_frame(trace: &Trace, area: &Rect, speed: &[Option<f64>]) -> Vec<AreaFrame> {
    let size = area.area();
    (0..trace.frames.len())
        .map(|f| {
            let (mut count, mut sum, mut with_speed) = (0u32, 0.0, 0u32);
            for r in trace.frame_rows(f) {
                if strictly_inside(area, trace.pos[r]) {
                    count += 1;
                    if let Some(v) = speed[r] {
                        sum += v;
                        with_speed += 1;
                    }
                }
            }
            AreaFrame {
                count,
                density: f64::from(count) / size,
                speed: (with_speed > 0).then(|| sum / f64::from(with_speed)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_is_a_central_difference_excluding_the_ends() {
        let mut csv = String::from("id,frame,t,x,y\n");
        for k in 0..5 {
            csv.push_str(&format!("0,{k},{},{},0\n", k as f64 * 0.5, k * k));
        }
        let trace = Trace::parse(csv.as_bytes()).unwrap();
        let v = individual_speed(&trace, 1);
        // Rows 0 and 4 have no window; row 2: from x = 1 to x = 9 over 1 s.
        assert_eq!(v, vec![None, Some(4.0), Some(8.0), Some(12.0), None]);
        let area = Rect { min: Vec2::new(0.0, -1.0), max: Vec2::new(4.0, 1.0) };
        let f = per_frame(&trace, &area, &v);
        // x = 0 lies on the border: outside.
        assert_eq!(f[0].count, 0);
        assert_eq!(f[1], AreaFrame { count: 1, density: 1.0 / 8.0, speed: Some(4.0) });
        assert_eq!(f[3].count, 0);
    }
}
