//! netsens-apps: rank programs written once against [`netsens_core::program::Rank`].
//!
//! Every application is an `async fn` generic over `R: Rank` that uses the API only,
//! computes its answer on data generated from a seed and checks it, returning
//! `Err(why)` when it is wrong (the run then fails with `Error::Program`). [`app`]
//! holds what they share (an application's entry, the job it is asked to do, the
//! backend it runs on); the [`registry`] names them, gives their size presets
//! (`tiny`, `small`, `paper`) and runs one on the simulator.
//!
//! [`calibrate`] is the seeds' LogP calibration: two-rank microbenchmarks that recover
//! a platform's L, o, g, G, O and S from their own timestamps.
//!
//! The two programs in [`examples`] (a ping-pong over message sizes and a 2-D
//! stencil with halo exchange) show the API and test the front end; they are not part
//! of the application suite of `APPS.md`, which lives in [`suite`], one file per
//! application.

pub mod ace;
pub mod app;
pub mod calibrate;
pub mod data;
pub mod registry;
pub mod suite;

/// Small programs that show the API; not part of the suite.
pub mod examples {
    pub(crate) mod faults;
    pub mod pingpong;
    pub mod stencil;
}

pub use app::Size;
pub use registry::{list, run_app, AppInfo};
