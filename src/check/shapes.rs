//! Points and shapes: units to metres, and geometry sanity.

use super::{Checker, Dim};
use crate::diag::Diagnostic;
use crate::ir::{self, Vec2};
use crate::syntax::ast;
use crate::world::geometry;

impl Checker {
    pub fn point(&mut self, p: &ast::Point) -> Option<Vec2> {
        let x = self.si(&p.x, Dim::Length);
        let y = self.si(&p.y, Dim::Length);
        Some(Vec2::new(x?, y?))
    }

    pub fn points(&mut self, ps: &[ast::Point]) -> Option<Vec<Vec2>> {
        let out: Vec<Option<Vec2>> = ps.iter().map(|p| self.point(p)).collect();
        out.into_iter().collect()
    }

    pub fn rect(&mut self, min: &ast::Point, max: &ast::Point, span: ast::Span) -> Option<ir::Rect> {
        let (a, b) = (self.point(min)?, self.point(max)?);
        if a.x >= b.x || a.y >= b.y {
            let flat = a.x == b.x || a.y == b.y;
            let (lo, hi) = (a.min(b), a.max(b));
            self.error(
                Diagnostic::error(
                    "E042",
                    span,
                    "degenerate rectangle: the first corner must be below and left of the second",
                )
                .label(if flat {
                    format!("({}, {}) to ({}, {}) has no area", a.x, a.y, b.x, b.y)
                } else {
                    format!("({}, {}) is not below and left of ({}, {})", a.x, a.y, b.x, b.y)
                })
                .help(if flat {
                    "give the rectangle a width and a height: `rect (min x, min y) to (max x, max y)`".to_string()
                } else {
                    format!(
                        "write the lower-left corner first: `rect ({} m, {} m) to ({} m, {} m)`",
                        lo.x, lo.y, hi.x, hi.y
                    )
                }),
            );
            return None;
        }
        Some(ir::Rect { min: a, max: b })
    }

    pub fn shape(&mut self, s: &ast::Shape) -> Option<ir::Shape> {
        match &s.kind {
            ast::ShapeKind::Rect(a, b) => self.rect(a, b, s.span.clone()).map(ir::Shape::Rect),
            ast::ShapeKind::Circle(c, r) => {
                let center = self.point(c);
                let radius = self.si_in(r, Dim::Length, 0.0, f64::INFINITY, true, "circle radius");
                Some(ir::Shape::Circle { center: center?, radius: radius? })
            }
            ast::ShapeKind::Polygon(ps) => self.polygon(ps, s.span.clone()),
            ast::ShapeKind::Polyline(ps, w) => {
                let points = self.points(ps);
                let width = self.si_in(w, Dim::Length, 0.0, f64::INFINITY, true, "polyline width");
                let points = points?;
                if points.len() < 2 || points.windows(2).any(|w| w[0] == w[1]) {
                    self.error(
                        Diagnostic::error("E040", s.span.clone(), "degenerate polyline")
                            .label("needs at least two points, each different from the one before")
                            .help("give the polyline two or more distinct points in a row"),
                    );
                    return None;
                }
                Some(ir::Shape::Polyline { points, width: width? })
            }
        }
    }

    fn polygon(&mut self, ps: &[ast::Point], span: ast::Span) -> Option<ir::Shape> {
        let mut points = self.points(ps)?;
        let mut distinct = points.clone();
        distinct.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        distinct.dedup();
        let collinear =
            distinct.len() >= 3 && points.iter().all(|p| (points[1] - points[0]).perp_dot(*p - points[0]) == 0.0);
        if distinct.len() < 3 || collinear || points.len() != distinct.len() {
            let label = if distinct.len() < 3 {
                format!("{} distinct point{}", distinct.len(), if distinct.len() == 1 { "" } else { "s" })
            } else if collinear {
                "all points lie on one line".to_string()
            } else {
                "a point is repeated".to_string()
            };
            self.error(
                Diagnostic::error("E040", span, "degenerate polygon")
                    .label(label)
                    .help("a polygon needs at least three distinct points, not all on one line, each listed once"),
            );
            return None;
        }
        if let Some((i, j)) = geometry::self_intersection(&points) {
            let n = ps.len();
            let edge = |k: usize| {
                ps[k].span.start.min(ps[(k + 1) % n].span.start)..ps[k].span.end.max(ps[(k + 1) % n].span.end)
            };
            self.error(
                Diagnostic::error("E041", edge(i), "self-intersecting polygon")
                    .label(format!("edge {} (point {} to {})", i + 1, i + 1, (i + 1) % n + 1))
                    .related(edge(j), format!("crosses edge {} (point {} to {}) here", j + 1, j + 1, (j + 1) % n + 1))
                    .help("list the points in order around the outline so that no two edges cross"),
            );
            return None;
        }
        let area2 = geometry::signed_area2(&points);
        if area2 < 0.0 {
            points.reverse();
        }
        Some(ir::Shape::Polygon(points))
    }
}
