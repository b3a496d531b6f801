//! A run as a USD stage (`.usda`, USD's text form) for DCC tools: Blender,
//! Houdini, Unreal, Omniverse.
//!
//! The stage is Z-up in metres (`upAxis = "Z"`, `metersPerUnit = 1`), one
//! time code per recorded frame at the trace's frame rate. Under
//! `/World/Agents`, one `Xform` per agent (`agent_<id>`): its position on the
//! ground and its heading (a rotation about Z) sampled at every frame it was
//! recorded in, hidden (`visibility`) at the frames it was not alive, its
//! population and group as `crowd:` attributes, and a capsule of its body's
//! radius, coloured by population, as the body an artist sees walk (and
//! replaces with a character). Under `/World/Obstacles`, each piece of the
//! world that is not walkable (the bounds less the walkable area: merged
//! obstacles, walls across the world) as a 1 m prism; `/World/Ground` is
//! the bounds.
//!
//! A prim's samples are written together, so the frames are held until the
//! stage is finished: memory grows with the rows, as the trace's size does.

use std::collections::BTreeMap;
use std::io::{self, Write};

use geo::{BooleanOps, MultiPolygon, Polygon, TriangulateEarcut};

use super::{Scene, Sink};
use crate::ir::Vec2;
use crate::math;
use crate::trace::float::format_f64;
use crate::trace::frame::{FrameView, Recorder, NONE};
use crate::world::outline;

/// The height of an obstacle's prism, m: walls an artist sees, not architecture.
const OBSTACLE_HEIGHT: f64 = 1.0;
/// The height of an agent's capsule, m, ends included.
const BODY_HEIGHT: f64 = 1.75;

/// One agent's samples, in frame order.
#[derive(Default)]
struct Track {
    population: u32,
    radius: f64,
    /// `(frame, x, y, heading in degrees)`.
    samples: Vec<(u64, f64, f64, f64)>,
    /// `(frame, group)` where the group changes, `NONE` for none.
    groups: Vec<(u64, u32)>,
}

pub struct UsdSink<'w> {
    out: &'w mut (dyn Write + Send),
    scene: Scene,
    /// By agent id: a `BTreeMap`, so the prims come out in id order.
    tracks: BTreeMap<u32, Track>,
    frames: u64,
    rows: u64,
}

impl<'w> UsdSink<'w> {
    pub fn new(out: &'w mut (dyn Write + Send), scene: &Scene) -> UsdSink<'w> {
        UsdSink { out, scene: scene.clone(), tracks: BTreeMap::new(), frames: 0, rows: 0 }
    }
}

impl Recorder for UsdSink<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        for i in 0..frame.len() {
            let track = self.tracks.entry(frame.id[i]).or_default();
            if track.samples.is_empty() {
                track.population = frame.population[i];
                track.radius = frame.radius[i];
            }
            let (p, o) = (frame.pos[i], frame.ori[i]);
            let heading = math::atan2(o.y, o.x).to_degrees();
            track.samples.push((frame.frame, p.x, p.y, heading));
            if track.groups.last().is_none_or(|&(_, g)| g != frame.group[i]) {
                track.groups.push((frame.frame, frame.group[i]));
            }
        }
        self.frames = self.frames.max(frame.frame + 1);
        self.rows += frame.len() as u64;
        Ok(())
    }
}

impl Sink for UsdSink<'_> {
    fn finish(&mut self) -> io::Result<u64> {
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut *self.out);
        let s = &self.scene;
        let n = format_f64;
        writeln!(w, "#usda 1.0\n(")?;
        writeln!(w, "    defaultPrim = \"World\"")?;
        writeln!(w, "    doc = \"crowd: scenario {}\"", escape(&s.name))?;
        writeln!(w, "    metersPerUnit = 1\n    upAxis = \"Z\"")?;
        writeln!(w, "    startTimeCode = 0\n    endTimeCode = {}", self.frames.saturating_sub(1))?;
        writeln!(w, "    timeCodesPerSecond = {0}\n    framesPerSecond = {0}\n)\n", n(s.frame_rate))?;
        writeln!(w, "def Xform \"World\" (\n    kind = \"assembly\"\n)\n{{")?;

        let (lo, hi) = (s.bounds.min, s.bounds.max);
        writeln!(w, "    def Mesh \"Ground\"\n    {{")?;
        writeln!(w, "        int[] faceVertexCounts = [4]\n        int[] faceVertexIndices = [0, 1, 2, 3]")?;
        writeln!(
            w,
            "        point3f[] points = [({0}, {1}, 0), ({2}, {1}, 0), ({2}, {3}, 0), ({0}, {3}, 0)]",
            n(lo.x),
            n(lo.y),
            n(hi.x),
            n(hi.y)
        )?;
        writeln!(w, "        color3f[] primvars:displayColor = [(0.85, 0.85, 0.82)]\n    }}\n")?;

        writeln!(w, "    def Scope \"Obstacles\"\n    {{")?;
        let ground = outline::polygon(&[lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]);
        let blocked = MultiPolygon(vec![ground]).difference(&s.walkable);
        for (k, piece) in blocked.0.iter().enumerate() {
            prism(&mut w, &format!("obstacle_{k}"), piece)?;
        }
        writeln!(w, "    }}\n")?;

        writeln!(w, "    def Scope \"Agents\"\n    {{")?;
        let last = self.frames.saturating_sub(1);
        for (id, t) in &self.tracks {
            let population = s.labels.populations.get(t.population as usize).map_or("", String::as_str);
            writeln!(w, "        def Xform \"agent_{id}\"\n        {{")?;
            writeln!(w, "            custom int crowd:id = {id}")?;
            writeln!(w, "            custom string crowd:population = \"{}\"", escape(population))?;
            match &t.groups[..] {
                [(_, g)] => writeln!(w, "            custom int crowd:group = {}", group(*g))?,
                changes => {
                    write!(w, "            custom int crowd:group.timeSamples = {{")?;
                    for (k, (f, g)) in changes.iter().enumerate() {
                        write!(w, "{}{f}: {}", if k == 0 { " " } else { ", " }, group(*g))?;
                    }
                    writeln!(w, " }}")?;
                }
            }
            write!(w, "            double3 xformOp:translate.timeSamples = {{")?;
            for (k, (f, x, y, _)) in t.samples.iter().enumerate() {
                write!(w, "{}{f}: ({}, {}, 0)", if k == 0 { " " } else { ", " }, n(*x), n(*y))?;
            }
            writeln!(w, " }}")?;
            write!(w, "            double xformOp:rotateZ.timeSamples = {{")?;
            for (k, (f, _, _, a)) in t.samples.iter().enumerate() {
                write!(w, "{}{f}: {}", if k == 0 { " " } else { ", " }, n(*a))?;
            }
            writeln!(w, " }}")?;
            writeln!(w, "            uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:rotateZ\"]")?;
            visibility(&mut w, &t.samples, last)?;
            let (r, g, b) = colour(t.population);
            let radius = if t.radius > 0.0 { t.radius } else { 0.25 };
            writeln!(w, "            def Capsule \"body\"\n            {{")?;
            writeln!(w, "                uniform token axis = \"Z\"")?;
            writeln!(w, "                double height = {}", n(BODY_HEIGHT - 2.0 * radius))?;
            writeln!(w, "                double radius = {}", n(radius))?;
            writeln!(w, "                double3 xformOp:translate = (0, 0, {})", n(BODY_HEIGHT / 2.0))?;
            writeln!(w, "                uniform token[] xformOpOrder = [\"xformOp:translate\"]")?;
            writeln!(w, "                color3f[] primvars:displayColor = [({r}, {g}, {b})]")?;
            writeln!(w, "            }}\n        }}")?;
        }
        writeln!(w, "    }}\n}}")?;
        w.flush()?;
        Ok(self.rows)
    }
}

/// `visibility` as time samples: invisible before the first frame an agent
/// was recorded in, between runs of frames it was missing from, and after
/// its last, when that is not the stage's last frame.
fn visibility(w: &mut impl Write, samples: &[(u64, f64, f64, f64)], last: u64) -> io::Result<()> {
    let mut changes: Vec<(u64, &str)> = Vec::new();
    let first = samples.first().map_or(0, |s| s.0);
    if first > 0 {
        changes.push((0, "invisible"));
    }
    changes.push((first, "inherited"));
    for pair in samples.windows(2) {
        if pair[1].0 > pair[0].0 + 1 {
            changes.push((pair[0].0 + 1, "invisible"));
            changes.push((pair[1].0, "inherited"));
        }
    }
    let end = samples.last().map_or(0, |s| s.0);
    if end < last {
        changes.push((end + 1, "invisible"));
    }
    if changes.len() == 1 {
        return Ok(());
    }
    write!(w, "            token visibility.timeSamples = {{")?;
    for (k, (f, v)) in changes.iter().enumerate() {
        write!(w, "{}{f}: \"{v}\"", if k == 0 { " " } else { ", " })?;
    }
    writeln!(w, " }}")
}

/// A blocked piece of the world as a prism from the ground up: its top
/// triangulated (it may have holes: a courtyard inside walls), and a wall
/// along every ring.
fn prism(w: &mut impl Write, name: &str, piece: &Polygon<f64>) -> io::Result<()> {
    let n = format_f64;
    let h = n(OBSTACLE_HEIGHT);
    let top = piece.earcut_triangles_raw();
    let mut points: Vec<String> = top.vertices.iter().map(|[x, y]| format!("({}, {}, {h})", n(*x), n(*y))).collect();
    let mut counts: Vec<&str> = vec!["3"; top.triangle_indices.len() / 3];
    let mut indices: Vec<usize> = top.triangle_indices.clone();
    for ring in std::iter::once(piece.exterior()).chain(piece.interiors()) {
        let mut pts: Vec<(f64, f64)> = ring.0.iter().map(|c| (c.x, c.y)).collect();
        if pts.len() > 1 && pts.first() == pts.last() {
            pts.pop();
        }
        let (m, base) = (pts.len(), points.len());
        points.extend(pts.iter().map(|(x, y)| format!("({}, {}, 0)", n(*x), n(*y))));
        points.extend(pts.iter().map(|(x, y)| format!("({}, {}, {h})", n(*x), n(*y))));
        for i in 0..m {
            let j = (i + 1) % m;
            counts.push("4");
            indices.extend([base + i, base + j, base + m + j, base + m + i]);
        }
    }
    let indices: Vec<String> = indices.iter().map(usize::to_string).collect();
    writeln!(w, "        def Mesh \"{name}\"\n        {{")?;
    writeln!(w, "            int[] faceVertexCounts = [{}]", counts.join(", "))?;
    writeln!(w, "            int[] faceVertexIndices = [{}]", indices.join(", "))?;
    writeln!(w, "            point3f[] points = [{}]", points.join(", "))?;
    writeln!(w, "            uniform bool doubleSided = true")?;
    writeln!(w, "            color3f[] primvars:displayColor = [(0.45, 0.45, 0.5)]\n        }}")
}

fn group(g: u32) -> i64 {
    if g == NONE {
        -1
    } else {
        i64::from(g)
    }
}

/// A population's colour, from the palette of the pictures.
fn colour(population: u32) -> (String, String, String) {
    let hex = crate::render::colour::PALETTE[population as usize % crate::render::colour::PALETTE.len()];
    let byte = |k: usize| u8::from_str_radix(hex.get(1 + 2 * k..3 + 2 * k).unwrap_or("80"), 16).unwrap_or(128);
    let c = |k: usize| format_f64((f64::from(byte(k)) / 255.0 * 1000.0).round() / 1000.0);
    (c(0), c(1), c(2))
}

/// A string for a USD string literal.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}
