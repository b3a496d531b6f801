//! `crowd check` and `crowd ir` as a user runs them: exit codes, the JSON
//! diagnostic format, and the stability of the IR text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn crowd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crowd")).args(args).output().expect("the crowd binary runs")
}

fn fixture(path: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    assert!(p.exists(), "{} is missing", p.display());
    p.to_string_lossy().into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("the process exited normally, not on a signal")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const VALID: &str = "ok/sc_fig02_around_the_wall.crowd";
const WARNING_ONLY: &str = "invalid/w001_unused_behaviour.crowd";
const ONE_ERROR: &str = "invalid/e010_unknown_region.crowd";
const SEVERAL_ERRORS: &str = "invalid/e020_several_errors_in_one_file.crowd";

#[test]
fn a_valid_file_exits_0() {
    let out = crowd(&["check", &fixture(VALID)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("ok"), "{}", stderr(&out));
}

#[test]
fn warnings_alone_exit_0() {
    let out = crowd(&["check", &fixture(WARNING_ONLY)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("W001"), "{}", stderr(&out));
}

#[test]
fn errors_exit_1_and_are_all_printed() {
    let out = crowd(&["check", &fixture(SEVERAL_ERRORS)]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    for c in ["E020", "E042", "E021", "E031", "E030", "E010"] {
        assert!(err.contains(c), "{c} missing from:\n{err}");
    }
    assert!(err.contains("6 errors, 0 warnings"), "{err}");
}

#[test]
fn the_worst_file_decides_the_exit_code() {
    let out = crowd(&["check", &fixture(VALID), &fixture(ONE_ERROR), &fixture(WARNING_ONLY)]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let out = crowd(&["check", &fixture(VALID), "/no/such/file.crowd", &fixture(ONE_ERROR)]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn a_missing_file_exits_2() {
    let out = crowd(&["check", "/no/such/file.crowd"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("/no/such/file.crowd"), "{}", stderr(&out));
    let out = crowd(&["ir", "/no/such/file.crowd"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn bad_usage_exits_2() {
    for args in [&["check"][..], &["check", "--format", "xml", "x.crowd"], &["frobnicate"], &[]] {
        let out = crowd(args);
        assert_eq!(code(&out), 2, "crowd {args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_file_that_is_not_utf8_is_refused_without_a_panic() {
    let dir = std::env::temp_dir().join(format!("crowd-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.crowd");
    std::fs::write(&path, b"// caf\xe9\nscenario s { seed 1 }\n").unwrap();
    let out = crowd(&["check", &path.to_string_lossy()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("UTF-8"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone())
        .expect("UTF-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {l}")))
        .collect()
}

#[test]
fn json_prints_one_object_per_diagnostic() {
    let path = fixture(SEVERAL_ERRORS);
    let out = crowd(&["check", "--format", "json", &path]);
    assert_eq!(code(&out), 1);
    let text = std::fs::read_to_string(&path).unwrap();
    let diags = json_lines(&out);
    assert_eq!(diags.len(), 6, "{diags:#?}");
    for d in &diags {
        assert_eq!(d["file"], path.as_str());
        assert!(d["code"].as_str().is_some_and(|c| c.len() == 4 && c.starts_with('E')), "{d}");
        assert_eq!(d["severity"], "error");
        assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{d}");
        assert!(d["help"].as_str().is_some_and(|h| !h.is_empty()), "{d}");
        let start = d["span"]["start"].as_u64().expect("span.start") as usize;
        let end = d["span"]["end"].as_u64().expect("span.end") as usize;
        assert!(start <= end && end <= text.len(), "{d}");
        // line and column (1-based, in characters) agree with the span.
        let line = d["line"].as_u64().expect("line") as usize;
        let column = d["column"].as_u64().expect("column") as usize;
        let before = &text[..start];
        assert_eq!(line, before.matches('\n').count() + 1, "{d}");
        assert_eq!(column, before.rsplit('\n').next().unwrap().chars().count() + 1, "{d}");
    }
    // The unknown name points at the misspelled word and suggests the right one.
    let unknown = diags.iter().find(|d| d["code"] == "E010").expect("an E010");
    let (s, e) =
        (unknown["span"]["start"].as_u64().unwrap() as usize, unknown["span"]["end"].as_u64().unwrap() as usize);
    assert_eq!(&text[s..e], "visitor");
    assert_eq!(unknown["help"], "did you mean `visitors`?");
    // Nothing human-readable goes to stdout in JSON mode.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("-----"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn json_reports_warnings_with_their_severity() {
    let out = crowd(&["check", "--format", "json", &fixture(WARNING_ONLY)]);
    assert_eq!(code(&out), 0);
    let diags = json_lines(&out);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["code"], "W001");
    assert_eq!(diags[0]["severity"], "warning");
    let out = crowd(&["check", "--format", "json", &fixture(VALID)]);
    assert_eq!(code(&out), 0);
    assert!(json_lines(&out).is_empty());
}

#[test]
fn json_columns_count_characters_not_bytes() {
    let path = fixture("invalid/e030_view_cone_after_unicode.crowd");
    let out = crowd(&["check", "--format", "json", &path]);
    let diags = json_lines(&out);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().nth(diags[0]["line"].as_u64().unwrap() as usize - 1).unwrap();
    let column = diags[0]["column"].as_u64().unwrap() as usize;
    let at: String = line.chars().skip(column - 1).take(4).collect();
    assert_eq!(at, "400°");
}

#[test]
fn ir_text_is_stable() {
    let path = fixture(VALID);
    let first = crowd(&["ir", &path]);
    let second = crowd(&["ir", &path]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert!(!first.stdout.is_empty());
    assert_eq!(first.stdout, second.stdout);
    let text = String::from_utf8(first.stdout).unwrap();
    assert!(text.starts_with("scenario: \"around_the_wall\"\n"), "{text}");
    assert!(text.contains("\nparam.space_colonization.alpha: 2 m\n"), "{text}");
}

#[test]
fn ir_of_an_invalid_file_exits_1_with_its_diagnostics() {
    let out = crowd(&["ir", &fixture(ONE_ERROR)]);
    assert_eq!(code(&out), 1);
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("E010"), "{}", stderr(&out));
}

#[test]
fn a_diagnostic_further_right_than_a_snippet_can_be_drawn_is_reported_without_one() {
    let dir = std::env::temp_dir().join(format!("crowd-cli-check-far-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pad = " ".repeat(65_540);
    // An error at column 65,541 of line 2.
    let broken = dir.join("far.crowd");
    std::fs::write(&broken, format!("scenario a {{ seed 1; duration 1 s; step 1 s }}\n{pad}@\n")).unwrap();
    for command in ["check", "ir", "run"] {
        let out = crowd(&[command, &broken.to_string_lossy()]);
        assert_eq!(code(&out), 1, "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains("line 2, column 65541"), "{command}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{command}: {}", stderr(&out));
    }
    // A valid scenario whose only warning lies that far right still runs and writes its trace.
    let valid = std::fs::read_to_string(fixture(VALID)).unwrap();
    let warned = dir.join("warned.crowd");
    std::fs::write(&warned, format!("{valid}\n{pad}behaviour never_used {{ dwell 1 s }}\n")).unwrap();
    let trace = dir.join("t.csv");
    let out = crowd(&["run", &warned.to_string_lossy(), "--out", &trace.to_string_lossy()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("the line is too long to show"), "{}", stderr(&out));
    assert!(trace.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_byte_order_mark_and_lone_cr_line_endings_are_read_as_any_editor_writes_them() {
    let dir = std::env::temp_dir().join(format!("crowd-cli-check-endings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let valid = std::fs::read_to_string(fixture(VALID)).unwrap();
    assert!(valid.starts_with("//"), "the fixture opens with a comment, the case that failed");
    let bom = dir.join("bom.crowd");
    std::fs::write(&bom, format!("\u{FEFF}{valid}")).unwrap();
    let cr = dir.join("cr.crowd");
    std::fs::write(&cr, valid.replace('\n', "\r")).unwrap();
    for path in [&bom, &cr] {
        let out = crowd(&["check", &path.to_string_lossy()]);
        assert_eq!(code(&out), 0, "{}: {}", path.display(), stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_with_a_hundred_thousand_mistakes_is_reported_at_once_and_briefly() {
    let dir = std::env::temp_dir().join(format!("crowd-cli-check-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text =
        String::from("scenario a { seed 1; duration 1 s; step 1 s }\nworld { bounds (0 m, 0 m) to (10 m, 10 m) }\n");
    for k in 0..50_000 {
        text.push_str(&format!("population p{k} {{ count 1; spawn in nowhere{k}; behaviour b }}\n"));
    }
    let path = dir.join("many.crowd");
    std::fs::write(&path, text).unwrap();
    let began = std::time::Instant::now();
    let out = crowd(&["check", &path.to_string_lossy()]);
    // Looking each unknown name up among every declared name made this quadratic (25 s in a release build).
    assert!(began.elapsed().as_secs() < 20, "{:?}", began.elapsed());
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.contains("and 99800 more diagnostic(s) not shown"), "{}", &err[err.len().saturating_sub(400)..]);
    assert!(err.contains("100000 errors"), "{}", &err[err.len().saturating_sub(400)..]);
    assert!(err.lines().count() < 5_000, "{} lines", err.lines().count());
    let json = crowd(&["check", "--format", "json", &path.to_string_lossy()]);
    let listed = String::from_utf8_lossy(&json.stdout).lines().count() + stderr(&json).lines().count();
    assert!(listed >= 100_000, "{listed} lines of JSON");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(unix)]
fn an_endless_input_is_refused_at_the_size_limit_which_a_flag_raises() {
    let out = crowd(&["check", "/dev/zero"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("larger than 64 MB"), "{}", stderr(&out));
    let valid = fixture(VALID);
    let out = crowd(&["--max-input-mb", "0", "check", &valid]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-input-mb"), "{}", stderr(&out));
    assert_eq!(code(&crowd(&["check", "--max-input-mb", "1", &valid])), 0);
}

#[test]
fn a_trace_of_a_hundred_gigabytes_is_refused_before_the_run_unless_the_limit_is_raised() {
    let huge = fixture("invalid/w002_a_trace_of_a_hundred_gigabytes.crowd");
    let began = std::time::Instant::now();
    let out = crowd(&["run", &huge, "--out", "-"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("about 100 GB") && stderr(&out).contains("--max-trace-gb 16"), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "nothing was written");
    assert!(began.elapsed().as_secs() < 5, "{:?}", began.elapsed());
    // A batch refuses it too, before it makes its folder.
    let dir = std::env::temp_dir().join(format!("crowd-huge-batch-{}", std::process::id()));
    let out = crowd(&["batch", &huge, "--seeds", "1..2", "--out", dir.to_str().expect("a UTF-8 path")]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("about 100 GB") && stderr(&out).contains("--max-trace-gb 16"), "{}", stderr(&out));
    assert!(!dir.exists(), "no folder was made");
    // `check` warns with the same figure.
    let out = crowd(&["check", &huge]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("W002") && stderr(&out).contains("about 100 GB"), "{}", stderr(&out));
}

#[test]
fn an_astar_grid_of_4096_squared_for_2000_agents_is_refused_before_the_run_unless_the_limit_is_raised() {
    let huge = fixture("invalid/w005_an_astar_grid_of_4096_squared_for_2000_agents.crowd");
    let began = std::time::Instant::now();
    let out = crowd(&["run", &huge, "--out", "-"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3.4e10 grid cells a step") && stderr(&out).contains("--max-plan-cells 1e9"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty(), "nothing was written");
    let dir = std::env::temp_dir().join(format!("crowd-huge-grid-batch-{}", std::process::id()));
    let out = crowd(&["batch", &huge, "--seeds", "1..2", "--out", dir.to_str().expect("a UTF-8 path")]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-plan-cells"), "{}", stderr(&out));
    assert!(!dir.exists(), "no folder was made");
    assert!(began.elapsed().as_secs() < 5, "{:?}", began.elapsed());
    // Raised, the limit lets the same scenario through the check (its run is cut to nothing here).
    let out = crowd(&["run", &huge, "--max-plan-cells", "1e11", "--max-trace-gb", "0", "--out", "-"]);
    assert!(
        stderr(&out).contains("--max-trace-gb 0") && !stderr(&out).contains("more than --max-plan-cells"),
        "{}",
        stderr(&out)
    );
}

/// The closest pair of bodies at 0 s in a trace written to stdout.
fn closest_at_start(trace: &[u8]) -> f64 {
    let table = crowd::trace::read::Table::parse(trace).expect("the trace reads");
    let column = |name: &str| table.column(name).unwrap_or_else(|| panic!("no column {name}"));
    let (frame, x, y) = (column("frame"), column("x"), column("y"));
    let pos: Vec<(f64, f64)> = table
        .rows
        .iter()
        .filter(|r| r[frame] == "0")
        .map(|r| (r[x].parse().expect("x"), r[y].parse().expect("y")))
        .collect();
    let mut closest = f64::INFINITY;
    for (k, a) in pos.iter().enumerate() {
        for b in &pos[k + 1..] {
            let (dx, dy) = (a.0 - b.0, a.1 - b.1);
            closest = closest.min((dx * dx + dy * dy).sqrt());
        }
    }
    closest
}

#[test]
fn the_crowded_spawn_warning_is_given_where_bodies_would_appear_overlapping() {
    // Bodies 0.5 m apart in 100 m²: 250 cover 49% (placed apart), 300 cover 59%.
    let dir = std::env::temp_dir().join(format!("crowd-crowded-spawn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    for (count, warned) in [(250, false), (300, true)] {
        let path = dir.join(format!("pen_{count}.crowd"));
        let text = format!(
            "scenario pen {{ seed 1; duration 1 s; step 1/4 s }}\n\
             world {{ bounds (0 m, 0 m) to (20 m, 20 m)\n  region pen rect (5 m, 5 m) to (15 m, 15 m) }}\n\
             population p {{ count {count}; spawn in pen; goal (19 m, 19 m); behaviour go }}\n\
             behaviour go {{ seek goal }}\n"
        );
        std::fs::write(&path, text).expect("the scenario is written");
        let path = path.to_str().expect("a UTF-8 path");
        let out = crowd(&["check", path]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(stderr(&out).contains("W006"), warned, "{count}: {}", stderr(&out));
        for seed in ["1", "2", "3"] {
            let out = crowd(&["run", path, "--seed", seed, "--out", "-"]);
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let closest = closest_at_start(&out.stdout);
            assert_eq!(closest < 0.5 - 1e-9, warned, "{count} at seed {seed}: closest {closest} m at 0 s");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
