//! The single integration-test binary (one link step for all suites).

mod cantilever_report;
mod golden;
mod physics;
mod render_golden;
#[cfg(feature = "video")]
mod video;
