//! A* paths being walked: planned when the goal they were planned for
//! changes (or when the walker lost sight of its waypoint), walked waypoint
//! by waypoint.

use crate::ir::Vec2;
use crate::plan::astar::{find_path, NodeGrid, Search};

/// A waypoint counts as passed within this distance, m.
const WAYPOINT_REACH: f64 = 0.4;

/// The side whose turns a blocked step tries first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    #[default]
    Right,
    Left,
}

/// An A* path being walked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Route {
    pub points: Vec<Vec2>,
    /// Index of the waypoint walked to.
    pub leg: usize,
    /// The goal point the path was planned for.
    pub goal: Option<Vec2>,
    /// The side the walker's last blocked step turned to
    /// ([`super::units::Units::sidestep`]).
    pub side: Side,
}

impl Route {
    /// Walks the route from `pos` towards `goal`, planning it first when it
    /// was planned for another goal: the waypoint to walk to now and the path
    /// distance left to the goal, m. `clearance`: the walker's body radius.
    pub fn follow(&mut self, grid: Option<&NodeGrid>, pos: Vec2, goal: Vec2, clearance: f64) -> (Vec2, f64) {
        let same = self.goal.is_some_and(|g| g.x.to_bits() == goal.x.to_bits() && g.y.to_bits() == goal.y.to_bits());
        if !same {
            self.plan(grid, pos, goal, clearance);
        }
        self.advance(grid, pos, clearance);
        // Pushed back behind a corner, the walker no longer sees the waypoint
        // it walks to: walking on would press it into the obstacle for ever.
        if grid.is_some_and(|g| !g.line_of_sight(pos, self.points[self.leg], 0.0)) {
            self.plan(grid, pos, goal, clearance);
            self.advance(grid, pos, clearance);
        }
        let wp = self.points[self.leg];
        let mut remaining = pos.distance(wp);
        for w in self.points[self.leg..].windows(2) {
            remaining += w[0].distance(w[1]);
        }
        (wp, remaining)
    }

    /// Plans the path from `pos` to `goal`.
    fn plan(&mut self, grid: Option<&NodeGrid>, pos: Vec2, goal: Vec2, clearance: f64) {
        let search = Search { smooth: true, clearance };
        let mut points = grid.and_then(|g| find_path(g, pos, goal, search)).map_or_else(Vec::new, |p| p.points);
        // A goal outside the usable nodes (an object against a wall) is still
        // walked to from the nearest node: the arrival rules stop the walker.
        if points.last() != Some(&goal) {
            points.push(goal);
        }
        *self = Route { points, leg: 0, goal: Some(goal), side: self.side };
    }

    /// Moves on past the waypoints reached or already in sight from `pos`.
    fn advance(&mut self, grid: Option<&NodeGrid>, pos: Vec2, clearance: f64) {
        let last = self.points.len() - 1;
        while self.leg < last {
            let here = self.points[self.leg];
            let next = self.points[self.leg + 1];
            // Within reach of a waypoint at a corner, the walker has not
            // rounded it until the next one is in sight: walking on to a
            // waypoint hidden behind the corner presses it into the obstacle.
            let passed = pos.distance(here) <= WAYPOINT_REACH && grid.is_none_or(|g| g.line_of_sight(pos, next, 0.0));
            // Pushed past a corner: the next waypoint is already in sight.
            let seen = grid.is_some_and(|g| g.walkable(pos, next, clearance));
            if passed || seen {
                self.leg += 1;
            } else {
                break;
            }
        }
        // Carried past a corner (a group's centre, while its front member
        // walked ahead): the waypoint walked to lies behind, the next one is
        // hidden behind the obstacle rounded, and a later one is in sight.
        // Walk on to that one rather than turn back.
        if let Some(g) = grid {
            let here = self.points[self.leg] - pos;
            let later = (self.leg + 1..=last)
                .rev()
                .find(|&j| here.dot(self.points[j] - pos) < 0.0 && g.walkable(pos, self.points[j], clearance));
            if let Some(j) = later {
                self.leg = j;
            }
        }
    }
}
