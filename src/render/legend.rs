//! The legend box under a picture: one entry for every kind of symbol the
//! picture draws (agents' colours, path and body marks, the world's areas,
//! lines and symbols, spawns and goals) and a scale bar in metres.

use std::fmt::Write;

use super::labels::text_size;
use super::places::{Kind, Mark};
use super::{n1, world, xml};
use crate::ir::Program;

/// Height of a row of entries, px.
pub const ROW: f64 = 18.0;
/// Padding inside the box, px.
const PAD: f64 = 6.0;
/// The length a scale bar may take at most, px.
pub const SCALE_PX: f64 = 100.0;

/// The longest round length (1, 2 or 5 × 10^k m) that is at most `max_px`
/// long at `px_per_m`. The player's scale bar picks its length the same way.
pub fn scale_length(px_per_m: f64, max_px: f64) -> f64 {
    if !(px_per_m > 0.0 && px_per_m.is_finite() && max_px > 0.0) {
        return 1.0;
    }
    // m × 10^k as the double nearest to it: powers of ten up to 1e22 are
    // exact, and one rounding (a product or a quotient) gets the rest.
    let ten = |k: i32| (0..k.unsigned_abs()).fold(1.0, |p, _| p * 10.0);
    let at = |m: f64, k: i32| if k >= 0 { m * ten(k) } else { m / ten(k) };
    let mut k = 0;
    while at(1.0, k) * px_per_m > max_px && k > -12 {
        k -= 1;
    }
    while at(1.0, k + 1) * px_per_m <= max_px && k < 12 {
        k += 1;
    }
    [5.0, 2.0, 1.0].into_iter().map(|m| at(m, k)).find(|l| l * px_per_m <= max_px).unwrap_or(at(1.0, k))
}

/// A length as the scale bar labels it: `5 m`, `0.2 m`, `2000 m` (the
/// shortest decimals that read back as the length, as the player prints it).
pub fn metres(l: f64) -> String {
    format!("{l} m")
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// An agents' colour and what it stands for.
    Swatch(String, String),
    Start,
    End,
    Disc,
    Trail(String),
    Region,
    Space,
    Door,
    TargetShape,
    Mask,
    Obstacle,
    Object,
    Markers,
    Spawn,
    Goal,
    /// A scale bar: the length it stands for, m, and its length, px.
    Scale(f64, f64),
}

impl Entry {
    pub fn text(&self) -> String {
        match self {
            Entry::Swatch(_, t) | Entry::Trail(t) => t.clone(),
            Entry::Start => "start".into(),
            Entry::End => "end".into(),
            Entry::Disc => "body, tick: heading".into(),
            Entry::Region => "region".into(),
            Entry::Space => "space".into(),
            Entry::Door => "door".into(),
            Entry::TargetShape => "target shape".into(),
            Entry::Mask => "alignment mask".into(),
            Entry::Obstacle => "obstacle".into(),
            Entry::Object => "object (provides)".into(),
            Entry::Markers => "markers".into(),
            Entry::Spawn => "spawn".into(),
            Entry::Goal => "goal".into(),
            Entry::Scale(l, _) => metres(*l),
        }
    }

    /// The symbol's width, px (16, or a scale bar's length).
    fn mark_width(&self) -> f64 {
        match self {
            Entry::Scale(_, px) => *px,
            _ => 16.0,
        }
    }

    /// The symbol, in a box of its width × 10 px at `(x, y)`.
    fn mark(&self, x: f64, y: f64) -> String {
        let (cx, cy) = (x + 8.0, y + 5.0);
        let (cxs, cys) = (n1(cx), n1(cy));
        let rect = |attrs: &str| {
            format!("<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"10\" {attrs}/>", n1(x + 0.5), n1(y + 0.5))
        };
        match self {
            Entry::Swatch(c, _) => format!("<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"10\" fill=\"{c}\"/>", n1(x), n1(y)),
            Entry::Start => {
                format!("<circle cx=\"{cxs}\" cy=\"{cys}\" r=\"3.5\" fill=\"#ffffff\" stroke=\"#222222\" stroke-width=\"1.5\"/>")
            }
            Entry::End => format!("<circle cx=\"{cxs}\" cy=\"{cys}\" r=\"3.5\" fill=\"#222222\"/>"),
            Entry::Disc => format!(
                "<circle cx=\"{cxs}\" cy=\"{cys}\" r=\"5\" fill=\"#bbbbbb\" stroke=\"#222222\" stroke-width=\"0.8\"/><line x1=\"{cxs}\" y1=\"{cys}\" x2=\"{}\" y2=\"{cys}\" stroke=\"#111111\" stroke-width=\"1.2\"/>",
                n1(x + 13.0)
            ),
            Entry::Trail(_) => format!(
                "<line x1=\"{}\" y1=\"{cys}\" x2=\"{}\" y2=\"{cys}\" stroke=\"#555555\" stroke-opacity=\"0.5\" stroke-width=\"2\"/>",
                n1(x),
                n1(x + 16.0)
            ),
            Entry::Region => rect(&format!("fill=\"{}\" stroke=\"{}\"", world::REGION_FILL, world::REGION_STROKE)),
            Entry::Space => rect(&format!("fill=\"none\" stroke=\"{}\" stroke-dasharray=\"4 2\"", world::SPACE_STROKE)),
            Entry::TargetShape => {
                rect(&format!("fill=\"none\" stroke=\"{}\" stroke-dasharray=\"2 2\"", world::SHAPE_STROKE))
            }
            Entry::Obstacle => rect(&format!("fill=\"{}\" stroke=\"{}\"", world::OBSTACLE_FILL, world::OBSTACLE_STROKE)),
            Entry::Door => format!(
                "<line x1=\"{}\" y1=\"{cys}\" x2=\"{}\" y2=\"{cys}\" stroke=\"{}\" stroke-width=\"3\"/>",
                n1(x),
                n1(x + 16.0),
                world::DOOR
            ),
            Entry::Mask => format!(
                "<path d=\"M{},{}H{}M{},{}H{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>",
                n1(x),
                n1(y + 2.0),
                n1(x + 16.0),
                n1(x),
                n1(y + 8.0),
                n1(x + 16.0),
                world::MASK_STROKE
            ),
            Entry::Object => world::object_symbol(cx, cy),
            Entry::Markers => format!(
                "<path d=\"M{},{}h0M{},{}h0M{},{}h0\" stroke=\"{}\" stroke-width=\"2.4\" stroke-linecap=\"round\"/>",
                n1(x + 2.0),
                n1(y + 3.0),
                n1(x + 8.0),
                n1(y + 7.0),
                n1(x + 14.0),
                n1(y + 3.0),
                world::MARKER_FILL
            ),
            Entry::Spawn => world::mark_symbol(Kind::Spawn, cx, cy),
            Entry::Goal => world::mark_symbol(Kind::Goal, cx, cy),
            Entry::Scale(_, px) => {
                let (x0, x1) = (n1(x), n1(x + px));
                format!(
                    "<path id=\"scale-bar\" d=\"M{x0},{}V{}H{x1}V{}\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1.5\"/>",
                    n1(y + 1.0),
                    n1(y + 8.0),
                    n1(y + 1.0)
                )
            }
        }
    }

    /// Width of the entry with its text and the gap after it, px.
    fn width(&self) -> f64 {
        self.mark_width() + 5.0 + text_size(&self.text(), 12.0).0 + 12.0
    }
}

/// The world's entries: one for each kind of thing the picture draws.
pub fn world_entries(program: &Program, marks: &[Mark], markers: bool) -> Vec<Entry> {
    let w = &program.world;
    let mut out = Vec::new();
    let mut add = |present: bool, e: Entry| {
        if present {
            out.push(e);
        }
    };
    add(!w.regions.is_empty(), Entry::Region);
    add(!program.spaces.is_empty(), Entry::Space);
    add(program.spaces.iter().any(|s| !s.doors.is_empty()), Entry::Door);
    add(!w.shapes.is_empty(), Entry::TargetShape);
    add(!w.masks.is_empty(), Entry::Mask);
    add(!w.obstacles.is_empty(), Entry::Obstacle);
    add(!program.objects.is_empty(), Entry::Object);
    add(markers, Entry::Markers);
    add(marks.iter().any(|m| m.kind == Kind::Spawn), Entry::Spawn);
    add(marks.iter().any(|m| m.kind == Kind::Goal), Entry::Goal);
    out
}

/// The legend box from `(x0, y0)` to the right edge `x1`: each group of
/// entries starts a new row and wraps when it runs out of room. Returns the
/// SVG and the box's bottom.
pub fn draw(groups: &[Vec<Entry>], x0: f64, y0: f64, x1: f64) -> (String, f64) {
    let mut body = String::new();
    let (left, right) = (x0 + PAD, x1 - PAD);
    let mut y = y0 + PAD;
    let mut count = 0;
    for group in groups.iter().filter(|g| !g.is_empty()) {
        let mut x = left;
        for e in group {
            let w = e.width();
            if x + w > right && x > left {
                x = left;
                y += ROW;
            }
            body.push_str(&e.mark(x, y));
            let _ = writeln!(
                body,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#222222\">{}</text>",
                n1(x + e.mark_width() + 5.0),
                n1(y + 9.5),
                xml(&e.text())
            );
            x += w;
            count += 1;
        }
        y += ROW;
    }
    let bottom = y - ROW + 10.0 + PAD;
    let mut out = String::with_capacity(body.len() + 200);
    let _ = writeln!(
        out,
        "<g id=\"legend\" data-entries=\"{count}\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" stroke=\"#cccccc\"/>",
        n1(x0),
        n1(y0),
        n1(x1 - x0),
        n1(bottom - y0)
    );
    out.push_str(&body);
    out.push_str("</g>\n");
    (out, bottom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_bars_are_round_lengths_that_fit() {
        // px per metre → the length drawn.
        for (ppm, want) in
            [(28.75, 2.0), (1.0, 100.0), (9.9, 10.0), (10.0, 10.0), (0.3, 200.0), (300.0, 0.2), (50.0, 2.0)]
        {
            assert_eq!(scale_length(ppm, 100.0), want, "{ppm} px/m");
        }
        // From 1 px a kilometre to 1 px a micrometre.
        let mut ppm = 0.001;
        for _ in 0..2100 {
            ppm *= 1.01;
            let l = scale_length(ppm, 100.0);
            assert!(l * ppm <= 100.0 && l * ppm > 40.0, "{ppm} px/m: {l} m");
            let s = metres(l);
            let digits: String = s.chars().filter(|c| c.is_ascii_digit() && *c != '0').collect();
            assert!(["1", "2", "5"].contains(&digits.as_str()), "{s}");
        }
        assert_eq!(metres(0.2), "0.2 m");
        assert_eq!(metres(5.0), "5 m");
        assert_eq!(metres(2000.0), "2000 m");
        assert_eq!(metres(scale_length(3e6, 100.0)), "0.00002 m");
    }
}
