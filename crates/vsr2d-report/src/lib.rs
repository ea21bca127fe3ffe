//! Reports: HTML pages from `templates/`, with PNG plots and CSV/JSON data.
//!
//! The framework every report uses sits here; each report (today the cantilever's) is a folder that
//! builds its data, checks, charts and page on it.

pub mod bench;
pub mod cantilever;
pub mod cells;
pub mod checks;
pub mod csv;
pub mod dir;
pub mod figure;
pub mod fit;
pub mod pom;
pub mod series;
pub mod stats;
pub mod study;
