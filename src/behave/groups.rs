//! Procedural groups (Hocevar et al., sections 3.2–3.3): the group space
//! (Eqs 1–2) and its reserved core, the side-by-side, V and river
//! formations with the speed rule that keeps them, and the regions of
//! interest (ROI) that choose a formation from the free space ahead.
//!
//! Conventions and invariants:
//! - a formation's local frame has x along the heading (the unit direction
//!   from the group centre `C` to the next goal) and y to its left; slots are
//!   offsets from `C` in that frame whose centroid is the origin, so a group
//!   standing on its slots has its centroid at `C`;
//! - no two slots of a formation are closer than the layout's spacing;
//! - everything here is a pure function of its arguments (no randomness);
//!   ties are broken by index, never by a hash order; no input panics:
//!   non-finite or empty input gives `None`, a neutral factor or a
//!   documented fallback.

use crate::ir::params::SemanticGroups;
use crate::ir::{FormationKind, Vec2};
use crate::math;
use crate::world::geometry::segment_to_shape;
use crate::world::geometry::{bounding_box, segment_distance};
use crate::world::walkable::Walkable;

/// Default distance between neighbouring members, m: the slot spacing the
/// trace metrics use for side-by-side, V and river, so a group on its
/// slots measures a zero formation error.
pub const SPACING: f64 = 0.8;
/// Largest relative speed change of the formation-keeping rule: a member
/// one spacing (or more) off its slot walks 25% faster or slower. The paper
/// gives the rule's direction only; 25% lets a member at 1.3 m/s catch up
/// a spacing of 0.8 m in about 2.5 s, a few strides.
pub const SPEED_GAIN: f64 = 0.25;
/// How far ahead the ROI looks, in seconds of walking (see [`roi_depth`]).
/// Two seconds give a group at 1.3 m/s about 2.6 m to file into a river
/// before its centre reaches a narrow door.
pub const ROI_HORIZON: f64 = 2.0;
/// The smallest V angle [`Layout`] accepts, rad (10°): at 0° both wings
/// would stand on the heading line, on top of each other.
pub const MIN_V_ANGLE: f64 = std::f64::consts::PI / 18.0;

/// A group's space (Hocevar et al., Fig 1b): the circle that holds its members.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupSpace {
    /// `C`, the members' centroid.
    pub centre: Vec2,
    /// `R_g`, m.
    pub radius: f64,
    /// `A_f`: the index of the member farthest from `C` (ties: the lower index).
    pub farthest: usize,
}

/// The group space of members at `positions` with body radii `radii`, or
/// `None` when there are no members, the lengths differ, or a value is not
/// finite (or a radius is negative).
///
/// Eq 2 is followed literally: the farthest member's distance plus *its*
/// radius, even if a nearer member with a larger body reaches further out
/// (by at most the difference of two body radii).
pub fn group_space(positions: &[Vec2], radii: &[f64]) -> Option<GroupSpace> {
    if positions.is_empty() || positions.len() != radii.len() {
        return None;
    }
    if !positions.iter().all(|p| p.is_finite()) || !radii.iter().all(|r| r.is_finite() && *r >= 0.0) {
        return None;
    }
    let centre = positions.iter().fold(Vec2::ZERO, |s, p| s + *p) / positions.len() as f64;
    // Hocevar et al., Eq 1: A_f = argmax_i dist(A_i, C).
    let mut farthest = 0;
    let mut far2 = positions[0].distance_squared(centre);
    for (i, p) in positions.iter().enumerate().skip(1) {
        let d2 = p.distance_squared(centre);
        if d2 > far2 {
            (farthest, far2) = (i, d2);
        }
    }
    // Hocevar et al., Eq 2: R_g = dist(A_{A_f}, C) + R_{A_f}.
    let radius = far2.sqrt() + radii[farthest];
    Some(GroupSpace { centre, radius, farthest })
}

impl GroupSpace {
    /// The radius of the reserved core, "a small region inside group space
    /// where the markers cannot be used for agents from a different group"
    /// (Hocevar et al., section 3.3): `fraction` (the language's
    /// `semantic_groups.core`, 50% by default) of `R_g`, clamped to 0–100%.
    ///
    /// Why half: for a pair at spacing `s` with bodies of radius `r`, the gap
    /// between the two bodies reaches `s/2 − r` from `C` and the core
    /// `(s/2 + r)/2`, which covers the gap whenever `r ≥ s/6` (0.13 m at
    /// 0.8 m spacing, thinner than any person): nobody is routed between two
    /// members, while the core keeps to a quarter of the group space's
    /// area, so another group can still pass close by.
    pub fn core_radius(&self, fraction: f64) -> f64 {
        let f = if fraction >= 0.0 { fraction.min(1.0) } else { 0.0 };
        f * self.radius
    }

    /// Whether `p` lies in the reserved core (boundary included; an empty
    /// core holds nothing).
    pub fn in_core(&self, p: Vec2, fraction: f64) -> bool {
        let r = self.core_radius(fraction);
        r > 0.0 && p.distance_squared(self.centre) <= r * r
    }
}

/// Whether agents at `positions` may form one group: every pair is within
/// Hall's social distance `social` (Hocevar et al., section 3.2: "When the
/// distance between 2 members of G_i is into a range defined by Hall's
/// social distance, one group G is formed").
pub fn forms_group(positions: &[Vec2], social: f64) -> bool {
    let s2 = social * social;
    positions.iter().enumerate().all(|(i, p)| positions[i + 1..].iter().all(|q| p.distance_squared(*q) <= s2))
}

/// The unit direction from `from` to `to`, `None` when they coincide or a
/// value is not finite.
pub fn heading(from: Vec2, to: Vec2) -> Option<Vec2> {
    let d = to - from;
    let len = d.length();
    (len > 0.0 && len.is_finite()).then(|| d / len)
}

/// The angle θ ∈ [0, π] between `C → member` and `C → goal` that the
/// paper's formation rules test, `None` when either vector is zero.
pub fn goal_angle(centre: Vec2, member: Vec2, goal: Vec2) -> Option<f64> {
    let (a, b) = (heading(centre, member)?, heading(centre, goal)?);
    Some(math::atan2(a.perp_dot(b).abs(), a.dot(b)))
}

/// The geometry shared by the formations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    spacing: f64,
    v_angle: f64,
    /// A V with its point ahead (a BVP group map's, Silveira et al. Fig 4c),
    /// rather than opening forward.
    wedge: bool,
}

impl Default for Layout {
    fn default() -> Layout {
        Layout { spacing: SPACING, v_angle: SemanticGroups::default().v_angle, wedge: false }
    }
}

impl Layout {
    /// `spacing`: the smallest distance between two members' slots, m (not a
    /// positive number: [`SPACING`]); `v_angle`: the V's wing angle, rad,
    /// `semantic_groups.v_angle` (clamped to [`MIN_V_ANGLE`]..=π/2; NaN: its default).
    pub fn new(spacing: f64, v_angle: f64) -> Layout {
        let spacing = if spacing.is_finite() && spacing > 0.0 { spacing } else { SPACING };
        let v_angle = if v_angle.is_nan() {
            SemanticGroups::default().v_angle
        } else {
            v_angle.clamp(MIN_V_ANGLE, std::f64::consts::FRAC_PI_2)
        };
        Layout { spacing, v_angle, wedge: false }
    }

    /// The layout of formations on a BVP group map: a V is a wedge.
    pub fn on_map(spacing: f64, v_angle: f64) -> Layout {
        Layout { wedge: true, ..Layout::new(spacing, v_angle) }
    }

    pub fn spacing(&self) -> f64 {
        self.spacing
    }

    pub fn v_angle(&self) -> f64 {
        self.v_angle
    }

    pub fn wedge(&self) -> bool {
        self.wedge
    }
}

/// The slots of an `n`-member formation in the local frame (see the module
/// conventions), centroid at the origin.
///
/// - Side by side: abreast on the line through `C` perpendicular to the
///   heading, `spacing` apart, left to right (Hocevar et al.: "aligned and
///   perpendicularly placed given their goal").
/// - V: the paper asks that the angle between `C → member` and `C → goal`
///   be about 45° (the layout's V angle α); following Moussaïd et al.
///   (2010), whom the paper cites, the V opens forward, its middle member
///   behind. Three members: the wings at `(d cos α, ±d sin α)`, the middle
///   at `(−2d cos α, 0)`, `d` the largest distance keeping every pair
///   `spacing` apart; two members: one at angle α ahead-left, the other
///   mirrored through `C` (at π − α), `spacing` apart; more members (not
///   in the paper, whose groups stop at 3): further ranks repeat the
///   three-member arms. Order: left wing, middle, right wing, then further
///   ranks.
/// - River: single file on the heading line, `spacing` apart, front first.
///   In the paper the river emerges from members following each other;
///   these slots are where that settles (see [`river_targets`]).
pub fn slots(kind: FormationKind, n: usize, layout: &Layout) -> Vec<Vec2> {
    let s = layout.spacing;
    let mid = (n as f64 - 1.0) / 2.0;
    match kind {
        FormationKind::SideBySide => (0..n).map(|k| Vec2::new(0.0, (mid - k as f64) * s)).collect(),
        FormationKind::River => (0..n).map(|k| Vec2::new((mid - k as f64) * s, 0.0)).collect(),
        FormationKind::V => v_slots(n, layout),
    }
}

fn v_slots(n: usize, layout: &Layout) -> Vec<Vec2> {
    let (s, a) = (layout.spacing, layout.v_angle);
    let (sin, cos) = (math::sin(a), math::cos(a));
    match n {
        0 => Vec::new(),
        1 => vec![Vec2::ZERO],
        2 => {
            let p = Vec2::new(cos, sin) * (s / 2.0);
            vec![p, -p]
        }
        _ => {
            // Three members: wings apart 2d·sin α, each wing from the middle
            // d·√(9cos²α + sin²α); the nearer pair sets d.
            let d = s / (2.0 * sin).min((9.0 * cos * cos + sin * sin).sqrt());
            let arm = Vec2::new(3.0 * d * cos, d * sin);
            // From the middle member: ranks of wings along both arms.
            let mut pts = vec![Vec2::ZERO; n];
            for (k, p) in pts.iter_mut().enumerate().skip(1) {
                let rank = k.div_ceil(2) as f64;
                let side = if k % 2 == 1 { 1.0 } else { -1.0 };
                *p = Vec2::new(arm.x * rank, arm.y * rank * side);
            }
            let centroid = pts.iter().fold(Vec2::ZERO, |a, p| a + *p) / n as f64;
            for p in &mut pts {
                *p -= centroid;
            }
            // Left wing, middle, right wing, then the further ranks.
            pts.swap(0, 1);
            pts
        }
    }
}

/// A local-frame offset placed at `centre` with the unit `heading`.
pub fn to_world(centre: Vec2, heading: Vec2, local: Vec2) -> Vec2 {
    centre + heading * local.x + heading.perp() * local.y
}

/// The world positions of the slots of an `n`-member formation at `centre`
/// walking along the unit `heading`: the tests' picture of a formation (the
/// executor keeps each slot's local offset too, for Hocevar's speed factor).
#[cfg(test)]
pub fn slot_positions(kind: FormationKind, n: usize, layout: &Layout, centre: Vec2, heading: Vec2) -> Vec<Vec2> {
    slots(kind, n, layout).into_iter().map(|l| to_world(centre, heading, l)).collect()
}

/// Which slot each member takes: `result[i]` is member `i`'s index into
/// `targets`. With equal counts up to six, the assignment with the least
/// total squared distance (ties: the first in lexicographic order);
/// otherwise each member in turn takes the nearest free target (ties: the
/// lower index), and members left without one get `usize::MAX`.
pub fn assign_slots(members: &[Vec2], targets: &[Vec2]) -> Vec<usize> {
    let n = members.len();
    if n == targets.len() && n <= 6 {
        let cost = |perm: &[usize]| {
            perm.iter().enumerate().map(|(i, &t)| members[i].distance_squared(targets[t])).sum::<f64>()
        };
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best = perm.clone();
        let mut best_cost = cost(&perm);
        while next_permutation(&mut perm) {
            let c = cost(&perm);
            if c < best_cost {
                (best, best_cost) = (perm.clone(), c);
            }
        }
        return best;
    }
    let mut taken = vec![false; targets.len()];
    members
        .iter()
        .map(|m| {
            let mut pick: Option<(f64, usize)> = None;
            for (t, q) in targets.iter().enumerate() {
                let d2 = m.distance_squared(*q);
                if !taken[t] && pick.is_none_or(|(b, _)| d2 < b) {
                    pick = Some((d2, t));
                }
            }
            pick.map_or(usize::MAX, |(_, t)| {
                taken[t] = true;
                t
            })
        })
        .collect()
}

/// The next permutation in lexicographic order, `false` after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else { return false };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// A member's speed multiplier for keeping formation, from how far `ahead`
/// of its slot it is along the heading, m (negative: behind): behind walks
/// faster, ahead slower, linearly up to ±[`SPEED_GAIN`] at one `spacing`
/// off. A non-finite `ahead` gives 1.
pub fn speed_factor(ahead: f64, spacing: f64) -> f64 {
    if !ahead.is_finite() {
        return 1.0;
    }
    let s = if spacing.is_finite() && spacing > 0.0 { spacing } else { SPACING };
    1.0 - SPEED_GAIN * (ahead / s).clamp(-1.0, 1.0)
}

/// The side-by-side speed rule (Hocevar et al., section 3.3: "When angle
/// between these two vectors is greater than 90° we increase the agent
/// speed. For angles smaller than 90°, we decrease the agent speed"): the
/// [`speed_factor`] of `|C → member| cos θ`, θ the [`goal_angle`], which is
/// positive below 90° and negative above, and fades to 1 as the member
/// reaches the line abreast. 1 when `C` is at the goal.
pub fn side_by_side_speed_factor(centre: Vec2, member: Vec2, goal: Vec2, spacing: f64) -> f64 {
    match heading(centre, goal) {
        Some(h) => speed_factor((member - centre).dot(h), spacing),
        None => 1.0,
    }
}

/// The same rule for any slot (the paper: "Similar process is performed to
/// obtain V-Formation, however, angles … should be approximately 45°"): the
/// [`speed_factor`] of how far `member` is ahead of its local `slot` along
/// the unit `heading`. For a V wing at its slot's distance from `C`, an
/// angle above the V angle means behind, so faster.
pub fn slot_speed_factor(centre: Vec2, heading: Vec2, member: Vec2, slot: Vec2, spacing: f64) -> f64 {
    speed_factor((member - centre).dot(heading) - slot.x, spacing)
}

/// The members front to back along the unit `heading` (ties: the lower index).
pub fn river_order(members: &[Vec2], heading: Vec2) -> Vec<usize> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&a, &b| members[b].dot(heading).total_cmp(&members[a].dot(heading)).then(a.cmp(&b)));
    order
}

/// The river as the paper has it, emergent, "each follows the one ahead":
/// per member, the point `spacing` behind the member ahead of it along the
/// unit `heading`; `None` for the front member, who follows the path.
pub fn river_targets(members: &[Vec2], heading: Vec2, spacing: f64) -> Vec<Option<Vec2>> {
    let order = river_order(members, heading);
    let mut targets = vec![None; members.len()];
    for w in order.windows(2) {
        targets[w[1]] = Some(members[w[0]] - heading * spacing);
    }
    targets
}

/// A body or a reserved area the ROI test keeps clear of: another agent, or
/// another group's core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    pub centre: Vec2,
    pub radius: f64,
    /// How far it walks on along the group's heading while the group walks
    /// its ROI, m (0: it stays, or comes nearer).
    pub away: f64,
}

/// What the ROI test sees: the obstacles and bounds (`walk`, `None` for
/// open space) and other agents and groups' cores (`others`, the group's
/// own members left out).
#[derive(Clone, Copy, Debug, Default)]
pub struct FreeSpace<'a> {
    pub walk: Option<&'a Walkable>,
    pub others: &'a [Disc],
    /// Where people may walk, when that is less than the open space (the
    /// markers of a semantic environment).
    pub floor: Option<&'a dyn Floor>,
}

/// Walkable floor: where the markers are.
pub trait Floor: std::fmt::Debug + Sync {
    /// Whether the segment `a`–`b` stays on the floor.
    fn holds(&self, a: Vec2, b: Vec2) -> bool;
}

/// Where a group stands and looks: its centre `C`, the unit heading to its
/// next goal, and how far ahead its ROIs reach ([`roi_depth`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ahead {
    pub centre: Vec2,
    pub heading: Vec2,
    pub depth: f64,
}

/// How far ahead of `C` the ROIs reach, m: the group radius or
/// [`ROI_HORIZON`] seconds of walking at `speed`, whichever is more, but
/// not past the end of the path (`remaining`, the path distance left to
/// the final goal), so a goal against a wall does not look like a door.
pub fn roi_depth(group_radius: f64, speed: f64, remaining: f64) -> f64 {
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    finite(group_radius).max(finite(speed) * ROI_HORIZON).min(finite(remaining))
}

/// A formation's region of interest (Hocevar et al., Fig 2: "the minimum
/// area that should exist in the environment for the group performance …
/// computed based on agents positions and their sizes"): the stadium swept
/// by a disc of radius `half_width` from `from` (the group centre) to `to`
/// (`depth` ahead along the heading). `half_width` is the formation's
/// lateral half-extent: its farthest slot from the heading line plus the
/// body radius. The stadium, rather than a rectangle, is what a body
/// sweeps, and it is tested exactly (no sampling).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roi {
    pub from: Vec2,
    pub to: Vec2,
    pub half_width: f64,
}

/// The lateral half-extent of an `n`-member formation of bodies of radius
/// `radius`, m.
pub fn half_width(kind: FormationKind, n: usize, layout: &Layout, radius: f64) -> f64 {
    let r = if radius.is_finite() { radius.max(0.0) } else { 0.0 };
    slots(kind, n, layout).iter().fold(0.0, |m: f64, s| m.max(s.y.abs())) + r
}

impl Roi {
    /// The ROI of formation `kind` for `n` members of body radius `radius`.
    /// A zero or non-finite heading (or depth) gives a disc at `C`.
    pub fn new(kind: FormationKind, n: usize, layout: &Layout, radius: f64, ahead: &Ahead) -> Roi {
        let depth = if ahead.depth.is_finite() { ahead.depth.max(0.0) } else { 0.0 };
        let h = heading(Vec2::ZERO, ahead.heading).unwrap_or(Vec2::ZERO);
        Roi { from: ahead.centre, to: ahead.centre + h * depth, half_width: half_width(kind, n, layout, radius) }
    }

    pub fn width(&self) -> f64 {
        2.0 * self.half_width
    }

    /// Whether the ROI fits the free space: inside the bounds, and no
    /// obstacle or disc of `free` nearer the swept segment than
    /// `half_width` (touching is fine). Not finite: not free.
    pub fn is_free(&self, free: &FreeSpace) -> bool {
        let (a, b, w) = (self.from, self.to, self.half_width);
        if !(a.is_finite() && b.is_finite() && w.is_finite()) {
            return false;
        }
        if let Some(walk) = free.walk {
            // The bounds are convex: the stadium is inside when both end discs are.
            let bounds = walk.bounds();
            let inside = |p: Vec2| {
                p.x - w >= bounds.min.x && p.x + w <= bounds.max.x && p.y - w >= bounds.min.y && p.y + w <= bounds.max.y
            };
            if !(inside(a) && inside(b)) {
                return false;
            }
            let (lo, hi) = (a.min(b) - w, a.max(b) + w);
            for shape in walk.obstacles() {
                let bx = bounding_box(shape);
                if bx.max.x < lo.x || bx.min.x > hi.x || bx.max.y < lo.y || bx.min.y > hi.y {
                    continue;
                }
                let d = segment_to_shape(a, b, shape);
                if d < w || d <= 0.0 {
                    return false;
                }
            }
        }
        if let Some(floor) = free.floor {
            // Both sides of the swept stadium on the floor, as well as its middle.
            let side = (b - a).try_normalize().map_or(Vec2::ZERO, |d| d.perp() * w);
            if !(floor.holds(a, b) && floor.holds(a + side, b + side) && floor.holds(a - side, b - side)) {
                return false;
            }
        }
        // Someone walking on ahead leaves room behind it as the group
        // advances: the group only sweeps the part of its ROI it gains on them.
        let depth = a.distance(b);
        free.others.iter().all(|o| {
            let end = if o.away > 0.0 && depth > 0.0 { a + (b - a) * ((depth - o.away).max(0.0) / depth) } else { b };
            segment_distance(a, end, o.centre) >= w + o.radius
        })
    }
}

/// The formation for an `n`-member group, in the paper's order: side by
/// side when its ROI is free, else V when its ROI is free, else river
/// ("If ROI_V is still larger than the free space in the environment, then
/// River-Like formation is adopted", whether or not the river's own ROI is
/// free: filing is the group's last resort, and its members then queue
/// like anyone else). A lone agent (`n < 2`) walks as a river of one.
pub fn choose_formation(n: usize, layout: &Layout, radius: f64, ahead: &Ahead, free: &FreeSpace) -> FormationKind {
    choose_placed(n, layout, radius, ahead, free).0
}

/// How far to the side of its centre line a group may test a wider
/// formation's ROI, in spacings (see [`choose_placed`]).
pub const SHIFT_SPACINGS: f64 = 1.0;
/// The lateral steps of that search, in spacings.
const SHIFT_STEP: f64 = 0.25;

/// [`choose_formation`], testing each ROI in "the region around G" (the
/// paper's words) rather than on the group's centre line alone: also
/// shifted sideways, right first, by steps of a quarter spacing up to one
/// spacing. A group that filed into a river along a wall, or that walks
/// past a door post, spreads out again as soon as there is room beside its
/// line, instead of keeping narrow because its centre line hugs the wall.
/// Returns the formation and the lateral shift of its ROI (to the left of
/// the heading, m), where the slots are to be laid.
pub fn choose_placed(n: usize, layout: &Layout, radius: f64, ahead: &Ahead, free: &FreeSpace) -> (FormationKind, f64) {
    if n < 2 {
        return (FormationKind::River, 0.0);
    }
    let side = heading(Vec2::ZERO, ahead.heading).map_or(Vec2::ZERO, |h| h.perp());
    let steps = (SHIFT_SPACINGS / SHIFT_STEP) as i32;
    for kind in [FormationKind::SideBySide, FormationKind::V] {
        for k in 0..=steps {
            for sign in [-1.0, 1.0] {
                if k == 0 && sign > 0.0 {
                    continue;
                }
                let shift = sign * f64::from(k) * SHIFT_STEP * layout.spacing();
                let placed = Ahead { centre: ahead.centre + side * shift, ..*ahead };
                if Roi::new(kind, n, layout, radius, &placed).is_free(free) {
                    return (kind, shift);
                }
            }
        }
    }
    (FormationKind::River, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Rect, Shape, World};
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Shape {
        Shape::Rect(Rect { min: v(x0, y0), max: v(x1, y1) })
    }

    fn world(obstacles: Vec<Shape>) -> World {
        World::bare(Rect { min: v(0.0, 0.0), max: v(20.0, 10.0) }, obstacles)
    }

    /// A wall across x = 10 with a door of width `door` centred on y = 5.
    fn door(width: f64) -> Walkable {
        let (lo, hi) = (5.0 - width / 2.0, 5.0 + width / 2.0);
        Walkable::new(&world(vec![rect(9.8, 0.0, 10.2, lo), rect(9.8, hi, 10.2, 10.0)]), 0.0)
    }

    /// A group centred at (7, 5) walking east, looking 4 m ahead (past the wall).
    fn towards_door() -> Ahead {
        Ahead { centre: v(7.0, 5.0), heading: v(1.0, 0.0), depth: 4.0 }
    }

    #[test]
    fn group_space_by_hand() {
        // C = (1, 1); distances √2, √2, 2: the third member is A_f.
        let g = group_space(&[v(0.0, 0.0), v(2.0, 0.0), v(1.0, 3.0)], &[0.2, 0.3, 0.25]).unwrap();
        assert_eq!(g.centre, v(1.0, 1.0));
        assert_eq!(g.farthest, 2);
        assert!(close(g.radius, 2.25));
        // Ties go to the lower index, and Eq 2 adds that member's radius.
        let g = group_space(&[v(0.0, 0.0), v(2.0, 0.0)], &[0.2, 0.3]).unwrap();
        assert_eq!((g.farthest, g.radius), (0, 1.2));
        // One member: its own body.
        assert_eq!(group_space(&[v(4.0, 4.0)], &[0.25]).unwrap().radius, 0.25);
        assert_eq!(group_space(&[], &[]), None);
        assert_eq!(group_space(&[v(0.0, 0.0)], &[0.2, 0.3]), None);
        assert_eq!(group_space(&[v(f64::NAN, 0.0)], &[0.2]), None);
        assert_eq!(group_space(&[v(0.0, 0.0)], &[-0.2]), None);
    }

    #[test]
    fn the_core_covers_the_gap_between_members() {
        // A pair side by side, 0.8 m apart, bodies of 0.25 m: R_g = 0.65 m,
        // core 0.325 m; the free gap between the bodies reaches 0.15 m from C.
        let a = group_space(&[v(4.6, 5.0), v(5.4, 5.0)], &[0.25, 0.25]).unwrap();
        assert!(close(a.radius, 0.65));
        assert!(close(a.core_radius(0.5), 0.325));
        assert!(a.in_core(v(5.0, 5.15), 0.5) && a.in_core(v(5.15, 5.0), 0.5));
        assert!(!a.in_core(v(5.0, 5.4), 0.5));
        assert_eq!(a.core_radius(7.0), a.radius);
        assert_eq!(a.core_radius(f64::NAN), 0.0);
        assert!(!a.in_core(a.centre, 0.0));
    }

    #[test]
    fn groups_form_within_the_social_distance() {
        assert!(forms_group(&[v(0.0, 0.0), v(3.0, 0.0), v(1.0, 2.0)], 3.6));
        assert!(!forms_group(&[v(0.0, 0.0), v(3.0, 0.0), v(4.0, 0.0)], 3.6));
        assert!(forms_group(&[], 3.6));
    }

    #[test]
    fn side_by_side_is_abreast_perpendicular_to_the_goal() {
        let layout = Layout::default();
        let (c, goal) = (v(3.0, 4.0), v(3.0, 14.0));
        let h = heading(c, goal).unwrap();
        for n in 2..=3 {
            let p = slot_positions(FormationKind::SideBySide, n, &layout, c, h);
            let centroid = p.iter().fold(Vec2::ZERO, |s, q| s + *q) / n as f64;
            assert!(centroid.distance(c) < 1e-12);
            for q in &p {
                // Perpendicular: every member on the line through C across the heading.
                assert!((*q - c).dot(h).abs() < 1e-12);
            }
            for w in p.windows(2) {
                assert!(close(w[0].distance(w[1]), SPACING));
            }
            // The outer members stand at 90° to the goal, seen from C.
            assert!(close(goal_angle(c, p[0], goal).unwrap(), FRAC_PI_2));
        }
        // Left to right along the heading's left-hand normal.
        let p = slot_positions(FormationKind::SideBySide, 3, &layout, v(0.0, 0.0), v(1.0, 0.0));
        assert_eq!(p, vec![v(0.0, 0.8), v(0.0, 0.0), v(0.0, -0.8)]);
    }

    #[test]
    fn the_v_opens_forward_at_its_angle() {
        let layout = Layout::default();
        let (c, goal) = (v(0.0, 0.0), v(10.0, 0.0));
        let h = v(1.0, 0.0);
        let p = slot_positions(FormationKind::V, 3, &layout, c, h);
        // Wings at 45° from C → goal, the middle member straight behind.
        assert!(close(goal_angle(c, p[0], goal).unwrap(), FRAC_PI_4));
        assert!(close(goal_angle(c, p[2], goal).unwrap(), FRAC_PI_4));
        assert!(close(goal_angle(c, p[1], goal).unwrap(), PI));
        assert!(p[0].y > 0.0 && p[2].y < 0.0 && p[1].x < p[0].x);
        let centroid = (p[0] + p[1] + p[2]) / 3.0;
        assert!(centroid.length() < 1e-12);
        // At 45° the wings are the nearest pair, one spacing apart.
        assert!(close(p[0].distance(p[2]), SPACING));
        assert!(p[0].distance(p[1]) > SPACING);
        // Narrower than side by side, wider than a river.
        let hw = |k| half_width(k, 3, &layout, 0.25);
        assert!(close(hw(FormationKind::SideBySide), 1.05));
        assert!(close(hw(FormationKind::V), 0.65));
        assert!(close(hw(FormationKind::River), 0.25));
        // Two members: one ahead at 45°, the other behind at 135°.
        let p = slot_positions(FormationKind::V, 2, &layout, c, h);
        assert!(close(goal_angle(c, p[0], goal).unwrap(), FRAC_PI_4));
        assert!(close(goal_angle(c, p[1], goal).unwrap(), 3.0 * FRAC_PI_4));
        assert!(close(p[0].distance(p[1]), SPACING));
        // Steep V angles: the wing-to-middle pair binds, still one spacing.
        let steep = Layout::new(0.8, 80f64.to_radians());
        let p = slots(FormationKind::V, 3, &steep);
        let nearest = p[0].distance(p[1]).min(p[1].distance(p[2])).min(p[0].distance(p[2]));
        assert!(close(nearest, 0.8));
        assert!(close(goal_angle(Vec2::ZERO, p[0], v(1.0, 0.0)).unwrap(), 80f64.to_radians()));
        // Out-of-range layouts are clamped, not refused.
        assert_eq!(Layout::new(-1.0, f64::NAN), Layout::default());
        assert_eq!(Layout::new(1.0, 0.0).v_angle(), MIN_V_ANGLE);
        assert_eq!(slots(FormationKind::V, 0, &layout), vec![]);
    }

    #[test]
    fn river_is_single_file_each_following_the_one_ahead() {
        let layout = Layout::default();
        let p = slot_positions(FormationKind::River, 3, &layout, v(5.0, 5.0), v(0.0, 1.0));
        assert_eq!(p, vec![v(5.0, 5.8), v(5.0, 5.0), v(5.0, 4.2)]);
        let members = [v(0.0, 0.0), v(2.0, 0.1), v(1.0, -0.1)];
        assert_eq!(river_order(&members, v(1.0, 0.0)), vec![1, 2, 0]);
        let t = river_targets(&members, v(1.0, 0.0), 0.5);
        assert_eq!(t[1], None);
        assert_eq!(t[2], Some(v(1.5, 0.1)));
        assert_eq!(t[0], Some(v(0.5, -0.1)));
        // Ties keep the lower index in front.
        assert_eq!(river_order(&[v(0.0, 1.0), v(0.0, -1.0)], v(1.0, 0.0)), vec![0, 1]);
    }

    #[test]
    fn members_take_the_nearest_slots() {
        let layout = Layout::default();
        let slots = slot_positions(FormationKind::SideBySide, 3, &layout, v(0.0, 0.0), v(1.0, 0.0));
        let members = [slots[2] + v(0.1, 0.0), slots[0] - v(0.0, 0.1), slots[1]];
        assert_eq!(assign_slots(&members, &slots), vec![2, 0, 1]);
        // Unequal counts: greedy, in member order.
        assert_eq!(assign_slots(&[v(0.0, 0.7), v(0.0, 0.9)], &slots), vec![0, 1]);
        assert_eq!(assign_slots(&[v(0.0, 0.0), v(0.0, 0.0)], &slots[..1]), vec![0, usize::MAX]);
        assert_eq!(assign_slots(&[], &[]), Vec::<usize>::new());
    }

    #[test]
    fn speed_rule_around_ninety_degrees() {
        let (c, goal) = (v(0.0, 0.0), v(10.0, 0.0));
        let at = |deg: f64| {
            let a = deg.to_radians();
            v(math::cos(a), math::sin(a)) * 0.8
        };
        // Above 90° the member is behind: faster; below, ahead: slower.
        let behind = side_by_side_speed_factor(c, at(120.0), goal, SPACING);
        let ahead = side_by_side_speed_factor(c, at(60.0), goal, SPACING);
        assert!(close(goal_angle(c, at(120.0), goal).unwrap(), 120f64.to_radians()));
        assert!(behind > 1.0 && ahead < 1.0, "{behind} {ahead}");
        assert!(close(behind - 1.0, 1.0 - ahead));
        assert!(close(side_by_side_speed_factor(c, at(90.0), goal, SPACING), 1.0));
        // Bounded by the gain, neutral when undefined.
        assert_eq!(side_by_side_speed_factor(c, v(-5.0, 0.0), goal, SPACING), 1.0 + SPEED_GAIN);
        assert_eq!(side_by_side_speed_factor(c, v(5.0, 0.0), goal, SPACING), 1.0 - SPEED_GAIN);
        assert_eq!(side_by_side_speed_factor(c, v(1.0, 1.0), c, SPACING), 1.0);
        assert_eq!(speed_factor(f64::NAN, SPACING), 1.0);
        assert_eq!(speed_factor(0.4, 0.0), speed_factor(0.4, SPACING));
        // The V's wings: the same rule around 45°.
        let layout = Layout::default();
        let wing = slots(FormationKind::V, 3, &layout)[0];
        let d = wing.length();
        let wing_at = |deg: f64| {
            let a = deg.to_radians();
            v(math::cos(a), math::sin(a)) * d
        };
        let h = v(1.0, 0.0);
        assert!(slot_speed_factor(c, h, wing_at(60.0), wing, SPACING) > 1.0);
        assert!(slot_speed_factor(c, h, wing_at(30.0), wing, SPACING) < 1.0);
        assert!(close(slot_speed_factor(c, h, wing, wing, SPACING), 1.0));
    }

    #[test]
    fn a_door_narrower_than_side_by_side_takes_v_or_river() {
        let layout = Layout::default();
        let ahead = towards_door();
        let choose = |walk: &Walkable, n| {
            choose_formation(n, &layout, 0.25, &ahead, &FreeSpace { walk: Some(walk), ..FreeSpace::default() })
        };
        let roi_free = |walk: &Walkable, kind, n| {
            Roi::new(kind, n, &layout, 0.25, &ahead).is_free(&FreeSpace { walk: Some(walk), ..FreeSpace::default() })
        };
        // Three members: side by side needs 2.1 m, the V 1.3 m, a river 0.5 m.
        let wide = door(2.4);
        assert!(roi_free(&wide, FormationKind::SideBySide, 3));
        assert_eq!(choose(&wide, 3), FormationKind::SideBySide);
        let medium = door(1.8);
        assert!(!roi_free(&medium, FormationKind::SideBySide, 3));
        assert!(roi_free(&medium, FormationKind::V, 3));
        assert_eq!(choose(&medium, 3), FormationKind::V);
        let narrow = door(0.9);
        assert!(!roi_free(&narrow, FormationKind::V, 3));
        assert!(roi_free(&narrow, FormationKind::River, 3));
        assert_eq!(choose(&narrow, 3), FormationKind::River);
        // Two members: side by side needs 1.3 m, the V about 1.07 m.
        let pair_door = door(1.2);
        assert_eq!(choose(&pair_door, 2), FormationKind::V);
        assert_eq!(choose(&door(1.4), 2), FormationKind::SideBySide);
        // A door just wider than the ROI lets it through.
        assert_eq!(choose(&door(2.1 + 1e-9), 3), FormationKind::SideBySide);
        // Before the door is within the depth, the group stays side by side.
        let far = Ahead { depth: 1.0, ..ahead };
        assert_eq!(
            choose_formation(3, &layout, 0.25, &far, &FreeSpace { walk: Some(&narrow), ..FreeSpace::default() }),
            FormationKind::SideBySide
        );
        // Open space, or no world at all.
        assert_eq!(choose(&door(10.0), 3), FormationKind::SideBySide);
        assert_eq!(choose_formation(3, &layout, 0.25, &ahead, &FreeSpace::default()), FormationKind::SideBySide);
    }

    #[test]
    fn rois_see_bounds_agents_and_other_groups() {
        let layout = Layout::default();
        let walk = door(10.0);
        // Walking along the world's edge, 0.6 m from it: on its own line only
        // a river fits, but side by side does 0.6 m further from the edge.
        let edge = Ahead { centre: v(5.0, 0.6), heading: v(1.0, 0.0), depth: 3.0 };
        let open = FreeSpace { walk: Some(&walk), ..FreeSpace::default() };
        assert!(!Roi::new(FormationKind::V, 3, &layout, 0.25, &edge).is_free(&open));
        assert_eq!(choose_placed(3, &layout, 0.25, &edge, &open), (FormationKind::SideBySide, 0.6000000000000001));
        // In a passage 1.2 m wide along the edge, no shift makes room for more than a river.
        let passage = Walkable::new(&world(vec![rect(0.0, 1.2, 20.0, 10.0)]), 0.0);
        let inside = FreeSpace { walk: Some(&passage), ..FreeSpace::default() };
        assert_eq!(choose_placed(3, &layout, 0.25, &edge, &inside), (FormationKind::River, 0.0));
        let ahead = Ahead { centre: v(3.0, 5.0), heading: v(1.0, 0.0), depth: 3.0 };
        let with = |others: &[Disc]| {
            choose_placed(3, &layout, 0.25, &ahead, &FreeSpace { walk: Some(&walk), others, floor: None })
        };
        let on_line = |kind, others: &[Disc]| {
            Roi::new(kind, 3, &layout, 0.25, &ahead).is_free(&FreeSpace { walk: Some(&walk), others, floor: None })
        };
        // Someone 1 m to the side, 2 m ahead: on the group's line too close for
        // side by side (1.05 + 0.25), not for the V (0.65 + 0.25); 0.4 m to
        // the right side by side fits.
        let beside = [Disc { centre: v(5.0, 6.0), radius: 0.25, away: 0.0 }];
        assert!(!on_line(FormationKind::SideBySide, &beside) && on_line(FormationKind::V, &beside));
        assert_eq!(with(&beside), (FormationKind::SideBySide, -0.4));
        // Someone right ahead blocks every ROI within a spacing of the line: the river is the fallback.
        assert_eq!(with(&[Disc { centre: v(5.0, 5.0), radius: 0.25, away: 0.0 }]), (FormationKind::River, 0.0));
        // Someone 2 m right ahead who walks on as far as the group in the
        // time it walks its ROI leaves room: side by side; walking on half as
        // far, they are still caught up with: no side by side on any line.
        let leaving = |away| [Disc { centre: v(5.0, 5.0), radius: 0.25, away }];
        assert_eq!(with(&leaving(3.0)), (FormationKind::SideBySide, 0.0));
        assert_ne!(with(&leaving(1.5)).0, FormationKind::SideBySide);
        // Behind the group, or beyond the depth, nobody matters.
        assert_eq!(
            with(&[
                Disc { centre: v(0.5, 5.0), radius: 0.25, away: 0.0 },
                Disc { centre: v(8.0, 5.0), radius: 0.25, away: 0.0 }
            ]),
            (FormationKind::SideBySide, 0.0)
        );
        // Another group's reserved core counts like a body.
        let other = group_space(&[v(5.0, 6.2), v(5.8, 6.2)], &[0.25, 0.25]).unwrap();
        let core = [Disc { centre: other.centre, radius: other.core_radius(0.5), away: 0.0 }];
        assert!(!on_line(FormationKind::SideBySide, &core) && on_line(FormationKind::V, &core));
        assert_eq!(with(&core), (FormationKind::SideBySide, -0.2));
        // A lone agent is a river of one; a zero heading leaves a disc at C.
        assert_eq!(choose_formation(1, &layout, 0.25, &ahead, &FreeSpace::default()), FormationKind::River);
        let still = Roi::new(FormationKind::SideBySide, 3, &layout, 0.25, &Ahead { heading: Vec2::ZERO, ..ahead });
        assert_eq!((still.from, still.to), (ahead.centre, ahead.centre));
        assert!(close(still.width(), 2.1));
        let nan = Roi::new(FormationKind::V, 3, &layout, 0.25, &Ahead { centre: v(f64::NAN, 0.0), ..ahead });
        assert!(!nan.is_free(&FreeSpace::default()));
    }

    #[test]
    fn roi_depth_looks_ahead_but_not_past_the_goal() {
        assert!(close(roi_depth(1.0, 1.3, 50.0), 2.6));
        assert!(close(roi_depth(3.0, 1.3, 50.0), 3.0));
        assert!(close(roi_depth(1.0, 1.3, 1.5), 1.5));
        assert_eq!(roi_depth(f64::NAN, f64::INFINITY, -1.0), 0.0);
    }
}
