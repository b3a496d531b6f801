//! The stable text form printed by `crowd ir`: one line per entity, each
//! `path: value`, in IR order.
//!
//! Values are the derived `Debug` form on one line. The IR holds no
//! hash-ordered containers, so the text is a deterministic function of the
//! program; floats print in shortest round-trip form.

use std::fmt::{Debug, Write};

use super::Program;

pub fn to_text(p: &Program) -> String {
    let mut out = String::new();
    let mut line = |path: String, value: &dyn Debug| {
        let _ = writeln!(out, "{path}: {value:?}");
    };
    line("name".into(), &p.name);
    line("header".into(), &p.header);
    line("world.bounds".into(), &p.world.bounds);
    list(&mut line, "world.obstacle", &p.world.obstacles);
    list(&mut line, "world.region", &p.world.regions);
    line("world.markers.base".into(), &p.world.markers.base);
    list(&mut line, "world.markers.override", &p.world.markers.overrides);
    line("world.markers.estimated_count".into(), &p.world.markers.estimated_count);
    list(&mut line, "world.markers.event", &p.world.markers.events);
    list(&mut line, "world.shape", &p.world.shapes);
    list(&mut line, "world.mask", &p.world.masks);
    list(&mut line, "space", &p.spaces);
    list(&mut line, "object", &p.objects);
    list(&mut line, "resource", &p.resources);
    list(&mut line, "population", &p.populations);
    list(&mut line, "group", &p.groups);
    list(&mut line, "behaviour", &p.behaviours);
    for (model, name, value) in p.params.values() {
        line(format!("param.{model}.{name}"), &value);
    }
    list(&mut line, "expect", &p.expectations);
    line("output".into(), &p.output);
    out
}

/// [`to_text`] of the program as its layout leaves it: the expectations'
/// texts (kept as written, for reports) without their blanks. Two files that
/// differ only in layout give the same.
pub fn meaning_text(p: &Program) -> String {
    let mut q = p.clone();
    for e in &mut q.expectations {
        e.text.retain(|c| !c.is_whitespace());
    }
    to_text(&q)
}

fn list<T: Debug>(line: &mut impl FnMut(String, &dyn Debug), path: &str, items: &[T]) {
    for (i, item) in items.iter().enumerate() {
        line(format!("{path}[{i}]"), item);
    }
}
