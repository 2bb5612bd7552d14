//! Collectives of a trace as rounds of point-to-point messages, for one rank of the
//! communicator (ranks and peers relative to it). The algorithms are those of
//! `LOGGP.md` and `netsens_core::program::collectives` (MPICH's): dissemination
//! barrier, binomial bcast / reduce / gather / scatter, recursive-doubling allreduce
//! (with MPICH's fold-in of non-powers of two), recursive-doubling allgather for
//! powers of two and ring otherwise, pairwise-exchange alltoall, chain scan.
//!
//! A round's messages all start once the previous round is done; replay posts a
//! round's receives together with its sends (`replay.rs`), so that an exchange above
//! the rendezvous threshold does not wait on itself. Byte counts follow
//! the trace's convention (`sent` and `received` of `MPI_CollectiveEnd`, see
//! docs/reference/pmpi.md); the v-variants use each rank's own counts, so their message sizes
//! are the rank's average block.

/// One message of a round, to or from a rank of the communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    Send { peer: u32, bytes: u64 },
    Recv { peer: u32, bytes: u64 },
}

pub type Rounds = Vec<Vec<Msg>>;

/// OTF2's collective operations (`OTF2_CollectiveOp`) that replay models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coll {
    Barrier,
    Bcast,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    Allreduce,
    Reduce,
    ReduceScatter,
    Scan,
}

impl Coll {
    /// The operation of an OTF2 code, or `None` when replay does not model it.
    pub fn from_otf2(code: u8) -> Option<Coll> {
        Some(match code {
            0 => Coll::Barrier,
            1 => Coll::Bcast,
            2 | 3 => Coll::Gather,
            4 | 5 => Coll::Scatter,
            6 | 7 => Coll::Allgather,
            // alltoallw (10): its byte totals, spread over the peers as alltoallv's
            8..=10 => Coll::Alltoall,
            11 => Coll::Allreduce,
            12 => Coll::Reduce,
            13 | 16 => Coll::ReduceScatter,
            14 | 15 => Coll::Scan,
            _ => return None,
        })
    }
}

/// The algorithm chosen for each collective that has a choice (`--collectives`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Algorithms {
    /// bcast: binomial tree, or `linear` (the root sends to every rank).
    pub bcast_linear: bool,
    /// reduce: binomial tree, or `linear` (every rank sends to the root).
    pub reduce_linear: bool,
    /// gather and scatter: binomial tree, or `linear`.
    pub gather_linear: bool,
    /// allreduce: recursive doubling, or `reduce-bcast` (binomial reduce to rank 0,
    /// then binomial bcast).
    pub allreduce_reduce_bcast: bool,
    /// allgather: recursive doubling on powers of two (ring otherwise), or `ring`.
    pub allgather_ring: bool,
    /// Non-blocking collectives' progress: `in-calls` (the rank's one CPU: a round
    /// starts once the previous one is done and the CPU is free, between compute
    /// blocks, as MPI libraries progress inside MPI calls), or `thread` (their messages
    /// run on a second CPU of the rank, a progress thread, beside its compute).
    pub nonblocking_thread: bool,
}

impl Algorithms {
    /// `"bcast=linear,allreduce=reduce-bcast"`: collective=algorithm pairs; the
    /// defaults are MPICH's (`binomial`, `recursive-doubling`).
    pub fn parse(text: &str) -> Result<Algorithms, String> {
        let mut a = Algorithms::default();
        for pair in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (coll, algo) =
                pair.split_once('=').ok_or_else(|| format!("--collectives: \"{pair}\" is not collective=algorithm"))?;
            let flag = match (coll.trim(), algo.trim()) {
                ("bcast", "binomial") | ("bcast", "linear") => &mut a.bcast_linear,
                ("reduce", "binomial") | ("reduce", "linear") => &mut a.reduce_linear,
                ("gather" | "scatter", "binomial") | ("gather" | "scatter", "linear") => &mut a.gather_linear,
                ("allreduce", "recursive-doubling") | ("allreduce", "reduce-bcast") => &mut a.allreduce_reduce_bcast,
                ("allgather", "recursive-doubling") | ("allgather", "ring") => &mut a.allgather_ring,
                ("nonblocking", "in-calls") | ("nonblocking", "thread") => &mut a.nonblocking_thread,
                _ => {
                    return Err(format!(
                        "--collectives: unknown choice \"{pair}\"; choices: bcast=binomial|linear, \
                         reduce=binomial|linear, gather=binomial|linear, scatter=binomial|linear, \
                         allreduce=recursive-doubling|reduce-bcast, allgather=recursive-doubling|ring, \
                         nonblocking=in-calls|thread"
                    ))
                }
            };
            *flag = matches!(algo.trim(), "linear" | "reduce-bcast" | "ring" | "thread");
        }
        Ok(a)
    }
}

/// The rounds of rank `me` of `p` in one collective (`root` where it has one), with
/// MPICH's algorithms.
pub fn expand(coll: Coll, p: u32, me: u32, root: u32, sent: u64, received: u64) -> Rounds {
    expand_with(coll, p, me, root, sent, received, &Algorithms::default())
}

/// [`expand`] with the algorithms of `algos`.
pub fn expand_with(coll: Coll, p: u32, me: u32, root: u32, sent: u64, received: u64, algos: &Algorithms) -> Rounds {
    if p <= 1 {
        return Vec::new();
    }
    let per_rank = |total: u64| total / u64::from(p);
    let gather_block = if me == root { per_rank(received) } else { sent };
    let scatter_block = if me == root { per_rank(sent) } else { received };
    match coll {
        Coll::Barrier => barrier(p, me),
        Coll::Bcast if algos.bcast_linear => linear_out(p, me, root, sent.max(received)),
        Coll::Bcast => bcast(p, me, root, sent.max(received)),
        Coll::Reduce if algos.reduce_linear => linear_in(p, me, root, sent),
        Coll::Reduce => reduce(p, me, root, sent),
        Coll::Allreduce if algos.allreduce_reduce_bcast => {
            let mut r = reduce(p, me, 0, sent);
            r.extend(bcast(p, me, 0, sent));
            r
        }
        Coll::Allreduce => allreduce(p, me, sent),
        Coll::Gather if algos.gather_linear => linear_in(p, me, root, gather_block),
        Coll::Gather => gather(p, me, root, gather_block),
        Coll::Scatter if algos.gather_linear => linear_out(p, me, root, scatter_block),
        Coll::Scatter => scatter(p, me, root, scatter_block),
        Coll::Allgather if algos.allgather_ring => ring_allgather(p, me, per_rank(received)),
        Coll::Allgather => allgather(p, me, per_rank(received)),
        Coll::Alltoall => alltoall(p, me, per_rank(sent)),
        Coll::ReduceScatter => {
            let mut r = reduce(p, me, 0, sent);
            r.extend(scatter(p, me, 0, per_rank(sent)));
            r
        }
        Coll::Scan => scan(p, me, sent),
    }
}

fn barrier(p: u32, me: u32) -> Rounds {
    let mut rounds = Vec::new();
    let mut k = 1;
    while k < p {
        rounds.push(vec![Msg::Send { peer: (me + k) % p, bytes: 0 }, Msg::Recv { peer: (me + p - k) % p, bytes: 0 }]);
        k *= 2;
    }
    rounds
}

/// Binomial tree rooted at `root`, downwards: receive from the parent, then send to
/// the children (farthest first). `bytes(v, mask)` is the size of the message to
/// virtual rank `v`, whose subtree spans `mask` ranks.
fn binomial_down(p: u32, me: u32, root: u32, bytes: impl Fn(u32, u32) -> u64) -> Rounds {
    let vr = (me + p - root) % p;
    let real = |v: u32| (v + root) % p;
    let mut rounds = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask != 0 {
            rounds.push(vec![Msg::Recv { peer: real(vr - mask), bytes: bytes(vr, mask) }]);
            break;
        }
        mask <<= 1;
    }
    let sends: Vec<Msg> = std::iter::successors(Some(mask >> 1), |m| Some(m >> 1))
        .take_while(|&m| m > 0)
        .filter(|&m| vr + m < p)
        .map(|m| Msg::Send { peer: real(vr + m), bytes: bytes(vr + m, m) })
        .collect();
    if !sends.is_empty() {
        rounds.push(sends);
    }
    rounds
}

/// Binomial tree rooted at `root`, upwards: receive from the children (nearest
/// first), then send to the parent. `bytes(v, mask)` is the size of the message from
/// virtual rank `v`, whose subtree spans `mask` ranks.
fn binomial_up(p: u32, me: u32, root: u32, bytes: impl Fn(u32, u32) -> u64) -> Rounds {
    let vr = (me + p - root) % p;
    let real = |v: u32| (v + root) % p;
    let mut rounds = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask == 0 {
            if vr + mask < p {
                rounds.push(vec![Msg::Recv { peer: real(vr + mask), bytes: bytes(vr + mask, mask) }]);
            }
        } else {
            rounds.push(vec![Msg::Send { peer: real(vr - mask), bytes: bytes(vr, mask) }]);
            break;
        }
        mask <<= 1;
    }
    rounds
}

fn bcast(p: u32, me: u32, root: u32, bytes: u64) -> Rounds {
    binomial_down(p, me, root, |_, _| bytes)
}

/// Each rank combines its children's partial results before sending its own.
fn reduce(p: u32, me: u32, root: u32, bytes: u64) -> Rounds {
    binomial_up(p, me, root, |_, _| bytes)
}

fn allreduce(p: u32, me: u32, bytes: u64) -> Rounds {
    let pof2 = 1u32 << (31 - p.leading_zeros());
    let rem = p - pof2;
    let mut rounds = Vec::new();
    let newrank = if me < 2 * rem {
        if me.is_multiple_of(2) {
            rounds.push(vec![Msg::Send { peer: me + 1, bytes }]);
            None
        } else {
            rounds.push(vec![Msg::Recv { peer: me - 1, bytes }]);
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    if let Some(nr) = newrank {
        let mut mask = 1;
        while mask < pof2 {
            let nd = nr ^ mask;
            let dst = if nd < rem { nd * 2 + 1 } else { nd + rem };
            rounds.push(vec![Msg::Send { peer: dst, bytes }, Msg::Recv { peer: dst, bytes }]);
            mask <<= 1;
        }
    }
    if me < 2 * rem {
        rounds.push(vec![if !me.is_multiple_of(2) {
            Msg::Send { peer: me - 1, bytes }
        } else {
            Msg::Recv { peer: me + 1, bytes }
        }]);
    }
    rounds
}

/// Blocks in the binomial subtree of virtual rank `vr` below `mask`.
fn subtree(p: u32, vr: u32, mask: u32) -> u64 {
    u64::from(mask.min(p - vr))
}

/// A subtree's blocks travel together.
fn gather(p: u32, me: u32, root: u32, block: u64) -> Rounds {
    binomial_up(p, me, root, |v, mask| subtree(p, v, mask) * block)
}

fn scatter(p: u32, me: u32, root: u32, block: u64) -> Rounds {
    binomial_down(p, me, root, |v, mask| subtree(p, v, mask) * block)
}

/// The root sends `bytes` to every other rank, one after another.
fn linear_out(p: u32, me: u32, root: u32, bytes: u64) -> Rounds {
    if me == root {
        vec![(1..p).map(|i| Msg::Send { peer: (root + i) % p, bytes }).collect()]
    } else {
        vec![vec![Msg::Recv { peer: root, bytes }]]
    }
}

/// Every other rank sends `bytes` to the root, which receives them in rank order.
fn linear_in(p: u32, me: u32, root: u32, bytes: u64) -> Rounds {
    if me == root {
        vec![(1..p).map(|i| Msg::Recv { peer: (root + i) % p, bytes }).collect()]
    } else {
        vec![vec![Msg::Send { peer: root, bytes }]]
    }
}

fn ring_allgather(p: u32, me: u32, block: u64) -> Rounds {
    (1..p)
        .map(|_| {
            vec![Msg::Send { peer: (me + 1) % p, bytes: block }, Msg::Recv { peer: (me + p - 1) % p, bytes: block }]
        })
        .collect()
}

fn allgather(p: u32, me: u32, block: u64) -> Rounds {
    if p.is_power_of_two() {
        let mut mask = 1;
        let mut rounds = Vec::new();
        while mask < p {
            let bytes = u64::from(mask) * block;
            rounds.push(vec![Msg::Send { peer: me ^ mask, bytes }, Msg::Recv { peer: me ^ mask, bytes }]);
            mask <<= 1;
        }
        return rounds;
    }
    ring_allgather(p, me, block)
}

fn alltoall(p: u32, me: u32, block: u64) -> Rounds {
    (1..p)
        .map(|i| {
            vec![Msg::Send { peer: (me + i) % p, bytes: block }, Msg::Recv { peer: (me + p - i) % p, bytes: block }]
        })
        .collect()
}

fn scan(p: u32, me: u32, bytes: u64) -> Rounds {
    let mut rounds = Vec::new();
    if me > 0 {
        rounds.push(vec![Msg::Recv { peer: me - 1, bytes }]);
    }
    if me + 1 < p {
        rounds.push(vec![Msg::Send { peer: me + 1, bytes }]);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message sent by some rank is received by its peer with the same size,
    /// and the counts match: the expansion of all ranks is consistent.
    fn consistent(coll: Coll, p: u32, root: u32, sent: impl Fn(u32) -> u64, recv: impl Fn(u32) -> u64) {
        for algos in [
            Algorithms::default(),
            Algorithms::parse("bcast=linear,reduce=linear,gather=linear,allreduce=reduce-bcast,allgather=ring")
                .unwrap(),
        ] {
            consistent_with(coll, p, root, &sent, &recv, &algos);
        }
    }

    fn consistent_with(
        coll: Coll,
        p: u32,
        root: u32,
        sent: &impl Fn(u32) -> u64,
        recv: &impl Fn(u32) -> u64,
        algos: &Algorithms,
    ) {
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for me in 0..p {
            for m in expand_with(coll, p, me, root, sent(me), recv(me), algos).into_iter().flatten() {
                match m {
                    Msg::Send { peer, bytes } => sends.push((me, peer, bytes)),
                    Msg::Recv { peer, bytes } => recvs.push((peer, me, bytes)),
                }
            }
        }
        sends.sort();
        recvs.sort();
        assert_eq!(sends, recvs, "{coll:?} p={p} root={root} {algos:?}");
    }

    #[test]
    fn every_collective_matches_its_sends_and_receives() {
        for p in 1..=9 {
            for root in [0, p / 2, p - 1] {
                let n = 64;
                let r = move |me: u32| if me == root { n * u64::from(p) } else { 0 };
                consistent(Coll::Barrier, p, root, |_| 0, |_| 0);
                consistent(Coll::Bcast, p, root, |_| n, |_| n);
                consistent(Coll::Reduce, p, root, |_| n, |_| n);
                consistent(Coll::Allreduce, p, root, |_| n, |_| n);
                consistent(Coll::Gather, p, root, |_| n, r);
                consistent(Coll::Scatter, p, root, r, |_| n);
                consistent(Coll::Allgather, p, root, |_| n, |_| n * u64::from(p));
                consistent(Coll::Alltoall, p, root, |_| n * u64::from(p), |_| n * u64::from(p));
                consistent(Coll::ReduceScatter, p, root, |_| n * u64::from(p), |_| n);
                consistent(Coll::Scan, p, root, |_| n, |_| n);
            }
        }
    }

    #[test]
    fn algorithm_choices_parse_and_bad_ones_are_named() {
        let a = Algorithms::parse("bcast=linear, allreduce=reduce-bcast").unwrap();
        assert!(a.bcast_linear && a.allreduce_reduce_bcast && !a.reduce_linear);
        assert_eq!(Algorithms::parse("").unwrap(), Algorithms::default());
        assert!(Algorithms::parse("bcast=pipeline").unwrap_err().contains("bcast=pipeline"));
        assert!(Algorithms::parse("bcast").unwrap_err().contains("collective=algorithm"));
        assert!(Algorithms::parse("nonblocking=thread").unwrap().nonblocking_thread);
        assert!(!Algorithms::parse("nonblocking=in-calls").unwrap().nonblocking_thread);
        assert!(Algorithms::parse("nonblocking=never").unwrap_err().contains("nonblocking=in-calls|thread"));
        // linear bcast from 1 at p = 4: the root sends to 2, 3, 0 in one round
        assert_eq!(
            expand_with(Coll::Bcast, 4, 1, 1, 8, 8, &a),
            vec![vec![
                Msg::Send { peer: 2, bytes: 8 },
                Msg::Send { peer: 3, bytes: 8 },
                Msg::Send { peer: 0, bytes: 8 }
            ]]
        );
    }

    #[test]
    fn message_counts_follow_the_algorithms() {
        // dissemination barrier at p = 5: ceil(log2 5) = 3 rounds of one send each
        assert_eq!(expand(Coll::Barrier, 5, 0, 0, 0, 0).len(), 3);
        // binomial bcast from 0 at p = 8: the root sends to 4, 2, 1 (farthest first)
        assert_eq!(
            expand(Coll::Bcast, 8, 0, 0, 8, 8),
            vec![vec![
                Msg::Send { peer: 4, bytes: 8 },
                Msg::Send { peer: 2, bytes: 8 },
                Msg::Send { peer: 1, bytes: 8 }
            ]]
        );
        // allreduce at p = 6 (pof2 4, rem 2): rank 0 folds into 1 and gets the result back
        assert_eq!(
            expand(Coll::Allreduce, 6, 0, 0, 8, 8),
            vec![vec![Msg::Send { peer: 1, bytes: 8 }], vec![Msg::Recv { peer: 1, bytes: 8 }]]
        );
        // binomial gather at p = 4, block 10: rank 2 sends its subtree {2, 3} = 20 bytes
        assert_eq!(
            expand(Coll::Gather, 4, 2, 0, 10, 0),
            vec![vec![Msg::Recv { peer: 3, bytes: 10 }], vec![Msg::Send { peer: 0, bytes: 20 }]]
        );
    }
}
