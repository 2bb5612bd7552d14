//! Operations that use no network: computation on a CPU and disk requests.

use super::blocked::Needs;
use super::observe::{At, Clock, Cost, Key, Observer};
use super::queue::{Event, EventKind};
use super::{tell, Core, Frontend, OpDesc};
use crate::error::Error;

impl<O: Observer + ?Sized> Core<O> {
    pub(super) fn on_calc<F: Frontend<O>>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let c = self.ci(host, d.cpu);
        let free = self.cpu_free(c);
        if free > ev.time {
            self.block(ev, c, 0, Needs::Cpu, free);
            return;
        }
        let dur = self.scaled(ev.id, d.size);
        let extra = self.noise.detour(host, ev.time, dur);
        let end = self.add(ev.id, ev.time, dur);
        self.cpu[c] = self.add(ev.id, end, extra);
        self.occupy(c);
        self.observe_begin(&ev, ev.id, Some(c), None);
        self.observe_cpu(c, At::Begin, Cost::Compute(d.size), extra);
        let r = &mut self.rec.ranks[host as usize];
        r.compute_ps = r.compute_ps.saturating_add(dur);
        r.noise_ps = r.noise_ps.saturating_add(extra);
        self.started(front, ev.id, ev.time, At::Begin);
        self.done(front, ev.id, self.cpu[c], At::Clock(Clock::Cpu(c)));
    }

    /// A disk request: queued behind earlier requests to the same disk of the node,
    /// served at the disk's bandwidth; the CPU is not involved.
    pub(super) fn on_disk<F: Frontend<O>>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let Some(disks) = &self.disks else {
            self.fatal = Some(Error::Input(format!(
                "rank {} reads or writes a disk, but the platform has no disks; add a [disks] section or \
                 --disk-bandwidth",
                d.rank
            )));
            self.queue.clear();
            return;
        };
        if d.peer < 0 || d.peer as u32 >= disks.count {
            self.fatal = Some(Error::Input(format!(
                "rank {} uses disk {}, but nodes have {} disk(s)",
                d.rank, d.peer, disks.count
            )));
            self.queue.clear();
            return;
        }
        let disk = self.layout.node(d.rank) as usize * disks.count as usize + d.peer as usize;
        let start = ev.time.max(self.disk_free[disk]);
        let per_byte = disks.per_byte;
        let len = self.per_byte(ev.id, per_byte, d.size);
        let end = self.add(ev.id, start, len);
        self.disk_free[disk] = end;
        self.observe_begin(&ev, ev.id, None, Some(Clock::Disk(disk)));
        tell!(self.advance(Clock::Disk(disk), At::Begin, Cost::Fixed(len), 0));
        self.started(front, ev.id, start, At::Begin);
        // Reported at its end, so a program sees it finished only then.
        self.queue.push(end, EventKind::DiskDone, ev.id, 0, 0);
        tell!(self.queued(Key::Op(ev.id), At::Clock(Clock::Disk(disk)), Cost::Zero, 0));
    }
}
