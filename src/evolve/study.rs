//! The paper's three studies (spec §5, §10) as sets of configurations × runs: `body` (5×5 vs 10×10
//! `gmm_body`), `evodevo` (`phases` vs `phases_devo` on 11×4) and `sensing` (`mlp_weights` vs `phases`
//! on the worm, the biped and the tripod); and `distributed` (the central MLP vs homogeneous and
//! heterogeneous distributed controllers on the worm and the biped, after Medvet et al. 2020). Each configuration is one of the experiment files of
//! `fixtures/experiments/`, embedded; run k of a configuration is that experiment with seed k (the
//! paper's `Random(run)`), an ordinary `vsr2d evolve` run directory `ROOT/<config>/run-<k>/`, so every
//! run is resumable, renderable and replayable by the existing commands.

use std::path::{Path, PathBuf};

use super::algorithm::AlgorithmSpec;
use super::cache::fnv128;
use super::represent::{BodySpec, RepresentationSpec};
use super::run::{run, GenerationDone, RunOptions, RunSummary};
use super::{EvolveError, Experiment};

const BODY_5X5: &str = include_str!("../../fixtures/experiments/body-5x5.json");
const BODY_10X10: &str = include_str!("../../fixtures/experiments/body-10x10.json");
const EVO: &str = include_str!("../../fixtures/experiments/evodevo-evo.json");
const DEVO: &str = include_str!("../../fixtures/experiments/evodevo-devo.json");
const SENSING_WORM: &str = include_str!("../../fixtures/experiments/sensing-worm.json");
const NONSENSING_WORM: &str = include_str!("../../fixtures/experiments/nonsensing-worm.json");
const HOMOGENEOUS_WORM: &str = include_str!("../../fixtures/experiments/distributed-homogeneous-worm.json");
const HETEROGENEOUS_WORM: &str = include_str!("../../fixtures/experiments/distributed-heterogeneous-worm.json");
const QD_MAP_ELITES: &str = include_str!("../../fixtures/experiments/qd-map-elites.json");
const ENERGY_NSGA2: &str = include_str!("../../fixtures/experiments/energy-nsga2.json");

/// The three studies of the paper's section 3, the distributed-controller study, and two studies of
/// other optimizers: quality-diversity (GA vs MAP-Elites) and speed against energy (NSGA-II).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StudyKind {
    Body,
    Evodevo,
    Sensing,
    Distributed,
    Qd,
    Energy,
}

impl StudyKind {
    pub const ALL: [StudyKind; 6] = [
        StudyKind::Body,
        StudyKind::Evodevo,
        StudyKind::Sensing,
        StudyKind::Distributed,
        StudyKind::Qd,
        StudyKind::Energy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StudyKind::Body => "body",
            StudyKind::Evodevo => "evodevo",
            StudyKind::Sensing => "sensing",
            StudyKind::Distributed => "distributed",
            StudyKind::Qd => "qd",
            StudyKind::Energy => "energy",
        }
    }
}

/// What a study compares its runs by, generation after generation.
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// The best fitness of the generation (every configuration has the same fitness: relative
    /// x-velocity, BL/s).
    BestFitness,
    /// The hypervolume of the generation's objective vectors (a multi-objective run), in the product of
    /// the objectives' own units, over `reference` (the objectives' worst values, in the experiment's
    /// order): one fixed point for every run and generation, so that the values compare.
    Hypervolume { reference: Vec<f64> },
}

impl Score {
    /// For people: what the score is, with its unit.
    pub fn name(&self) -> &'static str {
        match self {
            Score::BestFitness => "best fitness",
            Score::Hypervolume { .. } => "hypervolume",
        }
    }

    /// The unit after a value (`BL/s`), or nothing.
    pub fn unit(&self) -> &'static str {
        match self {
            Score::BestFitness => "BL/s",
            Score::Hypervolume { .. } => "",
        }
    }

    /// `value` with its unit, to four decimals.
    pub fn text(&self, value: f64) -> String {
        match self {
            Score::BestFitness => format!("{value:.4} BL/s"),
            Score::Hypervolume { .. } => format!("hypervolume {value:.4}"),
        }
    }

    /// The score of one logged generation (NaN: nothing valid to score).
    fn of(&self, generation: &super::reader::Generation, objectives: &[super::Objective]) -> f64 {
        match self {
            Score::BestFitness => generation.best.unwrap_or(f64::NAN),
            Score::Hypervolume { reference } => {
                let Some(population) = &generation.objectives else { return f64::NAN };
                // Maximised form: a minimised objective's values (and reference) change sign.
                let sign: Vec<f64> =
                    objectives.iter().map(|o| if o.goal == super::Goal::Min { -1.0 } else { 1.0 }).collect();
                let points: Vec<Vec<f64>> =
                    population.iter().flatten().map(|v| v.iter().zip(&sign).map(|(x, s)| x * s).collect()).collect();
                let reference: Vec<f64> = reference.iter().zip(&sign).map(|(r, s)| r * s).collect();
                super::algorithm::nsga2::hypervolume(&points, &reference)
            }
        }
    }
}

/// The settings a study runs with: the paper's (n_pop 250, 500 generations, 60 s), the `--quick`
/// preset of spec §10 (n_pop 20, 10 generations, 20 s), and overrides (for tests and trials).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preset {
    pub quick: bool,
    pub n_pop: Option<usize>,
    pub n_gen: Option<u32>,
    /// Simulated seconds per evaluation (a `phases_devo` horizon t_final follows it).
    pub duration: Option<f64>,
}

impl Preset {
    /// The quick preset's values (spec §10).
    pub(crate) const QUICK_POP: usize = 20;
    pub(crate) const QUICK_GEN: u32 = 10;
    pub(crate) const QUICK_DURATION: f64 = 20.0;
    pub const QUICK_RUNS: u32 = 2;
    /// The paper's repetitions.
    pub const FULL_RUNS: u32 = 10;

    fn n_pop(&self) -> Option<usize> {
        self.n_pop.or(self.quick.then_some(Self::QUICK_POP))
    }
    fn n_gen(&self) -> Option<u32> {
        self.n_gen.or(self.quick.then_some(Self::QUICK_GEN))
    }
    fn duration(&self) -> Option<f64> {
        self.duration.or(self.quick.then_some(Self::QUICK_DURATION))
    }
}

/// One configuration: an experiment without its seed.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// Directory name and robot label (`body-5x5`, `sensing-worm`, …).
    pub name: String,
    /// For people: `5×5`, `evolution + development`, `sensing (worm)`.
    pub label: String,
    /// The plot panel it is drawn in.
    pub panel: usize,
    /// Seed 0; run k uses seed k.
    pub experiment: Experiment,
}

/// A study: its configurations, plot panels and the pairs of configurations it compares.
#[derive(Debug, Clone)]
pub struct Study {
    pub kind: StudyKind,
    pub title: String,
    /// The paper's finding, quoted in the report.
    pub claim: String,
    pub panels: Vec<String>,
    pub configs: Vec<StudyConfig>,
    /// (a, b): configuration a compared with configuration b.
    pub comparisons: Vec<(usize, usize)>,
    /// What the runs are compared by.
    pub score: Score,
    /// Runs per configuration (seeds 0 … runs − 1).
    pub runs: u32,
    pub preset: Preset,
}

fn parse(text: &str) -> Experiment {
    Experiment::from_json(text).expect("the embedded experiment fixtures are valid")
}

fn with_body(mut e: Experiment, body: &str, name: &str) -> Experiment {
    e.name = name.to_string();
    match &mut e.representation {
        RepresentationSpec::Phases(p) => p.body = BodySpec::Named(body.into()),
        RepresentationSpec::MlpWeights(m) => m.body = BodySpec::Named(body.into()),
        RepresentationSpec::DistributedHomogeneous(d) | RepresentationSpec::DistributedHeterogeneous(d) => {
            d.body = BodySpec::Named(body.into())
        }
        _ => unreachable!("the sensing and distributed fixtures have a fixed body"),
    }
    e
}

fn renamed(mut e: Experiment, name: &str) -> Experiment {
    e.name = name.to_string();
    e
}

fn config(name: &str, label: &str, panel: usize, experiment: Experiment) -> StudyConfig {
    StudyConfig { name: name.into(), label: label.into(), panel, experiment }
}

impl Study {
    /// The study `kind` with `runs` runs per configuration under `preset`.
    pub fn new(kind: StudyKind, preset: &Preset, runs: u32) -> Result<Study, EvolveError> {
        if runs == 0 {
            return Err(EvolveError::Invalid { path: "--runs".into(), message: "is 0: give at least 1 run".into() });
        }
        let (title, claim, panels, configs, comparisons) = match kind {
            StudyKind::Body => (
                "Body optimisation (after Hiller & Lipson; paper Fig. 8)",
                "the optimised VSRs are ≈ 2.5× (5×5) and ≈ 2× (10×10) faster than a \"random\" VSR; the designs vary more \
                 on 10×10",
                vec!["body: 5×5 vs 10×10".to_string()],
                vec![
                    config("body-5x5", "5×5", 0, parse(BODY_5X5)),
                    config("body-10x10", "10×10", 0, parse(BODY_10X10)),
                ],
                vec![(0, 1)],
            ),
            StudyKind::Evodevo => (
                "Evolution and development (after Kriegman et al.; paper Fig. 10)",
                "evolution + development eventually gives faster VSRs; early on it is harder to optimise (larger search \
                 space)",
                vec!["11×4 body: evolution vs evolution + development".to_string()],
                vec![
                    config("evodevo-evo", "evolution", 0, parse(EVO)),
                    config("evodevo-devo", "evolution + development", 0, parse(DEVO)),
                ],
                vec![(1, 0)],
            ),
            StudyKind::Sensing => {
                let (s, n) = (parse(SENSING_WORM), parse(NONSENSING_WORM));
                let mut configs = Vec::new();
                let mut comparisons = Vec::new();
                for (p, shape) in ["worm", "biped", "tripod"].into_iter().enumerate() {
                    comparisons.push((configs.len(), configs.len() + 1));
                    let (sn, nn) = (format!("sensing-{shape}"), format!("nonsensing-{shape}"));
                    configs.push(config(&sn, &format!("sensing ({shape})"), p, with_body(s.clone(), shape, &sn)));
                    configs.push(config(&nn, &format!("non-sensing ({shape})"), p, with_body(n.clone(), shape, &nn)));
                }
                (
                    "Sensing vs non-sensing controllers (after Talamini et al.; paper Fig. 11)",
                    "the sensing controller is always more effective, after some optimisation effort, for every shape",
                    vec!["worm".to_string(), "biped".to_string(), "tripod".to_string()],
                    configs,
                    comparisons,
                )
            }
            StudyKind::Distributed => {
                let (central, homogeneous, heterogeneous) =
                    (parse(SENSING_WORM), parse(HOMOGENEOUS_WORM), parse(HETEROGENEOUS_WORM));
                let mut configs = Vec::new();
                let mut comparisons = Vec::new();
                for (p, shape) in ["worm", "biped"].into_iter().enumerate() {
                    let first = configs.len();
                    for (kind, e) in [("central", &central), ("homogeneous", &homogeneous), ("heterogeneous", &heterogeneous)] {
                        let name = format!("{kind}-{shape}");
                        configs.push(config(&name, &format!("{kind} ({shape})"), p, with_body(e.clone(), shape, &name)));
                    }
                    comparisons.extend([(first + 1, first), (first + 2, first), (first + 1, first + 2)]);
                }
                (
                    "Distributed vs central neural controllers (after Medvet et al., GECCO 2020)",
                    "a small network in every voxel, fed by its own sensors and its neighbours' signals, drives a VSR at \
                     least as well as one central network over every voxel's sensors (Medvet et al. 2020, ref. [17] \
                     of the 2D-VSR-Sim paper; this study checks the claim in vsr2d with the central MLP of the sensing \
                     study, paper6 features, 1 signal per direction, no hidden layer)",
                    vec!["worm".to_string(), "biped".to_string()],
                    configs,
                    comparisons,
                )
            }
            StudyKind::Qd => (
                "Quality and diversity: GA vs MAP-Elites on 5×5 bodies (after Mouret and Clune 2015)",
                "MAP-Elites \"illuminates\" the search space: it returns the best body of every region of the \
                 descriptor space (here: voxel count × elongation), where an objective-driven search converges on a \
                 few similar bodies, and its best is often as good as the objective-driven search's (Mouret and \
                 Clune 2015, arXiv:1504.04909)",
                vec!["5×5 gmm_body bodies: GA vs MAP-Elites".to_string()],
                vec![
                    config("qd-ga", "GA", 0, renamed(parse(BODY_5X5), "qd-ga")),
                    config("qd-map-elites", "MAP-Elites", 0, parse(QD_MAP_ELITES)),
                ],
                vec![(1, 0)],
            ),
            StudyKind::Energy => (
                "Speed against control effort: NSGA-II (after Deb et al. 2002; 2D-VSR-Sim paper §2.5)",
                "locomotion can be cast as a multi-objective task, speed against the energy the controller spends \
                 (2D-VSR-Sim paper §2.5): a front of non-dominated robots shows how much speed each unit of control \
                 effort buys",
                vec!["biped, phases with evolved amplitudes".to_string()],
                vec![config("energy-nsga2", "NSGA-II (x-velocity ↑, control effort ↓)", 0, parse(ENERGY_NSGA2))],
                vec![],
            ),
        };
        // x-velocity 0 m/s and control effort 1 (its largest value) bound every useful robot.
        let score = if kind == StudyKind::Energy {
            Score::Hypervolume { reference: vec![0.0, 1.0] }
        } else {
            Score::BestFitness
        };
        let mut configs = configs;
        for c in &mut configs {
            apply(&mut c.experiment, preset);
            c.experiment.validate_study(&c.name)?;
        }
        Ok(Study {
            kind,
            title: title.into(),
            claim: claim.into(),
            panels,
            configs,
            comparisons,
            score,
            runs,
            preset: preset.clone(),
        })
    }

    /// The configuration named `name`.
    pub fn config_index(&self, name: &str) -> Option<usize> {
        self.configs.iter().position(|c| c.name == name)
    }

    /// Run k's experiment: the configuration's with seed k.
    pub fn experiment(&self, config: usize, k: u32) -> Experiment {
        let mut e = self.configs[config].experiment.clone();
        e.seed = u64::from(k);
        e
    }

    /// `root/<config>/run-<k>`.
    pub fn run_dir(&self, root: &Path, config: usize, k: u32) -> PathBuf {
        root.join(&self.configs[config].name).join(format!("run-{k}"))
    }

    /// Every run, configurations in order, then k.
    pub fn all_runs(&self) -> Vec<(usize, u32)> {
        (0..self.configs.len()).flat_map(|c| (0..self.runs).map(move |k| (c, k))).collect()
    }

    /// Runs (or resumes, or confirms finished) run k of a configuration in its directory, with `jobs`
    /// evaluation threads (0: rayon's default).
    pub fn run_one(
        &self,
        root: &Path,
        config: usize,
        k: u32,
        jobs: usize,
        observer: &mut dyn FnMut(&GenerationDone),
    ) -> Result<RunSummary, EvolveError> {
        let experiment = self.experiment(config, k);
        let mut text = serde_json::to_string_pretty(&experiment).expect("experiments serialise");
        text.push('\n');
        let options = RunOptions { dir: self.run_dir(root, config, k), jobs, stop_after: None };
        run(&experiment, &text, &options, observer)
    }

    /// What identifies the study's runs: its kind and every configuration's experiment (the preset
    /// included), hashed. The number of runs is not part of it (`--runs 3` extends `--runs 2`).
    pub fn id(&self) -> String {
        let mut text = self.kind.name().to_string();
        for c in &self.configs {
            text.push('\n');
            text.push_str(&c.experiment.resolved_json());
        }
        format!("{:032x}", fnv128(text.as_bytes()))
    }

    /// Holds the study directory `root` (see [`super::owner::claim_study`]): refused when it holds
    /// anything but this study's runs with these settings, or when another process holds it.
    pub fn claim(
        &self,
        root: &Path,
        access: crate::output::run_dir::Access,
    ) -> Result<crate::output::run_dir::RunDir, EvolveError> {
        let runs = || {
            self.all_runs()
                .into_iter()
                .map(|(c, k)| {
                    let hash = format!("{:032x}", fnv128(self.experiment(c, k).resolved_json().as_bytes()));
                    (format!("{}/run-{k}", self.configs[c].name), hash)
                })
                .collect()
        };
        super::owner::claim_study(root, &self.id(), &runs, access)
    }

    /// What run k of a configuration's directory holds.
    pub fn load_run(&self, root: &Path, config: usize, k: u32) -> Result<RunState, EvolveError> {
        let dir = self.run_dir(root, config, k);
        let log_path = dir.join(super::reader::LOG);
        if !log_path.exists() {
            return Ok(RunState::Missing);
        }
        let experiment = self.experiment(config, k);
        let hash = format!("{:032x}", fnv128(experiment.resolved_json().as_bytes()));
        if super::reader::logged_hash(&dir).as_deref() != Some(hash.as_str()) {
            return Ok(RunState::Foreign);
        }
        let (_, generations) = super::reader::read_log(&log_path)
            .map_err(|e| EvolveError::Json { path: log_path.display().to_string(), message: e.to_string() })?;
        let objectives = &experiment.fitness.objectives;
        let best: Vec<f64> = generations.iter().map(|g| self.score.of(g, objectives)).collect();
        let n_gen = experiment.algorithm().generations();
        let finished = best.len() == n_gen as usize + 1 && dir.join(super::reader::FINAL_POPULATION).is_file();
        if !finished {
            return Ok(RunState::Unfinished { generations: best.len() });
        }
        Ok(RunState::Finished(RunResult { config, k, seed: experiment.seed, best, dir }))
    }
}

/// Applies the preset to a configuration's experiment: n_pop sets every algorithm's batch size.
fn apply(e: &mut Experiment, preset: &Preset) {
    match e.algorithm.as_mut() {
        Some(AlgorithmSpec::MapElites(p)) => {
            if let Some(n) = preset.n_pop() {
                (p.initial, p.batch) = (n, n);
            }
            if let Some(g) = preset.n_gen() {
                p.generations = g;
            }
        }
        Some(AlgorithmSpec::Nsga2(p)) => {
            if let Some(n) = preset.n_pop() {
                p.population = n;
            }
            if let Some(g) = preset.n_gen() {
                p.generations = g;
            }
        }
        Some(AlgorithmSpec::CmaEs(p)) => {
            if let Some(n) = preset.n_pop() {
                p.population = Some(n);
            }
            if let Some(g) = preset.n_gen() {
                p.generations = g;
            }
        }
        // A parsed GA experiment always has its `ea` block (below).
        Some(AlgorithmSpec::Ga(_)) | None => {}
    }
    if let Some(ea) = e.ea.as_mut() {
        if let Some(n) = preset.n_pop() {
            ea.n_pop = n;
            // A tournament draws from the population: a smaller population gets a tournament of its size.
            ea.tournament = ea.tournament.min(n);
        }
        if let Some(g) = preset.n_gen() {
            ea.n_gen = g;
        }
    }
    if let Some(d) = preset.duration() {
        e.scenario.get_or_insert_with(Default::default).world.duration = d;
        // The development horizon is the run's length (paper: t_final = 60 s for 60 s runs).
        if let RepresentationSpec::PhasesDevo(p) = &mut e.representation {
            p.t_final = d;
        }
    }
}

impl Experiment {
    /// Re-checks an experiment a study built (an override such as `--pop 1` may be invalid).
    fn validate_study(&self, name: &str) -> Result<(), EvolveError> {
        let text = self.resolved_json();
        Experiment::from_json(&text).map(|_| ()).map_err(|e| match e {
            EvolveError::Invalid { path, message } => {
                EvolveError::Invalid { path: format!("{path} (configuration {name})"), message }
            }
            other => other,
        })
    }
}

/// A finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub config: usize,
    pub k: u32,
    pub seed: u64,
    /// The study's [`Score`] after each generation 0 … n_gen: the best fitness, or the hypervolume
    /// (NaN: every individual invalid).
    pub best: Vec<f64>,
    pub dir: PathBuf,
}

impl RunResult {
    pub fn gen0(&self) -> f64 {
        self.best[0]
    }
    pub fn last(&self) -> f64 {
        *self.best.last().expect("a finished run has generation 0")
    }
    /// The run's best scenario (`best.json`).
    pub fn best_scenario(&self) -> PathBuf {
        self.dir.join("best.json")
    }
}

/// What a run directory holds.
#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Missing,
    /// Started, not finished: `generations` lines logged.
    Unfinished {
        generations: usize,
    },
    /// A run of another experiment (e.g. of the quick preset when the full one is asked for).
    Foreign,
    Finished(RunResult),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_studies_have_the_papers_configurations_and_genome_sizes() {
        let full = Preset::default();
        let body = Study::new(StudyKind::Body, &full, 10).unwrap();
        assert_eq!(body.configs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["body-5x5", "body-10x10"]);
        assert_eq!(
            (
                body.configs[1].experiment.algorithm().batch_size(0),
                body.configs[1].experiment.algorithm().generations()
            ),
            (250, 500)
        );
        let sensing = Study::new(StudyKind::Sensing, &full, 10).unwrap();
        let sizes: Vec<usize> = sensing
            .configs
            .iter()
            .map(|c| {
                super::super::Mapper::new(&c.experiment.representation, &c.name, c.experiment.scenario.as_ref())
                    .unwrap()
                    .genome_size()
            })
            .collect();
        assert_eq!(sizes, [104, 4, 228, 6, 400, 8]);
        assert_eq!(sensing.comparisons, [(0, 1), (2, 3), (4, 5)]);
        let quick = Preset { quick: true, ..Preset::default() };
        let evodevo = Study::new(StudyKind::Evodevo, &quick, 2).unwrap();
        let devo = &evodevo.configs[1].experiment;
        assert_eq!((devo.algorithm().batch_size(0), devo.algorithm().generations()), (20, 10));
        assert_eq!(devo.scenario.as_ref().unwrap().world.duration, 20.0);
        let RepresentationSpec::PhasesDevo(p) = &devo.representation else { panic!() };
        assert_eq!(p.t_final, 20.0);
        assert_eq!(evodevo.experiment(1, 1).seed, 1);
        assert!(Study::new(StudyKind::Body, &Preset { n_pop: Some(1), ..quick.clone() }, 2).is_err());
    }

    #[test]
    fn the_optimizer_studies_apply_the_preset_to_every_algorithm() {
        let quick = Preset { quick: true, ..Preset::default() };
        let qd = Study::new(StudyKind::Qd, &quick, 2).unwrap();
        assert_eq!(
            qd.configs.iter().map(|c| c.experiment.algorithm().name()).collect::<Vec<_>>(),
            ["ga", "map_elites"]
        );
        // The same budget: 20 per generation (MAP-Elites' first batch too), 10 generations, 20 s.
        for c in &qd.configs {
            let a = c.experiment.algorithm();
            assert_eq!((a.batch_size(0), a.generations()), (20, 10), "{}", c.name);
            assert_eq!(c.experiment.scenario.as_ref().unwrap().world.duration, 20.0);
        }
        let AlgorithmSpec::MapElites(p) = qd.configs[1].experiment.algorithm() else { panic!() };
        assert_eq!((p.initial, p.batch), (20, 20));
        assert_eq!(qd.score, Score::BestFitness);
        let energy = Study::new(StudyKind::Energy, &Preset { n_pop: Some(12), ..quick }, 2).unwrap();
        let AlgorithmSpec::Nsga2(p) = energy.configs[0].experiment.algorithm() else { panic!() };
        assert_eq!((p.population, p.generations), (12, 10));
        assert_eq!(energy.score, Score::Hypervolume { reference: vec![0.0, 1.0] });
    }
}
