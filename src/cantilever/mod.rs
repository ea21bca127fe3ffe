pub mod analysis;
pub mod data;
pub mod plots;
pub mod report;
