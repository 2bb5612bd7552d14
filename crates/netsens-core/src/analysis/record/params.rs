//! The parameters a recorded run is a function of, and the values it is evaluated at.

use crate::error::{Error, Result};
use crate::platform::{LevelParams, Platform};

/// One parameter of the platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// L, o, g (ps) or G, O (ps/B) of level 0 (node) or 1 (cluster).
    Latency(u8),
    Overhead(u8),
    Gap(u8),
    GapPerByte(u8),
    OverheadPerByte(u8),
    /// Every wide-area link's latency (ps) and time per byte 1/bandwidth (ps/B).
    WanLatency,
    WanPerByte,
    /// 1/cpu_speed: the time of a computation per ps of its cost at speed 1.
    CpuTime,
}

/// Each level's parameters, in the order they are listed.
const LEVEL_PARAMS: [fn(u8) -> Param; 5] =
    [Param::Latency, Param::Overhead, Param::Gap, Param::GapPerByte, Param::OverheadPerByte];

impl Param {
    /// The parameter's name: `L`, `o`, `g`, `G`, `O` (cluster level), `node.L` …,
    /// `wan.L`, `wan.G`, `cpu`.
    pub fn name(self) -> String {
        let level = |l: u8| if l == 0 { "node." } else { "" };
        match self {
            Param::Latency(l) => format!("{}L", level(l)),
            Param::Overhead(l) => format!("{}o", level(l)),
            Param::Gap(l) => format!("{}g", level(l)),
            Param::GapPerByte(l) => format!("{}G", level(l)),
            Param::OverheadPerByte(l) => format!("{}O", level(l)),
            Param::WanLatency => "wan.L".into(),
            Param::WanPerByte => "wan.G".into(),
            Param::CpuTime => "cpu".into(),
        }
    }

    /// The unit its values are in.
    pub fn unit(self) -> &'static str {
        match self {
            Param::GapPerByte(_) | Param::OverheadPerByte(_) | Param::WanPerByte => "ps/B",
            Param::CpuTime => "1/cpu_speed",
            _ => "ps",
        }
    }

    /// The step the engine takes values of it in: 1 ps, or 1 fs/B (0.001 ps/B) for a
    /// per-byte cost (`PerByte`); `None` for the CPU's 1/speed, which is continuous.
    pub fn grid(self) -> Option<f64> {
        match self.unit() {
            "ps" => Some(1.0),
            "ps/B" => Some(0.001),
            _ => None,
        }
    }

    /// Every parameter of `platform` (node level only if it has one, wide-area only
    /// with a `[wan]` section).
    pub fn all(platform: &Platform) -> Vec<Param> {
        let mut v = Vec::new();
        let levels: &[u8] = if platform.node.is_some() { &[1, 0] } else { &[1] };
        for &l in levels {
            v.extend(LEVEL_PARAMS.iter().map(|f| f(l)));
        }
        if platform.wan.is_some() {
            v.extend([Param::WanLatency, Param::WanPerByte]);
        }
        v.push(Param::CpuTime);
        v
    }

    /// The parameter named `name` on `platform`, or one error line listing the names.
    pub fn parse(name: &str, platform: &Platform) -> Result<Param> {
        let all = Param::all(platform);
        all.iter().copied().find(|p| p.name() == name).ok_or_else(|| {
            let names: Vec<String> = all.iter().map(|p| p.name()).collect();
            Error::Input(format!("unknown parameter `{name}` for this platform; use one of {}", names.join(", ")))
        })
    }
}

/// Values of one level's parameters (ps, ps/B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelValues {
    pub latency: f64,
    pub overhead: f64,
    pub gap: f64,
    pub gap_per_byte: f64,
    pub overhead_per_byte: f64,
}

impl LevelValues {
    fn of(p: &LevelParams) -> Self {
        LevelValues {
            latency: p.latency as f64,
            overhead: p.overhead as f64,
            gap: p.gap as f64,
            gap_per_byte: p.gap_per_byte.fs_per_byte() as f64 / 1000.0,
            overhead_per_byte: p.overhead_per_byte.fs_per_byte() as f64 / 1000.0,
        }
    }
}

/// A point in parameter space: the values a recorded run is evaluated at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Node level (a copy of the cluster's when the platform has none), cluster level.
    pub levels: [LevelValues; 2],
    pub wan_latency: f64,
    pub wan_per_byte: f64,
    pub cpu_time: f64,
}

impl Point {
    /// The platform's own values.
    pub fn of(platform: &Platform) -> Point {
        let cluster = LevelValues::of(&platform.cluster);
        Point {
            levels: [platform.node.as_ref().map_or(cluster, LevelValues::of), cluster],
            wan_latency: platform.wan.as_ref().map_or(0.0, |w| w.latency as f64),
            wan_per_byte: platform.wan.as_ref().map_or(0.0, |w| w.per_byte.fs_per_byte() as f64 / 1000.0),
            cpu_time: 1.0 / platform.cpu_speed,
        }
    }

    pub fn get(&self, p: Param) -> f64 {
        match p {
            Param::Latency(l) => self.levels[l as usize].latency,
            Param::Overhead(l) => self.levels[l as usize].overhead,
            Param::Gap(l) => self.levels[l as usize].gap,
            Param::GapPerByte(l) => self.levels[l as usize].gap_per_byte,
            Param::OverheadPerByte(l) => self.levels[l as usize].overhead_per_byte,
            Param::WanLatency => self.wan_latency,
            Param::WanPerByte => self.wan_per_byte,
            Param::CpuTime => self.cpu_time,
        }
    }

    /// This point with `p` at `value`.
    pub fn with(&self, p: Param, value: f64) -> Point {
        let mut q = *self;
        let slot = match p {
            Param::Latency(l) => &mut q.levels[l as usize].latency,
            Param::Overhead(l) => &mut q.levels[l as usize].overhead,
            Param::Gap(l) => &mut q.levels[l as usize].gap,
            Param::GapPerByte(l) => &mut q.levels[l as usize].gap_per_byte,
            Param::OverheadPerByte(l) => &mut q.levels[l as usize].overhead_per_byte,
            Param::WanLatency => &mut q.wan_latency,
            Param::WanPerByte => &mut q.wan_per_byte,
            Param::CpuTime => &mut q.cpu_time,
        };
        *slot = value;
        q
    }
}
