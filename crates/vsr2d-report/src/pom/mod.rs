//! The `vsr2d pom` report: one directory with the run's CSV files, the Fig. 5–7 style plots, three-view
//! stills, `pom.mp4` and `index.html` (written last) with the acceptance table of spec §13, J, the
//! controls, the gait's phases and, for `vsr2d pom align`, the motion-capture comparison.
//!
//! - `plots`: the charts;
//! - `video`: frames of the three-view drawing, the mp4 and the stills;
//! - `report`: the acceptance table, the page and the files.

pub mod plots;
pub mod report;
pub mod video;

pub use report::{acceptance_table, write, Mocap, PomReport, PomReportError, ReportInput};
