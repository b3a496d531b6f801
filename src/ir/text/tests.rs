use std::path::{Path, PathBuf};

use super::agents::dist;
use super::*;
use crate::ir::Dist;
use crate::test_files::crowd_files;

fn program(source: &str) -> Program {
    let file = crate::SourceFile::new("test.crowd", source);
    match crate::compile(&file) {
        Ok(compiled) => compiled.program,
        Err(diags) => panic!("{}", crate::diag::render_all(&diags, &file, true)),
    }
}

fn ir(source: &str) -> String {
    to_text(&program(source))
}

fn lines_of<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn a_quantity_written_in_a_smaller_unit_prints_as_short_as_it_was_written() {
    let text = ir("scenario s { seed 1; duration 10 s; step 1/10 s }\n\
         world { bounds (0 m, 0 m) to (10 m, 10 m) }\n\
         population p { count 4; spawn at (1 m, 1 m); radius 35 cm; speed 70 cm/s; groups 1: 35%, 2: 65%; behaviour b }\n\
         behaviour b { wander }");
    assert!(text.contains("\npopulation[0].radius: 0.35 m\n"), "{text}");
    assert!(text.contains("\npopulation[0].speed: 0.7 m/s\n"), "{text}");
    assert!(text.contains("\npopulation[0].group_sizes: 1: 0.35, 2: 0.65\n"), "{text}");
    assert!(text.contains("\nscenario.step: 0.1 s\n"), "{text}");
}

#[test]
fn numbers_are_the_shortest_decimal_that_reads_back_to_the_same_double() {
    let cases = [
        (0.35, "0.35"),
        (35.0 / 100.0, "0.35"),
        (35.0 * 0.01, "0.35000000000000003"),
        (1.0 / 24.0, "0.041666666666666664"),
        (10.0, "10"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (-0.0, "-0"),
        (1e-6, "0.000001"),
        (1e21, "1000000000000000000000"),
    ];
    for (x, text) in cases {
        assert_eq!(number(x), text);
    }
    let more = [
        std::f64::consts::PI,
        1.5 * std::f64::consts::PI,
        0.1 + 0.2,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        123_456_789.123_456_78,
        4.7 / 3.6,
        1e-300,
        9_007_199_254_740_993.0,
    ];
    for x in cases.iter().map(|c| c.0).chain(more) {
        let text = number(x);
        assert!(!text.contains(['e', 'E']), "{x:e} prints {text}");
        let back: f64 = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.to_bits(), x.to_bits(), "{x:e} prints {text}");
    }
    assert_eq!([number(f64::INFINITY), number(f64::NEG_INFINITY), number(f64::NAN)], ["inf", "-inf", "nan"]);
}

#[test]
fn shapes_and_distributions_read_as_documented() {
    let v = Vec2::new;
    assert_eq!(shape(&Shape::Rect(Rect { min: v(0.0, 0.5), max: v(10.0, 5.25) })), "rect (0, 0.5) to (10, 5.25) m");
    assert_eq!(shape(&Shape::Circle { center: v(3.0, 4.0), radius: 2.0 }), "circle (3, 4) radius 2 m");
    assert_eq!(
        shape(&Shape::Polygon(vec![v(0.0, 0.0), v(4.0, 0.0), v(2.0, 3.0)])),
        "polygon [(0, 0), (4, 0), (2, 3)] m"
    );
    assert_eq!(
        shape(&Shape::Polyline { points: vec![v(0.0, 0.0), v(4.0, 0.0)], width: 1.5 }),
        "polyline [(0, 0), (4, 0)] width 1.5 m"
    );
    assert_eq!(shape(&Shape::Segment { a: v(0.0, 5.0), b: v(0.0, 7.0) }), "segment (0, 5) to (0, 7) m");
    assert_eq!(dist(&Dist::Constant(0.25), M), "0.25 m");
    assert_eq!(dist(&Dist::Uniform { min: 10.0, max: 40.0 }, S), "uniform(10 s, 40 s)");
    assert_eq!(
        dist(&Dist::Normal { mean: 1.3, sd: 0.15, min: 0.0, max: 15.0 }, M_S),
        "normal(1.3 m/s, 0.15 m/s) truncated to [0 m/s, 15 m/s]"
    );
    assert_eq!(dist(&Dist::Choice(vec![(1.0, 0.4), (1.5, 0.6)]), M_S), "choice(1 m/s: 0.4, 1.5 m/s: 0.6)");
    assert_eq!(quoted("a \"b\"\\\n\u{7}"), r#""a \"b\"\\\n\u{7}""#);
}

#[test]
fn references_name_the_path_and_the_name_of_what_they_refer_to() {
    let text = ir("scenario s { seed 1; duration 10 s; step 1/10 s }\n\
         world { bounds (0 m, 0 m) to (20 m, 10 m); region exit rect (18 m, 0 m) to (20 m, 10 m) }\n\
         population wolf { count 1; spawn at (1 m, 1 m); behaviour prowl }\n\
         population sheep { count 3; spawn in exit; behaviour graze }\n\
         behaviour prowl { hunt sheep catch within 50 cm }\n\
         behaviour graze {\n\
           var fear { rise 2 per s when sees wolf within 8 m; decay 30 per min; max 1 }\n\
           state eat { wander; when fear > 0.5 and not sees wolf within 2 m cone 90 deg go run }\n\
           state run { flee wolf; after 5 s go eat }\n\
         }\n\
         output { columns fear }");
    let expected = [
        "population[1].spawn: in world.region[0] \"exit\"",
        "population[1].behaviour: behaviour[1] \"graze\"",
        "behaviour[0].rule[0].action[0]: hunt population[1] \"sheep\" catch within 0.5 m",
        "behaviour[1].var[0].rise[0]: 2 per s when sees population[0] \"wolf\" within 8 m",
        "behaviour[1].var[0].decay: 0.5 per s",
        "behaviour[1].state[0].transition[0]: when behaviour[1].var[0] \"fear\" > 0.5 and not sees \
         population[0] \"wolf\" within 2 m cone 1.5707963267948966 rad go behaviour[1].state[1] \"run\"",
        "behaviour[1].state[1].transition[0]: after 5 s go behaviour[1].state[0] \"eat\"",
        "output.column[0]: var \"fear\"",
        "output.column[0].population[0]: none",
        "output.column[0].population[1]: behaviour[1].var[0] \"fear\"",
    ];
    for line in expected {
        assert!(text.lines().any(|l| l == line), "no line `{line}` in\n{text}");
    }
    assert_eq!(lines_of(&text, "param.").len(), crate::ir::params::PARAMS.len());
    assert!(text.contains("\nparam.ct_space.view_angle: 4.71238898038469 rad\n"), "{text}");
    assert!(text.contains("\nparam.continuum.density_max: 3 per m2\n"), "{text}");
}

#[test]
fn meaning_text_ignores_the_layout_of_expectations_only() {
    let source = |claim: &str| {
        format!(
            "scenario s {{ seed 1; duration 10 s; step 1/10 s }}\n\
             world {{ bounds (0 m, 0 m) to (10 m, 10 m) }}\n\
             population p {{ count 2; spawn at (1 m, 1 m); behaviour b }}\n\
             behaviour b {{ wander }}\n\
             expect {{ {claim} }}"
        )
    };
    let compile = |claim: &str| program(&source(claim));
    let tight = compile("min distance among p >= 0.3 m");
    let loose = compile("min   distance among p >=   0.3 m");
    assert_ne!(to_text(&tight), to_text(&loose));
    assert_eq!(meaning_text(&tight), meaning_text(&loose));
    assert_ne!(meaning_text(&tight), meaning_text(&compile("min distance among p >= 0.4 m")));
}

#[test]
fn no_line_of_a_shipped_or_fixture_program_is_debug_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<PathBuf> =
        [root.join("scenarios"), root.join("tests/fixtures/ok")].iter().flat_map(|d| crowd_files(d)).collect();
    assert!(files.len() >= 80, "only {} files", files.len());
    let mut wrong = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a readable file");
        let file = crate::SourceFile::new(path.display().to_string(), text);
        let Ok(compiled) = crate::compile(&file) else { panic!("{} does not compile", file.name) };
        for line in to_text(&compiled.program).lines() {
            let Some((path, value)) = line.split_once(": ") else {
                wrong.push(format!("{}: {line}", file.name));
                continue;
            };
            let path_ok = !path.is_empty() && path.chars().all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c));
            // An expectation's own line holds its text as written, which is the author's.
            let as_written = path.starts_with("expect[") && !path.contains('.');
            let debug =
                ["{", "}", "DVec2", "Some(", "None", "Id(", ".0,", ".0)", ".0 "].iter().any(|s| value.contains(s))
                    || value.ends_with(".0");
            if !path_ok || (debug && !as_written) {
                wrong.push(format!("{}: {line}", file.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
