//! Boids with predators and prey at scale: agent-steps per second of
//! `scenarios/bench/boids_100k.crowd` (100,000 prey flocking and fleeing,
//! 100 predators hunting; Durupınar 2007 §3.1) on 1 and 2 threads, against
//! the plain uniform-grid boids step (`support/boids.rs`) on the same number
//! of agents, layout, density and neighbour radius, in the same run.
//!
//! `cargo bench --bench boids` (optionally `CROWD_BENCH_STEPS=N`, default
//! 96, and `CROWD_BENCH_PAIRS=N`, default 5). Each configuration runs as N
//! interleaved 1-thread/2-thread pairs (`support/pairs.rs`); the ratio is
//! taken within each pair, because a shared machine's speed drifts. The
//! bar: crowd at least 1.0× the baseline on 1 thread, and the same trace
//! on 1 and 2 threads; the bench fails when either is not met. It also
//! reports the resident memory per agent of both.

use std::time::Instant;

use crowd::diag::SourceFile;
use crowd::hash::Fnv1a64;
use crowd::ir::Program;
use crowd::sim;
use crowd::trace::csv::CsvWriter;

const SCENARIO: &str = "scenarios/bench/boids_100k.crowd";
/// The scenario's layout is the baseline's this many times as tall, with this many times the agents.
const SCALE: usize = 10;
const RATIO_BAR: f64 = 1.0;

#[path = "support/boids.rs"]
mod boids;
#[path = "support/memory.rs"]
mod memory;
#[path = "support/pairs.rs"]
mod pairs;
#[path = "support/settings.rs"]
mod settings;

use memory::{peak_memory, peak_of, MEMORY_OF};
use pairs::{median, ratio, Pairs};
use settings::setting;

/// Agent-steps per second of a run without recording, stepping only.
fn rate(program: &Program, threads: usize) -> f64 {
    sim::with_threads(Some(threads), || {
        let mut sink = std::io::sink();
        let labels = sim::labels(program);
        let mut csv = CsvWriter::new(&mut sink, &labels, &program.output.columns, None).expect("a sink");
        let t0 = Instant::now();
        let outcome = crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("the scenario runs");
        outcome.agent_steps as f64 / (t0.elapsed() - outcome.times.setup).as_secs_f64()
    })
    .expect("a thread pool")
}

/// The digest and length of the trace of a run recording every step, and its catches.
fn trace(program: &Program, threads: usize) -> (u64, u64, usize) {
    sim::with_threads(Some(threads), || {
        let mut digest = Fnv1a64::default();
        let labels = sim::labels(program);
        let outcome = {
            let mut csv = CsvWriter::new(&mut digest, &labels, &program.output.columns, None).expect("a digest");
            crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("the scenario runs")
        };
        (digest.finish(), digest.len(), outcome.catches.len())
    })
    .expect("a thread pool")
}

fn main() {
    let began = Instant::now();
    let text = std::fs::read_to_string(SCENARIO).expect("run from the crate root");
    let compiled = crowd::compile(&SourceFile::new(SCENARIO, text))
        .unwrap_or_else(|d| panic!("{SCENARIO} does not compile: {d:?}"));
    let steps: u64 = setting("STEPS", 96);
    let n_pairs: usize = setting("PAIRS", 5);
    let mut program = compiled.program;
    program.header.duration = steps as f64 * program.header.dt;
    program.header.record_every = u32::MAX;
    let agents: u32 = program.populations.iter().map(|p| p.max_count()).sum();
    if let Ok(what) = std::env::var(MEMORY_OF) {
        match what.as_str() {
            "crowd" => drop(rate(&program, 1)),
            "baseline" => drop(boids::run_scaled(steps, 1, SCALE)),
            _ => {}
        }
        println!("{}", peak_memory());
        return;
    }
    println!("{SCENARIO}: {agents} agents, {steps} steps, {n_pairs} interleaved 1/2-thread pairs, medians");

    let mut baseline: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut check = None;
    let crowd_rates = Pairs::run(n_pairs, |threads| {
        let r = rate(&program, threads);
        let b = boids::run_scaled(steps, threads, SCALE);
        baseline[threads - 1].push(b.agent_steps as f64 / b.secs);
        check = Some(b);
        r
    });
    let [one, two] = baseline;
    let baseline = Pairs { one, two };
    println!("{:>22} {:>16} {:>16} {:>16}", "", "1 thread /s", "2 threads /s", "speed-up");
    for (name, p) in [("crowd boids", &crowd_rates), ("plain boids baseline", &baseline)] {
        let (s, lo, hi) = p.speed_up();
        println!("{name:>22} {:>16.0} {:>16.0} {:>9.2}x ({lo:.2}-{hi:.2})", median(&p.one), median(&p.two), s);
    }
    let (one, one_lo, one_hi) = ratio(&crowd_rates.one, &baseline.one);
    let (two, two_lo, two_hi) = ratio(&crowd_rates.two, &baseline.two);
    println!(
        "crowd / baseline: {one:.2}x on 1 thread (pairs {one_lo:.2}-{one_hi:.2}), {two:.2}x on 2 threads (pairs {two_lo:.2}-{two_hi:.2})"
    );
    let c = check.expect("at least one pair ran");
    println!(
        "baseline check: {:.0}% of agents closer to their goal, mean speed {:.2} m/s",
        100.0 * c.progressed,
        c.mean_speed
    );

    // Memory: a fresh process for each, its peak over one that only compiles the scenario.
    let nothing = peak_of("nothing");
    let per = |what: &str| peak_of(what).saturating_sub(nothing) as f64 / f64::from(agents);
    println!(
        "peak memory per agent (a fresh process's peak over one that only compiles the scenario): crowd {:.0} B, baseline {:.0} B",
        per("crowd"),
        per("baseline")
    );

    // The trace on 1 and 2 threads, every step recorded, over a shorter run.
    let mut short = program.clone();
    short.header.duration = 24.0 * short.header.dt;
    short.header.record_every = 1;
    let (a, len, caught) = trace(&short, 1);
    let (b, _, _) = trace(&short, 2);
    let same = a == b;
    println!(
        "trace over 24 steps, every step: {len} bytes, {caught} catches, FNV-1a {a:016x}; 1 and 2 threads {}",
        if same { "identical" } else { "DIFFER" }
    );
    println!("(the bench took {:.1} s)", began.elapsed().as_secs_f64());

    let mut failures = Vec::new();
    if one < RATIO_BAR {
        failures.push(format!("crowd is {one:.2}x the baseline on 1 thread, under the bar of {RATIO_BAR}x"));
    }
    if !same {
        failures.push("the traces on 1 and 2 threads differ".to_string());
    }
    if !failures.is_empty() {
        panic!("the boids bench fails:\n  {}", failures.join("\n  "));
    }
}
