//! Who owns a run directory (see [`crate::output::run_dir`]): an `evolve` run directory is owned by its
//! experiment (the hash of the resolved experiment), a study directory by the study and its settings.

use std::path::Path;

use super::reader::logged_hash;
use super::EvolveError;
use crate::output::run_dir::{claim, Access, Owner, RunDir};

/// Holds `dir` for the run of the experiment whose hash is `hash`, exclusively, for as long as the
/// returned value lives. A directory of a run written before markers existed is adopted when its log
/// names the same experiment.
pub(crate) fn claim_run(dir: &Path, hash: &str) -> Result<RunDir, EvolveError> {
    let adopt = |d: &Path| logged_hash(d).as_deref() == Some(hash);
    Ok(claim(dir, &Owner { kind: "evolve", id: hash, adopt: &adopt }, Access::Exclusive)?)
}

/// Holds a study directory: shared by the processes that run some of its runs (`--shard`, `--config`,
/// `--run`: each then holds its run directories exclusively), exclusive for a process that writes the
/// report. `id` identifies the study and its settings; `run_hashes` yields, for each run directory the
/// study may have, its path relative to the root and its experiment's hash (to adopt a study directory
/// written before markers existed).
pub fn claim_study(
    root: &Path,
    id: &str,
    run_hashes: &dyn Fn() -> Vec<(String, String)>,
    access: Access,
) -> Result<RunDir, EvolveError> {
    let adopt = |d: &Path| run_hashes().iter().any(|(rel, hash)| logged_hash(&d.join(rel)).as_deref() == Some(hash));
    Ok(claim(root, &Owner { kind: "study", id, adopt: &adopt }, access)?)
}
