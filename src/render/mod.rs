//! Pictures of a run: the world and the agents' paths as SVG (rasterised to
//! PNG by resvg, or frame by frame to an animated GIF), and a
//! self-contained HTML player.
//!
//! Invariants:
//! - one drawing code path: everything is drawn as SVG text; PNG is that SVG
//!   rasterised, never drawn separately;
//! - the SVG and HTML bytes depend only on the scenario, the trace and the
//!   options: numbers are written with fixed decimals, colours are assigned by
//!   index (population declaration order, group number, state order of first
//!   appearance), and nothing iterates a hash map;
//! - the world is drawn in scenario units (metres) mapped to pixels with y up.

pub mod colour;
pub mod gif;
pub mod labels;
pub mod legend;
pub mod places;
pub mod png;
pub mod svg;
pub mod view;
mod world;

use crate::ir::{Program, Rect, Vec2};
use crate::trace::measure::Trace;

/// What paths and agents are coloured by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColourBy {
    /// The agent's population.
    #[default]
    Population,
    /// The agent's group number (agents on their own in grey).
    Group,
    /// The behaviour state (or rule) the agent is in.
    State,
    /// The agent's speed, on a colour ramp.
    Speed,
}

/// Maps world coordinates (m, y up) to picture coordinates (px, y down).
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub world: Rect,
    /// Pixels per metre.
    pub scale: f64,
    /// Top-left corner of the world in the picture, px.
    pub origin: Vec2,
}

impl Frame {
    pub fn new(world: Rect, width_px: f64, origin: Vec2) -> Frame {
        let w = (world.max.x - world.min.x).max(1e-6);
        Frame { world, scale: width_px / w, origin }
    }
    pub fn x(&self, x: f64) -> f64 {
        self.origin.x + (x - self.world.min.x) * self.scale
    }
    pub fn y(&self, y: f64) -> f64 {
        self.origin.y + (self.world.max.y - y) * self.scale
    }
    pub fn width(&self) -> f64 {
        (self.world.max.x - self.world.min.x) * self.scale
    }
    pub fn height(&self) -> f64 {
        (self.world.max.y - self.world.min.y) * self.scale
    }
}

/// Population index in the scenario for each of the trace's population names
/// (colours then follow declaration order, the same in every trace of a scenario).
pub fn population_order(trace: &Trace, program: &Program) -> Vec<usize> {
    trace
        .populations
        .iter()
        .enumerate()
        .map(|(k, name)| {
            program.populations.iter().position(|p| &p.name == name).unwrap_or(program.populations.len() + k)
        })
        .collect()
}

/// A number with one decimal, as SVG coordinates are written.
pub(crate) fn n1(x: f64) -> String {
    let s = format!("{x:.1}");
    if s == "-0.0" {
        "0.0".into()
    } else {
        s
    }
}

/// Text escaped for XML content and attribute values.
pub(crate) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
