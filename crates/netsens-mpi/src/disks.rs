//! The platform's disks, modelled in real time: each disk serves one request at a
//! time, first come first served, at the platform's time per byte. A request
//! completes at max(now, the disk's busy-until clock) + bytes · per_byte; the rank
//! waits for that deadline (yielding the CPU), as the simulator's disk does in
//! virtual time. Each process models its own node's disks: ranks that share a node
//! (ranks_per_node > 1) do not share their disks here.

use netsens_core::platform::Platform;
use netsens_core::time::{PerByte, Time};

pub(crate) struct Disks {
    per_byte: PerByte,
    /// Per disk: when it has finished every request so far (ps since the start).
    busy_until: Vec<Time>,
}

impl Disks {
    pub fn new(platform: &Platform) -> Option<Disks> {
        platform.disks.as_ref().map(|d| Disks { per_byte: d.per_byte, busy_until: vec![0; d.count as usize] })
    }

    /// Queue a request of `bytes` on `disk` at time `now`; the time it completes.
    pub fn request(&mut self, disk: u32, bytes: u64, now: Time) -> Result<Time, String> {
        let count = self.busy_until.len();
        let busy = self
            .busy_until
            .get_mut(disk as usize)
            .ok_or_else(|| format!("disk {disk} is used, but nodes have {count} disk(s)"))?;
        let end = now.max(*busy) + self.per_byte.cost(bytes);
        *busy = end;
        Ok(end)
    }
}

/// Why a rank cannot use disks on a platform without them.
pub(crate) const NO_DISKS: &str =
    "the program reads or writes a disk, but the platform has no disks; add a [disks] section";

#[cfg(test)]
mod tests {
    use super::*;
    use netsens_core::platform::presets;

    #[test]
    fn a_disk_serves_one_request_at_a_time() {
        let mut p = presets::get("loggopsim").unwrap();
        p.disks = Some(netsens_core::platform::Disks { count: 2, per_byte: PerByte::from_ps(1_000_000) });
        let mut d = Disks::new(&p).unwrap();
        // 1 MB/s = 1 us per byte: 10 B take 10 us; the second request on disk 0
        // queues behind the first (10 + 10), disk 1 is free (5 + 10).
        assert_eq!(d.request(0, 10, 0), Ok(10_000_000));
        assert_eq!(d.request(0, 10, 2_000_000), Ok(20_000_000));
        assert_eq!(d.request(1, 10, 5_000_000), Ok(15_000_000));
        // After the disk is idle a request starts at once.
        assert_eq!(d.request(0, 1, 50_000_000), Ok(51_000_000));
        assert!(d.request(2, 1, 0).unwrap_err().contains("2 disk(s)"));
    }
}
