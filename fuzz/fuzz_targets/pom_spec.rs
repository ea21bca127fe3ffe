//! Any bytes as a POM spec (`vsr2d pom SPEC`): parsing and validation (the model, the frames of the
//! chosen mode) must return a spec or an error naming its JSON path, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vsr2d::pom::spec::PomSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = PomSpec::from_json(text);
});
