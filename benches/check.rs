//! How fast `crowd check` is on a large scenario.
//!
//! Generates a valid 10,000-line scenario in memory (obstacles, regions,
//! populations, behaviours, expectations), then times `crowd::compile` on it
//! against two baselines in the same run: counting its lines, and parsing it
//! alone (`crowd::syntax::parse`). Run with `cargo bench --bench check`.

use std::fmt::Write;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crowd::SourceFile;

const LINES: usize = 10_000;
const ITERATIONS: usize = 10;

/// A valid scenario of about `lines` lines, laid out on a grid of 20 m cells:
/// each obstacle and each region owns a cell, so nothing overlaps.
fn scenario(lines: usize) -> String {
    // Share of the lines: obstacles 30%, regions 10%, populations (6 lines each) 30%,
    // behaviours (4 lines each) 20%, expectations 10%.
    let obstacles = lines * 3 / 10;
    let regions = lines / 10;
    let populations = lines * 3 / 10 / 6;
    let behaviours = lines / 5 / 4;
    let expectations = lines / 10;
    let cells = obstacles + regions;
    let side = (cells as f64).sqrt().ceil() as usize;
    let cell = |i: usize| ((i % side) as f64 * 20.0, (i / side) as f64 * 20.0);

    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "// A generated scenario for timing the checker.");
    let _ = writeln!(w, "scenario bench {{ seed 7; duration 60 s; step 1/24 s; record every 24 steps }}");
    let _ = writeln!(w, "world {{");
    let _ = writeln!(w, "  bounds (0 m, 0 m) to ({} m, {} m)", side * 20, side * 20);
    let _ = writeln!(w, "  markers dart_throwing density 2 per m2");
    for i in 0..obstacles {
        let (x, y) = cell(i);
        if i % 3 == 0 {
            let _ =
                writeln!(w, "  obstacle o{i} rect ({} m, {} m) to ({} m, {} m)", x + 4.0, y + 4.0, x + 16.0, y + 10.0);
        } else if i % 3 == 1 {
            let _ = writeln!(w, "  obstacle o{i} circle ({} m, {} m) radius 3 m", x + 10.0, y + 10.0);
        } else {
            let _ = writeln!(
                w,
                "  obstacle o{i} polygon ({} m, {} m), ({} m, {} m), ({} m, {} m), ({} m, {} m)",
                x + 4.0,
                y + 4.0,
                x + 16.0,
                y + 4.0,
                x + 12.0,
                y + 14.0,
                x + 6.0,
                y + 12.0
            );
        }
    }
    for r in 0..regions {
        let (x, y) = cell(obstacles + r);
        let _ = writeln!(w, "  region r{r} rect ({} m, {} m) to ({} m, {} m)", x + 2.0, y + 2.0, x + 18.0, y + 18.0);
    }
    let _ = writeln!(w, "}}");
    for p in 0..populations {
        let _ = writeln!(w, "population p{p} {{");
        let _ = writeln!(w, "  count 10; spawn in r{}", p % regions);
        let _ = writeln!(w, "  goal region r{}", (p * 7 + 3) % regions);
        let _ = writeln!(w, "  speed uniform(1.0 m/s, 1.4 m/s); radius normal(0.25 m, 0.02 m)");
        let _ = writeln!(w, "  behaviour b{}", p % behaviours);
        let _ = writeln!(w, "}}");
    }
    for b in 0..behaviours {
        let _ = writeln!(w, "behaviour b{b} {{");
        let _ = writeln!(w, "  rule scatter priority 2 when sees p{} within 3 m cone 120 deg {{ flee p{} }}", b, b);
        let _ = writeln!(w, "  rule walk {{ seek goal using tree_paths }}");
        let _ = writeln!(w, "}}");
    }
    let _ = writeln!(w, "expect {{");
    for e in 0..expectations.saturating_sub(2) {
        let p = e % populations;
        let _ = match e % 4 {
            0 => writeln!(w, "  p{p} reaches goal within 55 s"),
            1 => writeln!(w, "  nobody of p{p} inside o{}", e % obstacles),
            2 => writeln!(w, "  at least 50% of p{p} inside r{} at 50 s", (p * 7 + 3) % regions),
            _ => writeln!(w, "  min distance among p{p} >= 0.2 m"),
        };
    }
    let _ = writeln!(w, "}}");
    s
}

/// The median and the fastest time of `f` over `ITERATIONS` runs, after one
/// warm-up run. On a busy machine the fastest is the steadier figure.
fn time<T>(mut f: impl FnMut() -> T) -> (Duration, Duration) {
    black_box(f());
    let mut times: Vec<Duration> = (0..ITERATIONS)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let text = scenario(LINES);
    let lines = text.lines().count();
    let file = SourceFile::new("bench.crowd", text.as_str());
    if let Err(diags) = crowd::compile(&file) {
        eprint!("{}", crowd::diag::render_all(&diags[..diags.len().min(5)], &file, true));
        panic!("the generated scenario does not compile ({} diagnostics)", diags.len());
    }

    let count = time(|| text.lines().count());
    let parse = time(|| crowd::syntax::parse(&text));
    let compile = time(|| crowd::compile(&file).map(|c| c.program.populations.len()));

    println!("check: {lines} lines, {} bytes, {ITERATIONS} runs (median / fastest)", text.len());
    println!("  lines().count()  {:>9.3} ms / {:>9.3} ms", ms(count.0), ms(count.1));
    println!("  syntax::parse    {:>9.3} ms / {:>9.3} ms", ms(parse.0), ms(parse.1));
    println!("  compile          {:>9.3} ms / {:>9.3} ms", ms(compile.0), ms(compile.1));
    let (c, p) = (compile.0.as_secs_f64(), parse.0.as_secs_f64());
    println!(
        "  compile: {:.0} lines/s, {:.2}x the parse alone, {:.0}x counting the lines (medians)",
        lines as f64 / c,
        c / p,
        c / count.0.as_secs_f64()
    );
    if ms(compile.0) > 100.0 {
        println!("  over the 100 ms target for a {lines}-line check");
    }
}
