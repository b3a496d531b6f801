//! Colours for agents: a categorical palette by population, group or state,
//! or a ramp by speed. The same assignment is used by the SVG and the player.

use crate::ir::Program;
use crate::ir::NONE;
use crate::trace::measure::Trace;

use super::{population_order, ColourBy};

/// Categorical colours, distinct from the world's greys and pale fills.
pub const PALETTE: [&str; 10] =
    ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79"];
/// Agents on their own when colouring by group; agents without a state.
pub const NEUTRAL: &str = "#a0a0a0";
/// Speed ramp (viridis), slow to fast.
pub const RAMP: [&str; 6] = ["#440154", "#414487", "#2a788e", "#22a884", "#7ad151", "#fde725"];

/// Every row's colour, as an index into `table`, and the legend.
#[derive(Clone, Debug, PartialEq)]
pub struct Colours {
    pub table: Vec<String>,
    pub row: Vec<u16>,
    /// `(colour, label)`, in display order.
    pub legend: Vec<(String, String)>,
    /// For a speed ramp: the speed at the top of the ramp, m/s.
    pub top_speed: Option<f64>,
}

/// The speed at the top of the ramp: the 99th percentile of the recorded
/// speeds (so one outlier does not wash the ramp out), at least 0.1 m/s.
pub fn ramp_top(trace: &Trace) -> f64 {
    let mut s: Vec<f64> = trace.vel.iter().map(|v| v.length()).collect();
    if s.is_empty() {
        return 1.0;
    }
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * 0.99).round() as usize].max(0.1)
}

/// The ramp bin of a speed.
pub fn speed_bin(speed: f64, top: f64) -> u16 {
    ((speed / top * RAMP.len() as f64) as usize).min(RAMP.len() - 1) as u16
}

pub fn colours(trace: &Trace, program: &Program, by: ColourBy) -> Colours {
    match by {
        ColourBy::Population => {
            let order = population_order(trace, program);
            let mut ranked: Vec<usize> = (0..trace.populations.len()).collect();
            ranked.sort_by_key(|&k| order[k]);
            let mut rank = vec![0u16; trace.populations.len()];
            for (r, &k) in ranked.iter().enumerate() {
                rank[k] = r as u16;
            }
            let table: Vec<String> = (0..ranked.len()).map(|r| PALETTE[r % PALETTE.len()].to_string()).collect();
            let legend =
                ranked.iter().enumerate().map(|(r, &k)| (table[r].clone(), trace.populations[k].clone())).collect();
            Colours {
                table,
                row: trace.population.iter().map(|&p| rank[p as usize]).collect(),
                legend,
                top_speed: None,
            }
        }
        ColourBy::Group => {
            let mut table: Vec<String> = PALETTE.iter().map(|c| c.to_string()).collect();
            table.push(NEUTRAL.into());
            let solo = PALETTE.len() as u16;
            let row = trace
                .group
                .iter()
                .map(|&g| if g == NONE { solo } else { (g as usize % PALETTE.len()) as u16 })
                .collect();
            let legend = vec![
                (PALETTE[0].to_string(), "groups (colours cycle by number)".into()),
                (NEUTRAL.into(), "on their own".into()),
            ];
            Colours { table, row, legend, top_speed: None }
        }
        ColourBy::State => {
            let mut table: Vec<String> =
                (0..trace.states.len()).map(|k| PALETTE[k % PALETTE.len()].to_string()).collect();
            let none = table.len() as u16;
            table.push(NEUTRAL.into());
            let row =
                trace.state.iter().map(|&s| if s == NONE { none } else { s.min(u32::from(none)) as u16 }).collect();
            let mut legend: Vec<(String, String)> =
                trace.states.iter().enumerate().map(|(k, s)| (table[k].clone(), s.clone())).collect();
            if trace.states.is_empty() {
                legend.push((NEUTRAL.into(), "no state column".into()));
            }
            Colours { table, row, legend, top_speed: None }
        }
        ColourBy::Speed => {
            let top = ramp_top(trace);
            let table: Vec<String> = RAMP.iter().map(|c| c.to_string()).collect();
            let row = trace.vel.iter().map(|v| speed_bin(v.length(), top)).collect();
            let step = top / RAMP.len() as f64;
            let legend = (0..RAMP.len())
                .map(|k| {
                    let label = if k + 1 == RAMP.len() {
                        format!("≥ {:.2} m/s", step * k as f64)
                    } else {
                        format!("{:.2}–{:.2} m/s", step * k as f64, step * (k + 1) as f64)
                    };
                    (RAMP[k].to_string(), label)
                })
                .collect();
            Colours { table, row, legend, top_speed: Some(top) }
        }
    }
}
