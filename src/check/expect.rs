//! Expectations: the claims a scenario makes about its own run.

use super::{Checker, Dim, Kind};
use crate::ir::{self, ExpectationKind as K};
use crate::syntax::ast;

impl Checker {
    pub(super) fn expectations(&mut self, file: &ast::File) -> Vec<ir::Expectation> {
        let mut out = vec![];
        for item in &file.items {
            let ast::Item::Expect(list) = item else { continue };
            for e in list {
                if let Some(kind) = self.expectation(e) {
                    out.push(ir::Expectation { text: self.source[e.span.clone()].to_string(), kind });
                }
            }
        }
        out
    }

    fn expectation(&mut self, e: &ast::Expectation) -> Option<ir::ExpectationKind> {
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
            A::MinDistance { among, distance } => {
                let among = everyone(self, among);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "minimum distance");
                K::MinDistance { among: among?, distance: d? }
            }
            A::Nobody { who, inside } => {
                let who = everyone(self, who);
                let obstacle = match inside {
                    Some(n) => Some(ir::ObstacleId(self.resolve(n, &[Kind::Obstacle])?.index)),
                    None => None,
                };
                K::NeverInside { who: who?, obstacle }
            }
            A::NobodyInCore { who, groups } => {
                let who = everyone(self, who);
                let groups = self.subject(groups);
                K::NeverInCore { who: who?, groups: groups? }
            }
            A::GoalsProvideWants { who } => K::GoalsProvideWants { who: self.subject(who)? },
            A::Fraction { fraction, who, inside, at } => {
                let f = self.si_in(fraction, Dim::Percent, 0.0, 1.0, false, "fraction");
                let who = self.subject(who);
                let area = self.area(inside);
                let at = self.time_in_run(at, "time");
                K::FractionInside { who: who?, fraction: f?, area: area?, at: at? }
            }
            A::Lanes { among, threshold, at } => {
                let among = everyone(self, among);
                let t = self.si_in(threshold, Dim::Number, 0.0, 1.0, false, "lane order threshold");
                let at = self.time_in_run(at, "time");
                K::Lanes { among: among?, threshold: t?, at: at? }
            }
            A::Surrounds { who, target, at, spread } => {
                let who = self.subject(who);
                let target = self.subject(target);
                let at = self.time_in_run(at, "time");
                let spread = self.si_in(spread, Dim::Angle, 0.0, std::f64::consts::TAU, false, "angular spread");
                K::Surrounds { who: who?, target: target?, spread: spread?, at: at? }
            }
            A::Farther { who, distance, from, at } => {
                let who = self.subject(who);
                let d = self.si_in(distance, Dim::Length, 0.0, f64::INFINITY, false, "distance");
                let from = self.subject(from);
                let at = self.time_in_run(at, "time");
                K::AwayFrom { who: who?, from: from?, distance: d?, at: at? }
            }
            A::Formation { group, formation, at } => {
                let group = match group {
                    ast::Subject::Named(n) => {
                        self.resolve(n, &[Kind::Group]).map(|d| ir::Subject::Group(ir::GroupId(d.index)))
                    }
                    ast::Subject::Everyone(span) => {
                        self.error(
                            crate::diag::Diagnostic::error(
                                "E012",
                                span.clone(),
                                "a formation belongs to a group, not to everyone",
                            )
                            .label("not a group")
                            .help("name a group: `formation of GROUP is river at 12 s`"),
                        );
                        None
                    }
                };
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
                let at = self.time_in_run(at, "time");
                K::FormationIs { group: group?, formation: kind?, at: at? }
            }
            A::Count { who, count, tolerance, at } => {
                let who = self.subject(who);
                let at = self.time_in_run(at, "time");
                let c = self.int_in(count, 0, ir::limits::MAX_AGENTS, "expected count");
                let t = match tolerance {
                    Some(t) => self.int_in(t, 0, ir::limits::MAX_AGENTS, "count tolerance"),
                    None => Some(0),
                };
                K::CountIs { who: who?, count: c?, tolerance: t?, at: at? }
            }
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
