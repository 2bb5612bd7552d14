//! A schedule as GOAL text (LogGOPSim's format, as `netsens_core::schedule::goal`
//! reads it): one block per rank, ops labelled `l<op id>`, calc in ns. A schedule
//! whose calcs are whole nanoseconds (every replayed trace) reads back identical.

use std::io::{self, Write};

use netsens_core::schedule::{OpKind, Schedule, ANY};

/// Write `s` as GOAL text to `out`.
pub fn write_goal(s: &Schedule, out: &mut impl Write) -> io::Result<()> {
    let mut by_rank: Vec<Vec<u32>> = vec![Vec::new(); s.num_ranks as usize];
    for op in 0..s.num_ops() as u32 {
        by_rank[s.op(op).rank as usize].push(op);
    }
    writeln!(out, "num_ranks {}", s.num_ranks)?;
    for (rank, ops) in by_rank.iter().enumerate() {
        writeln!(out, "rank {rank} {{")?;
        for &op in ops {
            let o = s.op(op);
            let unit = |out: &mut dyn Write| -> io::Result<()> {
                if o.cpu != 0 {
                    write!(out, " cpu {}", o.cpu)?;
                }
                if o.nic != 0 && o.kind != OpKind::Calc {
                    write!(out, " nic {}", o.nic)?;
                }
                writeln!(out)
            };
            match o.kind {
                OpKind::Send => write!(out, "l{op}: send {}b to {} tag {}", o.size, o.peer, o.tag)?,
                OpKind::Recv => {
                    let src = if o.peer == ANY { -1 } else { o.peer };
                    write!(out, "l{op}: recv {}b from {src} tag {}", o.size, o.tag)?
                }
                OpKind::Calc => write!(out, "l{op}: calc {}", o.size / 1000)?,
                other => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{other:?} operations have no GOAL form"),
                    ))
                }
            }
            unit(out)?;
        }
        for &op in ops {
            for (dep, started) in s.dependents(op) {
                writeln!(out, "l{dep} {} l{op}", if started { "irequires" } else { "requires" })?;
            }
        }
        writeln!(out, "}}")?;
    }
    Ok(())
}
