//! The behaviour layer of Durupınar's framework: vars that rise while a
//! condition holds and decay, rules and transitions that read them, what an
//! agent sees of regions and obstacles, and the memory through which an
//! interrupted rule resumes the goal it had.

mod sim_support;

use crowd::ir::Program;
use crowd::trace::read::Table;
use crowd::SourceFile;
use sim_support::run_with;

fn compile(text: &str) -> Program {
    match crowd::compile(&SourceFile::new("test.crowd", text.to_string())) {
        Ok(c) => {
            assert!(c.warnings.is_empty(), "warnings: {:?}", c.warnings);
            c.program
        }
        Err(d) => panic!("the scenario does not compile: {d:?}"),
    }
}

fn trace(p: &Program, threads: Option<usize>) -> (Vec<u8>, Table) {
    let (bytes, _) = run_with(p, p.header.seed, threads).unwrap_or_else(|e| panic!("the run failed: {e}"));
    let table = Table::parse(&bytes).expect("the trace reads");
    (bytes, table)
}

/// The rows of agent `id`: `(t, the named columns)`.
fn rows_of(table: &Table, id: &str, columns: &[&str]) -> Vec<(f64, Vec<String>)> {
    let c = |n: &str| table.column(n).unwrap_or_else(|| panic!("no column {n}"));
    let (id_c, t_c) = (c("id"), c("t"));
    let cols: Vec<usize> = columns.iter().map(|n| c(n)).collect();
    table
        .rows
        .iter()
        .filter(|r| r[id_c] == id)
        .map(|r| (r[t_c].parse().unwrap(), cols.iter().map(|&k| r[k].clone()).collect()))
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

/// A sheep stands 5 m west of a wolf (who leaves after 1 s) and faces it.
const FEAR: &str = "
scenario fear { seed 1; duration 3 s; step 1/4 s }
world { bounds (0 m, 0 m) to (20 m, 10 m) }
agent sheep at (5 m, 5 m) { behaviour graze }
population wolf { count 1; spawn at (10 m, 5 m); leave after 1 s; behaviour lurk }
behaviour lurk { dwell 10 s }
behaviour graze {
  var fear {
    rise 2 per s when sees wolf within 12 m
    rise 1 per s when sees wolf within 12 m cone 90 deg
    rise 5 per s when sees wolf within 12 m cone 90 deg and not time >= 0 s
    decay 0.25 per s
  }
  var boredom { rise 0.5 per s when time >= 0 s; start 0.5 }
  var relief { decay 1 per s; start 0.3; max 2 }
  rule panic priority 10 when fear > 0.5 and not boredom >= 1 { dwell 10 s }
  rule bored priority 5 when boredom >= 1 { dwell 10 s }
  dwell 10 s
}
output { columns fear, boredom, relief }
";

#[test]
fn vars_rise_while_their_conditions_hold_decay_after_and_stay_within_0_and_max() {
    let p = compile(FEAR);
    let (_, table) = trace(&p, None);
    let wolf_at: Vec<f64> = rows_of(&table, "1", &[]).into_iter().map(|(t, _)| t).collect();
    assert_eq!(wolf_at, [0.0, 0.25, 0.5, 0.75], "the wolf leaves after 1 s");
    let sheep = rows_of(&table, "0", &["fear", "boredom", "relief"]);
    let got: Vec<[f64; 3]> = sheep.iter().map(|(_, v)| [num(&v[0]), num(&v[1]), num(&v[2])]).collect();
    // By hand, dt = 0.25 s. A frame at t shows the values the step from
    // t − dt made from what the agent saw at t − dt; the first step (the
    // agents' first, from t = 0) keeps the start values.
    // fear: seen all around and in the cone, 2 + 1 − 0.25 = 2.75 per s (the
    // third never holds): +0.6875 a step, up to 1; unseen, −0.0625.
    // boredom: 0.5 per s from 0.5, up to 1. relief: −0.25 a step from 0.3, down to 0.
    let fear = [0.0, 0.0, 0.6875, 1.0, 1.0, 0.9375, 0.875, 0.8125, 0.75, 0.6875, 0.625, 0.5625, 0.5];
    let boredom = [0.5, 0.5, 0.625, 0.75, 0.875, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    let relief = [0.3, 0.3, 0.3 - 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(got.len(), fear.len());
    for (k, g) in got.iter().enumerate() {
        assert_eq!(g[0], fear[k], "fear in frame {k}");
        assert_eq!(g[1], boredom[k], "boredom in frame {k}");
        assert_eq!(g[2], relief[k], "relief in frame {k}");
    }
}

#[test]
fn the_rule_that_fires_is_the_one_the_vars_of_the_same_step_select() {
    let p = compile(FEAR);
    let (_, table) = trace(&p, None);
    let sheep = rows_of(&table, "0", &["state", "fear", "boredom"]);
    for (t, v) in &sheep {
        let (fear, boredom) = (num(&v[1]), num(&v[2]));
        let expected = if fear > 0.5 && boredom < 1.0 {
            "panic"
        } else if boredom >= 1.0 {
            "bored"
        } else {
            "default"
        };
        assert_eq!(v[0], expected, "at {t} s, fear {fear}, boredom {boredom}");
    }
    let states: Vec<&str> = sheep.iter().map(|(_, v)| v[0].as_str()).collect();
    assert!(states.contains(&"panic") && states.contains(&"bored") && states.contains(&"default"), "{states:?}");
}

#[test]
fn vars_are_the_same_on_one_thread_and_on_two() {
    // Enough agents for the pass to cut them into several chunks, few
    // enough to be placed apart in the meadow (400 drew W006).
    let text = FEAR.replace(
        "world { bounds (0 m, 0 m) to (20 m, 10 m) }",
        "world { bounds (0 m, 0 m) to (20 m, 10 m); region meadow rect (1 m, 1 m) to (19 m, 9 m) }",
    ) + "population flock { count 360; spawn in meadow; radius 0.1 m; behaviour graze }";
    let p = compile(&text);
    let (one, _) = trace(&p, Some(1));
    assert_eq!(one, trace(&p, Some(2)).0);
    assert_eq!(one, trace(&p, Some(8)).0);
}

/// A forager picks one of two larders and walks to it; a wolf nearby
/// frightens it into hiding until the wolf has gone and its fear decayed.
const FORAGE: &str = "
scenario forage { seed 3; duration 6 s; step 1/10 s }
world { bounds (0 m, 0 m) to (30 m, 10 m) }
space hall rect (0 m, 0 m) to (30 m, 10 m) {
  object north at (28 m, 8 m) provides food
  object south at (28 m, 2 m) provides food
}
agent walker at (2 m, 5 m) { wants food; behaviour forage }
population wolf { count 1; spawn at (6 m, 5 m); leave after 1 s; behaviour lurk }
behaviour lurk { dwell 10 s }
behaviour forage {
  var fear { rise 4 per s when sees wolf within 6 m; decay 1 per s }
  rule hide priority 10 when fear > 0.5 { dwell 100 s }
  rule eat { pick goal from wants; seek goal }
}
output { columns goal, fear }
";

/// The walker's goal label before it hides and after, and whether it hid.
fn goals_around_hiding(p: &Program) -> (String, String) {
    let (_, table) = trace(p, None);
    let rows = rows_of(&table, "0", &["state", "goal"]);
    let first_hide = rows.iter().position(|(_, v)| v[0] == "hide").expect("the walker hides");
    let back = first_hide + rows[first_hide..].iter().position(|(_, v)| v[0] == "eat").expect("and comes out again");
    assert!(rows[..first_hide].iter().all(|(_, v)| v[0] == "eat"));
    assert!(rows[back..].iter().all(|(_, v)| v[0] == "eat"), "the fear does not come back");
    (rows[first_hide - 1].1[1].clone(), rows.last().map(|(_, v)| v[1].clone()).unwrap_or_default())
}

#[test]
fn a_rule_interrupted_by_a_higher_one_resumes_its_goal_without_picking_again() {
    let p = compile(FORAGE);
    let (before, after) = goals_around_hiding(&p);
    assert!(before == "north" || before == "south", "{before}");
    assert_eq!(after, before, "the walker goes back to the larder it had picked");
}

#[test]
fn without_goal_memory_the_interrupted_rule_picks_again() {
    let mut p = compile(FORAGE);
    p.switches.goal_memory = false;
    let (before, after) = goals_around_hiding(&p);
    // A new pick leaves out the larder the agent had: the other one.
    assert_ne!(after, before, "the walker picked again");
}

/// An errand: from its own goal, out to the post box and back again.
const ERRAND: &str = "
scenario errand { seed 1; duration 30 s; step 1/10 s }
world { bounds (0 m, 0 m) to (30 m, 10 m) }
agent clerk at (2 m, 5 m) { goal (10 m, 5 m); behaviour errand }
behaviour errand {
  state out { push goal (20 m, 5 m); seek goal; on arrival go back }
  state back { pop goal; seek goal; when remembers goal go stuck; when done go home }
  state home { seek goal }
  state stuck { dwell 100 s }
}
output { columns goal }
";

#[test]
fn a_pushed_goal_is_walked_to_and_the_popped_one_taken_back() {
    let p = compile(ERRAND);
    let (_, table) = trace(&p, None);
    let rows = rows_of(&table, "0", &["state", "goal", "x"]);
    let states: Vec<&str> = rows.iter().map(|(_, v)| v[0].as_str()).collect();
    assert_eq!(states.first(), Some(&"out"));
    assert_eq!(states.last(), Some(&"home"));
    assert!(!states.contains(&"stuck"));
    let out_goal = &rows[0].1[1];
    assert_eq!(out_goal, "(20 5)");
    let (_, last) = rows.last().expect("rows");
    assert_eq!(last[1], "(10 5)");
    assert!((num(&last[2]) - 10.0).abs() < 0.5, "back at its goal: x = {}", last[2]);
    assert!(rows.iter().any(|(_, v)| num(&v[2]) > 19.5), "it went out to the post box");
}

#[test]
fn without_goal_memory_pop_goal_does_nothing() {
    let mut p = compile(ERRAND);
    p.switches.goal_memory = false;
    let (_, table) = trace(&p, None);
    let rows = rows_of(&table, "0", &["state", "goal"]);
    let (_, last) = rows.last().expect("rows");
    assert_eq!(last[0], "stuck", "the pushed goal is still remembered");
    assert_eq!(last[1], "(20 5)");
}

/// A lookout facing east (towards its goal) reacts to a pond ahead and a wall behind.
fn lookout(rules: &str) -> Vec<String> {
    let text = format!(
        "
scenario lookout {{ seed 1; duration 1 s; step 1/4 s }}
world {{
  bounds (0 m, 0 m) to (30 m, 10 m)
  region pond circle (12 m, 5 m) radius 2 m
  obstacle wall polyline (1 m, 1 m), (1 m, 9 m) width 0.2 m
  obstacle rock circle (25 m, 5 m) radius 1 m
}}
agent lookout at (5 m, 5 m) {{ goal (29 m, 5 m); behaviour watch }}
behaviour watch {{
  {rules}
  dwell 10 s
}}
"
    );
    let p = compile(&text);
    let (_, table) = trace(&p, None);
    rows_of(&table, "0", &["state"]).into_iter().map(|(_, v)| v[0].clone()).collect()
}

#[test]
fn regions_and_obstacles_are_seen_within_reach_and_in_the_view_cone() {
    let fired = |rule: &str| lookout(&format!("rule r when {rule} {{ dwell 10 s }}")).iter().all(|s| s == "r");
    // The pond's nearest point is 5 m ahead.
    assert!(fired("sees region pond within 5 m cone 60 deg"));
    assert!(!fired("sees region pond within 4.9 m"));
    // The wall is 3.9 m behind: seen all around, not in a cone ahead.
    assert!(fired("sees obstacle wall within 4 m"));
    assert!(!fired("sees obstacle wall within 4 m cone 180 deg"));
    assert!(fired("sees obstacle wall within 4 m cone 360 deg"));
    // Any obstacle: the wall, or the rock 19 m ahead.
    assert!(fired("sees obstacle within 19 m cone 10 deg"));
    assert!(!fired("sees obstacle within 18.9 m cone 10 deg"));
    assert!(fired("not sees obstacle rock within 18.9 m and sees obstacle within 4 m"));
}
