//! The trial front of fast marching (`plan::eikonal`): a four-ary min-heap
//! of `u128` keys, each naming a grid cell in its low 32 bits, that holds
//! each cell at most once and lowers a cell's key in place (decrease-key).
//!
//! A heap that pushes a cell again whenever its key drops pops about as
//! many stale entries as live ones in fast marching (a cell's one-sided
//! value is usually lowered once its second upwind neighbour is
//! accepted); here every pop is a cell accepted.
//!
//! Invariants:
//! - a pop returns the least key in the heap, whatever the order of the
//!   pushes and lowerings: keys are unique while their cells are, so the
//!   order is total;
//! - [`CellHeap::slot`] gives, for every cell, its key's index in the heap,
//!   [`VACANT`] (never keyed) or [`ACCEPTED`] (popped or accepted);
//! - after the first use of a size, nothing is allocated.

/// A key: the caller's order in the high bits, the cell in the low 32.
pub type Key = u128;

/// The slot of a cell with no key yet.
pub const VACANT: u32 = u32::MAX;
/// The slot of a cell popped, or accepted without a key.
pub const ACCEPTED: u32 = u32::MAX - 1;
/// The most cells a heap can index: slots are `u32` below the two markers.
pub const MAX_CELLS: usize = ACCEPTED as usize - 1;

/// The cell a key names.
#[inline(always)]
pub fn cell(key: Key) -> usize {
    key as u32 as usize
}

#[derive(Default)]
pub struct CellHeap {
    keys: Vec<Key>,
    /// By cell: its key's index in `keys`, [`VACANT`] or [`ACCEPTED`].
    slot: Vec<u32>,
}

impl CellHeap {
    /// Empty, each of `n` cells vacant (`n` at most [`MAX_CELLS`]).
    pub fn reset(&mut self, n: usize) {
        assert!(n <= MAX_CELLS, "{n} cells do not fit u32 slots");
        self.keys.clear();
        self.slot.clear();
        self.slot.resize(n, VACANT);
    }

    /// Where cell `k` is: its key's index, [`VACANT`] or [`ACCEPTED`].
    #[inline(always)]
    pub fn slot(&self, k: usize) -> u32 {
        self.slot[k]
    }

    /// The key at slot `at`, a slot [`CellHeap::slot`] gave (not a marker).
    #[inline(always)]
    pub fn key(&self, at: u32) -> Key {
        self.keys[at as usize]
    }

    /// Marks cell `k` accepted without a key: it is never keyed again.
    pub fn accept(&mut self, k: usize) {
        self.slot[k] = ACCEPTED;
    }

    /// Keys the cell of `key`, at slot `at` ([`VACANT`] or its current
    /// key's, which `key` must not exceed): pushed, or moved up.
    #[inline(always)]
    pub fn lower(&mut self, at: u32, key: Key) {
        let hole = if at == VACANT {
            self.keys.push(key);
            self.keys.len() - 1
        } else {
            at as usize
        };
        sift_up(&mut self.keys, &mut self.slot, hole, key);
    }

    /// The cell of the least key, if any, without taking it out.
    #[inline(always)]
    pub fn peek_cell(&self) -> Option<usize> {
        self.keys.first().map(|&k| cell(k))
    }

    /// Takes out the least key and marks its cell accepted.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Key> {
        let CellHeap { keys, slot } = self;
        let last = keys.pop()?;
        let Some(&top) = keys.first() else {
            slot[cell(last)] = ACCEPTED;
            return Some(last);
        };
        slot[cell(top)] = ACCEPTED;
        // The hole at the root goes down to a leaf along the least children
        // (chosen without branches), then `last` is sifted up from there:
        // fewer comparisons than stopping where `last` fits, as it mostly
        // fits near the bottom.
        let len = keys.len();
        let mut hole = 0;
        loop {
            let first = 4 * hole + 1;
            if first + 4 <= len {
                let c = [keys[first], keys[first + 1], keys[first + 2], keys[first + 3]];
                let (a, ka) = if c[1] < c[0] { (1, c[1]) } else { (0, c[0]) };
                let (b, kb) = if c[3] < c[2] { (3, c[3]) } else { (2, c[2]) };
                let (least, k) = if kb < ka { (b, kb) } else { (a, ka) };
                keys[hole] = k;
                slot[cell(k)] = hole as u32;
                hole = first + least;
            } else {
                if first < len {
                    let least = (first + 1..len).fold(first, |l, t| if keys[t] < keys[l] { t } else { l });
                    let k = keys[least];
                    keys[hole] = k;
                    slot[cell(k)] = hole as u32;
                    hole = least;
                }
                break;
            }
        }
        sift_up(keys, slot, hole, last);
        Some(top)
    }
}

/// Puts `key` at `hole` or above it, moving the greater parents down.
#[inline(always)]
fn sift_up(keys: &mut [Key], slot: &mut [u32], mut hole: usize, key: Key) {
    while hole > 0 {
        let parent = (hole - 1) / 4;
        let p = keys[parent];
        if p <= key {
            break;
        }
        keys[hole] = p;
        slot[cell(p)] = hole as u32;
        hole = parent;
    }
    keys[hole] = key;
    slot[cell(key)] = hole as u32;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};

    #[test]
    fn pops_the_least_key_through_pushes_and_lowerings() {
        // Random keys with many equal high parts, against a sorted set.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 300;
        let mut heap = CellHeap::default();
        for _ in 0..20 {
            heap.reset(n);
            let mut reference = std::collections::BTreeSet::new();
            let mut keyed: Vec<Option<Key>> = vec![None; n];
            for _ in 0..3000 {
                if rng.next_u32() % 3 == 0 {
                    let got = heap.pop();
                    assert_eq!(got, reference.pop_first());
                    if let Some(key) = got {
                        assert_eq!(heap.slot(cell(key)), ACCEPTED);
                    }
                    continue;
                }
                let k = rng.next_u32() as usize % n;
                let key = Key::from(rng.next_u32() % 8) << 64 | k as Key;
                let at = heap.slot(k);
                if at == ACCEPTED || keyed[k].is_some_and(|old| key >= old) {
                    continue;
                }
                assert_eq!(at == VACANT, keyed[k].is_none());
                if let Some(old) = keyed[k] {
                    assert_eq!(heap.key(at), old);
                    reference.remove(&old);
                }
                reference.insert(key);
                keyed[k] = Some(key);
                heap.lower(at, key);
            }
            while let Some(key) = reference.pop_first() {
                assert_eq!(heap.pop(), Some(key));
            }
            assert_eq!(heap.pop(), None);
        }
    }

    #[test]
    fn accepted_cells_stay_accepted_until_a_reset() {
        let mut heap = CellHeap::default();
        heap.reset(4);
        heap.accept(2);
        heap.lower(VACANT, 5 << 64 | 1);
        assert_eq!((heap.slot(1), heap.slot(2), heap.slot(3)), (0, ACCEPTED, VACANT));
        assert_eq!(heap.pop(), Some(5 << 64 | 1));
        assert_eq!(heap.slot(1), ACCEPTED);
        heap.reset(4);
        assert!((0..4).all(|k| heap.slot(k) == VACANT));
    }
}
