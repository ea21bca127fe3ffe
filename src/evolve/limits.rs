//! The resource limits of an evolutionary run, checked before anything runs (`evolve`, `study`, the
//! Python `evolve`): the same [`Limits`] `simulate`, `eval` and `render` apply, lifted by
//! `--allow-large` (Python: `allow_large=True`). The population's genes (n_pop × genome size) and the
//! worst case of a mapped individual (its largest body for the scenario's duration) must fit.

use serde_json::json;

use super::represent::{Mapper, RepresentationSpec};
use super::{EvolveError, Experiment};
use crate::scenario::{Limits, Scenario};

/// Bytes a gene costs at the peak of a run's first generation (parents, the checkpoint's and the final
/// population's JSON text): 9.98·10⁶ genes (n_pop 96 000 of the worm's 104-gene MLP) peaked at 787 MB
/// resident (docs/evolution.md).
const BYTES_PER_GENE: u64 = 80;

/// Checks `experiment` against `limits` (see the module docs); the error names the field to change.
pub fn check_limits(experiment: &Experiment, limits: &Limits) -> Result<(), EvolveError> {
    let genes = experiment.representation.genome_size() as u64;
    let algorithm = experiment.algorithm();
    let batch = algorithm.batch_size(genes as usize);
    let total = genes.saturating_mul(batch as u64);
    if total > limits.max_population_genes {
        let field = if matches!(algorithm, super::AlgorithmSpec::Ga(_)) { "n_pop" } else { "population" };
        return Err(EvolveError::Invalid {
            path: format!("{}{field}", experiment.algorithm_path()),
            message: format!(
                "population × genome size = {} × {genes} = {} genes is over the limit of {} (about {} MB held); \
                 give a smaller population or representation, or lift the limit with --allow-large (Python: \
                 allow_large=True)",
                batch,
                crate::geom::compact(total as f64),
                crate::geom::compact(limits.max_population_genes as f64),
                limits.max_population_genes.saturating_mul(BYTES_PER_GENE) >> 20
            ),
        });
    }
    let worst = worst_case(experiment)?;
    worst.check_limits(limits).map_err(|e| EvolveError::Invalid {
        path: format!("scenario.{}", e.path()),
        message: format!(
            "the largest robot this experiment can make (every cell of its body filled) is over the limits: {e}; or \
             lift them with --allow-large"
        ),
    })?;
    Ok(())
}

/// The most expensive scenario the representation maps to: a full `w × h` body for `gmm_body`, the
/// fixed body of the others (mapped from the centre of the init box), the template for `slots`.
fn worst_case(experiment: &Experiment) -> Result<Scenario, EvolveError> {
    let invalid = |message: String| EvolveError::Invalid { path: "representation".into(), message };
    match &experiment.representation {
        RepresentationSpec::GmmBody(g) => {
            let base = experiment.scenario.clone().unwrap_or_default();
            let rows = vec!["#".repeat(g.w as usize); g.h as usize];
            let text = json!({ "world": base.world, "task": base.task, "robots": [{ "body": rows }] }).to_string();
            Scenario::from_json(&text).map_err(|e| invalid(e.to_string()))
        }
        RepresentationSpec::Slots(s) => Ok(s.template.clone()),
        spec => {
            let mapper = Mapper::new(spec, &experiment.name, experiment.scenario.as_ref())?;
            let [lo, hi] = spec.init_box();
            let centre = vec![0.5 * (lo + hi); spec.genome_size()];
            mapper.map(&centre).map(|(s, _)| s).map_err(|e| invalid(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_population_and_the_largest_body_are_checked_and_allow_large_lifts_them() {
        let e = Experiment::from_json(
            r#"{"ea": {"n_pop": 100000}, "representation": {"type": "mlp_weights", "body": "biped", "hidden": [1000]}}"#,
        )
        .unwrap();
        let err = check_limits(&e, &Limits::DEFAULT).unwrap_err().to_string();
        assert!(err.contains("ea.n_pop") && err.contains("--allow-large"), "{err}");
        check_limits(&e, &Limits::NONE).unwrap();
        // A 100 × 100 grid filled is 10 000 voxels; for 60 s at 1/60 s that is 3.6·10⁷ voxel steps... times
        // 10: over 2·10⁸.
        let e = Experiment::from_json(
            r#"{"ea": {"n_pop": 10}, "representation": {"type": "gmm_body", "w": 100, "h": 100},
                "scenario": {"world": {"duration": 600}}}"#,
        )
        .unwrap();
        let err = check_limits(&e, &Limits::DEFAULT).unwrap_err().to_string();
        assert!(err.contains("scenario.world.duration") && err.contains("voxel steps"), "{err}");
        let small =
            Experiment::from_json(r#"{"ea": {"n_pop": 10}, "representation": {"type": "gmm_body", "w": 5, "h": 5}}"#)
                .unwrap();
        check_limits(&small, &Limits::DEFAULT).unwrap();
    }
}
