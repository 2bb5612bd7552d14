//! A GOAL file read through its memory map (`GoalText`): the same schedule as the
//! text parsed whole, whatever the UTF-8 piece boundaries and released pages, and
//! read errors worded as `std::fs::read_to_string` words them.

use netsens_core::platform::Rendezvous;
use netsens_core::schedule::goal::parse_goal_releasing;
use netsens_core::schedule::goal_file::GoalText;
use netsens_core::time::US;

mod common;

fn dissemination16() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/goal/dissemination16.goal");
    std::fs::read_to_string(path).unwrap()
}

/// The 16-rank barrier with a 1.5 MiB comment of two-byte characters before every
/// rank block: 24 MiB of text, so UTF-8 is checked in several pieces (a character
/// straddles each 8 MiB boundary) and the parser releases pages between blocks.
fn padded() -> String {
    let pad = format!("// {}\n", "é".repeat(3 << 18));
    dissemination16().replace("\nrank ", &format!("\n{pad}rank "))
}

#[test]
fn a_mapped_file_gives_the_schedule_of_its_text() {
    let dir = tempdir();
    let path = dir.join("padded.goal");
    std::fs::write(&path, padded()).unwrap();
    let text = GoalText::open(&path).unwrap();
    let mut releases = Vec::new();
    let s = parse_goal_releasing(text.as_str(), "padded.goal", &mut |offset| {
        releases.push(offset);
        text.release_before(offset);
    })
    .unwrap();
    assert!(releases.len() >= 2, "released at {releases:?}");
    assert_eq!(text.as_str(), padded(), "released pages read back intact");
    let r = common::run(&s, &common::loggopsim_defaults(Rendezvous::Loggopsim));
    // 4 rounds of o + L + o = 1.5 + 2.5 + 1.5 us on LogGOPSim's defaults.
    assert_eq!(r.makespan_ps, 4 * (3 * US / 2 + 5 * US / 2 + 3 * US / 2));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn read_errors_are_those_of_read_to_string() {
    let dir = tempdir();
    let bad = dir.join("bad.goal");
    let mut bytes = dissemination16().into_bytes();
    bytes.extend_from_slice(&[b'/', b'/', 0xff, b'\n']);
    std::fs::write(&bad, &bytes).unwrap();
    let empty = dir.join("empty.goal");
    std::fs::write(&empty, "").unwrap();
    for path in [bad.clone(), dir.clone(), dir.join("missing.goal")] {
        let mapped = GoalText::open(&path).err().expect("an error");
        let read = std::fs::read_to_string(&path).expect_err("an error");
        assert_eq!((mapped.kind(), mapped.to_string()), (read.kind(), read.to_string()), "{path:?}");
    }
    assert_eq!(GoalText::open(&empty).unwrap().as_str(), "");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file written in place while it is mapped (same length: no SIGBUS) would give a
/// schedule of part old and part new text: the parse ends with one error instead.
/// Unlinking the file changes nothing the mapping reads, so it is no error.
#[test]
fn a_file_written_in_place_while_parsed_is_an_error() {
    use std::io::{Seek, Write};
    let dir = tempdir();
    let path = dir.join("rewritten.goal");
    let original = padded();
    std::fs::write(&path, &original).unwrap();
    // File times move in clock ticks: let the rewrite fall in a later one.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let text = std::sync::Arc::new(GoalText::open(&path).unwrap());
    let rewritten = original.replacen("send 1b to 1", "send 9b to 1", 1);
    assert!(rewritten != original && rewritten.len() == original.len());
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let write_in_place = || {
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(std::io::SeekFrom::Start(0)).unwrap();
        f.write_all(rewritten.as_bytes()).unwrap();
    };
    write_in_place();
    if std::fs::metadata(&path).unwrap().modified().unwrap() == before {
        // A filesystem keeping whole seconds: write again in the next one.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        write_in_place();
    }
    assert_eq!(text.as_str(), rewritten, "the mapping reads the new bytes: a valid, different schedule");
    let err = text.parse("rewritten.goal").err().expect("a rewritten file is an error");
    assert_eq!(
        err.to_string(),
        "\"rewritten.goal\" was written while it was being read; run again once it is complete"
    );

    let kept = dir.join("kept.goal");
    std::fs::write(&kept, &original).unwrap();
    let text = std::sync::Arc::new(GoalText::open(&kept).unwrap());
    std::fs::remove_file(&kept).unwrap();
    assert!(text.parse("kept.goal").is_ok());
    std::fs::remove_dir_all(dir).unwrap();
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "netsens-goal-file-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Labels left in a mapped file read back as the parse of the text stores them,
/// in one pass (a small file) and in parts (the 24 MiB padded one).
#[test]
fn labels_read_back_from_the_mapped_file() {
    use netsens_core::schedule::goal::parse_goal;
    use std::sync::Arc;
    let dir = tempdir();
    // By hand: ops in text order are a, (calc), b, x, (send); a block comment and a
    // `{` on its own line do not shift them.
    let small = "num_ranks 2\nrank 0\n{\na: send 8b to 1 tag 0\ncalc 100\n/* c: calc 5 */ b: recv 8b from 1 tag \
                 1\nb requires a\n}\nrank 1 { x: recv 8b from 0 tag 0\nsend 8b to 0 tag 1\n}\n";
    for (name, text) in [("small.goal", small.to_string()), ("padded.goal", padded())] {
        let path = dir.join(name);
        std::fs::write(&path, &text).unwrap();
        let mapped = Arc::new(GoalText::open(&path).unwrap()).parse(name).unwrap();
        let stored = parse_goal(&text, name).unwrap();
        assert_eq!(mapped.num_ops(), stored.num_ops());
        for op in 0..mapped.num_ops() as u32 {
            assert_eq!(mapped.op_info(op), stored.op_info(op), "{name} op {op}");
        }
        if name == "small.goal" {
            let labels: Vec<_> = (0..5).map(|op| mapped.op_info(op).label).collect();
            assert_eq!(labels, [Some("a"), None, Some("b"), Some("x"), None]);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A mapped file truncated by another program while it is read (its released pages
/// are read back past the new end: SIGBUS) ends the process with one error line and
/// exit code 2, not a crash. The truncation runs in a child: this test binary again,
/// running only this test with `NETSENS_TRUNCATE_CHILD` set.
#[test]
fn a_file_truncated_while_mapped_is_one_error_line() {
    if let Some(path) = std::env::var_os("NETSENS_TRUNCATE_CHILD") {
        let text = GoalText::open(std::path::Path::new(&path)).unwrap(); // pages released
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(0).unwrap();
        let sum: u64 = text.as_str().bytes().map(u64::from).sum(); // SIGBUS here
        panic!("read {sum} after truncation");
    }
    let dir = tempdir();
    let path = dir.join("truncated.goal");
    std::fs::write(&path, padded()).unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_file_truncated_while_mapped_is_one_error_line", "--nocapture", "--test-threads=1"])
        .env("NETSENS_TRUNCATE_CHILD", &path)
        .output()
        .unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert_eq!(child.status.code(), Some(2), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("netsens: error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("truncated during the run"), "{stderr}");
}
