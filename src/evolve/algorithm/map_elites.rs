//! MAP-Elites (J.-B. Mouret & J. Clune, "Illuminating search spaces by mapping elites",
//! arXiv:1504.04909, 2015) over a regular grid of behaviour descriptors, with either Gaussian mutation of
//! one elite or the Iso+LineDD operator of V. Vassiliades & J.-B. Mouret, "Discovering the Elite
//! Hypervolume by Leveraging Interspecies Correlation", GECCO 2018: x′ = x + σ_iso·N(0, I) +
//! σ_line·N(0, 1)·(y − x) for two elites x, y.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use serde_json::{Map, Value};

use super::Goal;
use super::{best_index, push_best, push_fitness_stats, score, take, Fields, Individual, Optimizer, RunFile, Setup};
use crate::evolve::reader;
use crate::rng::SplitMix64 as Rng;

/// The largest number of bins a grid archive may have (the product of the axes' bins).
pub(crate) const MAX_BINS: usize = 1_000_000;

/// How children are made from the archive's elites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variation {
    /// One elite plus σ·N(0, 1) per gene (Mouret & Clune 2015).
    Gaussian,
    /// Iso+LineDD (Vassiliades & Mouret 2018): elite x + σ_iso·N(0, I) + σ_line·N(0, 1)·(y − x), with y a
    /// second elite.
    IsoLine,
}

/// MAP-Elites settings; every field may be left out for its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MapElitesParams {
    /// Generations after generation 0 (default 100).
    pub generations: u32,
    /// The archive's axes: a number of the result each (a name or a JSON pointer, as `fitness.metric`)
    /// and its range and bins (see `vsr2d schema --result` for the morphology and behaviour
    /// descriptors).
    pub descriptors: Vec<Descriptor>,
    /// The QD-score adds fitness − `qd_offset` over the filled bins (default 0; give a value below every
    /// fitness you expect, so every elite adds).
    pub qd_offset: f64,
    /// Random genomes (uniform in the initial box) evaluated in generation 0.
    pub initial: usize,
    /// Children per later generation.
    pub batch: usize,
    /// How children are made: "iso_line" (Vassiliades & Mouret 2018) or "gaussian".
    pub variation: Variation,
    /// Gaussian variation's σ, as a fraction of the initial box width.
    pub sigma: f64,
    /// Iso+LineDD's isotropic σ_iso, as a fraction of the initial box width (the paper's 0.01 on [0, 1]).
    pub iso_sigma: f64,
    /// Iso+LineDD's σ_line along the line between the two elites (dimensionless; the paper's 0.2).
    pub line_sigma: f64,
    /// Box [lo, hi] children are clipped into (the paper clips into its [0, 1] search space). Default:
    /// the representation's initial box, as for CMA-ES and NSGA-II.
    pub bounds: Option<[f64; 2]>,
}

impl Default for MapElitesParams {
    fn default() -> Self {
        MapElitesParams {
            generations: 100,
            descriptors: Vec::new(),
            qd_offset: 0.0,
            initial: 100,
            batch: 100,
            variation: Variation::IsoLine,
            sigma: 0.1,
            iso_sigma: 0.01,
            line_sigma: 0.2,
            bounds: None,
        }
    }
}

impl MapElitesParams {
    /// Checks the settings for a genome of `genome_size` genes: Err((field, message)).
    pub fn validate(&self, genome_size: usize) -> Result<(), (String, String)> {
        let err = |field: &str, message: String| Err((field.to_string(), message));
        if genome_size == 0 {
            return err("genome_size", "MAP-Elites needs a genome of at least 1 gene; got 0".into());
        }
        if self.initial == 0 {
            return err("initial", "is 0; generation 0 needs at least 1 random genome (default 100)".into());
        }
        if self.batch == 0 {
            return err("batch", "is 0; each generation needs at least 1 child (default 100)".into());
        }
        for (field, v) in [("sigma", self.sigma), ("iso_sigma", self.iso_sigma), ("line_sigma", self.line_sigma)] {
            if !(v.is_finite() && v >= 0.0) {
                return err(field, format!("is {v}; give a finite number ≥ 0"));
            }
        }
        if let Some([lo, hi]) = self.bounds {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return err("bounds", format!("is [{lo}, {hi}]; give two finite numbers [lo, hi] with lo < hi"));
            }
        }
        Ok(())
    }
}

/// One axis of the archive as the experiment gives it: which number of the result, over which range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    /// A number of the result: a name (`voxels`, `x_distance`, `max_height`, …) or a JSON pointer.
    pub metric: String,
    /// Lower end of the first bin.
    pub min: f64,
    /// Upper end of the last bin (> min); values outside go to the edge bins.
    pub max: f64,
    /// Number of bins (≥ 1).
    pub bins: usize,
}

impl Descriptor {
    pub fn axis(&self) -> Axis {
        Axis { min: self.min, max: self.max, bins: self.bins }
    }
}

/// One descriptor axis of a grid: `bins` equal bins over [min, max].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Lower end of the first bin.
    pub min: f64,
    /// Upper end of the last bin (> min).
    pub max: f64,
    /// Number of bins (≥ 1).
    pub bins: usize,
}

/// The occupant of one bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Elite {
    pub genome: Vec<f64>,
    pub fitness: f64,
    pub descriptors: Vec<f64>,
}

/// A grid archive: at most one elite per bin, the fittest seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridArchive {
    axes: Vec<Axis>,
    /// Filled bins by flat index (row-major: the first axis varies slowest).
    cells: BTreeMap<usize, Elite>,
}

impl GridArchive {
    /// Checks grid axes: `Err((path, message))`, the path like `axes[1].bins`.
    pub(crate) fn validate_axes(axes: &[Axis]) -> Result<(), (String, String)> {
        if axes.is_empty() {
            return Err(("axes".into(), "is empty; give at least one descriptor axis {min, max, bins}".into()));
        }
        let mut total: usize = 1;
        for (i, a) in axes.iter().enumerate() {
            if !(a.min.is_finite() && a.max.is_finite() && a.min < a.max) {
                return Err((
                    format!("axes[{i}]"),
                    format!("min {} and max {} must be finite with min < max", a.min, a.max),
                ));
            }
            if a.bins == 0 {
                return Err((format!("axes[{i}].bins"), "is 0; give at least 1 bin".into()));
            }
            total = match total.checked_mul(a.bins) {
                Some(t) if t <= MAX_BINS => t,
                _ => {
                    return Err((
                        format!("axes[{i}].bins"),
                        format!("makes the grid larger than {MAX_BINS} bins in all; use fewer bins per axis"),
                    ))
                }
            };
        }
        Ok(())
    }

    /// An empty archive over valid `axes`.
    pub fn new(axes: Vec<Axis>) -> Result<GridArchive, (String, String)> {
        Self::validate_axes(&axes)?;
        Ok(GridArchive { axes, cells: BTreeMap::new() })
    }

    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The bin of each descriptor: ⌊(d − min)/(max − min)·bins⌋, clamped into 0..bins, so d = max falls
    /// in the last bin and values outside [min, max] in the edge bins. `descriptors` must have one
    /// value per axis.
    pub fn bin_of(&self, descriptors: &[f64]) -> Vec<usize> {
        self.axes
            .iter()
            .zip(descriptors)
            .map(|(a, &d)| {
                let t = ((d - a.min) / (a.max - a.min) * a.bins as f64).floor();
                // `as` saturates: −∞ or negative → 0; NaN → 0 (insert rejects NaN before this).
                (t.max(0.0) as usize).min(a.bins - 1)
            })
            .collect()
    }

    /// Flat index of a bin (row-major, first axis slowest).
    pub fn flat_index(&self, bin: &[usize]) -> usize {
        self.axes.iter().zip(bin).fold(0, |flat, (a, &b)| flat * a.bins + b)
    }

    /// Keeps the individual if its bin is empty or it is strictly fitter than the bin's elite (ties keep
    /// the incumbent). Invalid individuals never enter: non-finite fitness, descriptors of the wrong
    /// length or non-finite, non-finite genes. Returns whether it was kept.
    pub fn insert(&mut self, genome: Vec<f64>, fitness: f64, descriptors: Vec<f64>) -> bool {
        if !fitness.is_finite()
            || descriptors.len() != self.axes.len()
            || !descriptors.iter().all(|d| d.is_finite())
            || !genome.iter().all(|x| x.is_finite())
        {
            return false;
        }
        let flat = self.flat_index(&self.bin_of(&descriptors));
        match self.cells.get(&flat) {
            Some(e) if e.fitness >= fitness => false,
            _ => {
                self.cells.insert(flat, Elite { genome, fitness, descriptors });
                true
            }
        }
    }

    /// The elites with their flat bin index, by ascending flat index.
    pub fn elites(&self) -> impl Iterator<Item = (usize, &Elite)> {
        self.cells.iter().map(|(&k, e)| (k, e))
    }

    /// The elite of a bin.
    pub fn get(&self, bin: &[usize]) -> Option<&Elite> {
        self.cells.get(&self.flat_index(bin))
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Total number of bins.
    pub fn bins(&self) -> usize {
        self.axes.iter().map(|a| a.bins).product()
    }

    /// Filled bins / total bins.
    pub fn coverage(&self) -> f64 {
        self.len() as f64 / self.bins() as f64
    }

    /// Σ (fitness − offset) over the filled bins (the QD score; choose `offset` ≤ the lowest possible
    /// fitness so that every elite counts positively).
    pub fn qd_score(&self, offset: f64) -> f64 {
        self.cells.values().map(|e| e.fitness - offset).sum()
    }

    /// The fittest elite (ties: lowest flat index).
    pub fn best(&self) -> Option<&Elite> {
        self.cells.values().fold(None, |best: Option<&Elite>, e| match best {
            Some(b) if b.fitness >= e.fitness => Some(b),
            _ => Some(e),
        })
    }
}

/// A MAP-Elites run between generations (the random numbers come from the caller's generator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapElites {
    params: MapElitesParams,
    genes: usize,
    init_box: [f64; 2],
    bounds: [f64; 2],
    archive: GridArchive,
    /// Completed generations (tells).
    generation: u64,
}

impl MapElites {
    /// A new run over `genes` genes; `params` must have passed [`MapElitesParams::validate`].
    pub fn new(params: &MapElitesParams, genes: usize, init_box: [f64; 2], archive: GridArchive) -> MapElites {
        MapElites {
            params: params.clone(),
            genes,
            init_box,
            bounds: params.bounds.unwrap_or(init_box),
            archive,
            generation: 0,
        }
    }

    /// Generation 0: `initial` genomes uniform in the initial box, gene by gene (also later while the
    /// archive is still empty, `batch` of them). Later `batch` children, each from elites chosen
    /// uniformly among the archive's (in flat-index order) and clipped into the bounds; draw order per
    /// child: gaussian: elite index, then one normal per gene; iso_line: index of x, index of y, the line
    /// normal, then one normal per gene.
    pub fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>> {
        let [lo, hi] = self.init_box;
        if self.archive.is_empty() {
            let count = if self.generation == 0 { self.params.initial } else { self.params.batch };
            return (0..count).map(|_| (0..self.genes).map(|_| rng.range(lo, hi)).collect()).collect();
        }
        let elites: Vec<&Elite> = self.archive.elites().map(|(_, e)| e).collect();
        let width = hi - lo;
        let clip = |x: f64| x.clamp(self.bounds[0], self.bounds[1]);
        (0..self.params.batch)
            .map(|_| match self.params.variation {
                Variation::Gaussian => {
                    let x = &elites[rng.index(elites.len())].genome;
                    let sigma = self.params.sigma * width;
                    x.iter().map(|&x| clip(x + sigma * rng.normal())).collect()
                }
                Variation::IsoLine => {
                    let x = &elites[rng.index(elites.len())].genome;
                    let y = &elites[rng.index(elites.len())].genome;
                    let line = self.params.line_sigma * rng.normal();
                    let iso = self.params.iso_sigma * width;
                    x.iter().zip(y).map(|(&x, &y)| clip(x + iso * rng.normal() + line * (y - x))).collect()
                }
            })
            .collect()
    }

    /// Offers every told individual to the archive in order; returns which were kept. Invalid ones
    /// (fitness −∞ or NaN, descriptors None or non-finite) are skipped.
    pub fn tell(
        &mut self,
        genomes: &[Vec<f64>],
        fitness: &[f64],
        descriptors: &[Option<Vec<f64>>],
    ) -> Result<Vec<bool>, String> {
        if genomes.len() != fitness.len() || genomes.len() != descriptors.len() {
            return Err(format!(
                "{} genomes, {} fitness values and {} descriptor vectors: give one of each per genome",
                genomes.len(),
                fitness.len(),
                descriptors.len()
            ));
        }
        if let Some(g) = genomes.iter().find(|g| g.len() != self.genes) {
            return Err(format!("a genome has {} genes; this run's have {}", g.len(), self.genes));
        }
        let axes = self.archive.axes().len();
        if let Some(d) = descriptors.iter().flatten().find(|d| d.len() != axes) {
            return Err(format!("a descriptor vector has {} values; the archive has {axes} axes", d.len()));
        }
        let kept = genomes
            .iter()
            .zip(fitness)
            .zip(descriptors)
            .map(|((g, &f), d)| d.as_ref().is_some_and(|d| self.archive.insert(g.clone(), f, d.clone())))
            .collect();
        self.generation += 1;
        Ok(kept)
    }

    pub fn archive(&self) -> &GridArchive {
        &self.archive
    }

    /// Completed generations (tells).
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// MAP-Elites as the run drives it: the archive (the fitness it compares is the goal's score) and the
/// elites as the run knows them (fitness as measured, id, birth), by flat bin index.
pub(crate) struct MapElitesOptimizer {
    params: MapElitesParams,
    setup: Setup,
    search: MapElites,
    elites: BTreeMap<usize, Individual>,
}

impl MapElitesOptimizer {
    pub fn new(params: MapElitesParams, setup: &Setup) -> MapElitesOptimizer {
        let axes = params.descriptors.iter().map(Descriptor::axis).collect();
        let archive = GridArchive::new(axes).expect("descriptors validated when the experiment was read");
        let search = MapElites::new(&params, setup.genome_size, setup.init_box, archive);
        MapElitesOptimizer { params, setup: setup.clone(), search, elites: BTreeMap::new() }
    }

    fn members(&self) -> Vec<Individual> {
        self.elites.values().cloned().collect()
    }
}

impl Optimizer for MapElitesOptimizer {
    fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>> {
        self.search.ask(rng)
    }

    fn tell(&mut self, told: Vec<Individual>) {
        let goal = self.setup.goal;
        let genomes: Vec<Vec<f64>> = told.iter().map(|i| i.genome.clone()).collect();
        let scores: Vec<f64> = told.iter().map(|i| score(goal, i)).collect();
        let descriptors: Vec<Option<Vec<f64>>> =
            told.iter().map(|i| i.descriptors.clone().filter(|_| i.fitness.is_some())).collect();
        let kept = self.search.tell(&genomes, &scores, &descriptors).expect("the run tells what it asked");
        for (i, kept) in told.into_iter().zip(kept) {
            if kept {
                let archive = self.search.archive();
                let bin = archive.flat_index(&archive.bin_of(i.descriptors.as_deref().expect("kept ones have them")));
                self.elites.insert(bin, i);
            }
        }
    }

    /// The elites, best first (ties: bin order).
    fn ranked(&self) -> Vec<Individual> {
        let mut members = self.members();
        members.sort_by(|a, b| score(self.setup.goal, b).total_cmp(&score(self.setup.goal, a)));
        members
    }

    fn best(&self) -> Option<Individual> {
        let members = self.members();
        best_index(self.setup.goal, &members).map(|k| members[k].clone())
    }

    /// The elites' fitness statistics, the archive's coverage and QD-score, and its best elite.
    fn log_fields(&self) -> Fields {
        let mut f = Fields::default();
        let members = self.members();
        push_fitness_stats(&mut f, &members, self.setup.goal);
        let archive = self.search.archive();
        f.push("elites", archive.len());
        f.push("coverage", archive.coverage());
        let offset = self.params.qd_offset;
        let sign = if self.setup.goal == Goal::Min { -1.0 } else { 1.0 };
        f.push("qd_score", members.iter().filter_map(|m| m.fitness).map(|v| sign * v - offset).sum::<f64>());
        push_best(&mut f, self.best().as_ref());
        f
    }

    fn save(&self) -> Fields {
        let mut state = Fields::default();
        state.push("map_elites", &self.search);
        state.push("elites", &self.elites);
        state
    }

    fn restore(&mut self, mut state: Map<String, Value>) -> Result<(), String> {
        let search: MapElites = take(&mut state, "map_elites")?;
        if search.genes != self.setup.genome_size || search.archive.axes != self.search.archive.axes {
            return Err("checkpoint.json's archive is not this experiment's".into());
        }
        self.search = search;
        self.elites = take(&mut state, "elites")?;
        Ok(())
    }

    /// `archive.jsonl`: one line per filled bin, in bin order.
    fn files(&self, scenario: &dyn Fn(&[f64]) -> Value) -> Vec<RunFile> {
        let archive = self.search.archive();
        let mut text = String::new();
        for i in self.elites.values() {
            let descriptors = i.descriptors.clone().unwrap_or_default();
            let line = reader::Elite {
                bin: archive.bin_of(&descriptors),
                descriptors,
                fitness: i.fitness.unwrap_or(f64::NAN),
                genome: i.genome.clone(),
                scenario: scenario(&i.genome),
            };
            text.push_str(&serde_json::to_string(&line).expect("archive lines serialise"));
            text.push('\n');
        }
        vec![RunFile { name: crate::evolve::reader::ARCHIVE, text }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(bins: usize) -> GridArchive {
        let axis = Axis { min: 0.0, max: 1.0, bins };
        GridArchive::new(vec![axis.clone(), axis]).expect("valid axes")
    }

    fn evaluate(xs: &[Vec<f64>]) -> (Vec<f64>, Vec<Option<Vec<f64>>>) {
        let fitness = xs.iter().map(|x| -x.iter().map(|x| x * x).sum::<f64>()).collect();
        (fitness, xs.iter().map(|x| Some(x[..2].to_vec())).collect())
    }

    fn run(variation: Variation, rng: &mut Rng, gens: usize) -> MapElites {
        let params = MapElitesParams { variation, ..Default::default() };
        params.validate(10).expect("valid");
        let mut me = MapElites::new(&params, 10, [0.0, 1.0], grid(10));
        for _ in 0..gens {
            let xs = me.ask(rng);
            let (f, d) = evaluate(&xs);
            me.tell(&xs, &f, &d).expect("tell");
        }
        me
    }

    #[test]
    fn bins_edges_and_out_of_range_values() {
        let a = GridArchive::new(vec![Axis { min: -1.0, max: 1.0, bins: 4 }, Axis { min: 0.0, max: 10.0, bins: 5 }])
            .expect("valid");
        assert_eq!(a.bin_of(&[-1.0, 0.0]), vec![0, 0]);
        assert_eq!(a.bin_of(&[1.0, 10.0]), vec![3, 4]);
        assert_eq!(a.bin_of(&[-0.5, 2.0]), vec![1, 1], "a bin's lower edge belongs to it");
        assert_eq!(a.bin_of(&[-0.5000001, 1.9999]), vec![0, 0]);
        assert_eq!(a.bin_of(&[-7.0, 1e9]), vec![0, 4]);
        assert_eq!(a.bin_of(&[f64::INFINITY, f64::NEG_INFINITY]), vec![3, 0]);
        assert_eq!(a.flat_index(&[2, 3]), 2 * 5 + 3);
        assert_eq!(a.bins(), 20);
    }

    #[test]
    fn insertion_keeps_the_strictly_fitter() {
        let mut a = grid(10);
        assert!(a.insert(vec![1.0], 1.0, vec![0.05, 0.05]));
        assert!(!a.insert(vec![2.0], 1.0, vec![0.01, 0.02]), "a tie keeps the incumbent");
        assert!(!a.insert(vec![3.0], 0.5, vec![0.01, 0.02]));
        assert!(a.insert(vec![4.0], 2.0, vec![0.09, 0.0]));
        assert_eq!(a.get(&[0, 0]).map(|e| e.genome.clone()), Some(vec![4.0]));
        assert!(a.insert(vec![5.0], -3.0, vec![0.95, 0.15]));
        // Invalid: −∞/NaN fitness, non-finite descriptors, wrong descriptor count, non-finite genes.
        assert!(!a.insert(vec![6.0], f64::NEG_INFINITY, vec![0.5, 0.5]));
        assert!(!a.insert(vec![6.0], f64::NAN, vec![0.5, 0.5]));
        assert!(!a.insert(vec![6.0], 1.0, vec![f64::NAN, 0.5]));
        assert!(!a.insert(vec![6.0], 1.0, vec![0.5]));
        assert!(!a.insert(vec![f64::INFINITY], 1.0, vec![0.5, 0.5]));
        assert_eq!(a.len(), 2);
        assert_eq!(a.coverage(), 0.02);
        assert_eq!(a.qd_score(-10.0), (2.0 + 10.0) + (-3.0 + 10.0));
        assert_eq!(a.best().map(|e| e.fitness), Some(2.0));
        // Flat order: bin (0, 0) = 0, then (9, 1) = 91.
        assert_eq!(a.elites().map(|(k, _)| k).collect::<Vec<_>>(), vec![0, 91]);
    }

    #[test]
    fn axes_are_validated_with_their_path() {
        let path = |axes: Vec<Axis>| GridArchive::new(axes).err().map(|e| e.0);
        assert_eq!(path(vec![]).as_deref(), Some("axes"));
        assert_eq!(
            path(vec![Axis { min: 0.0, max: 1.0, bins: 3 }, Axis { min: 1.0, max: 1.0, bins: 3 }]).as_deref(),
            Some("axes[1]")
        );
        assert_eq!(path(vec![Axis { min: 0.0, max: 1.0, bins: 0 }]).as_deref(), Some("axes[0].bins"));
        let big = Axis { min: 0.0, max: 1.0, bins: 1001 };
        assert_eq!(path(vec![big.clone(), big.clone()]).as_deref(), Some("axes[1].bins"));
        let huge = Axis { min: 0.0, max: 1.0, bins: usize::MAX };
        assert_eq!(path(vec![huge.clone()]).as_deref(), Some("axes[0].bins"));
        // The product would overflow usize: still the limit's error, not a panic.
        assert_eq!(path(vec![Axis { min: 0.0, max: 1.0, bins: 1000 }, huge]).as_deref(), Some("axes[1].bins"));
        assert!(path(vec![Axis { min: 0.0, max: 1.0, bins: 1000 }; 2]).is_none());
    }

    #[test]
    fn validate_names_the_field() {
        let v = |p: MapElitesParams| p.validate(3).err().map(|e| e.0);
        assert_eq!(v(MapElitesParams::default()), None);
        assert_eq!(v(MapElitesParams { batch: 0, ..Default::default() }).as_deref(), Some("batch"));
        assert_eq!(v(MapElitesParams { iso_sigma: -0.1, ..Default::default() }).as_deref(), Some("iso_sigma"));
        assert_eq!(
            v(MapElitesParams { bounds: Some([0.0, f64::INFINITY]), ..Default::default() }).as_deref(),
            Some("bounds")
        );
        let p: MapElitesParams = serde_json::from_str(r#"{"variation": "gaussian"}"#).expect("parses");
        assert_eq!(p.variation, Variation::Gaussian);
        assert!(serde_json::from_str::<MapElitesParams>(r#"{"variation": "iso-line"}"#).is_err());
    }

    #[test]
    fn fills_a_10_by_10_archive() {
        for variation in [Variation::IsoLine, Variation::Gaussian] {
            let mut rng = Rng::new(1);
            let start = run(variation, &mut rng, 1);
            // Generation 0 (100 random genomes) and 20 generations of 100 children.
            let mut rng = Rng::new(1);
            let me = run(variation, &mut rng, 21);
            let (c0, c) = (start.archive().coverage(), me.archive().coverage());
            println!("{variation:?}: coverage {c0} after generation 0, {c} after 20 more generations of 100");
            assert!(c >= 0.9, "{variation:?}: coverage {c}");
            assert!(c > c0 && me.archive().qd_score(-10.0) > start.archive().qd_score(-10.0));
            // Children stay in the bounds (the initial box [0, 1]).
            assert!(me.archive().elites().all(|(_, e)| e.genome.iter().all(|x| (0.0..=1.0).contains(x))));
        }
    }

    #[test]
    fn iso_line_children_without_iso_noise_lie_on_the_line_through_two_elites() {
        // With σ_iso = 0 a child is x + t·(y − x): with two elites, on the segment's line.
        let params = MapElitesParams { iso_sigma: 0.0, bounds: Some([-10.0, 10.0]), ..Default::default() };
        let mut me = MapElites::new(&params, 2, [0.0, 1.0], grid(2));
        me.tell(&[vec![0.1, 0.1], vec![0.9, 0.5]], &[0.0, 0.0], &[Some(vec![0.1, 0.1]), Some(vec![0.9, 0.9])])
            .expect("tell");
        for c in me.ask(&mut Rng::new(5)) {
            // On the line through (0.1, 0.1) and (0.9, 0.5): y − 0.1 = 0.5·(x − 0.1).
            assert!((c[1] - 0.1 - 0.5 * (c[0] - 0.1)).abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn tell_checks_lengths_and_skips_invalid_individuals() {
        let mut me = MapElites::new(&MapElitesParams::default(), 2, [0.0, 1.0], grid(4));
        let xs = vec![vec![0.1, 0.2], vec![0.3, 0.4], vec![0.5, 0.6]];
        assert!(me.tell(&xs, &[0.0, 0.0], &[None, None]).is_err());
        assert!(me.tell(&xs, &[0.0; 3], &[None, Some(vec![0.5]), None]).is_err());
        let kept = me.tell(&xs, &[f64::NEG_INFINITY, 1.0, 2.0], &[Some(vec![0.1, 0.2]), None, Some(vec![0.5, 0.6])]);
        assert_eq!(kept, Ok(vec![false, false, true]));
        assert_eq!(me.archive().len(), 1);
    }

    #[test]
    fn a_checkpoint_continues_bit_identically() {
        let mut rng = Rng::new(6);
        let mut me = run(Variation::IsoLine, &mut rng, 5);
        let mut restored: MapElites = serde_json::from_str(&serde_json::to_string(&me).expect("ser")).expect("de");
        assert_eq!(restored, me);
        let mut rng2 = Rng::new(rng.state);
        for (me, rng) in [(&mut me, &mut rng), (&mut restored, &mut rng2)] {
            for _ in 0..5 {
                let xs = me.ask(rng);
                let (f, d) = evaluate(&xs);
                me.tell(&xs, &f, &d).expect("tell");
            }
        }
        assert_eq!(restored, me);
        assert_eq!(serde_json::to_string(&restored).ok(), serde_json::to_string(&me).ok());
    }

    #[test]
    fn every_parameter_has_a_schema_description() {
        let schema = schemars::schema_for!(MapElitesParams);
        let props = schema.as_value()["properties"].as_object().cloned().unwrap_or_default();
        assert_eq!(props.len(), 10);
        for (name, p) in &props {
            assert!(p["description"].as_str().is_some_and(|d| d.len() > 20), "{name}: {p}");
        }
    }
}
