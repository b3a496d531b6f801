//! The walkable area the metadata and the exports carry is valid geometry
//! for every shipped scenario: touching or overlapping obstacles merged,
//! obstacles across the bounds' edge cut from the outline (validity by
//! `geo`'s OGC rules; PedPy reads each one in `tests/client_exports.rs`).

use std::path::Path;

mod cli_support;
use cli_support::crowd_files;

use geo::{Area, Validation};

#[test]
fn every_shipped_scenarios_walkable_area_is_valid_and_no_larger_than_its_bounds() {
    let files = crowd_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"));
    assert!(files.len() >= 17);
    let mut invalid = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let compiled = crowd::compile(&crowd::SourceFile::new(f.display().to_string(), text)).unwrap();
        let world = &compiled.program.world;
        let area = crowd::world::outline::walkable_area(world);
        let b = world.bounds;
        let bounds = (b.max.x - b.min.x) * (b.max.y - b.min.y);
        if !area.is_valid() {
            invalid.push(format!(
                "{}: {}",
                f.display(),
                area.validation_errors().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
            ));
        }
        assert!(area.unsigned_area() > 0.0 && area.unsigned_area() <= bounds + 1e-6, "{}", f.display());
    }
    assert!(invalid.is_empty(), "{}", invalid.join("\n"));
}
