//! Any bytes as a scenario file: parsing, validation and the resource estimate must return (a scenario
//! or an error naming a JSON path), never panic. What `vsr2d simulate FILE` does before it builds. The
//! body is `vsr2d::fuzzing::scenario`, which the stable harness of `cargo test` also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = vsr2d::fuzzing::scenario(data);
});
