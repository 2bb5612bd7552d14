//! One error type for the whole engine. Every message is a single line that names
//! what was wrong and where; the CLI prints it and exits with code 2.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A user-supplied value, file or flag is invalid.
    #[error("{0}")]
    Input(String),
    /// A GOAL file (or other schedule text) is malformed; `line` is 1-based.
    #[error("{file}:{line}: {msg}")]
    Parse { file: String, line: usize, msg: String },
    /// The simulated program cannot finish; the message lists stuck ranks and
    /// their pending operations.
    #[error("{0}")]
    Deadlock(String),
    /// A rank program found its answer wrong (or failed otherwise).
    #[error("the program failed: {0}")]
    Program(String),
    /// The caller asked the run to stop (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand for an [`Error::Input`] built with `format!` arguments.
#[macro_export]
macro_rules! input_err {
    ($($arg:tt)*) => { $crate::error::Error::Input(format!($($arg)*)) };
}
