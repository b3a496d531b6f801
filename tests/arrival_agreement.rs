//! `crowd test`'s `reaches goal` and `crowd metrics`' goal completion are one
//! measurement: on a shipped scenario they agree agent for agent, whether the
//! run gets everyone there or not.

mod sim_support;

use crowd::ir::{Expectation, ExpectationKind};
use crowd::trace::measure::{measure, Options, Trace, Value};
use crowd::trace::metrics::{evaluate, Verdict};
use crowd::SourceFile;
use sim_support::{recorded, run};

fn count(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Count(n)) => *n,
        other => panic!("not a count: {other:?}"),
    }
}

#[test]
fn reaches_goal_agrees_with_goal_completion_on_pillars() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/basics/pillars.crowd");
    let text = std::fs::read_to_string(path).expect("pillars is readable");
    let mut program = crowd::compile(&SourceFile::new("pillars.crowd", text)).expect("pillars compiles").program;
    // The scenario's claim without its time limit: arrival at any time, as goal completion counts it.
    let who = program
        .expectations
        .iter()
        .find_map(|e| match e.kind {
            ExpectationKind::ReachesGoal { who, .. } => Some(who),
            _ => None,
        })
        .expect("pillars claims its walkers reach their goal");
    program.expectations =
        vec![Expectation { text: "walkers reaches goal".into(), kind: ExpectationKind::ReachesGoal { who, by: None } }];
    let (bytes, _) = run(&program);

    let verdict = evaluate(&program, &recorded(&program, &bytes)).remove(0).verdict;
    let trace = Trace::parse(&bytes).expect("the trace reads");
    let m = measure(&trace, Some(&program), &Options::default()).expect("measured");
    let with_goal = count(m.get("agents_with_goal"));
    let completion = m.get("goal_completion").and_then(Value::as_f64).expect("goal completion");
    let missing = with_goal - (completion * with_goal as f64).round() as u64;
    let stuck = count(m.get("stuck_agents"));

    match &verdict {
        Verdict::Holds(_) => assert_eq!(missing, 0, "the claim holds, yet metrics miss {missing}: {verdict:?}"),
        Verdict::Fails(d) => {
            assert!(d.starts_with(&format!("{missing} of {with_goal} agent(s) did not arrive")), "{d}");
            if stuck > 0 {
                assert!(d.contains(&format!("; {stuck} stuck")), "{d}");
            }
        }
        Verdict::NotImplemented(d) => panic!("not implemented: {d}"),
    }
}
