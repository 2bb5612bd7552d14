//! The searches: a parameter's exact curve T(x) ([`curve`]) and its tolerance, the
//! largest change with T ≤ (1 + ε)·T0 ([`search`]: one search per parameter and ε),
//! all of a run's searches stepped together, a pass at a time, each pass carrying
//! every search's next points ([`analyze`]).
//!
//! Above the passes (each step is a pass), below the answer.

mod bracket;
pub mod curve;
mod floats;
mod grid;
pub mod search;
pub mod tolerances;
