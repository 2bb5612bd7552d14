//! The application suite of `APPS.md`, one file per application (shared parts of
//! an application pair, like EM3D's graph, in a file of their own).

pub mod connect;
pub mod em3d;
pub mod em3d_read;
pub mod em3d_write;
pub mod ft;
pub mod is;
pub mod lsd;
pub mod mg;
pub mod murphi;
pub mod nowsort;
pub mod radb;
pub mod radix;
pub mod sample;
