//! Tree-path growth (Rodrigues et al. 2010, Fig 12's setting): the time to
//! grow the trees of 1, 5 and 10 agents from the west of the Fig 2 room to
//! the goal behind its wall, and the growth iterations that took (the paper
//! reports at most 49 in its test environment).
//!
//! `cargo bench --bench trees`. Each size runs five times; the best counts,
//! since the machine may be shared.

use std::time::{Duration, Instant};

use crowd::diag::SourceFile;
use crowd::ir::Vec2;
use crowd::plan::tree::{Field, Lure, Tree, TreeParams};
use crowd::world::markers;
use crowd::world::walkable::Walkable;

const SCENARIO: &str = "scenarios/space_colonization/fig02_around_the_wall.crowd";
const RUNS: usize = 5;
const MAX_ITERATIONS: u32 = 49;

fn main() {
    let text = std::fs::read_to_string(SCENARIO).expect("run from the crate root");
    let program = crowd::compile(&SourceFile::new(SCENARIO, text))
        .unwrap_or_else(|d| panic!("{SCENARIO} does not compile: {d:?}"))
        .program;
    let world = &program.world;
    let marks = markers::generate(world, program.header.seed);
    let sc = &program.params.space_colonization;
    let params = TreeParams { alpha: sc.alpha, action_radius: sc.action_radius, restriction: sc.restriction };
    let index = marks.index(params.action_radius);
    let walk = Walkable::new(world, 1.0);
    let usable = |_: u32| true;
    let field = Field { index: &index, walk: &walk, bare: None, clearance: 0.25, usable: &usable, shorten: false };
    let goal = Vec2::new(27.0, 10.0);
    println!(
        "{SCENARIO}: {} markers, α = {} m, A_r = {} m, best of {RUNS}",
        marks.len(),
        params.alpha,
        params.action_radius
    );
    println!("{:>6} {:>12} {:>12} {:>16} {:>10}", "agents", "growth ms", "ms/agent", "iterations max", "reached");
    for n in [1usize, 5, 10] {
        let mut best = Duration::MAX;
        let mut iterations = 0;
        let mut reached = 0;
        for _ in 0..RUNS {
            let t0 = Instant::now();
            let (mut most, mut got) = (0, 0);
            for k in 0..n {
                let start = Vec2::new(3.0, 10.0 + (k as f64 - (n as f64 - 1.0) / 2.0) * 0.8);
                let mut tree = Tree::new(start);
                let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ k as u64;
                let mut draw = || {
                    s = crowd::hash::splitmix64(s);
                    (s >> 11) as f64 / (1u64 << 53) as f64
                };
                let lure = Lure::Goal(goal);
                while tree.pos(tree.best_in(0, lure)).distance(goal) > params.alpha && tree.iterations < MAX_ITERATIONS
                {
                    tree.grow(&field, &params, lure, 0, &mut draw);
                }
                most = most.max(tree.iterations);
                got += usize::from(tree.pos(tree.best_in(0, lure)).distance(goal) <= params.alpha);
            }
            let took = t0.elapsed();
            if took < best {
                best = took;
            }
            (iterations, reached) = (most, got);
        }
        let ms = best.as_secs_f64() * 1e3;
        println!("{n:>6} {ms:>12.3} {:>12.3} {iterations:>16} {:>7}/{n}", ms / n as f64, reached);
    }
}
