//! The prices: a node's cost at given parameters, as the engine charges it
//! ([`price`], with the engine's rounding in floats that vectorize: [`float`]), and
//! where a rounded price steps as a parameter grows ([`stairs`] per byte,
//! [`cpu_stairs`] for the CPU's speed, from the sizes the record prices:
//! [`sizes`]): between two steps T is flat, so a search needs T at the steps alone.
//!
//! Above the record (it reads the nodes' kinds and bytes), below the passes.

pub mod cpu_stairs;
pub mod float;
pub mod price;
pub mod sizes;
pub mod stairs;
