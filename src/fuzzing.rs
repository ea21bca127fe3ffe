//! The bodies of the fuzz targets, one definition shared by cargo-fuzz (`fuzz/fuzz_targets/*.rs`, nightly
//! or `RUSTC_BOOTSTRAP=1`) and the stable-toolchain harness that runs on every `cargo test`
//! (`tests/integration/fuzz.rs`). Each takes any bytes, does what the command line does with such a file
//! before it runs anything, and must return, never panic: `Ok` for an input that is accepted, `Err` with
//! the message for one that is refused (bytes that are not UTF-8 are refused before parsing, as the
//! command line refuses them when it reads the file).

use crate::evolve::limits::check_limits;
use crate::evolve::{Experiment, Mapper};
use crate::output::record::JsonlReader;
use crate::pom::spec::PomSpec;
use crate::scenario::{Limits, Scenario};

fn text(data: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(data).map_err(|e| format!("not UTF-8: {e}"))
}

/// A scenario file (`vsr2d simulate FILE` before it builds): parsing, validation and the resource estimate.
pub fn scenario(data: &[u8]) -> Result<(), String> {
    let scenario = Scenario::from_json(text(data)?).map_err(|e| e.to_string())?;
    scenario.check_limits(&Limits::DEFAULT).map_err(|e| e.to_string())?;
    let _ = scenario.steps();
    Ok(())
}

/// A JSON Lines recording (`render --from`): every snapshot, and what render reads of each before drawing.
pub fn recording(data: &[u8]) -> Result<(), String> {
    let reader = JsonlReader::from_reader(std::path::Path::new("fuzz.jsonl"), std::io::Cursor::new(data.to_vec()));
    for snapshot in reader {
        let s = snapshot.map_err(|e| e.to_string())?;
        let _ = s.bodies_bbox(None);
        let _ = s.voxel_robots().count();
    }
    Ok(())
}

/// An experiment file (`vsr2d evolve FILE` before it runs): parsing, validation, the resource limits and
/// mapping the centre of the init box.
pub fn experiment(data: &[u8]) -> Result<(), String> {
    let e = Experiment::from_json(text(data)?).map_err(|e| e.to_string())?;
    check_limits(&e, &Limits::DEFAULT).map_err(|e| e.to_string())?;
    Mapper::new(&e.representation, &e.name, e.scenario.as_ref()).map_err(|e| e.to_string())?;
    Ok(())
}

/// A POM spec (`vsr2d pom SPEC`): parsing and validation (the model, the frames of the chosen mode).
pub fn pom_spec(data: &[u8]) -> Result<(), String> {
    PomSpec::from_json(text(data)?).map(|_| ()).map_err(|e| e.to_string())
}
