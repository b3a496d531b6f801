//! Executor throughput: agent-steps per second on the 10,000-agent straight-line
//! benchmark, on 1 and 2 threads, without recording and recording every step
//! (formatting on the simulation's threads, `every`, or on a background
//! writer as `crowd run` does, `queued`).
//!
//! `cargo bench --bench sim` (optionally `CROWD_BENCH_STEPS=N`, default 240).
//! Each configuration runs three times; the best run counts, since the
//! machine may be shared. Traces are formatted in full and written to a sink.

use std::time::{Duration, Instant};

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::sim::{self, Simulation};
use crowd::trace::csv::{record_in_background, CsvWriter};

const SCENARIO: &str = "scenarios/bench/straight_10k.crowd";
const RUNS: usize = 3;

struct Timing {
    wall: Duration,
    record: Duration,
    agent_steps: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Record {
    None,
    Every,
    Queued,
}

fn run(program: &Program, threads: usize, mode: Record) -> Timing {
    sim::with_threads(Some(threads), || {
        let mut sink = std::io::sink();
        let mut sim = Simulation::new(program, program.header.seed).expect("the benchmark scenario runs");
        let t0 = Instant::now();
        if mode == Record::Queued {
            let labels = sim.labels().clone();
            record_in_background(&mut sink, &labels, &program.output.columns, None, |csv| -> std::io::Result<()> {
                sim.start(csv).expect("starts");
                while !sim.finished() {
                    sim.step(csv).expect("steps");
                }
                Ok(())
            })
            .expect("a sink accepts everything");
        } else {
            let mut csv = CsvWriter::new(&mut sink, sim.labels(), &program.output.columns, None)
                .expect("a sink accepts the header");
            sim.start(&mut csv).expect("starts");
            while !sim.finished() {
                sim.step(&mut csv).expect("steps");
            }
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
    for mode in [Record::None, Record::Every, Record::Queued] {
        for threads in [1, 2] {
            let mut program = base.clone();
            program.header.duration = steps as f64 * program.header.dt;
            program.header.record_every = if mode == Record::None { u32::MAX } else { 1 };
            let best =
                (0..RUNS).map(|_| run(&program, threads, mode)).min_by_key(|t| t.wall).expect("at least one run");
            let rate = best.agent_steps as f64 / best.wall.as_secs_f64();
            let sim_only = best.agent_steps as f64 / (best.wall - best.record).as_secs_f64();
            rates.push(rate);
            let name = match mode {
                Record::None => "none",
                Record::Every => "every",
                Record::Queued => "queued",
            };
            println!("{threads:>7} {name:>9} {rate:>14.0} {sim_only:>14.0} {:>10.3}", best.record.as_secs_f64());
        }
    }
    println!(
        "speed-up on 2 threads: {:.2}x without recording, {:.2}x recording every step, {:.2}x queued",
        rates[1] / rates[0],
        rates[3] / rates[2],
        rates[5] / rates[4]
    );
}
