//! Overrides by key and value (`L` = `5us`, `clusters` = `4x8`, ...), as the command
//! line and sweeps give them: one at a time or several as one change, validated
//! before the platform changes.

use super::values::{
    parse_am_window, parse_clusters, parse_count, parse_cpu_speed, parse_ranks_per_node, parse_rendezvous,
    parse_wan_shape,
};
use crate::error::Result;
use crate::input_err;
use crate::platform::{Disks, Dist, LevelParams, Platform, Wan, WanShape};
use crate::units::{parse_per_byte, parse_size, parse_time};

/// Keys accepted by [`Platform::set`] and [`Platform::set_all`].
pub const SET_KEYS: &[&str] = &[
    "L",
    "o",
    "g",
    "G",
    "O",
    "S",
    "G_above",
    "o_control",
    "rendezvous",
    "am_window",
    "cpu_speed",
    "clusters",
    "ranks_per_node",
    "cores_per_node",
    "disk_bandwidth",
    "disks_per_node",
    "wan_latency",
    "wan_bandwidth",
    "wan_shape",
    "wan_hub",
    "wan_gateway",
    "latency_jitter",
    "wan_jitter",
    "detour_interval",
    "detour_duration",
];

impl Platform {
    /// Apply one CLI override to the cluster level (and the node level if present):
    /// key is one of `L o g G O S G_above o_control` (case-sensitive), or `rendezvous`, `cpu_speed`,
    /// `clusters`, `ranks_per_node`, `cores_per_node`, `wan_latency`, `wan_bandwidth`, `wan_shape`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let mut p = self.clone();
        p.apply(key, value)?;
        p.validate()?;
        *self = p;
        Ok(())
    }

    /// Apply several overrides as one change: the order does not matter, and the
    /// platform is validated once at the end (so `clusters = 4x8` may come before the
    /// wide-area links it needs, or `ranks_per_node` before `clusters`). On a platform
    /// without wide-area links, `wan_latency` and `wan_bandwidth` together add a full
    /// mesh of links (`wan_shape`, `wan_hub` may then change it); one without the other
    /// is an error. `wan_hub` is applied after `wan_shape`. Besides the keys of
    /// [`Platform::set`], `wan_hub` and the noise keys `latency_jitter`, `wan_jitter`,
    /// `detour_interval`, `detour_duration` are accepted (by `set` too). On error the
    /// platform is unchanged.
    pub fn set_all(&mut self, overrides: &[(&str, &str)]) -> Result<()> {
        let mut p = self.clone();
        if p.wan.is_none() {
            let last = |k: &str| overrides.iter().rev().find(|(key, _)| *key == k).map(|(_, v)| *v);
            let uses_wan = overrides.iter().find(|(k, _)| k.starts_with("wan_") && SET_KEYS.contains(k));
            match (last("wan_latency"), last("wan_bandwidth"), uses_wan) {
                (Some(l), Some(b), _) => {
                    p.wan = Some(Wan {
                        shape: WanShape::Full,
                        latency: parse_time("wan_latency", l)?,
                        per_byte: parse_per_byte("wan_bandwidth", b)?,
                        hub: 0,
                        gateway: 0,
                    });
                }
                (_, _, Some((k, _))) => {
                    return Err(input_err!(
                        "{k}: platform \"{}\" has no wide-area links; give wan_latency and wan_bandwidth together \
                         to add them",
                        self.name
                    ));
                }
                _ => {}
            }
        }
        // The hub last, once the shape it needs (star) is in place.
        let (hub, rest): (Vec<_>, Vec<_>) = overrides.iter().partition(|(k, _)| *k == "wan_hub");
        for (k, v) in rest.into_iter().chain(hub) {
            p.apply(k, v)?;
        }
        p.validate()?;
        *self = p;
        Ok(())
    }

    /// One override, without the cross-field checks of [`Platform::validate`].
    fn apply(&mut self, key: &str, value: &str) -> Result<()> {
        let levels = |p: &mut Platform, f: &dyn Fn(&mut LevelParams)| {
            f(&mut p.cluster);
            if let Some(n) = p.node.as_mut() {
                f(n);
            }
        };
        let no_wan = || {
            input_err!(
                "{key}: platform \"{}\" has no wide-area links; give wan_latency and wan_bandwidth together to \
                 add them",
                self.name
            )
        };
        match key {
            "L" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.latency = v);
            }
            "o" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.overhead = v);
            }
            "g" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.gap = v);
            }
            "G" => {
                let v = parse_per_byte(key, value)?;
                levels(self, &|l| l.gap_per_byte = v);
            }
            "O" => {
                let v = parse_per_byte(key, value)?;
                levels(self, &|l| l.overhead_per_byte = v);
            }
            "S" => {
                let v = parse_size(key, value)?;
                levels(self, &|l| l.eager_limit = v);
            }
            "G_above" => {
                let v = parse_size(key, value)?;
                levels(self, &|l| l.gap_above = v);
            }
            "o_control" => {
                let v = parse_time(key, value)?;
                levels(self, &|l| l.control_overhead = Some(v));
            }
            "rendezvous" => self.rendezvous = parse_rendezvous(key, value)?,
            "am_window" => self.am_window = Some(parse_am_window(key, value)?),
            "cpu_speed" => self.cpu_speed = parse_cpu_speed(key, value)?,
            "clusters" => self.shape.clusters = parse_clusters(key, value)?,
            "ranks_per_node" => self.shape.ranks_per_node = parse_ranks_per_node(key, value)?,
            "cores_per_node" => {
                self.shape.cores_per_node = Some(u32::try_from(parse_count(key, value, "2")?).unwrap_or(u32::MAX))
            }
            "wan_latency" => self.wan.as_mut().ok_or_else(no_wan)?.latency = parse_time(key, value)?,
            "wan_bandwidth" => self.wan.as_mut().ok_or_else(no_wan)?.per_byte = parse_per_byte(key, value)?,
            "wan_gateway" => self.wan.as_mut().ok_or_else(no_wan)?.gateway = parse_time(key, value)?,
            "wan_shape" => {
                let shape = parse_wan_shape(key, value)?;
                let w = self.wan.as_mut().ok_or_else(no_wan)?;
                w.shape = shape;
                if shape != WanShape::Star {
                    w.hub = 0;
                }
            }
            "wan_hub" => {
                let hub = usize::try_from(parse_count(key, value, "0")?).unwrap_or(usize::MAX);
                let w = self.wan.as_mut().ok_or_else(no_wan)?;
                if w.shape != WanShape::Star {
                    return Err(input_err!("{key}: a hub is only used with wan_shape = star"));
                }
                w.hub = hub;
            }
            "disk_bandwidth" => {
                let per_byte = parse_per_byte(key, value)?;
                let count = self.disks.as_ref().map_or(2, |d| d.count);
                self.disks = Some(Disks { count, per_byte });
            }
            "disks_per_node" => {
                let count = u32::try_from(parse_count(key, value, "2")?).unwrap_or(u32::MAX);
                self.disks
                    .as_mut()
                    .ok_or_else(|| input_err!("{key}: give disk_bandwidth first (the platform has no disks)"))?
                    .count = count;
            }
            "latency_jitter" => self.noise.latency_jitter = Dist::parse(key, value)?,
            "wan_jitter" => self.noise.wan_jitter = Dist::parse(key, value)?,
            "detour_interval" => self.noise.detour_interval = Dist::parse(key, value)?,
            "detour_duration" => self.noise.detour_duration = Dist::parse(key, value)?,
            k if k.starts_with("topology.") => self.set_topology_key(&k["topology.".len()..], value)?,
            _ => {
                return Err(input_err!(
                    "unknown platform parameter \"{key}\"; accepted: {}, topology.<key>",
                    SET_KEYS.join(", ")
                ))
            }
        }
        Ok(())
    }
}

impl Platform {
    /// `topology.<key> = value`: the `[topology]` key set as if written in the file
    /// (`taper = "2:1"`, `global_bandwidth = "3GB/s"`, `placement = "random"`); a
    /// value that is TOML (a number, a list) is read as such, anything else as text.
    fn set_topology_key(&mut self, key: &str, value: &str) -> Result<()> {
        let Some(t) = &self.topology else {
            return Err(input_err!("topology.{key}: platform \"{}\" has no [topology] to change", self.name));
        };
        let parsed = format!("v = {value}").parse::<toml::Table>().ok().and_then(|mut v| v.remove("v"));
        let mut table = t.table.clone();
        // A key replaces its alternative: a taper the up ports, a radix the down ports.
        let alternative = match key {
            "taper" => Some("up"),
            "up" => Some("taper"),
            "radix" => Some("down"),
            "down" => Some("radix"),
            _ => None,
        };
        if let Some(other) = alternative {
            table.remove(other);
        }
        // A new placement brings its own seed ("random:7"), or none.
        if key == "placement" {
            table.remove("seed");
        }
        table.insert(key.to_string(), parsed.unwrap_or_else(|| toml::Value::String(value.to_string())));
        self.topology = Some(crate::platform::topology::Topology::from_table(&table, &t.origin)?);
        Ok(())
    }
}
