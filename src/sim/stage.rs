//! The stages of a step, as a model sees them, and what each may touch.
//!
//! A step runs, in this order (the core's own phases in brackets):
//!
//! | stage | runs | reads | may write |
//! |---|---|---|---|
//! | [spawn/despawn, perceive] | sequential | | the scene |
//! | [`Model::perceive`] | sequential | the scene | the model's run state |
//! | [`Model::organise`] | sequential (it may map its groups in parallel over `&self`) | the scene, who it drives | its run state, the formation labels |
//! | [decide], [`Model::plan`], [steer, resolve, integrate] | parallel, any order | the scene (the step's snapshot), the model's run state | the agent's own walker and draw counts, one result per agent |
//! | [apply] | sequential, id order | | decisions that change shared tables; [`Model::start`] and [`Model::stop`] as agents change mode |
//! | [`Model::plan`], [steer, resolve, integrate] of the agents just applied | right after each one's apply when [`Model::plans_in_order`], else parallel once all are applied | as above | as above |
//! | [`Model::settle`] | sequential, id order (it may run parts whose outcome no order changes in parallel on `workers`) | the scene after every move | its run state, its walkers |
//! | [`Model::catches`] | sequential | | its run state; the core removes the caught |
//!
//! The types carry that contract: a parallel stage gets `&self` and
//! `&Scene` and its own agent through [`Own`]; only the sequential stages get
//! `&mut self`. Results are collected by agent slot and applied in id order,
//! so which thread runs which agent never shows in a trace.

use super::scene::Scene;
use super::workers::Workers;
use crate::ir::{Action, Behaviour, Program, Vec2};
use crate::rng::Draws;
use crate::world::markers::Change;

/// What the read-only part of deciding found for one agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Decision {
    pub arrived: bool,
    /// The rule that applies (rule-based behaviours), else `NONE`.
    pub fired: u32,
    /// The decision changes: apply it sequentially.
    pub todo: bool,
}

/// Where an agent goes this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plan {
    pub target: Vec2,
    /// It walks (it has something to walk to and has not arrived).
    pub active: bool,
    /// Direct motion (Rodrigues et al. Eqs 10–12): the direction `m_d`
    /// replaces the target, and the agent walks a full step along it.
    pub direct: Option<Vec2>,
    /// Distance enforcement applies (Eq 8); a model may keep agents apart its own way.
    pub enforce: bool,
    /// The agent's speed this step as a multiple of its preferred speed.
    pub pace: f64,
    /// The model's settle stage has work for this agent this step (it asks
    /// for or gives back something); the stage visits only these agents.
    pub settles: bool,
    /// The model kept the move inside walkable space itself: the core does
    /// not project it again.
    pub inside: bool,
}

impl Plan {
    /// Standing at `pos`.
    pub fn stand(pos: Vec2) -> Plan {
        Plan { target: pos, active: false, direct: None, enforce: true, pace: 1.0, settles: false, inside: false }
    }

    /// Walking towards `target` at the preferred speed.
    pub fn walk_to(target: Vec2) -> Plan {
        Plan { target, active: true, direct: None, enforce: true, pace: 1.0, settles: false, inside: false }
    }
}

/// A prey a predator caught this step: both by slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Catch {
    pub predator: usize,
    pub prey: usize,
}

/// One agent as a parallel stage sees it: its slot, and the state only it writes.
pub(crate) struct Own<'a, W> {
    pub i: usize,
    pub walker: &'a mut W,
    pub draws: &'a mut Draws,
}

/// A table of per-agent drives that holds walkers of type `W` for the agents a model drives.
pub(crate) trait Holds<W> {
    fn walker(&self) -> Option<&W>;
    fn walker_mut(&mut self) -> Option<&mut W>;
}

/// A motion model: its state for a run, what it keeps for each agent it
/// drives, and its part in each stage of a step.
pub(crate) trait Model: Sized + Sync {
    /// What an agent this model drives carries; dropped when another model takes it over.
    type Walker: Send;
    /// How a mode's actions engage the model (which of its motions, with which options).
    type How: Copy + PartialEq;

    /// The model's state for a run in `scene` (cheap when no behaviour uses it).
    fn new(scene: &Scene) -> Self;

    /// Whether the model drives `action`, one of `mode`'s actions, and how.
    fn how(action: &Action, mode: &[Action]) -> Option<Self::How>;

    /// The radius of the marker queries the model makes every step, m, if it makes any:
    /// the markers' index is cut for the smallest.
    fn marker_reach(_program: &Program) -> Option<f64> {
        None
    }

    /// The radius of the queries for other agents the model makes every
    /// step, m, if it makes any: the agents' index is cut for the smallest
    /// (and never finer than the distance enforcement's).
    fn agent_reach(_program: &Program) -> Option<f64> {
        None
    }

    /// Whether the model takes over every agent of `behaviour` that starts
    /// leaving, and how it walks them out.
    fn takes_leavers(_behaviour: &Behaviour) -> Option<Self::How> {
        None
    }

    /// Whether an agent no model drives walks out this way when it starts
    /// leaving and `how` is its behaviour's first mode's.
    fn leads_out(_how: Self::How) -> bool {
        false
    }

    /// Whether an agent whose decision changed this step must be planned
    /// right after its decision is applied, in id order, rather than in a
    /// parallel pass once every decision is: when the model's plans read
    /// state that applying other agents' decisions writes (what its `start`
    /// and `stop` write, or other agents' modes and aims).
    fn plans_in_order(&self) -> bool {
        false
    }

    /// Sequential, id order: agent `i` enters a mode the model drives.
    /// `previous`: its walker, when the model drove it already.
    fn start(&mut self, scene: &Scene, i: usize, how: Self::How, previous: Option<&Self::Walker>) -> Self::Walker;

    /// Sequential, id order: agent `i` leaves the model (a new mode, or it is removed).
    fn stop(&mut self, _scene: &Scene, _i: usize, _walker: &mut Self::Walker) {}

    /// Sequential, before the step's stages: a marker event changed
    /// `scene.markers` and their index; `change` says which old marker id
    /// became which. Tables and caches by marker id must follow.
    fn markers_changed<D: Holds<Self::Walker>>(&mut self, _scene: &Scene, _drives: &mut [D], _change: &Change) {}

    /// Sequential, once the spatial index is rebuilt.
    fn perceive(&mut self, _scene: &Scene) {}

    /// Sequential, before the agents' pass: decisions about groups that the
    /// pass reads; writes the trace's formation label of every agent.
    fn organise<D: Holds<Self::Walker> + Sync>(
        &mut self,
        _scene: &Scene,
        _drives: &[D],
        _workers: &Workers,
        _formation: &mut [u32],
    ) {
    }

    /// Sequential, after the organise stage: why the model cannot go on, if
    /// it cannot; the run stops with this message.
    fn fault(&self) -> Option<&str> {
        None
    }

    /// Parallel, just before an earlier agent's plan: brings what `plan`
    /// will read through `walker`'s vectors and boxes into cache (a hint;
    /// the trace cannot see it).
    fn prefetch(&self, _walker: &Self::Walker) {}

    /// Parallel, any order: where agent `me.i` goes this step, from the
    /// snapshot and its own state.
    fn plan(&self, scene: &Scene, me: Own<'_, Self::Walker>) -> Plan;

    /// Sequential, id order, after every agent moved: bookkeeping that must
    /// see all the moves (tables of things agents hold). `settling`: the
    /// slots, in id order, of the agents whose plan this step said it
    /// [`Plan::settles`]. A part whose outcome does not depend on the
    /// order the agents run in may run on `workers`.
    fn settle<D: Holds<Self::Walker> + Send>(
        &mut self,
        _scene: &Scene,
        _drives: &mut [D],
        _settling: &[usize],
        _workers: &Workers,
    ) {
    }

    /// Sequential, after the settle stage: the agents caught this step, in
    /// the order they were caught; the core takes them out of the run.
    fn catches(&mut self) -> Vec<Catch> {
        Vec::new()
    }
}
