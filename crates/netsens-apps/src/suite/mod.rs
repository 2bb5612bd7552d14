//! The Split-C / Active-Message suite of `APPS.md` (Martin et al., ISCA'97):
//! fine-grained one-sided communication, one application per file.

pub mod em3d;
pub mod em3d_read;
pub mod em3d_write;
