//! The claims about proximity, amounts inside an area, counts, the mean
//! distance to the nearest other agent, the mean speed, collisions, stuck agents, trips,
//! distance moved, path ratios, goals picked, coverage and a group's
//! formation error and spread, the time qualifiers `during` and `for at
//! least X% of`, and the subject `followers of`: each written in the
//! scenario language, evaluated over a hand-made trace, holds where the
//! trace keeps it and fails where it does not.

use crowd::ir::Program;
use crowd::trace::metrics::{evaluate, Verdict};
use crowd::trace::read::Recorded;
use crowd::SourceFile;

const SCENARIO: &str = "
scenario claims { seed 1; duration 10 s; step 1/2 s; record every 2 steps }
world {
  bounds (0 m, 0 m) to (20 m, 10 m)
  region pad rect (0 m, 0 m) to (4 m, 4 m)
  region goal_area rect (16 m, 0 m) to (20 m, 10 m)
}
population a { count 3; spawn in pad; radius 0.25 m; goal (18 m, 5 m); behaviour go }
population b { count 1; spawn in pad; radius 0.25 m; behaviour stay }
behaviour go { seek goal }
behaviour stay { dwell 10 s }
output { columns goal, radius }
";

/// Frames 0 to 10, one a second. Agents 0 and 1 (of `a`) walk east side by
/// side 1 m apart and reach the goal area at 9 s; agent 1 swerves into agent
/// 0 at 3 and 4 s (one collision, 0.2 m deep). Agent 2 (of `b`) jitters
/// 0.2 m in place and picks `pad` at 4 s, `goal_area` at 7 s. Agent 3 (of
/// `a`) stands at (2, 4) the whole run: stuck.
fn trace() -> String {
    let mut s = String::from("id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,goal,radius\n");
    for k in 0..=10 {
        let x = 2.0 + 1.6 * f64::from(k);
        let swerve = if (3..=4).contains(&k) { 5.3 } else { 6.0 };
        let jitter = if k % 2 == 0 { 1.0 } else { 1.2 };
        let pick = match k {
            0..=3 => "",
            4..=6 => "pad",
            _ => "goal_area",
        };
        s.push_str(&format!("0,{k},{k},{x},5,1.6,0,1,0,a,,go,(18 5),0.25\n"));
        s.push_str(&format!("1,{k},{k},{x},{swerve},1.6,0,1,0,a,,go,(18 5),0.25\n"));
        s.push_str(&format!("2,{k},{k},{jitter},1,0,0,1,0,b,,stay,{pick},0.25\n"));
        s.push_str(&format!("3,{k},{k},2,4,0,0,1,0,a,,go,(18 5),0.25\n"));
    }
    s
}

/// The verdicts of `claims`, one per line, added to `scenario`, over the CSV `trace`.
fn verdicts(scenario: &str, trace: &str, claims: &str) -> Vec<Verdict> {
    let text = format!("{scenario}expect {{\n{claims}\n}}\n");
    let program: Program = match crowd::compile(&SourceFile::new("claims.crowd", text)) {
        Ok(c) => c.program,
        Err(d) => panic!("the scenario does not compile: {d:#?}"),
    };
    assert_eq!(program.expectations.len(), claims.lines().count(), "one expectation per line");
    let rec = Recorded::parse(trace.as_bytes(), &program).expect("the trace reads");
    evaluate(&program, &rec).into_iter().map(|c| c.verdict).collect()
}

/// Checks each claim over [`trace`]: `+` must hold, `-` must fail, each with
/// a detail containing the third text.
fn check(cases: &[(&str, char, &str)]) {
    check_over(SCENARIO, &trace(), cases);
}

/// [`check`] for claims added to `scenario`, over the CSV `trace`.
fn check_over(scenario: &str, trace: &str, cases: &[(&str, char, &str)]) {
    let claims: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let v = verdicts(scenario, trace, &claims.join("\n"));
    let mut wrong = Vec::new();
    for ((claim, sign, words), verdict) in cases.iter().zip(&v) {
        let ok = match (sign, verdict) {
            ('+', Verdict::Holds(d)) | ('-', Verdict::Fails(d)) => d.contains(words),
            _ => false,
        };
        if !ok {
            wrong.push(format!("{sign} {claim}: {verdict:?} (wanted `{words}`)"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn proximity() {
    check(&[
        ("a within 1.5 m of a at 0 s", '+', "farthest: agent 0, 1 m"),
        ("a within 0.5 m of a at 0 s", '-', "farthest: agent 0, 1 m"),
        ("a within 2 m of a during 0 s to 10 s", '-', "first fails at 2 s"),
        ("b within 4 m of a at 0 s", '+', "farthest: agent 2"),
        ("b within 2 m of a at 0 s", '-', "farthest: agent 2"),
    ]);
}

#[test]
fn amounts_inside_an_area() {
    check(&[
        ("at least 2 of a inside goal_area at 10 s", '+', "2 of 3 inside at 10 s"),
        ("at least 3 of a inside goal_area at 10 s", '-', "2 of 3 inside at 10 s"),
        ("at most 2 of a inside goal_area at 10 s", '+', "2 of 3"),
        ("at most 50% of a inside goal_area at 10 s", '-', "2 of 3"),
        ("at least 90% of a inside goal_area at 10 s", '-', "2 of 3"),
        ("at most 0 of a inside goal_area during 0 s to 10 s", '-', "first fails at 9 s"),
        ("at most 0 of a inside goal_area during 0 s to 8 s", '+', "held in all 9 frame(s)"),
    ]);
}

#[test]
fn shares_of_frames() {
    check(&[
        ("at most 0 of a inside goal_area for at least 80% of 0 s to 10 s", '+', "9 of 11 frame(s)"),
        ("at most 0 of a inside goal_area for at least 95% of 0 s to 10 s", '-', "81.8%, 95% needed"),
        ("count of a is 3 for at least 100% of 0 s to 10 s", '+', "11 of 11"),
    ]);
}

#[test]
fn collisions_and_overlap() {
    check(&[
        ("collisions among a <= 1", '+', "1 collision event(s)"),
        ("collisions among a <= 0", '-', "first: agents 0 and 1 at 3 s"),
        ("collisions among b <= 0", '+', "0 collision event(s)"),
        ("overlap among everyone <= 0.25 m", '+', "deepest overlap 0.2"),
        ("overlap <= 0.1 m", '-', "deepest overlap 0.2"),
    ]);
}

#[test]
fn stuck_agents_and_trips() {
    check(&[
        ("at most 1 of a stuck", '+', "1 of 3 agent(s) stuck"),
        ("at most 0 of a stuck", '-', "first: agent 3"),
        ("at most 10% of a stuck", '-', "1 of 3"),
        ("at least 60% of trips of a complete within 10 s", '+', "2 of 3 trip(s)"),
        ("at least 60% of trips of a complete within 5 s", '-', "0 of 3 trip(s)"),
    ]);
}

#[test]
fn distance_moved() {
    check(&[
        ("b moves at least 0.1 m by 10 s", '+', "agent 2"),
        // Jittering in place is not moving.
        ("b moves at least 0.5 m by 10 s", '-', "agent 2, 0.2 m from its start"),
        ("a moves at least 1 m by 10 s", '-', "the least moved: agent 3, 0 m"),
        ("at most 1 of a move less than 5 m by 10 s", '+', "1 of 3 agent(s) moved less than 5 m"),
        ("at most 0 of a move less than 5 m by 10 s", '-', "first: agent 3"),
    ]);
}

#[test]
fn path_ratio() {
    check(&[
        ("path ratio of a <= 1.05", '+', "2 path(s), path ratios per completed trip"),
        // Agent 1's swerve makes its trip 14.69 m long for 14.4 m straight.
        ("path ratio of a <= 1.01", '-', "the longest: agent 1, 1.02034 times the straight line"),
        // Agent 3 never leaves its spot, and `b` completes no trip.
        ("path ratio of b <= 2", '-', "no path of the 1 agent(s) measured"),
    ]);
}

#[test]
fn goals_picked() {
    check(&[
        ("each of b picks at least 2 goals by 10 s", '+', "fewest picks by 10 s: 2"),
        ("each of b picks at least 2 goals by 5 s", '-', "fewest picks by 5 s: 1, agent 2"),
        ("each of b picks at most 2 goals by 10 s", '+', "most picks by 10 s: 2, agent 2"),
        ("each of b picks at most 1 goals by 10 s", '-', "most picks by 10 s: 2, agent 2"),
        ("each of everyone picks at most 1 goals by 5 s", '+', "4 agent(s); most picks by 5 s: 1"),
        ("each of a picks at most 0 goals by 10 s", '-', "most picks by 10 s: 1, agent 0"),
    ]);
}

#[test]
fn counts_bounded() {
    check(&[
        ("count of a <= 3 during 0 s to 10 s", '+', "held in all 11 frame(s)"),
        ("count of a >= 4 at 5 s", '-', "3 alive at 5 s"),
        ("count of everyone >= 4 at 5 s", '+', "4 alive at 5 s"),
        ("count of everyone <= 3 during 0 s to 10 s", '-', "first fails at 0 s: 4 alive"),
        ("count of b <= 0 for at least 50% of 0 s to 10 s", '-', "0 of 11 frame(s)"),
    ]);
}

/// Agents 0 and 1 are 1 m apart, and agent 3 stands 1 m from agent 0 at
/// 0 s: every agent of `a` has its nearest 1 m away. At 1 s agent 3 is left
/// behind (1.887 m from agent 0); at 3 s agents 0 and 1 are 0.3 m apart.
#[test]
fn nearest_distance() {
    check(&[
        ("nearest distance of a <= 1 m at 0 s", '+', "mean nearest distance 1 m over 3 agent(s) at 0 s (frame 0)"),
        ("nearest distance of a >= 1.5 m at 0 s", '-', "mean nearest distance 1 m over 3 agent(s)"),
        ("nearest distance of a <= 1 m during 0 s to 10 s", '-', "first fails at 1 s: mean nearest distance 1.29"),
        ("nearest distance of a >= 1.8 m at 3 s", '+', "mean nearest distance 1.83"),
        ("nearest distance of a >= 1 m for at least 100% of 0 s to 10 s", '+', "11 of 11 frame(s)"),
        // Agent 2, of `b`, is the nearest of agent 3 from 2 s on (3.162 m).
        (
            "nearest distance of everyone <= 2 m during 0 s to 2 s",
            '-',
            "first fails at 2 s: mean nearest distance 2.08",
        ),
        ("nearest distance of b >= 0 m at 0 s", '-', "1 such agent(s) at 0 s, fewer than two"),
    ]);
}

/// Agents 0 and 1 walk at 1.6 m/s and agent 3 stands: `a`'s mean speed is
/// 1.0667 m/s in every frame. Agent 2 (of `b`) jitters 0.2 m between frames
/// but its recorded velocity is 0.
#[test]
fn mean_speed() {
    check(&[
        ("mean speed of a <= 1.1 m/s during 0 s to 10 s", '+', "held in all 11 frame(s)"),
        ("mean speed of a >= 1.1 m/s at 5 s", '-', "mean speed 1.06667 m/s over 3 agent(s) at 5 s (frame 5)"),
        ("mean speed of everyone <= 0.5 m/s for at least 10% of 0 s to 10 s", '-', "0 of 11 frame(s)"),
        ("mean speed of everyone >= 0.8 m/s at 0 s", '+', "mean speed 0.8 m/s over 4 agent(s)"),
        ("mean speed of b <= 0 m/s during 0 s to 10 s", '+', "held in all 11 frame(s)"),
    ]);
}

#[test]
fn coverage() {
    check(&[
        ("everyone covers pad within 5 m at 0 s", '+', "256 point(s) sampled every 0.25 m"),
        ("a covers pad within 3 m at 0 s", '-', "worst covered: (0.125 m, 0.125 m), 4.30479 m"),
        ("a covers pad within 4 m during 0 s to 1 s", '-', "first fails at 0 s: 256 point(s)"),
    ]);
}

const GROUPS: &str = "
scenario groups { seed 1; duration 10 s; step 1/2 s; record every 2 steps }
world { bounds (0 m, 0 m) to (30 m, 20 m) }
group trio { agents 3 at (2 m, 10 m); formation side_by_side; goal (25 m, 10 m); behaviour go }
group pair { agents 2 at (2 m, 4 m); goal (25 m, 4 m); behaviour go }
group free { agents 2 at (2 m, 16 m); formation auto; goal (25 m, 16 m); behaviour go }
behaviour go { seek goal }
";

/// Frames 0 to 10, one a second. Group `trio` (group 0: agents 0, 1, 2)
/// stands side by side, 0.8 m apart across its way, at 0 s; walks east at
/// 1 m/s side by side from 1 to 4 s and at 7 s; in single file 1.2 m apart
/// at 5 and 6 s (formation error 0.96 m, spread 1.2 m); stands (0.05 m/s) at
/// 8 s; from 9 s only agent 0 is left. Group `pair` (group 1: agents 3, 4)
/// walks east 1 m apart until 4 s, 4 m apart from 5 s. Group `free` never
/// appears.
fn group_trace() -> String {
    let mut s = String::from("id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n");
    for k in 0..=10 {
        let x = 2.0 + f64::from(k);
        let v = match k {
            0 => 0.0,
            8 => 0.05,
            _ => 1.0,
        };
        let trio: Vec<(f64, f64)> = if (5..=6).contains(&k) {
            vec![(x + 1.2, 10.0), (x, 10.0), (x - 1.2, 10.0)]
        } else {
            vec![(x, 9.2), (x, 10.0), (x, 10.8)]
        };
        let alive = if k >= 9 { 1 } else { 3 };
        for (id, (px, py)) in trio.iter().enumerate().take(alive) {
            s.push_str(&format!("{id},{k},{k},{px},{py},{v},0,1,0,trio,0,go\n"));
        }
        let half = if k >= 5 { 2.0 } else { 0.5 };
        s.push_str(&format!("3,{k},{k},{},4,1,0,1,0,pair,1,go\n", x + half));
        s.push_str(&format!("4,{k},{k},{},4,1,0,1,0,pair,1,go\n", x - half));
    }
    s
}

#[test]
fn formation_error_of_a_group() {
    check_over(
        GROUPS,
        &group_trace(),
        &[
            ("formation error of trio <= 0.1 m at 3 s", '+', "m at 3 s (3 members walking at 1 m/s)"),
            ("formation error of trio <= 0.3 m at 5 s", '-', "formation error 0.96"),
            ("formation error of trio >= 0.8 m at 6 s", '+', "formation error 0.96"),
            ("formation error of trio >= 0.8 m at 4 s", '-', "m at 4 s (3 members walking at 1 m/s)"),
            // No walking direction, no formation error: `at T` names the nearest measured frames.
            (
                "formation error of trio <= 0.3 m at 0 s",
                '-',
                "group trio is not walking at 0 s (mean velocity 0 m/s, at most 0.1 m/s); \
                 the nearest frame with a measurement is at 1 s",
            ),
            ("formation error of trio <= 0.3 m at 8 s", '-', "the nearest frame with a measurement is at 7 s"),
            ("formation error of trio >= 0 m at 10 s", '-', "only agent 0 of group trio is alive at 10 s"),
            (
                "formation error of trio <= 0.3 m during 0 s to 4 s",
                '+',
                "held in all 4 frame(s) from 0 s to 4 s; 1 frame(s) without a measurement not counted \
                 (first: no formation error: group trio is not walking at 0 s",
            ),
            ("formation error of trio <= 0.3 m during 0 s to 10 s", '-', "first fails at 5 s: formation error 0.96"),
            ("formation error of trio >= 0.8 m during 5 s to 6 s", '+', "held in all 2 frame(s)"),
            ("formation error of trio >= 0.8 m during 4 s to 6 s", '-', "first fails at 4 s"),
            (
                "formation error of trio <= 0.3 m during 8 s to 10 s",
                '-',
                "none of the 3 frame(s) from 8 s to 10 s has a measurement (first: no formation error: \
                 group trio is not walking at 8 s (mean velocity 0.05",
            ),
            (
                "formation error of trio <= 0.3 m for at least 70% of 0 s to 10 s",
                '+',
                "held in 5 of 7 frame(s) from 0 s to 10 s: 71.4%, 70% needed; 4 frame(s) without a measurement",
            ),
            (
                "formation error of trio <= 0.3 m for at least 80% of 0 s to 10 s",
                '-',
                "71.4%, 80% needed; 4 frame(s) without a measurement not counted",
            ),
            ("formation error of trio <= 0.3 m for at least 80% of 0 s to 10 s", '-', "first failure at 5 s"),
            ("formation error of trio >= 0.8 m for at least 25% of 0 s to 10 s", '+', "held in 2 of 7 frame(s)"),
            ("formation error of trio >= 0.8 m for at least 50% of 0 s to 10 s", '-', "first failure at 1 s"),
            ("formation error of free <= 0.3 m during 0 s to 10 s", '-', "the trace has none"),
        ],
    );
}

#[test]
fn spread_of_a_group() {
    check_over(
        GROUPS,
        &group_trace(),
        &[
            ("spread of trio <= 1 m at 2 s", '+', "spread 0.8"),
            ("spread of trio <= 1 m at 5 s", '-', "spread 1.2"),
            ("spread of trio >= 1 m at 6 s", '+', "farthest from the centroid of 3 members"),
            ("spread of trio >= 1 m at 4 s", '-', "spread 0.8"),
            // Standing still does not matter to a spread: frames 0 and 8 count.
            ("spread of trio <= 1 m at 0 s", '+', "spread 0.8"),
            (
                "spread of trio <= 1 m during 7 s to 10 s",
                '+',
                "held in all 2 frame(s) from 7 s to 10 s; 2 frame(s) without a measurement not counted \
                 (first: no spread: only agent 0 of group trio is alive at 9 s)",
            ),
            ("spread of trio <= 1 m during 0 s to 10 s", '-', "first fails at 5 s: spread 1.2"),
            ("spread of trio >= 1 m during 5 s to 6 s", '+', "held in all 2 frame(s)"),
            (
                "spread of trio <= 1 m at 9 s",
                '-',
                "no spread: only agent 0 of group trio is alive at 9 s; the nearest frame with a measurement is at 8 s",
            ),
            ("spread of pair <= 0.5 m during 0 s to 4 s", '+', "spread 0.5 m at 4 s (agent 3 farthest"),
            ("spread of pair >= 2 m for at least 50% of 0 s to 10 s", '+', "held in 6 of 11 frame(s)"),
            (
                "spread of pair >= 2 m for at least 60% of 0 s to 10 s",
                '-',
                "54.5%, 60% needed; first failure at 0 s: spread 0.5 m",
            ),
            (
                "spread of free <= 1 m during 0 s to 10 s",
                '-',
                "none of the 11 frame(s) from 0 s to 10 s has a measurement \
                 (first: no spread: no member of group free is alive at 0 s)",
            ),
            ("spread of free <= 1 m at 3 s", '-', "no frame of the run has a measurement"),
        ],
    );
}

const LED: &str = "
scenario led { seed 1; duration 10 s; step 1/2 s; record every 2 steps }
world {
  bounds (0 m, 0 m) to (30 m, 20 m)
  region pen circle (10 m, 10 m) radius 1 m
  region exit_area rect (20 m, 0 m) to (30 m, 20 m)
}
agent warden at (10 m, 10 m) { behaviour stay }
group crowd { followers 3 around warden within 2 m; behaviour stay }
agent guide at (5 m, 5 m) { behaviour stay }
agent visitor_a at (5 m, 8 m) { behaviour stay }
agent visitor_b at (5 m, 2 m) { behaviour stay }
group tour { leader guide; members visitor_a, visitor_b }
behaviour stay { dwell 10 s }
";

/// Frames 0 to 10, one a second. The warden (agent 0) stands at (10, 10) in
/// the pen; his three followers (agents 1 to 3, of `crowd`) stand 1 m apart
/// in a column at x = 12 at 0 s and walk east at 1 m/s, so the closest is 2 m
/// plus a metre a second from him, and all are in the exit area from 9 s.
/// The guide (agent 4) of `tour` stands at (5, 5), its two visitors (agents
/// 5 and 6) 3 m north and south of him.
fn led_trace() -> String {
    let mut s = String::from("id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n");
    for k in 0..=10 {
        s.push_str(&format!("0,{k},{k},10,10,0,0,1,0,warden,,stay\n"));
        for (id, y) in [(1, 9), (2, 10), (3, 11)] {
            s.push_str(&format!("{id},{k},{k},{},{y},1,0,1,0,crowd,,stay\n", 12 + k));
        }
        for (id, pop, y) in [(4, "guide", 5), (5, "visitor_a", 8), (6, "visitor_b", 2)] {
            s.push_str(&format!("{id},{k},{k},5,{y},0,0,1,0,{pop},,stay\n"));
        }
    }
    s
}

/// A group stands for its leader too, so a claim about how far it keeps
/// from him cannot hold; `followers of` leaves him out.
#[test]
fn the_followers_of_a_group_leave_its_leader_out() {
    check_over(
        LED,
        &led_trace(),
        &[
            ("crowd farther than 6 m from warden at 5 s", '-', "closest 0 m at 5 s"),
            ("followers of crowd farther than 6 m from warden at 5 s", '+', "closest 7 m at 5 s"),
            ("followers of crowd farther than 6 m from warden at 3 s", '-', "closest 5 m at 3 s"),
            ("warden farther than 6 m from followers of crowd during 5 s to 10 s", '+', "held in all 6 frame(s)"),
            ("warden farther than 6 m from crowd during 5 s to 10 s", '-', "first fails at 5 s: closest 0 m"),
            ("count of followers of crowd is 3 at 0 s", '+', "3 alive at 0 s"),
            ("count of crowd is 4 at 0 s", '+', "4 alive at 0 s"),
            ("at least 100% of followers of crowd inside exit_area at 9 s", '+', "3 of 3 inside at 9 s"),
            ("at least 100% of crowd inside exit_area at 9 s", '-', "3 of 4 inside at 9 s"),
            ("at most 0 of followers of crowd inside pen during 0 s to 10 s", '+', "0 of 3 inside"),
            ("at most 0 of crowd inside pen at 0 s", '-', "1 of 4 inside at 0 s"),
            ("followers of crowd within 1 m of followers of crowd at 2 s", '+', "1 m from the nearest at 2 s"),
            ("crowd within 1 m of crowd at 2 s", '-', "farthest: agent 0, 4 m from the nearest at 2 s"),
            ("min distance among followers of crowd >= 1 m", '+', "closest: 1 m"),
            // Declared members and a `leader` statement: the same.
            ("followers of tour farther than 2 m from guide at 0 s", '+', "closest 3 m at 0 s"),
            ("tour farther than 2 m from guide at 0 s", '-', "closest 0 m at 0 s"),
            ("followers of tour within 3 m of guide at 0 s", '+', "farthest: agent 5, 3 m"),
            ("count of followers of tour is 2 at 0 s", '+', "2 alive at 0 s"),
        ],
    );
}
