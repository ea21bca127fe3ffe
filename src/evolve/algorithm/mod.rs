//! The optimizers: one file per algorithm, each behind the one [`Optimizer`] trait that the run
//! ([`super::run::Evolution`]) drives. The run owns everything the algorithms share (the genome →
//! scenario mapping, the cache, parallel or remote evaluation, the files, checkpoints and locks); an
//! algorithm only proposes genomes, takes their evaluations and keeps its own state.
//!
//! A new algorithm is one file here plus its arm in [`AlgorithmSpec`] and [`AlgorithmSpec::build`]
//! (the compiler points at the matches that need it); see docs/architecture.md.

pub mod cma_es;
pub mod ga;
pub mod map_elites;
pub mod nsga2;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    #[default]
    Max,
    Min,
}

impl Goal {
    /// The value the algorithm maximises; invalid individuals (None) are below every valid one.
    pub fn score(self, fitness: Option<f64>) -> f64 {
        match (fitness, self) {
            (None, _) => f64::NEG_INFINITY,
            (Some(v), Goal::Max) => v,
            (Some(v), Goal::Min) => -v,
        }
    }
}

/// One objective: a number of the result (a name or a JSON pointer, as `fitness.metric`) and its
/// direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: String,
    #[serde(default)]
    pub goal: Goal,
}

/// The experiment's `"algorithm"`, tagged by `"type"`. (The GA's parameters may also be given as the
/// experiment's `ea` block, as before.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AlgorithmSpec {
    /// The paper's μ + λ genetic algorithm (2D-VSR-Sim, Medvet et al. 2020): tournament selection,
    /// extended segment crossover or Gaussian mutation, μ + λ survival.
    Ga(ga::EaParams),
    /// (μ/μ_w, λ)-CMA-ES (Hansen 2016, "The CMA Evolution Strategy: A Tutorial"), separable for long
    /// genomes (Ros and Hansen 2008).
    CmaEs(cma_es::CmaEsParams),
    /// NSGA-II (Deb et al. 2002) over `fitness.objectives`.
    Nsga2(nsga2::Nsga2Params),
    /// MAP-Elites (Mouret and Clune 2015) on a grid archive over the descriptors.
    MapElites(map_elites::MapElitesParams),
}

impl AlgorithmSpec {
    /// The name written in logs and pictures (the `"type"`).
    pub fn name(&self) -> &'static str {
        match self {
            AlgorithmSpec::Ga(_) => "ga",
            AlgorithmSpec::CmaEs(_) => "cma_es",
            AlgorithmSpec::Nsga2(_) => "nsga2",
            AlgorithmSpec::MapElites(_) => "map_elites",
        }
    }

    /// Generations after generation 0.
    pub fn generations(&self) -> u32 {
        match self {
            AlgorithmSpec::Ga(p) => p.n_gen,
            AlgorithmSpec::CmaEs(p) => p.generations,
            AlgorithmSpec::Nsga2(p) => p.generations,
            AlgorithmSpec::MapElites(p) => p.generations,
        }
    }

    /// The most genomes one generation evaluates (the memory and cost limits read it).
    pub fn batch_size(&self, genome_size: usize) -> usize {
        match self {
            AlgorithmSpec::Ga(p) => p.n_pop,
            AlgorithmSpec::CmaEs(p) => p.lambda(genome_size),
            AlgorithmSpec::Nsga2(p) => p.population,
            AlgorithmSpec::MapElites(p) => p.initial.max(p.batch),
        }
    }

    /// Checks the algorithm's parameters and what it needs of the experiment: `prefix` is where its
    /// parameters are written (`ea.` or `algorithm.`), `objectives` how many `fitness.objectives` there
    /// are, `genome_size` the representation's.
    pub(crate) fn validate(
        &self,
        prefix: &str,
        objectives: usize,
        genome_size: usize,
    ) -> Result<(), super::EvolveError> {
        if !self.multi_objective() && objectives > 0 {
            return Err(super::EvolveError::Invalid {
                path: "fitness.objectives".into(),
                message: format!(
                    "are for a multi-objective algorithm, but the algorithm is `{}`: use \"algorithm\": \
                     {{\"type\": \"nsga2\"}}, or remove `objectives` and give one `metric`",
                    self.name()
                ),
            });
        }
        let invalid = |(field, message): (String, String)| {
            let path = if field == "genome_size" { "representation".to_string() } else { format!("{prefix}{field}") };
            super::EvolveError::Invalid { path, message }
        };
        match self {
            AlgorithmSpec::Ga(p) => p.validate(prefix),
            AlgorithmSpec::CmaEs(p) => p.validate(genome_size).map_err(invalid),
            AlgorithmSpec::Nsga2(p) => {
                p.validate(genome_size).map_err(invalid)?;
                if objectives < 2 {
                    return Err(super::EvolveError::Invalid {
                        path: "fitness.objectives".into(),
                        message: format!(
                            "gives {} objective(s): NSGA-II needs at least 2, e.g. [{{\"metric\": \"x_velocity\", \
                             \"goal\": \"max\"}}, {{\"metric\": \"control_effort\", \"goal\": \"min\"}}] (for one \
                             metric use the GA or CMA-ES)",
                            objectives
                        ),
                    });
                }
                Ok(())
            }
            AlgorithmSpec::MapElites(p) => {
                p.validate(genome_size).map_err(invalid)?;
                if p.descriptors.is_empty() {
                    return Err(super::EvolveError::Invalid {
                        path: format!("{prefix}descriptors"),
                        message: "is empty: give the archive's axes, e.g. [{\"metric\": \"x_distance\", \"min\": -2, \
                                  \"max\": 8, \"bins\": 10}]"
                            .into(),
                    });
                }
                let axes: Vec<map_elites::Axis> = p.descriptors.iter().map(map_elites::Descriptor::axis).collect();
                map_elites::GridArchive::validate_axes(&axes).map_err(|(field, message)| super::EvolveError::Invalid {
                    path: format!("{prefix}{}", field.replacen("axes", "descriptors", 1)),
                    message,
                })
            }
        }
    }

    /// Whether the algorithm optimises `fitness.objectives` rather than one metric.
    pub(crate) fn multi_objective(&self) -> bool {
        matches!(self, AlgorithmSpec::Nsga2(_))
    }

    /// The algorithm, ready to ask for generation 0.
    pub fn build(&self, setup: &Setup) -> Box<dyn Optimizer> {
        match self {
            AlgorithmSpec::Ga(p) => Box::new(ga::Ga::new(p.clone(), setup)),
            AlgorithmSpec::CmaEs(p) => Box::new(cma_es::CmaEsOptimizer::new(p.clone(), setup)),
            AlgorithmSpec::Nsga2(p) => Box::new(nsga2::Nsga2Optimizer::new(p.clone(), setup)),
            AlgorithmSpec::MapElites(p) => Box::new(map_elites::MapElitesOptimizer::new(p.clone(), setup)),
        }
    }
}

/// What every algorithm is built from: the genome's length and box, and what it maximises.
#[derive(Debug, Clone)]
pub struct Setup {
    pub genome_size: usize,
    /// The representation's init box (also the default bounds of the algorithms that keep genomes in one).
    pub init_box: [f64; 2],
    /// The direction of `fitness.metric`.
    pub goal: Goal,
    /// `fitness.objectives` (NSGA-II).
    pub objectives: Vec<Objective>,
}

/// One evaluated genome. `fitness` is the experiment's metric (NSGA-II: the first objective); None for
/// an invalid individual, which ranks below every valid one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Individual {
    pub id: u64,
    pub genome: Vec<f64>,
    pub fitness: Option<f64>,
    /// Every objective's value, in the experiment's order (NSGA-II).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objectives: Option<Vec<f64>>,
    /// The descriptors' values (MAP-Elites).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptors: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub birth: u32,
}

/// Named JSON fields in the order written: an algorithm's part of a `log.jsonl` line (after the run's
/// counts) and of `checkpoint.json`. Each value is kept as its JSON text, so a struct keeps its field
/// order (a `serde_json::Value` would sort the keys).
#[derive(Debug, Clone, Default)]
pub struct Fields(pub Vec<(&'static str, Box<RawValue>)>);

/// An algorithm's fields of one `log.jsonl` line.
pub(crate) type LogFields = Fields;

impl Fields {
    pub fn push(&mut self, name: &'static str, value: impl Serialize) {
        self.0.push((name, serde_json::value::to_raw_value(&value).expect("fields serialise")));
    }
}

impl Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A file of the run directory an algorithm rewrites every generation (`front.jsonl`, `archive.jsonl`).
pub struct RunFile {
    pub name: &'static str,
    pub text: String,
}

/// An optimizer as the run drives it: ask genomes, tell their evaluations, keep a state that a
/// checkpoint saves and restores bit for bit. Every random draw comes from the run's one generator,
/// passed in, so a run is the same for any number of threads or evaluators.
pub trait Optimizer: Send {
    /// The genomes to evaluate next, in order (generation 0 when nothing was told yet).
    fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>>;
    /// The evaluations of the genomes asked last, in the order asked (ids and birth set by the run).
    fn tell(&mut self, told: Vec<Individual>);
    /// What the algorithm holds, best first (the population, the archive's elites, the front first).
    fn ranked(&self) -> Vec<Individual>;
    /// The member `best.json` shows (None before generation 0 is told).
    fn best(&self) -> Option<Individual>;
    /// The fields of this generation's log line.
    fn log_fields(&self) -> LogFields;
    /// The state a checkpoint holds, as named fields of `checkpoint.json`.
    fn save(&self) -> Fields;
    /// The state of [`Optimizer::save`]; refused when it does not fit the experiment.
    fn restore(&mut self, state: Map<String, Value>) -> Result<(), String>;
    /// The algorithm's own files, rewritten after every generation; `scenario` maps a genome to its
    /// scenario (null when it maps to none).
    fn files(&self, _scenario: &dyn Fn(&[f64]) -> Value) -> Vec<RunFile> {
        Vec::new()
    }
}

/// `n` genomes uniform in `[lo, hi)`, gene by gene in order (generation 0 of every population-based
/// algorithm).
pub(crate) fn uniform_genomes(rng: &mut Rng, n: usize, genome_size: usize, [lo, hi]: [f64; 2]) -> Vec<Vec<f64>> {
    (0..n).map(|_| (0..genome_size).map(|_| rng.range(lo, hi)).collect()).collect()
}

/// The value an algorithm maximises for a single metric; invalid individuals are below every valid one.
pub fn score(goal: Goal, i: &Individual) -> f64 {
    goal.score(i.fitness)
}

/// The index of the best of `members`: highest score, ties to the lower index.
pub(crate) fn best_index(goal: Goal, members: &[Individual]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, i) in members.iter().enumerate() {
        if best.is_none_or(|b| score(goal, i) > score(goal, &members[b])) {
            best = Some(k);
        }
    }
    best
}

/// best / median / worst / mean / std of the valid fitness values (None when there are none), and the
/// population's gene diversity: the fields the GA logs and CMA-ES logs too.
pub(crate) fn push_fitness_stats(fields: &mut LogFields, members: &[Individual], goal: Goal) {
    let mut v: Vec<f64> = members.iter().filter_map(|i| i.fitness).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let (best, worst, median, mean, std) = if n == 0 {
        (None, None, None, None, None)
    } else {
        let (lo, hi) = (v[0], v[n - 1]);
        let (best, worst) = match goal {
            Goal::Max => (hi, lo),
            Goal::Min => (lo, hi),
        };
        let median = if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) };
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        (Some(best), Some(worst), Some(median), Some(mean), Some(var.sqrt()))
    };
    fields.push("best", best);
    fields.push("median", median);
    fields.push("worst", worst);
    fields.push("mean", mean);
    fields.push("std", std);
}

/// The mean over genes of the members' standard deviation of that gene.
pub fn diversity(members: &[Individual]) -> f64 {
    let n = members.len() as f64;
    let genes = members.first().map_or(0, |i| i.genome.len());
    if genes == 0 {
        return 0.0;
    }
    let total: f64 = (0..genes)
        .map(|k| {
            let mean = members.iter().map(|i| i.genome[k]).sum::<f64>() / n;
            (members.iter().map(|i| (i.genome[k] - mean).powi(2)).sum::<f64>() / n).sqrt()
        })
        .sum();
    total / genes as f64
}

/// The fields every single-metric algorithm logs about its best member.
pub(crate) fn push_best(fields: &mut LogFields, best: Option<&Individual>) {
    fields.push("best_id", best.map_or(0, |b| b.id));
    fields.push("best_birth_gen", best.map_or(0, |b| b.birth));
    fields.push("best_genome", best.map_or(&[][..], |b| &b.genome[..]));
}

/// Reads one named field of a saved state.
pub fn take<T: serde::de::DeserializeOwned>(state: &mut Map<String, Value>, name: &str) -> Result<T, String> {
    let value = state.remove(name).ok_or_else(|| format!("checkpoint.json has no `{name}`"))?;
    serde_json::from_value(value).map_err(|e| format!("checkpoint.json's `{name}` cannot be read ({e})"))
}
