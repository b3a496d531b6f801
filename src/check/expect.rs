//! Expectations: the claims a scenario makes about its own run.

use super::{Checker, Dim, Kind};
use crate::diag::Diagnostic;
use crate::ir::limits::{cover_spacing, MAX_COVER_SAMPLES};
use crate::ir::{self, ExpectationKind as K};
use crate::syntax::ast;

/// The widest lane a `lanes width W` claim may ask for, m.
const MAX_LANE_WIDTH: f64 = 100.0;

impl Checker {
    pub(super) fn expectations(&mut self, file: &ast::File, spaces: &[ir::Space]) -> Vec<ir::Expectation> {
        let mut out = vec![];
        // By group index: whether the group declares a formation.
        let formed: Vec<bool> = file
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Group(g) => Some(g.stmts.iter().any(|s| matches!(s, ast::EntityStmt::Formation(_)))),
                _ => None,
            })
            .collect();
        for item in &file.items {
            let ast::Item::Expect(list) = item else { continue };
            for e in list {
                if let Some(kind) = self.expectation(e, spaces, &formed) {
                    out.push(ir::Expectation { text: self.source[e.span.clone()].to_string(), kind });
                }
            }
        }
        out
    }

    fn expectation(
        &mut self,
        e: &ast::Expectation,
        spaces: &[ir::Space],
        formed: &[bool],
    ) -> Option<ir::ExpectationKind> {
        use ast::ExpectationKind as A;
        let everyone = |c: &mut Self, s: &Option<ast::Subject>| match s {
            Some(s) => c.subject(s),
            None => Some(ir::Subject::Everyone),
        };
        Some(match &e.kind {
            A::Reaches { who, by } => {
                let who = self.subject(who).filter(|s| self.subject_has_goal(*s, who.span()));
                let by = match by {
                    Some(q) => Some(self.time_in_run(q, "goal time")?),
                    None => None,
                };
                K::ReachesGoal { who: who?, by }
            }
            A::MinDistance { among, distance, at } => {
                let among = everyone(self, among);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "minimum distance");
                let at = match at {
                    Some(w) => Some(self.when(w)?),
                    None => None,
                };
                K::MinDistance { among: among?, distance: d?, at }
            }
            A::Nobody { who, inside } => {
                let who = everyone(self, who);
                let obstacle = match inside {
                    Some(n) => Some(ir::ObstacleId(self.resolve(n, &[Kind::Obstacle])?.index)),
                    None => None,
                };
                K::NeverInside { who: who?, obstacle }
            }
            A::Clearance { who, from, distance, at } => {
                let who = everyone(self, who);
                let obstacle = from.as_ref().map(|n| self.resolve(n, &[Kind::Obstacle]));
                let bare = from.is_none() && self.world.as_ref().is_some_and(|w| w.obstacles.is_empty());
                if bare {
                    self.error(
                        Diagnostic::error("E070", e.span.clone(), "a clearance claim in a world without obstacles")
                            .label("no obstacle to keep clear of")
                            .help("add an `obstacle` to the world, or leave the claim out"),
                    );
                }
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "clearance");
                // Each part has reported its mistakes before any of them returns.
                let at = match at {
                    Some(w) => Some(self.when(w)?),
                    None => None,
                };
                let obstacle = match obstacle {
                    Some(o) => Some(ir::ObstacleId(o?.index)),
                    None => None,
                };
                if bare {
                    return None;
                }
                K::Clearance { who: who?, obstacle, distance: d?, at }
            }
            A::NobodyInCore { who, groups } => {
                let who = everyone(self, who);
                let groups = self.subject(groups);
                K::NeverInCore { who: who?, groups: groups? }
            }
            A::GoalsProvideWants { who } => K::GoalsProvideWants { who: self.subject(who)? },
            A::Fraction { at_most, amount, who, inside, at } => {
                let amount = self.amount(amount, "amount");
                let who = self.subject(who);
                let area = self.area(inside);
                let at = self.when(at);
                K::Inside { who: who?, comparison: comparison(*at_most), amount: amount?, area: area?, at: at? }
            }
            A::Lanes { width, among, threshold, at } => {
                let width = match width {
                    Some(w) => self.si_in(w, Dim::Length, 0.0, MAX_LANE_WIDTH, true, "lane width"),
                    None => Some(2.0 * crate::trace::metrics::LANE_HALF_WIDTH),
                };
                let among = everyone(self, among);
                let t = self.si_in(threshold, Dim::Number, 0.0, 1.0, false, "lane order threshold");
                let at = self.when(at);
                K::Lanes { width: width?, among: among?, threshold: t?, at: at? }
            }
            A::Surrounds { who, target, at, spread } => {
                let who = self.subject(who);
                let target = self.subject(target);
                let at = self.when(at);
                let spread = self.si_in(spread, Dim::Angle, 0.0, std::f64::consts::TAU, false, "angular spread");
                K::Surrounds { who: who?, target: target?, spread: spread?, at: at? }
            }
            A::Farther { who, distance, from, at } => {
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "distance");
                let from = self.subject(from);
                let at = self.when(at);
                K::AwayFrom { who: who?, from: from?, distance: d?, at: at? }
            }
            A::Near { who, distance, of, at } => {
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "distance");
                let of = self.subject(of);
                let at = self.when(at);
                K::Near { who: who?, of: of?, distance: d?, at: at? }
            }
            A::Covers { who, area, distance, at } => {
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, true, "covering distance");
                let area = self.covered_area(area, d, distance.span.clone(), spaces);
                let at = self.when(at);
                K::Covers { who: who?, area: area?, distance: d?, at: at? }
            }
            A::Collisions { among, max } => {
                let among = everyone(self, among);
                let max = self.int_in(max, 0, u64::from(u32::MAX), "collision count");
                K::Collisions { among: among?, max: max? }
            }
            A::Overlap { among, max } => {
                let among = everyone(self, among);
                let max = self.si_in(max, Dim::Length, 0.0, f64::INFINITY, false, "overlap");
                K::Overlap { among: among?, max: max? }
            }
            A::PathRatio { who, max } => {
                let who = self.subject(who);
                let max = self.si_in(max, Dim::Number, 1.0, f64::INFINITY, false, "path ratio");
                K::PathRatio { who: who?, max: max? }
            }
            A::Stuck { max, who } => {
                let max = self.amount(max, "number of stuck agents");
                let who = self.subject(who).filter(|s| self.subject_has_goal(*s, who.span()));
                K::Stuck { who: who?, max: max? }
            }
            A::TripsWithin { share, who, within } => {
                let share = self.si_in(share, Dim::Percent, 0.0, 1.0, false, "share of trips");
                let who = self.subject(who).filter(|s| self.subject_has_goal(*s, who.span()));
                let within = self.si_in(within, Dim::Time, 0.0, f64::INFINITY, false, "travel time");
                K::TripsWithin { who: who?, share: share?, within: within? }
            }
            A::Moves { who, distance, by } => {
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "distance");
                let by = self.time_in_run(by, "time");
                K::Moves { who: who?, distance: d?, by: by? }
            }
            A::MoveLess { max, who, distance, by } => {
                let max = self.amount(max, "number of agents");
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "distance");
                let by = self.time_in_run(by, "time");
                K::MoveLess { who: who?, max: max?, distance: d?, by: by? }
            }
            A::Picks { who, at_most, count, by } => {
                let who = self.subject(who);
                let count = self.int_in(count, 0, u64::from(u32::MAX), "number of goals");
                let by = self.time_in_run(by, "time");
                let (who, count, by) = (who?, count?, by?);
                if *at_most {
                    K::PicksAtMost { who, count, by }
                } else {
                    K::PicksGoals { who, count, by }
                }
            }
            A::CountBound { who, at_most, bound, at } => {
                let who = self.subject(who);
                let at = self.when(at);
                let bound = self.int_in(bound, 0, ir::limits::MAX_AGENTS, "number of agents");
                K::CountBound { who: who?, comparison: comparison(*at_most), bound: bound?, at: at? }
            }
            A::NearestDistance { who, at_most, bound, at } => {
                let who = self.subject(who);
                let bound = self.si_in(bound, Dim::Length, 0.0, f64::INFINITY, false, "nearest distance");
                let at = self.when(at);
                K::NearestDistance { who: who?, comparison: comparison(*at_most), bound: bound?, at: at? }
            }
            A::MeanSpeed { who, at_most, bound, at } => {
                let who = self.subject(who);
                let bound = self.si_in(bound, Dim::Speed, 0.0, f64::INFINITY, false, "mean speed");
                let at = self.when(at);
                K::MeanSpeed { who: who?, comparison: comparison(*at_most), bound: bound?, at: at? }
            }
            A::Formation { group, formation, at } => {
                let group = self
                    .claim_group(group, "a formation", "formation of GROUP is river at 12 s")
                    .map(|d| ir::Subject::Group(ir::GroupId(d.index)));
                let kind = match ir::FormationKind::from_name(formation.text.as_bytes()) {
                    Some(k) => Some(k),
                    None => {
                        self.error(
                            crate::diag::Diagnostic::error(
                                "E030",
                                formation.span.clone(),
                                format!("`{}` is not a group formation an expectation can test", formation.text),
                            )
                            .label("not side_by_side, v or river")
                            .help("test one of the formations chosen by free space: side_by_side, v, river"),
                        );
                        None
                    }
                };
                let at = self.when(at);
                K::FormationIs { group: group?, formation: kind?, at: at? }
            }
            A::FormationError { group, at_most, bound, at } => {
                let decl = self.claim_group(group, "a formation error", "formation error of GROUP <= 0.3 m at 12 s");
                let decl = decl.filter(|d| self.group_has_formation(d, group, formed));
                let bound = self.si_in(bound, Dim::Length, 0.0, f64::INFINITY, false, "formation error");
                let at = self.when(at);
                K::FormationError {
                    group: ir::GroupId(decl?.index),
                    comparison: comparison(*at_most),
                    bound: bound?,
                    at: at?,
                }
            }
            A::Spread { group, at_most, bound, at } => {
                let decl = self.claim_group(group, "a spread", "spread of GROUP <= 2 m at 12 s");
                let bound = self.si_in(bound, Dim::Length, 0.0, f64::INFINITY, false, "spread");
                let at = self.when(at);
                K::Spread { group: ir::GroupId(decl?.index), comparison: comparison(*at_most), bound: bound?, at: at? }
            }
            A::Count { who, count, tolerance, at } => {
                let who = self.subject(who);
                let at = self.when(at);
                let c = self.int_in(count, 0, ir::limits::MAX_AGENTS, "expected count");
                let t = match tolerance {
                    Some(t) => self.int_in(t, 0, ir::limits::MAX_AGENTS, "count tolerance"),
                    None => Some(0),
                };
                K::CountIs { who: who?, count: c?, tolerance: t?, at: at? }
            }
        })
    }

    /// The group a claim about one group names: a group, not `everyone`
    /// (`what` is the measure it claims, `example` a claim written right).
    fn claim_group(&mut self, s: &ast::Subject, what: &str, example: &str) -> Option<super::Decl> {
        match s {
            ast::Subject::Named(n) => self.resolve(n, &[Kind::Group]),
            ast::Subject::Everyone(span) => {
                self.error(
                    Diagnostic::error("E012", span.clone(), format!("{what} belongs to a group, not to everyone"))
                        .label("not a group")
                        .help(format!("name a group: `{example}`")),
                );
                None
            }
            ast::Subject::Followers { group, span } => {
                let name = &group.text;
                self.error(
                    Diagnostic::error("E012", span.clone(), format!("{what} belongs to a group, not to its followers"))
                        .label("not a group")
                        .help(format!("name the group: `{}`", example.replace("GROUP", name))),
                );
                None
            }
        }
    }

    /// A formation error is measured against the group's declared formation.
    fn group_has_formation(&mut self, d: &super::Decl, group: &ast::Subject, formed: &[bool]) -> bool {
        if formed.get(d.index as usize).copied().unwrap_or(true) {
            return true;
        }
        let name = &self.source[d.span.clone()];
        let help = format!(
            "declare the formation it keeps in the group (e.g. `formation square`), or claim its size instead: `spread of {name} <= 2 m at 12 s`"
        );
        self.error(
            Diagnostic::error(
                "E070",
                group.span(),
                format!("group `{name}` declares no formation to measure an error against"),
            )
            .label("a group without a `formation`")
            .related(d.span.clone(), format!("`{name}` is declared here without one"))
            .help(help),
        );
        false
    }

    /// A time qualifier: every time in the run, an interval that does not
    /// end before it starts, a share of frames from 0 to 100%.
    fn when(&mut self, w: &ast::When) -> Option<ir::When> {
        match w {
            ast::When::At(t) => Some(ir::When::At(self.time_in_run(t, "time")?)),
            ast::When::During(from, to) => {
                let (a, b) = self.interval(from, to)?;
                Some(ir::When::During(a, b))
            }
            ast::When::Share { share, from, to } => {
                let share = self.si_in(share, Dim::Percent, 0.0, 1.0, false, "share of the frames");
                let (a, b) = self.interval(from, to)?;
                Some(ir::When::Share { share: share?, from: a, to: b })
            }
        }
    }

    /// `T1 to T2`, both in the run, T1 ≤ T2.
    fn interval(&mut self, from: &ast::Quantity, to: &ast::Quantity) -> Option<(f64, f64)> {
        let a = self.time_in_run(from, "start time");
        let b = self.time_in_run(to, "end time");
        let (a, b) = (a?, b?);
        if a > b {
            self.error(
                Diagnostic::error(
                    "E030",
                    from.span.start..to.span.end,
                    format!("the interval ends at {b} s, before it starts at {a} s"),
                )
                .label("start after end")
                .help("write the earlier time first: `during T1 to T2` with T1 ≤ T2"),
            );
            return None;
        }
        Some((a, b))
    }

    /// How many agents: `N` (a whole number) or `P%` (a share of them).
    fn amount(&mut self, q: &ast::Quantity, what: &str) -> Option<ir::Amount> {
        if q.unit.is_some() {
            return self.si_in(q, Dim::Percent, 0.0, 1.0, false, what).map(ir::Amount::Share);
        }
        let max = ir::limits::MAX_AGENTS as f64;
        let n = self.si_in(q, Dim::Number, 0.0, max, false, what)?;
        if n.fract() != 0.0 {
            self.error(
                Diagnostic::error("E030", q.span.clone(), format!("{what} is not a whole number: {n}"))
                    .label("a count of agents")
                    .help("write a whole number of agents, or a percentage such as `10%`"),
            );
            return None;
        }
        Some(ir::Amount::Count(n as u32))
    }

    /// The area `P covers S within D` samples: a region, target shape or
    /// space (a mask has no inside), and not so large for its spacing that
    /// checking it would cost more than [`MAX_COVER_SAMPLES`] points a frame.
    fn covered_area(
        &mut self,
        n: &ast::Name,
        d: Option<f64>,
        d_span: ast::Span,
        spaces: &[ir::Space],
    ) -> Option<ir::AreaRef> {
        let decl = self.resolve(n, &[Kind::Region, Kind::Shape, Kind::Space])?;
        let world = self.world.as_ref()?;
        let shape = match decl.kind {
            Kind::Region => &world.regions.get(decl.index as usize)?.shape,
            Kind::Shape => &world.shapes.get(decl.index as usize)?.shape,
            _ => &spaces.get(decl.index as usize)?.shape,
        };
        let b = crate::world::geometry::bounding_box(shape);
        let h = cover_spacing(d?);
        let samples = ((b.max.x - b.min.x) / h).ceil().max(1.0) * ((b.max.y - b.min.y) / h).ceil().max(1.0);
        if samples > MAX_COVER_SAMPLES {
            self.error(
                Diagnostic::error(
                    "E062",
                    d_span,
                    format!("checking that `{}` is covered needs {samples:.0} sample points, more than {MAX_COVER_SAMPLES:.0}", n.text),
                )
                .label(format!("sampled every {h} m"))
                .help("cover a smaller area, or allow a larger distance (the spacing is half of it, at most 0.25 m)"),
            );
            return None;
        }
        Some(match decl.kind {
            Kind::Region => ir::AreaRef::Region(ir::RegionId(decl.index)),
            Kind::Shape => ir::AreaRef::Shape(ir::ShapeId(decl.index)),
            _ => ir::AreaRef::Space(ir::SpaceId(decl.index)),
        })
    }

    /// `reaches goal` needs the agents to have a goal.
    fn subject_has_goal(&mut self, s: ir::Subject, span: ast::Span) -> bool {
        if let ir::Subject::Population(p) = s {
            if self.has_goal.get(p.index()) == Some(&false) {
                self.error(
                    crate::diag::Diagnostic::error("E093", span, "these agents have no goal to reach")
                        .label("no `goal` and no `wants`")
                        .help(
                            "give them a goal, or test another expectation (e.g. `at least 90% of X inside AREA at T`)",
                        ),
                );
                return false;
            }
        }
        true
    }

    fn area(&mut self, n: &ast::Name) -> Option<ir::AreaRef> {
        let d = self.resolve(n, &[Kind::Region, Kind::Shape, Kind::Mask, Kind::Space])?;
        Some(match d.kind {
            Kind::Region => ir::AreaRef::Region(ir::RegionId(d.index)),
            Kind::Shape => ir::AreaRef::Shape(ir::ShapeId(d.index)),
            Kind::Mask => ir::AreaRef::Mask(ir::MaskId(d.index)),
            _ => ir::AreaRef::Space(ir::SpaceId(d.index)),
        })
    }
}

/// `<=` (at most) or `>=` (at least).
fn comparison(at_most: bool) -> ir::Comparison {
    if at_most {
        ir::Comparison::AtMost
    } else {
        ir::Comparison::AtLeast
    }
}
