//! An animated GIF of a run: each frame is the one-frame picture (`svg.rs`),
//! rasterised by resvg, mapped onto a fixed palette and encoded by the `gif`
//! crate.
//!
//! The palette is the picture's own colours (every `#rrggbb` its SVG names:
//! the world's fills, the agents' colours, the legend's) and a 6 × 6 × 6
//! colour cube for the blends of anti-aliased edges and translucent trails,
//! each pixel taking its nearest entry, without dithering. Nothing depends on
//! the order pixels are met or on threads, so the same trace and options
//! give the same bytes. After the first frame each frame holds only the
//! rectangle that changed, its unchanged pixels transparent: the world and
//! the legend are written once.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::ir::Program;
use crate::trace::measure::Trace;

use super::png::Rasteriser;
use super::svg::{self, frame_range};

/// Default width of a GIF, px: a tenth of the pixels of a picture's default.
pub const DEFAULT_WIDTH: u32 = 640;
/// The most pixels a GIF may have over all its frames (some tens of seconds
/// of drawing): past it, `crowd render` refuses with the figure before
/// drawing any.
pub const MAX_PIXELS: u64 = 400_000_000;
/// The fastest a GIF is played, frames per second: browsers show frames of
/// less than 2 cs for 10 cs.
pub const MAX_FPS: f64 = 50.0;
/// The last frame stays this much longer before the loop starts again, cs.
const HOLD_LAST: u16 = 100;
/// Index of the transparent colour (unchanged pixels after the first frame).
const CLEAR: u8 = 255;
/// Frames rasterised at once: enough to keep the threads busy, and no more
/// than [`CHUNK_PIXELS`] pixels (4 bytes each) in flight.
const CHUNK: usize = 8;
const CHUNK_PIXELS: usize = 32_000_000;

#[derive(Clone, Debug)]
pub struct Options {
    /// The picture of each frame: width, colouring, trail, markers, label;
    /// `from` and `to` choose the frames (`frame` is not used).
    pub picture: svg::Options,
    /// Keep every n-th frame.
    pub every: usize,
    /// Frames shown a second; `None`: real time (the trace's interval).
    pub fps: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options { picture: svg::Options { width: DEFAULT_WIDTH, ..svg::Options::default() }, every: 1, fps: None }
    }
}

/// What a GIF will hold, known before any frame is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The trace's frames shown, in order.
    pub frames: Vec<usize>,
    pub width: u32,
    pub height: u32,
    /// How long each frame shows, cs.
    pub delays: Vec<u16>,
}

impl Plan {
    pub fn pixels(&self) -> u64 {
        self.frames.len() as u64 * u64::from(self.width) * u64::from(self.height)
    }
}

/// The frames, size and timing of the GIF; refuses one of more than
/// [`MAX_PIXELS`] with its figure.
pub fn plan(program: &Program, trace: &Trace, opts: &Options) -> Result<Plan, String> {
    if opts.picture.frame.is_some() {
        return Err("a GIF shows the frames from --from to --to; --frame draws one picture".into());
    }
    let (f0, f1) = frame_range(trace, &opts.picture)?;
    let every = opts.every.max(1);
    let frames: Vec<usize> = (f0..=f1).step_by(every).collect();
    let fps = match opts.fps {
        Some(f) if f.is_finite() && f > 0.0 && f <= MAX_FPS => f,
        Some(f) => return Err(format!("--fps {f} is not between 0 and {MAX_FPS}")),
        None => (1.0 / (trace.interval * every as f64)).min(MAX_FPS),
    };
    // The size of every frame is the first one's (see `svg::picture`).
    let first = svg::picture(program, trace, &svg::Options { frame: Some(f0), ..opts.picture.clone() })?;
    if first.width > u32::from(u16::MAX) || first.height > u32::from(u16::MAX) {
        return Err(format!(
            "a GIF is at most 65535 px a side; this one would be {} × {} px",
            first.width, first.height
        ));
    }
    // Delays rounded on the running clock, so rounding never drifts.
    let at = |k: usize| (k as f64 * 100.0 / fps).round() as u64;
    let mut delays: Vec<u16> =
        (0..frames.len()).map(|k| (at(k + 1) - at(k)).clamp(2, u64::from(u16::MAX)) as u16).collect();
    if let Some(last) = delays.last_mut() {
        *last = last.saturating_add(HOLD_LAST);
    }
    let plan = Plan { frames, width: first.width, height: first.height, delays };
    if plan.pixels() > MAX_PIXELS {
        return Err(format!(
            "the GIF would hold {} frames of {} × {} px, {:.0} million pixels, more than the {:.0} million \
             a GIF may have: keep fewer frames (--every, --from, --to) or make it narrower (--width)",
            plan.frames.len(),
            plan.width,
            plan.height,
            plan.pixels() as f64 / 1e6,
            MAX_PIXELS as f64 / 1e6
        ));
    }
    Ok(plan)
}

/// The palette: the picture's named colours, then the cube; at most 255
/// entries (the last index is the transparent one).
fn palette(svg: &str) -> Vec<[u8; 3]> {
    let mut named: Vec<[u8; 3]> = Vec::new();
    let bytes = svg.as_bytes();
    for (i, _) in svg.match_indices('#') {
        let Some(hex) = bytes.get(i + 1..i + 7) else { continue };
        if !hex.iter().all(u8::is_ascii_hexdigit) || bytes.get(i + 7).is_some_and(u8::is_ascii_hexdigit) {
            continue;
        }
        let v = |k: usize| u8::from_str_radix(std::str::from_utf8(&hex[k..k + 2]).unwrap_or("00"), 16).unwrap_or(0);
        let c = [v(0), v(2), v(4)];
        if !named.contains(&c) {
            named.push(c);
        }
    }
    const LEVELS: [u8; 6] = [0, 51, 102, 153, 204, 255];
    named.truncate(255 - 216);
    for r in LEVELS {
        for g in LEVELS {
            for b in LEVELS {
                named.push([r, g, b]);
            }
        }
    }
    named
}

/// Colours to palette indices, through a table of 6 bits a channel filled
/// as colours are met (each cell's answer depends on the cell alone).
struct Mapper {
    palette: Vec<[u8; 3]>,
    table: Vec<u8>,
}

impl Mapper {
    fn new(palette: Vec<[u8; 3]>) -> Mapper {
        Mapper { palette, table: vec![CLEAR; 1 << 18] }
    }

    fn index(&mut self, c: [u8; 3]) -> u8 {
        let cell = (usize::from(c[0] >> 2) << 12) | (usize::from(c[1] >> 2) << 6) | usize::from(c[2] >> 2);
        if self.table[cell] == CLEAR {
            // The cell's centre stands for it: within 2 of any colour in it.
            let centre = [(c[0] & !3) | 2, (c[1] & !3) | 2, (c[2] & !3) | 2];
            let d = |p: &[u8; 3]| -> i32 { (0..3).map(|k| (i32::from(p[k]) - i32::from(centre[k])).pow(2)).sum() };
            let mut best = 0;
            for (k, p) in self.palette.iter().enumerate() {
                if d(p) < d(&self.palette[best]) {
                    best = k;
                }
            }
            self.table[cell] = best as u8;
        }
        self.table[cell]
    }
}

/// The GIF's bytes, its frames drawn by `raster`. `progress` is called
/// after each frame is encoded.
pub fn encode(
    program: &Program,
    trace: &Trace,
    opts: &Options,
    plan: &Plan,
    raster: &Rasteriser,
    mut progress: impl FnMut(usize),
) -> Result<Vec<u8>, String> {
    let svg_of = |f: usize| -> Result<String, String> {
        svg::render(program, trace, &svg::Options { frame: Some(f), ..opts.picture.clone() })
    };
    let Some(&first) = plan.frames.first() else { return Err("no frame to show".into()) };
    let palette = palette(&svg_of(first)?);
    let mut flat: Vec<u8> = palette.iter().flatten().copied().collect();
    flat.resize(256 * 3, 0);
    let (w, h) = (plan.width as usize, plan.height as usize);
    let mut out = Vec::new();
    let mut encoder = ::gif::Encoder::new(&mut out, w as u16, h as u16, &flat).map_err(|e| e.to_string())?;
    encoder.set_repeat(::gif::Repeat::Infinite).map_err(|e| e.to_string())?;
    let mut mapper = Mapper::new(palette);
    let mut shown: Vec<u8> = Vec::new();
    let mut done = 0;
    let per_chunk = (CHUNK_PIXELS / (w * h).max(1)).clamp(1, CHUNK);
    for chunk in plan.frames.chunks(per_chunk) {
        let pixmaps: Vec<Result<_, String>> = chunk.par_iter().map(|&f| raster.pixmap(&svg_of(f)?)).collect();
        for pixmap in pixmaps {
            let pixmap = pixmap?;
            if (pixmap.width() as usize, pixmap.height() as usize) != (w, h) {
                return Err(format!("a frame is {} × {} px, the first {w} × {h} px", pixmap.width(), pixmap.height()));
            }
            let now: Vec<u8> = pixmap
                .pixels()
                .iter()
                .map(|p| {
                    let c = p.demultiply();
                    mapper.index([c.red(), c.green(), c.blue()])
                })
                .collect();
            let mut frame = ::gif::Frame {
                delay: plan.delays[done],
                dispose: ::gif::DisposalMethod::Keep,
                width: w as u16,
                height: h as u16,
                ..::gif::Frame::default()
            };
            if shown.is_empty() {
                frame.buffer = Cow::Borrowed(&now);
                encoder.write_frame(&frame).map_err(|e| e.to_string())?;
            } else {
                let (x0, y0, x1, y1) = changed(&shown, &now, w, h).unwrap_or((0, 0, 1, 1));
                let mut part = Vec::with_capacity((x1 - x0) * (y1 - y0));
                for y in y0..y1 {
                    for x in x0..x1 {
                        let k = y * w + x;
                        part.push(if now[k] == shown[k] { CLEAR } else { now[k] });
                    }
                }
                frame.left = x0 as u16;
                frame.top = y0 as u16;
                frame.width = (x1 - x0) as u16;
                frame.height = (y1 - y0) as u16;
                frame.transparent = Some(CLEAR);
                frame.buffer = Cow::Owned(part);
                encoder.write_frame(&frame).map_err(|e| e.to_string())?;
            }
            shown = now;
            done += 1;
            progress(done);
        }
    }
    drop(encoder);
    Ok(out)
}

/// The smallest rectangle `[x0, x1) × [y0, y1)` holding every pixel that
/// differs; `None` when none does.
fn changed(a: &[u8], b: &[u8], w: usize, h: usize) -> Option<(usize, usize, usize, usize)> {
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let (ra, rb) = (&a[y * w..(y + 1) * w], &b[y * w..(y + 1) * w]);
        let Some(first) = ra.iter().zip(rb).position(|(p, q)| p != q) else { continue };
        let last = w - 1 - ra.iter().rev().zip(rb.iter().rev()).position(|(p, q)| p != q).unwrap_or(0);
        x0 = x0.min(first);
        x1 = x1.max(last + 1);
        y0 = y0.min(y);
        y1 = y + 1;
    }
    (x1 > x0).then_some((x0, y0, x1, y1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_keeps_the_pictures_colours_exactly() {
        let p = palette("<rect fill=\"#1f77b4\"/><rect fill=\"#ff7f0e\" stroke=\"#1f77b4\"/><a href=\"#x\"/>#1234567");
        assert_eq!(p.len(), 2 + 216);
        assert_eq!(&p[..2], &[[0x1f, 0x77, 0xb4], [0xff, 0x7f, 0x0e]]);
        let mut m = Mapper::new(p);
        assert_eq!(m.index([0x1f, 0x77, 0xb4]), 0);
        assert_eq!(m.index([0xff, 0x7f, 0x0e]), 1);
        // A blend takes the nearest cube colour.
        let near_white = m.index([250, 250, 250]);
        assert_eq!(m.palette[usize::from(near_white)], [255, 255, 255]);
    }

    #[test]
    fn the_changed_rectangle_is_tight() {
        let a = vec![0u8; 20];
        let mut b = a.clone();
        assert_eq!(changed(&a, &b, 5, 4), None);
        b[5 + 1] = 1;
        b[2 * 5 + 3] = 1;
        assert_eq!(changed(&a, &b, 5, 4), Some((1, 1, 4, 3)));
    }
}
