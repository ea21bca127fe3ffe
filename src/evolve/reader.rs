//! The typed reader of an `evolve` run directory, for everyone who reads one (the fitness plot, the
//! archive and front pictures, `render --top`, studies, Python's `Evolution.log`, outside tools through
//! these types): the experiment, the log's header and generations, the final population, the
//! MAP-Elites archive and the NSGA-II front. The writer is [`super::run::Evolution`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{AlgorithmSpec, Experiment, Goal};

/// File names of a run directory.
pub(crate) const EXPERIMENT: &str = "experiment.json";
pub const LOG: &str = "log.jsonl";
pub const FINAL_POPULATION: &str = "final_population.jsonl";
pub const ARCHIVE: &str = "archive.jsonl";
pub(crate) const FRONT: &str = "front.jsonl";

/// Why a run directory cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} line {line}: {message}", path.display())]
    Line { path: PathBuf, line: usize, message: String },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// The first line of `log.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub vsr2d: String,
    pub generator: String,
    pub experiment_hash: String,
    pub genome_size: usize,
    /// The experiment with every default written out.
    pub experiment: Value,
}

/// One generation's line of `log.jsonl`: the run's counts, then the fields of the algorithm that
/// wrote it (None where that algorithm does not log them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub gen: u32,
    pub evaluations: u64,
    pub simulations: u64,
    pub cache_hits: u64,
    pub invalid: u64,
    /// GA, CMA-ES, MAP-Elites: the best, median and worst fitness (of the population, the generation's
    /// samples, the archive's elites).
    #[serde(default)]
    pub best: Option<f64>,
    #[serde(default)]
    pub median: Option<f64>,
    #[serde(default)]
    pub worst: Option<f64>,
    /// MAP-Elites: the fraction of the archive's bins holding an elite.
    #[serde(default)]
    pub coverage: Option<f64>,
    /// MAP-Elites: Σ (fitness − offset) over the elites.
    #[serde(default)]
    pub qd_score: Option<f64>,
    /// NSGA-II: the hypervolume of the first front, in the objectives' own units, against the worst value
    /// of each objective in generation 0 (see docs/evolution.md).
    #[serde(default)]
    pub hypervolume: Option<f64>,
    /// NSGA-II: every member's objectives, in population order (the front picture's scatter).
    #[serde(default)]
    pub objectives: Option<Vec<Option<Vec<f64>>>>,
    /// Every other field, as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One line of `final_population.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub rank: usize,
    pub fitness: Option<f64>,
    #[serde(default)]
    pub objectives: Option<Vec<f64>>,
    #[serde(default)]
    pub descriptors: Option<Vec<f64>>,
    pub genome: Vec<f64>,
    /// Null for a genome that maps to no scenario.
    pub scenario: Value,
}

/// One line of `archive.jsonl`: a filled bin of the MAP-Elites archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Elite {
    /// The bin's index along each descriptor.
    pub bin: Vec<usize>,
    pub descriptors: Vec<f64>,
    pub fitness: f64,
    pub genome: Vec<f64>,
    pub scenario: Value,
}

/// One line of `front.jsonl`: a member of the final NSGA-II front, in the order along the front.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontMember {
    /// In the experiment's order of `fitness.objectives`.
    pub objectives: Vec<f64>,
    pub genome: Vec<f64>,
    pub scenario: Value,
}

/// A run directory, read.
#[derive(Debug, Clone)]
pub struct RunDirectory {
    pub dir: PathBuf,
    /// The experiment as `experiment.json` gives it.
    pub experiment: Experiment,
    pub header: Header,
    pub generations: Vec<Generation>,
}

impl RunDirectory {
    /// Reads `experiment.json` and `log.jsonl` of the run in `dir`.
    pub fn open(dir: &Path) -> Result<RunDirectory, ReadError> {
        let path = dir.join(EXPERIMENT);
        let text = read(&path)?;
        let experiment = Experiment::from_json(&text)
            .map_err(|e| ReadError::Invalid { path: path.clone(), message: e.to_string() })?;
        let (header, generations) = read_log(&dir.join(LOG))?;
        Ok(RunDirectory { dir: dir.to_path_buf(), experiment, header, generations })
    }

    pub fn algorithm(&self) -> AlgorithmSpec {
        self.experiment.algorithm()
    }

    /// The direction of the fitness.
    pub fn goal(&self) -> Goal {
        self.experiment.fitness.goal
    }

    /// Whether the last generation is recorded and the final population written.
    pub fn finished(&self) -> bool {
        self.generations.len() == self.algorithm().generations() as usize + 1
            && self.dir.join(FINAL_POPULATION).is_file()
    }

    /// `final_population.jsonl`, best first.
    pub fn final_population(&self) -> Result<Vec<Member>, ReadError> {
        read_lines(&self.dir.join(FINAL_POPULATION))
    }

    /// `archive.jsonl` (MAP-Elites), in flat bin order.
    pub fn archive(&self) -> Result<Vec<Elite>, ReadError> {
        read_lines(&self.dir.join(ARCHIVE))
    }

    /// `front.jsonl` (NSGA-II), along the front.
    pub fn front(&self) -> Result<Vec<FrontMember>, ReadError> {
        read_lines(&self.dir.join(FRONT))
    }
}

fn read(path: &Path) -> Result<String, ReadError> {
    std::fs::read_to_string(path).map_err(|source| ReadError::Io { path: path.to_path_buf(), source })
}

/// The header and generation lines of a `log.jsonl`.
pub fn read_log(path: &Path) -> Result<(Header, Vec<Generation>), ReadError> {
    let text = read(path)?;
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let header = serde_json::from_str::<Value>(first)
        .ok()
        .and_then(|v| v.get("header").cloned())
        .and_then(|h| serde_json::from_value::<Header>(h).ok())
        .ok_or_else(|| ReadError::Line {
            path: path.to_path_buf(),
            line: 1,
            message: "is not a vsr2d run's log header".into(),
        })?;
    let generations = lines
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| ReadError::Line {
                path: path.to_path_buf(),
                line: i + 2,
                message: e.to_string(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((header, generations))
}

/// The hash a run's log header carries, if `dir` holds a readable `log.jsonl`.
pub(crate) fn logged_hash(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(LOG)).ok()?;
    let header: Value = serde_json::from_str(text.lines().next()?).ok()?;
    header.pointer("/header/experiment_hash")?.as_str().map(str::to_string)
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, ReadError> {
    read(path)?
        .lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| ReadError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}
