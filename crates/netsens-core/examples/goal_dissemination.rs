//! Writes a dissemination barrier as GOAL text, fast enough for 2^23 ranks (tens of
//! gigabytes): the same text as `scripts/goal_gen.py dissemination`, formatted by
//! hand into a large buffer.
//!
//!     cargo run --release -p netsens-core --example goal_dissemination -- RANKS OUT.goal [BYTES]
//!
//! Round k: rank i sends BYTES (default 1) to i + 2^k and receives from i - 2^k
//! (mod RANKS); round k+1's send and receive wait for round k's receive.

use std::io::Write;

/// Bytes gathered before each write.
const CHUNK: usize = 8 << 20;

fn push_uint(out: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: goal_dissemination RANKS OUT.goal [BYTES]";
    let (Some(ranks), Some(out)) = (args.first().and_then(|r| r.parse::<u64>().ok()), args.get(1)) else {
        eprintln!("netsens: error: {usage}");
        std::process::exit(2);
    };
    let bytes: u64 = match args.get(2).map(|b| b.parse()) {
        None => 1,
        Some(Ok(b)) => b,
        Some(Err(_)) => {
            eprintln!("netsens: error: BYTES must be a whole number of bytes; {usage}");
            std::process::exit(2);
        }
    };
    if ranks == 0 || ranks > i32::MAX as u64 {
        eprintln!("netsens: error: RANKS must be 1 to {}", i32::MAX);
        std::process::exit(2);
    }
    let file = std::fs::File::create(out).unwrap_or_else(|e| {
        eprintln!("netsens: error: cannot write \"{out}\": {e}");
        std::process::exit(2);
    });
    let mut w = std::io::BufWriter::with_capacity(CHUNK, file);
    let mut buf = Vec::with_capacity(CHUNK + 4096);
    buf.extend_from_slice(b"num_ranks ");
    push_uint(&mut buf, ranks);
    buf.push(b'\n');
    let write = |w: &mut std::io::BufWriter<std::fs::File>, buf: &mut Vec<u8>| {
        w.write_all(buf).unwrap_or_else(|e| {
            eprintln!("netsens: error: cannot write \"{out}\": {e}");
            std::process::exit(2);
        });
        buf.clear();
    };
    for i in 0..ranks {
        buf.extend_from_slice(b"rank ");
        push_uint(&mut buf, i);
        buf.extend_from_slice(b" {\n");
        let (mut dist, mut k) = (1u64, 0u64);
        while dist < ranks {
            buf.push(b's');
            push_uint(&mut buf, k);
            buf.extend_from_slice(b": send ");
            push_uint(&mut buf, bytes);
            buf.extend_from_slice(b"b to ");
            push_uint(&mut buf, (i + dist) % ranks);
            buf.extend_from_slice(b" tag 0\nr");
            push_uint(&mut buf, k);
            buf.extend_from_slice(b": recv ");
            push_uint(&mut buf, bytes);
            buf.extend_from_slice(b"b from ");
            push_uint(&mut buf, (i + ranks - dist) % ranks);
            buf.extend_from_slice(b" tag 0\n");
            if k > 0 {
                for op in [b's', b'r'] {
                    buf.push(op);
                    push_uint(&mut buf, k);
                    buf.extend_from_slice(b" requires r");
                    push_uint(&mut buf, k - 1);
                    buf.push(b'\n');
                }
            }
            (dist, k) = (dist * 2, k + 1);
        }
        buf.extend_from_slice(b"}\n");
        if buf.len() >= CHUNK {
            write(&mut w, &mut buf);
        }
    }
    write(&mut w, &mut buf);
    w.flush().unwrap_or_else(|e| {
        eprintln!("netsens: error: cannot write \"{out}\": {e}");
        std::process::exit(2);
    });
}
