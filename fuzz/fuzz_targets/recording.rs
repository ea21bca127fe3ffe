//! Any bytes as a JSON Lines recording (`render --from`): the reader returns snapshots or an error
//! naming the line, never panics. The body is `vsr2d::fuzzing::recording`, which the stable harness of
//! `cargo test` also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = vsr2d::fuzzing::recording(data);
});
