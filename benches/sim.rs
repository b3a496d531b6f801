//! Executor throughput: agent-steps per second on the 10,000-agent straight-line
//! benchmark, on 1 and 2 threads, without recording and recording every step
//! (formatting on the simulation's threads, `every`; or as `crowd run` does,
//! `run`: on a background writer while a core is free for it, else as `every`).
//!
//! `cargo bench --bench sim` (optionally `CROWD_BENCH_STEPS=N`, default 240,
//! and `CROWD_BENCH_PAIRS=N`, default 5). Each configuration runs as N
//! interleaved 1-thread/2-thread pairs (`support/pairs.rs`); rates are
//! medians. Traces are formatted in full and written to a sink.
//!
//! The baseline is a plain uniform-grid boids step (`support/boids.rs`) over
//! the same 10,000 agents and layout, run right after crowd in every run of
//! the no-recording pairs, on the same number of threads; crowd's rate
//! without recording is given as a ratio of it, taken within each pair. A
//! check line shows that the flock really walked: the share of agents closer
//! to their goal and the mean speed at the end.

use std::time::{Duration, Instant};

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::sim;
use crowd::trace::csv::{record_to, CsvWriter};

const SCENARIO: &str = "scenarios/bench/straight_10k.crowd";
#[path = "support/boids.rs"]
mod boids;
#[path = "support/pairs.rs"]
mod pairs;

use pairs::{median, ratio, Pairs};
#[path = "support/settings.rs"]
mod settings;

use settings::setting;

struct Timing {
    wall: Duration,
    record: Duration,
    agent_steps: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Record {
    None,
    Every,
    Run,
}

fn run(program: &Program, threads: usize, mode: Record) -> Timing {
    sim::with_threads(Some(threads), || {
        let mut sink = std::io::sink();
        let labels = sim::labels(program);
        let seed = program.header.seed;
        let t0 = Instant::now();
        let outcome = if mode == Record::Run {
            record_to(&mut sink, &labels, &program.output.columns, None, |csv| {
                crowd::run(program, seed, csv, &mut |_, _| {})
            })
            .map(|(outcome, _rows)| outcome)
        } else {
            let mut csv =
                CsvWriter::new(&mut sink, &labels, &program.output.columns, None).expect("a sink accepts the header");
            crowd::run(program, seed, &mut csv, &mut |_, _| {})
        }
        .expect("the benchmark scenario runs");
        // Preparing the run (the walkable space, the index) is not stepping it.
        let wall = t0.elapsed() - outcome.times.setup;
        Timing { wall, record: outcome.times.record, agent_steps: outcome.agent_steps }
    })
    .expect("a thread pool")
}

fn main() {
    let text = std::fs::read_to_string(SCENARIO).expect("run from the crate root");
    let compiled = crowd::compile(&SourceFile::new(SCENARIO, text))
        .unwrap_or_else(|d| panic!("{SCENARIO} does not compile: {d:?}"));
    let steps: u64 = setting("STEPS", 240);
    let base = compiled.program;
    let n_pairs: usize = setting("PAIRS", 5);
    println!("{SCENARIO}: {steps} steps, {n_pairs} interleaved 1/2-thread pairs, medians");
    println!("{:>9} {:>7} {:>14} {:>14} {:>10}", "record", "threads", "agent-steps/s", "sim-only /s", "record s");
    let mut speed_ups = Vec::new();
    let mut boids_rates: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut crowd_rates = Pairs { one: Vec::new(), two: Vec::new() };
    let mut check = None;
    for mode in [Record::None, Record::Every, Record::Run] {
        let mut program = base.clone();
        program.header.duration = steps as f64 * program.header.dt;
        program.header.record_every = if mode == Record::None { u32::MAX } else { 1 };
        let mut timings: [Vec<Timing>; 2] = [Vec::new(), Vec::new()];
        let pairs = Pairs::run(n_pairs, |threads| {
            let t = run(&program, threads, mode);
            let rate = t.agent_steps as f64 / t.wall.as_secs_f64();
            timings[threads - 1].push(t);
            if mode == Record::None {
                let baseline = boids::run(steps, threads);
                boids_rates[threads - 1].push(baseline.agent_steps as f64 / baseline.secs);
                check = Some(baseline);
            }
            rate
        });
        let name = match mode {
            Record::None => "none",
            Record::Every => "every",
            Record::Run => "run",
        };
        for (threads, (rates, runs)) in [(1, (&pairs.one, &timings[0])), (2, (&pairs.two, &timings[1]))] {
            let sim_only: Vec<f64> =
                runs.iter().map(|t| t.agent_steps as f64 / (t.wall - t.record).as_secs_f64()).collect();
            let record: Vec<f64> = runs.iter().map(|t| t.record.as_secs_f64()).collect();
            println!(
                "{name:>9} {threads:>7} {:>14.0} {:>14.0} {:>10.3}",
                median(rates),
                median(&sim_only),
                median(&record)
            );
        }
        speed_ups.push((name, pairs.speed_up()));
        if mode == Record::None {
            crowd_rates = pairs;
        }
    }
    for (name, (mid, lo, hi)) in speed_ups {
        println!("speed-up on 2 threads, recording {name}: {mid:.2}x (pairs {lo:.2}-{hi:.2})");
    }
    let [one, two] = boids_rates;
    let baseline = Pairs { one, two };
    let (mid, lo, hi) = baseline.speed_up();
    println!(
        "boids baseline: {:.0} agent-steps/s on 1 thread, {:.0} on 2 threads ({mid:.2}x, pairs {lo:.2}-{hi:.2})",
        median(&baseline.one),
        median(&baseline.two)
    );
    let (one, one_lo, one_hi) = ratio(&crowd_rates.one, &baseline.one);
    let (two, two_lo, two_hi) = ratio(&crowd_rates.two, &baseline.two);
    println!(
        "crowd (recording none) / boids: {one:.2}x on 1 thread (pairs {one_lo:.2}-{one_hi:.2}), \
         {two:.2}x on 2 threads (pairs {two_lo:.2}-{two_hi:.2})"
    );
    let c = check.expect("at least one pair ran");
    println!(
        "boids check: {:.0}% of agents closer to their goal, mean speed {:.2} m/s",
        100.0 * c.progressed,
        c.mean_speed
    );
}
