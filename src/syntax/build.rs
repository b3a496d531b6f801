//! Lowers pest pairs to the AST, one function per grammar rule.
//!
//! The grammar has already accepted the text, so the shapes of the pairs are
//! known; the `expect`s below state grammar invariants, not user errors.

use pest::iterators::Pair;

use super::ast::*;
use super::Rule;
use crate::diag::Diagnostic;

pub struct Builder {
    offset: usize,
    pub diags: Vec<Diagnostic>,
}

type P<'i> = Pair<'i, Rule>;

/// The meaningful children of a pair: keywords are dropped.
fn parts(pair: P<'_>) -> Vec<P<'_>> {
    pair.into_inner().filter(|p| !is_keyword(p.as_rule())).collect()
}

/// Whether a rule is a keyword (`k_...`), from a table built once.
fn is_keyword(rule: Rule) -> bool {
    static KEYWORDS: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let table = KEYWORDS.get_or_init(|| {
        let mut table = vec![false; Rule::all_rules().len()];
        for r in Rule::all_rules() {
            if let Some(slot) = table.get_mut(*r as usize) {
                *slot = format!("{r:?}").starts_with("k_");
            }
        }
        table
    });
    table.get(rule as usize).copied().unwrap_or(false)
}

impl Builder {
    pub fn new(offset: usize) -> Self {
        Builder { offset, diags: Vec::new() }
    }

    fn span(&self, pair: &P<'_>) -> Span {
        let s = pair.as_span();
        self.offset + s.start()..self.offset + s.end()
    }

    pub fn file(&mut self, pair: P<'_>) -> Vec<Item> {
        pair.into_inner().filter(|p| p.as_rule() != Rule::EOI).map(|p| self.item(p)).collect()
    }

    fn item(&mut self, pair: P<'_>) -> Item {
        match pair.as_rule() {
            Rule::scenario => Item::Scenario(self.scenario(pair)),
            Rule::world => Item::World(self.world(pair)),
            Rule::space => Item::Space(self.space(pair)),
            Rule::population => Item::Population(self.entity(pair)),
            Rule::agent => Item::Agent(self.entity(pair)),
            Rule::group => Item::Group(self.entity(pair)),
            Rule::behaviour => Item::Behaviour(self.behaviour(pair)),
            Rule::parameters => Item::Parameters(self.parameters(pair)),
            Rule::expect => Item::Expect(parts(pair).into_iter().map(|p| self.expectation(p)).collect()),
            Rule::output => {
                let span = self.span(&pair);
                let columns = parts(pair)
                    .into_iter()
                    .flat_map(|c| parts(c).into_iter().map(|n| self.name(n)).collect::<Vec<_>>())
                    .collect();
                Item::Output(Output { columns, span })
            }
            r => unreachable!("item rule {r:?}"),
        }
    }

    // ------------------------------------------------------------ lexical

    fn name(&self, pair: P<'_>) -> Name {
        Name { text: pair.as_str().to_string(), span: self.span(&pair) }
    }

    fn int(&mut self, pair: P<'_>) -> Int {
        let span = self.span(&pair);
        let value = pair.as_str().parse::<u64>().ok();
        if value.is_none() {
            self.diags.push(
                Diagnostic::error("E002", span.clone(), "this number is too large")
                    .label("does not fit in 64 bits")
                    .help("use a smaller whole number"),
            );
        }
        Int { value, span }
    }

    fn number(&self, text: &str) -> f64 {
        match text.split_once('/') {
            Some((a, b)) => a.parse::<f64>().unwrap_or(f64::NAN) / b.parse::<f64>().unwrap_or(f64::NAN),
            None => text.parse::<f64>().unwrap_or(f64::NAN),
        }
    }

    fn quantity(&self, pair: P<'_>) -> Quantity {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let number = inner.next().expect("quantity has a number");
        let value = self.number(number.as_str());
        let unit = inner.next().map(|u| u.as_str().split_whitespace().collect::<Vec<_>>().join(" "));
        Quantity { value, unit, span }
    }

    /// A bare `number` pair read as a unitless quantity.
    fn bare_number(&self, pair: P<'_>) -> Quantity {
        Quantity { value: self.number(pair.as_str()), unit: None, span: self.span(&pair) }
    }

    fn point(&self, pair: P<'_>) -> Point {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let x = self.quantity(inner.next().expect("point x"));
        let y = self.quantity(inner.next().expect("point y"));
        Point { x, y, span }
    }

    fn points<'i>(&self, pairs: impl Iterator<Item = P<'i>>) -> Vec<Point> {
        pairs.filter(|p| p.as_rule() == Rule::point).map(|p| self.point(p)).collect()
    }

    fn shape(&self, pair: P<'_>) -> Shape {
        let span = self.span(&pair);
        let inner = pair.into_inner().next().expect("shape has one kind");
        let kind = inner.as_rule();
        let p = parts(inner);
        let kind = match kind {
            Rule::rect => ShapeKind::Rect(self.point(p[0].clone()), self.point(p[1].clone())),
            Rule::circle => ShapeKind::Circle(self.point(p[0].clone()), self.quantity(p[1].clone())),
            Rule::polygon => ShapeKind::Polygon(self.points(p.into_iter())),
            Rule::polyline => {
                let width = self.quantity(p.last().expect("polyline width").clone());
                ShapeKind::Polyline(self.points(p.into_iter()), width)
            }
            r => unreachable!("shape rule {r:?}"),
        };
        Shape { kind, span }
    }

    // ------------------------------------------------------------ header and world

    fn scenario(&mut self, pair: P<'_>) -> Scenario {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let name = self.name(p.next().expect("scenario name"));
        let stmts = p
            .map(|s| {
                let kind = s.as_rule();
                let arg = parts(s).into_iter().next().expect("header statement argument");
                match kind {
                    Rule::seed => HeaderStmt::Seed(self.int(arg)),
                    Rule::duration => HeaderStmt::Duration(self.quantity(arg)),
                    Rule::step => HeaderStmt::Step(self.quantity(arg)),
                    Rule::record => HeaderStmt::RecordEvery(self.int(arg)),
                    r => unreachable!("header rule {r:?}"),
                }
            })
            .collect();
        Scenario { name, stmts, span }
    }

    fn world(&mut self, pair: P<'_>) -> World {
        let span = self.span(&pair);
        let stmts = parts(pair).into_iter().map(|s| self.world_stmt(s)).collect();
        World { stmts, span }
    }

    fn world_stmt(&mut self, pair: P<'_>) -> WorldStmt {
        let span = self.span(&pair);
        let kind = pair.as_rule();
        match kind {
            Rule::bounds => {
                let p = parts(pair);
                WorldStmt::Bounds { min: self.point(p[0].clone()), max: self.point(p[1].clone()), span }
            }
            Rule::obstacle | Rule::region | Rule::target_shape => {
                let p = parts(pair);
                let (name, shape) = (self.name(p[0].clone()), self.shape(p[1].clone()));
                match kind {
                    Rule::obstacle => WorldStmt::Obstacle { name, shape },
                    Rule::region => {
                        let part = |rule: Rule| p.iter().find(|q| q.as_rule() == rule).cloned();
                        let discomfort = part(Rule::region_discomfort).map(|d| self.quantity(parts(d)[0].clone()));
                        let slope = part(Rule::region_slope).map(|s| {
                            let span = self.span(&s);
                            let q = parts(s);
                            RegionSlope {
                                rise: self.quantity(q[0].clone()),
                                toward: (self.bare_number(q[1].clone()), self.bare_number(q[2].clone())),
                                span,
                            }
                        });
                        WorldStmt::Region { name, shape, discomfort, slope }
                    }
                    _ => WorldStmt::Shape { name, shape },
                }
            }
            Rule::markers => {
                let mut m = MarkersStmt { method: None, area: None, density: None, weight: None, span };
                let mut after_weight = false;
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::marker_method => m.method = Some(self.name(p)),
                        Rule::ident => m.area = Some(self.name(p)),
                        Rule::k_weight => after_weight = true,
                        Rule::quantity if after_weight => m.weight = Some(self.quantity(p)),
                        Rule::quantity => m.density = Some(self.quantity(p)),
                        _ => {}
                    }
                }
                WorldStmt::Markers(m)
            }
            Rule::marker_event => {
                let mut p = pair.into_inner();
                let _ = p.next(); // `at`
                let at = self.quantity(p.next().expect("event time"));
                let what = p.next().expect("spray or erase");
                let action = if what.as_rule() == Rule::spray {
                    let (mut area, mut density, mut weight, mut after_weight) = (None, None, None, false);
                    for q in what.into_inner() {
                        match q.as_rule() {
                            Rule::ident => area = Some(self.name(q)),
                            Rule::k_weight => after_weight = true,
                            Rule::quantity if after_weight => weight = Some(self.quantity(q)),
                            Rule::quantity => density = Some(self.quantity(q)),
                            _ => {}
                        }
                    }
                    MarkerEventKind::Spray { area: area.expect("spray area"), density, weight }
                } else {
                    let area = what.into_inner().find(|q| q.as_rule() == Rule::ident).map(|q| self.name(q));
                    MarkerEventKind::Erase { area }
                };
                WorldStmt::MarkerEvent(MarkerEventStmt { at, action, span })
            }
            Rule::mask => {
                let p = parts(pair);
                WorldStmt::Mask(MaskStmt {
                    name: self.name(p[0].clone()),
                    kind: self.name(p[1].clone()),
                    min: self.point(p[2].clone()),
                    max: self.point(p[3].clone()),
                    every: self.quantity(p[4].clone()),
                    width: p.get(5).map(|w| self.quantity(w.clone())),
                    span,
                })
            }
            r => unreachable!("world rule {r:?}"),
        }
    }

    fn space(&mut self, pair: P<'_>) -> Space {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let name = self.name(p.next().expect("space name"));
        let shape = self.shape(p.next().expect("space shape"));
        let mut space = Space { name, shape, doors: vec![], objects: vec![], children: vec![], span };
        for s in p {
            let span = self.span(&s);
            match s.as_rule() {
                Rule::door => {
                    let d = parts(s);
                    space.doors.push(Door {
                        name: self.name(d[0].clone()),
                        a: self.point(d[1].clone()),
                        b: self.point(d[2].clone()),
                        span,
                    });
                }
                Rule::object => {
                    let d = parts(s);
                    let provides =
                        d.iter().skip(2).filter(|p| p.as_rule() == Rule::ident).map(|p| self.name(p.clone())).collect();
                    let capacity = d.iter().find(|p| p.as_rule() == Rule::integer).map(|p| self.int(p.clone()));
                    space.objects.push(Object {
                        name: self.name(d[0].clone()),
                        at: self.point(d[1].clone()),
                        provides,
                        capacity,
                        span,
                    });
                }
                Rule::space => space.children.push(self.space(s)),
                r => unreachable!("space rule {r:?}"),
            }
        }
        space
    }

    // ------------------------------------------------------------ agents

    fn entity(&mut self, pair: P<'_>) -> Entity {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter().peekable();
        let name = self.name(p.next().expect("entity name"));
        let at = p.next_if(|x| x.as_rule() == Rule::point).map(|x| self.point(x));
        let stmts = p.map(|s| self.entity_stmt(s)).collect();
        Entity { name, at, stmts, span }
    }

    fn entity_stmt(&mut self, pair: P<'_>) -> EntityStmt {
        let kind = pair.as_rule();
        let p = parts(pair.clone());
        match kind {
            Rule::count => EntityStmt::Count(self.int(p[0].clone())),
            Rule::peak => EntityStmt::Peak { count: self.int(p[0].clone()), at: self.quantity(p[1].clone()) },
            Rule::leave => {
                let inner = p[0].clone();
                let q = parts(inner.clone());
                match inner.as_rule() {
                    Rule::leave_after => EntityStmt::LeaveAfter(self.quantity(q[0].clone())),
                    _ => EntityStmt::LeaveVia {
                        region: self.name(q[0].clone()),
                        from: q.get(1).map(|x| self.quantity(x.clone())),
                    },
                }
            }
            Rule::spawn => match p[0].as_rule() {
                Rule::point => EntityStmt::SpawnAt(self.point(p[0].clone())),
                _ => EntityStmt::SpawnIn {
                    region: self.name(p[0].clone()),
                    chaotic: p.get(1).map(|c| {
                        let span = self.span(c);
                        (parts(c.clone()).first().map(|q| self.quantity(q.clone())), span)
                    }),
                },
            },
            Rule::groups => EntityStmt::Groups(
                p.into_iter()
                    .map(|g| {
                        let q = parts(g);
                        (self.int(q[0].clone()), self.quantity(q[1].clone()))
                    })
                    .collect(),
            ),
            Rule::attribute => EntityStmt::Attribute { name: self.name(p[0].clone()), dist: self.dist(p[1].clone()) },
            Rule::goal => EntityStmt::Goal(self.goal_spec(p[0].clone())),
            Rule::wants => EntityStmt::Wants(p.into_iter().map(|n| self.name(n)).collect()),
            Rule::dwell => EntityStmt::Dwell(self.dist(p[0].clone())),
            Rule::uses => EntityStmt::Uses(self.name(p[0].clone())),
            Rule::formation_stmt => EntityStmt::Formation(self.formation(p[0].clone())),
            Rule::group_agents => {
                let count = self.int(p[0].clone());
                match p[1].as_rule() {
                    Rule::point => EntityStmt::GroupAgentsAt { count, at: self.point(p[1].clone()) },
                    _ => EntityStmt::GroupAgentsIn { count, region: self.name(p[1].clone()) },
                }
            }
            Rule::members => EntityStmt::Members(p.into_iter().map(|n| self.name(n)).collect()),
            Rule::leader => EntityStmt::Leader(self.name(p[0].clone())),
            Rule::followers => EntityStmt::Followers {
                count: self.int(p[0].clone()),
                around: self.name(p[1].clone()),
                within: self.quantity(p[2].clone()),
            },
            Rule::group_map => EntityStmt::GroupMap {
                x: self.int(p[0].clone()),
                y: self.int(p[1].clone()),
                cell: self.quantity(p[2].clone()),
                via: p.get(3).map(|k| match k.as_rule() {
                    Rule::map_sketch => {
                        MapVia::Sketch(parts(k.clone()).into_iter().map(|q| self.point(q)).collect(), self.span(k))
                    }
                    _ => MapVia::Planner(self.name(k.clone())),
                }),
            },
            r => unreachable!("entity rule {r:?}"),
        }
    }

    fn goal_spec(&self, pair: P<'_>) -> GoalSpec {
        let mut inner = pair.into_inner();
        let first = inner.next().expect("goal spec");
        match first.as_rule() {
            Rule::point => GoalSpec::Point(self.point(first)),
            kw => {
                let name = self.name(inner.next().expect("goal name"));
                match kw {
                    Rule::k_region => GoalSpec::Region(name),
                    Rule::k_resource => GoalSpec::Resource(name),
                    Rule::k_object => GoalSpec::Object(name),
                    _ => GoalSpec::Agent(name),
                }
            }
        }
    }

    fn dist(&self, pair: P<'_>) -> Dist {
        let span = self.span(&pair);
        let inner = pair.into_inner().next().expect("dist kind");
        let kind = inner.as_rule();
        let kind = match kind {
            Rule::quantity => DistKind::Constant(self.quantity(inner)),
            Rule::dist_choice => DistKind::Choice(
                parts(inner)
                    .into_iter()
                    .map(|c| {
                        let q = parts(c);
                        (self.quantity(q[0].clone()), self.quantity(q[1].clone()))
                    })
                    .collect(),
            ),
            _ => {
                let q = parts(inner);
                let (a, b) = (self.quantity(q[0].clone()), self.quantity(q[1].clone()));
                if kind == Rule::dist_uniform {
                    DistKind::Uniform(a, b)
                } else {
                    DistKind::Normal(a, b)
                }
            }
        };
        Dist { kind, span }
    }

    fn formation(&self, pair: P<'_>) -> Formation {
        let span = self.span(&pair);
        let p = parts(pair);
        let kind = if p[0].as_rule() == Rule::formation_name {
            FormationKind::Named(self.name(p[0].clone()))
        } else {
            FormationKind::Sketch(self.points(p.into_iter()))
        };
        Formation { kind, span }
    }

    // ------------------------------------------------------------ behaviours

    fn behaviour(&mut self, pair: P<'_>) -> Behaviour {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let name = self.name(p.next().expect("behaviour name"));
        let stmts = p
            .map(|s| match s.as_rule() {
                Rule::var_decl => BehaviourStmt::Var(self.var(s)),
                Rule::rule_decl => BehaviourStmt::Rule(self.rule(s)),
                Rule::state => BehaviourStmt::State(self.state(s)),
                _ => BehaviourStmt::Action(self.action(s)),
            })
            .collect();
        Behaviour { name, stmts, span }
    }

    fn var(&mut self, pair: P<'_>) -> Var {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let name = self.name(p.next().expect("var name"));
        let stmts = p
            .map(|s| {
                let kind = s.as_rule();
                let stmt_span = self.span(&s);
                let q = parts(s);
                match kind {
                    Rule::var_rise => VarStmt::Rise {
                        rate: self.quantity(q[0].clone()),
                        when: self.condition(q[1].clone()),
                        span: stmt_span,
                    },
                    Rule::var_decay => VarStmt::Decay(self.quantity(q[0].clone())),
                    Rule::var_start => VarStmt::Start(self.quantity(q[0].clone())),
                    Rule::var_max => VarStmt::Max(self.quantity(q[0].clone())),
                    r => unreachable!("var rule {r:?}"),
                }
            })
            .collect();
        Var { name, stmts, span }
    }

    fn rule(&mut self, pair: P<'_>) -> Rule_ {
        let span = self.span(&pair);
        let mut rule = Rule_ {
            name: Name { text: String::new(), span: span.clone() },
            priority: None,
            when: None,
            actions: vec![],
            span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => rule.name = self.name(p),
                Rule::number => rule.priority = Some(self.bare_number(p)),
                Rule::condition => rule.when = Some(self.condition(p)),
                Rule::action => rule.actions.push(self.action(p)),
                _ => {}
            }
        }
        rule
    }

    fn state(&mut self, pair: P<'_>) -> State {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let name = self.name(p.next().expect("state name"));
        let mut state = State { name, actions: vec![], transitions: vec![], span };
        for s in p {
            if s.as_rule() == Rule::transition {
                let span = self.span(&s);
                let t = parts(s);
                let trigger = self.trigger(t[0].clone());
                state.transitions.push(Transition { trigger, to: self.name(t[1].clone()), span });
            } else {
                state.actions.push(self.action(s));
            }
        }
        state
    }

    fn trigger(&self, pair: P<'_>) -> Trigger {
        let inner: Vec<P<'_>> = pair.into_inner().collect();
        match inner.last().map(|p| p.as_rule()) {
            Some(Rule::k_arrival) => Trigger::Arrival,
            Some(Rule::k_done) => Trigger::Done,
            Some(Rule::quantity) => Trigger::After(self.quantity(inner[1].clone())),
            _ => Trigger::Condition(self.condition(inner[1].clone())),
        }
    }

    fn condition(&self, pair: P<'_>) -> Condition {
        let span = self.span(&pair);
        let atoms = parts(pair).into_iter().map(|a| self.atom(a)).collect();
        Condition { atoms, span }
    }

    fn atom(&self, pair: P<'_>) -> Atom {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let negated = inner.next_if(|p| p.as_rule() == Rule::k_not).is_some();
        let basic = inner.next().expect("an atom's condition");
        let basic_span = self.span(&basic);
        let kind = basic.as_rule();
        let p = parts(basic);
        let radius_cone = |b: &Self, p: &[P<'_>]| {
            let q: Vec<&P<'_>> = p.iter().filter(|x| x.as_rule() == Rule::quantity).collect();
            (b.quantity(q[0].clone()), q.get(1).map(|c| b.quantity((*c).clone())))
        };
        let basic = match kind {
            Rule::sees => Basic::Sees {
                who: self.subject(p[0].clone()),
                radius: self.quantity(p[1].clone()),
                cone: p.get(2).map(|c| self.quantity(c.clone())),
                span: basic_span,
            },
            Rule::sees_region => {
                let (radius, cone) = radius_cone(self, &p);
                Basic::SeesRegion { region: self.name(p[0].clone()), radius, cone }
            }
            Rule::sees_obstacle => {
                let (radius, cone) = radius_cone(self, &p);
                let obstacle = p.iter().find(|x| x.as_rule() == Rule::ident).map(|n| self.name(n.clone()));
                Basic::SeesObstacle { obstacle, radius, cone }
            }
            Rule::time_after => Basic::TimeAfter(self.quantity(p[0].clone())),
            Rule::remembers => Basic::Remembers,
            Rule::var_compare => Basic::Compare {
                var: self.name(p[0].clone()),
                op: match p[1].as_str() {
                    "<" => CompareOp::Less,
                    "<=" => CompareOp::AtMost,
                    ">" => CompareOp::Greater,
                    _ => CompareOp::AtLeast,
                },
                value: self.quantity(p[2].clone()),
            },
            r => unreachable!("condition rule {r:?}"),
        };
        Atom { negated, basic, span }
    }

    fn subject(&self, pair: P<'_>) -> Subject {
        let inner = pair.into_inner().next().expect("subject");
        match inner.as_rule() {
            Rule::k_everyone => Subject::Everyone(self.span(&inner)),
            Rule::followers_of => self.followers_of(inner),
            _ => Subject::Named(self.name(inner)),
        }
    }

    /// `followers of GROUP`.
    fn followers_of(&self, pair: P<'_>) -> Subject {
        let span = self.span(&pair);
        let group = parts(pair).into_iter().next().expect("the group of `followers of`");
        Subject::Followers { group: self.name(group), span }
    }

    fn using(&mut self, pair: P<'_>) -> Using {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let planner = self.name(p.next().expect("planner kind"));
        let options = p
            .map(|o| {
                let span = self.span(&o);
                let inner: Vec<P<'_>> = o.into_inner().collect();
                match inner[0].as_rule() {
                    Rule::k_reserve => PlannerOption::Reserve(span),
                    Rule::k_disjoint => PlannerOption::Disjoint(span),
                    Rule::k_crowd_aware => PlannerOption::CrowdAware(span),
                    Rule::k_pairwise_checks => PlannerOption::PairwiseChecks(span),
                    Rule::k_bias => PlannerOption::Bias(
                        self.bare_number(inner[1].clone()),
                        self.bare_number(inner[2].clone()),
                        span,
                    ),
                    Rule::k_grid => PlannerOption::Grid(self.int(inner[1].clone()), self.int(inner[2].clone()), span),
                    _ => {
                        let q = parts(inner[0].clone());
                        PlannerOption::Param(self.name(q[0].clone()), self.quantity(q[1].clone()))
                    }
                }
            })
            .collect();
        Using { planner, options, span }
    }

    fn action(&mut self, pair: P<'_>) -> Action {
        let span = self.span(&pair);
        let inner = if pair.as_rule() == Rule::action { pair.into_inner().next().expect("action kind") } else { pair };
        let kind = inner.as_rule();
        let p = parts(inner.clone());
        let using =
            |b: &mut Self, p: &[P<'_>]| p.iter().find(|x| x.as_rule() == Rule::using).map(|u| b.using(u.clone()));
        let kind = match kind {
            Rule::seek => {
                let t = inner.clone().into_inner().find(|x| x.as_rule() == Rule::target).expect("seek target");
                ActionKind::Seek { target: self.target(t), using: using(self, &p) }
            }
            Rule::wander => ActionKind::Wander,
            Rule::dwell_action => ActionKind::Dwell(p.first().map(|d| self.dist(d.clone()))),
            Rule::pick => ActionKind::PickGoal,
            Rule::pursue => ActionKind::Pursue { target: self.subject(p[0].clone()), using: using(self, &p) },
            Rule::surround => ActionKind::Surround(self.subject(p[0].clone())),
            Rule::escape => ActionKind::Escape(self.subject(p[0].clone())),
            Rule::form => ActionKind::Form(self.name(p[0].clone())),
            Rule::align => ActionKind::Align(self.name(p[0].clone())),
            Rule::follow => ActionKind::Follow(p.first().map(|s| self.subject(s.clone()))),
            Rule::flock => ActionKind::Flock(
                p.into_iter()
                    .map(|w| {
                        let q = parts(w);
                        (self.name(q[0].clone()), self.bare_number(q[1].clone()))
                    })
                    .collect(),
            ),
            Rule::hunt => ActionKind::Hunt {
                prey: self.subject(p[0].clone()),
                catch_within: p.get(1).map(|q| self.quantity(q.clone())),
            },
            Rule::flee => ActionKind::Flee(self.subject(p[0].clone())),
            Rule::evacuate => ActionKind::Evacuate(p.first().map(|n| self.name(n.clone()))),
            Rule::formation_stmt => ActionKind::Formation(self.formation(p[0].clone())),
            Rule::push_goal => {
                let t = p.iter().find(|x| x.as_rule() == Rule::target).expect("push target").clone();
                ActionKind::PushGoal(self.target(t))
            }
            Rule::pop_goal => ActionKind::PopGoal,
            r => unreachable!("action rule {r:?}"),
        };
        Action { kind, span }
    }

    fn target(&self, t: P<'_>) -> Target {
        let tp: Vec<P<'_>> = t.clone().into_inner().collect();
        match tp.first().map(|x| x.as_rule()) {
            Some(Rule::k_goal) => Target::OwnGoal(self.span(&t)),
            Some(Rule::point) => Target::Point(self.point(tp[0].clone())),
            Some(Rule::k_region) => Target::Region(self.name(tp[1].clone())),
            Some(Rule::k_resource) => Target::Resource(self.name(tp[1].clone())),
            Some(Rule::followers_of) => Target::Subject(self.followers_of(tp[0].clone())),
            _ => Target::Named(self.name(tp[0].clone())),
        }
    }

    // ------------------------------------------------------------ parameters, expectations

    fn parameters(&mut self, pair: P<'_>) -> Parameters {
        let span = self.span(&pair);
        let mut p = parts(pair).into_iter();
        let model = self.name(p.next().expect("parameters model"));
        let values = p
            .map(|kv| {
                let q = parts(kv);
                (self.name(q[0].clone()), self.quantity(q[1].clone()))
            })
            .collect();
        Parameters { model, values, span }
    }

    /// `at T`, `during T1 to T2` or `for at least SHARE of T1 to T2`.
    fn when(&self, pair: P<'_>) -> When {
        let inner = pair.into_inner().next().expect("when kind");
        let rule = inner.as_rule();
        let mut q: Vec<Quantity> = parts(inner).into_iter().map(|x| self.quantity(x)).collect();
        match rule {
            Rule::when_at => When::At(q.remove(0)),
            Rule::when_during => {
                let to = q.pop().expect("end");
                When::During(q.remove(0), to)
            }
            Rule::when_share => {
                let to = q.pop().expect("end");
                let from = q.pop().expect("start");
                When::Share { share: q.remove(0), from, to }
            }
            r => unreachable!("when rule {r:?}"),
        }
    }

    fn expectation(&mut self, pair: P<'_>) -> Expectation {
        let inner = pair.clone().into_inner().next().expect("expectation kind");
        // The claim ends with its last token: a claim whose optional tail is
        // left out would otherwise take the blanks and comments after it.
        let last = inner.clone().into_inner().last();
        let span = self.span(&pair).start..last.map_or_else(|| self.span(&pair).end, |p| self.span(&p).end);
        let kind = inner.as_rule();
        let all: Vec<P<'_>> = inner.clone().into_inner().collect();
        let p = parts(inner);
        let subjects = |b: &Self| -> Vec<Subject> {
            p.iter().filter(|x| x.as_rule() == Rule::subject).map(|x| b.subject(x.clone())).collect()
        };
        let quantities = |b: &Self| -> Vec<Quantity> {
            p.iter().filter(|x| x.as_rule() == Rule::quantity).map(|x| b.quantity(x.clone())).collect()
        };
        let when = |b: &Self| -> When {
            b.when(p.iter().find(|x| x.as_rule() == Rule::when).expect("a time qualifier").clone())
        };
        let kind = match kind {
            Rule::expect_reaches => {
                ExpectationKind::Reaches { who: subjects(self).remove(0), by: quantities(self).pop() }
            }
            Rule::expect_min_distance => ExpectationKind::MinDistance {
                among: subjects(self).pop(),
                distance: quantities(self).remove(0),
                at: p.iter().find(|x| x.as_rule() == Rule::when).map(|w| self.when(w.clone())),
            },
            Rule::expect_clearance => ExpectationKind::Clearance {
                who: subjects(self).pop(),
                from: p.iter().find(|x| x.as_rule() == Rule::ident).map(|x| self.name(x.clone())),
                distance: quantities(self).remove(0),
                at: p.iter().find(|x| x.as_rule() == Rule::when).map(|w| self.when(w.clone())),
            },
            Rule::expect_nobody => ExpectationKind::Nobody {
                who: subjects(self).pop(),
                inside: p.iter().find(|x| x.as_rule() == Rule::ident).map(|x| self.name(x.clone())),
            },
            Rule::expect_nobody_core => {
                let mut s = subjects(self);
                let groups = s.pop().expect("groups");
                ExpectationKind::NobodyInCore { who: s.pop(), groups }
            }
            Rule::expect_goals_provide => ExpectationKind::GoalsProvideWants { who: subjects(self).remove(0) },
            Rule::expect_fraction => {
                let bound = p.iter().find(|x| x.as_rule() == Rule::bound).expect("fraction bound");
                ExpectationKind::Fraction {
                    at_most: bound.clone().into_inner().any(|k| k.as_rule() == Rule::k_most),
                    amount: quantities(self).remove(0),
                    who: subjects(self).remove(0),
                    inside: self.name(p.iter().find(|x| x.as_rule() == Rule::ident).expect("fraction area").clone()),
                    at: when(self),
                }
            }
            Rule::expect_lanes => ExpectationKind::Lanes {
                width: p.iter().find(|x| x.as_rule() == Rule::quantity).map(|q| self.quantity(q.clone())),
                among: subjects(self).pop(),
                threshold: self
                    .bare_number(p.iter().find(|x| x.as_rule() == Rule::number).expect("lanes threshold").clone()),
                at: when(self),
            },
            Rule::expect_surrounds => {
                let mut s = subjects(self);
                ExpectationKind::Surrounds {
                    target: s.pop().expect("target"),
                    who: s.remove(0),
                    at: when(self),
                    spread: quantities(self).remove(0),
                }
            }
            Rule::expect_farther => {
                let mut s = subjects(self);
                ExpectationKind::Farther {
                    from: s.pop().expect("from"),
                    who: s.remove(0),
                    distance: quantities(self).remove(0),
                    at: when(self),
                }
            }
            Rule::expect_formation => ExpectationKind::Formation {
                group: subjects(self).remove(0),
                formation: self
                    .name(p.iter().find(|x| x.as_rule() == Rule::formation_name).expect("formation").clone()),
                at: when(self),
            },
            Rule::expect_formation_error | Rule::expect_spread => {
                let compare = p.iter().find(|x| x.as_rule() == Rule::compare).expect("a comparison");
                let (group, at_most, bound, at) =
                    (subjects(self).remove(0), compare.as_str() == "<=", quantities(self).remove(0), when(self));
                if kind == Rule::expect_spread {
                    ExpectationKind::Spread { group, at_most, bound, at }
                } else {
                    ExpectationKind::FormationError { group, at_most, bound, at }
                }
            }
            Rule::expect_count if p.iter().any(|x| x.as_rule() == Rule::compare) => {
                let compare = p.iter().find(|x| x.as_rule() == Rule::compare).expect("a comparison");
                let bound = p.iter().find(|x| x.as_rule() == Rule::integer).expect("a count");
                ExpectationKind::CountBound {
                    who: subjects(self).remove(0),
                    at_most: compare.as_str() == "<=",
                    bound: self.int(bound.clone()),
                    at: when(self),
                }
            }
            Rule::expect_nearest => {
                let compare = p.iter().find(|x| x.as_rule() == Rule::compare).expect("a comparison");
                ExpectationKind::NearestDistance {
                    who: subjects(self).remove(0),
                    at_most: compare.as_str() == "<=",
                    bound: quantities(self).remove(0),
                    at: when(self),
                }
            }
            Rule::expect_mean_speed => {
                let compare = p.iter().find(|x| x.as_rule() == Rule::compare).expect("a comparison");
                ExpectationKind::MeanSpeed {
                    who: subjects(self).remove(0),
                    at_most: compare.as_str() == "<=",
                    bound: quantities(self).remove(0),
                    at: when(self),
                }
            }
            Rule::expect_count => {
                let ints: Vec<P<'_>> = all.iter().filter(|x| x.as_rule() == Rule::integer).cloned().collect();
                ExpectationKind::Count {
                    who: subjects(self).remove(0),
                    count: self.int(ints[0].clone()),
                    tolerance: ints.get(1).map(|t| self.int(t.clone())),
                    at: when(self),
                }
            }
            Rule::expect_near => {
                let mut s = subjects(self);
                ExpectationKind::Near {
                    of: s.pop().expect("of"),
                    who: s.remove(0),
                    distance: quantities(self).remove(0),
                    at: when(self),
                }
            }
            Rule::expect_collisions => {
                let max = self.int(p.iter().find(|x| x.as_rule() == Rule::integer).expect("collisions").clone());
                ExpectationKind::Collisions { among: subjects(self).pop(), max }
            }
            Rule::expect_overlap => {
                ExpectationKind::Overlap { among: subjects(self).pop(), max: quantities(self).remove(0) }
            }
            Rule::expect_path_ratio => ExpectationKind::PathRatio {
                who: subjects(self).remove(0),
                max: self.bare_number(p.iter().find(|x| x.as_rule() == Rule::number).expect("path ratio").clone()),
            },
            Rule::expect_stuck => {
                ExpectationKind::Stuck { max: quantities(self).remove(0), who: subjects(self).remove(0) }
            }
            Rule::expect_trips => {
                let mut q = quantities(self);
                let within = q.pop().expect("trip time");
                ExpectationKind::TripsWithin { share: q.remove(0), who: subjects(self).remove(0), within }
            }
            Rule::expect_moves => {
                let mut q = quantities(self);
                let by = q.pop().expect("time");
                ExpectationKind::Moves { who: subjects(self).remove(0), distance: q.remove(0), by }
            }
            Rule::expect_move_less => {
                let mut q = quantities(self);
                let by = q.pop().expect("time");
                let distance = q.pop().expect("distance");
                ExpectationKind::MoveLess { max: q.remove(0), who: subjects(self).remove(0), distance, by }
            }
            Rule::expect_picks => {
                let count = self.int(p.iter().find(|x| x.as_rule() == Rule::integer).expect("picks").clone());
                let bound = p.iter().find(|x| x.as_rule() == Rule::bound).expect("picks bound");
                ExpectationKind::Picks {
                    who: subjects(self).remove(0),
                    at_most: bound.clone().into_inner().any(|k| k.as_rule() == Rule::k_most),
                    count,
                    by: quantities(self).remove(0),
                }
            }
            Rule::expect_covers => ExpectationKind::Covers {
                who: subjects(self).remove(0),
                area: self.name(p.iter().find(|x| x.as_rule() == Rule::ident).expect("covered area").clone()),
                distance: quantities(self).remove(0),
                at: when(self),
            },
            r => unreachable!("expectation rule {r:?}"),
        };
        Expectation { kind, span }
    }
}

/// The AST's `Rule` collides with pest's `Rule` in this file.
type Rule_ = super::ast::Rule;
