//! Any bytes as an experiment file: parsing, validation, the resource limits and mapping the centre of
//! the init box must return (an experiment or an error naming a JSON path), never panic. What `vsr2d
//! evolve FILE` does before it runs anything.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vsr2d::evolve::limits::check_limits;
use vsr2d::evolve::{Experiment, Mapper};
use vsr2d::scenario::Limits;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(e) = Experiment::from_json(text) {
        if check_limits(&e, &Limits::DEFAULT).is_ok() {
            let _ = Mapper::new(&e.representation, &e.name, e.scenario.as_ref());
        }
    }
});
