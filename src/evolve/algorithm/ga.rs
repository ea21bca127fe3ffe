//! The paper's μ + λ genetic algorithm (spec §2; 2D-VSR-Sim, Medvet et al. 2020): Gaussian mutation,
//! extended segment crossover, tournament, μ + λ survival, and the per-child duplicate retries.

use std::collections::HashSet;

use serde_json::{Map, Value};

use serde::{Deserialize, Serialize};

use super::Goal;
use super::{best_index, diversity, push_best, push_fitness_stats, score, take, uniform_genomes};
use super::{Fields, Individual, LogFields, Optimizer, Setup};
use crate::evolve::rng::Rng;
use crate::evolve::EvolveError;

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
    // The brackets are an interval, not links; the text is `vsr2d evolve --schema`'s, so it stays.
    #[allow(rustdoc::broken_intra_doc_links)]
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

impl EaParams {
    /// Spec §2's constraints, each refusal naming the field (under `prefix`, `ea.` or `algorithm.`) and
    /// the fix.
    pub fn validate(&self, prefix: &str) -> Result<(), EvolveError> {
        let bad = |path: &str, message: String| {
            Err(EvolveError::Invalid { path: format!("{prefix}{}", path.trim_start_matches("ea.")), message })
        };
        let ea = self;
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
        Ok(())
    }
}

/// The GA's state: the population (empty until generation 0 is told) and the last offspring's costs.
pub struct Ga {
    params: EaParams,
    setup: Setup,
    population: Vec<Individual>,
    stats: OffspringStats,
}

impl Ga {
    pub fn new(params: EaParams, setup: &Setup) -> Ga {
        Ga { params, setup: setup.clone(), population: Vec::new(), stats: OffspringStats::default() }
    }

    fn goal(&self) -> Goal {
        self.setup.goal
    }
}

impl Optimizer for Ga {
    /// Generation 0: n_pop genomes uniform in the init box; then the offspring of the population.
    fn ask(&mut self, rng: &mut Rng) -> Vec<Vec<f64>> {
        if self.population.is_empty() {
            self.stats = OffspringStats::default();
            return uniform_genomes(rng, self.params.n_pop, self.setup.genome_size, self.setup.init_box);
        }
        let parents: Vec<Vec<f64>> = self.population.iter().map(|i| i.genome.clone()).collect();
        let scores: Vec<f64> = self.population.iter().map(|i| score(self.goal(), i)).collect();
        let (children, stats) = offspring(rng, &parents, &scores, &self.params);
        self.stats = stats;
        children
    }

    /// Generation 0 is the population; later, μ + λ survival of parents then offspring.
    fn tell(&mut self, told: Vec<Individual>) {
        if self.population.is_empty() {
            self.population = told;
            return;
        }
        let mut all = std::mem::take(&mut self.population);
        all.extend(told);
        let scores: Vec<f64> = all.iter().map(|i| score(self.goal(), i)).collect();
        self.population = survivors(&scores, self.params.n_pop).into_iter().map(|k| all[k].clone()).collect();
    }

    /// Best first; ties keep the population order.
    fn ranked(&self) -> Vec<Individual> {
        let scores: Vec<f64> = self.population.iter().map(|i| score(self.goal(), i)).collect();
        survivors(&scores, scores.len()).into_iter().map(|k| self.population[k].clone()).collect()
    }

    fn best(&self) -> Option<Individual> {
        best_index(self.goal(), &self.population).map(|k| self.population[k].clone())
    }

    /// Spec §8's fields: the offspring's retries, the population's fitness statistics, its diversity
    /// and its best member.
    fn log_fields(&self) -> LogFields {
        let mut f = LogFields::default();
        f.push("duplicates_kept", self.stats.duplicates_kept);
        f.push("retries", self.stats.retries);
        push_fitness_stats(&mut f, &self.population, self.goal());
        f.push("diversity", diversity(&self.population));
        push_best(&mut f, self.best().as_ref());
        f
    }

    fn save(&self) -> Fields {
        let mut state = Fields::default();
        state.push("population", &self.population);
        state
    }

    fn restore(&mut self, mut state: Map<String, Value>) -> Result<(), String> {
        let population: Vec<Individual> = take(&mut state, "population")?;
        let n = self.setup.genome_size;
        if population.len() != self.params.n_pop || population.iter().any(|i| i.genome.len() != n) {
            return Err(format!(
                "checkpoint.json's population does not have {} genomes of {n} genes",
                self.params.n_pop
            ));
        }
        self.population = population;
        Ok(())
    }
}

/// x′_k = x_k + ε_k, ε_k ~ N(0, σ²), genes in order.
pub fn mutate(rng: &mut Rng, parent: &[f64], sigma: f64) -> Vec<f64> {
    parent.iter().map(|x| x + sigma * rng.normal()).collect()
}

/// x′_k = x1_k + α_k·(x2_k − x1_k), α_k ~ `U[alpha[0], alpha[1])` independent, genes in order.
pub(crate) fn crossover(rng: &mut Rng, x1: &[f64], x2: &[f64], alpha: [f64; 2]) -> Vec<f64> {
    x1.iter().zip(x2).map(|(a, b)| a + rng.range(alpha[0], alpha[1]) * (b - a)).collect()
}

/// n_tour draws with replacement; the highest score wins, ties to the lower population index.
pub fn tournament(rng: &mut Rng, scores: &[f64], size: usize) -> usize {
    let mut winner = rng.index(scores.len());
    for _ in 1..size {
        let i = rng.index(scores.len());
        if scores[i] > scores[winner] || (scores[i] == scores[winner] && i < winner) {
            winner = i;
        }
    }
    winner
}

/// Indices of the `n` survivors of `scores` (parents first, then offspring), best first; ties keep
/// the input order (parents before offspring, then lower index).
pub(crate) fn survivors(scores: &[f64], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // Stable sort: equal scores (including every −∞) keep their input order.
    order.sort_by(|a, b| scores[*b].partial_cmp(&scores[*a]).unwrap_or(std::cmp::Ordering::Equal));
    order.truncate(n);
    order
}

/// What making one generation's offspring cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OffspringStats {
    /// Attempts beyond the first, summed over children.
    pub retries: u64,
    /// Children kept although their last attempt was still a duplicate.
    pub duplicates_kept: u64,
    /// The largest number of attempts any child took.
    pub max_attempts_used: u32,
}

fn bits(genome: &[f64]) -> Vec<u64> {
    genome.iter().map(|x| x.to_bits()).collect()
}

/// n_pop children in a fixed order (spec §2's loop and §7's draw order: operator choice, tournaments,
/// then the operator's draws). A child equal bit for bit to a parent or an earlier child, or with a
/// non-finite gene, is redrawn up to `max_attempts` times; a non-finite last attempt is replaced by a
/// copy of its first parent (ours: genomes must stay writable as JSON).
pub fn offspring(
    rng: &mut Rng,
    parents: &[Vec<f64>],
    scores: &[f64],
    ea: &EaParams,
) -> (Vec<Vec<f64>>, OffspringStats) {
    let mut seen: HashSet<Vec<u64>> = parents.iter().map(|g| bits(g)).collect();
    let mut children = Vec::with_capacity(ea.n_pop);
    let mut stats = OffspringStats::default();
    for _ in 0..ea.n_pop {
        let mut attempt = 1;
        let child = loop {
            let crossover_op = rng.uniform() < ea.p_crossover;
            let p1 = tournament(rng, scores, ea.tournament);
            let child = if crossover_op {
                let p2 = tournament(rng, scores, ea.tournament);
                crossover(rng, &parents[p1], &parents[p2], ea.alpha)
            } else {
                mutate(rng, &parents[p1], ea.sigma)
            };
            let finite = child.iter().all(|x| x.is_finite());
            if finite && !seen.contains(&bits(&child)) {
                break child;
            }
            if attempt == ea.max_attempts {
                stats.duplicates_kept += 1;
                break if finite { child } else { parents[p1].clone() };
            }
            attempt += 1;
            stats.retries += 1;
        };
        stats.max_attempts_used = stats.max_attempts_used.max(attempt);
        seen.insert(bits(&child));
        children.push(child);
    }
    (children, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossover_alpha_stays_in_range_and_the_child_on_the_parents_line() {
        let mut rng = Rng::new(3);
        let x1: Vec<f64> = (0..50).map(|i| i as f64 * 0.37 - 4.0).collect();
        let x2: Vec<f64> = (0..50).map(|i| 3.0 - i as f64 * 0.11).collect();
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for _ in 0..2000 {
            let c = crossover(&mut rng, &x1, &x2, [-1.0, 2.0]);
            for k in 0..50 {
                // α recovered from the child: the child lies on the line x1 + α(x2 − x1) of gene k.
                let alpha = (c[k] - x1[k]) / (x2[k] - x1[k]);
                assert!((-1.0 - 1e-9..2.0 + 1e-9).contains(&alpha), "gene {k}: α = {alpha}");
                lo = lo.min(alpha);
                hi = hi.max(alpha);
            }
        }
        // The whole extended segment is used, not only [0, 1].
        assert!(lo < -0.99 && hi > 1.99, "α range seen [{lo}, {hi}]");
    }

    #[test]
    fn tournament_returns_the_best_of_its_sample() {
        let scores = [0.5, 3.0, -1.0, 3.0, 2.0, f64::NEG_INFINITY, 1.0];
        for seed in 0..200 {
            // Replay the draws a tournament of 3 makes, with a second generator in the same state.
            let mut rng = Rng::new(seed);
            let mut replay = rng.clone();
            let winner = tournament(&mut rng, &scores, 3);
            let sample: Vec<usize> = (0..3).map(|_| replay.index(scores.len())).collect();
            let best = sample.iter().map(|i| scores[*i]).fold(f64::NEG_INFINITY, f64::max);
            assert!(sample.contains(&winner) && scores[winner] == best, "sample {sample:?} winner {winner}");
            let lowest_best = sample.iter().filter(|i| scores[**i] == best).min().unwrap();
            assert_eq!(winner, *lowest_best, "ties go to the lower index");
            assert_eq!(rng, replay, "a tournament draws exactly its size");
        }
    }

    #[test]
    fn survival_keeps_exactly_the_n_best_parents_first_on_ties() {
        let scores = [1.0, 5.0, f64::NEG_INFINITY, 5.0, 2.0, 1.0];
        assert_eq!(survivors(&scores, 4), vec![1, 3, 4, 0]);
        assert_eq!(survivors(&scores, 6), vec![1, 3, 4, 0, 5, 2]);
    }

    #[test]
    fn duplicate_children_are_retried_and_counted() {
        // σ = 0 and a one-point population: every mutation copies its parent, and every crossover of
        // the parent with itself too, so every attempt is a duplicate.
        let ea = EaParams { n_pop: 3, max_attempts: 4, sigma: 0.0, ..EaParams::default() };
        let parents = vec![vec![1.0, 2.0]; 3];
        let (children, stats) = offspring(&mut Rng::new(1), &parents, &[0.0; 3], &ea);
        assert_eq!(children, parents);
        assert_eq!(stats, OffspringStats { retries: 3 * 3, duplicates_kept: 3, max_attempts_used: 4 });
        // Mutation only with σ > 0: a continuous draw never repeats a genome, so no retries. (With
        // crossover a parent can meet itself in both tournaments and give a duplicate.)
        let parents: Vec<Vec<f64>> = (0..3).map(|i| vec![i as f64, 1.0]).collect();
        let ea = EaParams { n_pop: 3, p_crossover: 0.0, p_mutation: 1.0, ..EaParams::default() };
        let (_, stats) = offspring(&mut Rng::new(1), &parents, &[0.0, 1.0, 2.0], &ea);
        assert_eq!(stats, OffspringStats { retries: 0, duplicates_kept: 0, max_attempts_used: 1 });
    }
}
