//! The text form printed by `crowd ir`: what the checker lowered a scenario
//! to, one line per fact, written by hand for every type of the IR so that
//! the form changes only when this module (and `docs/ir.md`) say so, never
//! because a Rust field was renamed or a derive reordered.
//!
//! - **Lines.** Every line is `path: value`. A path names one entity or one
//!   field of it: `population[0].speed`. Lists are indexed from 0 in IR
//!   order (`world.region[2]`, `behaviour[1].state[0].action[3]`); an
//!   entity's own line (`population[0]: "guests"`) holds its name, and its
//!   fields follow on lines of their own. Since every line carries its whole
//!   path, `diff` of two outputs shows what changed where, and `grep` finds
//!   every line of an entity.
//! - **Order.** Scenario header, world, spaces, objects, resources,
//!   populations, groups, behaviours, model parameters, expectations, output:
//!   the IR's order, which is declaration order (rules: by priority; model
//!   parameters: by model, then name). The IR holds no hash-ordered container,
//!   so the text is a function of the program.
//! - **Numbers.** The shortest decimal that reads back to the same double
//!   (`0.35`, `0.041666666666666664`, `10`), never an exponent, `-0` kept.
//!   Every number is in SI units and followed by its unit (`0.35 m`, `1.2
//!   m/s`, `30 s`, `4.71238898038469 rad`, `8 per m2`, `0.25 per s`); a
//!   point, a list of points or a shape ends with one unit shared by all its
//!   numbers (`rect (0, 0) to (40, 14) m`). Fractions (probabilities, shares,
//!   percentages) and plain numbers have no unit.
//! - **References.** A reference to another entity is that entity's path and
//!   name: `world.region[0] "gate"`, `behaviour[1].state[2] "stay"`.
//! - **Absent values.** An optional field that is not set prints `none`; an
//!   optional clause of a one-line value (a planner's options, a marker
//!   spray's weight) is left out, as in the language.
//! - **Left out.** `Program::switches`: every compiled program has them all on.

mod agents;
mod behaviours;
mod expectations;
mod world;

use std::fmt::{Display, Write};

use super::params::{Dim, PARAMS};
use super::{Column, Program, Rect, Shape, Vec2, NONE};

/// The program as `crowd ir` prints it.
pub fn to_text(p: &Program) -> String {
    let mut o = Out { p, text: String::new() };
    o.line("scenario", quoted(&p.name));
    o.line("scenario.seed", p.header.seed);
    o.line("scenario.duration", quantity(p.header.duration, S));
    o.line("scenario.step", quantity(p.header.dt, S));
    o.line("scenario.record_every", counted(p.header.record_every, "step"));
    world::world(&mut o);
    world::spaces(&mut o);
    agents::populations(&mut o);
    agents::groups(&mut o);
    behaviours::behaviours(&mut o);
    for (model, name, value) in p.params.values() {
        o.line(format_args!("param.{model}.{name}"), quantity(value, unit_of(param_dim(model, name))));
    }
    expectations::expectations(&mut o);
    output(&mut o);
    o.text
}

/// [`to_text`] of the program as its layout leaves it: the expectations'
/// texts (kept as written, for reports) without their blanks. Two files that
/// differ only in layout give the same.
pub fn meaning_text(p: &Program) -> String {
    let mut q = p.clone();
    for e in &mut q.expectations {
        e.text.retain(|c| !c.is_whitespace());
    }
    to_text(&q)
}

fn output(o: &mut Out) {
    for (i, column) in o.p.output.columns.iter().enumerate() {
        let path = format!("output.column[{i}]");
        match column {
            Column::Speed => o.line(&path, "speed"),
            Column::Goal => o.line(&path, "goal"),
            Column::Formation => o.line(&path, "formation"),
            Column::Radius => o.line(&path, "radius"),
            Column::Var { name, slots } => {
                o.line(&path, format_args!("var {}", quoted(name)));
                for (pop, &slot) in slots.iter().enumerate() {
                    let var = match o.p.populations.get(pop) {
                        Some(population) if slot != NONE => o.var(population.behaviour.index(), slot),
                        _ => "none".to_string(),
                    };
                    o.line(format_args!("{path}.{POPULATION}[{pop}]"), var);
                }
            }
        }
    }
}

/// The text being written, and the program it describes (for the names of
/// the entities its references point at).
struct Out<'p> {
    p: &'p Program,
    text: String,
}

impl Out<'_> {
    fn line(&mut self, path: impl Display, value: impl Display) {
        let _ = writeln!(self.text, "{path}: {value}");
    }

    /// The head line of a named entity, whose fields follow.
    fn entity(&mut self, path: &str, name: &str) {
        self.line(path, quoted(name));
    }
}

// The paths of the entities that references point at: a reference is the
// path of what it refers to, so a reader greps for it.
const OBSTACLE: &str = "world.obstacle";
const REGION: &str = "world.region";
const SHAPE: &str = "world.shape";
const MASK: &str = "world.mask";
const SPACE: &str = "space";
const OBJECT: &str = "object";
const RESOURCE: &str = "resource";
const POPULATION: &str = "population";
const GROUP: &str = "group";
const BEHAVIOUR: &str = "behaviour";

/// `path[i] "name"`, or `path[i]` alone if the program has no such entity
/// (a program built in code may hold a dangling index; the text still prints).
fn reference(path: &str, i: usize, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{path}[{i}] {}", quoted(name)),
        None => format!("{path}[{i}]"),
    }
}

impl Out<'_> {
    fn obstacle(&self, id: super::ObstacleId) -> String {
        let i = id.index();
        reference(OBSTACLE, i, self.p.world.obstacles.get(i).map(|x| x.name.as_str()))
    }
    fn region(&self, id: super::RegionId) -> String {
        let i = id.index();
        reference(REGION, i, self.p.world.regions.get(i).map(|x| x.name.as_str()))
    }
    fn shape(&self, id: super::ShapeId) -> String {
        let i = id.index();
        reference(SHAPE, i, self.p.world.shapes.get(i).map(|x| x.name.as_str()))
    }
    fn mask(&self, id: super::MaskId) -> String {
        let i = id.index();
        reference(MASK, i, self.p.world.masks.get(i).map(|x| x.name.as_str()))
    }
    fn space(&self, id: super::SpaceId) -> String {
        let i = id.index();
        reference(SPACE, i, self.p.spaces.get(i).map(|x| x.name.as_str()))
    }
    fn object(&self, id: super::ObjectId) -> String {
        let i = id.index();
        reference(OBJECT, i, self.p.objects.get(i).map(|x| x.name.as_str()))
    }
    fn resource(&self, id: super::ResourceId) -> String {
        let i = id.index();
        reference(RESOURCE, i, self.p.resources.get(i).map(String::as_str))
    }
    fn population(&self, id: super::PopulationId) -> String {
        let i = id.index();
        reference(POPULATION, i, self.p.populations.get(i).map(|x| x.name.as_str()))
    }
    fn group(&self, id: super::GroupId) -> String {
        let i = id.index();
        reference(GROUP, i, self.p.groups.get(i).map(|x| x.name.as_str()))
    }
    fn behaviour(&self, id: super::BehaviourId) -> String {
        let i = id.index();
        reference(BEHAVIOUR, i, self.p.behaviours.get(i).map(|x| x.name.as_str()))
    }
    /// Var `v` of behaviour `b`.
    fn var(&self, b: usize, v: u32) -> String {
        let name = self.p.behaviours.get(b).and_then(|x| x.vars.get(v as usize)).map(|x| x.name.as_str());
        reference(&format!("{BEHAVIOUR}[{b}].var"), v as usize, name)
    }

    /// A comma-separated list of references, or `none`.
    fn list<T: Copy>(&self, items: &[T], each: impl Fn(&Self, T) -> String) -> String {
        if items.is_empty() {
            return "none".into();
        }
        items.iter().map(|&x| each(self, x)).collect::<Vec<_>>().join(", ")
    }
}

// Units, as the language writes them.
const M: &str = "m";
const S: &str = "s";
const M_S: &str = "m/s";
const RAD: &str = "rad";
const PER_M2: &str = "per m2";
const PER_S: &str = "per s";
/// Fractions, plain and whole numbers.
const NO_UNIT: &str = "";

fn unit_of(dim: Dim) -> &'static str {
    match dim {
        Dim::Length => M,
        Dim::Time => S,
        Dim::Speed => M_S,
        Dim::Angle => RAD,
        Dim::Density => PER_M2,
        Dim::Rate => PER_S,
        Dim::Percent | Dim::Number | Dim::Count => NO_UNIT,
    }
}

/// The dimension of parameter `model.name` (a plain number if the table has
/// no such row: the checker lets none through).
fn param_dim(model: &str, name: &str) -> Dim {
    PARAMS.iter().find(|p| p.model == model && p.name == name).map_or(Dim::Number, |p| p.dim)
}

/// `x` as the shortest decimal that reads back to the same double: no
/// exponent, no trailing `.0`, the sign of a zero kept (`-0`) so that the text
/// tells apart every two programs that differ. Infinities and NaN, which no
/// checked program holds, print as `inf`, `-inf` and `nan`.
fn number(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x == 0.0 && x.is_sign_negative() {
        "-0".into()
    } else {
        crate::trace::float::format_f64(x)
    }
}

/// `x` and its unit: `0.35 m`; a plain number alone.
fn quantity(x: f64, unit: &str) -> String {
    if unit.is_empty() {
        number(x)
    } else {
        format!("{} {unit}", number(x))
    }
}

/// `1 agent`, `2 agents`.
fn counted(n: u32, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `(x, y)`, without a unit: the caller writes the one unit of the whole.
fn point(v: Vec2) -> String {
    format!("({}, {})", number(v.x), number(v.y))
}

/// `[(x, y), (x, y)]`, without a unit.
fn points(ps: &[Vec2]) -> String {
    format!("[{}]", ps.iter().map(|&v| point(v)).collect::<Vec<_>>().join(", "))
}

/// A position: `(x, y) m`.
fn position(v: Vec2) -> String {
    format!("{} {M}", point(v))
}

fn rect(r: &Rect) -> String {
    format!("rect {} to {} {M}", point(r.min), point(r.max))
}

fn shape(s: &Shape) -> String {
    match s {
        Shape::Rect(r) => rect(r),
        Shape::Circle { center, radius } => format!("circle {} radius {} {M}", point(*center), number(*radius)),
        Shape::Polygon(ps) => format!("polygon {} {M}", points(ps)),
        Shape::Polyline { points: ps, width } => format!("polyline {} width {} {M}", points(ps), number(*width)),
        Shape::Segment { a, b } => format!("segment {} to {} {M}", point(*a), point(*b)),
    }
}

/// A name or a text in double quotes, with `"`, `\` and control characters
/// escaped so that it stays on its line.
fn quoted(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(q, "\\u{{{:x}}}", u32::from(c));
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests;
