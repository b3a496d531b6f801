//! The trace reader from bytes: whatever a trace file holds, `crowd
//! metrics` measures it or says why not, and `crowd test` evaluates a
//! scenario's claims on it or says why not; never a panic.
#![no_main]

use std::sync::OnceLock;

use crowd::trace::measure::{measure, Options, Trace};
use crowd::trace::metrics::evaluate;
use crowd::trace::read::Recorded;
use libfuzzer_sys::fuzz_target;

/// A scenario with claims of every family, to evaluate on the fuzzed trace.
const SCENARIO: &str = "scenario fuzz { seed 1; duration 10 s; step 1/10 s }
world {
  bounds (0 m, 0 m) to (20 m, 20 m)
  region start rect (1 m, 1 m) to (5 m, 5 m)
  region finish rect (15 m, 15 m) to (19 m, 19 m)
  obstacle post circle (10 m, 10 m) radius 1 m
}
population walkers { count 5; spawn in start; goal region finish; behaviour go }
population others { count 5; spawn in finish; goal region start; behaviour go }
behaviour go { seek goal }
output { columns goal }
expect {
  walkers reaches goal within 10 s
  nobody inside obstacles
  min distance >= 0.4 m
  collisions <= 3
  at least 50% of walkers inside finish at 10 s
  lanes width 2 m among everyone >= 0.5 at 5 s
  walkers within 5 m of others at 5 s
  nearest distance of walkers <= 3 m during 1 s to 9 s
  count of walkers >= 1 at 9 s
  at most 1 of walkers stuck
  each of walkers picks at most 2 goals by 10 s
  walkers moves at least 1 m by 10 s
}
";

fn program() -> &'static crowd::ir::Program {
    static PROGRAM: OnceLock<crowd::ir::Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        crowd::compile(&crowd::SourceFile::new("fuzz.crowd", SCENARIO)).expect("the fuzz scenario compiles").program
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = Trace::parse(data) {
        let _ = measure(&trace, None, &Options::default());
        let _ = measure(&trace, Some(program()), &Options::default());
    }
    if let Ok(rec) = Recorded::parse(data, program()) {
        for checked in evaluate(program(), &rec) {
            let _ = checked.to_string();
        }
    }
});
