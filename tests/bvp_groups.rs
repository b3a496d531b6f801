//! A group map resamples its formation when members leave it (Silveira et
//! al.: "we can easily resample the number of characters in a formation
//! when, for example, one character leaves or joins the group").

use crowd::behave::groups::Layout;
use crowd::ir::{Formation, Vec2};
use crowd::trace::measure::groups::{formation_error, template};
use crowd::SourceFile;

mod scenario_support;
use scenario_support::trace;

/// Six declared agents in a square; two stop walking with the group at 20 s.
const SCENARIO: &str = "
scenario resample { seed 9; duration 50 s; step 1/24 s; record every 4 steps }
world { bounds (0 m, 0 m) to (70 m, 30 m) }
agent a1 at (4 m, 13 m) { speed 1.3 m/s; behaviour march }
agent a2 at (4 m, 15 m) { speed 1.3 m/s; behaviour march }
agent a3 at (4 m, 17 m) { speed 1.3 m/s; behaviour march }
agent a4 at (6 m, 13 m) { speed 1.3 m/s; behaviour march }
agent a5 at (6 m, 15 m) { speed 1.3 m/s; behaviour march_then_stay }
agent a6 at (6 m, 17 m) { speed 1.3 m/s; behaviour march_then_stay }
group squad {
  members a1, a2, a3, a4, a5, a6
  formation square
  group_map 20 x 20 cells of 0.5 m
}
behaviour march { seek (63 m, 15 m) using bvp bias (1, 0) }
behaviour march_then_stay {
  state go { seek (63 m, 15 m) using bvp bias (1, 0); after 20 s go stay }
  state stay { dwell 100 s }
}
";

/// The positions and velocities of agents `ids` in each frame from `t0` to `t1`.
fn frames(csv: &[u8], ids: &[u32], t0: f64, t1: f64) -> Vec<Vec<(Vec2, Vec2)>> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = reader.headers().expect("header").clone();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (id, t, x, y, vx, vy) = (col("id"), col("t"), col("x"), col("y"), col("vx"), col("vy"));
    let mut out: Vec<(f64, Vec<(Vec2, Vec2)>)> = Vec::new();
    for row in reader.records() {
        let row = row.expect("row");
        let num = |k: usize| row[k].parse::<f64>().expect("number");
        let (time, agent) = (num(t), num(id) as u32);
        if time < t0 || time > t1 || !ids.contains(&agent) {
            continue;
        }
        if out.last().is_none_or(|(last, _)| *last != time) {
            out.push((time, Vec::new()));
        }
        out.last_mut().expect("a frame").1.push((Vec2::new(num(x), num(y)), Vec2::new(num(vx), num(vy))));
    }
    out.into_iter().map(|(_, f)| f).collect()
}

#[test]
fn members_left_behind_leave_the_formation_to_the_others() {
    let program = crowd::compile(&SourceFile::new("resample.crowd", SCENARIO.to_string())).expect("compiles").program;
    let bytes = trace(&program);
    let layout = Layout::on_map(program.params.bvp.spacing, program.params.semantic_groups.v_angle);
    // Agent ids follow declaration order: a1..a4 are 0..3.
    let walkers = [0, 1, 2, 3];
    // Kept on their points of a square of six (no resampling), the four fail this.
    let square = template(&Formation::Square, walkers.len(), &layout).expect("a shape");
    let four: Vec<f64> = frames(&bytes, &walkers, 30.0, 45.0)
        .iter()
        .map(|f| {
            let pos: Vec<Vec2> = f.iter().map(|m| m.0).collect();
            let heading = f.iter().map(|m| m.1).sum::<Vec2>();
            formation_error(&pos, heading, &square)
        })
        .collect();
    assert!(four.len() > 50, "frames measured: {}", four.len());
    let held = four.iter().filter(|&&e| e <= 0.375).count() as f64 / four.len() as f64;
    assert!(held >= 0.9, "the four walkers keep a square of four in {:.0}% of the frames", held * 100.0);
}
