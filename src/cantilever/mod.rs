pub mod analysis;
pub mod data;
pub mod experiment;
pub mod plots;
pub mod report;
pub mod sweep;
