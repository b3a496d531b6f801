//! The shipped scenarios as the tests run them: compiled from `scenarios/`,
//! run at their own seed, their failing expectations read back, and the
//! claims known to fail.
#![allow(dead_code)]

use std::path::Path;

use crowd::diag::SourceFile;
use crowd::ir::{Action, BehaviourBody, PlannerKind, Program};
use crowd::sim::labels;
use crowd::trace::csv::CsvWriter;
use crowd::trace::metrics::evaluate;
use crowd::trace::read::Recorded;

/// Claims that fail on purpose, as `(scenario, the claim as written)`: a
/// defect of the model that a scenario shows, not of the claims. A listed
/// claim that starts to hold fails `golden_scenarios`, so the list only
/// shrinks. Empty: Fig 13's arrivals, once listed, were agents that left
/// between two frames.
pub const KNOWN_FAILURES: [(&str, &str); 0] = [];

/// The scenario at `rel` (from the crate's root), compiled.
pub fn compile(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("scenario exists");
    crowd::compile(&SourceFile::new(rel, text)).unwrap_or_else(|d| panic!("{rel}: {d:?}")).program
}

/// The trace of a run of `program` at its own seed.
pub fn trace(program: &Program) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut csv = CsvWriter::new(&mut bytes, &labels(program), &program.output.columns, None).expect("header");
    crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("runs");
    drop(csv);
    bytes
}

/// The expectations that fail, as `crowd test` prints them.
pub fn failures(program: &Program) -> Vec<String> {
    failures_measured(program, program)
}

/// The expectations of `measured` that fail on a run of `run` (the same
/// scenario with something of its executor changed).
pub fn failures_measured(measured: &Program, run: &Program) -> Vec<String> {
    let bytes = trace(run);
    let rec = Recorded::parse(&bytes, measured).expect("trace reads back");
    evaluate(measured, &rec).into_iter().filter(|c| !c.verdict.holds()).map(|c| c.to_string()).collect()
}

/// Whether `failure` (a line of [`failures`]) is a known failure of the scenario at `rel`.
pub fn known(rel: &str, failure: &str) -> bool {
    KNOWN_FAILURES.iter().any(|&(s, c)| s == rel && failure.starts_with(&format!("FAILS: {c} (")))
}

/// The failures of the scenario at `rel` run with `switch_off` applied to
/// its compiled program, after checking that the scenario itself holds.
pub fn broken(rel: &str, switch_off: impl FnOnce(&mut Program)) -> Vec<String> {
    let mut program = compile(rel);
    assert!(failures(&program).is_empty(), "the scenario itself holds");
    switch_off(&mut program);
    failures(&program)
}

/// Asserts that a claim containing `claim` is among `failed`.
pub fn assert_fails(failed: &[String], claim: &str) {
    assert!(failed.iter().any(|f| f.contains(claim)), "no failure of `{claim}` in {failed:?}");
}

/// Calls `f` on every action of every behaviour.
pub fn each_action(program: &mut Program, mut f: impl FnMut(&mut Action)) {
    for b in &mut program.behaviours {
        match &mut b.body {
            BehaviourBody::Rules(rules) => rules.iter_mut().flat_map(|r| r.actions.iter_mut()).for_each(&mut f),
            BehaviourBody::States(states) => states.iter_mut().flat_map(|s| s.actions.iter_mut()).for_each(&mut f),
        }
    }
}

/// Every walker of the program seeks its goal straight, without a planner.
pub fn walk_straight(program: &mut Program) {
    for b in &mut program.behaviours {
        let actions = match &mut b.body {
            BehaviourBody::Rules(rules) => rules.iter_mut().flat_map(|r| r.actions.iter_mut()).collect::<Vec<_>>(),
            BehaviourBody::States(states) => states.iter_mut().flat_map(|s| s.actions.iter_mut()).collect(),
        };
        for a in actions {
            if let Action::Seek { planner, .. } = a {
                planner.kind = PlannerKind::Straight;
            }
        }
    }
}
