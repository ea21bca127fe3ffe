//! The experiment file of `vsr2d evolve` (spec §6): parsing with JSON-path errors, defaults, checks.

use serde::{Deserialize, Serialize};

use super::represent::RepresentationSpec;
use super::EvolveError;
use crate::scenario::{TaskSpec, WorldSpec};

/// One evolutionary run: the algorithm, the representation, the fitness, the simulation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Shown in logs and used as the robot label of every mapped scenario (default `evolve`).
    #[serde(default = "default_name")]
    pub name: String,
    /// The run seed: the only source of randomness (default 0).
    #[serde(default)]
    pub seed: u64,
    /// The μ + λ algorithm's parameters (defaults: the paper's).
    #[serde(default)]
    pub ea: EaParams,
    /// Genome → scenario mapping (`gmm_body`, `phases`, `phases_devo`, `mlp_weights`, `slots`).
    pub representation: RepresentationSpec,
    /// Which metric of the first robot is optimised, and in which direction.
    #[serde(default)]
    pub fitness: FitnessSpec,
    /// World and task of the mapped scenarios (not for `slots`, whose template holds them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<BaseScenario>,
    /// Capacity of the least-recently-used fitness cache, in scenarios (0 disables it).
    #[serde(default = "default_cache")]
    pub cache: usize,
}

fn default_name() -> String {
    "evolve".into()
}

fn default_cache() -> usize {
    10_000
}

/// The parts of a scenario a built-in representation does not generate.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseScenario {
    #[serde(default)]
    pub world: WorldSpec,
    #[serde(default)]
    pub task: TaskSpec,
}

/// Spec §2's table, "vsr2d default" column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EaParams {
    /// Population size μ = offspring size λ.
    pub n_pop: usize,
    /// Generations after generation 0.
    pub n_gen: u32,
    /// Tournament size n_tour.
    pub tournament: usize,
    /// Probability of crossover; mutation otherwise.
    pub p_crossover: f64,
    /// Probability of mutation (must be 1 − p_crossover).
    pub p_mutation: f64,
    /// Standard deviation of the Gaussian mutation, per gene.
    pub sigma: f64,
    /// The extended segment crossover draws α ~ U[alpha[0], alpha[1]) per gene.
    pub alpha: [f64; 2],
    /// Attempts per child while the child duplicates a parent or an earlier child.
    pub max_attempts: u32,
}

impl Default for EaParams {
    fn default() -> Self {
        EaParams {
            n_pop: 250,
            n_gen: 500,
            tournament: 8,
            p_crossover: 0.8,
            p_mutation: 0.2,
            sigma: 0.15,
            alpha: [-1.0, 2.0],
            max_attempts: 10,
        }
    }
}

/// The fitness: a number of the run's result, maximised or minimised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FitnessSpec {
    /// A locomotion metric of robot `robot` (`relative_x_velocity`, the default; `x_velocity`,
    /// `center_avg_y`, `control_effort`, `control_change`, `x_distance`), a metric of the task's own
    /// (`max_height` for `jumping`, `carried_distance` for `carrying`, …), or a JSON pointer into the
    /// result as `vsr2d simulate` prints it (`/robots/1/x_velocity`, `/jumping/airtime`).
    #[serde(default = "default_metric")]
    pub metric: String,
    #[serde(default)]
    pub goal: Goal,
    /// Index of the robot whose locomotion metric counts (default 0).
    #[serde(default)]
    pub robot: usize,
}

fn default_metric() -> String {
    "relative_x_velocity".into()
}

impl Default for FitnessSpec {
    fn default() -> Self {
        FitnessSpec { metric: default_metric(), goal: Goal::Max, robot: 0 }
    }
}

/// The numeric locomotion metrics of `model.md` §10, every robot's.
pub const LOCOMOTION_METRICS: [&str; 6] =
    ["x_velocity", "relative_x_velocity", "center_avg_y", "control_effort", "control_change", "x_distance"];

impl FitnessSpec {
    /// The JSON pointer of the fitness in the result of a run of `task`, or why there is none.
    pub fn pointer(&self, task: &TaskSpec) -> Result<String, String> {
        let m = self.metric.as_str();
        if m.starts_with('/') {
            return Ok(m.to_string());
        }
        if LOCOMOTION_METRICS.contains(&m) {
            return Ok(format!("/robots/{}/{m}", self.robot));
        }
        let (name, names) = task.metric_names();
        match name {
            Some(name) if names.iter().any(|n| n == m) => Ok(format!("/{name}/{m}")),
            _ => Err(format!(
                "{m:?} is not a metric of the `{}` task: use one of {}{}, or a JSON pointer into the result \
                 such as \"/robots/0/x_velocity\"",
                task.name(),
                LOCOMOTION_METRICS.join(", "),
                names.iter().map(|n| format!(", {n}")).collect::<String>()
            )),
        }
    }
}

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

/// serde names Rust types ("internally tagged enum RepresentationSpec"); say what the JSON needs.
fn friendlier(message: &str) -> String {
    const TAGGED: &str = "internally tagged enum ";
    let mut m = match message.find(TAGGED) {
        Some(start) => {
            let rest = &message[start + TAGGED.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            format!("{}an object with a \"type\" field{}", &message[..start], &rest[end..])
        }
        None => message.to_string(),
    };
    if m.contains("unknown field") {
        m.push_str(" (remove it or fix its spelling; see docs/evolution.md or `vsr2d evolve --schema`)");
    }
    m
}

impl Experiment {
    /// Parses and checks an experiment; every error names its JSON path and the fix.
    pub fn from_json(text: &str) -> Result<Experiment, EvolveError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let experiment: Experiment = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let (path, message) = crate::tagged::locate(&e.path().to_string(), &e.inner().to_string());
            let inner = e.into_inner();
            let mut message = friendlier(&message);
            if inner.is_syntax() || inner.is_eof() {
                message.push_str(" (the file is not valid JSON)");
            }
            EvolveError::Json { path, message }
        })?;
        de.end().map_err(|e| EvolveError::Json {
            path: "the end of the object".into(),
            message: format!("{e} after the experiment object (the file must hold exactly one JSON object)"),
        })?;
        experiment.validate()?;
        Ok(experiment)
    }

    /// The experiment with every default written out: what the log header and the hash describe.
    pub fn resolved_json(&self) -> String {
        serde_json::to_string(self).expect("an experiment always serialises")
    }

    fn validate(&self) -> Result<(), EvolveError> {
        let bad = |path: &str, message: String| Err(EvolveError::Invalid { path: path.into(), message });
        let ea = &self.ea;
        if ea.n_pop < 2 {
            return bad("ea.n_pop", format!("is {}: give at least 2 individuals", ea.n_pop));
        }
        if ea.tournament < 1 {
            return bad("ea.tournament", "is 0: give a tournament size of at least 1 (the paper uses 8)".into());
        }
        if ea.tournament > ea.n_pop {
            return bad(
                "ea.tournament",
                format!(
                    "is {} but the population has {} individuals: give a tournament size of at most n_pop (the paper \
                     uses 8 of 250)",
                    ea.tournament, ea.n_pop
                ),
            );
        }
        for (path, p) in [("ea.p_crossover", ea.p_crossover), ("ea.p_mutation", ea.p_mutation)] {
            if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                return bad(path, format!("is {p}: give a probability in [0, 1]"));
            }
        }
        if (ea.p_crossover + ea.p_mutation - 1.0).abs() > 1e-9 {
            return bad(
                "ea.p_mutation",
                format!(
                    "p_crossover + p_mutation = {} + {} must be 1 (one operator per child): set p_mutation to {}",
                    ea.p_crossover,
                    ea.p_mutation,
                    1.0 - ea.p_crossover
                ),
            );
        }
        if !(ea.sigma.is_finite() && ea.sigma >= 0.0) {
            return bad(
                "ea.sigma",
                format!("is {}: give a finite standard deviation ≥ 0 (the paper uses 0.15)", ea.sigma),
            );
        }
        let [lo, hi] = ea.alpha;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return bad(
                "ea.alpha",
                format!("is [{lo}, {hi}]: give [lo, hi] with finite lo < hi (the paper uses [-1, 2])"),
            );
        }
        if ea.max_attempts < 1 {
            return bad("ea.max_attempts", "is 0: give at least 1 attempt per child (the paper uses 10)".into());
        }
        self.representation.validate(self.scenario.is_some())?;
        // The built-in representations make one robot; the `slots` template may hold more.
        let robots = match &self.representation {
            RepresentationSpec::Slots(s) => s.template.robots.len(),
            _ => 1,
        };
        let made = if robots == 1 {
            "one robot, robot 0".to_string()
        } else {
            format!("{robots} robots, 0 … {}", robots.saturating_sub(1))
        };
        if self.fitness.robot >= robots.max(1) {
            return bad(
                "fitness.robot",
                format!("is {}: the mapped scenario has {made}; drop `robot` or give one of them", self.fitness.robot),
            );
        }
        if let Some(rest) = self.fitness.metric.strip_prefix("/robots/") {
            let index = rest.split('/').next().unwrap_or("");
            if index.parse::<usize>().map_or(true, |i| i >= robots) {
                return bad(
                    "fitness.metric",
                    format!("{:?} names robot {index:?}, but the mapped scenario has {made}", self.fitness.metric),
                );
            }
        }
        // The `slots` template brings its own task, checked when it is read.
        let task = self.scenario.as_ref().map(|s| s.task.clone()).unwrap_or_default();
        if self.scenario.is_some() || !matches!(self.representation, RepresentationSpec::Slots(_)) {
            if let Err(message) = self.fitness.pointer(&task) {
                return bad("fitness.metric", message);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_data_and_a_robot_that_is_not_made_are_refused() {
        let e = Experiment::from_json(r#"{"representation": {"type": "phases", "body": "worm"}} {"x": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exactly one JSON object"), "{e}");
        let e =
            Experiment::from_json(r#"{"representation": {"type": "phases", "body": "worm"}, "fitness": {"robot": 3}}"#)
                .unwrap_err()
                .to_string();
        assert!(e.contains("fitness.robot") && e.contains("robot 0"), "{e}");
        let e = Experiment::from_json(
            r#"{"representation": {"type": "phases", "body": "worm"}, "fitness": {"metric": "/robots/2/x_velocity"}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("fitness.metric") && e.contains("one robot"), "{e}");
    }

    #[test]
    fn a_tournament_larger_than_the_population_is_refused() {
        let e = Experiment::from_json(
            r#"{"representation": {"type": "phases", "body": "worm"}, "ea": {"n_pop": 10, "tournament": 11}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("ea.tournament") && e.contains("at most n_pop"), "{e}");
        Experiment::from_json(
            r#"{"representation": {"type": "phases", "body": "worm"}, "ea": {"n_pop": 10, "tournament": 10}}"#,
        )
        .unwrap();
    }

    #[test]
    fn defaults_are_the_papers_settings() {
        let e = Experiment::from_json(r#"{"representation": {"type": "phases", "body": "worm"}}"#).unwrap();
        assert_eq!((e.ea.n_pop, e.ea.n_gen, e.ea.tournament), (250, 500, 8));
        assert_eq!((e.ea.p_crossover, e.ea.p_mutation, e.ea.sigma), (0.8, 0.2, 0.15));
        assert_eq!((e.ea.alpha, e.ea.max_attempts, e.cache), ([-1.0, 2.0], 10, 10_000));
        assert_eq!(e.fitness, FitnessSpec { metric: "relative_x_velocity".into(), goal: Goal::Max, robot: 0 });
    }

    #[test]
    fn errors_name_the_json_path_and_the_fix() {
        let e = Experiment::from_json(r#"{"representation": {"type": "phases", "body": "worm"}, "ea": {"n_popp": 3}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ea") && e.contains("n_popp") && e.contains("remove it"), "{e}");
        let e = Experiment::from_json(
            r#"{"representation": {"type": "phases", "body": "worm"}, "ea": {"p_crossover": 0.5}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("ea.p_mutation") && e.contains("set p_mutation to 0.5"), "{e}");
        let e = Experiment::from_json(
            r#"{"representation": {"type": "phases", "body": "worm"}, "fitness": {"metric": "speed"}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("fitness.metric") && e.contains("relative_x_velocity"), "{e}");
        let e = Experiment::from_json(r#"{"representation": {"type": "phasez"}}"#).unwrap_err().to_string();
        assert!(e.contains("representation") && e.contains("gmm_body"), "{e}");
    }
}
