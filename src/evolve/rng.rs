//! The run's random numbers (spec §7): one stream of the crate's SplitMix64 per run, seeded with the run
//! seed; its state is part of the checkpoint.

pub use crate::rng::SplitMix64 as Rng;

/// Name written in the log header.
pub(crate) const GENERATOR: &str = "splitmix64";
