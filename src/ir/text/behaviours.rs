//! Behaviours: state variables, rules and states, and what they are made of
//! (conditions, triggers, actions, planners).

use super::agents::{dist, formation};
use super::{number, param_dim, point, position, quantity, unit_of, Out, BEHAVIOUR, M, PER_S, RAD, S};
use crate::ir::{Action, BehaviourBody, CompareOp, Condition, Planner, Subject, Target, Trigger};

pub(super) fn behaviours(o: &mut Out) {
    let p = o.p;
    for (b, behaviour) in p.behaviours.iter().enumerate() {
        let path = format!("{BEHAVIOUR}[{b}]");
        o.entity(&path, &behaviour.name);
        for (v, var) in behaviour.vars.iter().enumerate() {
            let var_path = format!("{path}.var[{v}]");
            o.entity(&var_path, &var.name);
            for (k, rise) in var.rises.iter().enumerate() {
                let value = format!("{} when {}", quantity(rise.rate, PER_S), o.condition(b, &rise.when));
                o.line(format_args!("{var_path}.rise[{k}]"), value);
            }
            o.line(format_args!("{var_path}.decay"), quantity(var.decay, PER_S));
            o.line(format_args!("{var_path}.start"), number(var.start));
            o.line(format_args!("{var_path}.max"), number(var.max));
        }
        match &behaviour.body {
            BehaviourBody::Rules(rules) => {
                for (r, rule) in rules.iter().enumerate() {
                    let rule_path = format!("{path}.rule[{r}]");
                    o.entity(&rule_path, &rule.name);
                    o.line(format_args!("{rule_path}.priority"), rule.priority);
                    let when = rule.when.as_ref().map_or("none".into(), |c| o.condition(b, c));
                    o.line(format_args!("{rule_path}.when"), when);
                    for (a, action) in rule.actions.iter().enumerate() {
                        o.line(format_args!("{rule_path}.action[{a}]"), o.action(action));
                    }
                }
            }
            BehaviourBody::States(states) => {
                for (s, state) in states.iter().enumerate() {
                    let state_path = format!("{path}.state[{s}]");
                    o.entity(&state_path, &state.name);
                    for (a, action) in state.actions.iter().enumerate() {
                        o.line(format_args!("{state_path}.action[{a}]"), o.action(action));
                    }
                    for (t, transition) in state.transitions.iter().enumerate() {
                        let trigger = match &transition.trigger {
                            Trigger::Arrival => "on arrival".to_string(),
                            Trigger::Done => "when done".to_string(),
                            Trigger::After(t) => format!("after {}", quantity(*t, S)),
                            Trigger::Condition(c) => format!("when {}", o.condition(b, c)),
                        };
                        let to = o.state(b, transition.to);
                        o.line(format_args!("{state_path}.transition[{t}]"), format!("{trigger} go {to}"));
                    }
                }
            }
        }
    }
}

impl Out<'_> {
    /// State `s` of behaviour `b`.
    fn state(&self, b: usize, s: u32) -> String {
        let name = match self.p.behaviours.get(b).map(|x| &x.body) {
            Some(BehaviourBody::States(states)) => states.get(s as usize).map(|x| x.name.as_str()),
            _ => None,
        };
        super::reference(&format!("{BEHAVIOUR}[{b}].state"), s as usize, name)
    }

    pub(super) fn subject(&self, s: Subject) -> String {
        match s {
            Subject::Everyone => "everyone".into(),
            Subject::Population(p) => self.population(p),
            Subject::Group(g) => self.group(g),
            Subject::Followers(g) => format!("followers of {}", self.group(g)),
        }
    }

    /// A condition of behaviour `b` (whose vars it may read).
    fn condition(&self, b: usize, c: &Condition) -> String {
        let sight = |what: String, radius: f64, cone: Option<f64>| {
            let mut s = format!("sees {what} within {}", quantity(radius, M));
            if let Some(cone) = cone {
                s += &format!(" cone {}", quantity(cone, RAD));
            }
            s
        };
        match c {
            Condition::Sees { who, radius, cone } => sight(self.subject(*who), *radius, *cone),
            Condition::TimeAfter(t) => format!("time >= {}", quantity(*t, S)),
            Condition::SeesRegion { region, radius, cone } => sight(self.region(*region), *radius, *cone),
            Condition::SeesObstacle { obstacle, radius, cone } => {
                let what = obstacle.map_or("obstacle".into(), |x| self.obstacle(x));
                sight(what, *radius, *cone)
            }
            Condition::Var { var, op, value } => {
                let op = match op {
                    CompareOp::Less => "<",
                    CompareOp::AtMost => "<=",
                    CompareOp::Greater => ">",
                    CompareOp::AtLeast => ">=",
                };
                format!("{} {op} {}", self.var(b, *var), number(*value))
            }
            Condition::RemembersGoal => "remembers goal".into(),
            Condition::Not(inner) => format!("not {}", self.condition_operand(b, inner)),
            Condition::All(all) => all.iter().map(|x| self.condition_operand(b, x)).collect::<Vec<_>>().join(" and "),
        }
    }

    /// A condition inside `not` or `and`: in parentheses if it is itself an
    /// `and`, so that the text reads one way only (`not` binds tighter than
    /// `and`, as in the language).
    fn condition_operand(&self, b: usize, c: &Condition) -> String {
        let text = self.condition(b, c);
        if matches!(c, Condition::All(_)) {
            format!("({text})")
        } else {
            text
        }
    }

    fn target(&self, t: &Target) -> String {
        match t {
            Target::OwnGoal => "goal".into(),
            Target::Point(v) => position(*v),
            Target::Region(r) => self.region(*r),
            Target::Resource(r) => self.resource(*r),
            Target::Subject(s) => self.subject(*s),
            Target::Object(x) => self.object(*x),
        }
    }

    fn action(&self, a: &Action) -> String {
        match a {
            Action::Seek { target, planner: pl } => format!("seek {} using {}", self.target(target), planner(pl)),
            Action::Wander => "wander".into(),
            Action::Dwell(None) => "dwell".into(),
            Action::Dwell(Some(d)) => format!("dwell {}", dist(d, S)),
            Action::PickGoal => "pick goal from wants".into(),
            Action::Pursue { target, planner: pl } => {
                format!("pursue {} using {}", self.subject(*target), planner(pl))
            }
            Action::Surround { target } => format!("surround {}", self.subject(*target)),
            Action::Escape { from } => format!("escape from {}", self.subject(*from)),
            Action::Form { shape } => format!("form {}", self.shape(*shape)),
            Action::Align { mask } => format!("align to {}", self.mask(*mask)),
            Action::Follow { leader: None } => "follow leader".into(),
            Action::Follow { leader: Some(s) } => format!("follow {}", self.subject(*s)),
            Action::Flock { separation, cohesion, alignment } => format!(
                "flock separation {} cohesion {} alignment {}",
                number(*separation),
                number(*cohesion),
                number(*alignment)
            ),
            Action::Hunt { prey, catch_within } => {
                format!("hunt {} catch within {}", self.subject(*prey), quantity(*catch_within, M))
            }
            Action::Flee { from } => format!("flee {}", self.subject(*from)),
            Action::Evacuate { via: None } => "evacuate".into(),
            Action::Evacuate { via: Some(r) } => format!("evacuate via {}", self.region(*r)),
            Action::SetFormation(f) => format!("formation {}", formation(f)),
            Action::PushGoal(t) => format!("push goal {}", self.target(t)),
            Action::PopGoal => "pop goal".into(),
        }
    }
}

/// The planner's kind, then the options it has, as the language writes them;
/// its parameter overrides in their model's units.
fn planner(p: &Planner) -> String {
    let mut s = p.kind.keyword().to_string();
    if p.reserve_markers {
        s += " reserve markers";
    }
    if p.disjoint_markers {
        s += " disjoint markers";
    }
    if let Some(bias) = p.bias {
        s += &format!(" bias {}", point(bias));
    }
    if let Some((x, y)) = p.grid {
        s += &format!(" grid {x} x {y}");
    }
    if p.crowd_aware {
        s += " crowd_aware";
    }
    if p.pairwise_checks {
        s += " pairwise_checks";
    }
    let model = p.kind.param_model();
    for (name, value) in &p.params {
        s += &format!(" {name} {}", quantity(*value, unit_of(param_dim(model, name))));
    }
    s
}
