//! No input makes the front end panic or hang.
//!
//! Arbitrary bytes, soups of the language's own tokens, and mutations of the
//! valid fixtures go through `crowd::compile`; every outcome must be
//! consistent: an `Err` carries at least one error, an `Ok` none, every span
//! lies on character boundaries inside the text, and the diagnostics render.
//! Pathological inputs (deep nesting, megabytes of brackets) finish quickly.

use std::path::Path;
use std::time::{Duration, Instant};

use crowd::diag::render_all;
use crowd::SourceFile;
use proptest::prelude::*;

/// Compiles `text` and checks that the outcome is consistent.
fn check(text: &str) {
    let file = SourceFile::new("fuzz.crowd", text);
    let diags = match crowd::compile(&file) {
        Ok(compiled) => {
            assert!(compiled.warnings.iter().all(|d| !d.is_error()), "an Ok with errors: {:#?}", compiled.warnings);
            compiled.warnings
        }
        Err(diags) => {
            assert!(diags.iter().any(|d| d.is_error()), "an Err without an error for:\n{text}\n{diags:#?}");
            diags
        }
    };
    for d in &diags {
        let s = &d.span;
        assert!(s.start <= s.end && s.end <= text.len(), "span {s:?} outside the text ({}): {d:#?}", text.len());
        assert!(
            text.is_char_boundary(s.start) && text.is_char_boundary(s.end),
            "span {s:?} splits a character: {d:#?}"
        );
        for (r, _) in &d.related {
            assert!(
                r.start <= r.end
                    && r.end <= text.len()
                    && text.is_char_boundary(r.start)
                    && text.is_char_boundary(r.end)
            );
        }
        assert!(!d.message.is_empty() && !d.help.is_empty(), "{d:#?}");
    }
    // Rendering is part of what `crowd check` does with any input.
    if diags.len() <= 20 {
        let _ = render_all(&diags, &file, true);
    }
}

fn valid_fixtures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ok");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/ok exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "crowd"))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths.iter().map(|p| std::fs::read_to_string(p).expect("a readable fixture")).collect();
    assert!(!texts.is_empty(), "no valid fixtures in {}", dir.display());
    texts
}

/// Words, numbers, units and punctuation of the language, and some trouble.
const TOKENS: &[&str] = &[
    "scenario",
    "world",
    "space",
    "population",
    "agent",
    "group",
    "behaviour",
    "parameters",
    "expect",
    "output",
    "seed",
    "duration",
    "step",
    "record every 2 steps",
    "bounds",
    "obstacle",
    "region",
    "markers",
    "shape",
    "mask",
    "rect",
    "circle",
    "polygon",
    "polyline",
    "to",
    "radius",
    "width",
    "in",
    "density",
    "weight",
    "door",
    "object",
    "at",
    "provides",
    "capacity",
    "count",
    "peak",
    "agents",
    "leave",
    "after",
    "via",
    "from",
    "spawn",
    "groups",
    "goal",
    "resource",
    "wants",
    "dwell",
    "formation",
    "uniform",
    "normal",
    "choice",
    "members",
    "leader",
    "followers",
    "around",
    "within",
    "group_map",
    "cells",
    "of",
    "sketch",
    "rule",
    "priority",
    "when",
    "state",
    "on arrival",
    "when done",
    "go",
    "sees",
    "cone",
    "time >=",
    "seek",
    "using",
    "wander",
    "pick goal from wants",
    "pursue",
    "surround",
    "escape from",
    "form",
    "align to",
    "follow",
    "flock",
    "hunt",
    "catch within",
    "flee",
    "evacuate",
    "reserve markers",
    "disjoint markers",
    "bias (1, 0)",
    "grid 4 x 4",
    "crowd_aware",
    "pairwise_checks",
    "reaches",
    "nobody inside",
    "formation error of",
    "spread of",
    "mean speed of",
    "everyone",
    "columns",
    "speed",
    "personal_space",
    "tree_paths",
    "astar",
    "bvp",
    "ct_space",
    "continuum",
    "straight",
    "side_by_side",
    "river",
    "v",
    "dart_throwing",
    "jittered_grid",
    "rows",
    "separation",
    "epsilon",
    "alpha",
    "walker",
    "go",
    "wall",
    "x",
    "_",
    "0",
    "1",
    "-1",
    "3",
    "0.5",
    "1/24",
    "1/0",
    "0/0",
    "-1e400",
    "1e308",
    "99999999999999999999999",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "2000001",
    "1000000000",
    "-0",
    "0.0000000001",
    "m",
    "s",
    "m/s",
    "km/h",
    "cm",
    "mm",
    "km",
    "ms",
    "min",
    "h",
    "deg",
    "rad",
    "°",
    "%",
    "per m2",
    "per m²",
    "/m2",
    "m²",
    "{",
    "}",
    "(",
    ")",
    ",",
    ";",
    ":",
    ">=",
    "<=",
    "±",
    "+-",
    "(3 m, 4 m)",
    "(0 m, 0 m)",
    "(1e9 km, -1e9 km)",
    "//",
    "/*",
    "*/",
    "\n",
    " ",
    "\t",
    "é",
    "🚶",
    "\u{0}",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Swap(usize, usize, usize),
    Insert(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0usize..80).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (any::<usize>(), any::<usize>(), 1usize..30).prop_map(|(a, b, n)| Edit::Swap(a, b, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
    ]
}

/// Applies the edits to the bytes (ranges may cut characters: the result is read lossily).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let len = b.len().max(1);
        match *e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let end = (a + n).min(b.len());
                if a < end {
                    b.drain(a..end);
                }
            }
            Edit::Duplicate(a, n) => {
                let a = a % len;
                let end = (a + n).min(b.len());
                if a < end {
                    let piece = b[a..end].to_vec();
                    b.splice(end..end, piece);
                }
            }
            Edit::Swap(x, y, n) => {
                let (mut x, mut y) = (x % len, y % len);
                if x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                if x + n <= y && y + n <= b.len() {
                    let first = b[x..x + n].to_vec();
                    let second = b[y..y + n].to_vec();
                    b.splice(y..y + n, first);
                    b.splice(x..x + n, second);
                }
            }
            Edit::Insert(a, t) => {
                let a = a % (b.len() + 1);
                let token = format!(" {} ", TOKENS[t]);
                b.splice(a..a, token.into_bytes());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Cases per property: a few thousand in all by default; set `CROWD_FUZZ_CASES`
/// to search longer.
fn cases(default: u32) -> u32 {
    std::env::var("CROWD_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn soups_of_tokens(tokens in proptest::collection::vec(0..TOKENS.len(), 0..120)) {
        let text: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        check(&text.join(" "));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(3000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_fixtures(which in any::<usize>(), edits in proptest::collection::vec(edit(), 1..6)) {
        thread_local!(static FIXTURES: Vec<String> = valid_fixtures());
        let text = FIXTURES.with(|f| f[which % f.len()].clone());
        check(&mutate(&text, &edits));
    }
}

#[test]
fn valid_fixtures_pass_the_consistency_check() {
    for text in valid_fixtures() {
        check(&text);
        assert!(crowd::compile(&SourceFile::new("ok.crowd", text.as_str())).is_ok());
    }
}

/// Runs `f` on a thread with a small stack, as test threads and worker
/// threads have, and fails if it takes longer than `limit`.
fn quickly(name: &str, limit: Duration, f: impl FnOnce() + Send + 'static) {
    let start = Instant::now();
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|_| panic!("{name} panicked"));
    let took = start.elapsed();
    assert!(took < limit, "{name} took {took:?}");
}

fn codes(text: &str) -> Vec<&'static str> {
    match crowd::compile(&SourceFile::new("p.crowd", text)) {
        Ok(c) => c.warnings.iter().map(|d| d.code).collect(),
        Err(d) => d.iter().map(|d| d.code).collect(),
    }
}

/// The syntax errors (E00x) only: a file of brackets also lacks a scenario header.
fn syntax_codes(text: &str) -> Vec<&'static str> {
    codes(text).into_iter().filter(|c| c.starts_with("E00")).collect()
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    quickly("100k braces", Duration::from_secs(10), || {
        let text = format!("world {}", "{".repeat(100_000));
        assert_eq!(syntax_codes(&text), vec!["E003"]);
        let text = format!("world {}{}", "{".repeat(100_000), "}".repeat(100_000));
        assert_eq!(syntax_codes(&text), vec!["E003"]);
    });
    quickly("nested spaces", Duration::from_secs(10), || {
        let mut text = String::new();
        for i in 0..100_000 {
            text.push_str(&format!("space s{i} rect (0 m, 0 m) to (1 m, 1 m) {{ "));
        }
        assert!(codes(&text).contains(&"E003"));
    });
}

#[test]
fn nesting_just_within_the_limit_checks_on_a_small_stack() {
    quickly("250 nested spaces", Duration::from_secs(20), || {
        let mut text = String::from(
            "scenario s { seed 1; duration 10 s; step 1/24 s }\nworld { bounds (0 m, 0 m) to (300 m, 300 m) }\n",
        );
        let depth = 250;
        for i in 0..depth {
            text.push_str(&format!("space s{i} rect ({i} m, {i} m) to ({} m, {} m) {{\n", 300 - i, 300 - i));
        }
        text.push_str(&"}".repeat(depth));
        let codes = codes(&text);
        assert!(!codes.contains(&"E003"), "{codes:?}");
    });
}

#[test]
fn megabytes_of_brackets_and_junk_finish_quickly() {
    quickly("5 MB of (", Duration::from_secs(10), || {
        assert_eq!(syntax_codes(&"(".repeat(5 << 20)), vec!["E003"]);
    });
    quickly("5 MB of )", Duration::from_secs(20), || {
        assert!(!codes(&")".repeat(5 << 20)).is_empty());
    });
    quickly("100k stray braces", Duration::from_secs(20), || {
        let codes = syntax_codes(&"}\n".repeat(100_000));
        assert_eq!(codes.len(), crowd::syntax::MAX_SYNTAX_ERRORS + 1);
    });
    quickly("one 2 MB word", Duration::from_secs(20), || {
        assert!(!codes(&"a".repeat(2 << 20)).is_empty());
    });
    quickly("an unclosed 2 MB comment", Duration::from_secs(20), || {
        assert_eq!(syntax_codes(&format!("/* {}", "x".repeat(2 << 20))), vec!["E001"]);
    });
    quickly("50k tiny items", Duration::from_secs(30), || {
        let text = "behaviour b { wander }\n".repeat(50_000);
        assert!(!codes(&text).is_empty());
    });
}

#[test]
fn many_unknown_names_and_many_diagnostics_finish_quickly() {
    quickly("1000 unknown names", Duration::from_secs(20), || {
        let mut text = String::from(
            "scenario s { seed 1; duration 60 s; step 1/24 s }\nworld {\n  bounds (0 m, 0 m) to (1000 m, 1000 m)\n",
        );
        for i in 0..1000 {
            let (x, y) = ((i % 50) * 20, (i / 50) * 15);
            text.push_str(&format!("  region r{i:04} rect ({x} m, {y} m) to ({} m, {} m)\n", x + 10, y + 10));
        }
        text.push_str("}\nbehaviour go { seek goal }\n");
        for i in 0..1000 {
            text.push_str(&format!(
                "population p{i} {{ count 1; spawn in q{i:04}; goal (500 m, 500 m); behaviour go }}\n"
            ));
        }
        let file = SourceFile::new("many.crowd", text.as_str());
        let diags = crowd::compile(&file).expect_err("every spawn region is unknown");
        assert_eq!(diags.len(), 1000);
        assert!(diags.iter().all(|d| d.code == "E010" && d.help.starts_with("did you mean `r")), "{:#?}", &diags[..3]);
        // Rendering them all reads each snippet, not the whole file, per diagnostic.
        let rendered = render_all(&diags, &file, true);
        assert!(rendered.ends_with("many.crowd: 1000 errors, 0 warnings\n"));
    });
}

/// Minimal cases found by the properties above, kept as regressions.
#[test]
fn regressions() {
    let base = "scenario s { seed 1; duration 60 s; step 1/24 s }\nworld { bounds (0 m, 0 m) to (30 m, 20 m) }\n\
                agent walker at (3 m, 10 m) { goal (27 m, 10 m); behaviour go }\nbehaviour go { seek goal }\n";
    assert!(codes(base).is_empty());

    // A finite number whose conversion to SI overflows reached the IR as infinity.
    let huge = format!("{}0 km", "9".repeat(306));
    assert_eq!(codes(&base.replace("30 m, 20 m", &format!("{huge}, 20 m"))), vec!["E022"]);

    // A region declared in a second world block had an index past the regions
    // the checker kept: spawning in it indexed out of bounds.
    let text = format!(
        "{base}world {{ region r rect (0 m, 0 m) to (5 m, 5 m) }}\npopulation p {{ count 2; spawn in r; goal (27 m, 10 m); behaviour go }}\n"
    );
    assert_eq!(codes(&text), vec!["E071"]);

    // A group's own agents after a population that failed: the population
    // indices given at declaration no longer matched (a debug assertion fired).
    let text = format!(
        "{base}population p {{ count 0; spawn at (1 m, 1 m); goal (27 m, 10 m); behaviour go }}\n\
         group g {{ agents 3 at (5 m, 5 m); goal (27 m, 10 m); behaviour go }}\n"
    );
    assert_eq!(codes(&text), vec!["E030"]);

    // The same, when the population failed because of a syntax error elsewhere.
    let text = format!(
        "{base}group a {{ agents 3 at (5 m, 5 m); behaviour broken }}\ngroup b {{ agents 3 at (5 m, 9 m); goal (27 m, 10 m); behaviour go }}\n\
         behaviour broken {{ seek region nowhere using bvp wobbly }}\n"
    );
    assert_eq!(codes(&text), vec!["E001"]);
}
