//! `vsr2d.Representation`: the genome → scenario decoders of `vsr2d evolve` (the library's
//! [`Mapper`]) and the numbers of a result as the experiments resolve them
//! ([`metric_pointer`]), for any outside optimizer (pycma, pyribs, pymoo, EvoTorch, ...).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pythonize::{depythonize, pythonize};
use serde_json::{Map, Value};

use std::collections::HashSet;
use std::sync::Mutex;

use vsr2d::evolve::experiment::{check_pointer, metric_pointer};
use vsr2d::evolve::{AlgorithmSpec, EvolveError, Experiment, MapError, Mapper, RepresentationSpec};
use vsr2d::scenario::TaskSpec;

use crate::{guard, invalid, json_text};

/// An experiment's problem (a `ValueError` subclass, `vsr2d.ScenarioError`) with the JSON path it
/// names, so `e.path` says where to look.
pub fn experiment_error(py: Python<'_>, e: EvolveError) -> PyErr {
    match &e {
        EvolveError::Json { path, .. } | EvolveError::Invalid { path, .. } => invalid(py, path.clone(), e.to_string()),
        _ => crate::evolve_error(e),
    }
}

/// A JSON value from a dict, a JSON string or a path (nesting checked before it is converted).
fn json_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let text = json_text(obj)?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what} is not valid JSON: {e}")))
}

/// A genome from a 1-D numpy array (any numeric dtype) or a sequence of numbers.
pub fn genome(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Vec<f64>> {
    if let Ok(array) = obj.cast::<PyArray1<f64>>() {
        if let Ok(readonly) = array.try_readonly() {
            return Ok(readonly.as_array().iter().copied().collect());
        }
    }
    if let Ok(ndim) = obj.getattr("ndim").and_then(|n| n.extract::<usize>()) {
        if ndim != 1 {
            let shape = obj.getattr("shape").map(|s| s.to_string()).unwrap_or_default();
            return Err(invalid(
                py,
                path.into(),
                format!(
                    "`{path}` is an array of shape {shape}: a genome is 1-D (one row of a population: decode \
                     each row)"
                ),
            ));
        }
    }
    if obj.is_instance_of::<PyString>() {
        return Err(invalid(py, path.into(), format!("`{path}` is a string: give a sequence of numbers")));
    }
    obj.extract::<Vec<f64>>().map_err(|_| {
        let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        invalid(py, path.into(), format!("`{path}` is a {kind}: give a 1-D numpy array or a list of numbers"))
    })
}

/// A result as evaluate / evaluate_many return it (a dict, or its JSON text), as JSON.
pub fn record(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    let bad = |m: String| invalid(py, path.into(), m);
    let value: Value = if obj.is_instance_of::<PyString>() {
        let text: String = obj.extract()?;
        serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "`{path}` is a string that is not JSON ({e}): give what vsr2d.evaluate_many returns for the \
                 scenario, a result dict or its JSON text"
            ))
        })?
    } else if obj.is_instance_of::<PyDict>() {
        guard::check_nesting(obj).map_err(|e| bad(format!("`{path}`: {}", e.value(py))))?;
        depythonize(obj).map_err(|e| bad(format!("`{path}` cannot be read as JSON: {e}")))?
    } else {
        let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        let shown: String = obj.repr().map(|r| r.to_string()).unwrap_or_default().chars().take(60).collect();
        return Err(bad(format!(
            "`{path}` is a {kind} ({shown}), not a result: give what vsr2d.evaluate_many returns for the scenario, \
             a result dict with \"robots\" or an error record {{\"error\": message}}"
        )));
    };
    check_record(&value).map_err(|m| bad(format!("`{path}` {m}")))?;
    Ok(value)
}

/// A record is a result (an object with a `robots` list) or an error record (`{"error": text}`).
pub fn check_record(value: &Value) -> Result<(), String> {
    const GIVE: &str = "give what vsr2d.evaluate_many returns for the scenario: a result dict with \"robots\" or an \
                        error record {\"error\": message} (an invalid individual)";
    let Some(object) = value.as_object() else {
        return Err(format!("is JSON {}, not a result: {GIVE}", kind(value)));
    };
    match (object.get("error"), object.get("robots")) {
        (Some(Value::String(_)), _) => Ok(()),
        (Some(other), _) => Err(format!("has an `error` that is {}, not a message: {GIVE}", kind(other))),
        (None, Some(Value::Array(robots))) => match robots.iter().position(|r| !r.is_object()) {
            Some(i) => Err(format!("has robots[{i}] = {}, not a robot's metrics: {GIVE}", kind(&robots[i]))),
            None => Ok(()),
        },
        (None, Some(other)) => Err(format!("has `robots` that is {}, not a list: {GIVE}", kind(other))),
        (None, None) if object.is_empty() => Err(format!("is an empty dict: {GIVE}")),
        (None, None) => Err(format!(
            "is a dict with neither \"robots\" nor \"error\" (keys {}): {GIVE}",
            object.keys().take(5).map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A representation of `vsr2d evolve` usable from any optimizer: `Representation(spec, scenario=...,
/// name=...)` with `spec` an experiment's `"representation"` (a dict or JSON text), `scenario` its
/// `"scenario"` (world and task; not for `slots`, whose template is the whole scenario), `name` the
/// robots' label (default `evolve`) and `fitness` its `"fitness"` (default `{"metric":
/// "relative_x_velocity"}`); or `Representation.from_experiment(experiment)`, which also knows the
/// experiment's objectives and descriptors.
///
/// `size` is the genome's length, `init_box` the (lo, hi) box genomes start in; `decode(genome)` gives
/// the scenario `vsr2d evolve` simulates for the genome (a dict for `evaluate_many`);
/// `descriptors(result, names)`, `fitness(result)` and `objectives(result)` read the numbers of a
/// result by metric name or JSON pointer, as an experiment's `descriptors`, `fitness.metric` and
/// `fitness.objectives` do.
#[pyclass(module = "vsr2d._vsr2d", frozen)]
pub struct Representation {
    experiment: Experiment,
    mapper: Mapper,
    /// Pointers already checked against the result's schema.
    checked: Mutex<HashSet<String>>,
}

impl Representation {
    pub fn of(experiment: Experiment, mapper: Mapper) -> Representation {
        Representation { experiment, mapper, checked: Mutex::default() }
    }

    fn parse(py: Python<'_>, text: &str) -> PyResult<Representation> {
        let experiment = Experiment::from_json(text).map_err(|e| experiment_error(py, e))?;
        let mapper = Mapper::new(&experiment.representation, &experiment.name, experiment.scenario.as_ref())
            .map_err(|e| experiment_error(py, e))?;
        Ok(Representation::of(experiment, mapper))
    }

    /// The task of every decoded scenario (the `slots` template's, or `scenario.task`).
    fn task(&self) -> TaskSpec {
        match &self.experiment.representation {
            RepresentationSpec::Slots(s) => s.template.task.clone(),
            _ => self.experiment.scenario.as_ref().map(|s| s.task.clone()).unwrap_or_default(),
        }
    }

    /// The voxel robots of every decoded scenario.
    fn robots(&self) -> usize {
        match &self.experiment.representation {
            RepresentationSpec::Slots(s) => s.template.robots.len(),
            _ => 1,
        }
    }

    /// The JSON pointer of `metric`, checked against the result's schema as an experiment's metrics are.
    fn pointer(&self, py: Python<'_>, path: &str, metric: &str) -> PyResult<String> {
        let task = self.task();
        let pointer = metric_pointer(metric, self.experiment.fitness.robot, &task)
            .map_err(|m| invalid(py, path.into(), format!("`{path}`: {m}")))?;
        let mut checked = self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !checked.contains(&pointer) {
            check_pointer(&pointer, &task, self.robots().max(1))
                .map_err(|m| invalid(py, path.into(), format!("`{path}`: {m}")))?;
            checked.insert(pointer.clone());
        }
        Ok(pointer)
    }

    /// The numbers at `metrics` in `result` (None for an error record or a null value).
    fn numbers(
        &self,
        py: Python<'_>,
        result: &Bound<'_, PyAny>,
        metrics: &[(String, String)],
    ) -> PyResult<Option<Vec<f64>>> {
        let pointers: Vec<String> =
            metrics.iter().map(|(path, metric)| self.pointer(py, path, metric)).collect::<PyResult<_>>()?;
        let value = record(py, result, "result")?;
        if value.get("error").is_some() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(metrics.len());
        for ((path, _), pointer) in metrics.iter().zip(&pointers) {
            match value.pointer(pointer) {
                None => {
                    return Err(invalid(
                        py,
                        path.clone(),
                        format!(
                            "`{path}`: the result has nothing at {pointer}: give a metric of this task's results \
                             (`vsr2d schema --result`) or a pointer that exists"
                        ),
                    ))
                }
                Some(Value::Null) => return Ok(None),
                Some(Value::Number(n)) => out.push(n.as_f64().unwrap_or(f64::NAN)),
                Some(other) => {
                    return Err(invalid(
                        py,
                        path.clone(),
                        format!("`{path}`: the result holds {} at {pointer}, not a number", kind(other)),
                    ))
                }
            }
        }
        Ok(Some(out))
    }
}

#[pymethods]
impl Representation {
    #[new]
    #[pyo3(signature = (spec, *, scenario = None, name = None, fitness = None))]
    fn new(
        py: Python<'_>,
        spec: &Bound<'_, PyAny>,
        scenario: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        fitness: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut experiment = Map::new();
        if let Some(name) = name {
            experiment.insert("name".into(), Value::String(name));
        }
        experiment.insert("representation".into(), json_value(spec, "the representation")?);
        if let Some(s) = scenario {
            experiment.insert("scenario".into(), json_value(s, "`scenario`")?);
        }
        if let Some(f) = fitness {
            experiment.insert("fitness".into(), json_value(f, "`fitness`")?);
        }
        Representation::parse(py, &Value::Object(experiment).to_string())
    }

    /// The representation of an experiment (a dict, JSON text or a path, as `vsr2d evolve` reads it),
    /// with its scenario, name, fitness, objectives and (MAP-Elites) descriptors.
    #[staticmethod]
    fn from_experiment(py: Python<'_>, experiment: &Bound<'_, PyAny>) -> PyResult<Self> {
        Representation::parse(py, &json_text(experiment)?)
    }

    /// The genome's length.
    #[getter]
    fn size(&self) -> usize {
        self.mapper.genome_size()
    }

    /// (lo, hi): the box every gene of an initial genome is drawn from (the representation's `init`,
    /// or its default), also the bounds CMA-ES and MAP-Elites keep genomes in by default.
    #[getter]
    fn init_box(&self) -> (f64, f64) {
        let [lo, hi] = self.mapper.spec.init_box();
        (lo, hi)
    }

    /// The representation's `type` (`phases`, `gmm_body`, `mlp_weights`, ...).
    #[getter]
    #[pyo3(name = "type")]
    fn kind(&self) -> PyResult<String> {
        let value = serde_json::to_value(&self.mapper.spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(value["type"].as_str().unwrap_or_default().to_string())
    }

    /// The representation with every default written out, as a dict.
    #[getter]
    fn spec<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::to_py(py, &self.mapper.spec)
    }

    /// The experiment it belongs to, every default written out (the log header's `experiment`).
    #[getter]
    fn experiment<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value: Value =
            serde_json::from_str(&self.experiment.resolved_json()).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(pythonize(py, &value)?)
    }

    /// The scenario of `genome` (a 1-D numpy array or a list of `size` numbers) as a dict: exactly
    /// the scenario `vsr2d evolve` simulates for it. Raises `vsr2d.ScenarioError` (a ValueError) for a
    /// genome of the wrong length or with a non-finite gene, and for one that makes no robot (a
    /// `gmm_body` genome whose cells all stay below the threshold: `vsr2d evolve` counts it as an
    /// invalid individual, worst of all).
    fn decode<'py>(&self, py: Python<'py>, genome: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let genes = self::genome(py, genome, "genome")?;
        let (_, json) = self.mapper.map(&genes).map_err(|e| {
            let fix = match &e {
                MapError::GenomeSize { .. } => format!(": give {} numbers (Representation.size)", self.size()),
                MapError::EmptyBody => {
                    ": an invalid individual (vsr2d evolve scores it worst of all); score it so, or draw another"
                        .to_string()
                }
                MapError::NonFiniteGene { .. } | MapError::NonFinite { .. } => {
                    ": keep every gene finite (a NaN or inf from the optimizer?)".to_string()
                }
                MapError::Scenario(_) => String::new(),
            };
            let path = match &e {
                MapError::NonFiniteGene { gene, .. } | MapError::NonFinite { gene, .. } => format!("genome[{gene}]"),
                _ => "genome".to_string(),
            };
            invalid(py, path, format!("{e}{fix}"))
        })?;
        let value: Value = serde_json::from_str(&json).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(pythonize(py, &value)?)
    }

    /// The numbers of `result` (a dict from `evaluate`/`evaluate_many`, or its JSON text) at `names`:
    /// metric names (`x_distance`, `center_avg_y`, the task's own such as `max_height`: robot
    /// `fitness.robot`'s, as an experiment resolves them) or JSON pointers (`/robots/0/x_velocity`).
    /// By default the MAP-Elites experiment's `descriptors`. None for an error record (an invalid
    /// individual) or a null value.
    #[pyo3(signature = (result, names = None))]
    fn descriptors(
        &self,
        py: Python<'_>,
        result: &Bound<'_, PyAny>,
        names: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Vec<f64>>> {
        let metrics: Vec<(String, String)> = match names {
            Some(n) if n.is_instance_of::<PyString>() => vec![("names".into(), n.extract()?)],
            Some(n) => n
                .extract::<Vec<String>>()
                .map_err(|_| invalid(py, "names".into(), "`names` is a list of metric names or JSON pointers".into()))?
                .into_iter()
                .enumerate()
                .map(|(i, m)| (format!("names[{i}]"), m))
                .collect(),
            None => match self.experiment.algorithm() {
                AlgorithmSpec::MapElites(p) => p
                    .descriptors
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (format!("algorithm.descriptors[{i}].metric"), d.metric.clone()))
                    .collect(),
                _ => {
                    return Err(invalid(
                        py,
                        "names".into(),
                        "give `names` (e.g. [\"x_distance\", \"center_avg_y\"]): this representation's experiment \
                         is not MAP-Elites, so it has no descriptors of its own"
                            .into(),
                    ))
                }
            },
        };
        self.numbers(py, result, &metrics)
    }

    /// The experiment's fitness of `result` (the number at `fitness.metric`, as logged: not negated
    /// for `goal: min`); None for an error record.
    fn fitness(&self, py: Python<'_>, result: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        let metric = vec![("fitness.metric".to_string(), self.experiment.fitness.metric.clone())];
        Ok(self.numbers(py, result, &metric)?.map(|v| v[0]))
    }

    /// The experiment's `fitness.objectives` of `result`, in order (as logged: not negated for
    /// `goal: min`); None for an error record.
    fn objectives(&self, py: Python<'_>, result: &Bound<'_, PyAny>) -> PyResult<Option<Vec<f64>>> {
        let metrics: Vec<(String, String)> = self
            .experiment
            .fitness
            .objectives
            .iter()
            .enumerate()
            .map(|(i, o)| (format!("fitness.objectives[{i}].metric"), o.metric.clone()))
            .collect();
        if metrics.is_empty() {
            return Err(invalid(
                py,
                "fitness.objectives".into(),
                "the experiment has no `fitness.objectives` (give them, as for NSGA-II, or use descriptors(result, \
                 names))"
                    .into(),
            ));
        }
        self.numbers(py, result, &metrics)
    }

    fn __repr__(&self) -> String {
        let [lo, hi] = self.mapper.spec.init_box();
        format!("Representation({}, size={}, init_box=({lo}, {hi}))", self.kind().unwrap_or_default(), self.size())
    }

    /// Pickles as its resolved experiment (for process pools and clusters).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from = slf.get_type().getattr("from_experiment")?;
        Ok((from, (slf.get().experiment.resolved_json(),)))
    }
}
