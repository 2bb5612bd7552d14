//! The sender's side: sends, one-sided operations and protocol messages charged
//! to the sending CPU and NIC under the send rules of `LOGGP.md`.

use super::blocked::Needs;
use super::message::{Msg, Phase, NO_OP};
use super::observe::{At, Clock, Cost, Observer};
use super::queue::Event;
use super::{tell, Core, Frontend, OpDesc, OpId, OpKind};
use crate::platform::{Level, LevelParams, Rendezvous};
use crate::time::Time;

impl<O: Observer + ?Sized> Core<O> {
    /// Sender side of a message of `wire` bytes starting at `t0` on `host`, at
    /// `level`'s parameters `p` and per-message overhead `o` (o, or the control o).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn charge_send(
        &mut self,
        op: OpId,
        host: u32,
        c: usize,
        n: usize,
        t0: Time,
        wire: u64,
        p: &LevelParams,
        o: Time,
        level: Level,
    ) {
        let k = wire.saturating_sub(1);
        let per_byte = self.per_byte(op, p.overhead_per_byte, k);
        let busy = self.add(op, o, per_byte);
        let extra = self.noise.detour(host, t0, busy);
        let end = self.add(op, t0, busy);
        self.cpu[c] = self.add(op, end, extra);
        self.occupy(c);
        let per_byte = self.gap_bytes(op, p, wire);
        let gap = self.add(op, p.gap, per_byte);
        self.nic_s[n] = self.add(op, t0, gap);
        if self.obs.is_some() {
            self.observe_cpu(c, At::Begin, Cost::SendCpu { level, k }, extra);
            let gap_bytes = if wire > p.gap_above { k } else { 0 };
            tell!(self.advance(Clock::NicSend(n), At::Begin, Cost::Gap { level, gap_bytes }, 0));
        }
        // Saturating: once a clock passed the largest time the run stops (see `add`).
        let r = &mut self.rec.ranks[host as usize];
        r.overhead_ps = r.overhead_ps.saturating_add(busy);
        r.noise_ps = r.noise_ps.saturating_add(extra);
    }

    /// Whether the CPU clock `c` and send-NIC clock `n` are free at `ev`'s time; if
    /// not, `ev` waits for them.
    #[inline]
    pub(super) fn sender_free(&mut self, ev: Event, c: usize, n: usize) -> bool {
        if self.var.flows_on {
            let p = self.cluster_params.clone();
            self.var.before_send((n / self.nnics) as u32, ev.time, &mut self.nic_s[n], &p);
        }
        let free = self.cpu_free(c).max(self.nic_s[n]);
        if free > ev.time {
            self.block(ev, c, n, Needs::SendNic, free);
            return false;
        }
        true
    }

    pub(super) fn on_send<F: Frontend<O>>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let (c, n) = (self.ci(host, d.cpu), self.ni(host, d.nic));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let dst = d.peer as u32;
        let (p, level) = self.params(host, dst);
        let phase = if d.size <= p.eager_limit {
            Phase::Eager
        } else if self.rendezvous == Rendezvous::Handshake {
            Phase::Rts
        } else {
            Phase::Direct
        };
        let wire = if phase == Phase::Rts { 1 } else { d.size };
        let o = phase.overhead(&p);
        self.observe_begin(&ev, ev.id, Some(c), Some(Clock::NicSend(n)));
        self.charge_send(ev.id, host, c, n, ev.time, wire, &p, o, level);
        let id = self.alloc_msg(Msg {
            src: host,
            dst,
            tag: d.tag,
            size: d.size,
            send_op: ev.id,
            recv_op: NO_OP,
            phase,
            cpu: d.cpu,
            nic: d.nic,
            link_wait: 0,
        });
        self.rec.sent(host, dst, d.size);
        if phase == Phase::Rts {
            self.rec.control_messages += 1;
        }
        let t1 = self.add(ev.id, ev.time, o);
        self.inject(id, phase, level, t1, &p);
        let at = self.cpu[c];
        self.started(front, ev.id, ev.time, At::Begin);
        if phase == Phase::Eager {
            self.done(front, ev.id, at, At::Clock(Clock::Cpu(c)));
        }
    }

    /// A store, put or get leaves its origin under the send rules (always eager:
    /// one-sided messages have no rendezvous).
    pub(super) fn on_one_sided<F: Frontend<O>>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let (c, n) = (self.ci(host, d.cpu), self.ni(host, d.nic));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let dst = d.peer as u32;
        let (p, level) = self.params(host, dst);
        let phase = match d.kind {
            OpKind::Store => Phase::OneWay,
            OpKind::Put => Phase::PutData,
            _ => Phase::GetReq,
        };
        let id = self.alloc_msg(Msg {
            src: host,
            dst,
            tag: d.tag,
            size: d.size,
            send_op: ev.id,
            recv_op: NO_OP,
            phase,
            cpu: d.cpu,
            nic: d.nic,
            link_wait: 0,
        });
        let wire = self.wire_bytes(id, phase);
        self.observe_begin(&ev, ev.id, Some(c), Some(Clock::NicSend(n)));
        self.charge_send(ev.id, host, c, n, ev.time, wire, &p, phase.overhead(&p), level);
        if phase == Phase::GetReq {
            self.rec.control_messages += 1;
        } else {
            self.rec.sent(host, dst, d.size);
        }
        let t1 = self.add(ev.id, ev.time, p.overhead);
        self.inject(id, phase, level, t1, &p);
        let at = self.cpu[c];
        self.started(front, ev.id, ev.time, At::Begin);
        if phase == Phase::OneWay {
            self.done(front, ev.id, at, At::Clock(Clock::Cpu(c)));
        }
    }

    /// A protocol message (clear-to-send or rendezvous data) is sent under the send rules.
    pub(super) fn on_transmit<F: Frontend<O>>(&mut self, ev: Event, front: &mut F) {
        let phase = Phase::from_u8(ev.phase);
        let (from, to) = self.ends(ev.id, phase);
        let (cpu_idx, nic_idx, send_op) = {
            let m = &self.msgs[ev.id as usize];
            if phase == Phase::Cts {
                let r = front.op(m.recv_op);
                (r.cpu, r.nic, m.send_op)
            } else {
                (m.cpu, m.nic, m.send_op)
            }
        };
        let (c, n) = (self.ci(from, cpu_idx), self.ni(from, nic_idx));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let (p, level) = self.params(from, to);
        let wire = self.wire_bytes(ev.id, phase);
        let op = self.msg_op(ev.id, phase);
        let o = phase.overhead(&p);
        self.observe_begin(&ev, op, Some(c), Some(Clock::NicSend(n)));
        self.charge_send(op, from, c, n, ev.time, wire, &p, o, level);
        if phase == Phase::GetReply {
            self.rec.sent(from, to, wire);
        }
        let t1 = self.add(op, ev.time, o);
        self.inject(ev.id, phase, level, t1, &p);
        if phase == Phase::Data {
            self.done(front, send_op, self.cpu[c], At::Clock(Clock::Cpu(c)));
        }
    }
}
