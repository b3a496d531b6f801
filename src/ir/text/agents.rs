//! Populations and groups, and the values they share with behaviours:
//! distributions, goals and formations.

use super::{counted, number, points, position, quantity, Out, GROUP, M, M_S, POPULATION, S};
use crate::ir::{Dist, Formation, Goal, Leave, MapVia, Place, Schedule};

pub(super) fn populations(o: &mut Out) {
    let p = o.p;
    for (i, pop) in p.populations.iter().enumerate() {
        let path = format!("{POPULATION}[{i}]");
        o.entity(&path, &pop.name);
        let schedule = match pop.schedule {
            Schedule::Fixed { count } => format!("count {}", counted(count, "agent")),
            Schedule::Peak { count, at } => format!("peak {} at {}", counted(count, "agent"), quantity(at, S)),
        };
        o.line(format_args!("{path}.schedule"), schedule);
        let leave = match pop.leave {
            Leave::Never => "never".to_string(),
            Leave::After(t) => format!("after {}", quantity(t, S)),
            Leave::Via { region, from } => format!("via {} from {}", o.region(region), quantity(from, S)),
        };
        o.line(format_args!("{path}.leave"), leave);
        let spawn = match pop.spawn {
            Place::Point(v) => format!("at {}", position(v)),
            Place::Region(r) => format!("in {}", o.region(r)),
            Place::Chaotic { region, r } => format!("in {} chaotic r {}", o.region(region), number(r)),
            Place::Around { leader, within } => {
                format!("around {} within {}", o.population(leader), quantity(within, M))
            }
        };
        o.line(format_args!("{path}.spawn"), spawn);
        let sizes: Vec<String> = pop.group_sizes.iter().map(|&(size, p)| format!("{size}: {}", number(p))).collect();
        o.line(format_args!("{path}.group_sizes"), if sizes.is_empty() { "none".into() } else { sizes.join(", ") });
        o.line(format_args!("{path}.speed"), dist(&pop.speed, M_S));
        o.line(format_args!("{path}.radius"), dist(&pop.radius, M));
        o.line(format_args!("{path}.personal_space"), dist(&pop.personal_space, M));
        o.line(format_args!("{path}.goal"), pop.goal.as_ref().map_or("none".into(), |g| o.goal(g)));
        o.line(format_args!("{path}.wants"), o.list(&pop.wants, Out::resource));
        o.line(format_args!("{path}.dwell"), dist(&pop.dwell, S));
        o.line(format_args!("{path}.behaviour"), o.behaviour(pop.behaviour));
        o.line(format_args!("{path}.formation"), pop.formation.as_ref().map_or("none".into(), formation));
    }
}

pub(super) fn groups(o: &mut Out) {
    let p = o.p;
    for (i, group) in p.groups.iter().enumerate() {
        let path = format!("{GROUP}[{i}]");
        o.entity(&path, &group.name);
        o.line(format_args!("{path}.members"), o.list(&group.members, Out::population));
        o.line(format_args!("{path}.leader"), group.leader.map_or("none".into(), |l| o.population(l)));
        let followers = group
            .followers
            .as_ref()
            .map_or("none".into(), |f| format!("{} within {}", o.population(f.population), quantity(f.within, M)));
        o.line(format_args!("{path}.followers"), followers);
        o.line(format_args!("{path}.formation"), group.formation.as_ref().map_or("none".into(), formation));
        let map = group.group_map.as_ref().map_or("none".into(), |m| {
            let via = match &m.via {
                MapVia::Planner(kind) => kind.keyword().to_string(),
                MapVia::Sketch(ps) => format!("sketch {} {M}", points(ps)),
            };
            format!("{} x {} cells of {} via {via}", m.cells_x, m.cells_y, quantity(m.cell, M))
        });
        o.line(format_args!("{path}.group_map"), map);
    }
}

/// A random variable whose values are in `unit`: `1.2 m`, `uniform(10 s,
/// 40 s)`, `normal(1.3 m/s, 0.15 m/s) truncated to [0 m/s, 15 m/s]`,
/// `choice(1 m/s: 0.4, 1.5 m/s: 0.6)` (value: probability).
pub(super) fn dist(d: &Dist, unit: &str) -> String {
    let q = |x: f64| quantity(x, unit);
    match d {
        Dist::Constant(v) => q(*v),
        Dist::Uniform { min, max } => format!("uniform({}, {})", q(*min), q(*max)),
        Dist::Normal { mean, sd, min, max } => {
            format!("normal({}, {}) truncated to [{}, {}]", q(*mean), q(*sd), q(*min), q(*max))
        }
        Dist::Choice(items) => {
            let items: Vec<String> = items.iter().map(|&(v, p)| format!("{}: {}", q(v), number(p))).collect();
            format!("choice({})", items.join(", "))
        }
    }
}

pub(super) fn formation(f: &Formation) -> String {
    match f {
        Formation::Auto => "auto".into(),
        Formation::SideBySide => "side_by_side".into(),
        Formation::V => "v".into(),
        Formation::River => "river".into(),
        Formation::Square => "square".into(),
        Formation::Diamond => "diamond".into(),
        Formation::Sketch(ps) => format!("sketch {} {M}", points(ps)),
    }
}

impl Out<'_> {
    fn goal(&self, g: &Goal) -> String {
        match g {
            Goal::Point(v) => position(*v),
            Goal::Region(r) => self.region(*r),
            Goal::Resource(r) => self.resource(*r),
            Goal::Object(x) => self.object(*x),
            Goal::Agent(p) => format!("first agent of {}", self.population(*p)),
        }
    }
}
