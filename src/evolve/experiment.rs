//! The experiment file of `vsr2d evolve` (spec §6): parsing with JSON-path errors, defaults, checks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::algorithm::ga::EaParams;
use super::algorithm::AlgorithmSpec;
pub use super::algorithm::{Goal, Objective};
pub use super::represent::BaseScenario;
use super::represent::RepresentationSpec;
use super::EvolveError;
use crate::scenario::TaskSpec;

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
    /// The paper's μ + λ GA's parameters (defaults: the paper's): the algorithm when `algorithm` is not
    /// given. (`{"algorithm": {"type": "ga", …}}` is the same run, written here once read.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ea: Option<EaParams>,
    /// The optimizer and its parameters (`ga`, `cma_es`, `nsga2`, `map_elites`; default: the GA of `ea`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<AlgorithmSpec>,
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
    /// The objectives of a multi-objective algorithm (`nsga2`), in order; `metric` is not used then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objectives: Vec<Objective>,
}

fn default_metric() -> String {
    "relative_x_velocity".into()
}

impl Default for FitnessSpec {
    fn default() -> Self {
        FitnessSpec { metric: default_metric(), goal: Goal::Max, robot: 0, objectives: Vec::new() }
    }
}

impl FitnessSpec {
    /// The JSON pointer of the fitness in the result of a run of `task`, or why there is none.
    pub fn pointer(&self, task: &TaskSpec) -> Result<String, String> {
        metric_pointer(&self.metric, self.robot, task)
    }
}

/// A metric or pointer as an error message quotes it: whole up to 100 characters, else its start and
/// its length, so that a message stays readable whatever was written.
fn quoted(text: &str) -> String {
    const MAX: usize = 100;
    let n = text.chars().count();
    if n <= MAX {
        format!("{text:?}")
    } else {
        format!("{:?}… ({n} characters)", text.chars().take(MAX).collect::<String>())
    }
}

/// Checks that `pointer` names a number in the result of a run of `task` with `robots` voxel robots,
/// as `vsr2d schema --result` describes it: each step must exist in the schema (an object's field, an
/// array index in canonical form, a task's block only for that task), and the end must be a number
/// that is never null. Says what is wrong and what would be right.
pub fn check_pointer(pointer: &str, task: &TaskSpec, robots: usize) -> Result<(), String> {
    let schema = serde_json::to_value(schemars::schema_for!(crate::task::RunResult)).expect("schemas serialise");
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    fn follow(defs: &Value, node: &Value) -> Value {
        let mut node = node;
        while let Some(d) = node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            match defs.get(d) {
                Some(d) => node = d,
                None => break,
            }
        }
        node.clone()
    }
    let resolve = |node: &Value| follow(&defs, node);
    let shown = quoted(pointer);
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("{shown} is not a JSON pointer: start it with '/', e.g. \"/robots/0/x_velocity\""));
    };
    let steps: Vec<&str> = rest.split('/').collect();
    let tasks = ["fold", "force_deflection", "jumping", "carrying", "pushing", "climbing", "balancing", "shape"];
    if let Some(first) = steps.first() {
        if tasks.contains(first) && *first != task.name() {
            return Err(format!(
                "{shown} points into the `{first}` task's metrics, but the scenario's task is `{}`",
                task.name()
            ));
        }
    }
    let mut nodes = vec![resolve(&schema)];
    for (k, step) in steps.iter().enumerate() {
        let step_q = quoted(step);
        let here = format!("/{}", steps[..k].join("/"));
        let mut next = Vec::new();
        let mut stack = nodes.clone();
        while let Some(node) = stack.pop() {
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(branches) = node.get(key).and_then(Value::as_array) {
                    stack.extend(branches.iter().map(&resolve));
                }
            }
            if let Some(child) = node.get("properties").and_then(|p| p.get(*step)) {
                next.push(resolve(child));
            }
            if let Some(items) = node.get("items") {
                let canonical = step.parse::<usize>().is_ok_and(|i| i.to_string() == *step);
                if !canonical {
                    return Err(format!(
                        "{shown}: {step_q} after {here} must be an array index written without sign or leading \
                         zeros (0, 1, …)"
                    ));
                }
                if here == "/robots" && step.parse::<usize>().is_ok_and(|i| i >= robots) {
                    return Err(format!("{shown} names robot {step}, but the scenario has {robots} robot(s)"));
                }
                next.push(resolve(items));
            }
        }
        if next.is_empty() {
            let known: Vec<String> = nodes
                .iter()
                .flat_map(|n| {
                    let mut keys = Vec::new();
                    let mut stack = vec![n.clone()];
                    while let Some(n) = stack.pop() {
                        for key in ["anyOf", "oneOf", "allOf"] {
                            if let Some(b) = n.get(key).and_then(Value::as_array) {
                                stack.extend(b.iter().map(&resolve));
                            }
                        }
                        if let Some(p) = n.get("properties").and_then(Value::as_object) {
                            keys.extend(
                                p.keys().filter(|k| !tasks.contains(&k.as_str()) || *k == task.name()).cloned(),
                            );
                        }
                    }
                    keys
                })
                .collect();
            let hint = if known.is_empty() { String::new() } else { format!(" (there: {})", known.join(", ")) };
            return Err(format!("{shown}: the result has no {step_q} at {here}{hint}; see `vsr2d schema --result`"));
        }
        nodes = next;
    }
    let types: Vec<Value> = nodes.iter().filter_map(|n| n.get("type").cloned()).collect();
    let is =
        |t: &Value, name: &str| t.as_str() == Some(name) || t.as_array().is_some_and(|a| a.iter().any(|x| x == name));
    if !types.iter().any(|t| is(t, "number") || is(t, "integer")) {
        return Err(format!("{shown} is not a number in the result (see `vsr2d schema --result`)"));
    }
    if types.iter().any(|t| is(t, "null")) {
        return Err(format!(
            "{shown} can be null (the run may not reach what it measures), which makes an individual invalid: \
             choose a metric that is always a number"
        ));
    }
    Ok(())
}

/// The JSON pointer of a metric (a name, or a pointer as it stands) in the result of a run of `task`,
/// robot `robot`'s for a per-robot metric; or why there is none.
pub fn metric_pointer(metric: &str, robot: usize, task: &TaskSpec) -> Result<String, String> {
    let m = metric;
    if m.starts_with('/') || m.is_empty() {
        return Ok(m.to_string());
    }
    if let Some(pointer) = crate::task::locomotion::robot_metric_pointer(m, robot) {
        return Ok(pointer);
    }
    let (name, names) = task.metric_names();
    let shown = quoted(m);
    match name {
        Some(name) if names.iter().any(|n| n == m) => Ok(format!("/{name}/{m}")),
        _ => Err(format!(
            "{shown} is not a metric of the `{}` task: use one of {}, {}{}, or a JSON pointer into the result \
             such as \"/robots/0/x_velocity\"",
            task.name(),
            crate::task::locomotion::BEHAVIOUR_METRICS.join(", "),
            crate::task::locomotion::MORPHOLOGY_DESCRIPTORS.join(", "),
            names.iter().map(|n| format!(", {n}")).collect::<String>()
        )),
    }
}

/// serde names Rust types ("internally tagged enum RepresentationSpec"); say what the JSON needs.
fn friendlier(message: &str) -> String {
    let mut m = crate::scenario::without_rust_type_names(message);
    if m.contains("unknown field") {
        m.push_str(" (remove it or fix its spelling; see docs/evolution.md or `vsr2d evolve --schema`)");
    }
    m
}

impl Experiment {
    /// Parses and checks an experiment; every error names its JSON path and the fix.
    pub fn from_json(text: &str) -> Result<Experiment, EvolveError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut experiment: Experiment = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
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
        experiment.normalise()?;
        experiment.validate()?;
        Ok(experiment)
    }

    /// One way to write each algorithm: the GA's parameters in `ea` (as runs written before `algorithm`
    /// existed have them, so their hashes and resumes stay valid), every other one in `algorithm`.
    fn normalise(&mut self) -> Result<(), EvolveError> {
        match (&self.ea, self.algorithm.take()) {
            (None, None) => self.ea = Some(EaParams::default()),
            (None, Some(AlgorithmSpec::Ga(p))) => self.ea = Some(p),
            (Some(_), Some(_)) => {
                return Err(EvolveError::Invalid {
                    path: "ea".into(),
                    message: "is the GA's parameter block, but `algorithm` is given too: put the parameters in \
                              `algorithm` and remove `ea`"
                        .into(),
                })
            }
            (_, other) => self.algorithm = other,
        }
        Ok(())
    }

    /// The optimizer this experiment runs.
    /// The metric an individual's fitness is: `fitness.metric`, or the first objective's.
    pub fn fitness_name(&self) -> &str {
        self.fitness.objectives.first().map_or(&self.fitness.metric, |o| &o.metric)
    }

    pub fn algorithm(&self) -> AlgorithmSpec {
        match (&self.algorithm, &self.ea) {
            (Some(a), _) => a.clone(),
            (None, ea) => AlgorithmSpec::Ga(ea.clone().unwrap_or_default()),
        }
    }

    /// Where the algorithm's parameters are written in the experiment (`ea.` or `algorithm.`).
    pub(crate) fn algorithm_path(&self) -> &'static str {
        if self.algorithm.is_some() {
            "algorithm."
        } else {
            "ea."
        }
    }

    /// The experiment with every default written out: what the log header and the hash describe.
    pub fn resolved_json(&self) -> String {
        serde_json::to_string(self).expect("an experiment always serialises")
    }

    fn validate(&self) -> Result<(), EvolveError> {
        let bad = |path: &str, message: String| Err(EvolveError::Invalid { path: path.into(), message });
        // The representation first: the algorithm's checks use its genome size, which is only defined
        // (and only fits a usize) for a valid representation.
        self.representation.validate(self.scenario.is_some())?;
        self.algorithm().validate(
            self.algorithm_path(),
            self.fitness.objectives.len(),
            self.representation.genome_size(),
        )?;
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
                    format!(
                        "{} names robot {}, but the mapped scenario has {made}",
                        quoted(&self.fitness.metric),
                        quoted(index)
                    ),
                );
            }
        }
        // Every number the algorithm reads must be one the result of the mapped scenario's task has.
        let task = match &self.representation {
            RepresentationSpec::Slots(s) => s.template.task.clone(),
            _ => self.scenario.as_ref().map(|s| s.task.clone()).unwrap_or_default(),
        };
        let mut metrics: Vec<(String, &str)> = Vec::new();
        if self.fitness.objectives.is_empty() {
            metrics.push(("fitness.metric".into(), &self.fitness.metric));
        }
        for (i, o) in self.fitness.objectives.iter().enumerate() {
            metrics.push((format!("fitness.objectives[{i}].metric"), &o.metric));
        }
        let algorithm = self.algorithm();
        if let AlgorithmSpec::MapElites(m) = &algorithm {
            for (i, d) in m.descriptors.iter().enumerate() {
                metrics.push((format!("{}descriptors[{i}].metric", self.algorithm_path()), &d.metric));
            }
        }
        for (path, metric) in metrics {
            let checked = metric_pointer(metric, self.fitness.robot, &task)
                .and_then(|pointer| check_pointer(&pointer, &task, robots.max(1)));
            if let Err(message) = checked {
                return bad(&path, message);
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

    /// Found by the stable fuzz harness: the algorithm's checks computed the genome size of a
    /// representation not yet validated, and 4 materials × 2⁶⁰ Gaussians × 4 overflowed (a panic).
    #[test]
    fn a_representation_too_large_for_its_genome_size_is_refused_at_its_path_not_a_panic() {
        for algorithm in [r#""ea": {"n_pop": 4}"#, r#""algorithm": {"type": "cma_es"}"#] {
            let e = Experiment::from_json(&format!(
                r#"{{{algorithm}, "representation": {{"type": "gmm_body", "w": 5, "h": 5,
                    "gaussians": 1152921504606846976, "materials": ["hard", "soft", "active", "counter"]}}}}"#
            ))
            .unwrap_err()
            .to_string();
            assert!(e.contains("representation.gaussians") && e.contains("at most 1000000"), "{e}");
        }
    }

    /// Found by the pointer mutations of tests/integration/mutation.rs: a 10 000-character pointer was
    /// quoted whole in its error.
    #[test]
    fn a_long_pointer_is_quoted_by_its_start_and_length() {
        let pointer = format!("/robots/0{}", "/x".repeat(5000));
        let e = Experiment::from_json(&format!(
            r#"{{"representation": {{"type": "phases", "body": "worm"}}, "fitness": {{"metric": "{pointer}"}}}}"#
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("fitness.metric") && e.contains("(10009 characters)") && e.len() < 400, "{e}");
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
        let ea = e.ea.clone().unwrap();
        assert_eq!((ea.n_pop, ea.n_gen, ea.tournament), (250, 500, 8));
        assert_eq!((ea.p_crossover, ea.p_mutation, ea.sigma), (0.8, 0.2, 0.15));
        assert_eq!((ea.alpha, ea.max_attempts, e.cache), ([-1.0, 2.0], 10, 10_000));
        assert_eq!(e.fitness, FitnessSpec::default());
        assert_eq!(e.fitness.metric, "relative_x_velocity");
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
