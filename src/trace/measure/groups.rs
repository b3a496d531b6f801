//! Groups: cohesion (distance to the group's centroid) and formation error.
//!
//! A group is the agents sharing a trace `group` number in a frame; groups
//! with fewer than two members alive in a frame are skipped in that frame.

use crate::behave::formations;
use crate::behave::groups::{slots, Layout};
use crate::ir::{Formation, FormationKind, GroupId, Program, Vec2};
use crate::trace::frame::NONE;
use crate::trace::metrics::MOVING;

use super::load::Trace;

/// Distance between neighbouring slots of the side-by-side, V and river
/// templates, m: the executor's default spacing, so a group on its slots
/// measures no error.
pub const FORMATION_SPACING: f64 = crate::behave::groups::SPACING;
/// Above this many members, slots are assigned greedily instead of by trying every permutation.
const EXACT_ASSIGNMENT: usize = 7;

/// The rows of a frame that belong to a group, as `(group, rows)` by increasing group number.
pub fn frame_groups(trace: &Trace, frame: usize) -> Vec<(u32, Vec<usize>)> {
    let mut rows: Vec<usize> = trace.frame_rows(frame).filter(|&r| trace.group[r] != NONE).collect();
    rows.sort_by_key(|&r| (trace.group[r], r));
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for r in rows {
        match out.last_mut() {
            Some((g, members)) if *g == trace.group[r] => members.push(r),
            _ => out.push((trace.group[r], vec![r])),
        }
    }
    out.retain(|(_, m)| m.len() >= 2);
    out
}

fn centroid(points: &[Vec2]) -> Vec2 {
    points.iter().copied().sum::<Vec2>() / points.len() as f64
}

/// Mean and largest distance of the points to their centroid, m, and the
/// index of the first point at the largest distance.
pub fn cohesion(points: &[Vec2]) -> (f64, f64, usize) {
    let c = centroid(points);
    let d: Vec<f64> = points.iter().map(|p| p.distance(c)).collect();
    let far = d.iter().copied().fold(0.0, f64::max);
    let at = d.iter().position(|&x| x == far).unwrap_or(0);
    (d.iter().sum::<f64>() / d.len() as f64, far, at)
}

/// Slot points of a formation for `n` members, relative to the group centre:
/// x along the walking direction, y to its left, m: the executor's own
/// (`behave::formations`). `None` for `auto` (the executor picks one per
/// step: see [`kind_in_frame`]).
pub fn template(formation: &Formation, n: usize, layout: &Layout) -> Option<Vec<Vec2>> {
    formations::points(formation, n, layout)
}

/// The formation the trace's `formation` column gives a group's members in
/// one frame, when they all give the same one.
pub fn kind_in_frame(trace: &Trace, rows: &[usize]) -> Option<FormationKind> {
    let first = *trace.formation.get(*rows.first()?)?;
    rows.iter().all(|&r| trace.formation.get(r) == Some(&first)).then(|| FormationKind::from_index(first)).flatten()
}

/// Mean distance between the members (relative to their centroid, in the
/// frame of `heading`) and the template's slots, under the best assignment
/// of members to slots, m.
pub fn formation_error(members: &[Vec2], heading: Vec2, slots: &[Vec2]) -> f64 {
    let c = centroid(members);
    let f = heading.normalize_or_zero();
    let left = Vec2::new(-f.y, f.x);
    let local: Vec<Vec2> = members.iter().map(|p| Vec2::new((*p - c).dot(f), (*p - c).dot(left))).collect();
    let n = local.len();
    let cost = |assign: &[usize]| -> f64 { (0..n).map(|i| local[i].distance(slots[assign[i]])).sum::<f64>() };
    let mut assign: Vec<usize> = (0..n).collect();
    let best = if n <= EXACT_ASSIGNMENT {
        let mut best = f64::INFINITY;
        permute(&mut assign, 0, &mut |a| best = best.min(cost(a)));
        best
    } else {
        // Greedy: each member in turn takes its nearest free slot.
        let mut free: Vec<bool> = vec![true; slots.len()];
        let mut total = 0.0;
        for p in &local {
            let (k, d) = slots
                .iter()
                .enumerate()
                .filter(|(k, _)| free[*k])
                .map(|(k, s)| (k, p.distance(*s)))
                .fold((usize::MAX, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
            free[k] = false;
            total += d;
        }
        total
    };
    best / n as f64
}

fn permute(a: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == a.len() {
        f(a);
        return;
    }
    for i in k..a.len() {
        a.swap(k, i);
        permute(a, k + 1, f);
        a.swap(k, i);
    }
}

/// The formation each trace group number is declared to keep: explicit
/// groups (numbered from 0 in declaration order) with a formation, and the
/// procedural groups of populations with one. Sorted by group number.
pub fn declared(trace: &Trace, program: &Program) -> Vec<(u32, Formation, Layout)> {
    let mut out: Vec<(u32, Formation, Layout)> = Vec::new();
    let explicit = program.groups.len() as u32;
    let layout = Layout::new(FORMATION_SPACING, program.params.semantic_groups.v_angle);
    for k in 0..program.groups.len() {
        if let Some((f, layout)) = declared_by_group(program, GroupId(k as u32)) {
            out.push((k as u32, f, layout));
        }
    }
    for r in 0..trace.rows() {
        let g = trace.group[r];
        if g == NONE || g < explicit || out.iter().any(|(n, ..)| *n == g) {
            continue;
        }
        let name = &trace.populations[trace.population[r] as usize];
        if let Some(f) = program.populations.iter().find(|p| &p.name == name).and_then(|p| p.formation.clone()) {
            out.push((g, f, layout));
        }
    }
    out.sort_by_key(|(g, ..)| *g);
    out
}

/// The formation explicit group `g` (trace group number `g`) declares, and
/// the layout its slots are measured with; `None` when it declares none.
pub fn declared_by_group(program: &Program, g: GroupId) -> Option<(Formation, Layout)> {
    let group = program.groups.get(g.index())?;
    let formation = group.formation.clone()?;
    let v_angle = program.params.semantic_groups.v_angle;
    // A group on a group map keeps the BVP model's shapes and spacing.
    Some((
        formation,
        match group.group_map {
            Some(_) => Layout::on_map(program.params.bvp.spacing, v_angle),
            None => Layout::new(FORMATION_SPACING, v_angle),
        },
    ))
}

/// Why a group has no formation error in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoFormationError {
    /// It declares no formation.
    Undeclared,
    /// Its members' mean velocity is at most [`MOVING`]: it has no walking direction.
    Standing,
    /// It keeps `auto`, and the trace's `formation` column does not give all
    /// its members one formation (or the trace has no such column).
    Unknown,
}

/// One group's measures in one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Measures {
    /// The members' mean distance to their centroid, m.
    pub cohesion: f64,
    /// The largest member-centroid distance, m.
    pub spread: f64,
    /// The row of the first member at that distance.
    pub farthest: usize,
    /// The members' mean velocity, m/s: the walking direction.
    pub heading: Vec2,
    /// Against the declared formation's slots, m.
    pub formation_error: Result<f64, NoFormationError>,
}

/// The measures of a group whose rows in one frame are `rows` (two or more,
/// in row order), against `formation` when it declares one. `None` for fewer
/// than two members: a group of one has no centroid to measure against.
pub fn measure(trace: &Trace, rows: &[usize], formation: Option<(&Formation, &Layout)>) -> Option<Measures> {
    if rows.len() < 2 {
        return None;
    }
    let pts: Vec<Vec2> = rows.iter().map(|&r| trace.pos[r]).collect();
    let (cohesion, spread, far) = cohesion(&pts);
    let heading = rows.iter().map(|&r| trace.vel[r]).sum::<Vec2>() / rows.len() as f64;
    let formation_error = match formation {
        None => Err(NoFormationError::Undeclared),
        Some(_) if heading.length() <= MOVING => Err(NoFormationError::Standing),
        Some((declared, layout)) => {
            let slots = match declared {
                Formation::Auto => kind_in_frame(trace, rows).map(|kind| slots(kind, pts.len(), layout)),
                _ => template(declared, pts.len(), layout),
            };
            slots.map(|s| formation_error(&pts, heading, &s)).ok_or(NoFormationError::Unknown)
        }
    };
    Some(Measures { cohesion, spread, farthest: rows[far], heading, formation_error })
}

/// A group's reserved core in one frame (Hocevar et al., Eqs 1–2 and
/// section 3.3), measured from its definition here rather than with the
/// executor's own code, so that a fault there cannot hide an entry from
/// the claim that looks for one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Core {
    /// The trace group number.
    pub group: u32,
    /// `C`, the members' centroid.
    pub centre: Vec2,
    /// The core's radius, m: `fraction` of the group space's radius.
    pub radius: f64,
}

impl Core {
    /// How far `p` lies outside the core, m (negative inside).
    pub fn margin(&self, p: Vec2) -> f64 {
        p.distance(self.centre) - self.radius
    }
}

/// The core of the group whose members stand at `pos` with body radii
/// `radius`, or `None` when it is no group space: fewer than two members,
/// or a pair of them farther apart than Hall's `social` distance (section
/// 3.2). The space reaches from the centroid to the member farthest from it
/// plus that member's body (Eqs 1–2); the core is `fraction` of it, clamped
/// to 0–100%.
pub fn core(group: u32, pos: &[Vec2], radius: &[f64], social: f64, fraction: f64) -> Option<Core> {
    let apart = |a: &Vec2| pos.iter().any(|b| a.distance(*b) > social);
    if pos.len() < 2 || pos.iter().any(apart) {
        return None;
    }
    // Eq 1: the member farthest from the centroid; Eq 2: the space's radius.
    let (_, far, at) = cohesion(pos);
    let space = far + radius[at];
    Some(Core { group, centre: centroid(pos), radius: fraction.clamp(0.0, 1.0) * space })
}

/// Per-frame group measures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupFrame {
    /// Mean over groups of the members' mean distance to their centroid, m.
    pub cohesion: Option<f64>,
    /// The largest member-centroid distance, m.
    pub spread: Option<f64>,
    /// Mean formation error over the groups with a declared formation that are walking, m.
    pub formation_error: Option<f64>,
}

/// Cohesion and formation error in every frame, each group measured by
/// [`measure`]. `formations` from [`declared`].
pub fn per_frame(trace: &Trace, formations: &[(u32, Formation, Layout)]) -> Vec<GroupFrame> {
    (0..trace.frames.len())
        .map(|f| {
            let groups = frame_groups(trace, f);
            let mut out = GroupFrame::default();
            if groups.is_empty() {
                return out;
            }
            let (mut sum, mut max, mut err, mut n_err) = (0.0, 0.0f64, 0.0, 0u32);
            for (g, rows) in &groups {
                let formation = formations.binary_search_by_key(g, |(n, ..)| *n).ok().map(|k| &formations[k]);
                let Some(m) = measure(trace, rows, formation.map(|(_, f, l)| (f, l))) else { continue };
                sum += m.cohesion;
                max = max.max(m.spread);
                if let Ok(e) = m.formation_error {
                    err += e;
                    n_err += 1;
                }
            }
            out.cohesion = Some(sum / groups.len() as f64);
            out.spread = Some(max);
            out.formation_error = (n_err > 0).then(|| err / f64::from(n_err));
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_line_abreast_has_no_error() {
        let slots = template(&Formation::SideBySide, 3, &Layout::new(FORMATION_SPACING, 1.0)).unwrap();
        // Walking along +y: side by side means spread along x (to the right is -x... any order).
        let members = [Vec2::new(10.8, 5.0), Vec2::new(10.0, 5.0), Vec2::new(9.2, 5.0)];
        let e = formation_error(&members, Vec2::new(0.0, 1.0), &slots);
        assert!(e < 1e-12, "{e}");
        // A river (single file) walking along +y is not side by side.
        let file = [Vec2::new(10.0, 5.0), Vec2::new(10.0, 5.8), Vec2::new(10.0, 6.6)];
        assert!(formation_error(&file, Vec2::new(0.0, 1.0), &slots) > 0.3);
        let river = template(&Formation::River, 3, &Layout::new(FORMATION_SPACING, 1.0)).unwrap();
        assert!(formation_error(&file, Vec2::new(0.0, 1.0), &river) < 1e-12);
    }

    #[test]
    fn a_group_on_the_executors_v_slots_has_no_error() {
        let angle = std::f64::consts::FRAC_PI_4;
        let heading = Vec2::new(0.6, 0.8);
        let layout = Layout::new(FORMATION_SPACING, angle);
        let members = crate::behave::groups::slot_positions(FormationKind::V, 3, &layout, Vec2::new(4.0, 2.0), heading);
        let v = template(&Formation::V, 3, &layout).unwrap();
        assert!(formation_error(&members, heading, &v) < 1e-12);
        // The same V walked backwards (its middle member ahead) is another shape.
        assert!(formation_error(&members, -heading, &v) > 0.3);
    }

    #[test]
    fn a_core_by_hand() {
        let (a, b) = (Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0));
        // C = (1, 0); both members 1 m from it: the first is A_f, with its 0.2 m body.
        let c = core(7, &[a, b], &[0.2, 0.3], 3.6, 0.5).unwrap();
        assert_eq!((c.group, c.centre), (7, Vec2::new(1.0, 0.0)));
        assert!((c.radius - 0.6).abs() < 1e-12);
        assert!((c.margin(Vec2::new(1.0, 1.0)) - 0.4).abs() < 1e-12);
        // Farther apart than the social distance, or alone: no group space.
        assert_eq!(core(7, &[a, Vec2::new(5.0, 0.0)], &[0.2, 0.3], 3.6, 0.5), None);
        assert_eq!(core(7, &[a], &[0.2], 3.6, 0.5), None);
        // The fraction is clamped to the whole space.
        assert!((core(7, &[a, b], &[0.2, 0.3], 3.6, 2.0).unwrap().radius - 1.2).abs() < 1e-12);
    }

    #[test]
    fn cohesion_is_the_distance_to_the_centroid() {
        let (mean, far, at) = cohesion(&[Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0)]);
        assert_eq!((mean, far, at), (1.0, 1.0, 0));
    }
}
