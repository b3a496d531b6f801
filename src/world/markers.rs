//! Markers: the points that discretise walkable space for the space
//! colonization model (Rodrigues et al. 2010, Sections 4–6), their weights,
//! and the target-shape and alignment-mask tags the model reads.
//!
//! This module owns marker generation (dart throwing, i.e. Poisson-disk
//! sampling, or a jittered grid), sprayed overrides (`markers in AREA ...`),
//! the per-marker weight, shape and mask tags, and the mask line test.
//!
//! Invariants:
//! - every marker lies inside the bounds and outside every obstacle (closed
//!   shapes: a point on an obstacle's outline is refused; a polyline counts
//!   with its width);
//! - the result is a function of the world and the seed alone: each (density
//!   layer, tile) draws from its own stream (`Purpose::Markers`), and a tile
//!   only sees tiles finished in an earlier phase, so the thread count and
//!   the scheduling change nothing;
//! - every point belongs to exactly one density layer: the last override that
//!   sets a density and contains it, else the base; within a dart-throwing
//!   layer no two markers are closer than the layer's spacing `r`; a
//!   jittered-grid layer has at most one marker per lattice cell, exactly one
//!   in each cell that lies wholly in the layer's walkable space;
//! - markers are ordered by layer (base, then overrides in declaration
//!   order), then tile (row-major), then the order they were made in;
//! - `shapes[k]` (`masks[k]`) is the last declared target shape (mask)
//!   containing marker `k`, or [`NONE`]; the member lists hold every marker
//!   of a shape (mask), overlaps included, in increasing order.

use std::f64::consts::SQRT_2;

use rayon::prelude::*;

use crate::ir::{
    self, MarkerAction, MarkerArea, MarkerMethod, Mask, MaskId, MaskKind, Rect, Shape, ShapeId, Vec2, World, NONE,
};
use crate::rng::{self, Entity, Purpose, Stream};
use crate::world::bare::Bare;
use crate::world::geometry::{self, bounding_box, contains, intersection, signed_distance};
use crate::world::grid::Grid;
use crate::world::walkable::Walkable;

/// Achieved dart-throwing density times `r²`: the disk radius for a requested
/// density `d` is `r = sqrt(DART_PACKING / d)`, i.e. `d = 1 / (k r²)` with
/// `k = 1 / DART_PACKING ≈ 1.47`.
///
/// Calibrated with this module's sampler on open squares of side 1000 `r`
/// (count × r² / area = 0.6787 over seeds 1–4, sd 0.0001) and 400 `r`
/// (0.6801 over seeds 1–8, sd 0.0006: walls raise the density a little).
/// The ratio is scale-free, so it holds at any density. For reference, a
/// saturated (maximal) Poisson-disk set reaches about 0.697 (random
/// sequential adsorption of discs of diameter `r` jams at 54.7% cover), and
/// Bridson's algorithm with 30 candidates about 0.62.
pub const DART_PACKING: f64 = 0.6787;

/// Darts per background cell: the first uniform over the cell, the others
/// uniform over the cell's uncovered leaves (quarters of quarters).
const CELL_DARTS: u32 = 8;
/// Dart throwing: background cells per tile side. The tile (with its 2-cell
/// margin) must fit in cache; the parity phases need at least 2 cells.
const DART_TILE: usize = 32;
/// Jittered grid: lattice cells per tile side.
const JITTER_TILE: usize = 64;
/// The dart tile's local grid: the tile plus a 2-cell margin on each side.
const PADDED: usize = DART_TILE + 4;
/// Markers per chunk when tagging in parallel.
const TAG_CHUNK: usize = 1 << 15;
/// 2⁻³²: two 32-bit uniforms from one 64-bit draw.
const TWO_M32: f64 = 1.0 / 4_294_967_296.0;

/// The markers of a world, as a struct of arrays indexed by marker id.
#[derive(Clone, Debug, PartialEq)]
pub struct Markers {
    pub positions: Vec<Vec2>,
    /// `w_k`: the weight of the last `markers in AREA weight W` containing the
    /// marker, else 1.
    pub weights: Vec<f64>,
    /// The density layer that made the marker: 0 for the base, `i + 1` for override `i`.
    pub layers: Vec<u32>,
    /// The last declared target shape containing the marker, or [`NONE`] (Eq 14).
    pub shapes: Vec<u32>,
    /// The last declared alignment mask whose lines the marker lies on, or [`NONE`] (Fig 7).
    pub masks: Vec<u32>,
    bounds: Rect,
    method: Option<MarkerMethod>,
    /// Per layer id: the Poisson-disk radius (dart throwing) or the lattice
    /// cell side (jittered grid); 0 for overrides that set no density.
    spacing: Vec<f64>,
    /// Ground erases left bare (see [`Bare`]); `None` until markers are erased.
    bare: Option<Bare>,
    /// Member lists: `shape_items[shape_start[s]..shape_start[s + 1]]`.
    shape_start: Vec<u32>,
    shape_items: Vec<u32>,
    mask_start: Vec<u32>,
    mask_items: Vec<u32>,
}

/// The markers of `world` for run seed `seed` (see the module invariants).
/// Empty when the world declares no markers.
pub fn generate(world: &World, seed: u64) -> Markers {
    let overrides = &world.markers.overrides;
    let mut markers = Markers {
        positions: Vec::new(),
        weights: Vec::new(),
        layers: Vec::new(),
        shapes: Vec::new(),
        masks: Vec::new(),
        bounds: world.bounds,
        method: world.markers.base.map(|b| b.method),
        spacing: vec![0.0; overrides.len() + 1],
        bare: None,
        shape_start: vec![0; world.shapes.len() + 1],
        shape_items: Vec::new(),
        mask_start: vec![0; world.masks.len() + 1],
        mask_items: Vec::new(),
    };
    let Some(base) = world.markers.base else {
        return markers;
    };
    let space = Space::new(world);
    let mut layers = vec![Layer { id: 0, density: base.density, rect: world.bounds, area: None, spray: None }];
    for (i, o) in overrides.iter().enumerate() {
        let Some(density) = o.density else { continue };
        let area = space.areas[i];
        // A segment holds no point: nothing to generate over its box.
        if geometry::area(area) <= 0.0 {
            continue;
        }
        if let Some(rect) = intersection(bounding_box(area), world.bounds) {
            layers.push(Layer { id: i as u32 + 1, density, rect, area: Some(area), spray: None });
        }
    }
    let spacing = |d: f64| match base.method {
        MarkerMethod::DartThrowing => (DART_PACKING / d).sqrt(),
        MarkerMethod::JitteredGrid => 1.0 / d.sqrt(),
    };
    markers.spacing[0] = spacing(base.density);
    for (i, o) in overrides.iter().enumerate() {
        if let Some(d) = o.density {
            markers.spacing[i + 1] = spacing(d);
        }
    }

    let per_layer: Vec<(u32, Vec<Vec2>)> = layers
        .iter()
        .map(|layer| {
            let s = markers.spacing[layer.id as usize];
            let points = match base.method {
                MarkerMethod::DartThrowing => dart_layer(&space, layer, s, seed),
                MarkerMethod::JitteredGrid => jittered_layer(&space, layer, s, seed),
            };
            (layer.id, points)
        })
        .collect();
    // Sized exactly once the count is known (the checker's estimate,
    // `world.markers.estimated_count`, has bounded it); the base layer's
    // array is kept, not copied.
    let total: usize = per_layer.iter().map(|(_, p)| p.len()).sum();
    markers.layers.reserve_exact(total);
    for (id, mut points) in per_layer {
        markers.layers.resize(markers.layers.len() + points.len(), id);
        if markers.positions.is_empty() {
            markers.positions = points;
            markers.positions.reserve_exact(total - markers.positions.len());
        } else {
            markers.positions.append(&mut points);
        }
    }
    tag(world, &space, &mut markers);
    markers
}

impl Markers {
    /// No markers, over `bounds`.
    pub fn none(bounds: Rect) -> Markers {
        Markers {
            positions: Vec::new(),
            weights: Vec::new(),
            layers: Vec::new(),
            shapes: Vec::new(),
            masks: Vec::new(),
            bounds,
            method: None,
            spacing: Vec::new(),
            bare: None,
            shape_start: vec![0],
            shape_items: Vec::new(),
            mask_start: vec![0],
            mask_items: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// One layer of markers at `points`, `spacing` apart, for tests.
    #[cfg(test)]
    pub(crate) fn layer_for_tests(bounds: Rect, spacing: f64, points: Vec<Vec2>) -> Markers {
        let n = points.len();
        Markers {
            positions: points,
            weights: vec![1.0; n],
            layers: vec![0; n],
            shapes: vec![NONE; n],
            masks: vec![NONE; n],
            method: Some(MarkerMethod::JitteredGrid),
            spacing: vec![spacing],
            ..Markers::none(bounds)
        }
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The world bounds the markers were generated in.
    pub fn bounds(&self) -> Rect {
        self.bounds
    }

    /// The base layer's method, `None` when the world has no markers.
    pub fn method(&self) -> Option<MarkerMethod> {
        self.method
    }

    /// Ground that erases left without markers, if any.
    pub fn bare(&self) -> Option<&Bare> {
        self.bare.as_ref()
    }

    /// Every layer's spacing (see [`Markers::spacing`]), by layer id.
    pub fn spacings(&self) -> &[f64] {
        &self.spacing
    }

    /// Layer `layer`'s spacing: the Poisson-disk radius `r` (no two markers of
    /// the layer are closer) for dart throwing, the lattice cell side for a
    /// jittered grid; 0 for an override that sets no density.
    pub fn spacing(&self, layer: u32) -> f64 {
        self.spacing.get(layer as usize).copied().unwrap_or(0.0)
    }

    /// Every marker inside target shape `shape`, in increasing order.
    pub fn shape_markers(&self, shape: ShapeId) -> &[u32] {
        let s = shape.index();
        &self.shape_items[self.shape_start[s] as usize..self.shape_start[s + 1] as usize]
    }

    /// Every marker on the lines of mask `mask`, in increasing order.
    pub fn mask_markers(&self, mask: MaskId) -> &[u32] {
        let m = mask.index();
        &self.mask_items[self.mask_start[m] as usize..self.mask_start[m + 1] as usize]
    }

    /// Whether marker `k` is inside target shape `shape` (overlaps included).
    pub fn in_shape(&self, k: u32, shape: ShapeId) -> bool {
        match self.shapes[k as usize] {
            NONE => false,
            s if s == shape.0 => true,
            _ => self.shape_markers(shape).binary_search(&k).is_ok(),
        }
    }

    /// Whether marker `k` lies on the lines of mask `mask` (overlaps included).
    pub fn in_mask(&self, k: u32, mask: MaskId) -> bool {
        match self.masks[k as usize] {
            NONE => false,
            m if m == mask.0 => true,
            _ => self.mask_markers(mask).binary_search(&k).is_ok(),
        }
    }

    /// The markers renumbered in the cell order of an index with cells at
    /// least `cell` wide, and that index. Marker `k` then lies at `k` in the
    /// index's memory, and the ids of one cell are consecutive, so queries
    /// and per-marker tables read memory in sequence. Within a cell the old
    /// order is kept: every query visits the same markers in the same order.
    pub fn into_cell_order(self, cell: f64) -> (Markers, Grid) {
        let (markers, grid, _) = self.into_cell_order_renumbered(cell);
        (markers, grid)
    }

    /// [`Markers::into_cell_order`], with each marker's new id by its old id.
    fn into_cell_order_renumbered(mut self, cell: f64) -> (Markers, Grid, Vec<u32>) {
        let mut grid = self.index(cell);
        let order = grid.order();
        let mut new_id = vec![0u32; order.len()];
        for (k, &old) in order.iter().enumerate() {
            new_id[old as usize] = k as u32;
        }
        fn permute<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
            *v = order.iter().map(|&old| v[old as usize]).collect();
        }
        permute(&mut self.positions, order);
        permute(&mut self.weights, order);
        permute(&mut self.layers, order);
        permute(&mut self.shapes, order);
        permute(&mut self.masks, order);
        for (start, items) in [(&self.shape_start, &mut self.shape_items), (&self.mask_start, &mut self.mask_items)] {
            for g in start.windows(2) {
                let list = &mut items[g[0] as usize..g[1] as usize];
                list.iter_mut().for_each(|k| *k = new_id[*k as usize]);
                list.sort_unstable();
            }
        }
        grid.renumber_in_order();
        (self, grid, new_id)
    }

    /// Applies marker event `k` of `world` (`Program` order) during a run
    /// with seed `seed`, and renumbers the markers in the cell order of a new
    /// index with cells at least `cell` wide (see [`Markers::into_cell_order`]).
    ///
    /// An erase removes the markers inside its area (all of them without
    /// one). A spray adds a layer over its area, walkable space only, drawn
    /// with the base method at the spray's density from its own streams
    /// (`Purpose::SprayedMarkers`, population = `k`), on top of the markers
    /// there: within the spray dart throwing keeps its spacing, not against
    /// older markers (the paper: "users can spray again in the same
    /// space"). New markers take the spray's weight, else the weight the
    /// world's overrides give their place; the others keep theirs. Shape and
    /// mask tags are made again. Markers that stay keep their order relative
    /// to each other within a cell of the index, new ones come after them.
    pub fn apply_event(self, world: &World, seed: u64, k: usize, cell: f64) -> (Markers, Grid, Change) {
        let event = &world.markers.events[k];
        let space = Space::new(world);
        let old = self.len();
        let mut kept = Vec::with_capacity(old);
        let mut erased = Vec::new();
        match event.action {
            MarkerAction::Erase { area } => {
                let area = area.map(|a| area_shape(world, a));
                for (m, &p) in self.positions.iter().enumerate() {
                    if area.is_none_or(|a| contains(a, p)) {
                        erased.push(p);
                    } else {
                        kept.push(m);
                    }
                }
            }
            MarkerAction::Spray { .. } => kept.extend(0..old),
        }
        let mut next = Markers {
            positions: kept.iter().map(|&m| self.positions[m]).collect(),
            weights: kept.iter().map(|&m| self.weights[m]).collect(),
            layers: kept.iter().map(|&m| self.layers[m]).collect(),
            shapes: Vec::new(),
            masks: Vec::new(),
            bounds: self.bounds,
            method: self.method,
            spacing: self.spacing,
            bare: None,
            shape_start: Vec::new(),
            shape_items: Vec::new(),
            mask_start: Vec::new(),
            mask_items: Vec::new(),
        };
        let mut sprayed = None;
        if let MarkerAction::Spray { area, density, weight } = event.action {
            let shape = area_shape(world, area);
            let method = self.method.unwrap_or(MarkerMethod::DartThrowing);
            let id = (world.markers.overrides.len() + 1 + k) as u32;
            let s = match method {
                MarkerMethod::DartThrowing => (DART_PACKING / density).sqrt(),
                MarkerMethod::JitteredGrid => 1.0 / density.sqrt(),
            };
            if next.spacing.len() <= id as usize {
                next.spacing.resize(id as usize + 1, 0.0);
            }
            next.spacing[id as usize] = s;
            let rect = intersection(bounding_box(shape), world.bounds).filter(|_| geometry::area(shape) > 0.0);
            if let Some(rect) = rect {
                let layer = Layer { id, density, rect, area: Some(shape), spray: Some(k as u32) };
                let points = match method {
                    MarkerMethod::DartThrowing => dart_layer(&space, &layer, s, seed),
                    MarkerMethod::JitteredGrid => jittered_layer(&space, &layer, s, seed),
                };
                sprayed = Some((next.positions.len(), weight));
                next.layers.resize(next.layers.len() + points.len(), id);
                next.positions.extend(points);
            }
        }
        let survivors = std::mem::take(&mut next.weights);
        tag(world, &space, &mut next);
        next.weights[..survivors.len()].copy_from_slice(&survivors);
        if let Some((first, Some(w))) = sprayed {
            next.weights[first..].fill(w);
        }
        let added = next.len() - kept.len();
        let (mut next, grid, new_id) = next.into_cell_order_renumbered(cell);
        next.bare = Bare::after_event(&next, &grid, self.bare.as_ref(), &erased);
        let mut remap = vec![NONE; old];
        for (j, &m) in kept.iter().enumerate() {
            remap[m] = new_id[j];
        }
        (next, grid, Change { remap, erased, added })
    }

    /// A spatial index of the markers over the bounds, with cells at least
    /// `cell` wide (the largest query radius is a good choice: the personal
    /// space `R` or the action radius `A_r`).
    pub fn index(&self, cell: f64) -> Grid {
        let mut grid = Grid::new(self.bounds, cell, ir::limits::MAX_GRID_CELLS);
        grid.rebuild(&self.positions);
        grid
    }

    /// Calls `f(id)` for every marker within distance `r` of `p` (`grid` from
    /// [`Markers::index`]), row by row of grid cells, ids increasing within a cell.
    pub fn within(&self, grid: &Grid, p: Vec2, r: f64, mut f: impl FnMut(u32)) {
        self.within_at(grid, p, r, |id, _| f(id));
    }

    /// [`Markers::within`], with each marker's position: `f(id, point)`.
    pub fn within_at(&self, grid: &Grid, p: Vec2, r: f64, mut f: impl FnMut(u32, Vec2)) {
        let r2 = r * r;
        grid.for_each_near(p, r, |id, q| {
            if q.distance_squared(p) <= r2 {
                f(id, q)
            }
        });
    }

    /// The marker nearest to `p` within `max_dist` (ties: the lower id).
    pub fn nearest(&self, grid: &Grid, p: Vec2, max_dist: f64) -> Option<u32> {
        if self.positions.is_empty() || max_dist.is_nan() || max_dist < 0.0 {
            return None;
        }
        // Widen the search square until it holds a marker within its
        // half-side: nothing outside the square can be nearer than that one.
        // Past `far` the square holds every marker (they are in the bounds).
        let b = self.bounds;
        let far = Vec2::new(
            (p.x - b.min.x).abs().max((b.max.x - p.x).abs()),
            (p.y - b.min.y).abs().max((b.max.y - p.y).abs()),
        )
        .length();
        let mut r = grid.cell_size();
        loop {
            let reach = r.min(max_dist);
            let reach2 = reach * reach;
            let mut best: Option<(f64, u32)> = None;
            grid.for_each_near(p, reach, |id, q| {
                let d2 = q.distance_squared(p);
                if d2 <= reach2 && best.is_none_or(|(b, bid)| d2 < b || (d2 == b && id < bid)) {
                    best = Some((d2, id));
                }
            });
            if best.is_some() || reach >= max_dist || reach >= far {
                return best.map(|(_, id)| id);
            }
            r *= 2.0;
        }
    }
}

/// What a marker event changed (see [`Markers::apply_event`]).
#[derive(Clone, Debug, Default)]
pub struct Change {
    /// By old marker id: its new id, or [`NONE`] when it was erased.
    pub remap: Vec<u32>,
    /// Where the erased markers stood.
    pub erased: Vec<Vec2>,
    /// How many markers were sprayed.
    pub added: usize,
}

/// Whether `p` lies on a mask's lines: inside its rectangle and within
/// `width / 2` of a line (rows at `min.y + k·spacing`, columns at
/// `min.x + k·spacing`; space colonization Fig 7).
pub fn on_mask(mask: &Mask, p: Vec2) -> bool {
    if !mask.area.contains(p) {
        return false;
    }
    let near = |v: f64, origin: f64| {
        let k = ((v - origin) / mask.spacing).round();
        (v - origin - k * mask.spacing).abs() <= mask.width / 2.0
    };
    let rows = near(p.y, mask.area.min.y);
    let cols = near(p.x, mask.area.min.x);
    match mask.kind {
        MaskKind::Rows => rows,
        MaskKind::Columns => cols,
        MaskKind::Grid => rows || cols,
    }
}

/// One density layer to fill: the base (id 0, the whole bounds) or an
/// override with a density (id `i + 1`, its area's box within the bounds).
struct Layer<'a> {
    id: u32,
    density: f64,
    rect: Rect,
    area: Option<&'a Shape>,
    /// A spray during the run (the index of its event): its markers go
    /// anywhere walkable in its area, over those already there, and draw
    /// from their own streams.
    spray: Option<u32>,
}

/// The geometry every layer is generated against.
struct Space<'a> {
    bounds: Rect,
    walk: Walkable,
    /// Override areas, by override index.
    areas: Vec<&'a Shape>,
    /// Overrides that set a density, indexed by their area's box.
    density_index: BoxIndex,
}

impl<'a> Space<'a> {
    fn new(world: &'a World) -> Space<'a> {
        let areas: Vec<&Shape> = world.markers.overrides.iter().map(|o| area_shape(world, o.area)).collect();
        let boxes = world.markers.overrides.iter().enumerate().filter(|(_, o)| o.density.is_some());
        let density_index = BoxIndex::new(world.bounds, boxes.map(|(i, _)| (i as u32, bounding_box(areas[i]))));
        Space { bounds: world.bounds, walk: Walkable::new(world, 0.0), areas, density_index }
    }

    /// The density layer `p` belongs to: later overrides win.
    #[inline]
    fn owner(&self, p: Vec2) -> u32 {
        for &i in self.density_index.near(p).iter().rev() {
            if contains(self.areas[i as usize], p) {
                return i + 1;
            }
        }
        0
    }

    /// Whether a marker of layer `layer` may stand at `p`.
    #[inline]
    fn accepts(&self, layer: &Layer, p: Vec2) -> bool {
        let mine = match (layer.spray, layer.area) {
            (Some(_), Some(area)) => contains(area, p),
            _ => self.owner(p) == layer.id,
        };
        self.bounds.contains(p) && self.walk.obstacle_at(p).is_none() && mine
    }

    /// Whether no point of `rect` can hold a marker of `layer`: it lies
    /// wholly outside the layer's area, inside an obstacle, or inside a later
    /// density override. Conservative: `false` when unsure.
    fn void(&self, layer: &Layer, rect: Rect) -> bool {
        let c = (rect.min + rect.max) / 2.0;
        let h = (rect.max - rect.min).length() / 2.0;
        if layer.area.is_some_and(|a| signed_distance(a, c) > h) {
            return true;
        }
        // A shape holding the whole tile holds its centre, so it is listed there.
        let obstacles = self.walk.obstacles();
        if self.walk.near(c).iter().any(|&o| signed_distance(&obstacles[o as usize], c) < -h) {
            return true;
        }
        layer.spray.is_none()
            && self
                .density_index
                .near(c)
                .iter()
                .any(|&i| i + 1 > layer.id && signed_distance(self.areas[i as usize], c) < -h)
    }
}

fn area_shape(world: &World, area: MarkerArea) -> &Shape {
    match area {
        MarkerArea::Region(r) => &world.regions[r.index()].shape,
        MarkerArea::Shape(s) => &world.shapes[s.index()].shape,
    }
}

fn layer_stream(seed: u64, layer: &Layer, tile: usize) -> Stream {
    match layer.spray {
        Some(k) => {
            rng::stream(seed, Purpose::SprayedMarkers, Entity { population: u64::from(k), index: tile as u32 }, 0)
        }
        None => rng::stream(seed, Purpose::Markers, Entity { population: u64::from(layer.id), index: tile as u32 }, 0),
    }
}

/// The cells of a layer's background grid, and how they are tiled.
struct Tiling {
    min: Vec2,
    cell: f64,
    inv_cell: f64,
    /// Cells in x and y.
    ncx: usize,
    ncy: usize,
    /// Cells per tile side.
    side: usize,
    /// Tiles in x and y.
    ntx: usize,
    nty: usize,
}

impl Tiling {
    fn new(rect: Rect, cell: f64, side: usize) -> Tiling {
        let ncx = (((rect.max.x - rect.min.x) / cell).ceil() as usize).max(1);
        let ncy = (((rect.max.y - rect.min.y) / cell).ceil() as usize).max(1);
        Tiling {
            min: rect.min,
            cell,
            inv_cell: 1.0 / cell,
            ncx,
            ncy,
            side,
            ntx: ncx.div_ceil(side),
            nty: ncy.div_ceil(side),
        }
    }

    fn tiles(&self) -> usize {
        self.ntx * self.nty
    }

    /// Tile `t`'s cell ranges `(x0, x1, y0, y1)`, half-open.
    fn cells(&self, t: usize) -> (usize, usize, usize, usize) {
        let (tx, ty) = (t % self.ntx, t / self.ntx);
        let (x0, y0) = (tx * self.side, ty * self.side);
        (x0, (x0 + self.side).min(self.ncx), y0, (y0 + self.side).min(self.ncy))
    }

    fn rect(&self, t: usize) -> Rect {
        let (x0, x1, y0, y1) = self.cells(t);
        let at = |x: usize, y: usize| self.min + Vec2::new(x as f64, y as f64) * self.cell;
        Rect { min: at(x0, y0), max: at(x1, y1) }
    }
}

/// Dart throwing over one layer: Poisson-disk sampling with disk radius `r`
/// (Cook 1986; the method the paper keeps, Section 6.1), accelerated by a
/// background grid of cell `r/√2`, which holds at most one sample per cell
/// and bounds a conflict test to 21 cells, so the work is linear in the
/// marker count (the paper quotes `n log n` for its dart throwing).
///
/// Each cell is visited once in random order (see [`DartTile::fill`]). An
/// accepted dart is uniform over its cell's free area, but cells are not
/// weighted by that area as pure sequential dart throwing would weight
/// them, so small gaps fill more readily: the set is within 3% of maximal,
/// and the mean nearest-neighbour distance is 1.054 `r` against 1.060 `r`
/// for (near-saturated) pure dart throwing.
///
/// The layer is cut into tiles of `DART_TILE²` cells, run in four phases by
/// the parity of the tile's column and row. Tiles of one phase are a whole
/// tile apart (more than `r`), so they never conflict and run in parallel;
/// each sees the samples of the tiles finished in earlier phases and none
/// of the others, which makes the result independent of scheduling, and the
/// spacing holds across tile borders.
fn dart_layer(space: &Space, layer: &Layer, r: f64, seed: u64) -> Vec<Vec2> {
    let tiling = Tiling::new(layer.rect, r / SQRT_2, DART_TILE);
    let mut tiles: Vec<Vec<Vec2>> = vec![Vec::new(); tiling.tiles()];
    for phase in 0..4 {
        let ids: Vec<usize> =
            (0..tiling.tiles()).filter(|t| (t % tiling.ntx) % 2 + 2 * ((t / tiling.ntx) % 2) == phase).collect();
        let done: Vec<Vec<Vec2>> = ids
            .par_iter()
            .map(|&t| {
                if space.void(layer, tiling.rect(t)) {
                    Vec::new()
                } else {
                    DartTile::new(space, layer, &tiling, t, r, &tiles, seed).fill()
                }
            })
            .collect();
        for (t, points) in ids.into_iter().zip(done) {
            tiles[t] = points;
        }
    }
    concat(tiles)
}

/// The tiles' points in tile order, freeing each tile once copied.
fn concat(tiles: Vec<Vec<Vec2>>) -> Vec<Vec2> {
    let mut out = Vec::with_capacity(tiles.iter().map(Vec::len).sum());
    for t in tiles {
        out.extend_from_slice(&t);
    }
    out
}

/// What became of a dart.
enum Dart {
    Placed,
    /// Closer than `r` to a sample.
    Conflict,
    /// Outside the tile, the bounds or the layer, or in an obstacle.
    Refused,
}

/// One dart-throwing tile in progress.
struct DartTile<'s, 'a> {
    space: &'s Space<'a>,
    layer: &'s Layer<'a>,
    r2: f64,
    tiling: &'s Tiling,
    /// The tile's cell range, half-open, as integers and as floats.
    x0: usize,
    y0: usize,
    lo: Vec2,
    hi: Vec2,
    /// The tile and a 2-cell margin of the neighbouring tiles' samples: at most
    /// one point per cell, NaN where empty (NaN is never closer than `r`).
    grid: Vec<Vec2>,
    points: Vec<Vec2>,
    /// The sample the last refused dart was too close to (NaN at first).
    hint: Vec2,
    stream: Stream,
}

/// Offsets, in the padded grid, of the cells that can hold a sample closer
/// than `r` to a point of the centre cell (cell side `r/√2`): the 5 × 5 block
/// without its corners, nearest first so that conflicts are found early.
static NEIGHBOURS: [isize; 21] = {
    const STEPS: [(isize, isize); 21] = [
        (0, 0),
        (-1, 0),
        (1, 0),
        (0, -1),
        (0, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
        (1, 1),
        (-2, 0),
        (2, 0),
        (0, -2),
        (0, 2),
        (-2, -1),
        (2, -1),
        (-2, 1),
        (2, 1),
        (-1, -2),
        (1, -2),
        (-1, 2),
        (1, 2),
    ];
    let mut offsets = [0isize; 21];
    let mut i = 0;
    while i < 21 {
        offsets[i] = STEPS[i].1 * PADDED as isize + STEPS[i].0;
        i += 1;
    }
    offsets
};

impl<'s, 'a> DartTile<'s, 'a> {
    fn new(
        space: &'s Space<'a>,
        layer: &'s Layer<'a>,
        tiling: &'s Tiling,
        t: usize,
        r: f64,
        done: &[Vec<Vec2>],
        seed: u64,
    ) -> DartTile<'s, 'a> {
        let (x0, x1, y0, y1) = tiling.cells(t);
        let mut grid = vec![Vec2::splat(f64::NAN); PADDED * PADDED];
        let (tx, ty) = (t % tiling.ntx, t / tiling.ntx);
        for ny in ty.saturating_sub(1)..(ty + 2).min(tiling.nty) {
            for nx in tx.saturating_sub(1)..(tx + 2).min(tiling.ntx) {
                for &q in &done[ny * tiling.ntx + nx] {
                    // The same truncation that placed `q` in its own tile's cell.
                    let gx = ((q.x - tiling.min.x) * tiling.inv_cell) as isize;
                    let gy = ((q.y - tiling.min.y) * tiling.inv_cell) as isize;
                    let (lx, ly) = (gx - x0 as isize + 2, gy - y0 as isize + 2);
                    if (0..PADDED as isize).contains(&lx) && (0..PADDED as isize).contains(&ly) {
                        grid[ly as usize * PADDED + lx as usize] = q;
                    }
                }
            }
        }
        let cells = (x1 - x0) * (y1 - y0);
        let expected = cells as f64 * tiling.cell * tiling.cell * layer.density;
        DartTile {
            space,
            layer,
            r2: r * r,
            tiling,
            x0,
            y0,
            lo: Vec2::new(x0 as f64, y0 as f64),
            hi: Vec2::new(x1 as f64, y1 as f64),
            grid,
            points: Vec::with_capacity((expected * 1.1) as usize + 8),
            hint: Vec2::splat(f64::NAN),
            stream: layer_stream(seed, layer, t),
        }
    }

    /// Visits the tile's cells once, in random order, and throws up to
    /// `CELL_DARTS` darts into each empty one until a dart fits. The first
    /// dart is uniform over the cell; the others are uniform over the cell's
    /// leaves that no single disk covers, which hold its whole uncovered
    /// area, so an accepted dart is uniform over the cell's free space and
    /// slivers next to placed samples still get found. A cell is left
    /// early when one disk covers every leaf, or when it has no walkable
    /// point of the layer.
    fn fill(mut self) -> Vec<Vec2> {
        let (w, h) = ((self.hi.x - self.lo.x) as usize, (self.hi.y - self.lo.y) as usize);
        let mut order: Vec<u32> = (0..(w * h) as u32).collect();
        for i in (1..order.len()).rev() {
            let j = self.stream.below(i as u32 + 1) as usize;
            order.swap(i, j);
        }
        let cell = self.tiling.cell;
        let leaf = cell / 4.0;
        let mut leaves = [0u8; 16];
        for c in order {
            let (cx, cy) = (c as usize % w, c as usize / w);
            let at = (cy + 2) * PADDED + cx + 2;
            if !self.grid[at].x.is_nan() {
                // A dart of a neighbouring cell rounded into this one.
                continue;
            }
            let corner = self.tiling.min + Vec2::new((self.x0 + cx) as f64, (self.y0 + cy) as f64) * cell;
            let mut open = 0;
            let mut walkable_checked = false;
            for dart in 0..CELL_DARTS {
                let (origin, side) = if dart == 0 {
                    (corner, cell)
                } else {
                    if dart == 1 {
                        open = self.uncovered(at, corner, &mut leaves);
                        if open == 0 {
                            break;
                        }
                    }
                    let k = leaves[self.stream.below(open as u32) as usize] as usize;
                    (corner + Vec2::new((k % 4) as f64, (k / 4) as f64) * leaf, leaf)
                };
                let bits = self.stream.next_u64();
                let p = origin + Vec2::new((bits >> 32) as f64 * TWO_M32, (bits & 0xffff_ffff) as f64 * TWO_M32) * side;
                match self.insert(p) {
                    Dart::Placed => break,
                    Dart::Conflict => {}
                    Dart::Refused => {
                        if !walkable_checked {
                            walkable_checked = true;
                            if self.space.void(self.layer, Rect { min: corner, max: corner + Vec2::splat(cell) }) {
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.points
    }

    /// The leaves of the cell at `at` (its 4 × 4 subdivision, numbered
    /// row-major) that no single sample's disk covers whole, into `leaves`;
    /// returns their number, 0 when the cell is covered.
    fn uncovered(&self, at: usize, corner: Vec2, leaves: &mut [u8; 16]) -> usize {
        let leaf = self.tiling.cell / 4.0;
        let edge = |origin: f64, i: usize| origin + i as f64 * leaf;
        // Bit `4 * row + column` set: that leaf lies inside some disk.
        let mut covered: u32 = 0;
        for &off in &NEIGHBOURS {
            let q = self.grid[(at as isize + off) as usize];
            if q.x.is_nan() {
                continue;
            }
            // A leaf lies in the disk when its corner farthest from `q` does:
            // per column and per row, the squared distance to the far edge.
            let (mut sx, mut sy) = ([0.0; 5], [0.0; 5]);
            for i in 0..5 {
                let (dx, dy) = (q.x - edge(corner.x, i), q.y - edge(corner.y, i));
                (sx[i], sy[i]) = (dx * dx, dy * dy);
            }
            for row in 0..4 {
                let fy = sy[row].max(sy[row + 1]);
                for col in 0..4 {
                    if sx[col].max(sx[col + 1]) + fy < self.r2 {
                        covered |= 1 << (4 * row + col);
                    }
                }
            }
            if covered == 0xffff {
                return 0;
            }
        }
        let mut open = 0;
        for k in 0..16u8 {
            if covered & (1 << k) == 0 {
                leaves[open] = k;
                open += 1;
            }
        }
        open
    }

    /// Adds `p` when it is in the tile, at least `r` from every sample, and on
    /// the layer's walkable space.
    #[inline]
    fn insert(&mut self, p: Vec2) -> Dart {
        let t = self.tiling;
        let fx = (p.x - t.min.x) * t.inv_cell;
        let fy = (p.y - t.min.y) * t.inv_cell;
        // Also refuses NaN.
        if !(fx >= self.lo.x && fx < self.hi.x && fy >= self.lo.y && fy < self.hi.y) {
            return Dart::Refused;
        }
        let lx = fx as usize - self.x0 + 2;
        let ly = fy as usize - self.y0 + 2;
        let at = ly * PADDED + lx;
        // Darts into one cell mostly fall foul of the same sample: try it first.
        if self.hint.distance_squared(p) < self.r2 {
            return Dart::Conflict;
        }
        for &off in &NEIGHBOURS {
            let q = self.grid[(at as isize + off) as usize];
            if q.distance_squared(p) < self.r2 {
                self.hint = q;
                return Dart::Conflict;
            }
        }
        if !self.space.accepts(self.layer, p) {
            return Dart::Refused;
        }
        self.grid[at] = p;
        self.points.push(p);
        Dart::Placed
    }
}

/// A jittered grid over one layer: one sample uniform in each lattice cell
/// of side `s = 1/√density`, kept when it falls on the layer's walkable space
/// (the linear-time alternative of Section 6.1). A cell only partly walkable
/// keeps its sample with the probability of its walkable fraction, so the
/// expected density is exact everywhere.
///
/// Every cell draws its two numbers whether or not the sample is kept, so an
/// obstacle changes only the markers it covers. Tiles are independent.
fn jittered_layer(space: &Space, layer: &Layer, s: f64, seed: u64) -> Vec<Vec2> {
    let tiling = Tiling::new(layer.rect, s, JITTER_TILE);
    let tiles: Vec<Vec<Vec2>> = (0..tiling.tiles())
        .into_par_iter()
        .map(|t| {
            if space.void(layer, tiling.rect(t)) {
                return Vec::new();
            }
            let (x0, x1, y0, y1) = tiling.cells(t);
            let expected = ((x1 - x0) * (y1 - y0)) as f64;
            let mut points = Vec::with_capacity(expected as usize);
            let mut stream = layer_stream(seed, layer, t);
            for cy in y0..y1 {
                for cx in x0..x1 {
                    let (u, v) = (stream.unit(), stream.unit());
                    let p = tiling.min + Vec2::new(cx as f64 + u, cy as f64 + v) * s;
                    if space.accepts(layer, p) {
                        points.push(p);
                    }
                }
            }
            points
        })
        .collect();
    concat(tiles)
}

/// Weights (the last `weight` override containing the marker), shape and
/// mask tags and member lists, in parallel over fixed chunks.
fn tag(world: &World, space: &Space, markers: &mut Markers) {
    let overrides = &world.markers.overrides;
    let weighted = overrides.iter().enumerate().filter(|(_, o)| o.weight.is_some());
    let weight_index = BoxIndex::new(world.bounds, weighted.map(|(i, _)| (i as u32, bounding_box(space.areas[i]))));
    let shape_index =
        BoxIndex::new(world.bounds, world.shapes.iter().enumerate().map(|(i, s)| (i as u32, bounding_box(&s.shape))));
    let mask_index = BoxIndex::new(world.bounds, world.masks.iter().enumerate().map(|(i, m)| (i as u32, m.area)));

    // Written in place, chunk by chunk; only the memberships are collected.
    let n = markers.positions.len();
    markers.weights = vec![1.0; n];
    markers.shapes = vec![NONE; n];
    markers.masks = vec![NONE; n];
    type Memberships = (Vec<(u32, u32)>, Vec<(u32, u32)>);
    let chunks: Vec<Memberships> = markers
        .positions
        .par_chunks(TAG_CHUNK)
        .zip(markers.weights.par_chunks_mut(TAG_CHUNK))
        .zip(markers.shapes.par_chunks_mut(TAG_CHUNK))
        .zip(markers.masks.par_chunks_mut(TAG_CHUNK))
        .enumerate()
        .map(|(c, (((points, weights), shapes), masks))| {
            // `(shape, marker)` and `(mask, marker)`, markers increasing.
            let (mut in_shapes, mut in_masks) = (Vec::new(), Vec::new());
            for (j, &p) in points.iter().enumerate() {
                let k = (c * TAG_CHUNK + j) as u32;
                let w = weight_index
                    .near(p)
                    .iter()
                    .rev()
                    .find(|&&i| contains(space.areas[i as usize], p))
                    .and_then(|&i| overrides[i as usize].weight);
                if let Some(w) = w {
                    weights[j] = w;
                }
                for &s in shape_index.near(p) {
                    if contains(&world.shapes[s as usize].shape, p) {
                        shapes[j] = s;
                        in_shapes.push((s, k));
                    }
                }
                for &m in mask_index.near(p) {
                    if on_mask(&world.masks[m as usize], p) {
                        masks[j] = m;
                        in_masks.push((m, k));
                    }
                }
            }
            (in_shapes, in_masks)
        })
        .collect();
    (markers.shape_start, markers.shape_items) =
        members(world.shapes.len(), chunks.iter().flat_map(|c| c.0.iter().copied()));
    (markers.mask_start, markers.mask_items) =
        members(world.masks.len(), chunks.iter().flat_map(|c| c.1.iter().copied()));
}

/// `(group, item)` pairs, items increasing, into per-group lists `(start, items)`.
fn members(groups: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; groups + 1];
    for (g, _) in pairs.clone() {
        start[g as usize + 1] += 1;
    }
    for g in 0..groups {
        start[g + 1] += start[g];
    }
    let mut items = vec![0u32; start[groups] as usize];
    let mut next = start.clone();
    for (g, k) in pairs {
        items[next[g as usize] as usize] = k;
        next[g as usize] += 1;
    }
    (start, items)
}

/// A coarse grid over the bounds listing, per cell, the ids of the boxes
/// that overlap it, in increasing order: which override areas, shapes or
/// masks a point may be in, without testing them all.
struct BoxIndex {
    min: Vec2,
    inv_cell: f64,
    nx: u32,
    ny: u32,
    start: Vec<u32>,
    ids: Vec<u32>,
}

impl BoxIndex {
    /// At most this many cells per side.
    const SIDE: f64 = 64.0;

    fn new(area: Rect, boxes: impl Iterator<Item = (u32, Rect)>) -> BoxIndex {
        let boxes: Vec<(u32, Rect)> = boxes.collect();
        let (w, h) = (area.max.x - area.min.x, area.max.y - area.min.y);
        let sides = if boxes.is_empty() { 1.0 } else { Self::SIDE };
        let cell = (w.max(h) / sides).max(1e-9);
        let mut index = BoxIndex {
            min: area.min,
            inv_cell: 1.0 / cell,
            nx: ((w / cell).ceil() as u32).clamp(1, Self::SIDE as u32),
            ny: ((h / cell).ceil() as u32).clamp(1, Self::SIDE as u32),
            start: Vec::new(),
            ids: Vec::new(),
        };
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); (index.nx * index.ny) as usize];
        for (id, b) in boxes {
            let (x0, x1) = (index.col(b.min.x), index.col(b.max.x));
            let (y0, y1) = (index.row(b.min.y), index.row(b.max.y));
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    lists[(cy * index.nx + cx) as usize].push(id);
                }
            }
        }
        index.start.push(0);
        for l in &lists {
            index.ids.extend_from_slice(l);
            index.start.push(index.ids.len() as u32);
        }
        index
    }

    #[inline]
    fn col(&self, x: f64) -> u32 {
        // `as` saturates: floor clamped to the index, as in `Walkable::near`.
        (((x - self.min.x) * self.inv_cell) as u32).min(self.nx - 1)
    }

    #[inline]
    fn row(&self, y: f64) -> u32 {
        (((y - self.min.y) * self.inv_cell) as u32).min(self.ny - 1)
    }

    /// Ids of the boxes that may contain `p`, increasing.
    #[inline]
    fn near(&self, p: Vec2) -> &[u32] {
        let c = (self.row(p.y) * self.nx + self.col(p.x)) as usize;
        &self.ids[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{MarkerLayer, MarkerOverride, Markers as MarkerDecl, Obstacle, Region};

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { min: v(x0, y0), max: v(x1, y1) }
    }

    fn world(bounds: Rect, method: MarkerMethod, density: f64) -> World {
        World {
            bounds,
            obstacles: vec![],
            regions: vec![],
            markers: MarkerDecl {
                base: Some(MarkerLayer { method, density }),
                overrides: vec![],
                estimated_count: 0,
                events: vec![],
            },
            shapes: vec![],
            masks: vec![],
        }
    }

    #[test]
    fn box_index_lists_overlapping_boxes_in_order() {
        let idx = BoxIndex::new(
            rect(0.0, 0.0, 100.0, 50.0),
            [(0, rect(10.0, 10.0, 20.0, 20.0)), (1, rect(15.0, 0.0, 60.0, 50.0))].into_iter(),
        );
        assert_eq!(idx.near(v(16.0, 12.0)), &[0, 1]);
        assert_eq!(idx.near(v(90.0, 40.0)), &[] as &[u32]);
        assert_eq!(idx.near(v(-5.0, -5.0)), &[] as &[u32]);
        let empty = BoxIndex::new(rect(0.0, 0.0, 10.0, 10.0), std::iter::empty());
        assert_eq!(empty.near(v(5.0, 5.0)), &[] as &[u32]);
    }

    #[test]
    fn members_groups_pairs_and_keeps_item_order() {
        let (start, items) = members(3, [(2, 0), (0, 1), (2, 1), (0, 5)].into_iter());
        assert_eq!(start, vec![0, 2, 2, 4]);
        assert_eq!(items, vec![1, 5, 0, 1]);
    }

    #[test]
    fn dart_throwing_packing_matches_the_calibration() {
        // r = 1 over 400 × 400: boundary effects well under 1%.
        let d = DART_PACKING;
        let w = world(rect(0.0, 0.0, 400.0, 400.0), MarkerMethod::DartThrowing, d);
        let m = generate(&w, 3);
        assert_eq!(m.spacing(0), 1.0);
        let achieved = m.len() as f64 / (400.0 * 400.0);
        assert!((achieved / d - 1.0).abs() < 0.01, "packing {achieved} vs {d}");
    }

    #[test]
    fn a_tile_inside_an_obstacle_is_void_and_one_across_its_edge_is_not() {
        let mut w = world(rect(0.0, 0.0, 100.0, 100.0), MarkerMethod::JitteredGrid, 1.0);
        w.obstacles.push(Obstacle { name: "block".into(), shape: Shape::Rect(rect(10.0, 10.0, 60.0, 60.0)) });
        w.regions.push(Region {
            name: "pen".into(),
            shape: Shape::Circle { center: v(80.0, 80.0), radius: 5.0 },
            discomfort: 0.0,
            slope: None,
        });
        w.markers.overrides.push(MarkerOverride {
            area: MarkerArea::Region(ir::RegionId(0)),
            density: Some(2.0),
            weight: None,
        });
        let space = Space::new(&w);
        let base = Layer { id: 0, density: 1.0, rect: w.bounds, area: None, spray: None };
        assert!(space.void(&base, rect(20.0, 20.0, 30.0, 30.0)));
        assert!(!space.void(&base, rect(55.0, 20.0, 65.0, 30.0)));
        // The base layer has nothing inside the later override.
        assert!(space.void(&base, rect(79.0, 79.0, 81.0, 81.0)));
        let pen =
            Layer { id: 1, density: 2.0, rect: rect(75.0, 75.0, 85.0, 85.0), area: Some(space.areas[0]), spray: None };
        assert!(space.void(&pen, rect(75.0, 75.0, 76.0, 76.0)));
        assert!(!space.void(&pen, rect(79.0, 79.0, 81.0, 81.0)));
    }

    #[test]
    fn the_uncovered_leaves_hold_all_the_free_space_of_a_cell() {
        let w = world(rect(0.0, 0.0, 6.0, 6.0), MarkerMethod::DartThrowing, 20.0);
        let space = Space::new(&w);
        let layer = Layer { id: 0, density: 20.0, rect: w.bounds, area: None, spray: None };
        let r = 0.3;
        let tiling = Tiling::new(w.bounds, r / SQRT_2, DART_TILE);
        assert_eq!(tiling.tiles(), 1);
        let done = vec![Vec::new(); 1];
        let mut tile = DartTile::new(&space, &layer, &tiling, 0, r, &done, 1);
        let mut s = rng::stream(5, Purpose::Markers, Entity { population: 99, index: 0 }, 0);
        // Scattered darts leave free space of every shape between the disks.
        for _ in 0..300 {
            tile.insert(v(s.unit() * 6.0, s.unit() * 6.0));
        }
        let points = tile.points.clone();
        let mut leaves = [0u8; 16];
        let (mut free, mut covered_cells) = (0, 0);
        for cy in 0..tiling.ncy {
            for cx in 0..tiling.ncx {
                let at = (cy + 2) * PADDED + cx + 2;
                if !tile.grid[at].x.is_nan() {
                    continue;
                }
                let corner = v(cx as f64, cy as f64) * tiling.cell;
                let open = tile.uncovered(at, corner, &mut leaves);
                covered_cells += usize::from(open == 0);
                for _ in 0..64 {
                    let (a, b) = (s.unit(), s.unit());
                    let p = corner + v(a, b) * tiling.cell;
                    if points.iter().all(|q| q.distance_squared(p) >= r * r) {
                        free += 1;
                        let k = (b * 4.0) as u8 * 4 + (a * 4.0) as u8;
                        assert!(leaves[..open].contains(&k), "free point {p} in leaf {k} of cell ({cx}, {cy})");
                    }
                }
            }
        }
        assert!(free > 1000 && covered_cells > 20, "{free} free points, {covered_cells} covered cells");
    }

    #[test]
    fn nearest_agrees_with_a_scan() {
        let w = world(rect(0.0, 0.0, 20.0, 10.0), MarkerMethod::DartThrowing, 4.0);
        let m = generate(&w, 11);
        let grid = m.index(0.7);
        for (i, p) in [v(0.0, 0.0), v(3.3, 7.1), v(19.9, 0.2), v(25.0, 5.0), v(10.0, 5.0)].into_iter().enumerate() {
            let scan = (0..m.len() as u32)
                .min_by(|&a, &b| {
                    let (da, db) = (m.positions[a as usize].distance(p), m.positions[b as usize].distance(p));
                    da.total_cmp(&db).then(a.cmp(&b))
                })
                .unwrap();
            assert_eq!(m.nearest(&grid, p, f64::INFINITY), Some(scan), "query {i} at {p}");
            let d = m.positions[scan as usize].distance(p);
            assert_eq!(m.nearest(&grid, p, d * 0.999), None);
            let mut found = vec![];
            m.within(&grid, p, 1.0, |k| found.push(k));
            found.sort_unstable();
            let brute: Vec<u32> = (0..m.len() as u32).filter(|&k| m.positions[k as usize].distance(p) <= 1.0).collect();
            assert_eq!(found, brute);
        }
    }
}
