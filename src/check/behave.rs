//! Behaviours: rules with priorities, or states with transitions, and the
//! actions they take.

use std::collections::BTreeMap;

use super::{params, Checker, Dim, Kind};
use crate::diag::{did_you_mean, Diagnostic};
use crate::ir::{self, PlannerKind};
use crate::syntax::ast::{self, BehaviourStmt};

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
        let has_states = b.stmts.iter().any(|s| matches!(s, BehaviourStmt::State(_)));
        let has_other = b.stmts.iter().find(|s| !matches!(s, BehaviourStmt::State(_)));
        let body = if has_states {
            if let Some(other) = has_other {
                let span = match other {
                    BehaviourStmt::Rule(r) => r.span.clone(),
                    BehaviourStmt::Action(a) => a.span.clone(),
                    BehaviourStmt::State(_) => unreachable!(),
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
        if b.stmts.is_empty() {
            self.error(
                Diagnostic::error("E070", b.name.span.clone(), format!("behaviour `{}` is empty", b.name.text))
                    .label("does nothing")
                    .help("give it an action, e.g. `seek goal using tree_paths`"),
            );
        }
        ir::Behaviour { name: b.name.text.clone(), body }
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
                BehaviourStmt::State(_) => {}
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
        for (i, s) in states.iter().enumerate() {
            if let Some(&first) = index.get(s.name.text.as_str()) {
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
                            Some(i) => *i,
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

    fn condition(&mut self, c: &ast::Condition) -> Option<ir::Condition> {
        match c {
            ast::Condition::Sees { who, radius, cone, .. } => {
                let who = self.subject(who);
                let radius = self.si_in(radius, Dim::Length, 0.0, f64::INFINITY, true, "perception radius");
                let cone = match cone {
                    Some(q) => Some(self.si_in(q, Dim::Angle, 0.0, std::f64::consts::TAU, true, "view cone")?),
                    None => None,
                };
                Some(ir::Condition::Sees { who: who?, radius: radius?, cone })
            }
            ast::Condition::TimeAfter(q) => self.time_in_run(q, "time").map(ir::Condition::TimeAfter),
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
                let target = match target {
                    ast::Target::OwnGoal(_) => Some(ir::Target::OwnGoal),
                    ast::Target::Point(p) => self
                        .point(p)
                        .filter(|x| self.goal_walkable(&ir::Goal::Point(*x), p.span.clone()))
                        .map(ir::Target::Point),
                    ast::Target::Region(r) => self.walkable_region(r).map(ir::Target::Region),
                    ast::Target::Resource(r) => self.resource(r).map(ir::Target::Resource),
                    ast::Target::Subject(s) => self.subject(s).map(ir::Target::Subject),
                    ast::Target::Named(n) => {
                        match self
                            .resolve(n, &[Kind::Region, Kind::Population, Kind::Agent, Kind::Group])
                            .map(|d| d.kind)
                        {
                            Some(Kind::Region) => self.walkable_region(n).map(ir::Target::Region),
                            Some(_) => self.subject(&ast::Subject::Named(n.clone())).map(ir::Target::Subject),
                            None => None,
                        }
                    }
                };
                let planner = self.planner(using.as_ref());
                ir::Action::Seek { target: target?, planner: planner? }
            }
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
                    let model = params::planner_model(planner.kind);
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
