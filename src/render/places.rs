//! Where populations appear and where they head: spawn and goal marks, read
//! from the lowered program, for the pictures and the player alike.
//!
//! A spawn is a population's region or point (followers spawned round a
//! leader have no place of their own). A goal is a fixed place agents walk
//! to: a population's goal, what its behaviour seeks or pushes as a goal, a
//! region it evacuates through, its exit. Goals that move (another agent)
//! or that an agent picks (an object providing a resource) are not marked:
//! objects have their own symbol.

use crate::ir::{Action, Goal, Leave, Place, Program, Target, Vec2};
use crate::world::geometry::{bounding_box, contains};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Spawn,
    Goal,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Spawn => "spawn",
            Kind::Goal => "goal",
        }
    }
}

/// A place, to tell marks at the same spot apart from marks at another.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spot {
    Region(usize),
    Object(usize),
    Point(Vec2),
}

/// One mark: a kind at a spot, for the populations listed.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub kind: Kind,
    /// Where the symbol goes, m.
    pub at: Vec2,
    /// The place as a scenario names it (`region west_end`, `(37, 10)`).
    pub place: String,
    /// The populations it is for, in declaration order.
    pub populations: Vec<String>,
    /// Side by side with another mark on the same spot: -1 left, 1 right, 0 alone.
    pub slot: i8,
}

impl Mark {
    /// What the mark means, as a tooltip says it.
    pub fn title(&self) -> String {
        format!("{} of {}: {}", self.kind.name(), self.populations.join(", "), self.place)
    }
}

/// A point to mark a region by: its bounding box's centre, or for a shape
/// that does not cover its centre (an L, a ring of polygon) its first vertex.
fn region_point(program: &Program, r: usize) -> Vec2 {
    let shape = &program.world.regions[r].shape;
    let b = bounding_box(shape);
    let c = (b.min + b.max) / 2.0;
    if contains(shape, c) {
        return c;
    }
    crate::world::geometry::outline(shape).first().copied().unwrap_or(c)
}

fn point_name(p: Vec2) -> String {
    let t = |v: f64| {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("({} m, {} m)", t(p.x), t(p.y))
}

/// Every spawn and goal of the program: spawns first, each kind in the order
/// of the populations that name it.
pub fn marks(program: &Program) -> Vec<Mark> {
    let mut found: Vec<(Kind, Spot, usize)> = Vec::new();
    for (p, pop) in program.populations.iter().enumerate() {
        match &pop.spawn {
            Place::Point(v) => found.push((Kind::Spawn, Spot::Point(*v), p)),
            Place::Region(r) | Place::Chaotic { region: r, .. } => {
                found.push((Kind::Spawn, Spot::Region(r.index()), p))
            }
            Place::Around { .. } => {}
        }
        match &pop.goal {
            Some(Goal::Point(v)) => found.push((Kind::Goal, Spot::Point(*v), p)),
            Some(Goal::Region(r)) => found.push((Kind::Goal, Spot::Region(r.index()), p)),
            Some(Goal::Object(o)) => found.push((Kind::Goal, Spot::Object(o.index()), p)),
            Some(Goal::Resource(_) | Goal::Agent(_)) | None => {}
        }
        for action in program.behaviours[pop.behaviour.index()].body.actions() {
            let target = match action {
                Action::Seek { target, .. } | Action::PushGoal(target) => target,
                Action::Evacuate { via: Some(r) } => {
                    found.push((Kind::Goal, Spot::Region(r.index()), p));
                    continue;
                }
                _ => continue,
            };
            match target {
                Target::Point(v) => found.push((Kind::Goal, Spot::Point(*v), p)),
                Target::Region(r) => found.push((Kind::Goal, Spot::Region(r.index()), p)),
                Target::Object(o) => found.push((Kind::Goal, Spot::Object(o.index()), p)),
                Target::OwnGoal | Target::Resource(_) | Target::Subject(_) => {}
            }
        }
        if let Leave::Via { region, .. } = pop.leave {
            found.push((Kind::Goal, Spot::Region(region.index()), p));
        }
    }
    // One mark per kind and spot, spawns first; populations in declaration order.
    let mut marks: Vec<(Kind, Spot, Vec<usize>)> = Vec::new();
    for kind in [Kind::Spawn, Kind::Goal] {
        for &(k, spot, p) in found.iter().filter(|f| f.0 == kind) {
            match marks.iter_mut().find(|m| m.0 == k && m.1 == spot) {
                Some(m) if !m.2.contains(&p) => m.2.push(p),
                Some(_) => {}
                None => marks.push((k, spot, vec![p])),
            }
        }
    }
    let shared = |spot: Spot| marks.iter().filter(|m| m.1 == spot).count() > 1;
    marks
        .iter()
        .map(|(kind, spot, pops)| {
            let (at, place) = match *spot {
                Spot::Region(r) => (region_point(program, r), format!("region {}", program.world.regions[r].name)),
                Spot::Object(o) => (program.objects[o].position, format!("object {}", program.objects[o].name)),
                Spot::Point(v) => (v, point_name(v)),
            };
            let slot = match (shared(*spot), kind) {
                (false, _) => 0,
                (true, Kind::Spawn) => -1,
                (true, Kind::Goal) => 1,
            };
            Mark {
                kind: *kind,
                at,
                place,
                populations: pops.iter().map(|&p| program.populations[p].name.clone()).collect(),
                slot,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    fn program(text: &str) -> Program {
        crate::compile(&SourceFile::new("t.crowd", text.to_string())).expect("compiles").program
    }

    #[test]
    fn crossing_crowds_spawn_where_the_others_head() {
        let p = program(
            "scenario s { seed 1; duration 1 s; step 1 s }
             world {
               bounds (0 m, 0 m) to (40 m, 8 m)
               region west rect (0 m, 0 m) to (8 m, 8 m)
               region east rect (32 m, 0 m) to (40 m, 8 m)
             }
             population e { count 2; spawn in west; goal region east; behaviour go }
             population w { count 2; spawn in east; goal region west; behaviour go }
             population x { count 2; spawn at (20 m, 4 m); goal (37 m, 4 m); behaviour go }
             behaviour go { seek goal using straight }",
        );
        let m = marks(&p);
        let seen: Vec<(Kind, &str, Vec<&str>, i8)> = m
            .iter()
            .map(|m| (m.kind, m.place.as_str(), m.populations.iter().map(String::as_str).collect(), m.slot))
            .collect();
        assert_eq!(
            seen,
            vec![
                (Kind::Spawn, "region west", vec!["e"], -1),
                (Kind::Spawn, "region east", vec!["w"], -1),
                (Kind::Spawn, "(20 m, 4 m)", vec!["x"], 0),
                (Kind::Goal, "region east", vec!["e"], 1),
                (Kind::Goal, "region west", vec!["w"], 1),
                (Kind::Goal, "(37 m, 4 m)", vec!["x"], 0),
            ]
        );
        assert_eq!(m[0].at, Vec2::new(4.0, 4.0));
        assert_eq!(m[0].title(), "spawn of e: region west");
    }

    #[test]
    fn exits_and_sought_places_are_goals() {
        let p = program(
            "scenario s { seed 1; duration 10 s; step 1 s }
             world {
               bounds (0 m, 0 m) to (40 m, 8 m)
               region gate rect (0 m, 0 m) to (2 m, 8 m)
             }
             population a { count 2; spawn in gate; leave via gate from 5 s; behaviour go }
             population b { count 2; spawn in gate; leave via gate from 5 s; behaviour go }
             behaviour go { seek (30 m, 4 m) using straight }",
        );
        let m = marks(&p);
        let seen: Vec<(Kind, &str, usize)> =
            m.iter().map(|m| (m.kind, m.place.as_str(), m.populations.len())).collect();
        assert_eq!(
            seen,
            vec![(Kind::Spawn, "region gate", 2), (Kind::Goal, "(30 m, 4 m)", 2), (Kind::Goal, "region gate", 2)]
        );
    }
}
