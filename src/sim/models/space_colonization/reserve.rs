//! The crowd extension's marker reservation (Rodrigues et al. 2010, Sec 6)
//! and surround's disjoint marker claims: the tables of who holds which
//! marker, granted in id order after every agent moved.

use super::walk::{standing_in_the_way, Held, NodeMarkers, Walk};
use crate::ir::{Vec2, NONE};
use crate::sim::scene::Scene;
use crate::sim::workers::{self, Workers};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The two reservation passes after each step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    At,
    Next,
}

/// An agent's entry in the table of drives, as the markers' bookkeeping sees it.
pub(crate) trait Walks {
    /// The agent's walk when space colonization drives it.
    fn walk(&mut self) -> Option<&mut Walk>;
    /// Its walk when it reserves markers (the crowd extension).
    fn reserving(&mut self) -> Option<&mut Walk>;
    /// Its walk when its tree claims markers (surround).
    fn claiming(&mut self) -> Option<&mut Walk>;
}

/// Who holds which marker.
pub(crate) struct Tables {
    /// By marker: the id of the agent holding it (crowd reservation), or `NONE`.
    pub held: Vec<u32>,
    /// By marker: the id of the surrounding agent whose tree claimed it, or `NONE`.
    pub claimed: Vec<u32>,
    /// By marker, while claims settle: the squared distance to the nearest
    /// node of the trees seen so far.
    claim_distance: Vec<f64>,
}

/// The node whose markers an agent asks for in a reservation pass: the node
/// it walks from while others hold part of it, and the next node.
///
/// NOTE: agents placed closer than two node reaches each hold part of the
/// other's node. Waiting to hold all of its own before asking for the next
/// one deadlocked such pairs (36 of 80 agents never left a crowded end):
/// leaving is how an agent gives the other its markers back.
fn asks(walk: &Walk, pass: Pass) -> Option<Vec2> {
    match pass {
        Pass::At => walk.unheld_at(),
        Pass::Next => walk.ungranted_next(),
    }
}

/// Looks up, during the parallel pass, the markers within `r` that the
/// reservation passes will ask for the agent's nodes (the lists are kept per
/// node), so that the sequential passes only grant. Whether the passes have
/// anything to do for the agent: it gives a node back or asks for one.
pub(crate) fn prepare_hold(walk: &mut Walk, scene: &Scene, r: f64) -> bool {
    let mut asks = false;
    if let Some(node) = walk.unheld_at() {
        walk.at_markers.of(&scene.markers, &scene.marker_grid, node, r);
        asks = true;
    }
    // Asked for once the node walked from is held, which the first pass may grant.
    if let Some(node) = walk.ungranted_next() {
        walk.next_markers.of(&scene.markers, &scene.marker_grid, node, r);
        asks = true;
    }
    asks || walk.moved_on || walk.left_at || walk.passing
}

impl Tables {
    /// Tables for `markers` markers, each only when some behaviour uses it.
    pub fn new(markers: usize, reserves: bool, claims: bool) -> Tables {
        Tables {
            held: vec![NONE; if reserves { markers } else { 0 }],
            claimed: vec![NONE; if claims { markers } else { 0 }],
            claim_distance: Vec::new(),
        }
    }

    /// The markers changed: entries follow `remap` (old id to new, `NONE`
    /// when erased) into tables for `markers` markers.
    pub fn remap(&mut self, remap: &[u32], markers: usize) {
        for table in [&mut self.held, &mut self.claimed] {
            if table.is_empty() {
                continue;
            }
            let mut next = vec![NONE; markers];
            for (old, &holder) in table.iter().enumerate() {
                match remap.get(old) {
                    Some(&m) if m != NONE => next[m as usize] = holder,
                    _ => {}
                }
            }
            *table = next;
        }
    }

    /// Gives back every marker the agent with `id` holds or claims.
    pub fn release(&mut self, id: u32, walk: &mut Walk) {
        let Walk { held_at, held_next, claimed, .. } = walk;
        for list in [held_at.drain(), held_next.drain(), claimed.drain(..)] {
            for m in list {
                for table in [&mut self.held, &mut self.claimed] {
                    if table.get(m as usize) == Some(&id) {
                        table[m as usize] = NONE;
                    }
                }
            }
        }
        walk.holds_at = false;
        walk.granted = false;
    }

    /// Reservations after each pass, in id order, for markers within `r` of
    /// a node: an agent that reached its next node gives back the node it
    /// left, then every asking agent is served, first for the node it stands
    /// on, then for the next one. `settling`: the agents that give back or
    /// ask (see [`prepare_hold`]), in id order; nothing changes for the others.
    pub fn settle_reservations<D: Walks + Send>(
        &mut self,
        scene: &Scene,
        drives: &mut [D],
        settling: &[usize],
        r: f64,
        workers: &Workers,
    ) {
        // Every release comes before any grant. An agent gives back only
        // markers it holds, so the agents give back all at once, in any order.
        let held = shared(&mut self.held);
        let len = workers::light_chunk(drives.len());
        workers.for_each(drives.chunks_mut(len).collect(), |k, chunk: &mut [D]| {
            let start = k * len;
            let (lo, hi) = (settling.partition_point(|&i| i < start), settling.partition_point(|&i| i < start + len));
            for &i in &settling[lo..hi] {
                if let Some(walk) = chunk[i - start].walk() {
                    give_back_left(held, scene, i, walk);
                }
            }
        });
        let mut at: Vec<(usize, Vec2)> =
            settling.iter().filter_map(|&i| Some((i, asks(drives[i].reserving()?, Pass::At)?))).collect();
        // Every agent's own node first, so an agent that holds nothing yet is still seen.
        for pass in [Pass::At, Pass::Next] {
            // The few agents that ask are found first, and all their table
            // entries read, before any is served: the cache misses of
            // loops whose iterations do not wait on each other overlap.
            let asking: Vec<(usize, Vec2)> = match pass {
                Pass::At => std::mem::take(&mut at),
                Pass::Next => settling.iter().filter_map(|&i| Some((i, asks(drives[i].reserving()?, pass)?))).collect(),
            };
            let mut seen = 0;
            for &(i, _) in &asking {
                seen ^= drives[i].reserving().map_or(0, |w| self.touch_held(w, pass));
            }
            std::hint::black_box(seen);
            for &(i, node) in &asking {
                if let Some(walk) = drives[i].reserving() {
                    self.hold(scene, i, walk, pass, node, r);
                }
            }
        }
    }

    /// Surround after each pass: every tree gives back its claims, then
    /// each marker within `r` of a node is claimed by the tree with the
    /// nearest node (the earlier id on a tie), as a marker of Eqs 5-6
    /// draws only its nearest node.
    pub fn settle_claims<D: Walks>(&mut self, scene: &Scene, drives: &mut [D], r: f64) {
        for (i, d) in drives.iter_mut().enumerate() {
            let Some(walk) = d.walk() else { continue };
            let id = scene.agents.id[i];
            for m in std::mem::take(&mut walk.claimed) {
                if self.claimed[m as usize] == id {
                    self.claimed[m as usize] = NONE;
                }
            }
        }
        // Switched off (the model-break test), the first tree in id order claims.
        let nearest_claims = scene.program.switches.claims_to_nearest_tree;
        let nearest = &mut self.claim_distance;
        nearest.clear();
        nearest.resize(self.claimed.len(), f64::INFINITY);
        for (i, d) in drives.iter_mut().enumerate() {
            let Some(walk) = d.claiming() else { continue };
            let id = scene.agents.id[i];
            let mut list = Vec::new();
            if let Some(tree) = &walk.tree {
                for node in tree.nodes() {
                    scene.markers.within(&scene.marker_grid, node.pos, r, |m| {
                        let m = m as usize;
                        let d =
                            if nearest_claims { scene.markers.positions[m].distance_squared(node.pos) } else { 0.0 };
                        if d < nearest[m] {
                            nearest[m] = d;
                            if self.claimed[m] != id {
                                self.claimed[m] = id;
                                list.push(m as u32);
                            }
                        }
                    });
                }
            }
            walk.claimed = list;
        }
    }

    /// One reservation pass for agent `i`, which asks for the markers of
    /// `node` (see [`asks`]): those still free of the node it stands on,
    /// or all or none of the node it wants to walk to.
    fn hold(&mut self, scene: &Scene, i: usize, walk: &mut Walk, pass: Pass, node: Vec2, r: f64) {
        let agents = &scene.agents;
        let id = agents.id[i];
        match pass {
            Pass::At => {
                // Where two agents appeared closer than a node's reach, the later one
                // holds what is free (so others see it) and waits for the rest.
                walk.at_markers.of(&scene.markers, &scene.marker_grid, node, r);
                walk.holds_at = hold_free(&mut self.held, &walk.at_markers, id, &mut walk.held_at);
            }
            Pass::Next => {
                let from = walk.tree.as_ref().filter(|t| (walk.at as usize) < t.len()).map(|t| t.pos(walk.at));
                let in_the_way = from.and_then(|from| standing_in_the_way(scene, i, from, node));
                let wanted = walk.next_markers.of(&scene.markers, &scene.marker_grid, node, r);
                let granted = match in_the_way {
                    Some(j) => Err(j),
                    None => try_hold(&mut self.held, wanted, id),
                };
                match granted {
                    Ok(()) => {
                        walk.held_next.copy_from(&walk.next_markers);
                        walk.granted = true;
                    }
                    Err(holder) => {
                        // Someone coming the other way, or standing still, is not worth waiting for.
                        let heading = agents.ori[i];
                        // Behind someone who arrived is behind them on the way to the aim: one
                        // beside the way, no nearer the aim, does not make the region full there.
                        let ahead = |j: usize| {
                            agents.pos[j].distance_squared(walk.aimed) < agents.pos[i].distance_squared(walk.aimed)
                        };
                        (walk.urgent, walk.behind_arrived) = match agents.id.binary_search(&holder) {
                            Ok(j) => (
                                agents.ori[j].dot(heading) < 0.0 || agents.vel[j].length_squared() == 0.0,
                                agents.arrived[j] && (ahead(j) || !scene.program.switches.fill_from_aim),
                            ),
                            Err(_) => (false, false),
                        };
                    }
                }
            }
        }
    }

    /// Reads the table entries of the first, middle and last markers an
    /// agent asks for in `pass` (listed in the parallel pass): a node's
    /// markers lie in a few runs of consecutive ids.
    fn touch_held(&self, walk: &Walk, pass: Pass) -> u32 {
        let ids = match pass {
            Pass::At => &walk.at_markers.ids,
            Pass::Next => &walk.next_markers.ids,
        };
        let entry = |k: usize| ids.get(k).map_or(0, |&m| self.held[m as usize]);
        entry(0) ^ entry(ids.len() / 2) ^ entry(ids.len().wrapping_sub(1))
    }
}

/// The marker table as the agents giving back see it at once: each clears
/// only entries it holds, so whatever order they run in, the table ends the same.
fn shared(table: &mut [u32]) -> &[AtomicU32] {
    const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
    // SAFETY: `AtomicU32` has the size of `u32` and (asserted) its alignment,
    // and the exclusive borrow keeps every other access out while the view lives.
    unsafe { &*(table as *mut [u32] as *const [AtomicU32]) }
}

/// Agent `i`'s releases after its move: the node it moved on from or left
/// behind, and the markers its body has passed.
fn give_back_left(held: &[AtomicU32], scene: &Scene, i: usize, walk: &mut Walk) {
    if walk.moved_on || walk.left_at {
        let id = scene.agents.id[i];
        for m in walk.held_at.drain() {
            give_back(held, m, id, &walk.held_next.ids);
        }
        if walk.moved_on {
            walk.held_at = std::mem::take(&mut walk.held_next);
        } else {
            // Left behind: nothing more is asked of it.
            walk.holds_at = true;
        }
        (walk.moved_on, walk.left_at) = (false, false);
    }
    if std::mem::take(&mut walk.passing) {
        give_back_passed(held, scene, i, walk);
    }
}

/// Gives back the markers of the node walked from that agent `i`'s body
/// has passed on its way to the next node.
///
/// NOTE: the paper's markers "can only be used by agents in such nodes"
/// and it does not say when they go back. Kept until the middle of the
/// segment, they held the agent behind a body length farther back than
/// the markers ahead of the walker need: at 40 per direction in
/// counterflow (`fig13_lanes_8m`), 95% of trips within three times the
/// free walk held at 15 of seeds 1–20 (81.3% at seed 1); given back as
/// the body passes them, at 19 (93.8% at seed 16).
fn give_back_passed(held: &[AtomicU32], scene: &Scene, i: usize, walk: &mut Walk) {
    let Some(tree) = walk.tree.as_ref().filter(|t| (walk.next as usize) < t.len()) else { return };
    let way = (tree.pos(walk.next) - tree.pos(walk.at)).normalize_or_zero();
    let (pos, radius, id) = (scene.agents.pos[i], scene.agents.radius[i], scene.agents.id[i]);
    let next = &walk.held_next.ids;
    walk.held_at.retain(|&mut m, q| {
        let passed = (q - pos).dot(way) < -radius;
        if passed {
            give_back(held, m, id, next);
        }
        !passed
    });
}

/// Gives marker `m` back from agent `id`, unless `id` holds it for its next
/// node too (`next`): a node nearer than `α` to the one walked from, a last
/// leg or a short sidestep, shares markers with it.
fn give_back(held: &[AtomicU32], m: u32, id: u32, next: &[u32]) {
    let entry = &held[m as usize];
    if entry.load(Relaxed) == id && !next.contains(&m) {
        entry.store(NONE, Relaxed);
    }
}

/// Adds to `list` the markers of `near` that nobody else holds; whether that is all of them.
fn hold_free(held: &mut [u32], near: &NodeMarkers, id: u32, list: &mut Held) -> bool {
    let mut all = true;
    for (&m, &q) in near.ids.iter().zip(&near.points) {
        match held[m as usize] {
            NONE => {
                held[m as usize] = id;
                list.push(m, q);
            }
            h => all &= h == id,
        }
    }
    all
}

/// Holds every marker of `wanted` for agent `id` when none is held by another.
/// `Err` names the holder of the first marker held by another agent.
fn try_hold(held: &mut [u32], wanted: &[u32], id: u32) -> Result<(), u32> {
    if let Some(&m) = wanted.iter().find(|&&m| held[m as usize] != NONE && held[m as usize] != id) {
        return Err(held[m as usize]);
    }
    for &m in wanted {
        held[m as usize] = id;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_held_for_the_next_node_too_is_not_given_back() {
        let (me, other) = (3, 4);
        let mut held = vec![me, me, other, NONE];
        // Markers 0 and 1 were the node walked from's; 1 is also the next node's.
        for m in [0, 1, 2, 3] {
            give_back(shared(&mut held), m, me, &[1]);
        }
        assert_eq!(held, vec![NONE, me, other, NONE]);
    }
}
