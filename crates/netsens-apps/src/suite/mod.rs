//! The application suite of `APPS.md`, one file per application.

pub mod nowsort;
pub mod sample;
