//! Generated schedules for tests and benchmarks (the same shapes a GOAL file
//! would spell out, built directly so that millions of ranks need no text).

use super::{Schedule, ScheduleBuilder};
use crate::error::Result;
use crate::time::Time;

/// Dissemination barrier: in round k rank i sends `bytes` to i+2^k and receives
/// from i−2^k (mod p); a round's send and receive wait for the previous receive.
pub fn dissemination(p: u32, bytes: u64) -> Result<Schedule> {
    let rounds = (u32::BITS - (p.max(1) - 1).leading_zeros()) as usize;
    let mut b = ScheduleBuilder::new(p);
    b.reserve(p as usize * rounds * 2, p as usize * rounds * 2);
    for i in 0..p {
        let mut prev_recv = None;
        let mut dist = 1u32;
        while dist < p {
            let s = b.send(i, (i + dist) % p, bytes, 0, 0, 0);
            let r = b.recv(i, ((i + p - dist) % p) as i32, bytes, 0, 0, 0);
            if let Some(pr) = prev_recv {
                b.requires(s, pr);
                b.requires(r, pr);
            }
            prev_recv = Some(r);
            dist *= 2;
        }
    }
    b.build()
}

/// Neighbour exchange: `iters` iterations of compute `calc`, then send `bytes` to
/// both ring neighbours and receive from both; an iteration waits for the previous
/// iteration's receives.
pub fn ring_exchange(p: u32, iters: u32, bytes: u64, calc: Time) -> Result<Schedule> {
    let per_rank = iters as usize * 5;
    let mut b = ScheduleBuilder::new(p);
    b.reserve(p as usize * per_rank, p as usize * per_rank);
    for i in 0..p {
        let (left, right) = ((i + p - 1) % p, (i + 1) % p);
        let mut prev: Option<(u32, u32)> = None;
        for it in 0..iters {
            let tag = (it % 2) as i32;
            let c = b.calc(i, calc, 0);
            if let Some((ra, rb)) = prev {
                b.requires(c, ra);
                b.requires(c, rb);
            }
            let s1 = b.send(i, right, bytes, tag, 0, 0);
            let s2 = b.send(i, left, bytes, tag, 0, 0);
            let r1 = b.recv(i, left as i32, bytes, tag, 0, 0);
            let r2 = b.recv(i, right as i32, bytes, tag, 0, 0);
            b.requires(s1, c);
            b.requires(s2, c);
            b.requires(r1, c);
            b.requires(r2, c);
            prev = Some((r1, r2));
        }
    }
    b.build()
}
