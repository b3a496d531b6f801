//! Arbitrary traces never make the reader, the metrics or the pictures panic:
//! they are measured and drawn, or refused with a message.

use proptest::prelude::*;

use crowd::render::{svg, view};
use crowd::trace::measure::{measure, Options, Trace};

const SCENARIO: &str = "scenario fuzz { seed 1; duration 10 s; step 1/10 s; record every 10 steps }
world { bounds (0 m, 0 m) to (20 m, 10 m) obstacle post circle (10 m, 5 m) radius 1 m region goal rect (18 m, 1 m) to (19 m, 9 m) }
population a { count 3; spawn at (1 m, 5 m); speed 1 m/s; goal region goal; behaviour go }
population b { count 3; spawn at (2 m, 5 m); speed 1 m/s; goal (15 m, 5 m); behaviour go }
behaviour go { seek goal using straight }
";

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        (-5i32..30).prop_map(|v| v.to_string()),
        (-5.0f64..30.0).prop_map(|v| v.to_string()),
        Just(String::new()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("a".to_string()),
        Just("b".to_string()),
        Just("(3 4)".to_string()),
        Just("goal".to_string()),
        Just("1e400".to_string()),
    ]
}

fn trace_text() -> impl Strategy<Value = String> {
    let header = prop_oneof![
        Just("id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,goal,radius"),
        Just("id,frame,t,x,y"),
        Just("id,frame,t,x,y,population,group"),
        Just("frame,id,x,y,t,radius"),
        Just("id,t,x,y"),
    ];
    let row = (0u32..6, 0u32..8, prop::collection::vec(cell(), 12));
    (header, prop::collection::vec(row, 0..40)).prop_map(|(h, mut rows)| {
        // Mostly well ordered, so that measuring is reached, with noise in the cells.
        rows.sort_by_key(|r| (r.1, r.0));
        let columns: Vec<&str> = h.split(',').collect();
        let mut text = format!("{h}\n");
        for (id, frame, cells) in rows {
            let mut fields = Vec::new();
            for (k, c) in columns.iter().enumerate() {
                fields.push(match *c {
                    "id" => id.to_string(),
                    "frame" => frame.to_string(),
                    "t" => frame.to_string(),
                    _ => cells[k % cells.len()].clone(),
                });
            }
            text.push_str(&fields.join(","));
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_traces_are_measured_or_refused(text in trace_text()) {
        let file = crowd::SourceFile::new("fuzz.crowd", SCENARIO);
        let program = crowd::compile(&file).expect("the scenario compiles").program;
        if let Ok(trace) = Trace::parse(text.as_bytes()) {
            let area = Some(crowd::ir::Rect { min: crowd::ir::Vec2::new(0.0, 0.0), max: crowd::ir::Vec2::new(10.0, 10.0) });
            let _ = measure(&trace, None, &Options { area, speed_step: 1, goal_reach: None });
            let _ = measure(&trace, Some(&program), &Options::default());
            if crowd::trace::measure::report::check_against(&trace, &program).is_ok() {
                let _ = svg::render(&program, &trace, &svg::Options::default());
                let _ = svg::render(&program, &trace, &svg::Options { frame: Some(0), colour: crowd::render::ColourBy::State, ..svg::Options::default() });
                let _ = view::html(&program, &trace, &view::Options::default());
            }
        }
        prop_assert!(true);
    }
}
