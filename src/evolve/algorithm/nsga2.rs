//! NSGA-II: K. Deb, A. Pratap, S. Agarwal, T. Meyarivan, "A Fast and Elitist Multiobjective Genetic
//! Algorithm: NSGA-II", IEEE Trans. Evol. Comput. 6(2), 2002 — fast non-dominated sorting, crowding
//! distance, binary tournaments with the crowded-comparison operator, μ + λ survival; simulated binary
//! crossover (SBX) and polynomial mutation with the bounded forms of Deb's reference C code (nsga2-v1.1,
//! `realcross` / `real_mutate_ind`). Hypervolume: exact, by the hypervolume-by-slicing-objectives (HSO)
//! recursion with a sweep for two objectives (While, Hingston, Barone, Huband, IEEE TEC 10(1), 2006).
//!
//! Every objective is maximised. An individual is invalid when its objectives are `None` or contain a
//! non-finite value: invalid individuals share the last front and are never preferred to a valid one.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use serde_json::{Map, Value};

use super::Goal;
use super::{best_index, push_best, take, uniform_genomes, Fields, Individual, Optimizer, RunFile, Setup};
use crate::evolve::reader::FrontMember;
use crate::rng::SplitMix64 as Rng;

/// NSGA-II settings; every field may be left out for its default (Deb et al. 2002, §V).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Nsga2Params {
    /// Generations after generation 0 (default 100).
    pub generations: u32,
    /// Population size N (even, ≥ 4): survivors per generation and offspring per generation.
    pub population: usize,
    /// Probability that a pair of parents is recombined by SBX (else the children copy the parents).
    pub p_crossover: f64,
    /// SBX distribution index η_c (≥ 0): larger keeps children closer to their parents.
    pub eta_crossover: f64,
    /// Polynomial mutation distribution index η_m (≥ 0): larger makes smaller mutations.
    pub eta_mutation: f64,
    /// Probability that each gene is mutated, in [0, 1]. Default 1/n for n genes.
    pub p_mutation: Option<f64>,
    /// Box [lo, hi] every gene is kept in (the operators' bounds). Default: the representation's
    /// initial box.
    pub bounds: Option<[f64; 2]>,
}

impl Default for Nsga2Params {
    fn default() -> Self {
        Nsga2Params {
            generations: 100,
            population: 100,
            p_crossover: 0.9,
            eta_crossover: 20.0,
            eta_mutation: 20.0,
            p_mutation: None,
            bounds: None,
        }
    }
}

impl Nsga2Params {
    /// Checks the settings for a genome of `genome_size` genes: Err((field, message)).
    pub fn validate(&self, genome_size: usize) -> Result<(), (String, String)> {
        let err = |field: &str, message: String| Err((field.to_string(), message));
        if genome_size == 0 {
            return err("genome_size", "NSGA-II needs a genome of at least 1 gene; got 0".into());
        }
        if self.population < 4 || self.population % 2 != 0 {
            return err("population", format!("is {}; give an even number ≥ 4 (default 100)", self.population));
        }
        if !(0.0..=1.0).contains(&self.p_crossover) {
            return err("p_crossover", format!("is {}; give a probability in [0, 1] (default 0.9)", self.p_crossover));
        }
        for (field, eta) in [("eta_crossover", self.eta_crossover), ("eta_mutation", self.eta_mutation)] {
            if !(eta.is_finite() && eta >= 0.0) {
                return err(field, format!("is {eta}; give a finite distribution index ≥ 0 (default 20)"));
            }
        }
        if let Some(p) = self.p_mutation {
            if !(0.0..=1.0).contains(&p) {
                return err(
                    "p_mutation",
                    format!("is {p}; give a per-gene probability in [0, 1] or leave it out for 1/n"),
                );
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

/// The objectives of a valid individual.
fn valid(o: &Option<Vec<f64>>) -> Option<&[f64]> {
    o.as_deref().filter(|v| v.iter().all(|x| x.is_finite()))
}

/// Whether `a` dominates `b` (maximising): no worse in every objective, better in one.
fn dominates(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(a, b)| a >= b) && a.iter().zip(b).any(|(a, b)| a > b)
}

/// Fast non-dominated sorting (Deb et al. 2002, §III-A): fronts best first, each in ascending index.
/// The invalid individuals form one last front.
pub(crate) fn non_dominated_fronts(objectives: &[Option<Vec<f64>>]) -> Vec<Vec<usize>> {
    let (ok, invalid): (Vec<usize>, Vec<usize>) = (0..objectives.len()).partition(|&i| valid(&objectives[i]).is_some());
    let obj = |i: usize| valid(&objectives[i]).unwrap_or(&[]);
    // dominated[p]: whom p dominates; count[q]: how many dominate q.
    let mut dominated: Vec<Vec<usize>> = vec![Vec::new(); objectives.len()];
    let mut count = vec![0usize; objectives.len()];
    for (a, &p) in ok.iter().enumerate() {
        for &q in &ok[a + 1..] {
            if dominates(obj(p), obj(q)) {
                dominated[p].push(q);
                count[q] += 1;
            } else if dominates(obj(q), obj(p)) {
                dominated[q].push(p);
                count[p] += 1;
            }
        }
    }
    let mut fronts = Vec::new();
    let mut current: Vec<usize> = ok.iter().copied().filter(|&i| count[i] == 0).collect();
    while !current.is_empty() {
        let mut next = Vec::new();
        for &p in &current {
            for &q in &dominated[p] {
                count[q] -= 1;
                if count[q] == 0 {
                    next.push(q);
                }
            }
        }
        next.sort_unstable();
        fronts.push(current);
        current = next;
    }
    if !invalid.is_empty() {
        fronts.push(invalid);
    }
    fronts
}

/// Crowding distances of the members of one front, in `front`'s order (Deb et al. 2002, §III-B): per
/// objective, the two extreme members get +∞ and the others the normalised gap between their
/// neighbours; members with equal values keep index order. Invalid members get 0.
pub(crate) fn crowding_distances(front: &[usize], objectives: &[Option<Vec<f64>>]) -> Vec<f64> {
    let mut distance = vec![0.0; front.len()];
    let members: Vec<(usize, &[f64])> =
        front.iter().enumerate().filter_map(|(k, &i)| valid(&objectives[i]).map(|o| (k, o))).collect();
    let Some(m) = members.first().map(|(_, o)| o.len()) else {
        return distance;
    };
    for j in 0..m {
        let mut sorted = members.clone();
        sorted.sort_by(|a, b| a.1[j].total_cmp(&b.1[j]).then(front[a.0].cmp(&front[b.0])));
        let (lo, hi) = (sorted[0].1[j], sorted[sorted.len() - 1].1[j]);
        distance[sorted[0].0] = f64::INFINITY;
        distance[sorted[sorted.len() - 1].0] = f64::INFINITY;
        if hi > lo {
            for w in sorted.windows(3) {
                distance[w[1].0] += (w[2].1[j] - w[0].1[j]) / (hi - lo);
            }
        }
    }
    distance
}

/// Rank (front number, 0 best) and crowding distance of every individual.
pub(crate) fn rank_and_crowding(objectives: &[Option<Vec<f64>>]) -> (Vec<usize>, Vec<f64>) {
    let mut rank = vec![0; objectives.len()];
    let mut crowding = vec![0.0; objectives.len()];
    for (r, front) in non_dominated_fronts(objectives).iter().enumerate() {
        for (&i, d) in front.iter().zip(crowding_distances(front, objectives)) {
            rank[i] = r;
            crowding[i] = d;
        }
    }
    (rank, crowding)
}

/// Environmental selection (Deb et al. 2002, §III-C): whole fronts in order while they fit, then the
/// members of the front that does not fit by descending crowding distance, ties to the lower index.
/// Returns min(n, len) indices: the whole fronts' members in ascending index, then the partial front's
/// picks in the order picked.
pub fn select(objectives: &[Option<Vec<f64>>], n: usize) -> Vec<usize> {
    let mut chosen = Vec::with_capacity(n);
    for front in non_dominated_fronts(objectives) {
        if chosen.len() + front.len() <= n {
            chosen.extend_from_slice(&front);
            continue;
        }
        let d = crowding_distances(&front, objectives);
        let mut order: Vec<usize> = (0..front.len()).collect();
        order.sort_by(|&a, &b| d[b].total_cmp(&d[a]).then(front[a].cmp(&front[b])));
        chosen.extend(order.iter().take(n - chosen.len()).map(|&k| front[k]));
        break;
    }
    chosen
}

/// The crowded-comparison tournament between two drawn indices: lower rank, then larger crowding
/// distance, then lower index wins.
fn tournament(rng: &mut Rng, rank: &[usize], crowding: &[f64]) -> usize {
    let a = rng.index(rank.len());
    let b = rng.index(rank.len());
    let better = |a: usize, b: usize| {
        rank[a].cmp(&rank[b]).then(crowding[b].total_cmp(&crowding[a])).then(a.cmp(&b)) == Ordering::Less
    };
    if better(b, a) {
        b
    } else {
        a
    }
}

/// Bounded SBX on one pair of genes (Deb's `realcross`): one uniform for the spread, one for the swap.
fn sbx_gene(rng: &mut Rng, x1: f64, x2: f64, eta: f64, [lo, hi]: [f64; 2]) -> (f64, f64) {
    let (y1, y2) = (x1.min(x2), x1.max(x2));
    let u = rng.uniform();
    let spread = |beta: f64| {
        let alpha = 2.0 - beta.powf(-(eta + 1.0));
        if u <= 1.0 / alpha {
            (u * alpha).powf(1.0 / (eta + 1.0))
        } else {
            (1.0 / (2.0 - u * alpha)).powf(1.0 / (eta + 1.0))
        }
    };
    let beta_q = spread(1.0 + 2.0 * (y1 - lo) / (y2 - y1));
    let c1 = (0.5 * ((y1 + y2) - beta_q * (y2 - y1))).clamp(lo, hi);
    let beta_q = spread(1.0 + 2.0 * (hi - y2) / (y2 - y1));
    let c2 = (0.5 * ((y1 + y2) + beta_q * (y2 - y1))).clamp(lo, hi);
    if rng.uniform() <= 0.5 {
        (c2, c1)
    } else {
        (c1, c2)
    }
}

/// Polynomial mutation of one gene (Deb's `real_mutate_ind`, the bounded form): one uniform.
fn mutate_gene(rng: &mut Rng, y: f64, eta: f64, [lo, hi]: [f64; 2]) -> f64 {
    let u = rng.uniform();
    let (d1, d2) = ((y - lo) / (hi - lo), (hi - y) / (hi - lo));
    let power = 1.0 / (eta + 1.0);
    let delta_q = if u <= 0.5 {
        let v = 2.0 * u + (1.0 - 2.0 * u) * (1.0 - d1).max(0.0).powf(eta + 1.0);
        v.powf(power) - 1.0
    } else {
        let v = 2.0 * (1.0 - u) + 2.0 * (u - 0.5) * (1.0 - d2).max(0.0).powf(eta + 1.0);
        1.0 - v.powf(power)
    };
    (y + delta_q * (hi - lo)).clamp(lo, hi)
}

/// `n` children of `parents`, pair by pair: two crowded tournaments, a uniform deciding SBX (prob.
/// `p_crossover`), then per gene a uniform deciding whether to cross it (prob. ½, Deb's code) and SBX's
/// two uniforms; then for each child, per gene, a uniform deciding mutation (prob. `p_mutation`, default
/// 1/n) and the mutation's uniform. Children are clamped into `bounds`; with `n` odd the last pair's
/// second child is dropped.
pub fn offspring(
    rng: &mut Rng,
    parents: &[Vec<f64>],
    rank: &[usize],
    crowding: &[f64],
    params: &Nsga2Params,
    bounds: [f64; 2],
    n: usize,
) -> Vec<Vec<f64>> {
    let genes = parents.first().map_or(0, Vec::len);
    let p_mutation = params.p_mutation.unwrap_or(1.0 / genes.max(1) as f64);
    let mut children = Vec::with_capacity(n + 1);
    while children.len() < n {
        let p1 = &parents[tournament(rng, rank, crowding)];
        let p2 = &parents[tournament(rng, rank, crowding)];
        let (mut c1, mut c2) = (p1.clone(), p2.clone());
        if rng.uniform() < params.p_crossover {
            for k in 0..genes {
                // Deb's code crosses each gene with probability ½, and only distinct values.
                if rng.uniform() <= 0.5 && (p1[k] - p2[k]).abs() > 1e-14 {
                    (c1[k], c2[k]) = sbx_gene(rng, p1[k], p2[k], params.eta_crossover, bounds);
                }
            }
        }
        for child in [&mut c1, &mut c2] {
            for x in child.iter_mut() {
                if rng.uniform() < p_mutation {
                    *x = mutate_gene(rng, *x, params.eta_mutation, bounds);
                }
                *x = x.clamp(bounds[0], bounds[1]);
            }
        }
        children.push(c1);
        children.push(c2);
    }
    children.truncate(n);
    children
}

/// The hypervolume dominated by `front` (maximised objectives) above `reference`: the measure of the
/// points that some front member dominates and that dominate the reference. Members that do not
/// strictly dominate the reference (or have non-finite values) add nothing. Exact: a sweep for two
/// objectives, HSO slicing above (O(n^(m−1) log n), fine for a few hundred points).
pub fn hypervolume(front: &[Vec<f64>], reference: &[f64]) -> f64 {
    let m = reference.len();
    let points: Vec<Vec<f64>> = front
        .iter()
        .filter(|p| p.len() == m && p.iter().zip(reference).all(|(x, r)| x.is_finite() && x > r))
        .map(|p| p.iter().zip(reference).map(|(x, r)| x - r).collect())
        .collect();
    if m == 0 {
        return 0.0;
    }
    hv_above_origin(points)
}

/// Hypervolume of points (all coordinates > 0) above the origin.
fn hv_above_origin(mut points: Vec<Vec<f64>>) -> f64 {
    let m = points.first().map_or(0, Vec::len);
    match m {
        0 => 0.0,
        1 => points.iter().map(|p| p[0]).fold(0.0, f64::max),
        2 => {
            // Sweep down the first objective; each point adds the strip above the best second so far.
            points.sort_by(|a, b| b[0].total_cmp(&a[0]).then(b[1].total_cmp(&a[1])));
            let mut volume = 0.0;
            let mut top = 0.0;
            for p in &points {
                if p[1] > top {
                    volume += p[0] * (p[1] - top);
                    top = p[1];
                }
            }
            volume
        }
        _ => {
            // Slice along the last objective: between two consecutive values, the points at or above
            // the slice project to an (m−1)-dimensional front.
            points.sort_by(|a, b| b[m - 1].total_cmp(&a[m - 1]));
            let mut volume = 0.0;
            for i in 0..points.len() {
                let below = points.get(i + 1).map_or(0.0, |p| p[m - 1]);
                let depth = points[i][m - 1] - below;
                if depth > 0.0 {
                    volume += depth * hv_above_origin(points[..=i].iter().map(|p| p[..m - 1].to_vec()).collect());
                }
            }
            volume
        }
    }
}

/// An NSGA-II run between generations (the random numbers come from the caller's generator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nsga2 {
    params: Nsga2Params,
    genes: usize,
    init_box: [f64; 2],
    bounds: [f64; 2],
    /// The current population (empty before generation 0 is told).
    population: Vec<Vec<f64>>,
    /// Its objectives; invalid ones stored as None.
    objectives: Vec<Option<Vec<f64>>>,
    /// Objectives per individual, fixed by the first valid one told.
    n_objectives: Option<usize>,
    /// Completed generations (tells).
    generation: u64,
}

impl Nsga2 {
    /// A new run over `genes` genes; `params` must have passed [`Nsga2Params::validate`].
    pub fn new(params: &Nsga2Params, genes: usize, init_box: [f64; 2]) -> Nsga2 {
        Nsga2 {
            params: params.clone(),
            genes,
            init_box,
            bounds: params.bounds.unwrap_or(init_box),
            population: Vec::new(),
            objectives: Vec::new(),
            n_objectives: None,
            generation: 0,
        }
    }

    /// Generation 0: `population` genomes uniform in the initial box (gene by gene); afterwards
    /// `population` children of the current population ([`offspring`]).
    pub fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>> {
        let size = self.params.population;
        if self.population.is_empty() {
            let [lo, hi] = self.init_box;
            return (0..size).map(|_| (0..self.genes).map(|_| rng.range(lo, hi)).collect()).collect();
        }
        let (rank, crowding) = rank_and_crowding(&self.objectives);
        offspring(rng, &self.population, &rank, &crowding, &self.params, self.bounds, size)
    }

    /// Records the objectives (maximised; None or any non-finite value: invalid) of the asked genomes.
    /// Generation 0's become the population; later, parents and children are merged and
    /// [`select`] keeps `population` of them (μ + λ).
    pub fn tell(&mut self, genomes: Vec<Vec<f64>>, objectives: Vec<Option<Vec<f64>>>) -> Result<(), String> {
        if genomes.len() != objectives.len() {
            return Err(format!("{} genomes but {} objective vectors", genomes.len(), objectives.len()));
        }
        if let Some(g) = genomes.iter().find(|g| g.len() != self.genes) {
            return Err(format!("a genome has {} genes; this run's have {}", g.len(), self.genes));
        }
        let mut n_objectives = self.n_objectives;
        for o in objectives.iter().flatten() {
            match n_objectives {
                None if o.is_empty() => return Err("an objective vector is empty".into()),
                None => n_objectives = Some(o.len()),
                Some(m) if o.len() != m => {
                    return Err(format!("an objective vector has {} values, expected {m}", o.len()))
                }
                Some(_) => {}
            }
        }
        self.n_objectives = n_objectives;
        // Invalid ones are stored as None, so the state never holds a non-finite number (JSON has none).
        let objectives = objectives.into_iter().map(|o| valid(&o).map(<[f64]>::to_vec));
        self.population.extend(genomes);
        self.objectives.extend(objectives);
        let keep = select(&self.objectives, self.params.population);
        self.population = keep.iter().map(|&i| std::mem::take(&mut self.population[i])).collect();
        self.objectives = keep.iter().map(|&i| self.objectives[i].take()).collect();
        self.generation += 1;
        Ok(())
    }

    /// Indices into [`Nsga2::population`] of its first front (valid members only), ordered along the
    /// first objective (ascending, ties by index).
    pub fn front(&self) -> Vec<usize> {
        let mut front: Vec<usize> = non_dominated_fronts(&self.objectives)
            .into_iter()
            .next()
            .unwrap_or_default()
            .into_iter()
            .filter(|&i| self.objectives[i].is_some())
            .collect();
        let first = |i: usize| self.objectives[i].as_ref().map_or(f64::NAN, |o| o[0]);
        front.sort_by(|&a, &b| first(a).total_cmp(&first(b)).then(a.cmp(&b)));
        front
    }

    pub fn population(&self) -> &[Vec<f64>] {
        &self.population
    }

    pub fn objectives(&self) -> &[Option<Vec<f64>>] {
        &self.objectives
    }

    /// Completed generations (tells).
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// NSGA-II as the run drives it: the population (objectives as measured, maximised after the goals'
/// signs) and the hypervolume's reference point (the worst value of each objective in generation 0).
pub(crate) struct Nsga2Optimizer {
    params: Nsga2Params,
    setup: Setup,
    population: Vec<Individual>,
    reference: Option<Vec<f64>>,
}

impl Nsga2Optimizer {
    pub fn new(params: Nsga2Params, setup: &Setup) -> Nsga2Optimizer {
        Nsga2Optimizer { params, setup: setup.clone(), population: Vec::new(), reference: None }
    }

    /// An individual's objectives to maximise (None: invalid).
    fn maximised(&self, i: &Individual) -> Option<Vec<f64>> {
        let values = i.objectives.as_ref()?;
        Some(self.setup.objectives.iter().zip(values).map(|(o, v)| if o.goal == Goal::Min { -v } else { *v }).collect())
    }

    fn all_maximised(&self, members: &[Individual]) -> Vec<Option<Vec<f64>>> {
        members.iter().map(|i| self.maximised(i)).collect()
    }

    /// The first front's members, ordered along the first objective (ascending as measured).
    fn front(&self) -> Vec<&Individual> {
        let objectives = self.all_maximised(&self.population);
        let Some(first) = non_dominated_fronts(&objectives).into_iter().next() else { return Vec::new() };
        let mut front: Vec<&Individual> =
            first.into_iter().map(|k| &self.population[k]).filter(|i| i.objectives.is_some()).collect();
        front.sort_by(|a, b| {
            let (a, b) = (a.objectives.as_ref().expect("valid"), b.objectives.as_ref().expect("valid"));
            a[0].total_cmp(&b[0]).then(a[1..].partial_cmp(&b[1..]).unwrap_or(Ordering::Equal))
        });
        front
    }

    /// The hypervolume of the first front over the reference point (maximised objectives).
    fn hypervolume(&self) -> Option<f64> {
        let reference = self.reference.as_ref()?;
        let points: Vec<Vec<f64>> = self.front().into_iter().filter_map(|i| self.maximised(i)).collect();
        Some(hypervolume(&points, reference))
    }
}

impl Optimizer for Nsga2Optimizer {
    /// Generation 0: `population` genomes uniform in the init box; then as many children by crowded
    /// binary tournaments, SBX and polynomial mutation.
    fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>> {
        let n = self.params.population;
        if self.population.is_empty() {
            return uniform_genomes(rng, n, self.setup.genome_size, self.setup.init_box);
        }
        let parents: Vec<Vec<f64>> = self.population.iter().map(|i| i.genome.clone()).collect();
        let (rank, crowding) = rank_and_crowding(&self.all_maximised(&self.population));
        let bounds = self.params.bounds.unwrap_or(self.setup.init_box);
        offspring(rng, &parents, &rank, &crowding, &self.params, bounds, n)
    }

    /// μ + λ: parents and children together, fronts in order, the last one cut by crowding distance.
    fn tell(&mut self, told: Vec<Individual>) {
        let mut all = std::mem::take(&mut self.population);
        all.extend(told);
        if self.reference.is_none() {
            let m = self.setup.objectives.len();
            let valid: Vec<Vec<f64>> = self.all_maximised(&all).into_iter().flatten().collect();
            if !valid.is_empty() {
                // The worst of each objective at the start: later fronts are measured against it.
                let worst = (0..m).map(|j| valid.iter().map(|v| v[j]).fold(f64::INFINITY, f64::min)).collect();
                self.reference = Some(worst);
            }
        }
        let keep = select(&self.all_maximised(&all), self.params.population);
        self.population = keep.into_iter().map(|k| all[k].clone()).collect();
    }

    /// The first front along the first objective, then the rest by front and crowding.
    fn ranked(&self) -> Vec<Individual> {
        let front: Vec<Individual> = self.front().into_iter().cloned().collect();
        let ids: Vec<u64> = front.iter().map(|i| i.id).collect();
        let order = select(&self.all_maximised(&self.population), self.population.len());
        let rest = order.into_iter().map(|k| self.population[k].clone()).filter(|i| !ids.contains(&i.id));
        front.into_iter().chain(rest).collect()
    }

    /// The front member best in the first objective.
    fn best(&self) -> Option<Individual> {
        let goal = self.setup.objectives.first().map_or(Goal::Max, |o| o.goal);
        let front: Vec<Individual> = self.front().into_iter().cloned().collect();
        best_index(goal, &front).map(|k| front[k].clone())
    }

    /// The front's size and hypervolume, and every member's objectives (the front picture's scatter).
    fn log_fields(&self) -> Fields {
        let mut f = Fields::default();
        f.push("front_size", self.front().len());
        f.push("hypervolume", self.hypervolume());
        f.push("reference", &self.reference);
        let objectives: Vec<Option<&Vec<f64>>> = self.population.iter().map(|i| i.objectives.as_ref()).collect();
        f.push("objectives", objectives);
        push_best(&mut f, self.best().as_ref());
        f
    }

    fn save(&self) -> Fields {
        let mut state = Fields::default();
        state.push("population", &self.population);
        state.push("reference", &self.reference);
        state
    }

    fn restore(&mut self, mut state: Map<String, Value>) -> Result<(), String> {
        let population: Vec<Individual> = take(&mut state, "population")?;
        let n = self.setup.genome_size;
        if population.len() != self.params.population || population.iter().any(|i| i.genome.len() != n) {
            return Err(format!(
                "checkpoint.json's population does not have {} genomes of {n} genes",
                self.params.population
            ));
        }
        self.population = population;
        self.reference = take(&mut state, "reference")?;
        Ok(())
    }

    /// `front.jsonl`: the first front along the first objective.
    fn files(&self, scenario: &dyn Fn(&[f64]) -> Value) -> Vec<RunFile> {
        let mut text = String::new();
        for i in self.front() {
            let line = FrontMember {
                objectives: i.objectives.clone().unwrap_or_default(),
                genome: i.genome.clone(),
                scenario: scenario(&i.genome),
            };
            text.push_str(&serde_json::to_string(&line).expect("front lines serialise"));
            text.push('\n');
        }
        vec![RunFile { name: crate::evolve::reader::FRONT, text }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(v: &[[f64; 2]]) -> Vec<Option<Vec<f64>>> {
        v.iter().map(|p| Some(p.to_vec())).collect()
    }

    /// ZDT1 (Zitzler, Deb, Thiele 2000) as maximisation: (−f1, −f2).
    fn zdt1(x: &[f64]) -> Option<Vec<f64>> {
        let g = 1.0 + 9.0 * x[1..].iter().sum::<f64>() / (x.len() - 1) as f64;
        let f1 = x[0];
        Some(vec![-f1, -g * (1.0 - (f1 / g).sqrt())])
    }

    #[test]
    fn sorts_a_hand_made_set_into_fronts() {
        // Maximised. 0 (3,1), 1 (1,3), 2 (2,2) are mutually non-dominated; 3 (2,1) is dominated by 0 and
        // 2; 4 (1,1) by 3 too; 5 (2,2) duplicates 2 (neither dominates); 6 invalid; 7 NaN: invalid.
        let mut o = some(&[[3.0, 1.0], [1.0, 3.0], [2.0, 2.0], [2.0, 1.0], [1.0, 1.0], [2.0, 2.0]]);
        o.push(None);
        o.push(Some(vec![f64::NAN, 9.0]));
        assert_eq!(non_dominated_fronts(&o), vec![vec![0, 1, 2, 5], vec![3], vec![4], vec![6, 7]]);
        assert_eq!(select(&o, 5), vec![0, 1, 2, 5, 3]);
        assert_eq!(select(&o, 100).len(), 8);
        assert!(non_dominated_fronts(&[]).is_empty());
    }

    #[test]
    fn crowding_gives_the_boundaries_infinity_and_the_interior_normalised_gaps() {
        let o = some(&[[0.0, 4.0], [1.0, 3.0], [3.0, 1.0], [4.0, 0.0]]);
        let d = crowding_distances(&[0, 1, 2, 3], &o);
        assert_eq!((d[0], d[3]), (f64::INFINITY, f64::INFINITY));
        // Member 1: neighbours (0,4) and (3,1): 3/4 per objective.
        assert_eq!((d[1], d[2]), (1.5, 1.5));
        assert_eq!(crowding_distances(&[2, 1], &o), vec![f64::INFINITY; 2]);
        // Selecting 3 of the four keeps both boundaries, then the lower index of the tied interior.
        assert_eq!(select(&o, 3), vec![0, 3, 1]);
    }

    #[test]
    fn hypervolumes_of_small_sets() {
        // 2-D: the staircase (3,1), (2,2), (1,3) over the origin: horizontal strips 3·1 + 2·1 + 1·1 = 6.
        assert_eq!(hypervolume(&[vec![3.0, 1.0], vec![2.0, 2.0], vec![1.0, 3.0]], &[0.0, 0.0]), 6.0);
        // A dominated point and one not dominating the reference add nothing.
        let hv = hypervolume(&[vec![3.0, 1.0], vec![1.0, 1.0], vec![5.0, -1.0], vec![2.0, 2.0]], &[0.0, 0.0]);
        assert_eq!(hv, 3.0 + 2.0);
        assert_eq!(hypervolume(&[vec![0.5, 0.5]], &[1.0, 1.0]), 0.0);
        // 3-D: boxes (2,1,1) and (1,2,1) and (1,1,2) over the origin: 3 unit-volume cubes extending the
        // common cube [0,1]³ : 1 + 3·1 = 4.
        let hv = hypervolume(&[vec![2.0, 1.0, 1.0], vec![1.0, 2.0, 1.0], vec![1.0, 1.0, 2.0]], &[0.0, 0.0, 0.0]);
        assert_eq!(hv, 4.0);
        // 3-D with a reference point: (1,1,1) and (2,2,0.5) over (0,0,0): 1 + 4·0.5 − 0.5 = 2.5.
        let hv = hypervolume(&[vec![1.0, 1.0, 1.0], vec![2.0, 2.0, 0.5]], &[0.0, 0.0, 0.0]);
        assert_eq!(hv, 2.5);
        // 4-D: one point is its box; two incomparable points: 2·1·1·1 + 1·2·1·1 − 1 = 3.
        assert_eq!(hypervolume(&[vec![3.0, 2.0, 2.0, 2.0]], &[1.0, 1.0, 1.0, 1.0]), 2.0);
        let hv = hypervolume(&[vec![2.0, 1.0, 1.0, 1.0], vec![1.0, 2.0, 1.0, 1.0]], &[0.0; 4]);
        assert_eq!(hv, 3.0);
    }

    #[test]
    fn operators_keep_children_in_the_bounds_and_are_reproducible() {
        let parents: Vec<Vec<f64>> = (0..10).map(|i| vec![i as f64 / 9.0, 1.0 - i as f64 / 9.0, 0.5]).collect();
        let (rank, crowding) = (vec![0; 10], vec![1.0; 10]);
        let params = Nsga2Params { p_mutation: Some(1.0), ..Default::default() };
        let mut rng = Rng::new(4);
        let children = offspring(&mut rng, &parents, &rank, &crowding, &params, [0.0, 1.0], 1001);
        assert_eq!(children.len(), 1001);
        assert!(children.iter().flatten().all(|x| (0.0..=1.0).contains(x)));
        // Mutation with p = 1 changes every gene.
        assert!(children.iter().all(|c| !parents.contains(c)));
        // Same seed, same children.
        assert_eq!(offspring(&mut Rng::new(4), &parents, &rank, &crowding, &params, [0.0, 1.0], 1001), children);
    }

    #[test]
    fn tournaments_prefer_lower_rank_then_larger_crowding() {
        let rank = [1, 0, 0];
        let crowding = [9.0, 1.0, 2.0];
        for seed in 0..100 {
            let mut rng = Rng::new(seed);
            let mut replay = rng.clone();
            let w = tournament(&mut rng, &rank, &crowding);
            let (a, b) = (replay.index(3), replay.index(3));
            let expected = if a == b { a } else { [a, b].into_iter().min_by_key(|&i| [2, 1, 0][i]).unwrap_or(a) };
            // Preference order: 2 (rank 0, crowding 2), 1 (rank 0), 0 (rank 1).
            assert_eq!(w, expected, "drew {a}, {b}");
        }
    }

    fn zdt1_run(rng: &mut Rng, gens: usize) -> Nsga2 {
        let params = Nsga2Params::default();
        params.validate(30).expect("valid");
        let mut ga = Nsga2::new(&params, 30, [0.0, 1.0]);
        for _ in 0..gens {
            let xs = ga.ask(rng);
            let objs = xs.iter().map(|x| zdt1(x)).collect();
            ga.tell(xs, objs).expect("tell");
        }
        ga
    }

    #[test]
    fn reaches_the_zdt1_front() {
        for seed in 1..=3 {
            let mut rng = Rng::new(seed);
            let ga = zdt1_run(&mut rng, 250);
            let front: Vec<Vec<f64>> = ga.front().iter().filter_map(|&i| ga.objectives()[i].clone()).collect();
            let hv = hypervolume(&front, &[-1.0, -1.0]);
            println!("ZDT1 seed {seed}, 250 generations of 100: {} points on the front, hypervolume {hv}", front.len());
            assert!(hv >= 0.65, "seed {seed}: hypervolume {hv} (true front 2/3)");
            // front() is ordered along the first objective.
            assert!(front.windows(2).all(|w| w[0][0] <= w[1][0]));
        }
    }

    #[test]
    fn invalid_individuals_never_survive_over_valid_ones() {
        let params = Nsga2Params { population: 8, ..Default::default() };
        let mut ga = Nsga2::new(&params, 2, [0.0, 1.0]);
        let mut rng = Rng::new(3);
        for _ in 0..20 {
            let xs = ga.ask(&mut rng);
            // Every genome with x0 > 0.5 is invalid: a population of 8 always has enough valid ones.
            let objs = xs.iter().map(|x| if x[0] > 0.5 { None } else { Some(vec![x[0], -x[1]]) }).collect();
            ga.tell(xs, objs).expect("tell");
        }
        assert!(ga.objectives().iter().all(Option::is_some));
        assert!(ga.tell(vec![vec![0.0, 0.0]], vec![Some(vec![1.0])]).is_err());
        assert!(ga.tell(vec![vec![0.0]], vec![None]).is_err());
    }

    #[test]
    fn validate_names_the_field() {
        let v = |p: Nsga2Params| p.validate(5).err().map(|e| e.0);
        assert_eq!(v(Nsga2Params::default()), None);
        assert_eq!(v(Nsga2Params { population: 7, ..Default::default() }).as_deref(), Some("population"));
        assert_eq!(v(Nsga2Params { population: 2, ..Default::default() }).as_deref(), Some("population"));
        assert_eq!(v(Nsga2Params { p_crossover: 1.5, ..Default::default() }).as_deref(), Some("p_crossover"));
        assert_eq!(v(Nsga2Params { eta_mutation: -1.0, ..Default::default() }).as_deref(), Some("eta_mutation"));
        assert_eq!(v(Nsga2Params { p_mutation: Some(f64::NAN), ..Default::default() }).as_deref(), Some("p_mutation"));
        assert_eq!(v(Nsga2Params { bounds: Some([2.0, 1.0]), ..Default::default() }).as_deref(), Some("bounds"));
        assert!(serde_json::from_str::<Nsga2Params>(r#"{"pop": 10}"#).is_err());
    }

    #[test]
    fn a_checkpoint_continues_bit_identically() {
        let mut rng = Rng::new(8);
        let mut ga = zdt1_run(&mut rng, 10);
        let mut restored: Nsga2 = serde_json::from_str(&serde_json::to_string(&ga).expect("ser")).expect("de");
        assert_eq!(restored, ga);
        let mut rng2 = Rng::new(rng.state);
        for (ga, rng) in [(&mut ga, &mut rng), (&mut restored, &mut rng2)] {
            for _ in 0..15 {
                let xs = ga.ask(rng);
                let objs = xs.iter().map(|x| zdt1(x)).collect();
                ga.tell(xs, objs).expect("tell");
            }
        }
        assert_eq!(restored, ga);
        assert_eq!(serde_json::to_string(&restored).ok(), serde_json::to_string(&ga).ok());
    }

    #[test]
    fn every_parameter_has_a_schema_description() {
        let schema = schemars::schema_for!(Nsga2Params);
        let props = schema.as_value()["properties"].as_object().cloned().unwrap_or_default();
        assert_eq!(props.len(), 7);
        for (name, p) in &props {
            assert!(p["description"].as_str().is_some_and(|d| d.len() > 20), "{name}: {p}");
        }
    }
}
