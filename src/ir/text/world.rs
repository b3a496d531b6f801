//! The world (bounds, obstacles, regions, markers, target shapes, masks) and
//! the semantic environment (spaces, objects, resources).

use super::{
    number, point, position, quantity, rect, shape, Out, M, MASK, NO_UNIT, OBJECT, OBSTACLE, PER_M2, REGION, RESOURCE,
    S, SHAPE, SPACE,
};
use crate::ir::{MarkerAction, MarkerArea, MarkerMethod, MaskKind};

pub(super) fn world(o: &mut Out) {
    let p = o.p;
    let w = &p.world;
    o.line("world.bounds", rect(&w.bounds));
    for (i, obstacle) in w.obstacles.iter().enumerate() {
        let path = format!("{OBSTACLE}[{i}]");
        o.entity(&path, &obstacle.name);
        o.line(format_args!("{path}.shape"), shape(&obstacle.shape));
    }
    for (i, region) in w.regions.iter().enumerate() {
        let path = format!("{REGION}[{i}]");
        o.entity(&path, &region.name);
        o.line(format_args!("{path}.shape"), shape(&region.shape));
        o.line(format_args!("{path}.discomfort"), quantity(region.discomfort, NO_UNIT));
        // The gradient: rise per metre, pointing uphill; no unit.
        o.line(format_args!("{path}.slope"), region.slope.map_or("none".into(), point));
    }
    markers(o);
    for (i, target) in w.shapes.iter().enumerate() {
        let path = format!("{SHAPE}[{i}]");
        o.entity(&path, &target.name);
        o.line(format_args!("{path}.shape"), shape(&target.shape));
    }
    for (i, mask) in w.masks.iter().enumerate() {
        let path = format!("{MASK}[{i}]");
        o.entity(&path, &mask.name);
        let kind = match mask.kind {
            MaskKind::Rows => "rows",
            MaskKind::Columns => "columns",
            MaskKind::Grid => "grid",
        };
        o.line(format_args!("{path}.kind"), kind);
        o.line(format_args!("{path}.area"), rect(&mask.area));
        o.line(format_args!("{path}.spacing"), quantity(mask.spacing, M));
        o.line(format_args!("{path}.width"), quantity(mask.width, M));
    }
}

fn markers(o: &mut Out) {
    let p = o.p;
    let m = &p.world.markers;
    let base = match &m.base {
        None => "none".to_string(),
        Some(layer) => format!("{} density {}", method(layer.method), quantity(layer.density, PER_M2)),
    };
    o.line("world.markers.base", base);
    for (i, over) in m.overrides.iter().enumerate() {
        let mut value = format!("in {}", o.marker_area(over.area));
        if let Some(d) = over.density {
            value += &format!(" density {}", quantity(d, PER_M2));
        }
        if let Some(w) = over.weight {
            value += &format!(" weight {}", number(w));
        }
        o.line(format_args!("world.markers.override[{i}]"), value);
    }
    o.line("world.markers.estimated_count", m.estimated_count);
    for (i, event) in m.events.iter().enumerate() {
        let mut value = format!("at {} ", quantity(event.at, S));
        match event.action {
            MarkerAction::Spray { area, density, weight } => {
                value += &format!("spray in {} density {}", o.marker_area(area), quantity(density, PER_M2));
                if let Some(w) = weight {
                    value += &format!(" weight {}", number(w));
                }
            }
            MarkerAction::Erase { area: Some(area) } => value += &format!("erase in {}", o.marker_area(area)),
            MarkerAction::Erase { area: None } => value += "erase all",
        }
        o.line(format_args!("world.markers.event[{i}]"), value);
    }
}

fn method(m: MarkerMethod) -> &'static str {
    match m {
        MarkerMethod::DartThrowing => "dart_throwing",
        MarkerMethod::JitteredGrid => "jittered_grid",
    }
}

impl Out<'_> {
    fn marker_area(&self, area: MarkerArea) -> String {
        match area {
            MarkerArea::Region(r) => self.region(r),
            MarkerArea::Shape(s) => self.shape(s),
        }
    }
}

pub(super) fn spaces(o: &mut Out) {
    let p = o.p;
    for (i, space) in p.spaces.iter().enumerate() {
        let path = format!("{SPACE}[{i}]");
        o.entity(&path, &space.name);
        o.line(format_args!("{path}.parent"), space.parent.map_or("none".into(), |s| o.space(s)));
        o.line(format_args!("{path}.shape"), shape(&space.shape));
        for (k, door) in space.doors.iter().enumerate() {
            let door_path = format!("{path}.door[{k}]");
            o.entity(&door_path, &door.name);
            o.line(format_args!("{door_path}.segment"), format!("{} to {} {M}", point(door.a), point(door.b)));
        }
        o.line(format_args!("{path}.objects"), o.list(&space.objects, Out::object));
        o.line(format_args!("{path}.provides"), o.list(&space.provides, Out::resource));
    }
    for (i, object) in p.objects.iter().enumerate() {
        let path = format!("{OBJECT}[{i}]");
        o.entity(&path, &object.name);
        o.line(format_args!("{path}.space"), o.space(object.space));
        o.line(format_args!("{path}.position"), position(object.position));
        o.line(format_args!("{path}.provides"), o.list(&object.provides, Out::resource));
        o.line(format_args!("{path}.capacity"), object.capacity.map_or("none".into(), |c| c.to_string()));
    }
    for (i, resource) in p.resources.iter().enumerate() {
        o.entity(&format!("{RESOURCE}[{i}]"), resource);
    }
}
