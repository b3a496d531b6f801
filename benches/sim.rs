//! Executor throughput: agent-steps per second on the 10,000-agent straight-line
//! benchmark, on 1 and 2 threads, without recording and recording every step.
//!
//! `cargo bench --bench sim` (optionally `CROWD_BENCH_STEPS=N`, default 240).
//! Each configuration runs three times; the best run counts, since the
//! machine may be shared. Traces are formatted in full and written to a sink.

use std::time::{Duration, Instant};

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::sim::{self, Simulation};
use crowd::trace::csv::CsvWriter;

const SCENARIO: &str = "scenarios/bench/straight_10k.crowd";
const RUNS: usize = 3;

struct Timing {
    wall: Duration,
    record: Duration,
    agent_steps: u64,
}

fn run(program: &Program, threads: usize) -> Timing {
    sim::with_threads(Some(threads), || {
        let mut sink = std::io::sink();
        let mut sim = Simulation::new(program, program.header.seed).expect("the benchmark scenario runs");
        let mut csv =
            CsvWriter::new(&mut sink, sim.labels(), &program.output.columns, None).expect("a sink accepts the header");
        let t0 = Instant::now();
        sim.start(&mut csv).expect("starts");
        while !sim.finished() {
            sim.step(&mut csv).expect("steps");
        }
        let wall = t0.elapsed();
        let outcome = sim.finish();
        Timing { wall, record: outcome.times.record, agent_steps: outcome.agent_steps }
    })
    .expect("a thread pool")
}

fn main() {
    let text = std::fs::read_to_string(SCENARIO).expect("run from the crate root");
    let compiled = crowd::compile(&SourceFile::new(SCENARIO, text))
        .unwrap_or_else(|d| panic!("{SCENARIO} does not compile: {d:?}"));
    let steps: u64 = std::env::var("CROWD_BENCH_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(240);
    let base = compiled.program;
    println!("{SCENARIO}: {steps} steps, best of {RUNS} runs");
    println!("{:>7} {:>9} {:>14} {:>14} {:>10}", "threads", "record", "agent-steps/s", "sim-only /s", "record s");
    let mut rates = Vec::new();
    for record_every in [u32::MAX, 1] {
        for threads in [1, 2] {
            let mut program = base.clone();
            program.header.duration = steps as f64 * program.header.dt;
            program.header.record_every = record_every;
            let best = (0..RUNS).map(|_| run(&program, threads)).min_by_key(|t| t.wall).expect("at least one run");
            let rate = best.agent_steps as f64 / best.wall.as_secs_f64();
            let sim_only = best.agent_steps as f64 / (best.wall - best.record).as_secs_f64();
            rates.push(rate);
            println!(
                "{threads:>7} {:>9} {rate:>14.0} {sim_only:>14.0} {:>10.3}",
                if record_every == 1 { "every" } else { "none" },
                best.record.as_secs_f64()
            );
        }
    }
    println!(
        "speed-up on 2 threads: {:.2}x without recording, {:.2}x recording every step",
        rates[1] / rates[0],
        rates[3] / rates[2]
    );
}
