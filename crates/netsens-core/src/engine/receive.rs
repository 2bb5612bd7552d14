//! The receiver's side: posted receives, arrivals charged to the receiving CPU and
//! NIC, matching (MPI order, wildcards) and the rendezvous and one-sided replies.

use super::blocked::Needs;
use super::message::{Phase, Posted};
use super::observe::{At, Clock, Cost, Key, Observer};
use super::queue::{Event, EventKind};
use super::{tag_matches, tell, Core, Frontend, OpDesc, OpId, ANY};
use crate::error::{Error, Result};
use crate::time::Time;

impl<O: Observer + ?Sized> Core<O> {
    pub(super) fn on_recv<F: Frontend<O>>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        self.observe_begin(&ev, ev.id, None, None);
        if d.peer == ANY || d.tag < 0 {
            self.rec.wildcard_receives += 1;
            tell!(self.wildcard());
        }
        self.started(front, ev.id, ev.time, At::Begin);
        let msgs = &self.msgs;
        let from = (d.peer != ANY).then_some(d.peer as u32);
        let found = self.unexpected[host as usize].take(from, |m| tag_matches(d.tag, msgs[m as usize].tag));
        match found {
            Some(m) => {
                // Done once the message's own arrival processing is over.
                let c = self.ci(host, d.cpu);
                let done_at = ev.time.max(self.cpu[c]);
                self.matched(m, ev.id, ev.time, (done_at, At::BeginOr(Clock::Cpu(c))), front);
            }
            None => self.posted[host as usize].push_back(Posted { op: ev.id, src: d.peer, tag: d.tag }),
        }
    }

    pub(super) fn on_arrive<F: Frontend<O>>(&mut self, ev: Event, front: &mut F) {
        let phase = Phase::from_u8(ev.phase);
        let (from, host) = self.ends(ev.id, phase);
        let (mcpu, mnic) = {
            let m = &self.msgs[ev.id as usize];
            (m.cpu, m.nic)
        };
        let (c, n) = (self.ci(host, mcpu), self.ni(host, mnic));
        if self.var.flows_on {
            let p = self.cluster_params.clone();
            self.var.before_receive(host, ev.time, &mut self.nic_r[n], &p);
        }
        let free = self.cpu_free(c).max(self.nic_r[n]);
        if free > ev.time {
            self.block(ev, c, n, Needs::RecvNic, free);
            return;
        }
        let (p, level) = self.params(from, host);
        let wire = self.wire_bytes(ev.id, phase);
        let k = wire.saturating_sub(1);
        let op = self.msg_op(ev.id, phase);
        let (o_bytes, g_bytes) = (self.per_byte(op, p.overhead_per_byte, k), self.gap_bytes(op, &p, wire));
        let busy = self.add(op, phase.overhead(&p), o_bytes.max(g_bytes));
        let extra = self.noise.detour(host, ev.time, busy);
        let end = self.add(op, ev.time, busy);
        self.cpu[c] = self.add(op, end, extra);
        self.occupy(c);
        let gap = self.add(op, p.gap, g_bytes);
        self.nic_r[n] = self.add(op, ev.time, gap);
        if self.obs.is_some() {
            self.observe_begin(&ev, op, Some(c), Some(Clock::NicRecv(n)));
            let gap_bytes = if wire > p.gap_above { k } else { 0 };
            self.observe_cpu(c, At::Begin, Cost::RecvCpu { level, k, gap_bytes }, extra);
            tell!(self.advance(Clock::NicRecv(n), At::Begin, Cost::Gap { level, gap_bytes }, 0));
        }
        if self.fabric.is_some() {
            let gap_bytes = if wire > p.gap_above { k } else { 0 };
            self.arrival_cost(ev.id, busy, level, k, gap_bytes);
        }
        let r = &mut self.rec.ranks[host as usize];
        r.overhead_ps = r.overhead_ps.saturating_add(busy);
        r.noise_ps = r.noise_ps.saturating_add(extra);
        match phase {
            Phase::Eager | Phase::Direct | Phase::Rts => {
                let (src, tag) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.src as i32, m.tag)
                };
                let q = &mut self.posted[host as usize];
                let pos = q.iter().position(|r| (r.src == ANY || r.src == src) && tag_matches(r.tag, tag));
                match pos {
                    Some(pos) => {
                        let recv = q.remove(pos).expect("position is in range").op;
                        let now = ev.time;
                        self.matched(ev.id, recv, now, (self.cpu[c], At::BeginOr(Clock::Cpu(c))), front);
                    }
                    None => {
                        self.arrivals += 1;
                        self.unexpected[host as usize].push(src as u32, ev.id, self.arrivals);
                    }
                }
            }
            Phase::Cts => {
                // Back at the sender: the data goes out as soon as its clocks allow.
                let t = self.cpu[c];
                self.queue.push(t, EventKind::Transmit, ev.id, Phase::Data as u8, 0);
                tell!(self.queued(Key::Msg(ev.id), At::Clock(Clock::Cpu(c)), Cost::Zero, 0));
            }
            Phase::Data => {
                let (recv, size) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.recv_op, m.size)
                };
                self.rec.received(host, size);
                self.receive_done(front, ev.id, recv, (self.cpu[c], At::Clock(Clock::Cpu(c))));
            }
            Phase::OneWay | Phase::PutData | Phase::GetReq => self.handler_after_bytes(front, ev.id, phase, host, c),
            Phase::PutAck | Phase::GetReply => {
                let (op, size) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.send_op, m.size)
                };
                if phase == Phase::GetReply {
                    self.rec.received(host, size);
                }
                self.receive_done(front, ev.id, op, (self.cpu[c], At::Clock(Clock::Cpu(c))));
            }
        }
    }

    /// The target's handler of one-sided message `id` runs on CPU `c` of `host` now,
    /// after the arrival's own costs (and, on a topology, its bytes).
    pub(super) fn one_sided_handler<F: Frontend<O>>(
        &mut self,
        front: &mut F,
        id: u32,
        phase: Phase,
        host: u32,
        c: usize,
    ) {
        let (op, size) = {
            let m = &self.msgs[id as usize];
            (m.send_op, m.size)
        };
        self.release = self.cpu[c];
        tell!(self.release(At::Clock(Clock::Cpu(c))));
        let cost = front.delivered(self, op);
        let handler = self.scaled(op, cost);
        if handler > 0 {
            let extra = self.noise.detour(host, self.cpu[c], handler);
            let end = self.add(op, self.cpu[c], handler);
            self.cpu[c] = self.add(op, end, extra);
            self.occupy(c);
            self.observe_cpu(c, At::Clock(Clock::Cpu(c)), Cost::Compute(cost), extra);
            let r = &mut self.rec.ranks[host as usize];
            r.compute_ps = r.compute_ps.saturating_add(handler);
            r.noise_ps = r.noise_ps.saturating_add(extra);
        }
        match phase {
            Phase::OneWay => {
                self.rec.received(host, size);
                self.free_msgs.push(id);
            }
            Phase::PutData => {
                self.rec.received(host, size);
                self.rec.control_messages += 1;
                self.queue.push(self.cpu[c], EventKind::Transmit, id, Phase::PutAck as u8, 0);
            }
            _ => self.queue.push(self.cpu[c], EventKind::Transmit, id, Phase::GetReply as u8, 0),
        }
        if phase != Phase::OneWay {
            tell!(self.queued(Key::Msg(id), At::Clock(Clock::Cpu(c)), Cost::Zero, 0));
        }
    }

    /// Message `id` (Eager, Direct or Rts) met receive `recv` at time `t` (when the
    /// event being handled began); a data message completes the receive at
    /// `recv_done` (a time and what it is for an observer).
    pub(super) fn matched<F: Frontend<O>>(
        &mut self,
        id: u32,
        recv: OpId,
        t: Time,
        recv_done: (Time, At),
        front: &mut F,
    ) {
        let (phase, src, dst, size, send_op, mcpu, mnic) = {
            let m = &mut self.msgs[id as usize];
            m.recv_op = recv;
            (m.phase, m.src, m.dst, m.size, m.send_op, m.cpu, m.nic)
        };
        front.matched(send_op, recv);
        tell!(self.posted(recv));
        match phase {
            Phase::Rts => {
                // The receiver answers with a clear-to-send as soon as its clocks allow.
                self.rec.control_messages += 1;
                let rci = self.ci(dst, front.op(recv).cpu);
                let rc = self.cpu[rci];
                self.queue.push(rc.max(t), EventKind::Transmit, id, Phase::Cts as u8, 0);
                tell!(self.queued(Key::Msg(id), At::BeginOr(Clock::Cpu(rci)), Cost::Zero, 0));
            }
            Phase::Direct => {
                // LogGOPSim: the send completes now, its clocks advanced to this instant.
                let (c, n) = (self.ci(src, mcpu), self.ni(src, mnic));
                self.cpu[c] = self.cpu[c].max(t);
                self.nic_s[n] = self.nic_s[n].max(t);
                tell!(self.set(Clock::Cpu(c), At::Begin, true));
                tell!(self.set(Clock::NicSend(n), At::Begin, true));
                self.rec.received(dst, size);
                self.done(front, send_op, t, At::Begin);
                self.receive_done(front, id, recv, recv_done);
            }
            _ => {
                self.rec.received(dst, size);
                self.receive_done(front, id, recv, recv_done);
            }
        }
    }

    /// A run whose operations all finished may still have left messages nobody received.
    pub(super) fn check_unreceived(&self) -> Result<()> {
        let mut total = 0usize;
        let mut shown = Vec::new();
        for (host, q) in self.unexpected.iter().enumerate() {
            for id in q.in_order() {
                total += 1;
                if shown.len() < 4 {
                    let m = &self.msgs[id as usize];
                    shown.push(format!("rank {} → rank {host} ({} B, tag {})", m.src, m.size, m.tag));
                }
            }
        }
        if total == 0 {
            return Ok(());
        }
        let more = if total > shown.len() { format!(" and {} more", total - shown.len()) } else { String::new() };
        Err(Error::Deadlock(format!("{total} message(s) were sent but never received: {}{more}", shown.join(", "))))
    }
}
