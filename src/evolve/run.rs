//! One evolutionary run (spec §2, §7, §8): generation 0, the generation loop, evaluation with the
//! cache on rayon, the log, the per-generation outputs and the checkpoint / resume.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::algorithm::{Fields, Individual, LogFields, Optimizer, Setup};
use super::cache::{fnv128, Cache, Evaluation};
use super::experiment::{metric_pointer, Experiment};
use super::represent::Mapper;
use super::rng::{Rng, GENERATOR};
use super::EvolveError;
use crate::output::atomic;
use crate::output::run_dir::RunDir;
use crate::scenario::Scenario;

/// Checkpoint format version.
const FORMAT: u32 = 1;

/// Where and how to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub dir: PathBuf,
    /// Worker threads (0: rayon's default).
    pub jobs: usize,
    /// Stop once this generation is recorded (tests simulate an interruption with it).
    pub stop_after: Option<u32>,
}

/// Reported after each recorded generation.
#[derive(Debug, Clone)]
pub struct GenerationDone {
    pub generation: u32,
    pub n_gen: u32,
    /// The best fitness of the population (None: every individual is invalid).
    pub best: Option<f64>,
    pub evaluations: u64,
    pub cache_hits: u64,
}

/// How a call to [`run`] ended.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The checkpoint's generation when the call started (None: a fresh run).
    pub resumed_from: Option<u32>,
    /// The last recorded generation.
    pub generation: u32,
    /// Whether generation n_gen is done and `final_population.jsonl` written.
    pub finished: bool,
    pub best: Option<f64>,
    /// Totals over the whole run (resumed parts included).
    pub totals: Totals,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub evaluations: u64,
    pub simulations: u64,
    pub cache_hits: u64,
    pub invalid: u64,
}

/// An algorithm's part of the checkpoint: written in its own field order, read back by name.
#[derive(Debug)]
enum State {
    Written(Fields),
    Read(Map<String, Value>),
}

impl Serialize for State {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            State::Written(f) => f.serialize(s),
            State::Read(m) => m.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for State {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Map::deserialize(d).map(State::Read)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Checkpoint {
    format: u32,
    experiment_hash: String,
    generation: u32,
    rng_state: u64,
    next_id: u64,
    /// The algorithm's state (the GA's: `population`).
    #[serde(flatten)]
    algorithm: State,
    cache: Vec<(String, Evaluation)>,
    totals: Totals,
    /// Length of `log.jsonl` after this generation: a resume truncates it to this. (`timing.jsonl` is
    /// cut by generation instead: its length depends on wall-clock values, and the checkpoint must not.)
    log_bytes: u64,
}

/// One line of `log.jsonl` (spec §8): the run's counts, then the algorithm's own fields (the GA's:
/// `duplicates_kept`, `retries`, fitness statistics over the valid members of the population after
/// survival, `diversity` and the best member), then why individuals were invalid.
#[derive(Debug, Serialize)]
struct LogLine {
    gen: u32,
    evaluations: u64,
    simulations: u64,
    cache_hits: u64,
    invalid: u64,
    #[serde(flatten)]
    algorithm: LogFields,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    invalid_reasons: BTreeMap<String, u64>,
}

/// What one batch of evaluations cost.
#[derive(Debug, Default)]
struct BatchCounts {
    simulations: u64,
    cache_hits: u64,
    invalid: u64,
    reasons: BTreeMap<String, u64>,
}

struct Files {
    dir: PathBuf,
    log: PathBuf,
    timing: PathBuf,
    checkpoint: PathBuf,
}

impl Files {
    fn new(dir: &Path) -> Files {
        Files {
            dir: dir.to_path_buf(),
            log: dir.join("log.jsonl"),
            timing: dir.join("timing.jsonl"),
            checkpoint: dir.join("checkpoint.json"),
        }
    }
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> EvolveError + '_ {
    move |source| EvolveError::Write { path: path.to_path_buf(), source }
}

fn append_line(path: &Path, line: &str) -> Result<u64, EvolveError> {
    let mut f = OpenOptions::new().create(true).append(true).open(path).map_err(write_err(path))?;
    f.write_all(format!("{line}\n").as_bytes()).map_err(write_err(path))?;
    f.flush().map_err(write_err(path))?;
    Ok(f.metadata().map_err(write_err(path))?.len())
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), EvolveError> {
    atomic::write(path, bytes).map_err(write_err(path))
}

/// An evolutionary run driven one generation at a time: [`Evolution::ask`] gives the scenarios that
/// must be simulated, [`Evolution::tell`] takes their records (in order) and records the generation.
/// Whoever evaluates in between (the local thread pool of [`run`], Python's `evaluate_many`, a Ray
/// cluster) the run directory gets the same bytes: the algorithm, the cache and the files stay here,
/// and a record is the same JSON ([`crate::batch::evaluate_record`]) wherever it was made.
pub struct Evolution {
    /// The run directory's ownership and lock (released when the run is dropped).
    _owned: RunDir,
    experiment: Experiment,
    mapper: Mapper,
    optimizer: Box<dyn Optimizer>,
    /// Generations after generation 0.
    n_gen: u32,
    files: Files,
    hash: String,
    /// Whether generation 0 is recorded.
    started: bool,
    /// The last recorded generation (0 also before generation 0 is recorded).
    generation: u32,
    rng: Rng,
    next_id: u64,
    cache: Cache,
    totals: Totals,
    log_bytes: u64,
    resumed_from: Option<u32>,
    /// The generation asked for and not yet told.
    pending: Option<Pending>,
}

/// A scenario [`Evolution::ask`] wants simulated: the scenario and its canonical JSON (the text whose
/// hash keys the cache; what to ship to another process).
#[derive(Debug, Clone)]
pub struct Asked {
    pub scenario: Scenario,
    pub json: String,
}

/// Where each genome of an asked generation gets its evaluation.
enum Slot {
    Done(Evaluation),
    /// The index of its scenario in the asked list.
    Asked(usize),
}

struct Pending {
    genomes: Vec<Vec<f64>>,
    slots: Vec<Slot>,
    asked: Vec<Asked>,
    keys: Vec<u128>,
    cache_hits: u64,
    started: Instant,
    asked_at: Instant,
}

/// Runs (or resumes) the experiment in `options.dir`, simulating on a local thread pool of
/// `options.jobs` threads. An existing `checkpoint.json` of the same experiment is resumed; one of
/// another experiment is refused. `observer` sees every recorded generation.
pub fn run(
    experiment: &Experiment,
    experiment_text: &str,
    options: &RunOptions,
    observer: &mut dyn FnMut(&GenerationDone),
) -> Result<RunSummary, EvolveError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .build()
        .map_err(|source| EvolveError::ThreadPool { jobs: options.jobs, source })?;
    let mut evolution = Evolution::open(experiment.clone(), experiment_text, &options.dir)?;
    while !evolution.finished() && options.stop_after.is_none_or(|k| !evolution.recorded(k)) {
        let asked = evolution.ask()?;
        let records: Vec<Value> =
            pool.install(|| asked.par_iter().map(|a| crate::batch::evaluate_record(&a.scenario)).collect());
        observer(&evolution.tell(records)?);
    }
    Ok(evolution.summary())
}

impl Evolution {
    /// Opens the run directory `dir`: resumes its checkpoint (refused if it is another experiment's),
    /// or starts a fresh run there (the experiment's text is saved as `experiment.json`).
    pub fn open(experiment: Experiment, experiment_text: &str, dir: &Path) -> Result<Evolution, EvolveError> {
        let mapper = Mapper::new(&experiment.representation, &experiment.name, experiment.scenario.as_ref())?;
        let resolved = experiment.resolved_json();
        let hash = format!("{:032x}", fnv128(resolved.as_bytes()));
        let algorithm = experiment.algorithm();
        let setup = Setup {
            genome_size: mapper.genome_size(),
            init_box: mapper.spec.init_box(),
            goal: experiment.fitness.goal,
            objectives: experiment.fitness.objectives.clone(),
        };
        // Refuses a foreign or busy directory untouched; held (locked) while this value lives.
        let owned = super::owner::claim_run(dir, &hash)?;
        let files = Files::new(dir);
        fs::create_dir_all(files.dir.join("generations")).map_err(write_err(&files.dir))?;
        let mut evolution = Evolution {
            _owned: owned,
            rng: Rng::new(experiment.seed),
            cache: Cache::new(experiment.cache),
            optimizer: algorithm.build(&setup),
            n_gen: algorithm.generations(),
            experiment,
            mapper,
            files,
            hash,
            started: false,
            generation: 0,
            next_id: 0,
            totals: Totals::default(),
            log_bytes: 0,
            resumed_from: None,
            pending: None,
        };
        if evolution.files.checkpoint.exists() {
            evolution.resume()?;
            evolution.resumed_from = Some(evolution.generation);
            if evolution.finished() {
                // A run killed between its last checkpoint and this file gets it now.
                evolution.write_final_population()?;
            }
        } else {
            evolution.start(experiment_text, &resolved)?;
        }
        Ok(evolution)
    }

    /// Whether generation n_gen is recorded (and `final_population.jsonl` written).
    pub fn finished(&self) -> bool {
        self.started && self.generation >= self.n_gen
    }

    /// Whether generation `k` is recorded.
    pub fn recorded(&self, k: u32) -> bool {
        self.started && self.generation >= k
    }

    /// The last recorded generation (None before generation 0 is).
    pub fn generation(&self) -> Option<u32> {
        self.started.then_some(self.generation)
    }

    pub fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    /// The genome → scenario mapping of the run.
    pub fn mapper(&self) -> &Mapper {
        &self.mapper
    }

    pub fn summary(&self) -> RunSummary {
        RunSummary {
            resumed_from: self.resumed_from,
            generation: self.generation,
            finished: self.finished(),
            best: self.optimizer.best().and_then(|b| b.fitness),
            totals: self.totals,
        }
    }

    /// The next generation's scenarios to simulate, in order: the distinct mapped scenarios of the
    /// genomes the algorithm asks for that the cache does not hold. Asking again before telling gives
    /// the same scenarios.
    pub fn ask(&mut self) -> Result<&[Asked], EvolveError> {
        if self.finished() {
            return Err(EvolveError::Finished { dir: self.files.dir.clone(), n_gen: self.n_gen });
        }
        if self.pending.is_none() {
            let started = Instant::now();
            let genomes = self.optimizer.ask(&mut self.rng);
            self.pending = Some(self.lookup(genomes, started));
        }
        Ok(&self.pending.as_ref().expect("asked above").asked)
    }

    /// The genomes of the generation asked and not yet told, in the algorithm's order (each asked
    /// scenario maps from one or more of them).
    pub fn asked_genomes(&self) -> Option<&[Vec<f64>]> {
        self.pending.as_ref().map(|p| &p.genomes[..])
    }

    /// Maps the genomes in order; cache lookups in order; the distinct missing scenarios are asked. So
    /// the cache and the counts do not depend on who evaluates, or how many threads.
    fn lookup(&mut self, genomes: Vec<Vec<f64>>, started: Instant) -> Pending {
        let mut slots = Vec::with_capacity(genomes.len());
        let mut asked = Vec::new();
        let mut keys = Vec::new();
        let mut asked_index: HashMap<u128, usize> = HashMap::new();
        let mut cache_hits = 0;
        for genome in &genomes {
            match self.mapper.map(genome) {
                Err(e) => slots.push(Slot::Done(Evaluation::invalid(e.to_string()))),
                Ok((scenario, json)) => {
                    let key = fnv128(json.as_bytes());
                    if let Some(e) = self.cache.get(key) {
                        cache_hits += 1;
                        slots.push(Slot::Done(e));
                    } else if let Some(j) = asked_index.get(&key) {
                        cache_hits += 1;
                        slots.push(Slot::Asked(*j));
                    } else {
                        asked_index.insert(key, asked.len());
                        slots.push(Slot::Asked(asked.len()));
                        asked.push(Asked { scenario, json });
                        keys.push(key);
                    }
                }
            }
        }
        Pending { genomes, slots, asked, keys, cache_hits, started, asked_at: Instant::now() }
    }

    /// Records the asked generation from its records, one per asked scenario in order: a run's result
    /// (its fitness is the number at the experiment's metric) or an error record `{"error": ...}` (an
    /// invalid individual). Writes the log line, the best scenario and the checkpoint (and, after
    /// generation n_gen, `final_population.jsonl`).
    pub fn tell(&mut self, records: Vec<Value>) -> Result<GenerationDone, EvolveError> {
        let Some(pending) = self.pending.take() else {
            return Err(EvolveError::Tell { reason: "nothing was asked: call ask() first".into() });
        };
        if records.len() != pending.asked.len() {
            let reason = format!(
                "{} records for {} asked scenarios (give one per scenario, in order)",
                records.len(),
                pending.asked.len()
            );
            self.pending = Some(pending);
            return Err(EvolveError::Tell { reason });
        }
        // Every record is checked before anything is recorded: a bad tell leaves the generation asked.
        for (i, (a, r)) in pending.asked.iter().zip(&records).enumerate() {
            if let Err(reason) = self.check_shape(&a.scenario, r) {
                self.pending = Some(pending);
                return Err(EvolveError::Tell { reason: format!("results[{i}] {reason}") });
            }
        }
        let eval_s = pending.asked_at.elapsed().as_secs_f64();
        let results: Vec<Evaluation> =
            pending.asked.iter().zip(&records).map(|(a, r)| self.evaluation(&a.scenario, r)).collect();
        for (key, e) in pending.keys.iter().zip(&results) {
            self.cache.insert(*key, e.clone());
        }
        let mut counts =
            BatchCounts { simulations: results.len() as u64, cache_hits: pending.cache_hits, ..Default::default() };
        let evaluations: Vec<Evaluation> = pending
            .slots
            .into_iter()
            .map(|s| match s {
                Slot::Done(e) => e,
                Slot::Asked(j) => results[j].clone(),
            })
            .collect();
        for e in &evaluations {
            if let Some(reason) = &e.error {
                counts.invalid += 1;
                *counts.reasons.entry(reason.clone()).or_default() += 1;
            }
        }
        if self.started {
            self.generation += 1;
        }
        let birth = self.generation;
        let told: Vec<Individual> = pending
            .genomes
            .into_iter()
            .zip(evaluations)
            .map(|(genome, e)| {
                let id = self.next_id;
                self.next_id += 1;
                Individual {
                    id,
                    genome,
                    fitness: e.fitness,
                    objectives: e.objectives,
                    descriptors: e.descriptors,
                    error: e.error,
                    birth,
                }
            })
            .collect();
        let evaluated = told.len() as u64;
        self.optimizer.tell(told);
        if !self.started {
            self.started = true;
            if let Some(best) = self.optimizer.best() {
                if let Ok((scenario, _)) = self.mapper.map(&best.genome) {
                    write_atomic(&self.files.dir.join("best_gen0.json"), pretty(&scenario).as_bytes())?;
                }
            }
        }
        let done = self.record(evaluated, counts, pending.started, eval_s)?;
        if self.finished() {
            self.write_final_population()?;
        }
        Ok(done)
    }

    /// Whether `record` has the shape of a result of `scenario` for this experiment: an error record,
    /// or an object with a value (a number, or null for an invalid one) at every pointer the algorithm
    /// reads. A record without one is no result of this scenario (a result of another task, a made-up
    /// dict): refused rather than recorded as an invalid individual.
    fn check_shape(&self, scenario: &Scenario, record: &Value) -> Result<(), String> {
        let Some(object) = record.as_object() else {
            return Err(
                "is not a result (a JSON object): give what evaluate_many returns for the asked scenario".into()
            );
        };
        if object.contains_key("error") {
            return Ok(());
        }
        let fitness = &self.experiment.fitness;
        let metrics: Vec<&str> = if fitness.objectives.is_empty() {
            vec![fitness.metric.as_str()]
        } else {
            fitness.objectives.iter().map(|o| o.metric.as_str()).collect()
        };
        if let super::algorithm::AlgorithmSpec::MapElites(m) = self.experiment.algorithm() {
            let descriptors: Vec<String> = m.descriptors.iter().map(|d| d.metric.clone()).collect();
            for d in descriptors {
                let pointer = metric_pointer(&d, fitness.robot, &scenario.task)?;
                if record.pointer(&pointer).is_none() {
                    return Err(missing(&pointer));
                }
            }
        }
        for metric in metrics {
            let pointer = metric_pointer(metric, fitness.robot, &scenario.task)?;
            if record.pointer(&pointer).is_none() {
                return Err(missing(&pointer));
            }
        }
        Ok(())
    }

    /// An asked scenario's evaluation from its record: the numbers the algorithm reads (the fitness
    /// metric; the objectives; the descriptors), or why there are none.
    fn evaluation(&self, scenario: &Scenario, record: &Value) -> Evaluation {
        if let Some(error) = record.get("error") {
            return Evaluation::invalid(error.as_str().map_or_else(|| error.to_string(), str::to_string));
        }
        let number = |metric: &str, what: &str| -> Result<f64, String> {
            let pointer = metric_pointer(metric, self.experiment.fitness.robot, &scenario.task)?;
            match record.pointer(&pointer).and_then(Value::as_f64) {
                None => Err(format!("the result has no number at {pointer}")),
                Some(v) if !v.is_finite() => Err(format!("the {what} is {v}")),
                Some(v) => Ok(v),
            }
        };
        let objectives = &self.experiment.fitness.objectives;
        let evaluated = (|| -> Result<Evaluation, String> {
            let objectives = if objectives.is_empty() {
                None
            } else {
                Some(objectives.iter().map(|o| number(&o.metric, "objective")).collect::<Result<Vec<f64>, _>>()?)
            };
            let fitness = match &objectives {
                Some(values) => values[0],
                None => number(&self.experiment.fitness.metric, "fitness metric")?,
            };
            let descriptors = match self.experiment.algorithm() {
                super::algorithm::AlgorithmSpec::MapElites(m) => Some(
                    m.descriptors.iter().map(|d| number(&d.metric, "descriptor")).collect::<Result<Vec<f64>, _>>()?,
                ),
                _ => None,
            };
            Ok(Evaluation { fitness: Some(fitness), objectives, descriptors, error: None })
        })();
        evaluated.unwrap_or_else(Evaluation::invalid)
    }

    /// A fresh run: stale outputs removed, `experiment.json`, a log with its header, an empty timing file.
    fn start(&mut self, text: &str, resolved: &str) -> Result<(), EvolveError> {
        let dir = self.files.dir.clone();
        // Outputs of an earlier run that died before its first checkpoint must not mix with this one's.
        for name in ["best.json", "best_gen0.json", "final_population.jsonl", "front.jsonl", "archive.jsonl"] {
            let _ = fs::remove_file(dir.join(name));
        }
        if let Ok(entries) = fs::read_dir(dir.join("generations")) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with("gen-") {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        write_atomic(&dir.join("experiment.json"), text.as_bytes())?;
        let header = json!({ "header": {
            "vsr2d": env!("CARGO_PKG_VERSION"),
            "generator": GENERATOR,
            "experiment_hash": self.hash,
            "genome_size": self.mapper.genome_size(),
            "experiment": serde_json::from_str::<Value>(resolved).expect("resolved JSON parses"),
        }});
        let header = format!("{header}\n");
        write_atomic(&self.files.log, header.as_bytes())?;
        write_atomic(&self.files.timing, b"")?;
        self.log_bytes = header.len() as u64;
        Ok(())
    }

    fn resume(&mut self) -> Result<(), EvolveError> {
        let path = &self.files.checkpoint;
        let text = fs::read_to_string(path).map_err(|source| EvolveError::Read { path: path.clone(), source })?;
        let resume_err = |reason: String| EvolveError::Resume { dir: self.files.dir.clone(), reason };
        let c: Checkpoint =
            serde_json::from_str(&text).map_err(|e| resume_err(format!("checkpoint.json cannot be read ({e})")))?;
        if c.format != FORMAT {
            return Err(resume_err(format!("checkpoint.json has format {} (this vsr2d writes {FORMAT})", c.format)));
        }
        if c.experiment_hash != self.hash {
            return Err(resume_err(
                "it holds a run of a different experiment (the experiment's hash differs from checkpoint.json's)"
                    .into(),
            ));
        }
        let state = match c.algorithm {
            State::Read(m) => m,
            State::Written(_) => unreachable!("a read checkpoint holds what was read"),
        };
        self.optimizer.restore(state).map_err(resume_err)?;
        // Drop whatever an interrupted generation appended after the checkpoint.
        let log = &self.files.log;
        let f = OpenOptions::new()
            .write(true)
            .open(log)
            .map_err(|e| resume_err(format!("{} cannot be opened ({e})", log.display())))?;
        if f.metadata().map_err(write_err(log))?.len() < c.log_bytes {
            return Err(resume_err(format!("{} is shorter than the checkpoint says", log.display())));
        }
        f.set_len(c.log_bytes).map_err(write_err(log))?;
        let timing = fs::read_to_string(&self.files.timing).unwrap_or_default();
        let kept: String = timing
            .lines()
            .filter(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .and_then(|v| v["gen"].as_u64())
                    .is_some_and(|g| g <= c.generation as u64)
            })
            .map(|l| format!("{l}\n"))
            .collect();
        write_atomic(&self.files.timing, kept.as_bytes())?;
        self.started = true;
        self.generation = c.generation;
        self.rng = Rng { state: c.rng_state };
        self.next_id = c.next_id;
        self.cache = Cache::import(self.experiment.cache, c.cache).map_err(resume_err)?;
        self.totals = c.totals;
        self.log_bytes = c.log_bytes;
        Ok(())
    }

    /// Appends the generation's log and timing lines, writes its best scenario and `best.json`, the
    /// algorithm's own files, then the checkpoint (last, so an interruption before it only repeats this
    /// generation).
    fn record(
        &mut self,
        evaluations: u64,
        counts: BatchCounts,
        started: Instant,
        eval_s: f64,
    ) -> Result<GenerationDone, EvolveError> {
        self.totals.evaluations += evaluations;
        self.totals.simulations += counts.simulations;
        self.totals.cache_hits += counts.cache_hits;
        self.totals.invalid += counts.invalid;
        let line = LogLine {
            gen: self.generation,
            evaluations,
            simulations: counts.simulations,
            cache_hits: counts.cache_hits,
            invalid: counts.invalid,
            algorithm: self.optimizer.log_fields(),
            invalid_reasons: counts.reasons,
        };
        self.log_bytes = append_line(&self.files.log, &serde_json::to_string(&line).expect("log lines serialise"))?;
        let best = self.optimizer.best();
        if let Some(Ok((scenario, _))) = best.as_ref().map(|b| self.mapper.map(&b.genome)) {
            let text = pretty(&scenario);
            let name = format!("gen-{:04}.json", self.generation);
            write_atomic(&self.files.dir.join("generations").join(name), text.as_bytes())?;
            write_atomic(&self.files.dir.join("best.json"), text.as_bytes())?;
        }
        let scenario_of = |genome: &[f64]| self.scenario_value(genome);
        for file in self.optimizer.files(&scenario_of) {
            write_atomic(&self.files.dir.join(file.name), file.text.as_bytes())?;
        }
        let timing = json!({ "gen": self.generation, "wall_s": started.elapsed().as_secs_f64(), "eval_s": eval_s });
        append_line(&self.files.timing, &timing.to_string())?;
        let checkpoint = Checkpoint {
            format: FORMAT,
            experiment_hash: self.hash.clone(),
            generation: self.generation,
            rng_state: self.rng.state,
            next_id: self.next_id,
            algorithm: State::Written(self.optimizer.save()),
            cache: self.cache.export(),
            totals: self.totals,
            log_bytes: self.log_bytes,
        };
        let text = serde_json::to_string(&checkpoint).expect("checkpoints serialise");
        write_atomic(&self.files.checkpoint, text.as_bytes())?;
        Ok(GenerationDone {
            generation: self.generation,
            n_gen: self.n_gen,
            best: best.and_then(|b| b.fitness),
            evaluations,
            cache_hits: counts.cache_hits,
        })
    }

    /// A genome's scenario as JSON (null when it maps to none).
    fn scenario_value(&self, genome: &[f64]) -> Value {
        match self.mapper.map(genome) {
            Ok((s, _)) => serde_json::to_value(&s).expect("scenarios serialise"),
            Err(_) => Value::Null,
        }
    }

    /// `final_population.jsonl`: what the algorithm holds, best first.
    fn write_final_population(&self) -> Result<(), EvolveError> {
        let mut out = String::new();
        for (rank, i) in self.optimizer.ranked().into_iter().enumerate() {
            let line = FinalLine {
                rank: rank + 1,
                fitness: i.fitness,
                objectives: i.objectives.as_deref(),
                descriptors: i.descriptors.as_deref(),
                genome: &i.genome,
                scenario: self.scenario_value(&i.genome),
            };
            out.push_str(&serde_json::to_string(&line).expect("final lines serialise"));
            out.push('\n');
        }
        write_atomic(&self.files.dir.join("final_population.jsonl"), out.as_bytes())
    }
}

/// One line of `final_population.jsonl`, fields in this order.
#[derive(Serialize)]
struct FinalLine<'a> {
    rank: usize,
    fitness: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    objectives: Option<&'a [f64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    descriptors: Option<&'a [f64]>,
    genome: &'a [f64],
    scenario: Value,
}

fn pretty(scenario: &Scenario) -> String {
    let mut s = serde_json::to_string_pretty(scenario).expect("scenarios serialise");
    s.push('\n');
    s
}

/// Why a record is no result of the asked scenario.
fn missing(pointer: &str) -> String {
    format!(
        "has no value at {pointer}: it is not a result of the asked scenario; give what evaluate_many returns for it \
         (a result, or an error record {{\"error\": message}} for a run that failed)"
    )
}
