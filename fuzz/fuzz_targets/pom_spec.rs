//! Any bytes as a POM spec (`vsr2d pom SPEC`): parsing and validation (the model, the frames of the
//! chosen mode) must return a spec or an error naming its JSON path, never panic. The body is
//! `vsr2d::fuzzing::pom_spec`, which the stable harness of `cargo test` also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = vsr2d::fuzzing::pom_spec(data);
});
