//! One recorded frame as the executor hands it over: borrowed columns, in id order.
//!
//! Invariants: every slice has the same length; `id` is strictly increasing;
//! every float is finite (the executor checks before it records); label
//! indices are below the lengths of the matching [`Labels`] tables or [`NONE`].

use std::io;

use crate::ir::Vec2;

pub use crate::ir::NONE;

/// Display names behind the index columns of a frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// By population index.
    pub populations: Vec<String>,
    /// Behaviour modes (states or rules) plus the executor's own modes.
    pub modes: Vec<String>,
    /// Goal descriptions.
    pub goals: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
pub struct FrameView<'a> {
    /// Recorded-frame counter, from 0.
    pub frame: u64,
    /// Simulated time, s.
    pub t: f64,
    pub id: &'a [u32],
    /// Position, m.
    pub pos: &'a [Vec2],
    /// Velocity over the last step, m/s.
    pub vel: &'a [Vec2],
    /// Orientation, a unit vector.
    pub ori: &'a [Vec2],
    /// Index into [`Labels::populations`].
    pub population: &'a [u32],
    /// Group number, or [`NONE`] for an agent on its own.
    pub group: &'a [u32],
    /// Index into [`Labels::modes`].
    pub mode: &'a [u32],
    /// Index into [`Labels::goals`], or [`NONE`].
    pub goal: &'a [u32],
    /// Body radius, m.
    pub radius: &'a [f64],
    /// The formation the agent's group walked in over the last step: an
    /// [`crate::ir::FormationKind::index`], or [`NONE`] (walking alone, standing).
    pub formation: &'a [u32],
    /// The agents' var values, `var_stride` per row (see [`crate::ir::Column::Var`]).
    pub vars: &'a [f64],
    pub var_stride: usize,
}

impl FrameView<'_> {
    pub fn len(&self) -> usize {
        self.id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

/// An owned copy of a frame, for a recorder that works on it later (on
/// another thread). Copying into an existing one reuses its buffers.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub frame: u64,
    pub t: f64,
    pub id: Vec<u32>,
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    pub ori: Vec<Vec2>,
    pub population: Vec<u32>,
    pub group: Vec<u32>,
    pub mode: Vec<u32>,
    pub goal: Vec<u32>,
    pub radius: Vec<f64>,
    pub formation: Vec<u32>,
    pub vars: Vec<f64>,
    pub var_stride: usize,
}

impl Frame {
    /// Makes `self` a copy of `view`.
    pub fn copy_from(&mut self, view: &FrameView<'_>) {
        fn set<T: Copy>(v: &mut Vec<T>, from: &[T]) {
            v.clear();
            v.extend_from_slice(from);
        }
        self.frame = view.frame;
        self.t = view.t;
        set(&mut self.id, view.id);
        set(&mut self.pos, view.pos);
        set(&mut self.vel, view.vel);
        set(&mut self.ori, view.ori);
        set(&mut self.population, view.population);
        set(&mut self.group, view.group);
        set(&mut self.mode, view.mode);
        set(&mut self.goal, view.goal);
        set(&mut self.radius, view.radius);
        set(&mut self.formation, view.formation);
        set(&mut self.vars, view.vars);
        self.var_stride = view.var_stride;
    }

    pub fn view(&self) -> FrameView<'_> {
        FrameView {
            frame: self.frame,
            t: self.t,
            id: &self.id,
            pos: &self.pos,
            vel: &self.vel,
            ori: &self.ori,
            population: &self.population,
            group: &self.group,
            mode: &self.mode,
            goal: &self.goal,
            radius: &self.radius,
            formation: &self.formation,
            vars: &self.vars,
            var_stride: self.var_stride,
        }
    }
}

/// Receives each recorded frame in order.
pub trait Recorder {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()>;
}

/// Records nothing (a run whose trace is not wanted).
pub struct Discard;

impl Recorder for Discard {
    fn record(&mut self, _: &FrameView<'_>) -> io::Result<()> {
        Ok(())
    }
}

/// Feeds two recorders, the first first.
pub struct Both<'a, A: ?Sized, B: ?Sized>(pub &'a mut A, pub &'a mut B);

impl<A: Recorder + ?Sized, B: Recorder + ?Sized> Recorder for Both<'_, A, B> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        self.0.record(frame)?;
        self.1.record(frame)
    }
}
