//! Any bytes as an experiment file: parsing, validation, the resource limits and mapping the centre of
//! the init box must return (an experiment or an error naming a JSON path), never panic. What `vsr2d
//! evolve FILE` does before it runs anything. The body is `vsr2d::fuzzing::experiment`, which the stable
//! harness of `cargo test` also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = vsr2d::fuzzing::experiment(data);
});
