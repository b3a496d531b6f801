//! Populations, single agents and groups: schedules, spawn places, attribute
//! distributions, goals, group sizes and formations.

use super::{Checker, Dim, Kind};
use crate::diag::{did_you_mean, Diagnostic};
use crate::ir::{self, Vec2};
use crate::syntax::ast::{self, EntityStmt, Span};
use crate::world::{chaos, geometry};

/// A statement that may appear once: its checked value (`None` if it was
/// wrong) and where it was given.
type Slot<T> = Option<(Option<T>, Span)>;

/// Default attributes when a population does not set them.
const DEFAULT_RADIUS: f64 = 0.25;
const DEFAULT_SPEED: f64 = 1.2;

impl Checker {
    pub(super) fn populations(
        &mut self,
        file: &ast::File,
        behaviours: &[ir::Behaviour],
    ) -> (Vec<ir::Population>, Vec<ir::Group>) {
        let mut populations = vec![];
        let mut groups = vec![];
        let mut ok = true;
        for item in &file.items {
            match item {
                ast::Item::Population(e) | ast::Item::Agent(e) => {
                    let is_agent = matches!(item, ast::Item::Agent(_));
                    match self.population(e, is_agent, None, behaviours) {
                        Some(p) => populations.push(p),
                        None => ok = false,
                    }
                }
                ast::Item::Group(e) => match self.group(e, behaviours, &mut populations) {
                    Some(g) => groups.push(g),
                    None => ok = false,
                },
                _ => {}
            }
        }
        if !ok {
            populations.clear();
        }
        self.followers_have_leaders(file, &populations, &groups, behaviours);
        (populations, groups)
    }

    /// `follow leader` needs a group whose leader is someone else.
    fn followers_have_leaders(
        &mut self,
        file: &ast::File,
        pops: &[ir::Population],
        groups: &[ir::Group],
        behaviours: &[ir::Behaviour],
    ) {
        let led: Vec<ir::PopulationId> = groups
            .iter()
            .filter(|g| g.leader.is_some())
            .flat_map(|g| g.members.iter().copied().filter(|m| Some(*m) != g.leader))
            .collect();
        let names: Vec<&ast::Name> =
            file.items
                .iter()
                .filter_map(|i| match i {
                    ast::Item::Population(e) | ast::Item::Agent(e) => Some(&e.name),
                    ast::Item::Group(e)
                        if self.names.get(&e.name.text).is_some_and(|d| {
                            self.group_population.get(d.index as usize).is_some_and(|p| p.is_some())
                        }) =>
                    {
                        Some(&e.name)
                    }
                    _ => None,
                })
                .collect();
        for (i, p) in pops.iter().enumerate() {
            let follows = behaviour_actions(&behaviours[p.behaviour.index()])
                .any(|a| matches!(a, ir::Action::Follow { leader: None }));
            if follows && !led.contains(&ir::PopulationId(i as u32)) {
                if let Some(name) = names.get(i) {
                    self.error(
                        Diagnostic::error("E095", name.span.clone(), format!("`{}` follows its leader, but has none", name.text))
                            .label("not a follower in any group with a leader")
                            .help("put it in a group with `leader NAME` (or `followers N around NAME within D`), or follow a named agent: `follow NAME`"),
                    );
                }
            }
        }
    }

    /// Lowers the statements every population-like item shares. `leader_spawn`
    /// places a group's followers around their leader.
    fn population(
        &mut self,
        e: &ast::Entity,
        is_agent: bool,
        leader_spawn: Option<ir::Place>,
        behaviours: &[ir::Behaviour],
    ) -> Option<ir::Population> {
        let mut ok = true;
        let mut count: Option<(Option<u32>, Span)> = None;
        let mut peak: Option<(Option<(u32, f64)>, Span)> = None;
        let mut leave: Option<(Option<ir::Leave>, Span)> = None;
        let mut spawn: Option<(Option<ir::Place>, Span)> = None;
        let mut groups: Slot<Vec<(u32, f64)>> = None;
        let (mut speed, mut radius, mut personal): (Option<(Option<ir::Dist>, Span)>, _, _) = (None, None, None);
        let mut goal: Option<(Option<ir::Goal>, Span)> = None;
        let mut wants: Option<(Vec<ir::ResourceId>, Span)> = None;
        let mut dwell: Option<(Option<ir::Dist>, Span)> = None;
        let mut behaviour: Option<(Option<ir::BehaviourId>, Span)> = None;
        let mut formation: Option<(Option<ir::Formation>, Span)> = None;
        if let Some(at) = &e.at {
            let p = self.point(at).map(ir::Place::Point);
            spawn = Some((p, at.span.clone()));
            count = Some((Some(1), e.name.span.clone()));
        }
        if let Some(place) = leader_spawn {
            spawn = Some((Some(place), e.name.span.clone()));
        }
        for s in &e.stmts {
            match s {
                EntityStmt::Count(n) => {
                    let v = self.count(n, "agent count");
                    self.once(&mut count, v, n.span.clone(), "count");
                }
                EntityStmt::GroupAgentsIn { count: n, region } => {
                    let v = self.count(n, "agent count");
                    self.once(&mut count, v, n.span.clone(), "count");
                    let p = self.resolve(region, &[Kind::Region]).map(|d| ir::Place::Region(ir::RegionId(d.index)));
                    self.once(&mut spawn, p, region.span.clone(), "spawn");
                }
                EntityStmt::GroupAgentsAt { count: n, at } => {
                    let v = self.count(n, "agent count");
                    self.once(&mut count, v, n.span.clone(), "count");
                    let p = self.point(at).map(ir::Place::Point);
                    self.once(&mut spawn, p, at.span.clone(), "spawn");
                }
                EntityStmt::Followers { count: n, .. } => {
                    let v = self.count(n, "follower count");
                    self.once(&mut count, v, n.span.clone(), "count");
                }
                EntityStmt::Peak { count: n, at } => {
                    let c = self.count(n, "peak count");
                    let t = self.time_in_run(at, "peak time");
                    let v = c.zip(t);
                    self.once(&mut peak, v, n.span.start..at.span.end, "peak");
                }
                EntityStmt::LeaveAfter(q) => {
                    let v = self.si_in(q, Dim::Time, 0.0, f64::INFINITY, true, "stay time").map(ir::Leave::After);
                    self.once(&mut leave, v, q.span.clone(), "leave");
                }
                EntityStmt::LeaveVia { region, from } => {
                    let r = self.walkable_region(region);
                    let t = match from {
                        Some(q) => self.time_in_run(q, "leaving time"),
                        None => Some(0.0),
                    };
                    let v = r.zip(t).map(|(region, from)| ir::Leave::Via { region, from });
                    self.once(&mut leave, v, region.span.clone(), "leave");
                }
                EntityStmt::SpawnAt(p) => {
                    let v = self.point(p).map(ir::Place::Point);
                    self.once(&mut spawn, v, p.span.clone(), "spawn");
                }
                EntityStmt::SpawnIn { region: r, chaotic } => {
                    let region = self.resolve(r, &[Kind::Region]).map(|d| ir::RegionId(d.index));
                    let v = match chaotic {
                        None => region.map(ir::Place::Region),
                        Some((q, _)) => {
                            let rate = match q {
                                Some(q) => self.chaotic_rate(q),
                                None => Some(chaos::DEFAULT_R),
                            };
                            region.zip(rate).map(|(region, r)| ir::Place::Chaotic { region, r })
                        }
                    };
                    self.once(&mut spawn, v, r.span.clone(), "spawn");
                }
                EntityStmt::Groups(shares) => {
                    let v = self.group_sizes(shares);
                    let span = shares
                        .first()
                        .map_or(e.span.clone(), |s| s.0.span.start..shares.last().map_or(0, |l| l.1.span.end));
                    self.once(&mut groups, v, span, "groups");
                }
                EntityStmt::Attribute { name, dist } => {
                    let (slot, min, max, what) = match name.text.as_str() {
                        "speed" => (&mut speed, 0.0, 15.0, "speed"),
                        "radius" => (&mut radius, 0.0, 2.0, "radius"),
                        _ => (&mut personal, 0.0, 20.0, "personal space"),
                    };
                    let d = self.dist_checked(dist, attribute_dim(&name.text), min, max, what);
                    let mut s = slot.take();
                    self.once(&mut s, d, name.span.clone(), what);
                    match name.text.as_str() {
                        "speed" => speed = s,
                        "radius" => radius = s,
                        _ => personal = s,
                    }
                }
                EntityStmt::Goal(g) => {
                    let span = goal_span(g);
                    let v = self.goal(g);
                    self.once(&mut goal, v, span, "goal");
                }
                EntityStmt::Wants(names) => {
                    let ids = names.iter().filter_map(|n| self.resource(n)).collect::<Vec<_>>();
                    if ids.len() != names.len() {
                        ok = false;
                    }
                    let span = names[0].span.start..names.last().map_or(0, |n| n.span.end);
                    if let Some((_, first)) = &wants {
                        let first = first.clone();
                        self.error(
                            Diagnostic::error("E071", span, "wants is given twice")
                                .label("given again here")
                                .related(first, "first given here")
                                .help("list every resource in one `wants` statement"),
                        );
                    } else {
                        wants = Some((ids, span));
                    }
                }
                EntityStmt::Dwell(d) => {
                    let v = self.dist_checked(d, Dim::Time, 0.0, f64::INFINITY, "dwell time");
                    self.once(&mut dwell, v, d.span.clone(), "dwell");
                }
                EntityStmt::Uses(b) => {
                    let v = self.resolve(b, &[Kind::Behaviour]).map(|d| {
                        self.used_behaviours[d.index as usize] = true;
                        ir::BehaviourId(d.index)
                    });
                    self.unresolved_behaviour |= v.is_none();
                    self.once(&mut behaviour, v, b.span.clone(), "behaviour");
                }
                EntityStmt::Formation(f) => {
                    let v = self.formation(f);
                    self.once(&mut formation, v, f.span.clone(), "formation");
                }
                // Group-only statements are lowered by `group`.
                EntityStmt::Members(_) | EntityStmt::Leader(_) | EntityStmt::GroupMap { .. } => {}
            }
        }
        let head = e.name.span.clone();
        let schedule = match (count, peak) {
            (Some((_, c_span)), Some((_, p_span))) if !is_agent => {
                self.error(
                    Diagnostic::error("E072", p_span, "a population has either a fixed count or a peak, not both")
                        .label("peak given here")
                        .related(c_span, "count given here")
                        .help("keep `count N` for a fixed population, or `peak N agents at T` for a schedule"),
                );
                None
            }
            (Some((c, _)), _) => c.map(|count| ir::Schedule::Fixed { count }),
            (None, Some((p, _))) => p.map(|(count, at)| ir::Schedule::Peak { count, at }),
            (None, None) => {
                self.missing(head.clone(), "agent count", "add `count N`, or `peak N agents at T` for a schedule");
                None
            }
        };
        let spawn = match spawn {
            Some((p, span)) => p.and_then(|p| self.spawn_place(p, span)),
            None => {
                self.missing(head.clone(), "spawn place", "add `spawn in REGION` or `spawn at (x m, y m)`");
                None
            }
        };
        if let Some((Some(g), span)) = &goal {
            if !self.goal_walkable(g, span.clone()) {
                ok = false;
            }
        }
        let behaviour = match behaviour {
            Some((b, _)) => b,
            None => {
                self.missing(head.clone(), "behaviour", "add `behaviour NAME` naming a declared behaviour");
                None
            }
        };
        // A `goal` or `wants` that failed to check has been reported already: it still counts as given.
        let has_goal = goal.is_some() || wants.is_some();
        let wants_span = wants.as_ref().map(|w| w.1.clone());
        let wants = wants.map(|w| w.0).unwrap_or_default();
        let goal = goal.and_then(|g| g.0.map(Some)).unwrap_or(None);
        if let Some(b) = behaviour {
            self.goal_needed(&behaviours.get(b.index()), has_goal, wants_span.is_some(), head.clone(), &e.name.text);
        }
        self.has_goal.push(has_goal);
        let take = |slot: Option<(Option<ir::Dist>, Span)>, default: ir::Dist| -> Option<ir::Dist> {
            match slot {
                Some((d, _)) => d,
                None => Some(default),
            }
        };
        // Rodrigues et al.: β = 0.05 m per step at 24 steps/s, i.e. 1.2 m/s.
        let default_speed = ir::Dist::Constant(match (self.beta, self.dt) {
            (Some(beta), Some(dt)) => beta / dt,
            _ => DEFAULT_SPEED,
        });
        let pop = ir::Population {
            name: e.name.text.clone(),
            schedule: schedule?,
            leave: match leave {
                Some((l, _)) => l?,
                None => ir::Leave::Never,
            },
            spawn: spawn?,
            group_sizes: match groups {
                Some((g, _)) => g?,
                None => vec![(1, 1.0)],
            },
            speed: take(speed, default_speed)?,
            radius: take(radius, ir::Dist::Constant(DEFAULT_RADIUS))?,
            personal_space: take(personal, ir::Dist::Constant(1.2))?,
            goal,
            wants,
            dwell: take(dwell, ir::Dist::Constant(0.0))?,
            behaviour: behaviour?,
            formation: formation.and_then(|f| f.0),
        };
        let _ = wants_span;
        ok.then_some(pop)
    }

    fn group(
        &mut self,
        e: &ast::Entity,
        behaviours: &[ir::Behaviour],
        populations: &mut Vec<ir::Population>,
    ) -> Option<ir::Group> {
        let index = self.names.get(&e.name.text).filter(|d| d.kind == Kind::Group).map(|d| d.index)?;
        let own_population = self.group_population[index as usize];
        let mut members = vec![];
        let mut leader: Option<(Option<ir::PopulationId>, Span)> = None;
        let mut followers: Option<(Option<(ir::PopulationId, f64)>, Span)> = None;
        let mut group_map: Option<(Option<ir::GroupMap>, Span)> = None;
        let mut formation: Option<(Option<ir::Formation>, Span)> = None;
        let mut ok = true;
        for s in &e.stmts {
            match s {
                EntityStmt::Members(names) => {
                    for n in names {
                        match self.resolve(n, &[Kind::Agent]) {
                            Some(d) => members.push(ir::PopulationId(d.index)),
                            None => ok = false,
                        }
                    }
                }
                EntityStmt::Leader(n) => {
                    let l = self.resolve(n, &[Kind::Agent]).map(|d| ir::PopulationId(d.index));
                    self.once(&mut leader, l, n.span.clone(), "leader");
                }
                EntityStmt::Followers { around, within, .. } => {
                    let l = self.resolve(around, &[Kind::Agent]);
                    let w = self.si_in(within, Dim::Length, 0.0, f64::INFINITY, true, "follower spread");
                    let v = l.zip(w).map(|(l, w)| (ir::PopulationId(l.index), w));
                    self.once(&mut followers, v, around.span.clone(), "followers");
                }
                EntityStmt::GroupMap { x, y, cell, via } => {
                    let planner = |kind| Some(ir::MapVia::Planner(kind));
                    let via = match via.as_ref() {
                        None => planner(ir::PlannerKind::Bvp),
                        Some(ast::MapVia::Sketch(ps, _)) => self.points(ps).map(ir::MapVia::Sketch),
                        Some(ast::MapVia::Planner(v)) => match v.text.as_str() {
                            "bvp" => planner(ir::PlannerKind::Bvp),
                            "straight" => planner(ir::PlannerKind::Straight),
                            "astar" => planner(ir::PlannerKind::AStar),
                            other => {
                                self.error(
                                Diagnostic::error("E094", v.span.clone(), format!("`{other}` cannot lead a group map"))
                                    .label("not a global planner for a group map")
                                    .help("lead it `via bvp` (the world's potential, the default), `via straight`, `via astar` or `via sketch (X, Y), ...`"),
                            );
                                None
                            }
                        },
                    };
                    let c = self.si_in(cell, Dim::Length, 0.0, f64::INFINITY, true, "group map cell size");
                    let (gx, gy) = (x.value.unwrap_or(0), y.value.unwrap_or(0));
                    if gx < 3 || gy < 3 {
                        self.error(
                            Diagnostic::error(
                                "E030",
                                x.span.start..y.span.end,
                                format!("group map out of range: {gx} x {gy} cells"),
                            )
                            .label("too small")
                            .help("a group map needs at least 3 x 3 cells (the paper uses 20 x 20)"),
                        );
                        ok = false;
                    } else if gx.saturating_mul(gy) > ir::limits::MAX_GRID_CELLS {
                        self.error(
                            Diagnostic::error(
                                "E062",
                                x.span.start..y.span.end,
                                format!("a {gx} x {gy} group map has {} cells", gx.saturating_mul(gy)),
                            )
                            .label("too many cells")
                            .help(format!("at most {} cells", ir::limits::MAX_GRID_CELLS)),
                        );
                        ok = false;
                    } else if let (Some(cell), Some(via)) = (c, via.clone()) {
                        let v = Some(ir::GroupMap { cells_x: gx as u32, cells_y: gy as u32, cell, via });
                        self.once(&mut group_map, v, x.span.start..y.span.end, "group_map");
                    } else {
                        ok = false;
                    }
                }
                EntityStmt::Formation(f) => {
                    let v = self.formation(f);
                    self.once(&mut formation, v, f.span.clone(), "formation");
                }
                _ => {}
            }
        }
        let mut leader_spawn = None;
        let leader = match (leader, &followers) {
            (Some((Some(l), l_span)), Some((Some((around, _)), f_span))) if l != *around => {
                self.error(
                    Diagnostic::error(
                        "E072",
                        f_span.clone(),
                        "the followers gather around an agent that is not the leader",
                    )
                    .label("followers around this agent")
                    .related(l_span, "the group's leader")
                    .help("name the leader in `followers N around LEADER within D`"),
                );
                ok = false;
                None
            }
            (Some((l, _)), _) => l,
            (None, Some((Some((around, _)), _))) => Some(*around),
            (None, _) => None,
        };
        let followers = match followers {
            Some((Some((around, within)), _)) => {
                leader_spawn = Some(ir::Place::Around { leader: around, within });
                Some(within)
            }
            Some((None, _)) => {
                ok = false;
                None
            }
            None => None,
        };
        let map_span = group_map.as_ref().map(|g| g.1.clone());
        let (group_map, formation) = (group_map.and_then(|g| g.0), formation.and_then(|f| f.0));
        if let Some(p) = own_population {
            let mut e = e.clone();
            e.stmts.retain(|s| !matches!(s, EntityStmt::Formation(_)));
            match self.population(&e, false, leader_spawn, behaviours) {
                Some(pop) => {
                    // The index was given at declaration; it matches unless an earlier
                    // population failed, and then the IR is dropped anyway.
                    debug_assert!(populations.len() as u32 == p || self.has_errors());
                    populations.push(pop);
                    members.push(ir::PopulationId(p));
                }
                None => ok = false,
            }
        } else if members.is_empty() && leader.is_none() {
            self.missing(
                e.name.span.clone(),
                "group members",
                "add `agents N in REGION`, `members a, b, c`, or `leader NAME` with `followers N around NAME within D`",
            );
            ok = false;
        } else {
            // Members keep their own attributes, goals and behaviours: a group-level one would be silently ignored.
            for s in &e.stmts {
                let (span, what) = match s {
                    EntityStmt::Uses(b) => (b.span.clone(), "behaviour"),
                    EntityStmt::Attribute { name, .. } => (name.span.clone(), "speed, radius or personal space"),
                    EntityStmt::Goal(g) => (goal_span(g), "goal"),
                    _ => continue,
                };
                self.error(
                    Diagnostic::error("E072", span, format!("a group of declared agents takes no {what}"))
                        .label("members keep their own")
                        .help(format!(
                            "give the {what} to each member agent, or declare the members with `agents N in REGION`"
                        )),
                );
                ok = false;
            }
        }
        if let (Some(span), Some(_)) = (map_span, &group_map) {
            ok &= self.members_outrun_their_map(&e.name.text, &members, populations, span);
        }
        ok.then(|| ir::Group {
            name: e.name.text.clone(),
            members,
            leader,
            followers: followers
                .map(|within| ir::Followers { population: ir::PopulationId(own_population.unwrap_or(0)), within }),
            formation,
            group_map,
        })
    }

    /// Silveira et al.: "v_max must be greater than the group map velocity
    /// to ensure that the character always stay inside the group map".
    fn members_outrun_their_map(
        &mut self,
        group: &str,
        members: &[ir::PopulationId],
        populations: &[ir::Population],
        span: Span,
    ) -> bool {
        let map_speed = self.params.bvp.map_speed;
        let slowest = members
            .iter()
            .filter_map(|m| populations.get(m.index()))
            .map(|p| match &p.speed {
                ir::Dist::Constant(v) => *v,
                ir::Dist::Uniform { min, .. } | ir::Dist::Normal { min, .. } => *min,
                ir::Dist::Choice(c) => c.iter().map(|(v, _)| *v).fold(f64::INFINITY, f64::min),
            })
            .fold(f64::INFINITY, f64::min);
        if slowest > map_speed {
            return true;
        }
        self.error(
            Diagnostic::error(
                "E030",
                span,
                format!("members of group {group} can walk at {slowest} m/s, no faster than its group map ({map_speed} m/s)"),
            )
            .label("this map would leave its members behind")
            .help("give the members a speed above `bvp.map_speed`, or lower it in `parameters bvp { map_speed ... }`"),
        );
        false
    }

    fn count(&mut self, n: &ast::Int, what: &str) -> Option<u32> {
        let v = n.value?;
        if v == 0 || v > ir::limits::MAX_AGENTS {
            self.error(
                Diagnostic::error(
                    if v == 0 { "E030" } else { "E061" },
                    n.span.clone(),
                    format!("{what} out of range: {v}"),
                )
                .label(if v == 0 { "no agents" } else { "too many agents" })
                .help(format!("give between 1 and {} agents", ir::limits::MAX_AGENTS)),
            );
            return None;
        }
        Some(v as u32)
    }

    /// A time inside the run: `0 ≤ t ≤ duration`.
    pub(super) fn time_in_run(&mut self, q: &ast::Quantity, what: &str) -> Option<f64> {
        let max = self.duration.unwrap_or(f64::INFINITY);
        self.si_in(q, Dim::Time, 0.0, max, false, what)
    }

    fn group_sizes(&mut self, shares: &[(ast::Int, ast::Quantity)]) -> Option<Vec<(u32, f64)>> {
        let mut out = vec![];
        let mut ok = true;
        for (size, share) in shares {
            let p = self.si_in(share, Dim::Percent, 0.0, 1.0, false, "group share");
            match size.value {
                Some(s) if (1..=u64::from(ir::limits::MAX_PROCEDURAL_GROUP)).contains(&s) => {
                    if let Some(p) = p {
                        out.push((s as u32, p));
                    }
                }
                Some(s) => {
                    self.error(
                        Diagnostic::error(
                            "E032",
                            size.span.clone(),
                            format!("group size {s} is outside 1 to {}", ir::limits::MAX_PROCEDURAL_GROUP),
                        )
                        .label("procedural groups have at most 3 members")
                        .help("use sizes 1, 2 or 3; declare larger groups with `group NAME { agents N in REGION }`"),
                    );
                    ok = false;
                }
                None => ok = false,
            }
            if p.is_none() {
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let mut sizes: Vec<u32> = out.iter().map(|(s, _)| *s).collect();
        sizes.sort();
        if let Some(w) = sizes.windows(2).find(|w| w[0] == w[1]) {
            let span = shares
                .iter()
                .filter(|(s, _)| s.value == Some(u64::from(w[0])))
                .nth(1)
                .map_or(0..0, |(s, _)| s.span.clone());
            self.error(
                Diagnostic::error("E071", span, format!("group size {} is listed twice", w[0]))
                    .label("listed again")
                    .help("give each group size one share"),
            );
            return None;
        }
        self.sums_to_one(
            out.iter().map(|(_, p)| *p),
            shares[0].0.span.start..shares.last().map_or(0, |s| s.1.span.end),
            "group shares",
        )?;
        out.sort_by_key(|(s, _)| *s);
        Some(out)
    }

    /// Probabilities must add up to 100%.
    pub(super) fn sums_to_one(&mut self, ps: impl Iterator<Item = f64>, span: Span, what: &str) -> Option<()> {
        let total: f64 = ps.sum();
        if (total - 1.0).abs() > 1e-9 {
            self.error(
                Diagnostic::error("E031", span, format!("{what} add up to {}%, not 100%", round(total * 100.0)))
                    .label(format!("total {}%", round(total * 100.0)))
                    .help("make the percentages add up to exactly 100%"),
            );
            return None;
        }
        Some(())
    }

    /// A distribution of dimension `dim` whose values must lie in `(min, max]`
    /// (`min` itself allowed for times).
    pub(super) fn dist_checked(&mut self, d: &ast::Dist, dim: Dim, min: f64, max: f64, what: &str) -> Option<ir::Dist> {
        let open = dim != Dim::Time;
        match &d.kind {
            ast::DistKind::Constant(q) => self.si_in(q, dim, min, max, open, what).map(ir::Dist::Constant),
            ast::DistKind::Uniform(a, b) => {
                let (lo, hi) = (self.si_in(a, dim, min, max, open, what), self.si_in(b, dim, min, max, open, what));
                let (lo, hi) = (lo?, hi?);
                if lo > hi {
                    self.error(
                        Diagnostic::error("E030", d.span.clone(), format!("{what}: uniform bounds are reversed"))
                            .label("the lower bound is above the upper bound")
                            .help("write `uniform(low, high)` with low ≤ high"),
                    );
                    return None;
                }
                Some(ir::Dist::Uniform { min: lo, max: hi })
            }
            ast::DistKind::Normal(m, s) => {
                let mean = self.si_in(m, dim, min, max, open, what);
                let sd = self.si_in(s, dim, 0.0, f64::INFINITY, false, &format!("{what} standard deviation"));
                Some(ir::Dist::Normal {
                    mean: mean?,
                    sd: sd?,
                    min,
                    max: if max.is_finite() { max } else { mean? + 10.0 * sd? },
                })
            }
            ast::DistKind::Choice(items) => {
                let mut out = vec![];
                for (v, p) in items {
                    let v = self.si_in(v, dim, min, max, open, what);
                    let p = self.si_in(p, Dim::Percent, 0.0, 1.0, false, "choice weight");
                    out.push(v.zip(p));
                }
                let out: Vec<(f64, f64)> = out.into_iter().collect::<Option<_>>()?;
                self.sums_to_one(out.iter().map(|(_, p)| *p), d.span.clone(), "choice weights")?;
                Some(ir::Dist::Choice(out))
            }
        }
    }

    fn goal(&mut self, g: &ast::GoalSpec) -> Option<ir::Goal> {
        match g {
            ast::GoalSpec::Point(p) => self.point(p).map(ir::Goal::Point),
            ast::GoalSpec::Region(r) => {
                self.resolve(r, &[Kind::Region]).map(|d| ir::Goal::Region(ir::RegionId(d.index)))
            }
            ast::GoalSpec::Resource(r) => self.resource(r).map(ir::Goal::Resource),
            ast::GoalSpec::Object(o) => {
                self.resolve(o, &[Kind::Object]).map(|d| ir::Goal::Object(ir::ObjectId(d.index)))
            }
            ast::GoalSpec::Agent(a) => {
                self.resolve(a, &[Kind::Agent, Kind::Population]).map(|d| ir::Goal::Agent(ir::PopulationId(d.index)))
            }
        }
    }

    /// A resource someone provides.
    pub(super) fn resource(&mut self, n: &ast::Name) -> Option<ir::ResourceId> {
        if let Some(&id) = self.resources.get(&n.text) {
            self.symbols.use_at(n, self.resource_symbols[id as usize]);
            return Some(ir::ResourceId(id));
        }
        if self.in_broken(&n.text) {
            return None;
        }
        let help = match did_you_mean(&n.text, self.resource_names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`?"),
            None if self.resource_names.is_empty() => {
                "no object provides anything yet: add `object NAME at (x, y) provides ...` to a space".into()
            }
            None => format!("provided: {}", self.resource_names.join(", ")),
        };
        self.error(
            Diagnostic::error("E050", n.span.clone(), format!("nothing provides `{}`", n.text))
                .label("no object provides this resource")
                .help(help),
        );
        None
    }

    /// The `r` of `chaotic r R`: in (0, 4], where the map keeps [0, 1] to
    /// itself; a warning when its orbits do not spread.
    fn chaotic_rate(&mut self, q: &ast::Quantity) -> Option<f64> {
        let r = self.si(q, Dim::Number)?;
        if r <= 0.0 || r > 4.0 {
            self.error(
                Diagnostic::error("E030", q.span.clone(), format!("the logistic map's r out of range: {r}"))
                    .label("not greater than 0 and at most 4")
                    .help(
                        "outside (0, 4] the orbit x ← r x (1 − x) leaves [0, 1], taking the agents out of \
                         their region: use r between 3.57 and 4 for chaos, e.g. 3.9",
                    ),
            );
            return None;
        }
        let fate = chaos::fate(r);
        let what = match fate {
            chaos::Fate::Chaotic { .. } => return Some(r),
            chaos::Fate::Zero { .. } => format!(
                "with r = {r} the logistic map converges to 0: after the first few agents everyone lands on the \
                 corner of the region's box"
            ),
            chaos::Fate::Fixed { point, .. } => format!(
                "with r = {r} the logistic map converges to {point:.3} (1 − 1/r): after the first few agents \
                 everyone lands on one point"
            ),
            chaos::Fate::Cycle { length, .. } => format!(
                "with r = {r} the orbits settle on a cycle of {length} values: after the first few agents \
                 everyone lands on one of {length} points"
            ),
            chaos::Fate::Settles { lyapunov } => format!(
                "with r = {r} the logistic map is not chaotic (Lyapunov exponent {lyapunov:.3}): the orbits settle \
                 on a few values and the agents pile up on a few points"
            ),
        };
        self.diags.push(
            Diagnostic::warning("W003", q.span.clone(), what)
                .label(match fate.lyapunov() {
                    l if l.is_finite() => format!("not chaotic: Lyapunov exponent {l:.3} ≤ 0"),
                    _ => "not chaotic: Lyapunov exponent −∞ (a superstable orbit)".to_string(),
                })
                .help("use r between 3.57 and 4, e.g. 3.9 (docs/language.md#chaotic-placement)"),
        );
        Some(r)
    }

    /// A spawn place must have walkable room.
    fn spawn_place(&mut self, p: ir::Place, span: Span) -> Option<ir::Place> {
        let world = self.world.as_ref()?;
        match &p {
            ir::Place::Point(x) => {
                let inside = world.obstacles.iter().find(|o| geometry::contains(&o.shape, *x));
                if !world.bounds.contains(*x) || inside.is_some() {
                    let label = match inside {
                        _ if !world.bounds.contains(*x) => "outside the world bounds".to_string(),
                        Some(o) => format!("inside obstacle `{}`", o.name),
                        None => String::new(),
                    };
                    self.error(
                        Diagnostic::error("E048", span, format!("spawn point ({} m, {} m) is not walkable", x.x, x.y))
                            .label(label)
                            .help("move the spawn point into free space"),
                    );
                    return None;
                }
            }
            ir::Place::Region(r) | ir::Place::Chaotic { region: r, .. } => {
                let name = world.regions[r.index()].name.clone();
                if !self.region_walkable(*r) {
                    self.error(
                        Diagnostic::error("E046", span, format!("spawn region `{name}` has no walkable area"))
                            .label("covered by obstacles or outside the bounds")
                            .help("choose a region with free space in it, or move the obstacles"),
                    );
                    return None;
                }
            }
            ir::Place::Around { .. } => {}
        }
        Some(p)
    }

    /// A region someone walks to: it must hold walkable space.
    pub(super) fn walkable_region(&mut self, n: &ast::Name) -> Option<ir::RegionId> {
        let id = ir::RegionId(self.resolve(n, &[Kind::Region])?.index);
        self.goal_walkable(&ir::Goal::Region(id), n.span.clone()).then_some(id)
    }

    /// Whether some of a region is walkable (computed once per region).
    fn region_walkable(&mut self, r: ir::RegionId) -> bool {
        self.walkable_share(r).is_none_or(|share| share > 0.0)
    }

    /// The walkable part of region `r`'s area, m² (sampled, see [`walkable_fraction`]).
    pub(super) fn region_walkable_area(&mut self, r: ir::RegionId) -> f64 {
        let Some(share) = self.walkable_share(r) else { return 0.0 };
        self.world.as_ref().map_or(0.0, |w| share * geometry::bounding_box(&w.regions[r.index()].shape).area())
    }

    /// The walkable share of region `r`'s bounding box, computed once per
    /// region; `None` without a world.
    fn walkable_share(&mut self, r: ir::RegionId) -> Option<f64> {
        if let Some(&share) = self.walkable_regions.get(&r.0) {
            return Some(share);
        }
        let world = self.world.as_ref()?;
        if self.obstacle_boxes.len() != world.obstacles.len() {
            self.obstacle_boxes = world.obstacles.iter().map(|o| geometry::bounding_box(&o.shape)).collect();
        }
        let share = walkable_fraction(world, &self.obstacle_boxes, &world.regions[r.index()].shape);
        self.walkable_regions.insert(r.0, share);
        Some(share)
    }

    pub(super) fn goal_walkable(&mut self, g: &ir::Goal, span: Span) -> bool {
        if let ir::Goal::Region(r) = g {
            if !self.region_walkable(*r) {
                self.error(
                    Diagnostic::error("E047", span, "the goal cannot be reached: it is not in walkable space")
                        .label("covered by obstacles")
                        .help("move the goal into free space"),
                );
                return false;
            }
            return true;
        }
        let Some(world) = &self.world else { return true };
        let (bad, what) = match g {
            ir::Goal::Point(x) => {
                let hit = world.obstacles.iter().find(|o| geometry::contains(&o.shape, *x));
                match hit {
                    Some(o) => (true, format!("inside obstacle `{}`", o.name)),
                    None if !world.bounds.contains(*x) => (true, "outside the world bounds".to_string()),
                    None => (false, String::new()),
                }
            }
            _ => (false, String::new()),
        };
        if bad {
            self.error(
                Diagnostic::error("E047", span, "the goal cannot be reached: it is not in walkable space")
                    .label(what)
                    .help("move the goal into free space"),
            );
        }
        !bad
    }

    /// A behaviour that seeks the agent's own goal needs one to seek.
    fn goal_needed(&mut self, b: &Option<&ir::Behaviour>, has_goal: bool, has_wants: bool, span: Span, name: &str) {
        let Some(b) = b else { return };
        let actions: Vec<&ir::Action> = behaviour_actions(b).collect();
        let seeks_own = actions.iter().any(|a| matches!(a, ir::Action::Seek { target: ir::Target::OwnGoal, .. }));
        let picks = actions.iter().any(|a| matches!(a, ir::Action::PickGoal));
        let pushes = actions.iter().any(|a| matches!(a, ir::Action::PushGoal(_)));
        if seeks_own && !has_goal && !picks && !pushes {
            self.error(
                Diagnostic::error("E093", span.clone(), format!("`{name}` has no goal, but its behaviour `{}` seeks one", b.name))
                    .label("no `goal` and no `wants`")
                    .help("add `goal (x m, y m)` or `goal region NAME` (a population may instead list `wants` and `pick goal`)"),
            );
        }
        if picks && !has_wants {
            self.error(
                Diagnostic::error(
                    "E093",
                    span,
                    format!("`{name}` wants nothing, but its behaviour `{}` picks a goal from its wants", b.name),
                )
                .label("no `wants`")
                .help("list what it wants, e.g. `wants fun, rest`, in the population"),
            );
        }
    }

    pub(super) fn formation(&mut self, f: &ast::Formation) -> Option<ir::Formation> {
        match &f.kind {
            ast::FormationKind::Sketch(ps) => {
                let points = self.points(ps)?;
                if points.len() < 2 {
                    self.error(
                        Diagnostic::error("E040", f.span.clone(), "a sketched formation needs at least two points")
                            .label("one point")
                            .help("sketch the formation as a list of points, e.g. `formation sketch (0 m, 0 m), (1 m, 1 m), (1 m, -1 m)`"),
                    );
                    return None;
                }
                Some(ir::Formation::Sketch(points))
            }
            ast::FormationKind::Named(n) => Some(match n.text.as_str() {
                "auto" => ir::Formation::Auto,
                "side_by_side" | "line" => ir::Formation::SideBySide,
                "v" => ir::Formation::V,
                "river" | "column" => ir::Formation::River,
                "diamond" => ir::Formation::Diamond,
                _ => ir::Formation::Square,
            }),
        }
    }
}

/// Every action a behaviour can take, in any rule or state.
pub(super) fn behaviour_actions(b: &ir::Behaviour) -> Box<dyn Iterator<Item = &ir::Action> + '_> {
    match &b.body {
        ir::BehaviourBody::Rules(rules) => Box::new(rules.iter().flat_map(|r| &r.actions)),
        ir::BehaviourBody::States(states) => Box::new(states.iter().flat_map(|s| &s.actions)),
    }
}

fn attribute_dim(name: &str) -> Dim {
    if name == "speed" {
        Dim::Speed
    } else {
        Dim::Length
    }
}

fn goal_span(g: &ast::GoalSpec) -> Span {
    match g {
        ast::GoalSpec::Point(p) => p.span.clone(),
        ast::GoalSpec::Region(n) | ast::GoalSpec::Resource(n) | ast::GoalSpec::Object(n) | ast::GoalSpec::Agent(n) => {
            n.span.clone()
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The fraction of a 32 × 32 sample grid over the shape's box that is in the
/// shape, in bounds and not in an obstacle.
/// `boxes` are the obstacles' bounding boxes, in order.
pub(super) fn walkable_fraction(world: &ir::World, boxes: &[ir::Rect], shape: &ir::Shape) -> f64 {
    let b = geometry::bounding_box(shape);
    // Only the obstacles whose boxes overlap the shape's box can cover it.
    let near: Vec<&ir::Shape> = world
        .obstacles
        .iter()
        .zip(boxes)
        .filter(|(_, ob)| ob.min.x <= b.max.x && b.min.x <= ob.max.x && ob.min.y <= b.max.y && b.min.y <= ob.max.y)
        .map(|(o, _)| &o.shape)
        .collect();
    let n = 32;
    let mut hits = 0;
    for i in 0..n {
        for j in 0..n {
            let p = Vec2::new(
                b.min.x + (b.max.x - b.min.x) * (i as f64 + 0.5) / n as f64,
                b.min.y + (b.max.y - b.min.y) * (j as f64 + 0.5) / n as f64,
            );
            if geometry::contains(shape, p)
                && world.bounds.contains(p)
                && !near.iter().any(|o| geometry::contains(o, p))
            {
                hits += 1;
            }
        }
    }
    hits as f64 / (n * n) as f64
}
