//! The application suite of `APPS.md`, one file per application.

pub mod ft;
pub mod is;
pub mod mg;
