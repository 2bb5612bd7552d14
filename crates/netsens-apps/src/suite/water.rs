//! `water`: n-squared molecular dynamics in the manner of Splash Water (Plaat, Bal
//! and Hofman 1998). N molecules, point masses at seeded random positions in the unit
//! cube, attract each other by a softened inverse-square force; each rank owns a block
//! of them. By Newton's third law each pair is computed once: rank r handles, besides
//! its own pairs, the pairs with the molecules of the ranks r + 1 .. r + ⌊(P − 1)/2⌋
//! (mod P), and of r + P/2 when P is even and r < P/2, which it *needs*. A time step:
//! the positions travel from every owner to the ranks that need them, each rank
//! computes its pairs, the forces on other ranks' molecules travel back to their
//! owners, which add them up and move their molecules (explicit Euler).
//!
//! **Communication** of `original`, as the seed's Orca program ran it: a molecule's
//! data is an item of its owner's shared state, and a rank reads each molecule it
//! needs, and adds its force on it, by a blocking remote invocation (a request, the
//! owner's handling, a reply), one after another: per step, for each rank it needs in
//! turn, a read per molecule (a 1-byte request, 24 B back: [`Rank::get`]), and after
//! the forces an update per molecule (24 B out, a 1-byte reply: [`Rank::put`], into the
//! needer's own slot of the owner's state, which the owner adds up). A barrier before
//! the reads and one after the updates keep the steps apart. So a rank makes 2·m
//! round trips a step for the m molecules it needs (at `paper`, 32 ranks: about
//! 2 × 730), and those of a rank in another cluster each cross the wide area twice.
//!
//! **Communication** of `original-messages` and `optimized`, per step, one message per
//! (needer, owner) pair each way: the owner's positions (24 B a molecule) and the
//! needer's forces on them (24 B a molecule). Every unordered pair of ranks is one
//! (needer, owner) pair, so a step sends P·(P − 1) messages in both; they differ in the
//! route.
//! - `original-messages`: positions go straight from the owner, forces straight back,
//!   every one started at once (the original's data flow as message passing).
//! - `optimized`: for an owner and another cluster that needs its molecules, the
//!   lowest needing rank there is the local coordinator: the owner sends it the
//!   positions once over the wide area and it forwards them to the other needers of
//!   its cluster; they send it their forces, it adds them to its own and sends the sum
//!   back over the wide area once.
//!
//! So `original-messages` crosses the wide area twice per pair of ranks in different
//! clusters, (P² − Σ cᵢ²)/2 pairs, and the optimized twice per (owner, other cluster
//! that needs it). At 4 × 8 that is 2 · 384 = 768 against 2 · 62 = 124 per step
//! (derivation in the tests), a factor of 6.2.
//!
//! **Check**: every rank runs the whole simulation serially (outside the timed work)
//! and compares its molecules' positions.

use super::wan::{block, Clusters, OP_PS};
use crate::app::{App, Backend, Job, Size, Variant};
use crate::data;
use netsens_core::program::collectives::barrier;
use netsens_core::program::{decode, encode, Rank, Tag};
use netsens_core::time::Time;
use netsens_core::Result;
use std::collections::BTreeMap;

pub const APP: App = App {
    name: "water",
    description:
        "n-squared molecular dynamics (Splash Water); positions out to and forces back from the ranks that need them",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// One molecule pair: Water's 9 atom pairs at about 50 operations each.
const PAIR_PS: Time = 450 * OP_PS;
const DT: f64 = 1e-4;
const SOFTENING: f64 = 0.01;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub molecules: usize,
    pub steps: usize,
    pub seed: u64,
    pub variant: Variant,
}

impl Config {
    pub fn preset(size: Size, seed: u64, variant: Variant) -> Config {
        let molecules = match size {
            Size::Tiny => 32,
            Size::Small => 512,
            Size::Paper => 1500,
        };
        Config { molecules, steps: 2, seed, variant }
    }
}

type Vec3 = [f64; 3];
/// A first hop and the ranks it forwards to.
type Route = (u32, Vec<u32>);

fn tag_positions(owner: u32) -> Tag {
    1 + 2 * owner as Tag
}

fn tag_forces(owner: u32) -> Tag {
    2 + 2 * owner as Tag
}

/// The ranks whose molecules rank `r` needs (see the module documentation).
pub fn needs(r: u32, p: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (1..=(p - 1) / 2).map(|d| (r + d) % p).collect();
    if p.is_multiple_of(2) && r < p / 2 {
        v.push(r + p / 2);
    }
    v
}

/// Who needs owner `q`'s molecules, grouped by how they get them: (first hop, the
/// ranks the first hop forwards to). The first hop is the needer itself when the
/// positions go straight to it.
pub fn routes(variant: Variant, cl: &Clusters, p: u32, q: u32) -> Vec<Route> {
    let needers: Vec<u32> = (0..p).filter(|&r| needs(r, p).contains(&q)).collect();
    let home = cl.of_rank(q);
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &r in &needers {
        let c = cl.of_rank(r);
        if variant != Variant::Optimized || c == home {
            groups.insert(r, Vec::new());
        } else {
            groups.entry(u32::MAX - c).or_default().push(r);
        }
    }
    // Direct needers keyed by themselves, cluster groups by their lowest needer.
    groups.into_iter().map(|(k, v)| if v.is_empty() { (k, v) } else { (v[0], v[1..].to_vec()) }).collect()
}

/// The initial positions of molecules `range`.
fn positions(cfg: &Config, range: std::ops::Range<usize>) -> Vec<Vec3> {
    let v = data::unit_f64s_at(cfg.seed, 0, 3 * range.start as u64, 3 * range.len());
    v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// The force on a molecule at `a` from one at `b`.
fn force(a: &Vec3, b: &Vec3) -> Vec3 {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING;
    let s = 1.0 / (r2 * r2.sqrt());
    [d[0] * s, d[1] * s, d[2] * s]
}

/// Add the forces of every pair (one from `a`, one from `b`) to `fa` and `fb`.
fn pairs(a: &[Vec3], b: &[Vec3], fa: &mut [Vec3], fb: &mut [Vec3]) {
    for (x, fx) in a.iter().zip(fa.iter_mut()) {
        for (y, fy) in b.iter().zip(fb.iter_mut()) {
            let f = force(x, y);
            for k in 0..3 {
                fx[k] += f[k];
                fy[k] -= f[k];
            }
        }
    }
}

/// The pairs inside one block.
fn own_pairs(a: &[Vec3], fa: &mut [Vec3]) {
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let f = force(&a[i], &a[j]);
            for k in 0..3 {
                fa[i][k] += f[k];
                fa[j][k] -= f[k];
            }
        }
    }
}

/// The forces on a rank's block `x` (its own pairs and those with each other block of
/// `theirs`) and, for each of those blocks, the forces it owes them.
fn block_forces(x: &[Vec3], theirs: &[Vec<Vec3>]) -> (Vec<Vec3>, Vec<Vec<Vec3>>) {
    let mut f = vec![[0.0; 3]; x.len()];
    own_pairs(x, &mut f);
    let updates = theirs
        .iter()
        .map(|t| {
            let mut ft = vec![[0.0; 3]; t.len()];
            pairs(x, t, &mut f, &mut ft);
            ft
        })
        .collect();
    (f, updates)
}

fn step(x: &mut [Vec3], v: &mut [Vec3], f: &[Vec3]) {
    for ((x, v), f) in x.iter_mut().zip(v.iter_mut()).zip(f) {
        for k in 0..3 {
            v[k] += DT * f[k];
            x[k] += DT * v[k];
        }
    }
}

fn flat(v: &[Vec3]) -> Vec<u8> {
    encode(&v.iter().flatten().copied().collect::<Vec<f64>>())
}

fn unflat(bytes: &[u8]) -> Vec<Vec3> {
    decode::<f64>(bytes).chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

fn add(acc: &mut [Vec3], other: &[Vec3]) {
    acc.iter_mut().zip(other).for_each(|(a, b)| (0..3).for_each(|k| a[k] += b[k]));
}

/// The whole simulation on one processor: the final positions.
fn serial(cfg: &Config) -> Vec<Vec3> {
    let n = cfg.molecules;
    let (mut x, mut v) = (positions(cfg, 0..n), vec![[0.0; 3]; n]);
    for _ in 0..cfg.steps {
        let mut f = vec![[0.0; 3]; n];
        own_pairs(&x, &mut f);
        step(&mut x, &mut v, &f);
    }
    x
}

/// Bytes of one molecule's position or force.
const MOLECULE_B: usize = 24;

/// The ranks that need owner `q`'s molecules, in rank order: a needer's index in it is
/// its slot in `q`'s state for the forces it adds.
fn needers(p: u32, q: u32) -> Vec<u32> {
    (0..p).filter(|&r| needs(r, p).contains(&q)).collect()
}

/// Check this rank's molecules against the serial run.
fn check(cfg: &Config, x: &[Vec3], mine: std::ops::Range<usize>) -> std::result::Result<(), String> {
    let want = serial(cfg);
    for (i, (got, want)) in x.iter().zip(&want[mine.clone()]).enumerate() {
        if (0..3).any(|k| (got[k] - want[k]).abs() > 1e-9) {
            return Err(format!("molecule {}: at {got:?}, the serial run puts it at {want:?}", mine.start + i));
        }
    }
    Ok(())
}

/// The original as the seed's Orca program ran it: a blocking invocation per molecule
/// read and per force added (see the module documentation). A rank's state (its
/// window): its molecules' positions, then a slot of forces per needer.
pub async fn water_rpc<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, n, w) = (r.rank(), r.size(), cfg.molecules, r.world());
    let mine = block(n, p, me);
    let (mut x, mut v) = (positions(&cfg, mine.clone()), vec![[0.0; 3]; mine.len()]);
    let slots = needers(p, me).len();
    r.expose(MOLECULE_B * mine.len() * (1 + slots));
    let needed: Vec<(u32, usize, std::ops::Range<usize>)> = needs(me, p)
        .into_iter()
        .map(|q| {
            let slot = needers(p, q).iter().position(|&k| k == me).expect("a needer of q");
            (q, slot, block(n, p, q))
        })
        .collect();
    for _ in 0..cfg.steps {
        r.phase("positions");
        r.window(|win| win[..MOLECULE_B * mine.len()].copy_from_slice(&flat(&x)));
        barrier(&r, &w).await;
        let mut theirs = Vec::with_capacity(needed.len());
        for (q, _, range) in &needed {
            let mut t = Vec::with_capacity(range.len());
            for i in 0..range.len() {
                t.extend(unflat(&r.get(*q, MOLECULE_B * i, MOLECULE_B).await));
            }
            theirs.push(t);
        }
        r.phase("forces");
        // The forces as the serial run adds them; the time charged a molecule of this
        // rank and a block at a time, since Orca's run time serves other ranks'
        // invocations while a rank computes (netsens's CPU takes an arriving request
        // between two computations).
        let (mut f, updates) = block_forces(&x, &theirs);
        for i in 0..mine.len() {
            r.compute(PAIR_PS * (mine.len() - 1 - i) as Time).await;
            for t in &theirs {
                r.compute(PAIR_PS * t.len() as Time).await;
            }
        }
        r.phase("updates");
        for ((q, slot, range), up) in needed.iter().zip(updates) {
            let base = MOLECULE_B * range.len() * (1 + slot);
            for (i, force) in up.iter().enumerate() {
                r.put(*q, base + MOLECULE_B * i, flat(std::slice::from_ref(force))).await;
            }
        }
        barrier(&r, &w).await;
        // The owner adds what its needers left in their slots, in slot order.
        let sums: Vec<Vec<Vec3>> = r.window(|win| {
            (0..slots).map(|s| unflat(&win[MOLECULE_B * mine.len() * (1 + s)..][..MOLECULE_B * mine.len()])).collect()
        });
        r.work(OP_PS * (3 * slots + 12) as Time * mine.len() as Time, || {
            sums.iter().for_each(|s| add(&mut f, s));
            step(&mut x, &mut v, &f)
        })
        .await;
    }
    r.phase("check");
    check(&cfg, &x, mine)
}

/// The program.
pub async fn water<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    if cfg.variant == Variant::Original {
        return water_rpc(r, cfg).await;
    }
    let (me, p, n, w) = (r.rank(), r.size(), cfg.molecules, r.world());
    let cl = Clusters::of(&r);
    let mine = block(n, p, me);
    let (mut x, mut v) = (positions(&cfg, mine.clone()), vec![[0.0; 3]; mine.len()]);
    let my_routes = routes(cfg.variant, &cl, p, me);
    let needed: Vec<(u32, Vec<Route>)> =
        needs(me, p).into_iter().map(|q| (q, routes(cfg.variant, &cl, p, q))).collect();
    for _ in 0..cfg.steps {
        r.phase("positions");
        let mut sends: Vec<_> =
            my_routes.iter().map(|(hop, _)| r.isend(&w, *hop, tag_positions(me), flat(&x))).collect();
        // Every receive is posted at once, the positions this rank forwards as a
        // coordinator first, so no rank waits on another's order of work.
        let (mut firsts, mut rest_reqs, mut forwards, mut order) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, (q, rts)) in needed.iter().enumerate() {
            match rts.iter().find(|(hop, rest)| *hop == me || rest.contains(&me)) {
                Some((hop, rest)) if *hop == me => {
                    firsts.push(r.irecv(&w, *q as i32, tag_positions(*q)));
                    forwards.push((i, *q, rest.clone()));
                }
                Some((hop, _)) => {
                    rest_reqs.push(r.irecv(&w, *hop as i32, tag_positions(*q)));
                    order.push(i);
                }
                None => unreachable!("rank {me} needs {q}'s molecules"),
            }
        }
        let mut theirs = vec![Vec::new(); needed.len()];
        for ((i, q, to), m) in forwards.into_iter().zip(r.wait_all(firsts).await) {
            sends.extend(to.iter().map(|&t| r.isend(&w, t, tag_positions(q), m.data.clone())));
            theirs[i] = unflat(&m.data);
        }
        for (i, m) in order.into_iter().zip(r.wait_all(rest_reqs).await) {
            theirs[i] = unflat(&m.data);
        }
        // Every position this rank sends or forwards leaves before it computes, as
        // Panda hands a message to the network interface in the send call itself: a
        // send still waiting for the NIC's gap would otherwise wait out the whole
        // computation, and with it every cluster mate this rank forwards to.
        r.wait_all(sends).await;
        r.phase("forces");
        let pair_count = mine.len() * (mine.len().saturating_sub(1)) / 2
            + theirs.iter().map(|t| t.len() * mine.len()).sum::<usize>();
        let (mut f, updates) = r.work(PAIR_PS * pair_count as Time, || block_forces(&x, &theirs)).await;
        r.phase("updates");
        // Own updates out first; then, as a coordinator, add the forwarded ranks' forces
        // and send one message home; then add what came home to this rank.
        let (mut sends, mut combined) = (Vec::new(), Vec::new());
        for ((q, rts), up) in needed.iter().zip(updates) {
            let (hop, rest) = rts.iter().find(|(hop, rest)| *hop == me || rest.contains(&me)).expect("a route");
            if *hop != me {
                sends.push(r.isend(&w, *hop, tag_forces(*q), flat(&up)));
            } else {
                let reqs: Vec<_> = rest.iter().map(|&from| r.irecv(&w, from as i32, tag_forces(*q))).collect();
                combined.push((*q, up, reqs));
            }
        }
        let home: Vec<_> = my_routes.iter().map(|(hop, _)| r.irecv(&w, *hop as i32, tag_forces(me))).collect();
        for (q, mut up, reqs) in combined {
            for m in r.wait_all(reqs).await {
                add(&mut up, &unflat(&m.data));
            }
            sends.push(r.isend(&w, q, tag_forces(q), flat(&up)));
        }
        for m in r.wait_all(home).await {
            add(&mut f, &unflat(&m.data));
        }
        r.work(OP_PS * 12 * mine.len() as Time, || step(&mut x, &mut v, &f)).await;
        r.wait_all(sends).await;
    }
    r.phase("check");
    check(&cfg, &x, mine)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed, job.variant);
    backend.run(job.platform, move |r| water(r, cfg))
}
