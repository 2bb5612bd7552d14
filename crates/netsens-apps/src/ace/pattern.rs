//! The communication patterns of the seed's Figure 1a, each one exchange of an
//! emulated application on its own communicator.

use netsens_core::program::collectives::{allreduce, alltoall, bcast, gather, scatter};
use netsens_core::program::{Communicator, Op, Rank};

const TAG: i32 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every rank sends to the next and receives from the previous (non-blocking).
    Ring,
    /// Ranks 2i and 2i+1 exchange at once (non-blocking); an odd rank out idles.
    Pairwise,
    /// Every rank sends `size` bytes to every other (pairwise exchange).
    Alltoall,
    /// Rank 0 broadcasts `size` bytes.
    Bcast,
    /// Sum of `size` bytes over all ranks, result everywhere.
    Allreduce,
    /// Rank 0 gathers `size` bytes from every rank.
    Gather,
    /// Rank 0 scatters `size` bytes to every rank.
    Scatter,
    /// Ranks 2i and 2i+1 ping-pong with blocking sends: 2i sends then receives.
    BlockingSend,
}

impl Pattern {
    pub const ALL: [Pattern; 8] = [
        Pattern::Ring,
        Pattern::Pairwise,
        Pattern::Alltoall,
        Pattern::Bcast,
        Pattern::Allreduce,
        Pattern::Gather,
        Pattern::Scatter,
        Pattern::BlockingSend,
    ];
    pub const NAMES: &'static str = "ring, pairwise, alltoall, bcast, allreduce, gather, scatter, blocking-send";

    pub fn name(self) -> &'static str {
        match self {
            Pattern::Ring => "ring",
            Pattern::Pairwise => "pairwise",
            Pattern::Alltoall => "alltoall",
            Pattern::Bcast => "bcast",
            Pattern::Allreduce => "allreduce",
            Pattern::Gather => "gather",
            Pattern::Scatter => "scatter",
            Pattern::BlockingSend => "blocking-send",
        }
    }

    pub fn parse(text: &str) -> Result<Pattern, String> {
        Pattern::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| format!("unknown pattern \"{text}\"; patterns: {}", Pattern::NAMES))
    }

    /// Fewest ranks the pattern communicates on.
    pub fn min_ranks(self) -> usize {
        2
    }

    /// One exchange of `size` bytes on `comm`.
    pub async fn exchange<R: Rank>(self, r: &R, comm: &Communicator, size: usize) {
        let (me, p) = (comm.rank(), comm.size());
        let partner = me ^ 1;
        match self {
            Pattern::Ring => {
                let send = r.isend(comm, (me + 1) % p, TAG, vec![0; size]);
                let recv = r.irecv(comm, ((me + p - 1) % p) as i32, TAG);
                r.wait_all(vec![send, recv]).await;
            }
            Pattern::Pairwise if partner < p => {
                let send = r.isend(comm, partner, TAG, vec![0; size]);
                let recv = r.irecv(comm, partner as i32, TAG);
                r.wait_all(vec![send, recv]).await;
            }
            Pattern::BlockingSend if partner < p => {
                if me % 2 == 0 {
                    r.send(comm, partner, TAG, vec![0; size]).await;
                    r.recv(comm, partner as i32, TAG).await;
                } else {
                    let m = r.recv(comm, partner as i32, TAG).await;
                    r.send(comm, partner, TAG, m.data).await;
                }
            }
            Pattern::Pairwise | Pattern::BlockingSend => {}
            Pattern::Alltoall => {
                alltoall(r, comm, vec![0; size * p as usize]).await;
            }
            Pattern::Bcast => {
                bcast(r, comm, 0, vec![0; size]).await;
            }
            Pattern::Allreduce => {
                allreduce(r, comm, &vec![0u8; size], Op::Sum).await;
            }
            Pattern::Gather => {
                gather(r, comm, 0, vec![0; size]).await;
            }
            Pattern::Scatter => {
                let data = if me == 0 { vec![0; size * p as usize] } else { Vec::new() };
                scatter(r, comm, 0, data, size).await;
            }
        }
    }
}
