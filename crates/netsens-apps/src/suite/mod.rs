//! The application suite of `APPS.md`, one file per application.

pub mod lsd;
pub mod radb;
pub mod radix;
