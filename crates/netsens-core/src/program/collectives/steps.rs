//! The point-to-point steps every algorithm is built of: a send-receive pair posted
//! together, as `MPI_Sendrecv`, and a plain receive of bytes.

use crate::program::api::{Communicator, Rank, Tag};

/// Receive from `src` and send to `dst` at the same time (receive posted first, as
/// `MPI_Sendrecv`); returns the received bytes.
pub(super) async fn sendrecv<R: Rank>(r: &R, c: &Communicator, dst: u32, src: u32, tag: Tag, data: Vec<u8>) -> Vec<u8> {
    let rq = r.irecv(c, src as i32, tag);
    let sq = r.isend(c, dst, tag, data);
    let mut done = r.wait_all(vec![rq, sq]).await;
    std::mem::take(&mut done[0].data)
}

pub(super) async fn recv_bytes<R: Rank>(r: &R, c: &Communicator, src: u32, tag: Tag) -> Vec<u8> {
    r.recv(c, src as i32, tag).await.data
}
