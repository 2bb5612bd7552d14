//! The relations between a platform's fields that no single field shows: cluster
//! sizes against ranks per node, wide-area links for several clusters, noise settings
//! that go together. Both the TOML reader and the overrides end with it.

use crate::error::Result;
use crate::input_err;
use crate::platform::{variability, Platform, ALL_RANKS};

/// Number of clusters (1 when the shape does not list them).
fn num_clusters(p: &Platform) -> usize {
    p.shape.clusters.as_ref().map_or(1, Vec::len)
}

impl Platform {
    /// Check the relations between fields: `cpu_speed` finite and > 0, positive cluster
    /// sizes, `ranks_per_node` >= 1 and dividing every cluster size (or `all` on one cluster),
    /// `cores_per_node` >= 1, wide-area links when
    /// there is more than one cluster, the hub an existing cluster, detour interval and
    /// duration given together with a positive mean interval. Errors name TOML fields.
    pub fn validate(&self) -> Result<()> {
        if !(self.cpu_speed.is_finite() && self.cpu_speed > 0.0) {
            return Err(input_err!("cpu_speed: must be a finite number above 0, got {}", self.cpu_speed));
        }
        if let Some(d) = &self.disks {
            if d.count == 0 {
                return Err(input_err!("disks.count: must be at least 1, got 0"));
            }
        }
        let rpn = self.shape.ranks_per_node;
        if rpn == 0 {
            return Err(input_err!("shape.ranks_per_node: must be at least 1, got 0"));
        }
        if self.shape.cores_per_node == Some(0) {
            return Err(input_err!("shape.cores_per_node: must be at least 1, got 0"));
        }
        if let Some(sizes) = &self.shape.clusters {
            if rpn == ALL_RANKS && sizes.len() > 1 {
                return Err(input_err!(
                    "shape.ranks_per_node: \"all\" puts every rank on one node, which cannot span {} clusters",
                    sizes.len()
                ));
            }
            if sizes.is_empty() {
                return Err(input_err!("shape.clusters: the list of cluster sizes is empty"));
            }
            for (i, &n) in sizes.iter().enumerate() {
                if n == 0 {
                    return Err(input_err!("shape.clusters: cluster {i} has 0 ranks; sizes must be positive"));
                }
                if rpn != ALL_RANKS && n % rpn != 0 {
                    return Err(input_err!(
                        "shape.ranks_per_node: {rpn} does not divide the size {n} of cluster {i}; every cluster \
                         must hold whole nodes"
                    ));
                }
            }
        }
        let n = num_clusters(self);
        match &self.wan {
            None if n > 1 => {
                return Err(input_err!(
                    "shape.clusters: {n} clusters need wide-area links; add a [wan] section with latency and \
                     bandwidth"
                ))
            }
            Some(w) if w.hub >= n => {
                return Err(input_err!(
                    "wan.hub: cluster {} does not exist; the platform has {n} cluster{} (0..{})",
                    w.hub,
                    if n == 1 { "" } else { "s" },
                    n - 1
                ))
            }
            _ => {}
        }
        if self.topology.is_some() && n > 1 {
            return Err(input_err!(
                "topology: a [topology] is the network inside one cluster; it cannot be combined with {n} \
                 clusters joined by [wan] links"
            ));
        }
        let nz = &self.noise;
        match (nz.detour_interval.is_none(), nz.detour_duration.is_none()) {
            (false, true) => {
                return Err(input_err!("noise.detour_interval is given without noise.detour_duration; give both"))
            }
            (true, false) => {
                return Err(input_err!("noise.detour_duration is given without noise.detour_interval; give both"))
            }
            (false, false) if nz.detour_interval.mean_ps() <= 0.0 => {
                return Err(input_err!(
                    "noise.detour_interval: \"{}\" has mean 0; the time between detours must be positive",
                    nz.detour_interval
                ))
            }
            _ => {}
        }
        variability::validate(self, n)?;
        Ok(())
    }
}
