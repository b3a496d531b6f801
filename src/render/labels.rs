//! Where names go on a picture so that no two overlap: greedy placement over
//! candidate positions, in picture pixels.
//!
//! Each label offers its positions best first (a region's name inside its
//! top-left corner, then its other corners, ...). Labels are taken in the
//! order given, and each takes its first position whose box overlaps no box
//! placed before it (nor a symbol's box, nor the picture's edge). A label
//! with no free position is set off to the side of its anchor with a leader
//! line, at growing distances round eight directions, if any such place is
//! free and its line crosses no placed name (nor, later, does a name cross
//! the line); otherwise it is dropped. The
//! player (`player.html`) runs the same steps on measured text.

/// A box in picture pixels, y down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PxBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl PxBox {
    pub fn new(x0: f64, y0: f64, w: f64, h: f64) -> PxBox {
        PxBox { x0, y0, x1: x0 + w, y1: y0 + h }
    }

    /// Whether the two boxes share interior: touching edges do not overlap.
    pub fn overlaps(&self, o: &PxBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    pub fn within(&self, o: &PxBox) -> bool {
        self.x0 >= o.x0 && self.y0 >= o.y0 && self.x1 <= o.x1 && self.y1 <= o.y1
    }

    /// The point of the box nearest to `(x, y)`.
    fn nearest(&self, x: f64, y: f64) -> (f64, f64) {
        (x.clamp(self.x0, self.x1), y.clamp(self.y0, self.y1))
    }

    /// Whether the segment from `a` to `b` passes through the box's interior
    /// (Liang–Barsky clipping).
    fn crossed_by(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [(-dx, a.0 - self.x0), (dx, self.x1 - a.0), (-dy, a.1 - self.y0), (dy, self.y1 - a.1)] {
            if p == 0.0 {
                if q <= 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
        t0 < t1
    }
}

/// The advance of a character in ems, about DejaVu Sans's (the widest of
/// the fonts the pictures name, so other fonts' text fits the box): names
/// are mostly lower-case letters, digits and underscores.
fn advance(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 'I' | 'J' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 0.32,
        'f' | 't' | 'r' | ' ' | '(' | ')' | '[' | ']' | '-' => 0.42,
        'm' | 'M' | 'W' => 1.0,
        'w' => 0.84,
        c if c.is_ascii_uppercase() => 0.8,
        c if c.is_ascii() => 0.64,
        // Anything else (accents, other scripts) as a capital.
        _ => 0.8,
    }
}

/// Line box height, in ems.
pub const LINE_EM: f64 = 1.25;

/// The box `text` takes at `size` px, estimated, px.
pub fn text_size(text: &str, size: f64) -> (f64, f64) {
    (text.chars().map(advance).sum::<f64>() * size, size * LINE_EM)
}

/// A name to place.
#[derive(Clone, Debug)]
pub struct Label {
    /// The text box's width and height, px.
    pub w: f64,
    pub h: f64,
    /// Top-left corners of the box, best first.
    pub candidates: Vec<(f64, f64)>,
    /// What the label names, where a leader line starts.
    pub anchor: (f64, f64),
}

/// A leader line, from what a label names to the label.
pub type Leader = ((f64, f64), (f64, f64));

/// Where a label went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub bbox: PxBox,
    /// The candidate taken; `None` when set off with a leader line.
    pub candidate: Option<usize>,
    /// From the anchor to the nearest point of the box.
    pub leader: Option<Leader>,
}

/// Distances of leader-lined labels from their anchor, in line heights.
const LEADER_STEPS: [f64; 3] = [1.5, 3.0, 5.0];
/// Directions tried round an anchor: east first, then counter-clockwise
/// (y down, so "north" is -y).
const DIAGONAL: f64 = std::f64::consts::FRAC_1_SQRT_2;
const DIRECTIONS: [(f64, f64); 8] = [
    (1.0, 0.0),
    (DIAGONAL, -DIAGONAL),
    (0.0, -1.0),
    (-DIAGONAL, -DIAGONAL),
    (-1.0, 0.0),
    (-DIAGONAL, DIAGONAL),
    (0.0, 1.0),
    (DIAGONAL, DIAGONAL),
];

/// Places `labels` in order inside `area`, clear of each other and of
/// `keep_out` (symbols a name must not hide). `None`: dropped.
pub fn place(labels: &[Label], keep_out: &[PxBox], area: PxBox) -> Vec<Option<Placed>> {
    let mut taken: Vec<PxBox> = keep_out.to_vec();
    let mut names: Vec<PxBox> = Vec::new();
    let mut leaders: Vec<Leader> = Vec::new();
    // A name may not cover a symbol, another name, or a leader line.
    let free = |b: &PxBox, taken: &[PxBox], leaders: &[Leader]| {
        b.within(&area) && !taken.iter().any(|t| t.overlaps(b)) && !leaders.iter().any(|&(p, q)| b.crossed_by(p, q))
    };
    let mut out = Vec::with_capacity(labels.len());
    for l in labels {
        let mut placed = None;
        for (k, &(x, y)) in l.candidates.iter().enumerate() {
            let b = PxBox::new(x, y, l.w, l.h);
            if free(&b, &taken, &leaders) {
                placed = Some(Placed { bbox: b, candidate: Some(k), leader: None });
                break;
            }
        }
        if placed.is_none() {
            let (ax, ay) = l.anchor;
            'search: for step in LEADER_STEPS {
                let r = step * l.h;
                for (dx, dy) in DIRECTIONS {
                    // The box's side facing the anchor sits `r` away from it.
                    let (px, py) = (ax + dx * r, ay + dy * r);
                    let x = if dx > 0.1 {
                        px
                    } else if dx < -0.1 {
                        px - l.w
                    } else {
                        px - l.w / 2.0
                    };
                    let y = if dy > 0.1 {
                        py
                    } else if dy < -0.1 {
                        py - l.h
                    } else {
                        py - l.h / 2.0
                    };
                    let b = PxBox::new(x, y, l.w, l.h);
                    let end = b.nearest(ax, ay);
                    if free(&b, &taken, &leaders) && !names.iter().any(|n| n.crossed_by((ax, ay), end)) {
                        placed = Some(Placed { bbox: b, candidate: None, leader: Some(((ax, ay), end)) });
                        break 'search;
                    }
                }
            }
        }
        if let Some(p) = &placed {
            taken.push(p.bbox);
            names.push(p.bbox);
            leaders.extend(p.leader);
        }
        out.push(placed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(x: f64, y: f64, chars: usize) -> Label {
        let (w, h) = text_size(&"n".repeat(chars), 10.0);
        Label {
            w,
            h,
            candidates: vec![(x + 4.0, y - h / 2.0), (x - 4.0 - w, y - h / 2.0), (x - w / 2.0, y - h / 2.0 - h)],
            anchor: (x, y),
        }
    }

    #[test]
    fn no_two_placed_labels_overlap() {
        let area = PxBox::new(0.0, 0.0, 400.0, 300.0);
        // A fixed pseudo-random scatter, dense enough that many labels move
        // off their first place, some get leader lines and some are dropped.
        let mut s: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let labels: Vec<Label> =
            (0..200).map(|_| label(next() * 400.0, next() * 300.0, 3 + (next() * 10.0) as usize)).collect();
        let keep_out = [PxBox::new(190.0, 140.0, 20.0, 20.0)];
        let placed = place(&labels, &keep_out, area);
        let boxes: Vec<PxBox> = placed.iter().flatten().map(|p| p.bbox).collect();
        assert!(boxes.len() > 40, "{} placed", boxes.len());
        assert!(placed.iter().any(|p| p.is_some_and(|p| p.leader.is_some())), "some leader lines");
        assert!(placed.iter().any(Option::is_none), "some dropped");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.within(&area), "{a:?} leaves the picture");
            assert!(!a.overlaps(&keep_out[0]), "{a:?} hides the symbol");
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
        }
        // Leader lines cross no placed name, whichever was placed first.
        for p in placed.iter().flatten() {
            if let Some((a, b)) = p.leader {
                assert!(boxes.iter().filter(|n| **n != p.bbox).all(|n| !n.crossed_by(a, b)), "{p:?}");
            }
        }
    }

    #[test]
    fn a_label_takes_its_first_free_place() {
        let area = PxBox::new(0.0, 0.0, 400.0, 300.0);
        let placed = place(&[label(100.0, 100.0, 5), label(100.0, 100.0, 5), label(100.0, 100.0, 5)], &[], area);
        let taken: Vec<Option<usize>> = placed.iter().map(|p| p.and_then(|p| p.candidate)).collect();
        assert_eq!(taken, vec![Some(0), Some(1), Some(2)]);
        // A fourth at the same point has no candidate left: a leader line.
        let placed = place(&vec![label(100.0, 100.0, 5); 4], &[], area);
        let last = placed[3].expect("placed with a leader line");
        assert_eq!(last.candidate, None);
        let ((ax, ay), _) = last.leader.expect("a leader line");
        assert_eq!((ax, ay), (100.0, 100.0));
    }

    #[test]
    fn a_label_with_no_room_is_dropped() {
        // Room for one name to the left of the point, none for a second.
        let area = PxBox::new(0.0, 0.0, 36.0, 20.0);
        let placed = place(&[label(30.0, 10.0, 4), label(30.0, 10.0, 4)], &[], area);
        assert!(placed[0].is_some());
        assert!(placed[1].is_none());
    }

    #[test]
    fn a_segment_crosses_a_box_only_through_its_inside() {
        let b = PxBox::new(10.0, 10.0, 10.0, 10.0);
        assert!(b.crossed_by((0.0, 15.0), (30.0, 15.0)));
        assert!(b.crossed_by((0.0, 0.0), (15.0, 15.0)));
        assert!(!b.crossed_by((0.0, 0.0), (30.0, 5.0)));
        assert!(!b.crossed_by((0.0, 10.0), (30.0, 10.0)), "along an edge");
        assert!(!b.crossed_by((0.0, 15.0), (10.0, 15.0)), "ends on the edge");
    }
}
