//! A follower's step (Li et al. §4): the five forces of `steer::follow`
//! from what it sees, the obstacle weight raised on contact and easing back
//! to its nominal value, the sliding force along obstacles, a random walk
//! that breaks deadlocks between followers, and the leader's trace when the
//! leader is out of sight.

use super::trail::Trail;
use crate::ir::params::CtSpace;
use crate::ir::{RegionId, Vec2, NONE};
use crate::math::{cos, sin, unit};
use crate::rng::{stream, Draws, Purpose};
use crate::sim::scene::Scene;
use crate::sim::stage::Plan;
use crate::steer::follow::{self, Forces, Weights};
use crate::world::walkable::push_out;

/// A follower touches an obstacle or another body closer than this, m.
const CONTACT: f64 = 0.05;
/// On contact the obstacle weight is multiplied by this, up to [`MAX_GAIN`];
/// without contact it eases back by [`EASE`] each step ("incrementally
/// go down to its nominal value").
const GAIN: f64 = 2.0;
const MAX_GAIN: f64 = 8.0;
const EASE: f64 = 0.9;
/// A follower is blocked when its last step covered less than this share
/// of the step it planned.
const BLOCKED: f64 = 0.5;
/// Below this composed force a follower stands.
const STILL: f64 = 1e-3;

/// What a follower keeps between steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Follower {
    /// 1 following, −1 evacuating (§4.3).
    pub sign: f64,
    /// Evacuating towards a region instead of away from the leader.
    pub via: Option<RegionId>,
    /// The obstacle weight's current multiple of its nominal value.
    gain: f64,
    /// Breaking a deadlock: the random direction and the steps left.
    random: Option<(Vec2, u32)>,
    /// Where it stood and the step it planned from there, last step.
    last: Option<(Vec2, Vec2)>,
}

impl Follower {
    pub fn new(sign: f64, via: Option<RegionId>, previous: Option<&Follower>) -> Follower {
        let (gain, random) = previous.map_or((1.0, None), |f| (f.gain, f.random));
        Follower { sign, via, gain, random, last: None }
    }
}

/// What a follower steers by this step, besides the scene.
pub(super) struct Lead<'a> {
    /// The leader's slot, if it has one alive.
    pub leader: Option<usize>,
    pub trail: Option<&'a Trail>,
    pub params: &'a CtSpace,
    pub trace_attraction: bool,
}

/// Follower `i`'s plan for this step.
pub(super) fn step(scene: &Scene, i: usize, me: &mut Follower, draws: &mut Draws, lead: &Lead) -> Plan {
    let agents = &scene.agents;
    let p = agents.pos[i];
    let r = agents.radius[i];
    let params = lead.params;
    let view = params.view_radius;
    let group = scene.explicit_group[agents.mind[i].member.population.index()];
    let heading = agents.ori[i];
    let half_cone = cos(params.view_angle / 2.0);
    let in_view =
        |q: Vec2| params.view_angle >= std::f64::consts::TAU || (q - p).dot(heading) >= half_cone * (q - p).length();

    // Who it sees: everyone for separation, its own group for cohesion and alignment.
    let mut pushes = Vec2::ZERO;
    let (mut sum, mut vel, mut own) = (Vec2::ZERO, Vec2::ZERO, 0u32);
    let mut touching = false;
    scene.grid.for_each_near(p, view, |j, q| {
        let j = j as usize;
        let d = p.distance(q);
        if j == i || d > view || !in_view(q) {
            return;
        }
        pushes += follow::push(p, q, view);
        touching |= d < r + agents.radius[j] + CONTACT && lead.leader != Some(j);
        let g = scene.explicit_group[agents.mind[j].member.population.index()];
        if group != NONE && g == group {
            sum += q;
            vel += agents.vel[j];
            own += 1;
        }
    });
    let centroid = (own > 0).then(|| sum / f64::from(own));
    let mean_velocity = (own > 0).then(|| vel / f64::from(own));

    // Obstacles within reach of the body push it out; the nearest one's normal is kept for sliding.
    let reach = params.obstacle_reach;
    let (mut out, mut wall) = (Vec2::ZERO, None::<(f64, Vec2)>);
    for shape in scene.space.obstacles() {
        if let Some(q) = push_out(shape, p, p, r + reach) {
            let push = q - p;
            out += push;
            let depth = push.length();
            if wall.is_none_or(|(d, _)| depth > d) {
                wall = unit(push).map(|n| (depth, n));
            }
        }
    }
    let contact = wall.filter(|(depth, _)| *depth > reach - CONTACT).map(|(_, n)| n);
    me.gain = if contact.is_some() { (me.gain * GAIN).min(MAX_GAIN) } else { (me.gain * EASE).max(1.0) };

    let attraction =
        source(scene, i, lead, me).map_or(Vec2::ZERO, |(q, d)| follow::attraction(p, q, d, params.follow_distance));
    let mut forces = Forces {
        separation: follow::separation(pushes),
        cohesion: follow::cohesion(p, centroid, view),
        alignment: follow::alignment(mean_velocity, agents.speed[i]),
        obstacle: follow::repulsion(out, reach),
        attraction,
    };
    if me.via.is_some() {
        // An exit attracts whatever the mode: undo the flip `compose` makes.
        forces.attraction *= me.sign;
    }
    let mut weights = Weights {
        separation: params.separation,
        cohesion: params.cohesion,
        alignment: params.alignment,
        obstacle: params.obstacle * me.gain,
        attraction: params.attraction,
    };

    // A follower that others keep from moving walks a random direction for a
    // few steps, its attractions off (§4.1: deadlocks between followers).
    let blocked = me.last.is_some_and(|(from, planned)| (p - from).length() < BLOCKED * planned.length());
    if me.random.is_none() && touching && blocked {
        let draw = draws.next(Purpose::Deadlock);
        let angle = stream(scene.seed, Purpose::Deadlock, scene.entity(i), draw).unit() * std::f64::consts::TAU;
        me.random = Some((Vec2::new(cos(angle), sin(angle)), params.deadlock_steps as u32));
    }
    let mut force = match me.random {
        Some((dir, left)) => {
            me.random = (left > 1).then_some((dir, left - 1));
            weights.cohesion = 0.0;
            weights.alignment = 0.0;
            weights.attraction = 0.0;
            follow::compose(&forces, &weights, me.sign) + dir * params.attraction.max(1.0)
        }
        None => follow::compose(&forces, &weights, me.sign),
    };
    if let Some(n) = contact {
        force = follow::slide(force, n, forces.attraction * me.sign);
    }

    let pace = force.length().min(1.0);
    if pace < STILL || !force.is_finite() {
        me.last = None;
        return Plan::stand(p);
    }
    me.last = Some((p, force / force.length() * scene.stride(i) * pace));
    Plan { direct: Some(force), pace, ..Plan::walk_to(p + force) }
}

/// What attracts follower `i` and its path distance: the leader, or the
/// latest point of its trace in sight (§4.2); when evacuating via a region,
/// the region.
fn source(scene: &Scene, i: usize, lead: &Lead, me: &Follower) -> Option<(Vec2, f64)> {
    let p = scene.agents.pos[i];
    if let Some(r) = me.via {
        let q = scene.aims.region(r);
        return Some((q, p.distance(q)));
    }
    let leader = scene.agents.pos[lead.leader?];
    let radius = scene.agents.radius[i];
    match lead.trail {
        Some(trail) if lead.trace_attraction => {
            Some(trail.source(p, leader, |a, b| scene.space.segment_clear(a, b, radius)))
        }
        _ => Some((leader, p.distance(leader))),
    }
}
