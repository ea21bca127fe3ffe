//! vsr2d's reports and benchmarks, a package on top of the simulator library `vsr2d` (which never uses
//! it); the command line (`vsr2d-cli`) runs them.
//!
//! Reports: HTML pages from `templates/`, with PNG plots (drawn with [`vsr2d::chart`]) and CSV/JSON
//! data. The framework every report uses sits at this crate's root (checks, csv, dir, fit, figure,
//! series, stats); each report is a folder that builds its data, checks, charts and page on it.
//! [`bench`](mod@bench): the SVSPS, rendering, cores and soft-cell benchmarks of `vsr2d bench`.

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
