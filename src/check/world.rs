//! The world block (bounds, obstacles, regions, markers, shapes, masks) and
//! the semantic spaces with their objects.

use super::{Checker, Dim, Kind};
use crate::diag::Diagnostic;
use crate::ir::{self, Vec2};
use crate::syntax::ast::{self, Span};
use crate::world::geometry;

/// The largest discomfort a region may carry: it multiplies the unit cost, so
/// beyond this a region is better written as an obstacle.
const MAX_DISCOMFORT: f64 = 1000.0;
/// The steepest slope a region may have (100%: 45°): steeper ground is a wall.
const MAX_SLOPE: f64 = 1.0;

impl Checker {
    /// `slope S toward (X, Y)`: the rise per metre up the slope, times the unit vector uphill.
    fn slope(&mut self, s: &ast::RegionSlope) -> Option<Vec2> {
        let rise = self.si_in(&s.rise, Dim::Percent, 0.0, MAX_SLOPE, false, "slope");
        let (x, y) = (self.si(&s.toward.0, Dim::Number), self.si(&s.toward.1, Dim::Number));
        let (x, y) = (x?, y?);
        let length = (x * x + y * y).sqrt();
        if !(length > 0.0 && length.is_finite()) {
            self.error(
                Diagnostic::error("E030", s.span.clone(), "the slope's direction is zero")
                    .label("no direction")
                    .help("give the direction the ground rises in, e.g. `toward (1, 0)` for east"),
            );
            return None;
        }
        Some(Vec2::new(x, y) * (rise? / length))
    }

    pub(super) fn world(&mut self, file: &ast::File) -> Option<ir::World> {
        let mut worlds = file.items.iter().filter_map(|i| match i {
            ast::Item::World(w) => Some(w),
            _ => None,
        });
        let Some(w) = worlds.next() else {
            if !self.in_broken("world") {
                self.missing(0..0, "world", "add `world { bounds (0 m, 0 m) to (40 m, 30 m) }`");
            }
            return None;
        };
        let extras: Vec<&ast::World> = worlds.collect();
        for extra in &extras {
            self.error(
                Diagnostic::error("E071", extra.span.start..extra.span.start + 5, "the world is given twice")
                    .label("second world block")
                    .related(w.span.start..w.span.start + 5, "first world block")
                    .help("merge the two world blocks into one"),
            );
        }
        let mut bounds: Option<(Option<ir::Rect>, Span)> = None;
        let (mut obstacles, mut regions, mut shapes, mut masks) = (vec![], vec![], vec![], vec![]);
        let mut marker_stmts = vec![];
        let mut marker_events = vec![];
        // A second world block is an error, but its statements are still read: the
        // names it declares have their indices (see `declare_all`), so they must exist.
        for s in std::iter::once(w).chain(extras).flat_map(|w| &w.stmts) {
            match s {
                ast::WorldStmt::Bounds { min, max, span } => {
                    let r = self.rect(min, max, span.clone());
                    self.once(&mut bounds, r, span.clone(), "bounds");
                }
                ast::WorldStmt::Obstacle { name, shape } => obstacles.push(
                    self.shape(shape).map(|shape| (ir::Obstacle { name: name.text.clone(), shape }, name.span.clone())),
                ),
                ast::WorldStmt::Region { name, shape, discomfort, slope } => {
                    let discomfort = match discomfort {
                        Some(q) => self.si_in(q, Dim::Number, 0.0, MAX_DISCOMFORT, false, "discomfort"),
                        None => Some(0.0),
                    };
                    let slope = match slope {
                        Some(s) => self.slope(s).map(Some),
                        None => Some(None),
                    };
                    let shape = self.shape(shape);
                    let checked = shape.zip(discomfort).zip(slope);
                    regions.push(checked.map(|((shape, discomfort), slope)| {
                        (ir::Region { name: name.text.clone(), shape, discomfort, slope }, name.span.clone())
                    }))
                }
                ast::WorldStmt::Shape { name, shape } => shapes.push(
                    self.shape(shape)
                        .map(|shape| (ir::TargetShape { name: name.text.clone(), shape }, name.span.clone())),
                ),
                ast::WorldStmt::Mask(m) => masks.push(self.mask(m).map(|mask| (mask, m.name.span.clone()))),
                ast::WorldStmt::Markers(m) => marker_stmts.push(m),
                ast::WorldStmt::MarkerEvent(e) => marker_events.push(e),
            }
        }
        let Some((bounds, _)) = bounds else {
            self.missing(
                w.span.start..w.span.start + 5,
                "world bounds",
                "add `bounds (0 m, 0 m) to (40 m, 30 m)` to the world block",
            );
            return None;
        };
        let bounds = bounds?;
        let bounds_shape = ir::Shape::Rect(bounds);
        let mask_shapes: Vec<(ir::Shape, Span)> =
            masks.iter().flatten().map(|(m, s)| (ir::Shape::Rect(m.area), s.clone())).collect();
        let placed = obstacles
            .iter()
            .flatten()
            .map(|(o, s)| (&o.shape, s))
            .chain(regions.iter().flatten().map(|(r, s)| (&r.shape, s)))
            .chain(shapes.iter().flatten().map(|(t, s)| (&t.shape, s)))
            .chain(mask_shapes.iter().map(|(m, s)| (m, s)));
        for (thing, span) in placed {
            if !geometry::within(thing, &bounds_shape) {
                self.error(
                    Diagnostic::error("E045", span.clone(), "this shape reaches outside the world bounds")
                        .label("partly or wholly outside the bounds")
                        .help(format!(
                            "keep it inside ({} m, {} m) to ({} m, {} m), or enlarge the bounds",
                            bounds.min.x, bounds.min.y, bounds.max.x, bounds.max.y
                        )),
                );
            }
        }
        let obstacles: Option<Vec<ir::Obstacle>> = obstacles.into_iter().map(|o| o.map(|(o, _)| o)).collect();
        let regions: Option<Vec<ir::Region>> = regions.into_iter().map(|r| r.map(|(r, _)| r)).collect();
        let shapes: Option<Vec<ir::TargetShape>> = shapes.into_iter().map(|t| t.map(|(t, _)| t)).collect();
        let masks: Option<Vec<ir::Mask>> = masks.into_iter().map(|m| m.map(|(m, _)| m)).collect();
        let mut world = ir::World {
            bounds,
            obstacles: obstacles?,
            regions: regions?,
            markers: ir::Markers { base: None, overrides: vec![], estimated_count: 0, events: vec![] },
            shapes: shapes?,
            masks: masks?,
        };
        world.markers = self.markers(&marker_stmts, &marker_events, &world)?;
        Some(world)
    }

    fn mask(&mut self, m: &ast::MaskStmt) -> Option<ir::Mask> {
        let kind = match m.kind.text.as_str() {
            "rows" => ir::MaskKind::Rows,
            "columns" => ir::MaskKind::Columns,
            _ => ir::MaskKind::Grid,
        };
        let area = self.rect(&m.min, &m.max, m.span.clone());
        let spacing = self.si_in(&m.every, Dim::Length, 0.0, f64::INFINITY, true, "mask line spacing");
        let width = match &m.width {
            Some(w) => self.si_in(w, Dim::Length, 0.0, f64::INFINITY, true, "mask line width"),
            None => spacing.map(|s| (s / 4.0).min(0.5)),
        };
        Some(ir::Mask { name: m.name.text.clone(), kind, area: area?, spacing: spacing?, width: width? })
    }

    fn markers(
        &mut self,
        stmts: &[&ast::MarkersStmt],
        events: &[&ast::MarkerEventStmt],
        world: &ir::World,
    ) -> Option<ir::Markers> {
        let mut base: Option<(Option<ir::MarkerLayer>, Span)> = None;
        let mut overrides = vec![];
        let mut ok = true;
        for m in stmts {
            let density =
                m.density.as_ref().map(|d| self.si_in(d, Dim::Density, 0.0, f64::INFINITY, true, "marker density"));
            let weight =
                m.weight.as_ref().map(|w| self.si_in(w, Dim::Number, 0.0, f64::INFINITY, true, "marker weight"));
            if density.is_some_and(|d| d.is_none()) || weight.is_some_and(|w| w.is_none()) {
                ok = false;
                continue;
            }
            let (density, weight) = (density.flatten(), weight.flatten());
            match (&m.method, &m.area) {
                (Some(_), Some(area)) => {
                    self.error(
                        Diagnostic::error("E072", area.span.clone(), "a marker override takes no method")
                            .label("override of the base markers")
                            .help(
                                "give the method on the base `markers` line only: `markers in NAME density 20 per m2`",
                            ),
                    );
                    ok = false;
                }
                (Some(method), None) => {
                    let method = if method.text == "dart_throwing" {
                        ir::MarkerMethod::DartThrowing
                    } else {
                        ir::MarkerMethod::JitteredGrid
                    };
                    if m.weight.is_some() {
                        self.error(
                            Diagnostic::error(
                                "E072",
                                m.weight.as_ref().map_or(m.span.clone(), |w| w.span.clone()),
                                "base markers take no weight",
                            )
                            .label("weights belong to overrides")
                            .help("weight a region or shape: `markers in NAME weight 10`"),
                        );
                    }
                    let Some(density) = density else {
                        self.missing(
                            m.span.clone(),
                            "marker density",
                            "write e.g. `markers dart_throwing density 8 per m2`",
                        );
                        ok = false;
                        continue;
                    };
                    self.once(&mut base, Some(ir::MarkerLayer { method, density }), m.span.clone(), "base markers");
                }
                (None, Some(area_name)) => {
                    let Some(decl) = self.resolve(area_name, &[Kind::Region, Kind::Shape]) else {
                        ok = false;
                        continue;
                    };
                    let area = if decl.kind == Kind::Region {
                        ir::MarkerArea::Region(ir::RegionId(decl.index))
                    } else {
                        ir::MarkerArea::Shape(ir::ShapeId(decl.index))
                    };
                    if density.is_none() && weight.is_none() {
                        self.missing(
                            m.span.clone(),
                            "density or weight",
                            "write `markers in NAME density 20 per m2` and/or `weight 10`",
                        );
                        ok = false;
                        continue;
                    }
                    overrides.push(ir::MarkerOverride { area, density, weight });
                }
                (None, None) => {
                    self.missing(
                        m.span.clone(),
                        "marker method",
                        "write `markers dart_throwing density 8 per m2` or `markers jittered_grid ...`",
                    );
                    ok = false;
                }
            }
        }
        let base = base.and_then(|(b, _)| b);
        let events = self.marker_events(events, base);
        if !ok {
            return None;
        }
        let mut events = events?;
        if base.is_none() && (!overrides.is_empty() || !events.is_empty()) {
            let span = stmts.first().map_or_else(|| events_span(&events), |s| s.span.clone());
            self.missing(
                span,
                "base markers",
                "declare the base layer first: `markers dart_throwing density 8 per m2`",
            );
            return None;
        }
        // The estimate only needs to be right in order of magnitude: it guards memory.
        let walkable = world.bounds.area() - world.obstacles.iter().map(|o| geometry::area(&o.shape)).sum::<f64>();
        let mut estimate = base.map_or(0.0, |b| b.density * walkable.max(0.0));
        for o in &overrides {
            let shape = match o.area {
                ir::MarkerArea::Region(r) => &world.regions[r.index()].shape,
                ir::MarkerArea::Shape(s) => &world.shapes[s.index()].shape,
            };
            estimate += o.density.unwrap_or(0.0) * geometry::area(shape);
        }
        if estimate > ir::limits::MAX_MARKERS as f64 {
            let span = stmts.iter().find(|m| m.method.is_some()).unwrap_or(&stmts[0]).span.clone();
            self.error(
                Diagnostic::error("E060", span, format!("these markers would number about {estimate:.3e}"))
                    .label(format!("{:.0} markers over {:.0} m² of walkable area", estimate, walkable.max(0.0)))
                    .help(format!(
                        "at most {} markers fit in memory: lower the density (the papers use 8 to 60 per m2)",
                        ir::limits::MAX_MARKERS
                    )),
            );
            return None;
        }
        // Sprays add markers: the most there can be is every spray on top of the start.
        let mut total = estimate;
        for (e, span) in &events {
            if let ir::MarkerAction::Spray { area, density, .. } = e.action {
                let sprayed = density * geometry::area(area_shape(world, area));
                total += sprayed;
                if total > ir::limits::MAX_MARKERS as f64 {
                    self.error(
                        Diagnostic::error(
                            "E060",
                            span.clone(),
                            format!("after this spray the markers would number about {total:.3e}"),
                        )
                        .label(format!("{sprayed:.0} markers sprayed on top of {:.0}", total - sprayed))
                        .help(format!(
                            "at most {} markers fit in memory over the whole run: lower the density or spray a smaller area",
                            ir::limits::MAX_MARKERS
                        )),
                    );
                    return None;
                }
            }
        }
        // By time; ties in the order written.
        events.sort_by(|a, b| a.0.at.total_cmp(&b.0.at));
        let events = events.into_iter().map(|(e, _)| e).collect();
        Some(ir::Markers { base, overrides, estimated_count: estimate.round() as u64, events })
    }

    /// The timed marker events, each with its span (`None` when one is wrong).
    fn marker_events(
        &mut self,
        stmts: &[&ast::MarkerEventStmt],
        base: Option<ir::MarkerLayer>,
    ) -> Option<Vec<(ir::MarkerEvent, Span)>> {
        let mut out = vec![];
        let mut ok = true;
        for e in stmts {
            let at = self.time_in_run(&e.at, "marker event time");
            let action = match &e.action {
                ast::MarkerEventKind::Spray { area, density, weight } => {
                    let area = self.marker_area(area);
                    let d = density
                        .as_ref()
                        .map(|d| self.si_in(d, Dim::Density, 0.0, f64::INFINITY, true, "marker density"));
                    let w =
                        weight.as_ref().map(|w| self.si_in(w, Dim::Number, 0.0, f64::INFINITY, true, "marker weight"));
                    let density = match d {
                        Some(d) => d,
                        // Without a base layer the missing base is the error (below).
                        None => Some(base.map_or(1.0, |b| b.density)),
                    };
                    match (area, density, w) {
                        (Some(area), Some(density), None) => {
                            Some(ir::MarkerAction::Spray { area, density, weight: None })
                        }
                        (Some(area), Some(density), Some(Some(w))) => {
                            Some(ir::MarkerAction::Spray { area, density, weight: Some(w) })
                        }
                        _ => None,
                    }
                }
                ast::MarkerEventKind::Erase { area: None } => Some(ir::MarkerAction::Erase { area: None }),
                ast::MarkerEventKind::Erase { area: Some(name) } => {
                    self.marker_area(name).map(|a| ir::MarkerAction::Erase { area: Some(a) })
                }
            };
            match (at, action) {
                (Some(at), Some(action)) => out.push((ir::MarkerEvent { at, action }, e.span.clone())),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A region or target shape markers go in.
    fn marker_area(&mut self, name: &ast::Name) -> Option<ir::MarkerArea> {
        let decl = self.resolve(name, &[Kind::Region, Kind::Shape])?;
        Some(if decl.kind == Kind::Region {
            ir::MarkerArea::Region(ir::RegionId(decl.index))
        } else {
            ir::MarkerArea::Shape(ir::ShapeId(decl.index))
        })
    }
}

/// The span of the first event (for a missing base layer).
fn events_span(events: &[(ir::MarkerEvent, Span)]) -> Span {
    events.first().map_or(0..0, |e| e.1.clone())
}

fn area_shape(world: &ir::World, area: ir::MarkerArea) -> &ir::Shape {
    match area {
        ir::MarkerArea::Region(r) => &world.regions[r.index()].shape,
        ir::MarkerArea::Shape(s) => &world.shapes[s.index()].shape,
    }
}

impl Checker {
    /// Spaces in declaration order (parents before children), and their objects.
    pub(super) fn spaces(&mut self, file: &ast::File) -> (Vec<ir::Space>, Vec<ir::Object>) {
        let mut spaces = vec![];
        let mut objects = vec![];
        for item in &file.items {
            if let ast::Item::Space(s) = item {
                self.space(s, None, &mut spaces, &mut objects);
            }
        }
        // A space provides what its objects and its child spaces provide: children come later, so go backwards.
        for i in (0..spaces.len()).rev() {
            let mut provides: Vec<ir::ResourceId> =
                spaces[i].objects.iter().flat_map(|o: &ir::ObjectId| objects[o.index()].provides.clone()).collect();
            for child in spaces.iter().filter(|c| c.parent == Some(ir::SpaceId(i as u32))) {
                provides.extend(child.provides.iter().copied());
            }
            provides.sort();
            provides.dedup();
            spaces[i].provides = provides;
        }
        (spaces, objects)
    }

    fn space(
        &mut self,
        s: &ast::Space,
        parent: Option<(ir::SpaceId, &ir::Shape, &ast::Name)>,
        spaces: &mut Vec<ir::Space>,
        objects: &mut Vec<ir::Object>,
    ) {
        let id = ir::SpaceId(spaces.len() as u32);
        let shape = self.shape(&s.shape);
        if let (Some(shape), Some((_, parent_shape, parent_name))) = (&shape, parent) {
            if !geometry::within(shape, parent_shape) {
                self.error(
                    Diagnostic::error(
                        "E044",
                        s.name.span.clone(),
                        format!("space `{}` is not inside its parent `{}`", s.name.text, parent_name.text),
                    )
                    .label("reaches outside the parent space")
                    .related(parent_name.span.clone(), "the parent space")
                    .help("a child space lies wholly within its parent: shrink or move it"),
                );
            }
        }
        if let (Some(shape), Some(world)) = (&shape, &self.world) {
            if !geometry::within(shape, &ir::Shape::Rect(world.bounds)) {
                self.error(
                    Diagnostic::error(
                        "E045",
                        s.name.span.clone(),
                        format!("space `{}` reaches outside the world bounds", s.name.text),
                    )
                    .label("partly or wholly outside the bounds")
                    .help("keep every space inside the world bounds"),
                );
            }
        }
        let placeholder = ir::Shape::Rect(ir::Rect { min: Vec2::ZERO, max: Vec2::ONE });
        spaces.push(ir::Space {
            name: s.name.text.clone(),
            parent: parent.map(|p| p.0),
            shape: shape.clone().unwrap_or(placeholder),
            doors: vec![],
            objects: vec![],
            provides: vec![],
        });
        for d in &s.doors {
            if let (Some(a), Some(b)) = (self.point(&d.a), self.point(&d.b)) {
                if a == b {
                    self.error(
                        Diagnostic::error("E040", d.span.clone(), "degenerate door: both ends are the same point")
                            .label("zero width")
                            .help("a door runs from one end point to another"),
                    );
                } else if let Some(shape) = &shape {
                    // A door is a gap in the space's outline: both ends lie on it.
                    const ON_OUTLINE: f64 = 0.25;
                    if [a, b].iter().any(|p| geometry::outline_distance(shape, *p) > ON_OUTLINE) {
                        self.error(
                            Diagnostic::error(
                                "E049",
                                d.span.clone(),
                                format!("door `{}` is not on the outline of space `{}`", d.name.text, s.name.text),
                            )
                            .label("an end is more than 0.25 m from the space's outline")
                            .related(s.name.span.clone(), "the space")
                            .help("put both ends of the door on the wall of its space"),
                        );
                    }
                }
                spaces[id.index()].doors.push(ir::Door { name: d.name.text.clone(), a, b });
            }
        }
        for o in &s.objects {
            let Some(position) = self.point(&o.at) else { continue };
            if let Some(shape) = &shape {
                if !geometry::contains(shape, position) && geometry::outline_distance(shape, position) > 1e-9 {
                    self.error(
                        Diagnostic::error(
                            "E043",
                            o.at.span.clone(),
                            format!("object `{}` is outside its space `{}`", o.name.text, s.name.text),
                        )
                        .label(format!("({}, {}) is not in `{}`", position.x, position.y, s.name.text))
                        .related(s.name.span.clone(), "the space")
                        .help("move the object inside the space, or declare it in the space that holds this point"),
                    );
                }
            }
            if let Some(obstacle) =
                self.world.as_ref().and_then(|w| w.obstacles.iter().find(|ob| geometry::contains(&ob.shape, position)))
            {
                let name = obstacle.name.clone();
                self.error(
                    Diagnostic::error(
                        "E047",
                        o.at.span.clone(),
                        format!("object `{}` stands inside obstacle `{name}`", o.name.text),
                    )
                    .label("nobody can reach it")
                    .help("move the object into free space"),
                );
            }
            let mut provides: Vec<ir::ResourceId> =
                o.provides.iter().map(|r| ir::ResourceId(self.resources[&r.text])).collect();
            provides.sort();
            provides.dedup();
            let capacity = match &o.capacity {
                Some(c) => match self.int_in(c, 1, ir::limits::MAX_AGENTS, "capacity") {
                    Some(v) => Some(v),
                    None => continue,
                },
                None => None,
            };
            spaces[id.index()].objects.push(ir::ObjectId(objects.len() as u32));
            objects.push(ir::Object { name: o.name.text.clone(), space: id, position, provides, capacity });
        }
        if let Some(shape) = &shape {
            for c in &s.children {
                self.space(c, Some((id, shape, &s.name)), spaces, objects);
            }
        }
    }
}
