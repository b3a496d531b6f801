//! The crowd extension of space colonization at fixed density: 1,000 and
//! 10,000 agents (100,000 with `CROWD_BENCH_100K=1`) in stacked 40 m × 10 m
//! corridors, 25 + 25 agents crossing in each (as in Fig 13), markers on a
//! jittered grid at 60 per m². Trips are the same length at every size, so a
//! linear executor costs the same per agent-step at every size.
//!
//! `cargo bench --bench crowd_scale` (`CROWD_BENCH_STEPS=N`, default 240:
//! the first 10 s, while every tree still grows; 1440 covers whole crossings;
//! `CROWD_BENCH_PAIRS=N`, default 3: interleaved 1-thread/2-thread pairs per
//! size, see `support/pairs.rs`; rates are medians).
//! The last column is the share of the run spent in the step's sequential
//! part, which bounds what a second thread can gain.
//!
//! The baseline is ORCA (RVO2's algorithm, `support/orca.rs`) on the same
//! corridors, run right after crowd in every run of every pair, on the same
//! number of threads: its rows are marked `ORCA`, and crowd's rate is given
//! as a ratio of ORCA's, taken within each pair. A check line shows that the
//! baseline really walked: the share of agents that got closer to their goal,
//! their mean speed towards it as a share of the preferred 1.2 m/s, the
//! closest two agents came (touching is 0.50 m) and the closest any came to a
//! wall (touching is 0.25 m). The two groups of a corridor meet after about
//! 11 s, so only runs longer than about 270 steps test ORCA's avoidance
//! between them; before that, each agent avoids the 10 nearest of its own group.

use std::fmt::Write as _;
use std::time::Instant;

use crowd::diag::SourceFile;
use crowd::sim;
use crowd::trace::frame::Discard;

#[path = "support/orca.rs"]
mod orca;
#[path = "support/pairs.rs"]
mod pairs;

use pairs::{median, ratio, Pairs};
#[path = "support/settings.rs"]
mod settings;

use settings::{flag, setting};

const PER_CORRIDOR: usize = 50;

/// A scenario of `corridors` stacked corridors separated by walls.
fn scenario(corridors: usize, steps: u64) -> String {
    let height = corridors as f64 * 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario crowd_scale {{ seed 1; duration {} s; step 1/24 s; record every 24 steps }}",
        steps as f64 / 24.0
    );
    let _ =
        writeln!(s, "world {{\n  bounds (0 m, 0 m) to (40 m, {height} m)\n  markers jittered_grid density 60 per m2");
    for k in 0..corridors {
        let y = k as f64 * 10.0;
        if k > 0 {
            let _ = writeln!(s, "  obstacle wall_{k} rect (0 m, {} m) to (40 m, {} m)", y - 0.1, y + 0.1);
        }
        let _ = writeln!(s, "  region west_{k} rect (1 m, {} m) to (6 m, {} m)", y + 1.0, y + 9.0);
        let _ = writeln!(s, "  region east_{k} rect (34 m, {} m) to (39 m, {} m)", y + 1.0, y + 9.0);
    }
    let _ = writeln!(s, "}}");
    for k in 0..corridors {
        for (name, from, to) in [("east", "west", "east"), ("west", "east", "west")] {
            let _ = writeln!(
                s,
                "population {name}bound_{k} {{ count {} spawn in {from}_{k} speed normal(1.2 m/s, 0.1 m/s) goal region {to}_{k} leave via {to}_{k} from 0 s behaviour cross }}",
                PER_CORRIDOR / 2
            );
        }
    }
    let _ = writeln!(s, "behaviour cross {{ seek goal using tree_paths reserve markers }}");
    let _ = writeln!(s, "parameters space_colonization {{ alpha 1 m; A_r 0.5 m }}");
    s
}

fn main() {
    let steps: u64 = setting("STEPS", 240);
    let n_pairs: usize = setting("PAIRS", 3);
    let mut sizes = vec![1_000usize, 10_000];
    if flag("100K") {
        sizes.push(100_000);
    }
    println!(
        "crowd extension, {steps} steps, {PER_CORRIDOR} agents per 40 m x 10 m corridor, {n_pairs} pairs, medians"
    );
    println!(
        "{:>8} {:>8} {:>16} {:>16} {:>12} {:>16}",
        "agents", "threads", "agent-steps/s", "us/agent-step", "sequential", "2t/1t (pairs)"
    );
    for n in sizes {
        let text = scenario(n / PER_CORRIDOR, steps);
        let program = crowd::compile(&SourceFile::new("crowd_scale.crowd", text))
            .unwrap_or_else(|d| panic!("the generated scenario does not compile: {d:?}"))
            .program;
        let mut shares: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut orca_rates: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut check = None;
        let pairs = Pairs::run(n_pairs, |threads| {
            let (agent_steps, secs, sequential) = sim::with_threads(Some(threads), || {
                let t0 = Instant::now();
                let outcome = crowd::run(&program, 1, &mut Discard, &mut |_, _| {}).expect("runs");
                // Preparing the run (markers, their index) is not stepping it.
                let secs = (t0.elapsed() - outcome.times.setup).as_secs_f64();
                (outcome.agent_steps, secs, outcome.times.sequential.as_secs_f64() / secs)
            })
            .expect("a thread pool");
            shares[threads - 1].push(sequential);
            let baseline = orca::run(n / PER_CORRIDOR, steps, threads);
            orca_rates[threads - 1].push(baseline.agent_steps as f64 / baseline.secs);
            check = Some(baseline);
            agent_steps as f64 / secs
        });
        let (mid, lo, hi) = pairs.speed_up();
        for (threads, rates) in [(1, &pairs.one), (2, &pairs.two)] {
            let rate = median(rates);
            let speed_up = if threads == 2 { format!("{mid:.2} ({lo:.2}-{hi:.2})") } else { String::new() };
            println!(
                "{n:>8} {threads:>8} {rate:>16.0} {:>16.2} {:>11.0}% {speed_up:>16}",
                1e6 / rate,
                100.0 * median(&shares[threads - 1])
            );
        }
        let [one, two] = orca_rates;
        let baseline = Pairs { one, two };
        let (mid, lo, hi) = baseline.speed_up();
        for (threads, rates) in [(1, &baseline.one), (2, &baseline.two)] {
            let rate = median(rates);
            let speed_up = if threads == 2 { format!("{mid:.2} ({lo:.2}-{hi:.2})") } else { String::new() };
            println!("{n:>8} {threads:>8} {rate:>16.0} {:>16.2} {:>12} {speed_up:>16}", 1e6 / rate, "ORCA");
        }
        let (one, one_lo, one_hi) = ratio(&pairs.one, &baseline.one);
        let (two, two_lo, two_hi) = ratio(&pairs.two, &baseline.two);
        println!(
            "{n:>8} crowd / ORCA: {one:.2}x on 1 thread (pairs {one_lo:.2}-{one_hi:.2}), \
             {two:.2}x on 2 threads (pairs {two_lo:.2}-{two_hi:.2})"
        );
        let c = check.expect("at least one pair ran");
        println!(
            "{n:>8} ORCA check: {:.0}% closer to their goal, {:.2} of preferred speed towards it, \
             closest pair {:.3} m ({:.2}% of agent-steps overlapping by over 1%), closest to a wall {:.3} m",
            100.0 * c.progressed,
            c.efficiency,
            c.min_distance,
            100.0 * c.overlapping,
            c.min_clearance
        );
    }
}
