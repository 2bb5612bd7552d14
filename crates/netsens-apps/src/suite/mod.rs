//! The application suite of `APPS.md`, one file per application (shared parts of
//! an application pair, like EM3D's graph, in a file of their own).

pub mod asp;
pub mod awari;
pub mod awari_game;
pub mod barnes;
pub mod barnes_tree;
pub mod barnes_walk;
pub mod bh;
pub mod bh_tree;
pub mod connect;
pub mod em3d;
pub mod em3d_read;
pub mod em3d_write;
pub mod fft1d;
mod fft_kernel;
pub mod ft;
pub mod is;
pub mod lsd;
pub mod mg;
pub mod murphi;
pub mod nowsort;
pub mod pray;
pub mod pray_scene;
pub mod pray_trace;
pub mod radb;
pub mod radix;
pub mod sample;
pub mod tsp;
pub mod wan;
pub mod water;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The output of a future that never waits, polled once. An application whose kernel
/// is `async` over a data source (remote reads in a run) runs the same kernel over
/// local data this way for its serial reference, so both compute alike, bit for bit.
pub fn ready<T>(future: impl Future<Output = T>) -> T {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a kernel run over local data waited"),
    }
}
