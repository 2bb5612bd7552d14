//! Events that find the clocks they need busy wait in groups (by clock); one token
//! per group in the event queue stands for its lowest-sequence event.

use super::blocked::Needs;
use super::observe::Observer;
use super::queue::{Event, EventKind};
use super::Core;
use crate::time::Time;

impl<O: Observer + ?Sized> Core<O> {
    /// `ev` finds the clocks it needs busy until `free`: it waits in its group.
    pub(super) fn block(&mut self, ev: Event, cpu: usize, nic: usize, needs: Needs, free: Time) {
        let id = self.blocked.group(cpu, nic, needs);
        let g = self.blocked.get(id);
        let token_needed = !g.token_live || g.min_seq().is_none_or(|m| ev.seq < m);
        self.blocked.push(id, ev);
        if token_needed {
            self.push_token(id, free, ev.seq);
        }
    }

    /// A token for group `id`'s lowest sequence number `seq` at `time`; any earlier
    /// token of the group goes stale.
    pub(super) fn push_token(&mut self, id: u32, time: Time, seq: u64) {
        let g = self.blocked.get(id);
        g.version = (g.version + 1) & 0xFF_FFFF;
        g.token_live = true;
        let v = g.version;
        let token = Event { time, seq, id, kind: EventKind::Wake, phase: (v >> 16) as u8, aux: v as u16 };
        self.queue.defer(token, time);
    }

    /// A group's token: its lowest-sequence event, to hand to its handler; `None` for
    /// a stale token, and for one whose clocks were taken again (queued again).
    pub(super) fn wake(&mut self, ev: Event) -> Option<Event> {
        let version = ((ev.phase as u32) << 16) | ev.aux as u32;
        let g = self.blocked.get(ev.id);
        if !g.token_live || g.version != version {
            return None; // stale: a newer token of the group is in the queue
        }
        let (c, n, needs) = (g.cpu, g.nic, g.needs);
        // Clocks taken again since the token was queued: the event would only find them
        // busy and wait again with the same sequence number, so queue the token at the
        // new free time without handing the event to its handler. (With background
        // flows a handler first moves the NIC clocks itself: it must run.)
        if !self.var.flows_on {
            let free = self.group_free(c, n, needs);
            if free > ev.time {
                self.push_token(ev.id, free, ev.seq);
                return None;
            }
        }
        let g = self.blocked.get(ev.id);
        g.token_live = false;
        let mut next = self.blocked.pop(ev.id).expect("a live token has a waiting event");
        next.time = ev.time;
        Some(next)
    }

    /// When the clocks a group waits for are free: its CPU clock (and core), and the
    /// NIC clock its events need — what the group's handlers check (`on_calc`,
    /// `sender_free`, `on_arrive`).
    #[inline]
    fn group_free(&self, c: usize, n: usize, needs: Needs) -> Time {
        let nic = match needs {
            Needs::Cpu => 0,
            Needs::SendNic => self.nic_s[n],
            Needs::RecvNic => self.nic_r[n],
        };
        self.cpu_free(c).max(nic)
    }

    /// After a group's event ran: a token for the next one, if any waits.
    pub(super) fn after_wake(&mut self, ev: Event) {
        let g = self.blocked.get(ev.id);
        if g.token_live {
            return;
        }
        match g.min_seq() {
            Some(seq) => {
                let (c, n, needs) = (g.cpu, g.nic, g.needs);
                self.push_token(ev.id, self.group_free(c, n, needs).max(ev.time), seq);
            }
            None => self.blocked.release_if_idle(ev.id),
        }
    }
}
