//! `crowd render`: SVG and PNG pictures of real runs, checked by their content
//! (elements in the SVG, pixels of the population colours in the PNG), and
//! animated GIFs, read back by the `gif` crate.

use std::fs;
use std::path::{Path, PathBuf};

use resvg::tiny_skia::Pixmap;

mod cli_support;
use cli_support::{crowd, temp_dir, CROWDED_NAMES};

/// The first two population colours and the obstacle fill.
const BLUE: [u8; 3] = [0x1f, 0x77, 0xb4];
const ORANGE: [u8; 3] = [0xff, 0x7f, 0x0e];
const OBSTACLE: [u8; 3] = [0x5b, 0x5b, 0x5b];

/// Copies a scenario of `scenarios/basics` into `dir` and runs it there.
fn run(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/basics/{name}.crowd"));
    let scenario = dir.join(format!("{name}.crowd"));
    fs::copy(src, &scenario).unwrap();
    let trace = dir.join(format!("{name}.csv"));
    let o = crowd(dir, &["run", &format!("{name}.crowd"), "--out", &format!("{name}.csv")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (scenario, trace)
}

/// Pixels within a small distance of `rgb` (anti-aliased edges and
/// translucent strokes over white are not counted).
fn count(png: &Path, rgb: [u8; 3], tolerance: i32) -> usize {
    let pixmap = Pixmap::decode_png(&fs::read(png).unwrap()).expect("a PNG");
    pixmap
        .pixels()
        .iter()
        .filter(|p| {
            let c = p.demultiply();
            let d =
                [c.red(), c.green(), c.blue()].iter().zip(rgb).map(|(a, b)| (i32::from(*a) - i32::from(b)).abs()).max();
            d.unwrap_or(255) <= tolerance
        })
        .count()
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn paths_of_a_counter_flow_in_both_colours() {
    let dir = temp_dir("render-flow");
    run(&dir, "counter_flow");
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "flow.svg"]));
    let svg = fs::read_to_string(dir.join("flow.svg")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // One polyline per agent, a start and an end mark each.
    let paths = &svg[svg.find("<g id=\"paths\"").unwrap()..svg.find("<g id=\"ends\"").unwrap()];
    assert_eq!(paths.matches("<polyline").count(), 120);
    assert_eq!(paths.matches("#1f77b4").count(), 60);
    assert_eq!(paths.matches("#ff7f0e").count(), 60);
    let ends = &svg[svg.find("<g id=\"ends\"").unwrap()..svg.find("<g id=\"labels\"").unwrap()];
    assert_eq!(ends.matches("<circle").count(), 240);
    assert!(svg.contains(">west_end</text>") && svg.contains(">eastward</text>"));

    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "flow.png"]));
    let blue = count(&dir.join("flow.png"), BLUE, 40);
    let orange = count(&dir.join("flow.png"), ORANGE, 40);
    assert!(blue > 3000 && orange > 3000, "path pixels: blue {blue}, orange {orange}");

    // A time range draws less.
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "early.png", "--to", "5"]));
    let early = count(&dir.join("early.png"), BLUE, 40);
    assert!(early < blue, "the first 5 s draw fewer path pixels ({early} vs {blue})");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_frame_shows_discs_and_the_obstacles() {
    let dir = temp_dir("render-frame");
    run(&dir, "pillars");
    ok(&crowd(&dir, &["render", "pillars.crowd", "pillars.csv", "-o", "f.svg", "--frame", "20"]));
    let svg = fs::read_to_string(dir.join("f.svg")).unwrap();
    let agents = &svg[svg.find("<g id=\"agents\"").unwrap()..svg.find("<g id=\"labels\"").unwrap()];
    assert_eq!(agents.matches("<circle").count(), 40, "one disc per agent");
    assert_eq!(agents.matches("<line").count(), 40, "one heading tick per agent");
    assert!(svg.contains("frame 20, t = 10 s, 40 agents"));
    ok(&crowd(&dir, &["render", "pillars.crowd", "pillars.csv", "-o", "f.png", "--frame", "20", "--width", "800"]));
    let png = dir.join("f.png");
    assert_eq!(Pixmap::decode_png(&fs::read(&png).unwrap()).unwrap().width(), 800);
    assert!(count(&png, BLUE, 30) > 500, "agent discs");
    // Five pillars: the largest has a radius of 1.5 m, ~29 px at 19.2 px/m.
    assert!(count(&png, OBSTACLE, 8) > 5000, "obstacles");
    // Colour by speed uses the ramp; the same picture twice is the same bytes.
    ok(&crowd(&dir, &["render", "pillars.crowd", "pillars.csv", "-o", "s1.svg", "--colour", "speed"]));
    ok(&crowd(&dir, &["render", "pillars.crowd", "pillars.csv", "-o", "s2.svg", "--colour", "speed"]));
    let s1 = fs::read(dir.join("s1.svg")).unwrap();
    assert_eq!(s1, fs::read(dir.join("s2.svg")).unwrap());
    assert!(String::from_utf8(s1).unwrap().contains("#fde725"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn groups_and_states_of_a_party() {
    let dir = temp_dir("render-party");
    run(&dir, "party");
    ok(&crowd(&dir, &["render", "party.crowd", "party.csv", "-o", "g.svg", "--colour", "group"]));
    let svg = fs::read_to_string(dir.join("g.svg")).unwrap();
    assert!(svg.contains("on their own") && svg.contains(">tv (fun)</text>") && svg.contains(">house</text>"));
    ok(&crowd(&dir, &["render", "party.crowd", "party.csv", "-o", "s.svg", "--colour", "state"]));
    let svg = fs::read_to_string(dir.join("s.svg")).unwrap();
    for state in ["walk", "stay", "leaving"] {
        assert!(svg.contains(&format!(">{state}</text>")), "legend has {state}");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_requests_are_clear_errors() {
    let dir = temp_dir("render-bad");
    run(&dir, "pillars");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/party.crowd");
    fs::copy(src, dir.join("party.crowd")).unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["render", "pillars.crowd", "pillars.csv", "-o", "x.jpg"], "must end in .svg, .png or .gif"),
        (
            &["render", "pillars.crowd", "pillars.csv", "-o", "x.svg", "--frame", "500"],
            "past the trace's last frame, 80",
        ),
        (&["render", "pillars.crowd", "pillars.csv", "-o", "x.svg", "--from", "9", "--to", "3"], "after --to"),
        (&["render", "pillars.crowd", "pillars.csv", "-o", "x.svg", "--from", "100"], "no recorded frame"),
        (&["render", "party.crowd", "pillars.csv", "-o", "x.svg"], "does not match scenario party"),
        (&["render", "pillars.crowd", "nothing.csv", "-o", "x.svg"], "cannot read nothing.csv"),
    ];
    for (args, want) in cases {
        let o = crowd(&dir, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!dir.join("x.svg").exists());
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn markers_are_drawn_when_asked() {
    let dir = temp_dir("render-markers");
    fs::write(
        dir.join("wall.crowd"),
        "scenario wall { seed 1; duration 4 s; step 1/24 s; record every 24 steps }
world {
  bounds (0 m, 0 m) to (30 m, 20 m)
  region start rect (1 m, 6 m) to (4 m, 14 m)
  obstacle wall rect (12 m, 4 m) to (14 m, 16 m)
  markers dart_throwing density 2 per m2
}
population walkers { count 5; spawn in start; speed 1.2 m/s; goal (27 m, 10 m); behaviour go }
behaviour go { seek goal using straight }
",
    )
    .unwrap();
    ok(&crowd(&dir, &["run", "wall.crowd", "--out", "wall.csv"]));
    ok(&crowd(&dir, &["render", "wall.crowd", "wall.csv", "-o", "plain.svg"]));
    assert!(!fs::read_to_string(dir.join("plain.svg")).unwrap().contains("id=\"markers\""));
    ok(&crowd(&dir, &["render", "wall.crowd", "wall.csv", "-o", "m.svg", "--markers"]));
    let svg = fs::read_to_string(dir.join("m.svg")).unwrap();
    let at = svg.find("<path id=\"markers\" d=\"").expect("a markers path");
    let d = &svg[at..at + svg[at..].find("/>").unwrap()];
    // About 2 per m² over ~576 m² of walkable space.
    let dots = d.matches('M').count();
    assert!((700..1500).contains(&dots), "{dots} markers");
    let _ = fs::remove_dir_all(&dir);
}

/// The `<text>` elements of the SVG's legend box.
fn legend_texts(svg: &str) -> Vec<String> {
    let legend = &svg[svg.find("<g id=\"legend\"").expect("a legend box")..];
    let legend = &legend[..legend.find("</g>").unwrap()];
    legend
        .split("<text ")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string())
        .collect()
}

/// The `data-box` of every placed name: x, y, width, height, px.
fn name_boxes(svg: &str) -> Vec<[f64; 4]> {
    svg.split("data-box=\"")
        .skip(1)
        .map(|t| {
            let v: Vec<f64> = t[..t.find('"').unwrap()].split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect()
}

fn overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
}

#[test]
fn the_legend_names_every_symbol_drawn_and_a_scale() {
    let dir = temp_dir("render-legend");
    run(&dir, "counter_flow");
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "flow.svg"]));
    let svg = fs::read_to_string(dir.join("flow.svg")).unwrap();
    // Two regions, each the spawn of one population and the goal of the other.
    assert_eq!(svg.matches("<g class=\"spawn\"><title>").count(), 2);
    assert_eq!(svg.matches("<g class=\"goal\"><title>").count(), 2);
    assert!(svg.contains("<title>spawn of eastward: region west_end</title>"));
    assert!(svg.contains("<title>goal of westward: region west_end</title>"));
    // 1168 px of map over 40 m: 29.2 px/m, so the longest round length under 100 px is 2 m.
    let texts = legend_texts(&svg);
    assert_eq!(texts, ["eastward", "westward", "start", "end", "region", "spawn", "goal", "2 m"]);
    assert!(svg.contains("data-entries=\"8\""));
    let at = svg.find("<path id=\"scale-bar\" d=\"").unwrap() + "<path id=\"scale-bar\" d=\"".len();
    let d: Vec<f64> = svg[at..at + svg[at..].find('"').unwrap()]
        .split(['M', 'V', 'H', ','])
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let (x0, x1) = (d[0], d[3]);
    assert!(((x1 - x0) - 58.4).abs() < 0.11, "2 m at 29.2 px/m: {}", x1 - x0);

    // The party: obstacles, objects, a space, the gate as spawn and exit.
    run(&dir, "party");
    ok(&crowd(&dir, &["render", "party.crowd", "party.csv", "-o", "party.svg", "--frame", "100"]));
    let svg = fs::read_to_string(dir.join("party.svg")).unwrap();
    let texts = legend_texts(&svg);
    for want in [
        "guests",
        "body, tick: heading",
        "trail: last 4 s",
        "region",
        "space",
        "obstacle",
        "object (provides)",
        "spawn",
        "goal",
    ] {
        assert!(texts.iter().any(|t| t == want), "legend has {want}: {texts:?}");
    }
    assert!(texts.last().unwrap().ends_with(" m"), "a scale last: {texts:?}");
    assert!(!texts.iter().any(|t| t == "start" || t == "door" || t == "markers"), "only what is drawn: {texts:?}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn names_do_not_overlap() {
    let dir = temp_dir("render-names");
    fs::write(dir.join("crowded.crowd"), CROWDED_NAMES).unwrap();
    ok(&crowd(&dir, &["run", "crowded.crowd", "--out", "c.csv"]));
    for width in ["400", "1200"] {
        ok(&crowd(&dir, &["render", "crowded.crowd", "c.csv", "-o", "c.svg", "--width", width]));
        let svg = fs::read_to_string(dir.join("c.svg")).unwrap();
        let boxes = name_boxes(&svg);
        let at = svg.find("data-names=\"").unwrap() + "data-names=\"".len();
        let names: usize = svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap();
        assert_eq!(names, 9, "regions, obstacles, objects and the space");
        assert!(boxes.len() >= 6, "{width} px: {} of {names} names placed", boxes.len());
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlap(a, b), "{width} px: {a:?} overlaps {b:?}");
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A GIF frame's delay (cs), width and height (px).
type GifFrame = (u16, u16, u16);

/// The frames of a GIF, and its size.
fn read_gif(path: &Path) -> ((u16, u16), Vec<GifFrame>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(fs::File::open(path).unwrap()).expect("a GIF");
    let size = (decoder.width(), decoder.height());
    let mut frames = Vec::new();
    while let Some(f) = decoder.read_next_frame().expect("a frame") {
        frames.push((f.delay, f.width, f.height));
    }
    (size, frames)
}

#[test]
fn a_gif_plays_the_run() {
    let dir = temp_dir("render-gif");
    run(&dir, "counter_flow");
    let started = std::time::Instant::now();
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "flow.gif"]));
    let took = started.elapsed();
    let bytes = fs::read(dir.join("flow.gif")).unwrap();
    eprintln!("counter_flow: 46 frames at 640 px in {took:?}, {} kB", bytes.len() / 1024);
    let ((w, h), frames) = read_gif(&dir.join("flow.gif"));
    assert_eq!(w, 640);
    assert!((200..400).contains(&h), "{h} px high");
    assert_eq!(frames.len(), 46, "every frame of the trace");
    // Real time: a frame a second; the last one held a second more.
    assert!(frames[..45].iter().all(|f| f.0 == 100), "{frames:?}");
    assert_eq!(frames[45].0, 200);
    // The first frame is whole; the others only what changed.
    assert_eq!((frames[0].1, frames[0].2), (w, h));
    assert!(frames[1..].iter().all(|f| u32::from(f.1) * u32::from(f.2) < u32::from(w) * u32::from(h)));
    // The same trace and options, the same bytes.
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "again.gif"]));
    assert!(fs::read(dir.join("again.gif")).unwrap() == bytes, "two runs of the same GIF differ");

    // Options: a stride, a frame rate, a width, a time range.
    ok(&crowd(
        &dir,
        &[
            "render",
            "counter_flow.crowd",
            "counter_flow.csv",
            "-o",
            "s.gif",
            "--every",
            "5",
            "--fps",
            "4",
            "--width",
            "300",
            "--to",
            "30",
        ],
    ));
    let ((w, _), frames) = read_gif(&dir.join("s.gif"));
    assert_eq!(w, 300);
    assert_eq!(frames.len(), 7, "frames 0, 5, ..., 30");
    assert!(frames[..6].iter().all(|f| f.0 == 25), "{frames:?}");
    // 3 frames a second do not divide 100 cs: delays of 33 and 34 keep the clock.
    ok(&crowd(&dir, &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "t.gif", "--fps", "3", "--to", "5"]));
    let (_, frames) = read_gif(&dir.join("t.gif"));
    let delays: Vec<u16> = frames.iter().map(|f| f.0).collect();
    assert_eq!(delays, [33, 34, 33, 33, 34, 133]);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_gif_too_large_or_badly_asked_for_is_refused() {
    let dir = temp_dir("render-gif-bad");
    run(&dir, "counter_flow");
    let cases: [(&[&str], &str); 6] = [
        // 46 frames of 20,000 × ~6,000 px.
        (
            &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "x.gif", "--width", "20000"],
            "the GIF would hold 46 frames of 20000 × ",
        ),
        (
            &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "x.gif", "--frame", "3"],
            "--frame draws one picture",
        ),
        (&["render", "counter_flow.crowd", "counter_flow.csv", "-o", "x.gif", "--fps", "80"], "not a frame rate"),
        (&["render", "counter_flow.crowd", "counter_flow.csv", "-o", "x.png", "--every", "3"], "are for a GIF"),
        // A folder that cannot be: its parent is a file.
        (
            &["render", "counter_flow.crowd", "counter_flow.csv", "-o", "counter_flow.crowd/x.gif"],
            "cannot write counter_flow.crowd/x.gif",
        ),
        (&["render", "counter_flow.crowd", "counter_flow.csv", "-o", "x.gif", "--from", "60"], "no recorded frame"),
    ];
    for (args, want) in cases {
        let started = std::time::Instant::now();
        let o = crowd(&dir, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!dir.join("x.gif").exists() && !dir.join("x.png").exists());
        if want.starts_with("the GIF would hold") {
            assert!(err.contains("million pixels") && err.contains("--every"), "{err}");
            assert!(started.elapsed().as_secs() < 10, "refused before drawing the frames");
        }
    }
    // Never over an input: a GIF named as the trace is refused.
    fs::copy(dir.join("counter_flow.csv"), dir.join("trace.gif")).unwrap();
    let o = crowd(&dir, &["render", "counter_flow.crowd", "trace.gif", "-o", "trace.gif"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is an input of this command"));
    assert!(fs::read(dir.join("trace.gif")).unwrap() == fs::read(dir.join("counter_flow.csv")).unwrap());
    let _ = fs::remove_dir_all(&dir);
}
