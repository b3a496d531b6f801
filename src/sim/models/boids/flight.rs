//! One boid's step: what its visibility sphere holds (Eq 3.1), the forces
//! on it, Eq 3.2 integrated, and the bounce off solid obstacles.

use crate::ir::{Subject, Vec2, NONE};
use crate::math::{cos, sin};
use crate::rng::{stream, Draws, Purpose};
use crate::sim::scene::Scene;
use crate::sim::stage::Plan;
use crate::steer::boids::{attack, avoidance, flocking, integrate, Mates, Weights};

/// How a mode engages the model: the boids actions of the mode, together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct How {
    /// `flock`: the weights of Eqs 3.4–3.6.
    pub flock: Option<Weights>,
    /// `flee SUBJECT`: the predators (Eq 3.8).
    pub flee: Option<Subject>,
    /// `hunt SUBJECT`: the prey, and the catch distance.
    pub hunt: Option<(Subject, f64)>,
}

/// Which populations a boid flees or hunts: a bit per population when
/// they are few, else the subject, asked of the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kin {
    None,
    Bits(u64),
    Of(Subject),
}

impl Kin {
    pub fn of(scene: &Scene, subject: Option<Subject>) -> Kin {
        let Some(s) = subject else { return Kin::None };
        let populations = scene.program.populations.len();
        if populations > 64 {
            return Kin::Of(s);
        }
        Kin::Bits((0..populations as u32).filter(|&p| scene.aims.matches(s, p)).fold(0, |m, p| m | 1 << p))
    }

    /// Whether the agents of population `p` are of this kin.
    #[inline]
    pub fn has(self, scene: &Scene, p: u32) -> bool {
        match self {
            Kin::None => false,
            Kin::Bits(bits) => bits >> p & 1 == 1,
            Kin::Of(s) => scene.aims.matches(s, p),
        }
    }
}

/// What a boid carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Boid {
    how: How,
    /// The populations of `how.flee` and of `how.hunt`.
    flees: Kin,
    hunts: Kin,
    /// Its velocity (Eq 3.3); `None` until its first step, which draws a heading.
    vel: Option<Vec2>,
    /// The slot of the prey it struck this step (see [`step`]), or `NONE`.
    struck: u32,
}

/// What a boid reads of a neighbour, kept in the agents' index order
/// ([`crate::world::grid::Grid::order`]) so that a query reads it in sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Seen {
    pub pos: Vec2,
    pub vel: Vec2,
    pub population: u32,
    pub slot: u32,
}

impl Boid {
    /// Boid `i` taking wing in a mode that moves it `how`; `previous`: its
    /// walker when it was a boid already.
    pub fn new(scene: &Scene, i: usize, how: How, previous: Option<&Boid>) -> Boid {
        // A walker keeps its way when it takes wing; a boid keeps its velocity between modes.
        let walking = scene.agents.vel[i];
        let vel = previous.and_then(|b| b.vel).or((walking != Vec2::ZERO).then_some(walking));
        let (flees, hunts) = (Kin::of(scene, how.flee), Kin::of(scene, how.hunt.map(|h| h.0)));
        Boid { how, flees, hunts, vel, struck: NONE }
    }

    /// The slot of the prey it struck this step (see [`step`]), if it did.
    pub fn struck(&self) -> Option<usize> {
        (self.struck != NONE).then_some(self.struck as usize)
    }
}

/// Boid `i`'s plan for this step; its new velocity is kept in `me`.
pub(super) fn step(scene: &Scene, seen: &[Seen], i: usize, me: &mut Boid, draws: &mut Draws) -> Plan {
    let agents = &scene.agents;
    let params = &scene.program.params.boids;
    let p = agents.pos[i];
    let top_speed = agents.speed[i].min(params.max_speed);
    let v = me.vel.unwrap_or_else(|| first_velocity(scene, i, top_speed, draws));
    let view = params.view_radius;
    // A predator sees its prey farther than a prey its mates.
    let reach = if me.hunts != Kin::None { view.max(params.predator_view_radius) } else { view };
    let own = agents.population[i];
    let flocks = me.how.flock.is_some();

    let mut mates = Mates::default();
    let mut avoid = Vec2::ZERO;
    let mut prey: Option<(f64, u32)> = None;
    let rows = || scene.grid.rows_near(p, reach);
    // Touch the first rows before visiting any, so that their cache misses overlap.
    let mut first = 0.0;
    for (a, b) in rows().take(4) {
        if a < b {
            first += seen[a].pos.x;
        }
    }
    std::hint::black_box(first);
    for (a, b) in rows() {
        for s in &seen[a..b] {
            let (j, q) = (s.slot, s.pos);
            let d2 = q.distance_squared(p);
            // Eq 3.1: strictly within r.
            if j as usize == i || d2 >= reach * reach {
                continue;
            }
            let population = s.population;
            // Only a predator looks past its mates' sphere.
            let in_view = d2 < view * view;
            if in_view && me.flees.has(scene, population) {
                // Eq 3.8.
                avoid += avoidance(params.avoid_weight, params.avoid_steepness, view, p, q);
            } else if me.hunts.has(scene, population) {
                // Eq 3.11: the closest prey; ties to the lower slot.
                if prey.is_none_or(|b| (d2, j) < b) {
                    prey = Some((d2, j));
                }
            } else if in_view && flocks && population == own {
                mates.add(p, q, s.vel);
            }
        }
    }
    let mut force = avoid;
    if let Some(w) = &me.how.flock {
        force += flocking(w, p, v, &mates);
    }
    if let Some((_, j)) = prey {
        // Eqs 3.10–3.13.
        force += attack(params.pursuit_weight, p, v, agents.pos[j as usize], top_speed);
    } else if let Some(aim) = scene.aim_point(i, agents.aim[i]).filter(|_| !agents.arrived[i]) {
        // A boid with somewhere to go (a `seek` in its mode) steers there as a predator at its prey.
        force += attack(params.pursuit_weight, p, v, aim, top_speed);
    }
    let mut v = integrate(v, force, scene.clock.dt, top_speed);
    let r = agents.radius[i];
    let mut next = p + v * scene.clock.dt;
    if !scene.space.is_clear(next, r) {
        // Solid obstacles: position and velocity correction (the velocity inverted: a bounce).
        v = -v;
        next = scene.space.project(next, p, r);
    }
    me.vel = Some(v);
    // Eq 3.11's prey caught: the predator's move brings it within its catch
    // distance of where the prey stood (the prey's own move, and distance
    // enforcement after both, cannot undo a strike).
    let strikes = |j: u32, within: f64| next.distance_squared(agents.pos[j as usize]) <= within * within;
    me.struck = match (prey, me.how.hunt) {
        (Some((_, j)), Some((_, within))) if strikes(j, within) => j,
        _ => NONE,
    };
    let settles = me.struck != NONE;
    // Flockmates keep apart by their separation force, and a predator must
    // reach its prey; a boid that only flees has nothing keeping it off others.
    let enforce = me.how.flock.is_none() && me.how.hunt.is_none();
    let moved = next - p;
    let stride = scene.stride(i);
    if moved == Vec2::ZERO || stride <= 0.0 {
        return Plan { settles, enforce, ..Plan::stand(p) };
    }
    // The flight was checked against the walls (and bounced off them) above.
    Plan {
        target: next,
        active: true,
        direct: Some(moved),
        enforce,
        pace: moved.length() / stride,
        settles,
        inside: true,
    }
}

/// A boid's velocity before its first step, when it was not walking: its
/// top speed in a direction drawn from its own stream.
fn first_velocity(scene: &Scene, i: usize, top_speed: f64, draws: &mut Draws) -> Vec2 {
    let draw = draws.next(Purpose::Heading);
    let mut rng = stream(scene.seed, Purpose::Heading, scene.entity(i), draw);
    let angle = std::f64::consts::TAU * rng.unit();
    Vec2::new(cos(angle), sin(angle)) * top_speed
}
