//! A golden trace that differs by one byte fails `crowd test` with the frame
//! and agent where it diverges; `--bless` restores it.

use std::fs;
use std::path::Path;
use std::process::Output;

mod cli_support;
use cli_support::{crowd, temp_dir};

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_corrupted_golden_fails_naming_frame_and_agent_and_bless_restores_it() {
    let dir = temp_dir("golden");
    fs::create_dir_all(dir.join("scenarios/basics")).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/party.crowd");
    fs::copy(&src, dir.join("scenarios/basics/party.crowd")).unwrap();

    // No golden yet: not a pass, and the note says how to create it.
    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(text(&o).contains("--bless"), "{}", text(&o));

    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden", "--bless"]);
    assert!(o.status.success(), "{}", text(&o));
    let golden = dir.join("golden/basics/party.csv");
    let original = fs::read(&golden).expect("blessed");
    assert!(crowd(&dir, &["test", "scenarios", "--golden", "golden"]).status.success());

    // Change one digit of agent 5's x at frame 40.
    let s = String::from_utf8(original.clone()).unwrap();
    let line_start = s.find("\n5,40,").expect("agent 5 at frame 40") + 1;
    let x_start = line_start + s[line_start..].match_indices(',').nth(2).unwrap().0 + 1;
    let mut bytes = original.clone();
    bytes[x_start] = if bytes[x_start] == b'1' { b'2' } else { b'1' };
    fs::write(&golden, &bytes).unwrap();

    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("first divergence at frame 40, agent 5, column x"), "{t}");
    assert!(t.contains("1 row differ"), "{t}");
    assert!(t.contains("largest positional deviation"), "{t}");
    assert!(t.contains("0 passed, 1 failed"), "{t}");

    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden", "--bless"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("changed"), "{}", text(&o));
    assert_eq!(fs::read(&golden).unwrap(), original, "bless writes the true trace back");
    let _ = fs::remove_dir_all(&dir);
}
