//! Behaviours: rules with priorities, or states with transitions, and the
//! actions they take.

use std::collections::BTreeMap;

use super::{units, Checker, Dim, Kind};
use crate::diag::{did_you_mean, Diagnostic};
use crate::ir::{self, PlannerKind};
use crate::syntax::ast::{self, BehaviourStmt};

/// Words a condition begins or joins with: a var of one of these names
/// would not read as a comparison.
const RESERVED_VAR_NAMES: [&str; 6] = ["sees", "time", "not", "and", "remembers", "done"];

/// `true` or `false`: what a comparison of a var with a number below 0
/// (`below`) or above its max gives for every value the var can take.
fn always(op: ast::CompareOp, below: bool) -> &'static str {
    let greater = matches!(op, ast::CompareOp::Greater | ast::CompareOp::AtLeast);
    if greater == below {
        "true"
    } else {
        "false"
    }
}

impl Checker {
    pub(super) fn behaviours(&mut self, file: &ast::File) -> Vec<ir::Behaviour> {
        file.items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Behaviour(b) => Some(self.behaviour(b)),
                _ => None,
            })
            .collect()
    }

    fn behaviour(&mut self, b: &ast::Behaviour) -> ir::Behaviour {
        self.declare_vars(b);
        let has_states = b.stmts.iter().any(|s| matches!(s, BehaviourStmt::State(_)));
        let has_other = b.stmts.iter().find(|s| matches!(s, BehaviourStmt::Rule(_) | BehaviourStmt::Action(_)));
        let body = if has_states {
            if let Some(other) = has_other {
                let span = match other {
                    BehaviourStmt::Rule(r) => r.span.clone(),
                    BehaviourStmt::Action(a) => a.span.clone(),
                    BehaviourStmt::State(_) | BehaviourStmt::Var(_) => unreachable!(),
                };
                self.error(
                    Diagnostic::error(
                        "E091",
                        span,
                        format!("behaviour `{}` mixes states with rules or bare actions", b.name.text),
                    )
                    .label("outside any state")
                    .help("a behaviour is either a list of states, or rules and actions: move this into a state"),
                );
            }
            ir::BehaviourBody::States(self.states(b))
        } else {
            ir::BehaviourBody::Rules(self.rules(b))
        };
        if b.stmts.iter().all(|s| matches!(s, BehaviourStmt::Var(_))) {
            self.error(
                Diagnostic::error("E070", b.name.span.clone(), format!("behaviour `{}` is empty", b.name.text))
                    .label("does nothing")
                    .help("give it an action, e.g. `seek goal using tree_paths`"),
            );
        }
        let vars = self.vars(b);
        self.vars_in_scope.clear();
        ir::Behaviour { name: b.name.text.clone(), body, vars }
    }

    /// Puts the behaviour's vars in scope for its conditions (in any order
    /// of declaration), reporting names given twice and names that would
    /// read as another condition.
    fn declare_vars(&mut self, b: &ast::Behaviour) {
        self.behaviour_in_scope = b.name.text.clone();
        self.vars_in_scope.clear();
        self.var_symbols.clear();
        // Each name's first declaration and its symbol.
        let mut first: BTreeMap<&str, (ast::Span, usize)> = BTreeMap::new();
        for s in &b.stmts {
            let BehaviourStmt::Var(v) = s else { continue };
            let name = &v.name;
            if let Some((span, symbol)) = first.get(name.text.as_str()).cloned() {
                self.symbols.use_at(name, symbol);
                self.var_symbols.push(symbol);
                self.error(
                    Diagnostic::error("E011", name.span.clone(), format!("var `{}` is declared twice", name.text))
                        .label("declared again here")
                        .related(span, "first declared here")
                        .help("give every var of a behaviour its own name"),
                );
            } else {
                let symbol = self.symbols.declare(name, Kind::Var, Some(&b.name.text));
                self.var_symbols.push(symbol);
                first.insert(&name.text, (name.span.clone(), symbol));
            }
            if RESERVED_VAR_NAMES.contains(&name.text.as_str()) {
                self.error(
                    Diagnostic::error("E096", name.span.clone(), format!("a var may not be called `{}`", name.text))
                        .label("a word conditions are made of")
                        .help(format!(
                            "`{}` begins or joins conditions, so `{} > 0.5` would not read as a comparison: rename \
                             the var",
                            name.text, name.text
                        )),
                );
            }
            let max = v.stmts.iter().find_map(|s| match s {
                ast::VarStmt::Max(q) => Some(units::si(q, Dim::Number).ok().filter(|m| *m > 0.0)),
                _ => None,
            });
            self.vars_in_scope.push((name.text.clone(), max.unwrap_or(Some(1.0))));
        }
    }

    /// The vars' dynamics, with every mistake reported; a var with a bad
    /// value keeps its place (conditions refer to vars by place).
    fn vars(&mut self, b: &ast::Behaviour) -> Vec<ir::Var> {
        let mut out = vec![];
        for s in &b.stmts {
            let BehaviourStmt::Var(v) = s else { continue };
            let mut var = ir::Var { name: v.name.text.clone(), rises: vec![], decay: 0.0, start: 0.0, max: 1.0 };
            let (mut decay, mut start, mut max) = (None, None, None);
            for stmt in &v.stmts {
                match stmt {
                    ast::VarStmt::Rise { rate, when, .. } => {
                        let what = format!("the rise rate of `{}`", v.name.text);
                        let rate = self.si_in(rate, Dim::Rate, 0.0, f64::INFINITY, false, &what);
                        let when = self.condition(when);
                        if let (Some(rate), Some(when)) = (rate, when) {
                            var.rises.push(ir::Rise { rate, when });
                        }
                    }
                    ast::VarStmt::Decay(q) => self.once(&mut decay, q.clone(), q.span.clone(), "decay"),
                    ast::VarStmt::Start(q) => self.once(&mut start, q.clone(), q.span.clone(), "start"),
                    ast::VarStmt::Max(q) => self.once(&mut max, q.clone(), q.span.clone(), "max"),
                }
            }
            if let Some((q, _)) = &decay {
                let what = format!("the decay rate of `{}`", v.name.text);
                var.decay = self.si_in(q, Dim::Rate, 0.0, f64::INFINITY, false, &what).unwrap_or(0.0);
            }
            if let Some((q, _)) = &max {
                let what = format!("the max of `{}`", v.name.text);
                var.max = self.si_in(q, Dim::Number, 0.0, f64::INFINITY, true, &what).unwrap_or(1.0);
            }
            if let Some((q, _)) = &start {
                let what = format!("the start of `{}`", v.name.text);
                var.start = self.si_in(q, Dim::Number, 0.0, var.max, false, &what).unwrap_or(0.0);
            }
            out.push(var);
        }
        out
    }

    fn rules(&mut self, b: &ast::Behaviour) -> Vec<ir::Rule> {
        let mut rules = vec![];
        let mut bare = vec![];
        let mut seen: BTreeMap<String, ast::Span> = BTreeMap::new();
        for s in &b.stmts {
            match s {
                BehaviourStmt::Action(a) => bare.extend(self.action(a)),
                BehaviourStmt::Rule(r) => {
                    if let Some(first) = seen.get(&r.name.text) {
                        self.error(
                            Diagnostic::error(
                                "E011",
                                r.name.span.clone(),
                                format!("rule `{}` is declared twice", r.name.text),
                            )
                            .label("declared again here")
                            .related(first.clone(), "first declared here")
                            .help("give every rule of a behaviour its own name"),
                        );
                    }
                    seen.insert(r.name.text.clone(), r.name.span.clone());
                    let priority = match &r.priority {
                        Some(q) => {
                            self.si(q, Dim::Number).filter(|p| p.fract() == 0.0 && p.abs() <= 1e6).map(|p| p as i32)
                        }
                        None => Some(0),
                    };
                    if priority.is_none() {
                        if let Some(q) = &r.priority {
                            self.error(
                                Diagnostic::error("E030", q.span.clone(), "priority out of range")
                                    .label("not a whole number within ±1000000")
                                    .help("priorities are whole numbers; higher fires first"),
                            );
                        }
                    }
                    let when = r.when.as_ref().and_then(|c| self.condition(c));
                    let actions = r.actions.iter().filter_map(|a| self.action(a)).collect();
                    rules.push(ir::Rule { name: r.name.text.clone(), priority: priority.unwrap_or(0), when, actions });
                }
                BehaviourStmt::State(_) | BehaviourStmt::Var(_) => {}
            }
        }
        if !bare.is_empty() {
            rules.push(ir::Rule { name: "default".into(), priority: i32::MIN, when: None, actions: bare });
        }
        // Stable: equal priorities keep declaration order.
        rules.sort_by_key(|r| std::cmp::Reverse(r.priority));
        rules
    }

    fn states(&mut self, b: &ast::Behaviour) -> Vec<ir::State> {
        let states: Vec<&ast::State> =
            b.stmts.iter().filter_map(|s| if let BehaviourStmt::State(s) = s { Some(s) } else { None }).collect();
        let mut index: BTreeMap<&str, u32> = BTreeMap::new();
        let mut symbol_of: Vec<usize> = Vec::with_capacity(states.len());
        for (i, s) in states.iter().enumerate() {
            if let Some(&first) = index.get(s.name.text.as_str()) {
                let symbol = symbol_of[first as usize];
                self.symbols.use_at(&s.name, symbol);
                symbol_of.push(symbol);
                self.error(
                    Diagnostic::error(
                        "E011",
                        s.name.span.clone(),
                        format!("state `{}` is declared twice", s.name.text),
                    )
                    .label("declared again here")
                    .related(states[first as usize].name.span.clone(), "first declared here")
                    .help("give every state of a behaviour its own name"),
                );
            } else {
                symbol_of.push(self.symbols.declare(&s.name, Kind::State, Some(&b.name.text)));
                index.insert(&s.name.text, i as u32);
            }
        }
        let names: Vec<&str> = index.keys().copied().collect();
        states
            .iter()
            .map(|s| {
                let actions = s.actions.iter().filter_map(|a| self.action(a)).collect();
                let transitions = s
                    .transitions
                    .iter()
                    .filter_map(|t| {
                        let to = match index.get(t.to.text.as_str()) {
                            Some(i) => {
                                self.symbols.use_at(&t.to, symbol_of[*i as usize]);
                                *i
                            }
                            None => {
                                let help = match did_you_mean(&t.to.text, names.iter().copied()) {
                                    Some(n) => format!("did you mean `{n}`?"),
                                    None => format!("states of `{}`: {}", b.name.text, names.join(", ")),
                                };
                                self.error(
                                    Diagnostic::error(
                                        "E010",
                                        t.to.span.clone(),
                                        format!("unknown state `{}` in behaviour `{}`", t.to.text, b.name.text),
                                    )
                                    .label("no such state")
                                    .help(help),
                                );
                                return None;
                            }
                        };
                        let trigger = match &t.trigger {
                            ast::Trigger::Arrival => ir::Trigger::Arrival,
                            ast::Trigger::Done => ir::Trigger::Done,
                            ast::Trigger::After(q) => {
                                ir::Trigger::After(self.si_in(q, Dim::Time, 0.0, f64::INFINITY, false, "state time")?)
                            }
                            ast::Trigger::Condition(c) => ir::Trigger::Condition(self.condition(c)?),
                        };
                        Some(ir::Transition { trigger, to })
                    })
                    .collect();
                ir::State { name: s.name.text.clone(), actions, transitions }
            })
            .collect()
    }

    /// A condition, every atom checked; one atom stays itself, several are `All`.
    fn condition(&mut self, c: &ast::Condition) -> Option<ir::Condition> {
        let mut atoms = Vec::with_capacity(c.atoms.len());
        let mut ok = true;
        for a in &c.atoms {
            match self.basic(&a.basic) {
                Some(b) if a.negated => atoms.push(ir::Condition::Not(Box::new(b))),
                Some(b) => atoms.push(b),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if atoms.len() == 1 {
            atoms.pop()
        } else {
            Some(ir::Condition::All(atoms))
        }
    }

    /// A perception radius and an optional view cone.
    fn reach(&mut self, radius: &ast::Quantity, cone: &Option<ast::Quantity>) -> Option<(f64, Option<f64>)> {
        let radius = self.si_in(radius, Dim::Length, 0.0, f64::INFINITY, true, "perception radius");
        let cone = match cone {
            Some(q) => Some(self.si_in(q, Dim::Angle, 0.0, std::f64::consts::TAU, true, "view cone")?),
            None => None,
        };
        Some((radius?, cone))
    }

    fn basic(&mut self, c: &ast::Basic) -> Option<ir::Condition> {
        match c {
            ast::Basic::Sees { who, radius, cone, .. } => {
                let who = self.subject(who);
                let (radius, cone) = self.reach(radius, cone)?;
                Some(ir::Condition::Sees { who: who?, radius, cone })
            }
            ast::Basic::SeesRegion { region, radius, cone } => {
                let region = self.resolve(region, &[Kind::Region]);
                let (radius, cone) = self.reach(radius, cone)?;
                Some(ir::Condition::SeesRegion { region: ir::RegionId(region?.index), radius, cone })
            }
            ast::Basic::SeesObstacle { obstacle, radius, cone } => {
                let obstacle =
                    obstacle.as_ref().map(|n| self.resolve(n, &[Kind::Obstacle]).map(|d| ir::ObstacleId(d.index)));
                let (radius, cone) = self.reach(radius, cone)?;
                let obstacle = match obstacle {
                    Some(o) => Some(o?),
                    None => None,
                };
                Some(ir::Condition::SeesObstacle { obstacle, radius, cone })
            }
            ast::Basic::TimeAfter(q) => self.time_in_run(q, "time").map(ir::Condition::TimeAfter),
            ast::Basic::Remembers => Some(ir::Condition::RemembersGoal),
            ast::Basic::Compare { var, op, value } => {
                let found = self.vars_in_scope.iter().position(|(n, _)| *n == var.text);
                let x = self.si(value, Dim::Number);
                let Some(k) = found else {
                    let names: Vec<&str> = self.vars_in_scope.iter().map(|(n, _)| n.as_str()).collect();
                    let behaviour = &self.behaviour_in_scope;
                    let help = match did_you_mean(&var.text, names.iter().copied()) {
                        Some(n) => format!("did you mean `{n}`?"),
                        None if names.is_empty() => format!(
                            "declare it in behaviour `{behaviour}`: `var {} {{ rise 1 per s when ...; decay 0.1 per s }}`",
                            var.text
                        ),
                        None => format!("vars of `{behaviour}`: {}", names.join(", ")),
                    };
                    let message = format!("unknown var `{}` in behaviour `{behaviour}`", var.text);
                    self.error(Diagnostic::error("E010", var.span.clone(), message).label("no such var").help(help));
                    return None;
                };
                self.symbols.use_at(var, self.var_symbols[k]);
                let x = x?;
                if let (_, Some(max)) = &self.vars_in_scope[k] {
                    if x < 0.0 || x > *max {
                        let always = always(*op, x < 0.0);
                        let max = *max;
                        self.diags.push(
                            Diagnostic::warning(
                                "W004",
                                value.span.clone(),
                                format!("`{} {} {x}` is always {always}", var.text, op.text()),
                            )
                            .label(format!("`{}` stays between 0 and {max}", var.text))
                            .help(format!("compare with a number from 0 to {max}")),
                        );
                    }
                }
                let op = match op {
                    ast::CompareOp::Less => ir::CompareOp::Less,
                    ast::CompareOp::AtMost => ir::CompareOp::AtMost,
                    ast::CompareOp::Greater => ir::CompareOp::Greater,
                    ast::CompareOp::AtLeast => ir::CompareOp::AtLeast,
                };
                Some(ir::Condition::Var { var: k as u32, op, value: x })
            }
        }
    }

    /// `everyone`, a population or agent, a group, or the followers of a
    /// group with a leader.
    pub(super) fn subject(&mut self, s: &ast::Subject) -> Option<ir::Subject> {
        match s {
            ast::Subject::Everyone(_) => Some(ir::Subject::Everyone),
            ast::Subject::Named(n) => {
                let d = self.resolve(n, &[Kind::Population, Kind::Agent, Kind::Group])?;
                Some(if d.kind == Kind::Group {
                    ir::Subject::Group(ir::GroupId(d.index))
                } else {
                    ir::Subject::Population(ir::PopulationId(d.index))
                })
            }
            ast::Subject::Followers { group, span } => {
                let d = self.resolve(group, &[Kind::Group])?;
                if self.group_led.get(d.index as usize) == Some(&false) {
                    let name = &group.text;
                    self.error(
                        Diagnostic::error("E095", span.clone(), format!("group `{name}` has no leader to leave out"))
                            .label("the followers of a group without a leader")
                            .related(d.span, format!("`{name}` is declared here without `leader` or `followers N around`"))
                            .help(format!("group `{name}` has no leader: name the group itself (`{name}`), or give it one with `leader NAME`")),
                    );
                    return None;
                }
                Some(ir::Subject::Followers(ir::GroupId(d.index)))
            }
        }
    }

    fn action(&mut self, a: &ast::Action) -> Option<ir::Action> {
        use ast::ActionKind as A;
        Some(match &a.kind {
            A::Seek { target, using } => {
                let target = self.target(target, false);
                let planner = self.planner(using.as_ref());
                ir::Action::Seek { target: target?, planner: planner? }
            }
            A::PushGoal(target) => ir::Action::PushGoal(self.target(target, true)?),
            A::PopGoal => ir::Action::PopGoal,
            A::Wander => ir::Action::Wander,
            A::Dwell(d) => match d {
                Some(d) => {
                    ir::Action::Dwell(Some(self.dist_checked(d, Dim::Time, 0.0, f64::INFINITY, "dwell time")?))
                }
                None => ir::Action::Dwell(None),
            },
            A::PickGoal => ir::Action::PickGoal,
            A::Pursue { target, using } => {
                let target = self.subject(target);
                let planner = self.planner(using.as_ref());
                ir::Action::Pursue { target: target?, planner: planner? }
            }
            A::Surround(s) => ir::Action::Surround { target: self.subject(s)? },
            A::Escape(s) => ir::Action::Escape { from: self.subject(s)? },
            A::Form(n) => {
                let shape = self.resolve(n, &[Kind::Shape]);
                if !self.needs_markers(a.span.clone(), "shape formation") {
                    return None;
                }
                ir::Action::Form { shape: ir::ShapeId(shape?.index) }
            }
            A::Align(n) => {
                let mask = self.resolve(n, &[Kind::Mask]);
                if !self.needs_markers(a.span.clone(), "alignment") {
                    return None;
                }
                ir::Action::Align { mask: ir::MaskId(mask?.index) }
            }
            A::Follow(s) => ir::Action::Follow {
                leader: match s {
                    Some(s) => Some(self.subject(s)?),
                    None => None,
                },
            },
            A::Flock(weights) => {
                let mut w = [self.params.boids.separation, self.params.boids.cohesion, self.params.boids.alignment];
                let mut ok = true;
                for (term, q) in weights {
                    let i = ["separation", "cohesion", "alignment"]
                        .iter()
                        .position(|t| *t == term.text)
                        .expect("grammar admits three terms");
                    match self.si_in(q, Dim::Number, 0.0, 1000.0, false, &format!("{} weight", term.text)) {
                        Some(v) => w[i] = v,
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                ir::Action::Flock { separation: w[0], cohesion: w[1], alignment: w[2] }
            }
            A::Hunt { prey, catch_within } => {
                let prey = self.subject(prey);
                let catch = match catch_within {
                    Some(q) => self.si_in(q, Dim::Length, 0.0, f64::INFINITY, true, "catch distance"),
                    None => Some(self.params.boids.catch_distance),
                };
                ir::Action::Hunt { prey: prey?, catch_within: catch? }
            }
            A::Flee(s) => ir::Action::Flee { from: self.subject(s)? },
            A::Evacuate(via) => ir::Action::Evacuate {
                via: match via {
                    Some(r) => Some(self.walkable_region(r)?),
                    None => None,
                },
            },
            A::Formation(f) => ir::Action::SetFormation(self.formation(f)?),
        })
    }

    /// What `seek` (or, with `objects`, `push goal`) walks to.
    fn target(&mut self, target: &ast::Target, objects: bool) -> Option<ir::Target> {
        match target {
            ast::Target::OwnGoal(_) => Some(ir::Target::OwnGoal),
            ast::Target::Point(p) => self
                .point(p)
                .filter(|x| self.goal_walkable(&ir::Goal::Point(*x), p.span.clone()))
                .map(ir::Target::Point),
            ast::Target::Region(r) => self.walkable_region(r).map(ir::Target::Region),
            ast::Target::Resource(r) => self.resource(r).map(ir::Target::Resource),
            ast::Target::Subject(s) => self.subject(s).map(ir::Target::Subject),
            ast::Target::Named(n) => {
                let kinds: &[Kind] = if objects {
                    &[Kind::Region, Kind::Object, Kind::Population, Kind::Agent, Kind::Group]
                } else {
                    &[Kind::Region, Kind::Population, Kind::Agent, Kind::Group]
                };
                match self.resolve(n, kinds).map(|d| (d.kind, d.index)) {
                    Some((Kind::Region, _)) => self.walkable_region(n).map(ir::Target::Region),
                    Some((Kind::Object, k)) => Some(ir::Target::Object(ir::ObjectId(k))),
                    Some(_) => self.subject(&ast::Subject::Named(n.clone())).map(ir::Target::Subject),
                    None => None,
                }
            }
        }
    }

    /// Marker-based models need markers to exist.
    fn needs_markers(&mut self, span: ast::Span, what: &str) -> bool {
        if self.world.as_ref().is_some_and(|w| w.markers.base.is_none()) {
            self.error(
                Diagnostic::error("E070", span, format!("{what} needs markers, and the world has none"))
                    .label("no markers to walk on")
                    .help("add `markers dart_throwing density 8 per m2` (or `jittered_grid`) to the world block"),
            );
            return false;
        }
        true
    }

    fn planner(&mut self, using: Option<&ast::Using>) -> Option<ir::Planner> {
        let mut planner = ir::Planner {
            kind: PlannerKind::Straight,
            reserve_markers: false,
            disjoint_markers: false,
            bias: None,
            grid: None,
            crowd_aware: false,
            pairwise_checks: false,
            params: vec![],
        };
        let Some(u) = using else { return Some(planner) };
        planner.kind = match u.planner.text.as_str() {
            "straight" => PlannerKind::Straight,
            "tree_paths" => PlannerKind::TreePaths,
            "astar" => PlannerKind::AStar,
            "bvp" => PlannerKind::Bvp,
            "ct_space" => PlannerKind::CtSpace,
            _ => PlannerKind::Continuum,
        };
        let mut ok = true;
        if matches!(planner.kind, PlannerKind::TreePaths | PlannerKind::AStar) {
            ok &= self.needs_markers(u.planner.span.clone(), &format!("the {} planner", planner.kind.keyword()));
        }
        let mut seen: Vec<(String, ast::Span)> = vec![];
        for o in &u.options {
            let (key, span) = match o {
                ast::PlannerOption::Reserve(s) => ("reserve markers".to_string(), s.clone()),
                ast::PlannerOption::Disjoint(s) => ("disjoint markers".to_string(), s.clone()),
                ast::PlannerOption::Bias(_, _, s) => ("bias".to_string(), s.clone()),
                ast::PlannerOption::Grid(_, _, s) => ("grid".to_string(), s.clone()),
                ast::PlannerOption::CrowdAware(s) => ("crowd_aware".to_string(), s.clone()),
                ast::PlannerOption::PairwiseChecks(s) => ("pairwise_checks".to_string(), s.clone()),
                ast::PlannerOption::Param(n, _) => (n.text.clone(), n.span.clone()),
            };
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                self.error(
                    Diagnostic::error("E071", span, format!("planner option `{key}` is given twice"))
                        .label("given again here")
                        .related(first.clone(), "first given here")
                        .help("keep one"),
                );
                ok = false;
                continue;
            }
            seen.push((key, span));
            let (allowed, span, what): (&[PlannerKind], _, _) = match o {
                ast::PlannerOption::Reserve(s) => (&[PlannerKind::TreePaths], s.clone(), "reserve markers"),
                ast::PlannerOption::Disjoint(s) => (&[PlannerKind::TreePaths], s.clone(), "disjoint markers"),
                ast::PlannerOption::Bias(_, _, s) => (&[PlannerKind::Bvp], s.clone(), "bias"),
                ast::PlannerOption::Grid(_, _, s) => (
                    &[PlannerKind::AStar, PlannerKind::Bvp, PlannerKind::CtSpace, PlannerKind::Continuum],
                    s.clone(),
                    "grid",
                ),
                ast::PlannerOption::CrowdAware(s) => (&[PlannerKind::CtSpace], s.clone(), "crowd_aware"),
                ast::PlannerOption::PairwiseChecks(s) => (&[PlannerKind::CtSpace], s.clone(), "pairwise_checks"),
                ast::PlannerOption::Param(n, q) => {
                    let model = planner.kind.param_model();
                    match self.param_value(model, n, q) {
                        Some(v) => planner.params.push((n.text.clone(), v)),
                        None => ok = false,
                    }
                    continue;
                }
            };
            if !allowed.contains(&planner.kind) {
                let names: Vec<&str> = allowed.iter().map(|k| k.keyword()).collect();
                self.error(
                    Diagnostic::error(
                        "E094",
                        span,
                        format!("`{what}` is not an option of the {} planner", planner.kind.keyword()),
                    )
                    .label(format!("only for {}", names.join(", ")))
                    .help(format!("remove it, or plan with {}", names.join(" or "))),
                );
                ok = false;
                continue;
            }
            match o {
                ast::PlannerOption::Reserve(_) => planner.reserve_markers = true,
                ast::PlannerOption::Disjoint(_) => planner.disjoint_markers = true,
                ast::PlannerOption::CrowdAware(_) => planner.crowd_aware = true,
                ast::PlannerOption::PairwiseChecks(_) => planner.pairwise_checks = true,
                ast::PlannerOption::Bias(x, y, s) => {
                    let (x, y) = (self.si(x, Dim::Number), self.si(y, Dim::Number));
                    match (x, y) {
                        (Some(x), Some(y)) if x != 0.0 || y != 0.0 => planner.bias = Some(ir::Vec2::new(x, y)),
                        (Some(_), Some(_)) => {
                            self.error(
                                Diagnostic::error("E030", s.clone(), "the bias vector is zero")
                                    .label("no direction")
                                    .help("give a direction, e.g. `bias (1, 0)`, or leave the bias out"),
                            );
                            ok = false;
                        }
                        _ => ok = false,
                    }
                }
                ast::PlannerOption::Grid(x, y, s) => {
                    let (gx, gy) = (x.value.unwrap_or(0), y.value.unwrap_or(0));
                    if gx < 2 || gy < 2 {
                        self.error(
                            Diagnostic::error("E030", s.clone(), format!("grid out of range: {gx} x {gy} cells"))
                                .label("too small")
                                .help("a planner grid needs at least 2 x 2 cells"),
                        );
                        ok = false;
                    } else if gx.saturating_mul(gy) > ir::limits::MAX_GRID_CELLS {
                        self.error(
                            Diagnostic::error(
                                "E062",
                                s.clone(),
                                format!("a {gx} x {gy} grid has {} cells", gx.saturating_mul(gy)),
                            )
                            .label("too many cells")
                            .help(format!("at most {} cells (4096 x 4096)", ir::limits::MAX_GRID_CELLS)),
                        );
                        ok = false;
                    } else {
                        planner.grid = Some((gx as u32, gy as u32));
                    }
                }
                ast::PlannerOption::Param(..) => unreachable!(),
            }
        }
        ok.then_some(planner)
    }

    pub(super) fn unused_behaviours(&mut self, file: &ast::File) {
        if self.unresolved_behaviour {
            return;
        }
        let mut i = 0;
        for item in &file.items {
            if let ast::Item::Behaviour(b) = item {
                if self.used_behaviours.get(i) == Some(&false) && !self.in_broken(&b.name.text) {
                    self.diags.push(
                        Diagnostic::warning(
                            "W001",
                            b.name.span.clone(),
                            format!("behaviour `{}` is never used", b.name.text),
                        )
                        .label("no population, agent or group uses it")
                        .help(format!("give it to someone with `behaviour {}`, or remove it", b.name.text)),
                    );
                }
                i += 1;
            }
        }
    }
}
