//! GOAL front end: well-formed schedules, the example files, and every bad input
//! with the line number its error must carry.

use netsens_core::schedule::goal::parse_goal;
use netsens_core::schedule::{OpId, OpInfo, OpKind, Schedule, ANY};
use netsens_core::Error;

fn parse(text: &str) -> Schedule {
    match parse_goal(text, "t.goal") {
        Ok(s) => s,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// Parse `text`, expect a parse error, check its line and return its message.
#[track_caller]
fn parse_err(text: &str, line: usize) -> String {
    match parse_goal(text, "t.goal") {
        Ok(_) => panic!("expected an error on line {line}, but the text parsed"),
        Err(Error::Parse { file, line: got, msg }) => {
            assert_eq!(file, "t.goal");
            assert_eq!(got, line, "wrong line for error: {msg}");
            assert!(!msg.contains('\n'), "message must be one line: {msg}");
            msg
        }
        Err(e) => panic!("expected a parse error on line {line}, got {e:?}"),
    }
}

#[track_caller]
fn assert_err(text: &str, line: usize, needle: &str) {
    let msg = parse_err(text, line);
    assert!(msg.contains(needle), "message {msg:?} does not contain {needle:?}");
}

fn info(s: &Schedule, op: OpId) -> OpInfo<'_> {
    s.op_info(op)
}

/// Number of predecessors (requires + irequires) of every op.
fn indegrees(s: &Schedule) -> Vec<u32> {
    let mut indeg = vec![0; s.num_ops()];
    for op in 0..s.num_ops() as OpId {
        for (to, _) in s.dependents(op) {
            indeg[to as usize] += 1;
        }
    }
    indeg
}

fn num_edges(s: &Schedule) -> usize {
    (0..s.num_ops() as OpId).map(|op| s.dependents(op).count()).sum()
}

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/goal/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

// ------------------------------------------------------------------ well-formed

#[test]
fn grammar_example() {
    let s = parse(
        "num_ranks 2\n\
         rank 0 {\n\
         l1: send 1b to 1 tag 0\n\
         l2: recv 1b from 1 tag 0\n\
         l3: calc 100 cpu 0\n\
         l2 requires l1\n\
         l3 irequires l2\n\
         }\n\
         rank 1 {\n\
         a: recv 1b from 0\n\
         b: send 1b to 0\n\
         b requires a\n\
         }\n",
    );
    assert_eq!(s.num_ranks, 2);
    assert_eq!(s.num_ops(), 5);
    let send = info(&s, 0);
    assert_eq!((send.kind, send.rank, send.peer, send.tag, send.size), (OpKind::Send, 0, 1, 0, 1));
    assert_eq!(send.label, Some("l1"));
    let recv = info(&s, 1);
    assert_eq!((recv.kind, recv.rank, recv.peer, recv.tag, recv.size), (OpKind::Recv, 0, 1, 0, 1));
    let calc = info(&s, 2);
    assert_eq!((calc.kind, calc.rank, calc.size, calc.cpu), (OpKind::Calc, 0, 100_000, 0));
    assert_eq!(calc.label, Some("l3"));
    assert_eq!((info(&s, 3).kind, info(&s, 3).rank), (OpKind::Recv, 1));
    assert_eq!((info(&s, 4).kind, info(&s, 4).rank, info(&s, 4).peer), (OpKind::Send, 1, 0));
    // l2 requires l1 (a completion edge), l3 irequires l2 (a start edge), b requires a.
    assert_eq!(s.dependents(0).collect::<Vec<_>>(), vec![(1, false)]);
    assert_eq!(s.dependents(1).collect::<Vec<_>>(), vec![(2, true)]);
    assert_eq!(s.dependents(2).count(), 0);
    assert_eq!(s.dependents(3).collect::<Vec<_>>(), vec![(4, false)]);
    assert_eq!(indegrees(&s), vec![0, 1, 1, 0, 1]);
    assert_eq!(num_edges(&s), 3);
}

#[test]
fn tags_of_ten_or_more_digits_are_read_modulo_2_to_the_32_as_loggopsim_reads_them() {
    // Schedgen spells the any-tag 2^64 − 1; 2^32 − 1 is the same modulo 2^32; 2^32 + 5
    // is tag 5; 10^23 − 1 is 4135583743 modulo 2^32, above 2^31 − 1 (refused below).
    let s = parse(
        "num_ranks 2\nrank 0 {\n\
         recv 8b from 1 tag 18446744073709551615\n\
         recv 8b from 1 tag 4294967295\n\
         recv 8b from 1 tag 4294967301\n\
         send 8b to 1 tag 0000000000000000000007\n\
         }\n",
    );
    let tags: Vec<i32> = (0..4).map(|op| info(&s, op).tag).collect();
    assert_eq!(tags, [ANY, ANY, 5, 7]);
    let e =
        parse_goal("num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 99999999999999999999999\n}\n", "t.goal").err().unwrap();
    assert!(e.to_string().contains("it is 4135583743"), "{e}");
}

#[test]
fn wildcards_cpu_nic_tags_and_sizes() {
    let s = parse(
        "num_ranks 4\n\
         rank 3 {\n\
         recv 8b from -1 tag -1\n\
         recv 16B from 2 tag -1 cpu 1 nic 2\n\
         recv 0b from -1 tag 7\n\
         send 65536b to 0 tag 2147483647 nic 3 cpu 2\n\
         send 18446744073709551615b to 3\n\
         calc 0\n\
         calc 18446744073709551 cpu 4\n\
         calc 7 cpu 254\n\
         }\n",
    );
    assert_eq!(s.num_ops(), 8);
    let r0 = info(&s, 0);
    assert_eq!((r0.kind, r0.rank, r0.peer, r0.tag, r0.size, r0.cpu, r0.nic), (OpKind::Recv, 3, ANY, ANY, 8, 0, 0));
    assert_eq!(r0.label, None);
    let r1 = info(&s, 1);
    assert_eq!((r1.peer, r1.tag, r1.size, r1.cpu, r1.nic), (2, ANY, 16, 1, 2));
    let r2 = info(&s, 2);
    assert_eq!((r2.peer, r2.tag, r2.size), (ANY, 7, 0));
    let s0 = info(&s, 3);
    assert_eq!((s0.kind, s0.peer, s0.tag, s0.size, s0.cpu, s0.nic), (OpKind::Send, 0, i32::MAX, 65536, 2, 3));
    assert_eq!(info(&s, 4).size, u64::MAX);
    assert_eq!((info(&s, 5).kind, info(&s, 5).size), (OpKind::Calc, 0));
    assert_eq!((info(&s, 6).size, info(&s, 6).cpu), (18_446_744_073_709_551_000, 4));
    assert_eq!((info(&s, 7).size, info(&s, 7).cpu), (7_000, 254));
    assert_eq!(s.ncpus, 255);
    assert_eq!(s.nnics, 4);
    assert_eq!(num_edges(&s), 0);
}

#[test]
fn defaults_are_one_cpu_and_one_nic() {
    let s = parse("num_ranks 1\nrank 0 {\ncalc 5\n}\n");
    assert_eq!((s.ncpus, s.nnics), (1, 1));
    let c = info(&s, 0);
    assert_eq!((c.cpu, c.nic, c.tag, c.peer), (0, 0, 0, 0));
}

#[test]
fn layout_comments_and_line_endings() {
    let text = "// a comment before anything\r\n\
                \r\n\
                /* a block comment\r\n\
                   over two lines */ num_ranks 3 // trailing\r\n\
                rank 2\r\n\
                {\r\n\
                \tx_1: send 4b /* inline */ to 0 tag 5\r\n\
                y2 :recv 4b from 0\r\n\
                \r\n\
                x_1 requires y2 // forward and backward references alike\r\n\
                z requires y2\r\n\
                z:calc 3 }\r\n\
                rank 0 { l1:recv 4b from 2 tag 5\r\n\
                   l2: send 4b to 2 }\r\n\
                /* rank 1 has no block */";
    let s = parse(text);
    assert_eq!(s.num_ranks, 3);
    assert_eq!(s.num_ops(), 5);
    let kinds: Vec<(OpKind, u32)> = (0..5).map(|op| (info(&s, op).kind, info(&s, op).rank)).collect();
    assert_eq!(
        kinds,
        vec![(OpKind::Send, 2), (OpKind::Recv, 2), (OpKind::Calc, 2), (OpKind::Recv, 0), (OpKind::Send, 0)]
    );
    assert_eq!(info(&s, 0).tag, 5);
    assert_eq!(info(&s, 0).label, Some("x_1"));
    assert_eq!(info(&s, 1).label, Some("y2"));
    assert_eq!(info(&s, 2).label, Some("z"));
    assert_eq!(info(&s, 2).size, 3_000);
    assert_eq!(s.dependents(1).collect::<Vec<_>>(), vec![(0, false), (2, false)]);
    assert_eq!(num_edges(&s), 2);
}

#[test]
fn labels_are_scoped_per_block() {
    let s = parse(
        "num_ranks 2\n\
         rank 0 {\nl1: calc 1\nl2: calc 2\nl2 requires l1\n}\n\
         rank 1 {\nl2: calc 3\nl1: calc 4\nl2 requires l1\n}\n",
    );
    assert_eq!(s.dependents(0).collect::<Vec<_>>(), vec![(1, false)]);
    assert_eq!(s.dependents(3).collect::<Vec<_>>(), vec![(2, false)]);
}

#[test]
fn ranks_without_blocks_and_blocks_out_of_order() {
    let s = parse("num_ranks 3\n");
    assert_eq!((s.num_ranks, s.num_ops()), (3, 0));
    let s = parse("num_ranks 3\nrank 2 {\n}\nrank 0 {\ncalc 1\n}\n");
    assert_eq!((s.num_ops(), info(&s, 0).rank), (1, 0));
}

#[test]
fn label_may_be_a_keyword() {
    let s = parse("num_ranks 1\nrank 0 {\nsend: calc 1\ncalc: calc 2\ncalc requires send\n}\n");
    assert_eq!(s.dependents(0).collect::<Vec<_>>(), vec![(1, false)]);
}

// ------------------------------------------------------------------ examples

#[test]
fn example_pingpong() {
    let s = parse(&example("pingpong.goal"));
    assert_eq!((s.num_ranks, s.num_ops(), num_edges(&s)), (2, 4, 2));
    let ops: Vec<(OpKind, u32, i32, u64)> = (0..4)
        .map(|op| {
            let i = info(&s, op);
            (i.kind, i.rank, i.peer, i.size)
        })
        .collect();
    assert_eq!(
        ops,
        vec![(OpKind::Send, 0, 1, 1), (OpKind::Recv, 0, 1, 1), (OpKind::Recv, 1, 0, 1), (OpKind::Send, 1, 0, 1)]
    );
    assert_eq!(s.dependents(2).collect::<Vec<_>>(), vec![(3, false)]);
}

#[test]
fn example_calc_recv() {
    let s = parse(&example("calc_recv.goal"));
    assert_eq!((s.num_ranks, s.num_ops(), num_edges(&s)), (2, 3, 1));
    let calc = info(&s, 1);
    assert_eq!((calc.kind, calc.rank, calc.size), (OpKind::Calc, 1, 10_000_000));
    let recv = info(&s, 2);
    assert_eq!((recv.kind, recv.rank, recv.peer, recv.size), (OpKind::Recv, 1, 0, 1));
    assert_eq!(indegrees(&s), vec![0, 0, 1]);
    assert_eq!(s.dependents(1).collect::<Vec<_>>(), vec![(2, false)]);
}

#[test]
fn example_dissemination16() {
    let s = parse(&example("dissemination16.goal"));
    assert_eq!((s.num_ranks, s.num_ops(), num_edges(&s)), (16, 128, 48));
    let mut sends = 0;
    let indeg = indegrees(&s);
    for op in 0..s.num_ops() as OpId {
        let i = info(&s, op);
        assert_eq!(i.size, 1);
        let k = i.tag;
        let d = 1 << k;
        let me = i.rank as i32;
        match i.kind {
            OpKind::Send => {
                sends += 1;
                assert_eq!(i.peer, (me + d) % 16);
                assert_eq!(indeg[op as usize], u32::from(k > 0), "round {k} send of rank {me}");
            }
            OpKind::Recv => {
                assert_eq!(i.peer, (me - d).rem_euclid(16));
                assert_eq!(indeg[op as usize], 0);
                // The receive of round k enables exactly the send of round k+1.
                let next: Vec<_> =
                    s.dependents(op).map(|(to, start)| (info(&s, to).kind, info(&s, to).tag, start)).collect();
                if k < 3 {
                    assert_eq!(next, vec![(OpKind::Send, k + 1, false)]);
                } else {
                    assert!(next.is_empty());
                }
            }
            other => panic!("no {other:?} in a barrier"),
        }
    }
    assert_eq!(sends, 64);
}

#[test]
fn example_rendezvous() {
    let s = parse(&example("rendezvous.goal"));
    assert_eq!((s.num_ranks, s.num_ops(), num_edges(&s)), (2, 2, 0));
    let recv = info(&s, 1);
    assert_eq!((recv.kind, recv.rank, recv.peer, recv.size), (OpKind::Recv, 1, 0, 100_000));
    assert_eq!(indegrees(&s), vec![0, 0]);
    assert_eq!(info(&s, 0).size, 100_000);
}

// ------------------------------------------------------------------ bad input

#[test]
fn num_ranks_errors() {
    assert_err("num_ranks 0\n", 1, "num_ranks must be at least 1");
    assert_err("", 1, "num_ranks");
    assert_err("// only a comment\n\n", 1, "no \"num_ranks <n>\" line");
    assert_err("\n\nrank 0 {\n}\n", 3, "expected \"num_ranks <n>\" before anything else, found \"rank\"");
    assert_err("num_ranks\n", 1, "expected the number of ranks after \"num_ranks\", found the end of the line");
    assert_err("num_ranks two\n", 1, "found \"two\"");
    assert_err("num_ranks -2\n", 1, "found \"-2\"");
    assert_err("num_ranks 99999999999999999999999\n", 1, "too large");
    assert_err("num_ranks 4294967296\n", 1, "too large (at most 2147483647)");
    assert_err("num_ranks 2 3\n", 1, "unexpected \"3\" after \"num_ranks 2\"; expected the end of the line");
    assert_err("num_ranks 2\nrank 0 {\n}\nnum_ranks 3\n", 4, "\"num_ranks\" given twice (first on line 1)");
}

#[test]
fn rank_block_errors() {
    assert_err("num_ranks 2\nrank 2 {\n}\n", 2, "rank 2 is out of range: num_ranks is 2 (ranks 0 to 1)");
    assert_err("num_ranks 1\nrank 1 {\n}\n", 2, "rank 1 is out of range: num_ranks is 1 (rank 0 only)");
    assert_err("num_ranks 2\nrank x {\n}\n", 2, "expected a rank number after \"rank\", found \"x\"");
    assert_err(
        "num_ranks 2\nrank 0 {\n}\n\nrank 0 {\n}\n",
        5,
        "rank 0 has a second block (the first opened on line 2)",
    );
    assert_err("num_ranks 2\nrank 0 x {\n}\n", 2, "expected \"{\" after \"rank 0\", found \"x\"");
    assert_err("num_ranks 2\nrank 0\ncalc 1\n", 3, "expected \"{\" after \"rank 0\", found \"calc\"");
    assert_err("num_ranks 2\n\nrank 1\n", 3, "expected \"{\" after \"rank 1\", found the end of the file");
    assert_err("num_ranks 2\n}\n", 2, "unmatched \"}\"");
    assert_err("num_ranks 2\n{\n", 2, "unexpected \"{\"");
    assert_err("num_ranks 2\nrank 0 {\n{\n}\n", 3, "unexpected \"{\" inside the block of rank 0");
    assert_err("num_ranks 2\nfoo\n", 2, "expected \"rank <r> {\", found \"foo\"");
}

#[test]
fn truncated_file() {
    let msg = parse_err("num_ranks 2\nrank 0 {\n}\nrank 1 {\nl1: calc 5\n\n", 4);
    assert!(msg.contains("rank 1 (opened on line 4) is never closed") && msg.contains("(line 6)"), "{msg}");
    // A new rank block inside an unclosed one points at the missing "}".
    assert_err(
        "num_ranks 2\nrank 0 {\ncalc 1\nrank 1 {\n}\n",
        4,
        "expected \"}\" to close the block of rank 0 (opened on line 2) before \"rank\"",
    );
}

#[test]
fn ops_outside_blocks() {
    assert_err("num_ranks 2\nl1: send 1b to 1\n", 2, "\"l1\" is outside any rank block");
    assert_err("num_ranks 2\nrank 0 {\n}\ncalc 5\n", 4, "\"calc\" is outside any rank block");
    assert_err("num_ranks 2\nrank 0 {\n}\nl2 requires l1\n", 4, "outside any rank block");
}

#[test]
fn send_recv_errors() {
    let pre = "num_ranks 4\nrank 0 {\n";
    let e = |body: &str| format!("{pre}{body}\n}}\n");
    assert_err(&e("l1: send 1b from 1"), 3, "expected \"to\" after the size of a send, found \"from\"");
    assert_err(&e("l1: recv 1b to 1"), 3, "expected \"from\" after the size of a receive, found \"to\"");
    assert_err(
        &e("send 8 to 1"),
        3,
        "expected a size such as \"8b\" after \"send\", found \"8\" (a size ends in \"b\")",
    );
    assert_err(&e("send xb to 1"), 3, "expected a size such as \"8b\" after \"send\", found \"xb\"");
    assert_err(&e("recv -8b from 1"), 3, "found \"-8b\"");
    assert_err(&e("send"), 3, "expected a size such as \"8b\" after \"send\", found the end of the line");
    assert_err(&e("send 18446744073709551616b to 1"), 3, "size \"18446744073709551616b\" is too large");
    assert_err(&e("send 1b to"), 3, "expected a destination rank after \"to\", found the end of the line");
    assert_err(&e("send 1b to one"), 3, "expected a destination rank after \"to\", found \"one\"");
    assert_err(&e("send 1b to 4"), 3, "send to rank 4, but num_ranks is 4 (ranks 0 to 3)");
    assert_err(&e("send 1b to 99999999999999999999999"), 3, "send to rank 99999999999999999999999");
    assert_err(&e("recv 1b from 7 tag 0"), 3, "receive from rank 7, but num_ranks is 4");
    assert_err(&e("send 1b to -1"), 3, "only a receive may use -1");
    assert_err(&e("recv 1b from -2"), 3, "expected a source rank or -1 after \"from\", found \"-2\"");
    assert_err(&e("send 1b to 1 tag -1"), 3, "a send's tag cannot be -1");
    assert_err(
        &e("recv 1b from 1 tag -2"),
        3,
        "expected a tag (a number, or -1 in a receive) after \"tag\", found \"-2\"",
    );
    assert_err(&e("send 1b to 1 tag"), 3, "after \"tag\", found the end of the line");
    assert_err(
        &e("send 1b to 1 tag 2147483648"),
        3,
        "tag 2147483648 is too large (at most 2147483647; read modulo 2^32 as LogGOPSim reads it, it is 2147483648, \
         and only the any-tag 4294967295 is read above 2147483647)",
    );
    // 2^64 − 1 is 2^32 − 1 modulo 2^32: LogGOPSim's any-tag, which no send may carry
    assert_err(&e("send 1b to 1 tag 18446744073709551615"), 3, "tag 18446744073709551615 is LogGOPSim's any-tag");
    assert_err(&e("send 1b to 1 cpu 255"), 3, "cpu 255 is too large (at most 254)");
    assert_err(&e("recv 1b from 1 nic 1000"), 3, "nic 1000 is too large (at most 254)");
    assert_err(&e("recv 1b from 1 nic 99999999999999999999999"), 3, "too large");
    assert_err(&e("send 1b to 1 cpu x"), 3, "expected a number after \"cpu\", found \"x\"");
    assert_err(&e("send 1b to 1 tag 1 tag 2"), 3, "\"tag\" is given twice in one send");
    assert_err(
        &e("l1: send 1b to 1 tag 0 foo"),
        3,
        "unexpected \"foo\" after the send; expected \"tag\", \"cpu\", \"nic\" or the end of the line",
    );
    assert_err(&e("send 1b to 1 tag 0 cpu 0 nic 0 a b c d e f g h"), 3, "unexpected \"a\" after the send");
    assert_err(&e("recv 1b from 1 :"), 3, "unexpected \":\" after the recv");
}

#[test]
fn calc_errors() {
    let pre = "num_ranks 2\nrank 1 {\n\n";
    let e = |body: &str| format!("{pre}{body}\n}}\n");
    assert_err(&e("calc"), 4, "expected a duration in ns after \"calc\", found the end of the line");
    assert_err(&e("calc 5us"), 4, "expected a duration in ns after \"calc\", found \"5us\"");
    assert_err(&e("calc 18446744073709552"), 4, "calc 18446744073709552 is too long (at most 18446744073709551 ns)");
    assert_err(&e("calc 99999999999999999999999"), 4, "is too long");
    assert_err(&e("calc 5 nic 0"), 4, "unexpected \"nic\" after the calc; expected \"cpu\" or the end of the line");
    assert_err(&e("calc 5 tag 0"), 4, "unexpected \"tag\" after the calc");
    assert_err(&e("calc 5 cpu 1 cpu 2"), 4, "\"cpu\" is given twice in one calc");
    assert_err(&e("calc 5 6"), 4, "unexpected \"6\" after the calc");
}

#[test]
fn statement_errors() {
    let pre = "num_ranks 2\nrank 1 {\n";
    let e = |body: &str| format!("{pre}{body}\n}}\n");
    assert_err(&e("sned 1b to 0"), 3, "expected an operation (send, recv, calc), a label");
    assert_err(&e("l1:"), 3, "expected an operation (send, recv or calc) after the label, found the end of the line");
    assert_err(&e("l1: wait 5"), 3, "after the label, found \"wait\"");
    assert_err(&e("1x: calc 5"), 3, "invalid label \"1x\"");
    assert_err(&e("l-1: calc 5"), 3, "invalid label \"l-1\"");
    assert_err(&e(": calc 5"), 3, "expected a label before \":\"");
}

#[test]
fn dependency_errors() {
    let pre = "num_ranks 2\nrank 0 {\nl1: calc 1\nl2: calc 2\n";
    let e = |body: &str| format!("{pre}{body}\n}}\n");
    assert_err(&e("l2 requires l9"), 5, "unknown label \"l9\" (rank 0 has labels l1, l2)");
    assert_err(&e("l9 irequires l1"), 5, "unknown label \"l9\"");
    // An unresolved forward reference is reported at the dependency, not at "}".
    assert_err(&e("l2 requires l3\n\nl4: calc 4"), 5, "unknown label \"l3\" (rank 0 has labels l1, l2, l4)");
    assert_err(&e("l2 requires"), 5, "expected a label after \"requires\", found the end of the line");
    assert_err(&e("l2 irequires l1 l3"), 5, "unexpected \"l3\" after the dependency; expected the end of the line");
    assert_err(&e("l2 requires l2"), 5, "\"l2\" cannot depend on itself");
    assert_err(&e("\nl1: calc 3"), 6, "label \"l1\" is defined twice in rank 0, on line 3 and line 6");
    // Labels of another rank's block are not visible.
    assert_err(
        "num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n",
        7,
        "unknown label \"a\" (rank 1 has labels b)",
    );
    assert_err("num_ranks 1\nrank 0 {\ncalc 1\nx requires y\n}\n", 4, "unknown label \"x\" (rank 0 has no labels)");
    let mut many = String::from("num_ranks 1\nrank 0 {\n");
    for i in 1..=8 {
        many.push_str(&format!("l{i}: calc {i}\n"));
    }
    many.push_str("l1 requires l9\n}\n");
    assert_err(&many, 11, "unknown label \"l9\" (rank 0 has 8 labels: l1, l2, l3, ..., l8)");
}

#[test]
fn comment_errors_and_line_counting() {
    assert_err("num_ranks 2\n/* never\nclosed\n", 2, "unterminated \"/*\" comment");
    // Lines inside block comments and \r\n endings are counted.
    assert_err("num_ranks 2\r\n/* one\r\ntwo\r\nthree */\r\nrank 0 {\r\nsend 1b to 5\r\n}\r\n", 6, "send to rank 5");
    // A statement continued by a multi-line comment reports the line of the bad token.
    assert_err("num_ranks 2\nrank 0 {\nsend 1b /*\n*/ from 1\n}\n", 4, "expected \"to\"");
}

#[test]
fn build_errors_name_the_file() {
    let text = "num_ranks 2\nrank 0 {\na: send 1b to 1\nb: recv 1b from 1\na requires b\nb requires a\n}\n";
    match parse_goal(text, "cyc.goal") {
        Err(Error::Input(msg)) => {
            assert!(msg.starts_with("cyc.goal: "), "{msg}");
            assert!(msg.contains("cycle") && msg.contains("rank 0"), "{msg}");
        }
        other => panic!("expected a cycle error, got {:?}", other.err()),
    }
}

#[test]
fn error_display_is_file_line_message() {
    let e = parse_goal("num_ranks 0\n", "x.goal").err().unwrap();
    assert_eq!(e.to_string(), "x.goal:1: num_ranks must be at least 1");
}

// ------------------------------------------------------------------ speed

/// `cargo test --release --test goal_parse -- --ignored --nocapture parse_speed`
#[test]
#[ignore]
fn parse_speed() {
    use std::fmt::Write;
    let (ranks, iters) = (1024, 330);
    let mut text = String::new();
    writeln!(text, "num_ranks {ranks}").unwrap();
    for r in 0..ranks {
        writeln!(text, "rank {r} {{").unwrap();
        for i in 0..iters {
            let (to, from) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
            writeln!(text, "l{}: send 1024b to {to} tag {i}", 3 * i).unwrap();
            writeln!(text, "l{}: recv 1024b from {from} tag {i}", 3 * i + 1).unwrap();
            writeln!(text, "l{}: calc 1500", 3 * i + 2).unwrap();
            writeln!(text, "l{} requires l{}", 3 * i + 2, 3 * i + 1).unwrap();
            if i > 0 {
                writeln!(text, "l{} requires l{}", 3 * i, 3 * i - 1).unwrap();
                writeln!(text, "l{} irequires l{}", 3 * i + 1, 3 * i - 1).unwrap();
            }
        }
        writeln!(text, "}}").unwrap();
    }
    let lines = text.lines().count();
    let t = std::time::Instant::now();
    let s = parse_goal(&text, "gen.goal").unwrap();
    let dt = t.elapsed().as_secs_f64();
    assert_eq!(s.num_ops(), ranks * iters * 3);
    println!(
        "{lines} lines ({:.1} MB, {} ops) in {:.3} s: {:.2} M lines/s, {:.0} MB/s",
        text.len() as f64 / 1e6,
        s.num_ops(),
        dt,
        lines as f64 / dt / 1e6,
        text.len() as f64 / dt / 1e6
    );
}

// ------------------------------------------------------------------ robustness

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const VALID: &str = "num_ranks 3\nrank 0 {\nl1: send 8b to 1 tag 2 cpu 1 nic 1\nl2: recv 8b from -1 tag -1\n\
                         l3: calc 100\nl2 requires l1 /* c */\nl3 irequires l2 // c\n}\nrank 1 {\nrecv 8b from 0 tag 2\n}\n";

    fn check(text: &str) {
        let lines = text.split('\n').count();
        match parse_goal(text, "f.goal") {
            Ok(_) | Err(Error::Input(_)) => {}
            Err(Error::Parse { line, msg, .. }) => {
                assert!((1..=lines).contains(&line), "line {line} of {lines}: {msg}");
                assert!(!msg.contains('\n'));
            }
            Err(e) => panic!("{e:?}"),
        }
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            check(&text);
            check(&format!("num_ranks 2\nrank 0 {{\n{text}\n}}\n"));
        }

        #[test]
        fn mutated_goal_never_panics(cut in 0..VALID.len(), len in 0usize..8, insert in "[ -~\n]{0,6}") {
            let mut s = VALID.to_string();
            let (a, b) = (cut, (cut + len).min(VALID.len()));
            s.replace_range(a..b, &insert);
            check(&s);
            check(&VALID[..cut]);
        }
    }
}
