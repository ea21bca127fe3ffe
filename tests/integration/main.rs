//! The single integration-test binary (one link step for all suites).

mod golden;
mod physics;
