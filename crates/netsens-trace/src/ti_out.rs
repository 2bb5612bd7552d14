//! A schedule and its platform as SimGrid's time-independent trace, for SMPI's
//! replay (`smpirun -replay`): the same ranks, messages and computation on the same
//! links and routes, so that SimGrid's makespan can be set beside netsens's
//! (docs/guides/topology.md, *Checking against SimGrid*).
//!
//! The directory written holds `rank-R.txt` (rank R's actions: `init`, `isend`,
//! `irecv`, `compute`, `wait`, `finalize`), `traces.txt` (the list of those files),
//! `platform.xml` (one full zone: the hosts the ranks sit on, the topology's links,
//! every route netsens takes), `hostfile`, `replay.cpp` (the replay program, a few
//! lines around `smpi_replay_run`) and `run.sh`, which builds it with `smpicxx` and
//! runs `smpirun` with SimGrid's settings for the platform (its network model and
//! factors, SMPI's own factors flat, the eager limit S).
//!
//! SMPI runs a rank's actions one after another: a computation holds the rank, a
//! message's `isend`/`irecv` starts it and `wait` awaits it. A recorded rank program
//! (`program::recorded`) is that already; a GOAL schedule's graph is laid out in
//! that order (the lowest-numbered op whose dependencies are met first; when none
//! is, a wait for the message the lowest waiting op needs). SMPI matches a wait to
//! its request by (source, destination, tag), so each message's tag is renumbered
//! to tell apart the messages of one pair in flight together: the n-th message of a
//! (source, destination, tag) on both sides gets `n · tags + index of the tag`.

use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use netsens_core::engine::{OpDesc, OpKind};
use netsens_core::error::{Error, Result};
use netsens_core::fabric::network::Network;
use netsens_core::fabric::placement::place;
use netsens_core::input_err;
use netsens_core::platform::topology::Topology;
use netsens_core::platform::{Platform, Rendezvous, ALL_RANKS};
use netsens_core::program::recorded::{ProgramStep, RecordedSchedule};
use netsens_core::schedule::{Schedule, ANY};

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub ranks: u32,
    /// Actions in all ranks' files (`init` and `finalize` left out).
    pub actions: u64,
    pub routes: u64,
    /// What SimGrid will do differently from netsens on this platform, one line each.
    pub notes: Vec<String>,
}

/// One rank's action, before its tag is renumbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Send {
        peer: u32,
        tag: i32,
        size: u64,
    },
    Recv {
        peer: u32,
        tag: i32,
        size: u64,
    },
    /// Picoseconds of computation.
    Compute(u64),
    /// Await the message this rank started as its `n`-th action.
    Wait(u32),
}

/// Write GOAL schedule (or replayed trace) `s` on `platform` into directory `dir`.
pub fn write_simgrid_schedule(s: &Schedule, platform: &Platform, name: &str, dir: &Path) -> Result<Exported> {
    let ranks = s.num_ranks;
    let mut by_rank: Vec<Vec<u32>> = vec![Vec::new(); ranks as usize];
    for op in 0..s.num_ops() as u32 {
        by_rank[s.op(op).rank as usize].push(op);
    }
    // Each op's dependencies: requires (done) and irequires (started).
    let mut waits_on: Vec<u32> = vec![0; s.num_ops()];
    for op in 0..s.num_ops() as u32 {
        for (dep, _) in s.dependents(op) {
            waits_on[dep as usize] += 1;
        }
    }
    let mut programs = Vec::with_capacity(ranks as usize);
    for ops in &by_rank {
        programs.push(lay_out(s, ops, &mut waits_on)?);
    }
    write_all(&programs, platform, name, dir)
}

/// Write recorded rank program `r` on `platform` into directory `dir`.
pub fn write_simgrid_program(r: &RecordedSchedule, platform: &Platform, name: &str, dir: &Path) -> Result<Exported> {
    let mut programs = Vec::with_capacity(r.num_ranks() as usize);
    for rank in 0..r.num_ranks() {
        let mut actions = Vec::new();
        // Per op of the rank (in issue order): its action's index while a message is
        // awaited, None once done (or a computation).
        let mut started: Vec<Option<u32>> = Vec::new();
        for step in r.rank_steps(rank) {
            match step {
                ProgramStep::Issue(ops) => {
                    for op in ops {
                        let action = action_of(op)?;
                        started.push(match action {
                            Action::Compute(_) => None,
                            _ => Some(actions.len() as u32),
                        });
                        actions.push(action);
                    }
                }
                ProgramStep::Await(ops) => {
                    for &i in ops {
                        if let Some(a) = started[i as usize].take() {
                            actions.push(Action::Wait(a));
                        }
                    }
                }
                ProgramStep::Sync => {}
            }
        }
        actions.extend(started.iter().flatten().map(|&a| Action::Wait(a)));
        programs.push(actions);
    }
    write_all(&programs, platform, name, dir)
}

/// The action of one op, or why it has none.
fn action_of(op: &OpDesc) -> Result<Action> {
    match op.kind {
        OpKind::Calc => Ok(Action::Compute(op.size)),
        OpKind::Send => Ok(Action::Send { peer: op.peer as u32, tag: op.tag, size: op.size }),
        OpKind::Recv if op.peer == ANY => Err(input_err!(
            "rank {}: a receive from any source cannot be exported (SimGrid's time-independent trace names the sender)",
            op.rank
        )),
        OpKind::Recv if op.tag < 0 => Err(input_err!(
            "rank {}: a receive of any tag cannot be exported (SimGrid's time-independent trace names the tag)",
            op.rank
        )),
        OpKind::Recv => Ok(Action::Recv { peer: op.peer as u32, tag: op.tag, size: op.size }),
        other => Err(input_err!(
            "rank {}: {} operations cannot be exported (SimGrid's time-independent trace has sends, receives and computation only)",
            op.rank,
            format!("{other:?}").to_lowercase()
        )),
    }
}

/// One rank's ops (`ops`, ascending) as a sequence of actions: the lowest op whose
/// dependencies are met goes next; when none is, the rank waits for the message
/// the lowest op not yet started needs (through its own dependencies, if need be).
/// `waits_on` counts each op's unmet dependencies and is used up.
fn lay_out(s: &Schedule, ops: &[u32], waits_on: &mut [u32]) -> Result<Vec<Action>> {
    let mut actions = Vec::with_capacity(ops.len() + ops.len() / 2);
    // Action index of each started message op not yet awaited.
    let mut pending: HashMap<u32, u32> = HashMap::new();
    let mut left: BTreeSet<u32> = ops.iter().copied().collect();
    let mut ready: BinaryHeap<std::cmp::Reverse<u32>> =
        ops.iter().filter(|&&op| waits_on[op as usize] == 0).map(|&op| std::cmp::Reverse(op)).collect();
    // An op's dependencies, for finding what a blocked op waits for.
    let mut needs: HashMap<u32, Vec<(u32, bool)>> = HashMap::new();
    for &op in ops {
        for (dep, started) in s.dependents(op) {
            needs.entry(dep).or_default().push((op, started));
        }
    }
    // Ops whose `started` dependencies are met when `op` starts, and whose `done`
    // ones when it is done.
    let release = |op: u32, done: bool, waits_on: &mut [u32], ready: &mut BinaryHeap<std::cmp::Reverse<u32>>| {
        for (dep, started) in s.dependents(op) {
            if started != done {
                waits_on[dep as usize] -= 1;
                if waits_on[dep as usize] == 0 {
                    ready.push(std::cmp::Reverse(dep));
                }
            }
        }
    };
    while !left.is_empty() {
        if let Some(std::cmp::Reverse(op)) = ready.pop() {
            left.remove(&op);
            let action = action_of(&s.op(op))?;
            release(op, false, waits_on, &mut ready);
            if let Action::Compute(_) = action {
                release(op, true, waits_on, &mut ready);
            } else {
                pending.insert(op, actions.len() as u32);
            }
            actions.push(action);
            continue;
        }
        // Nothing can start: follow the lowest op's unmet dependencies to a started message.
        let mut blocked = *left.iter().next().expect("ops are left");
        let awaited = loop {
            let unmet = needs
                .get(&blocked)
                .into_iter()
                .flatten()
                .find(|&&(before, started)| {
                    if started {
                        left.contains(&before)
                    } else {
                        left.contains(&before) || pending.contains_key(&before)
                    }
                })
                .map(|&(before, _)| before);
            match unmet {
                Some(before) if pending.contains_key(&before) => break before,
                Some(before) => blocked = before,
                None => {
                    return Err(input_err!(
                        "rank {}: op {blocked} waits for an op of another rank; a GOAL schedule's dependencies stay within a rank",
                        s.op(blocked).rank
                    ))
                }
            }
        };
        let a = pending.remove(&awaited).expect("a started message");
        actions.push(Action::Wait(a));
        release(awaited, true, waits_on, &mut ready);
    }
    let mut rest: Vec<(u32, u32)> = pending.into_iter().collect();
    rest.sort_unstable();
    actions.extend(rest.into_iter().map(|(_, a)| Action::Wait(a)));
    Ok(actions)
}

/// The platform's SimGrid form, and every rank's actions with their tags renumbered.
fn write_all(programs: &[Vec<Action>], platform: &Platform, name: &str, dir: &Path) -> Result<Exported> {
    let ranks = programs.len() as u32;
    let (topology, mut notes) = exportable(platform)?;
    let net = Network::build(topology)?;
    let hosts = place(topology, &net, ranks)?;
    let tags = Tags::number(programs)?;
    std::fs::create_dir_all(dir).map_err(|e| write_error(dir, &e))?;
    let mut list = String::new();
    for (rank, text) in rank_texts(programs, &tags).iter().enumerate() {
        let file = format!("rank-{rank}.txt");
        writeln!(list, "{file}").expect("a String takes text");
        write_file(&dir.join(&file), text.as_bytes())?;
    }
    let actions = programs.iter().map(|p| p.len() as u64).sum();
    write_file(&dir.join("traces.txt"), list.as_bytes())?;
    let hostfile: String = hosts.iter().map(|h| format!("h{h}\n")).collect();
    write_file(&dir.join("hostfile"), hostfile.as_bytes())?;
    let routes = write_platform(platform, &net, &hosts, &dir.join("platform.xml"))?;
    write_file(&dir.join("replay.cpp"), REPLAY_PROGRAM.as_bytes())?;
    let script = run_script(platform, topology, ranks, name);
    write_file(&dir.join("run.sh"), script.as_bytes())?;
    set_executable(&dir.join("run.sh"))?;
    let largest = programs.iter().flatten().filter_map(|a| match a {
        Action::Send { size, .. } => Some(*size),
        _ => None,
    });
    if platform.rendezvous == Rendezvous::Handshake && largest.max().unwrap_or(0) > platform.cluster.eager_limit {
        notes.push(format!(
            "messages above S = {} B: SMPI starts the data when the receive is posted, without netsens's request and clear-to-send",
            platform.cluster.eager_limit
        ));
    }
    if platform.cluster.gap > 0 {
        notes.push(format!(
            "g = {} ps is not exported: SMPI has no gap between one NIC's messages",
            platform.cluster.gap
        ));
    }
    notes.push("SMPI sends 16 B of envelope with every message (its payload is the size + 16 B)".to_string());
    Ok(Exported { ranks, actions, routes, notes })
}

/// Each rank's file: its actions with their new tags, between `init` and `finalize`.
fn rank_texts(programs: &[Vec<Action>], tags: &Tags) -> Vec<String> {
    let mut texts = Vec::with_capacity(programs.len());
    for (rank, program) in programs.iter().enumerate() {
        let me = rank as u32;
        let mut text = String::with_capacity(program.len() * 24 + 32);
        let _ = writeln!(text, "{rank} init");
        for (i, action) in program.iter().enumerate() {
            let _ = match *action {
                Action::Send { peer, .. } => {
                    writeln!(text, "{rank} isend {peer} {} {}", tags.of(me, i), tags.size(me, i))
                }
                Action::Recv { peer, .. } => {
                    // At least 1 B: SMPI's replay probes for a receive of size 0, which waits.
                    writeln!(text, "{rank} irecv {peer} {} {}", tags.of(me, i), tags.size(me, i).max(1))
                }
                Action::Compute(ps) => writeln!(text, "{rank} compute {}", flops(ps)),
                Action::Wait(a) => match program[a as usize] {
                    Action::Send { peer, .. } => {
                        writeln!(text, "{rank} wait {rank} {peer} {}", tags.of(me, a as usize))
                    }
                    Action::Recv { peer, .. } => {
                        writeln!(text, "{rank} wait {peer} {rank} {}", tags.of(me, a as usize))
                    }
                    _ => unreachable!("a wait awaits a message"),
                },
            };
        }
        let _ = writeln!(text, "{rank} finalize");
        texts.push(text);
    }
    texts
}

/// The platform's topology, or the one line saying why SimGrid's format cannot hold it;
/// and notes on what it will do differently.
fn exportable(p: &Platform) -> Result<(&Topology, Vec<String>)> {
    let what = &p.name;
    if p.wan.is_some() || p.shape.clusters.as_ref().is_some_and(|c| c.len() > 1) {
        return Err(input_err!(
            "{what}: more than one cluster with wide-area links cannot be exported; SimGrid's platform is written for one [topology]"
        ));
    }
    if p.shape.ranks_per_node != 1 {
        return Err(input_err!(
            "{what}: a node level (ranks_per_node = {}) cannot be exported; SimGrid's hosts have no level of their own for the ranks of a node",
            if p.shape.ranks_per_node == ALL_RANKS {
                "all".to_string()
            } else {
                p.shape.ranks_per_node.to_string()
            }
        ));
    }
    let Some(t) = &p.topology else {
        return Err(input_err!(
            "{what}: no [topology]; SimGrid's platform is written from a topology's links and routes (docs/guides/topology.md)"
        ));
    };
    if !p.noise.is_none() {
        return Err(input_err!("{what}: noise ([noise]) cannot be exported; SimGrid replays without it"));
    }
    if !t.sharing.rtt_weighted && has_latency(t)? {
        return Err(input_err!(
            "{what}: model \"max-min\" on links with latency has no SimGrid model (CM02 weighs flows by 1/latency); set [topology] model = \"cm02\" to export"
        ));
    }
    let mut notes = Vec::new();
    if p.cluster.latency > 0 && t.sharing.latency_factor != 1.0 {
        notes.push(format!(
            "L is a latency of each sender's NIC link in SimGrid, so its latency factor ({}) multiplies L too",
            t.sharing.latency_factor
        ));
    }
    Ok((t, notes))
}

fn has_latency(t: &Topology) -> Result<bool> {
    Ok(Network::build(t)?.links.iter().any(|l| l.latency > 0))
}

/// Message tags renumbered per (source, destination, tag) in the order each side
/// starts them: `n · tags + index of the tag`; and each receive's size, its send's
/// (a program's receive may not know it, and SMPI's replay probes for a receive of
/// size 0, which blocks until its message is there).
struct Tags {
    /// Per rank, per action: its new tag and its size (0 for computations and waits).
    of: Vec<Vec<(i32, u64)>>,
}

impl Tags {
    fn number(programs: &[Vec<Action>]) -> Result<Tags> {
        let mut index: HashMap<i32, i64> = HashMap::new();
        // Each (source, destination, tag)'s sends' sizes, in order.
        let mut sizes: HashMap<(u32, u32, i32), Vec<u64>> = HashMap::new();
        for (rank, program) in programs.iter().enumerate() {
            for a in program {
                if let Action::Send { tag, .. } | Action::Recv { tag, .. } = *a {
                    let n = index.len() as i64;
                    index.entry(tag).or_insert(n);
                }
                if let Action::Send { peer, tag, size } = *a {
                    sizes.entry((rank as u32, peer, tag)).or_default().push(size);
                }
            }
        }
        let count = index.len().max(1) as i64;
        let mut sent: HashMap<(u32, u32, i32), i64> = HashMap::new();
        let mut received: HashMap<(u32, u32, i32), i64> = HashMap::new();
        let mut of = Vec::with_capacity(programs.len());
        for (rank, program) in programs.iter().enumerate() {
            let me = rank as u32;
            let mut tags = vec![(0i32, 0u64); program.len()];
            for (i, a) in program.iter().enumerate() {
                let (seen, key, tag) = match *a {
                    Action::Send { peer, tag, .. } => (&mut sent, (me, peer, tag), tag),
                    Action::Recv { peer, tag, .. } => (&mut received, (peer, me, tag), tag),
                    _ => continue,
                };
                let n = seen.entry(key).or_insert(0);
                let size = sizes.get(&key).and_then(|s| s.get(*n as usize)).copied().ok_or_else(|| {
                    input_err!("rank {rank}: a receive from rank {} that no send of that rank matches", key.0)
                })?;
                let new = *n * count + index[&tag];
                *n += 1;
                let new = i32::try_from(new).map_err(|_| {
                    input_err!(
                        "rank {rank}: too many messages between ranks {} and {} to number their tags for SimGrid",
                        key.0,
                        key.1
                    )
                })?;
                tags[i] = (new, size);
            }
            of.push(tags);
        }
        Ok(Tags { of })
    }

    fn of(&self, rank: u32, action: usize) -> i32 {
        self.of[rank as usize][action].0
    }

    fn size(&self, rank: u32, action: usize) -> u64 {
        self.of[rank as usize][action].1
    }
}

/// A computation of `ps` picoseconds in flops, the hosts computing 10^9 flop/s times
/// the platform's CPU speed.
fn flops(ps: u64) -> String {
    let ns = ps / 1000;
    match ps % 1000 {
        0 => format!("{ns}"),
        frac => format!("{ns}.{frac:03}"),
    }
}

/// `platform.xml`: one full zone with the hosts the ranks sit on, each with a NIC link
/// (a fat pipe of 1/G and latency L, where G or L is set) before the topology's links
/// on every route. Returns the routes written.
fn write_platform(p: &Platform, net: &Network, hosts: &[u32], path: &Path) -> Result<u64> {
    let mut x = String::new();
    let w = &mut x;
    let _ = writeln!(w, "<?xml version='1.0'?>");
    let _ = writeln!(w, "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">");
    let _ = writeln!(w, "<!-- {}: written by netsens goal to-simgrid; run.sh sets the models -->", escape(&p.name));
    let _ = writeln!(w, "<platform version=\"4.1\">");
    let _ = writeln!(w, "<zone id=\"net\" routing=\"Full\">");
    let speed = 1e9 * p.cpu_speed;
    let mut used: Vec<u32> = hosts.to_vec();
    used.sort_unstable();
    for &h in &used {
        let _ = writeln!(w, "  <host id=\"h{h}\" speed=\"{speed}f\"/>");
    }
    let nic = p.cluster.gap_per_byte.fs_per_byte() > 0 || p.cluster.latency > 0;
    if nic {
        let fs = p.cluster.gap_per_byte.fs_per_byte();
        let bandwidth = if fs > 0 { 1e15 / fs as f64 } else { 1e18 };
        for &h in &used {
            let _ = writeln!(
                w,
                "  <link id=\"nic{h}\" bandwidth=\"{bandwidth}Bps\" latency=\"{}ps\" sharing_policy=\"FATPIPE\"/>",
                p.cluster.latency
            );
        }
    }
    // The routes, and the links they use.
    let mut routes = Vec::with_capacity(used.len() * used.len().saturating_sub(1));
    let mut link_used = vec![false; net.links.len()];
    let mut r = Vec::new();
    for &a in &used {
        for &b in &used {
            if a == b {
                continue;
            }
            r.clear();
            net.route(a, b, &mut r);
            for &l in &r {
                link_used[l as usize] = true;
            }
            routes.push((a, b, r.clone()));
        }
    }
    for (id, link) in net.links.iter().enumerate() {
        if !link_used[id] {
            continue;
        }
        let bandwidth = 1e15 / link.per_byte.fs_per_byte().max(1) as f64;
        let class = escape(&net.classes[link.class as usize]);
        let _ = writeln!(
            w,
            "  <link id=\"l{id}\" bandwidth=\"{bandwidth}Bps\" latency=\"{}ps\"><prop id=\"class\" value=\"{class}\"/></link>",
            link.latency
        );
    }
    for (a, b, r) in &routes {
        let _ = write!(w, "  <route src=\"h{a}\" dst=\"h{b}\" symmetrical=\"NO\">");
        if nic {
            let _ = write!(w, "<link_ctn id=\"nic{a}\"/>");
        }
        for l in r {
            let _ = write!(w, "<link_ctn id=\"l{l}\"/>");
        }
        let _ = writeln!(w, "</route>");
    }
    let _ = writeln!(w, "</zone>");
    let _ = writeln!(w, "</platform>");
    write_file(path, x.as_bytes())?;
    Ok(routes.len() as u64)
}

/// SimGrid's settings for the platform: its network model and factors as netsens's
/// `[topology]` gives them, no cross traffic, SMPI's own factors flat, o as SMPI's
/// send and receive overheads, and S as its eager limit (SMPI sends eagerly below
/// the threshold; netsens at S and below).
fn simgrid_config(p: &Platform, t: &Topology) -> Vec<(String, String)> {
    let s = &t.sharing;
    let model = if s.model == "lv08" { "LV08" } else { "CM02" };
    let o = p.cluster.overhead as f64 * 1e-12;
    let o_per_byte = p.cluster.overhead_per_byte.fs_per_byte() as f64 * 1e-15;
    let overhead = format!("0:{o}:{o_per_byte}");
    let eager = (p.cluster.eager_limit + 1).min(i32::MAX as u64);
    let weight_s = if s.rtt_weighted { s.weight_s } else { 0.0 };
    [
        ("network/model", model.to_string()),
        ("network/crosstraffic", "0".to_string()),
        ("network/latency-factor", format!("{}", s.latency_factor)),
        ("network/bandwidth-factor", format!("{}", s.bandwidth_factor)),
        ("network/weight-S", format!("{weight_s}")),
        ("network/TCP-gamma", format!("{}", s.tcp_gamma)),
        ("smpi/bw-factor", "0:1".to_string()),
        ("smpi/lat-factor", "0:1".to_string()),
        ("smpi/os", overhead.clone()),
        ("smpi/ois", overhead.clone()),
        ("smpi/or", overhead),
        ("smpi/send-is-detached-thresh", eager.to_string()),
        ("smpi/async-small-thresh", eager.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn run_script(p: &Platform, t: &Topology, ranks: u32, name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/sh");
    let _ = writeln!(s, "# {name} on {} replayed in SimGrid (written by netsens goal to-simgrid).", p.name);
    let _ = writeln!(s, "# Needs smpicxx and smpirun (Debian's libsimgrid-dev); builds ./replay once.");
    let _ = writeln!(s, "# Prints each rank's end in seconds; more options (--cfg=..., --log=...) go after.");
    let _ = writeln!(s, "set -e");
    let _ = writeln!(s, "cd \"$(dirname \"$0\")\"");
    let _ = writeln!(s, "[ -x replay ] || smpicxx -std=c++17 -O1 replay.cpp -o replay");
    let _ = writeln!(
        s,
        "exec smpirun -np {ranks} -platform platform.xml -hostfile hostfile -replay traces.txt ./replay \\"
    );
    let _ = writeln!(s, "  --log=root.thres:warning \\");
    for (k, v) in simgrid_config(p, t) {
        let _ = writeln!(s, "  --cfg={k}:{v} \\");
    }
    let _ = writeln!(s, "  \"$@\"");
    s
}

/// The replay program: each rank replays its file, then prints when it ended.
const REPLAY_PROGRAM: &str = r#"// Replays a time-independent trace in SMPI (smpirun -replay); prints each rank's end.
#include <cstdio>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <smpi/smpi.h>
#include <string>

int main(int argc, char* argv[])
{
  auto const* properties = simgrid::s4u::Actor::self()->get_properties();
  int rank = std::stoi(properties->at("rank"));
  smpi_replay_run(properties->at("instance_id").c_str(), rank, 0, argc > 1 ? argv[1] : nullptr);
  std::printf("rank %d ends at %.12f s\n", rank, simgrid::s4u::Engine::get_clock());
  return 0;
}
"#;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let write = || -> io::Result<()> {
        let mut f = io::BufWriter::new(std::fs::File::create(path)?);
        f.write_all(bytes)?;
        f.flush()
    };
    write().map_err(|e| write_error(path, &e))
}

fn write_error(path: &Path, e: &io::Error) -> Error {
    input_err!("cannot write \"{}\": {e}", path.display())
}

fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|e| write_error(path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsens_core::schedule::ScheduleBuilder;

    fn texts(s: &Schedule) -> Vec<String> {
        let mut waits_on = vec![0; s.num_ops()];
        for op in 0..s.num_ops() as u32 {
            for (dep, _) in s.dependents(op) {
                waits_on[dep as usize] += 1;
            }
        }
        let mut by_rank: Vec<Vec<u32>> = vec![Vec::new(); s.num_ranks as usize];
        for op in 0..s.num_ops() as u32 {
            by_rank[s.op(op).rank as usize].push(op);
        }
        let programs: Vec<_> = by_rank.iter().map(|ops| lay_out(s, ops, &mut waits_on).unwrap()).collect();
        rank_texts(&programs, &Tags::number(&programs).unwrap())
    }

    #[test]
    fn a_graph_is_laid_out_with_a_wait_before_what_needs_a_message() {
        // Rank 0: a calc of 1.5 ns, then a send requiring it and one started with it
        // (irequires); a receive that a second calc requires. Rank 1 receives twice.
        let mut b = ScheduleBuilder::new(2);
        let c = b.calc(0, 1500, 0);
        let s1 = b.send(0, 1, 100, 7, 0, 0);
        b.requires(s1, c);
        let r = b.recv(0, 1, 8, 3, 0, 0);
        let c2 = b.calc(0, 2000, 0);
        b.requires(c2, r);
        let s2 = b.send(0, 1, 200, 7, 0, 0);
        b.irequires(s2, c2);
        let r1 = b.recv(1, 0, 0, 7, 0, 0);
        let r2 = b.recv(1, 0, 0, 7, 0, 0);
        let s3 = b.send(1, 0, 8, 3, 0, 0);
        b.requires(s3, r1);
        let _ = r2;
        let t = texts(&b.build().unwrap());
        // Tags: 7 is tag 0 and 3 is tag 1 (of 2); the two sends of tag 7 from 0 to 1
        // are its 0th and 1st: 0 · 2 + 0 and 1 · 2 + 0. The receives take their sends' sizes.
        assert_eq!(
            t[0],
            "0 init\n0 compute 1.500\n0 isend 1 0 100\n0 irecv 1 1 8\n0 wait 1 0 1\n\
             0 compute 2\n0 isend 1 2 200\n0 wait 0 1 0\n0 wait 0 1 2\n0 finalize\n"
        );
        assert_eq!(
            t[1],
            "1 init\n1 irecv 0 0 100\n1 irecv 0 2 200\n1 wait 0 1 0\n1 isend 0 1 8\n\
             1 wait 0 1 2\n1 wait 1 0 1\n1 finalize\n"
        );
    }
}
