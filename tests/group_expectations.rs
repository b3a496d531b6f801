//! The semantic-groups expectations over hand-made traces: `goals of X
//! provide wants` and `nobody of X inside group space of Y` each hold on a
//! trace that keeps them and fail on one that breaks them, so neither can
//! pass by default.

use crowd::ir::Program;
use crowd::trace::metrics::{evaluate, Verdict};
use crowd::trace::read::Recorded;
use crowd::SourceFile;

fn compile(text: &str) -> Program {
    match crowd::compile(&SourceFile::new("test.crowd", text.to_string())) {
        Ok(c) => c.program,
        Err(d) => panic!("the scenario does not compile: {d:?}"),
    }
}

/// The verdicts of `program`'s expectations over the CSV `trace`.
fn verdicts(program: &Program, trace: &str) -> Vec<Verdict> {
    let rec = Recorded::parse(trace.as_bytes(), program).expect("the trace reads");
    evaluate(program, &rec).into_iter().map(|c| c.verdict).collect()
}

fn fails_with(v: &Verdict, words: &str) -> bool {
    matches!(v, Verdict::Fails(d) if d.contains(words))
}

const PARTY: &str = "
scenario party { seed 1; duration 10 s; step 1/2 s; record every 2 steps }
world {
  bounds (0 m, 0 m) to (20 m, 10 m)
  region gate rect (0.5 m, 4 m) to (2 m, 6 m)
  markers dart_throwing density 4 per m2
}
space yard rect (0 m, 0 m) to (20 m, 10 m) {
  object grill at (15 m, 8 m) provides food
  object pool at (15 m, 2 m) provides fun
}
population guests {
  peak 2 agents at 1 s
  leave via gate from 8 s
  spawn in gate
  wants food
  behaviour visitor
}
behaviour visitor {
  state choose { pick goal from wants; when done go walk }
  state walk { seek goal using astar; on arrival go choose }
}
expect { goals of guests provide wants }
output { columns goal }
";

const HEADER: &str = "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,goal\n";

fn goal_rows(goals: [&str; 3]) -> String {
    let mut s = HEADER.to_string();
    for (k, g) in goals.iter().enumerate() {
        s.push_str(&format!("0,{k},{k},1,5,0,0,1,0,guests,,walk,{g}\n"));
    }
    s
}

#[test]
fn goals_must_be_objects_providing_a_want() {
    let p = compile(PARTY);
    // An empty cell (no goal yet) and an object providing food hold.
    assert!(verdicts(&p, &goal_rows(["", "grill", "grill"]))[0].holds());
    // An object providing only what the guest does not want fails.
    let v = verdicts(&p, &goal_rows(["grill", "pool", "grill"]));
    assert!(fails_with(&v[0], "`pool` provides fun but the agent wants food"), "{v:?}");
    // A region is no object: before the leaving time it fails...
    let v = verdicts(&p, &goal_rows(["grill", "gate", "grill"]));
    assert!(fails_with(&v[0], "`gate` is not an object"), "{v:?}");
}

#[test]
fn the_exit_is_allowed_once_leaving_and_the_goal_column_is_needed() {
    let p = compile(PARTY);
    // ...from the leaving time (8 s) on, the exit region is the goal.
    let mut t = HEADER.to_string();
    t.push_str("0,0,0,1,5,0,0,1,0,guests,,walk,grill\n0,4,8,1,5,0,0,1,0,guests,,walk,gate\n");
    assert!(verdicts(&p, &t)[0].holds());
    // Without the goal column there is nothing to check: it fails, saying how to fix it.
    let bare = "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n0,0,0,1,5,0,0,1,0,guests,,walk\n";
    let v = verdicts(&p, bare);
    assert!(fails_with(&v[0], "output { columns goal }"), "{v:?}");
}

const MEETING: &str = "
scenario meeting { seed 1; duration 10 s; step 1/2 s; record every 2 steps }
world {
  bounds (0 m, 0 m) to (20 m, 4 m)
  region west_end rect (1 m, 1 m) to (3 m, 3 m)
  region east_end rect (17 m, 1 m) to (19 m, 3 m)
  markers jittered_grid density 4 per m2
}
space hallway rect (0 m, 0 m) to (20 m, 4 m)
group eastbound { agents 2 in west_end; formation auto; speed 1.2 m/s; goal (18 m, 2 m); behaviour walk }
group westbound { agents 2 in east_end; formation auto; speed 1.2 m/s; goal (2 m, 2 m); behaviour walk }
behaviour walk { seek goal using astar }
parameters semantic_groups { core 50% }
expect {
  nobody of eastbound inside group space of westbound
  nobody of westbound inside group space of eastbound
}
output { columns radius }
";

/// Two frames: the eastbound pair stands at x = 10 m, 1 m apart (group space
/// radius 0.5 m + 0.25 m, core 0.375 m); the westbound pair is at `x0` and
/// `x0 + 0.6 m` on the line `y` in the second frame (far east in the first).
fn meeting_rows(x0: f64, y: f64) -> String {
    let mut s = "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,radius\n".to_string();
    for (f, wx) in [(0, 16.0), (1, x0)] {
        s.push_str(&format!("0,{f},{f},10,1.5,0,0,1,0,eastbound,0,default,0.25\n"));
        s.push_str(&format!("1,{f},{f},10,2.5,0,0,1,0,eastbound,0,default,0.25\n"));
        s.push_str(&format!("2,{f},{f},{wx},{y},0,0,-1,0,westbound,1,default,0.25\n"));
        s.push_str(&format!("3,{f},{f},{},{y},0,0,-1,0,westbound,1,default,0.25\n", wx + 0.6));
    }
    s
}

#[test]
fn a_member_inside_another_groups_core_fails() {
    let p = compile(MEETING);
    // Passing beside the pair, outside its core (0.375 m around (10, 2)).
    let v = verdicts(&p, &meeting_rows(9.4, 3.2));
    assert!(v.iter().all(Verdict::holds), "{v:?}");
    // Walking between the two members: agent 2 stands on the eastbound centre.
    let v = verdicts(&p, &meeting_rows(10.0, 2.0));
    assert!(fails_with(&v[1], "agent 2 is inside the core of group 0's space at 1 s"), "{v:?}");
    // The westbound core (0.275 m around (10.3, 2)) stays clear of the
    // eastbound members, 0.58 m away: the other direction holds.
    assert!(v[0].holds(), "{v:?}");
}

#[test]
fn a_group_scattered_beyond_social_distance_has_no_core() {
    let p = compile(MEETING);
    // A group spread wider than Hall's social distance is no group (section
    // 3.2): no core to enter, even standing on its centroid.
    let mut s = "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,radius\n".to_string();
    s.push_str("0,0,0,2,2,0,0,1,0,eastbound,0,default,0.25\n1,0,0,18,2,0,0,1,0,eastbound,0,default,0.25\n");
    s.push_str("2,0,0,10,2,0,0,-1,0,westbound,1,default,0.25\n3,0,0,10.6,2,0,0,-1,0,westbound,1,default,0.25\n");
    let v = verdicts(&p, &s);
    assert!(v[1].holds(), "{v:?}");
}
