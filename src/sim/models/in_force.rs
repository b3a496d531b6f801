//! The parameters in force for one action: the scenario's, with the
//! overrides written on the action's planner (`using bvp epsilon 0.3`), for
//! the models that read them.

use crate::ir::params::Params;
use crate::ir::{Planner, Program};
use crate::plan::astar::NodeGrid;

/// The parameters in force for an action planned by `planner` (the
/// scenario's, with the action's own overrides of `model`'s), and the cell
/// of the world grid its `grid X x Y` asks for, if it gives one.
pub(crate) fn in_force(program: &Program, model: &str, planner: Option<&Planner>) -> (Params, Option<f64>) {
    let mut params = program.params.clone();
    for (name, v) in planner.map_or(&[][..], |p| &p.params[..]) {
        params.set(model, name, *v);
    }
    let grid = planner.and_then(|p| p.grid).map(|(nx, ny)| NodeGrid::cell_for_dims(program.world.bounds, nx, ny));
    (params, grid)
}
