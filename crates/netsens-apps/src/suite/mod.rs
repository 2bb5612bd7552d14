//! The application suite of `APPS.md`, one file per application.

pub mod connect;
pub mod murphi;
