pub mod analysis;
pub mod comparison;
pub mod data;
pub mod plots;
pub mod reference;
pub mod report;
pub mod sweep;
