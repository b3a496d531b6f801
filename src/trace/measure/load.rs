//! A trace read on its own, without the scenario that made it: typed columns,
//! label tables and per-agent tracks.
//!
//! Invariants of a [`Trace`]:
//! - rows are in (frame, id) order; `frames[k]` spans frame `k`'s rows and
//!   frames are numbered from 0 without gaps (a frame without rows has an
//!   empty span and a time interpolated from the frame interval);
//! - every number is finite;
//! - every row has as many fields as the header, the header names each
//!   column it reads once, and time never goes back from frame to frame;
//! - label tables (`populations`, `states`, `goals`) list names in the order of
//!   their first appearance in the file, so indices never depend on hashing;
//! - only `id`, `frame`, `t`, `x` and `y` are required: without `vx, vy` the
//!   velocity is the displacement since the agent's previous frame over the
//!   frame interval (0 in its first frame), as `crowd run` writes it when it
//!   records every step; without `ori_x, ori_y` the orientation is the
//!   direction of the last non-zero velocity (+x before any).

use std::collections::BTreeMap;
use std::ops::Range;

use crate::ir::Vec2;
use crate::trace::frame::NONE;
use crate::trace::read::FrameSpan;

/// Body radius assumed when neither the trace (`radius` column) nor the
/// scenario gives one, m.
pub const DEFAULT_RADIUS: f64 = 0.25;
/// A frame number beyond this many frames per row read so far (plus a
/// margin for runs that start empty) is a typo, not a reason to allocate
/// gigabytes of empty frames.
const FRAMES_PER_ROW: u64 = 100;
const FRAME_MARGIN: u64 = 1_000_000;
/// The columns the reader takes values from.
const READ_COLUMNS: [&str; 15] = [
    "id",
    "frame",
    "t",
    "x",
    "y",
    "vx",
    "vy",
    "ori_x",
    "ori_y",
    "population",
    "group",
    "state",
    "goal",
    "radius",
    "formation",
];

#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub header: Vec<String>,
    pub frames: Vec<FrameSpan>,
    /// Time between consecutive frames, s (0 when the trace has one frame).
    pub interval: f64,
    pub id: Vec<u32>,
    /// The frame of each row.
    pub frame: Vec<u32>,
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    pub ori: Vec<Vec2>,
    /// Index into `populations`.
    pub population: Vec<u32>,
    pub populations: Vec<String>,
    /// Group number, or [`NONE`].
    pub group: Vec<u32>,
    /// Index into `states`, or [`NONE`] without a `state` column.
    pub state: Vec<u32>,
    pub states: Vec<String>,
    /// Index into `goals`, or [`NONE`] (empty cell or no `goal` column).
    pub goal: Vec<u32>,
    pub goals: Vec<String>,
    /// The `radius` column, when the trace has one.
    pub radius: Option<Vec<f64>>,
    /// The `formation` column: [`crate::ir::FormationKind::index`],
    /// or [`NONE`] for an empty cell; empty without the column.
    pub formation: Vec<u32>,
    /// Per-agent tracks, by increasing id.
    pub tracks: Tracks,
}

/// Each agent's rows in frame order, by increasing id (compressed rows).
#[derive(Clone, Debug, Default)]
pub struct Tracks {
    pub id: Vec<u32>,
    start: Vec<u32>,
    rows: Vec<u32>,
}

impl Tracks {
    pub fn len(&self) -> usize {
        self.id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
    /// Rows of track `k`, in frame order.
    pub fn rows(&self, k: usize) -> &[u32] {
        &self.rows[self.start[k] as usize..self.start[k + 1] as usize]
    }
    /// The track of agent `id`.
    pub fn find(&self, id: u32) -> Option<usize> {
        self.id.binary_search(&id).ok()
    }

    fn build(ids: &[u32]) -> Tracks {
        let mut order: Vec<u32> = (0..ids.len() as u32).collect();
        // Stable: an agent's rows stay in frame order.
        order.sort_by_key(|&r| ids[r as usize]);
        let mut t = Tracks { id: Vec::new(), start: Vec::new(), rows: order };
        for (k, &r) in t.rows.iter().enumerate() {
            let id = ids[r as usize];
            if t.id.last() != Some(&id) {
                t.id.push(id);
                t.start.push(k as u32);
            }
        }
        t.start.push(t.rows.len() as u32);
        t
    }
}

/// Interns names in order of first appearance.
#[derive(Default)]
struct Names {
    index: BTreeMap<Vec<u8>, u32>,
    names: Vec<String>,
}

impl Names {
    fn get(&mut self, s: &[u8]) -> u32 {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        let k = self.names.len() as u32;
        self.index.insert(s.to_vec(), k);
        self.names.push(String::from_utf8_lossy(s).into_owned());
        k
    }
}

struct Columns {
    id: usize,
    frame: usize,
    t: usize,
    x: usize,
    y: usize,
    vel: Option<(usize, usize)>,
    ori: Option<(usize, usize)>,
    population: Option<usize>,
    group: Option<usize>,
    state: Option<usize>,
    goal: Option<usize>,
    radius: Option<usize>,
    formation: Option<usize>,
}

impl Trace {
    /// Reads a CSV trace with at least one row. Errors name the line and
    /// column at fault.
    pub fn parse(bytes: &[u8]) -> Result<Trace, String> {
        let trace = Trace::parse_allowing_empty(bytes)?;
        if trace.id.is_empty() {
            return Err("the trace has a header but no rows".into());
        }
        Ok(trace)
    }

    /// [`Trace::parse`], accepting a trace with a header and no rows (a run
    /// in which nobody was ever alive at a recorded frame): it has no frames.
    pub fn parse_allowing_empty(bytes: &[u8]) -> Result<Trace, String> {
        let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(bytes);
        let header: Vec<String> = reader
            .byte_headers()
            .map_err(|e| format!("cannot read the header: {e}"))?
            .iter()
            .map(|h| String::from_utf8_lossy(h).into_owned())
            .collect();
        if header.iter().all(|h| h.is_empty()) {
            return Err("the trace is empty (no header row)".into());
        }
        // A column named twice is ambiguous: whichever one the reader took,
        // the other's values would be ignored without a word.
        for name in READ_COLUMNS {
            let at: Vec<String> =
                header.iter().enumerate().filter(|(_, h)| *h == name).map(|(k, _)| (k + 1).to_string()).collect();
            if let [first @ .., last] = &at[..] {
                if !first.is_empty() {
                    let times = if at.len() == 2 { "twice".to_string() } else { format!("{} times", at.len()) };
                    return Err(format!(
                        "the header names column `{name}` {times} (columns {} and {last})",
                        first.join(", ")
                    ));
                }
            }
        }
        let find = |name: &str| header.iter().position(|h| h == name);
        let need = |name: &str| find(name).ok_or_else(|| format!("the trace has no `{name}` column"));
        let pair = |a: &str, b: &str| -> Result<Option<(usize, usize)>, String> {
            match (find(a), find(b)) {
                (Some(x), Some(y)) => Ok(Some((x, y))),
                (None, None) => Ok(None),
                (Some(_), None) => Err(format!("the trace has `{a}` but no `{b}` column")),
                (None, Some(_)) => Err(format!("the trace has `{b}` but no `{a}` column")),
            }
        };
        let c = Columns {
            id: need("id")?,
            frame: need("frame")?,
            t: need("t")?,
            x: need("x")?,
            y: need("y")?,
            vel: pair("vx", "vy")?,
            ori: pair("ori_x", "ori_y")?,
            population: find("population"),
            group: find("group"),
            state: find("state"),
            goal: find("goal"),
            radius: find("radius"),
            formation: find("formation"),
        };
        let mut out = Trace { header: header.clone(), ..Trace::default() };
        let mut radius = Vec::new();
        let (mut pops, mut states, mut goals) = (Names::default(), Names::default(), Names::default());
        let mut frame_t: Vec<Option<f64>> = Vec::new();
        // The last frame with rows and its time.
        let mut last_timed: Option<(u64, f64)> = None;
        let mut record = csv::ByteRecord::new();
        let mut line = 1usize;
        loop {
            match reader.read_byte_record(&mut record) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return Err(format!("cannot read the row after line {line}: {e}")),
            }
            line = record.position().map_or(line + 1, |p| p.line() as usize);
            // A short row would read its missing cells as empty and a long one
            // would lose its extra cells: either way the values land in the
            // wrong columns, or in none.
            if record.len() != header.len() {
                return Err(format!(
                    "line {line}: expected {} fields, as in the header, found {} \
                     (a comma missing or too many, or a quote left open?)",
                    header.len(),
                    record.len()
                ));
            }
            let field = |k: usize| record.get(k).unwrap_or(b"");
            let text = |k: usize| String::from_utf8_lossy(field(k)).into_owned();
            let num = |k: usize| -> Result<f64, String> {
                std::str::from_utf8(field(k))
                    .ok()
                    .and_then(|s| s.trim().parse::<f64>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        format!("line {line}: `{}` in column `{}` is not a finite number", text(k), header[k])
                    })
            };
            let whole = |k: usize| -> Result<u64, String> {
                std::str::from_utf8(field(k)).ok().and_then(|s| s.trim().parse::<u64>().ok()).ok_or_else(|| {
                    format!("line {line}: `{}` in column `{}` is not a whole number", text(k), header[k])
                })
            };
            let frame = whole(c.frame)?;
            if frame > FRAME_MARGIN + FRAMES_PER_ROW * out.id.len() as u64 {
                return Err(format!(
                    "line {line}: frame {frame} is implausibly large for a trace of {} rows so far",
                    out.id.len()
                ));
            }
            let id = whole(c.id)?;
            let id = u32::try_from(id)
                .ok()
                .filter(|&i| i != NONE)
                .ok_or_else(|| format!("line {line}: id {id} is too large"))?;
            let t = num(c.t)?;
            let current = out.frames.len() as u64;
            if current > 0 && frame + 1 < current {
                return Err(format!("line {line}: frame {frame} comes after frame {}", current - 1));
            }
            while (out.frames.len() as u64) <= frame {
                let start = out.id.len();
                out.frames.push(FrameSpan { t: 0.0, rows: start..start });
                frame_t.push(None);
            }
            let f = frame as usize;
            match frame_t[f] {
                None => {
                    if let Some((before, t_before)) = last_timed.filter(|&(_, tb)| t < tb) {
                        return Err(format!(
                            "line {line}: frame {frame} has t = {t}, earlier than t = {t_before} in frame {before}"
                        ));
                    }
                    frame_t[f] = Some(t);
                    last_timed = Some((frame, t));
                }
                Some(t0) if (t0 - t).abs() > 1e-9 * t0.abs().max(1.0) => {
                    return Err(format!("line {line}: t = {t} differs from t = {t0} earlier in frame {frame}"));
                }
                Some(_) => {}
            }
            if !out.frames[f].rows.is_empty() && out.id.last().is_some_and(|&last| last >= id) {
                return Err(format!("line {line}: id {id} is out of order (or repeated) within frame {frame}"));
            }
            out.id.push(id);
            out.frame.push(frame as u32);
            out.pos.push(Vec2::new(num(c.x)?, num(c.y)?));
            if let Some((vx, vy)) = c.vel {
                out.vel.push(Vec2::new(num(vx)?, num(vy)?));
            }
            if let Some((ox, oy)) = c.ori {
                out.ori.push(Vec2::new(num(ox)?, num(oy)?));
            }
            out.population.push(match c.population.map(field) {
                None => 0,
                // Every agent belongs to a population; an empty name would be
                // measured and drawn as a population of its own.
                Some(b"") => return Err(format!("line {line}: the `population` cell is empty")),
                Some(name) => pops.get(name),
            });
            out.group.push(match c.group.map(field) {
                None | Some(b"") => NONE,
                Some(g) => {
                    std::str::from_utf8(g).ok().and_then(|s| s.parse::<u32>().ok()).filter(|&g| g != NONE).ok_or_else(
                        || format!("line {line}: group `{}` is not a whole number", String::from_utf8_lossy(g)),
                    )?
                }
            });
            out.state.push(c.state.map_or(NONE, |k| states.get(field(k))));
            out.goal.push(match c.goal.map(field) {
                None | Some(b"") => NONE,
                Some(g) => goals.get(g),
            });
            if let Some(k) = c.formation {
                out.formation.push(match field(k) {
                    b"" => NONE,
                    name => crate::ir::FormationKind::from_name(name).map(|k| k.index()).ok_or_else(|| {
                        let known = crate::ir::FormationKind::ALL.map(|k| k.name()).join(", ");
                        format!(
                            "line {line}: `{}` in column `formation` is not a formation ({known}, or empty)",
                            text(k)
                        )
                    })?,
                });
            }
            if let Some(k) = c.radius {
                let r = num(k)?;
                if r < 0.0 {
                    return Err(format!("line {line}: radius {r} is negative"));
                }
                radius.push(r);
            }
            out.frames[f].rows.end = out.id.len();
        }
        if c.population.is_none() {
            pops.get(b"everyone");
        }
        out.populations = pops.names;
        out.states = states.names;
        out.goals = goals.names;
        out.radius = c.radius.map(|_| radius);
        out.interval = interval(&frame_t)?;
        let (first, t_first) = frame_t.iter().enumerate().find_map(|(k, t)| t.map(|t| (k, t))).unwrap_or((0, 0.0));
        for (k, f) in out.frames.iter_mut().enumerate() {
            f.t = frame_t[k].unwrap_or(t_first + (k as f64 - first as f64) * out.interval);
        }
        out.tracks = Tracks::build(&out.id);
        if c.vel.is_none() {
            out.vel = out.derived_velocity();
        }
        if c.ori.is_none() {
            out.ori = out.derived_orientation();
        }
        Ok(out)
    }

    pub fn rows(&self) -> usize {
        self.id.len()
    }

    /// The rows of frame `k`.
    pub fn frame_rows(&self, k: usize) -> Range<usize> {
        self.frames[k].rows.clone()
    }

    /// The index of the frame of `row`.
    pub fn frame_of(&self, row: usize) -> usize {
        self.frame[row] as usize
    }

    pub fn has_column(&self, name: &str) -> bool {
        self.header.iter().any(|h| h == name)
    }

    /// Frames per second (0 for a one-frame trace).
    pub fn frame_rate(&self) -> f64 {
        if self.interval > 0.0 {
            1.0 / self.interval
        } else {
            0.0
        }
    }

    /// The first frame at or after time `t`, s.
    pub fn frame_at_or_after(&self, t: f64) -> usize {
        self.frames.partition_point(|f| f.t < t - 1e-9)
    }

    /// The last frame at or before time `t`, s.
    pub fn frame_at_or_before(&self, t: f64) -> Option<usize> {
        self.frames.partition_point(|f| f.t <= t + 1e-9).checked_sub(1)
    }

    fn derived_velocity(&self) -> Vec<Vec2> {
        let mut vel = vec![Vec2::ZERO; self.rows()];
        for k in 0..self.tracks.len() {
            for w in self.tracks.rows(k).windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let dt = self.frames[self.frame_of(b)].t - self.frames[self.frame_of(a)].t;
                if dt > 0.0 {
                    vel[b] = (self.pos[b] - self.pos[a]) / dt;
                }
            }
        }
        vel
    }

    fn derived_orientation(&self) -> Vec<Vec2> {
        let mut ori = vec![Vec2::X; self.rows()];
        for k in 0..self.tracks.len() {
            let mut last = Vec2::X;
            for &r in self.tracks.rows(k) {
                let r = r as usize;
                if self.vel[r].length_squared() > 0.0 {
                    last = self.vel[r].normalize();
                }
                ori[r] = last;
            }
        }
        ori
    }
}

/// The frame interval from the frames that have rows: the time between the
/// first two over the frames between them.
fn interval(frame_t: &[Option<f64>]) -> Result<f64, String> {
    let mut known = frame_t.iter().enumerate().filter_map(|(k, t)| t.map(|t| (k, t)));
    let Some((a, ta)) = known.next() else { return Ok(0.0) };
    let Some((b, tb)) = known.next() else { return Ok(0.0) };
    let dt = (tb - ta) / (b - a) as f64;
    if dt.is_finite() && dt > 0.0 {
        Ok(dt)
    } else {
        Err(format!("time does not increase from frame {a} (t = {ta}) to frame {b} (t = {tb})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_minimal_trace_and_derives_velocity() {
        let csv = "id,frame,t,x,y\n0,0,0,0,0\n1,0,0,5,5\n0,1,0.5,1,0\n0,3,1.5,2,0\n";
        let t = Trace::parse(csv.as_bytes()).unwrap();
        assert_eq!(t.frames.len(), 4);
        assert_eq!(t.interval, 0.5);
        assert_eq!(t.frames[2].t, 1.0);
        assert!(t.frames[2].rows.is_empty());
        assert_eq!(t.vel[2], Vec2::new(2.0, 0.0));
        // Frame 1 to frame 3: 1 m in 1 s.
        assert_eq!(t.vel[3], Vec2::new(1.0, 0.0));
        assert_eq!(t.tracks.id, vec![0, 1]);
        assert_eq!(t.tracks.rows(0), &[0, 2, 3]);
        assert_eq!(t.populations, vec!["everyone".to_string()]);
    }

    #[test]
    fn bad_traces_are_clear_errors() {
        let err = |s: &str| Trace::parse(s.as_bytes()).unwrap_err();
        assert!(err("").contains("empty"));
        assert!(err("id,frame,t,x,y\n").contains("no rows"));
        assert!(err("id,frame,t,x\n0,0,0,1\n").contains("no `y` column"));
        assert!(err("id,frame,t,x,y\n0,0,0,abc,1\n").contains("line 2"));
        assert!(err("id,frame,t,x,y\n0,0,0,NaN,1\n").contains("finite"));
        assert!(err("id,frame,t,x,y\n1,0,0,0,1\n0,0,0,0,1\n").contains("out of order"));
        assert!(err("id,frame,t,x,y\n0,1,1,0,1\n0,0,0,0,1\n").contains("comes after"));
        assert!(err("id,frame,t,x,y,vx\n0,0,0,0,1,1\n").contains("no `vy`"));
        assert!(err("id,frame,t,x,y\n0,0,0,0,1\n1,0,0,0\n")
            .contains("line 3: expected 5 fields, as in the header, found 4"));
        assert!(err("id,frame,t,x,y\n0,0,0,0,1,7\n").contains("line 2: expected 5 fields, as in the header, found 6"));
        assert!(err("id,frame,t,x,y\n0,0,0,\"0,1\n1,0,0,0,1\n").contains("line 2: expected 5 fields"));
        assert!(err("id,frame,t,x,y,x\n0,0,0,0,1,2\n").contains("column `x` twice (columns 4 and 6)"));
        assert!(err("id,frame,t,x,y\n0,0,0,0,1\n0,1,1,0,1\n0,2,0.5,0,1\n")
            .contains("line 4: frame 2 has t = 0.5, earlier than t = 1 in frame 1"));
        assert!(err("id,frame,t,x,y,population\n0,0,0,0,1,\n").contains("line 2: the `population` cell is empty"));
        assert!(err("id,frame,t,x,y,formation\n0,0,0,0,1,vee\n").contains("line 2: `vee` in column `formation`"));
    }

    #[test]
    fn frames_may_repeat_a_rounded_time_and_formations_may_be_empty() {
        // `--precision 0` with frames 0.6 s apart: 0, 1, 1, 2.
        let csv = "id,frame,t,x,y,formation\n0,0,0,0,0,\n0,1,1,1,0,v\n0,2,1,2,0,river\n0,3,2,3,0,side_by_side\n";
        let t = Trace::parse(csv.as_bytes()).unwrap();
        assert_eq!(t.formation[0], NONE);
        assert_eq!(t.formation[1], crate::ir::FormationKind::V.index());
    }
}
