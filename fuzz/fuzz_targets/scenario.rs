//! Any bytes as a scenario file: parsing, validation and the resource estimate must return (a scenario
//! or an error naming a JSON path), never panic. What `vsr2d simulate FILE` does before it builds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vsr2d::scenario::{Limits, Scenario};

fuzz_target!(|data: &[u8]| {
    // The command line reads the file as UTF-8 text first; other bytes are refused there.
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(scenario) = Scenario::from_json(text) {
        let _ = scenario.check_limits(&Limits::DEFAULT);
        let _ = scenario.steps();
    }
});
