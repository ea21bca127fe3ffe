//! Multi-core batch throughput (issue 17, item 4): simulations per second of the paper's benchmark
//! worm through `vsr2d eval`'s batch runner ([`vsr2d::batch::run_batch_with`], the one
//! implementation), on 1, 2, … N worker threads.
//!
//! Each row evaluates the same jobs file (a fixed number of identical worm jobs) into a fresh
//! results file and times the whole batch: reading and parsing the jobs, building and running every
//! simulation, writing the records. Speed-up is against the 1-thread row, efficiency is speed-up /
//! threads.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use vsr2d::batch::{run_batch_with, BatchOptions, JobLimits};
use vsr2d::model::voxel::scaffolding::Scaffolding;

use super::{worm_scenario, BenchError};

/// What the throughput table measures.
#[derive(Debug, Clone, PartialEq)]
pub struct ThroughputOptions {
    /// Worker-thread counts, one row each (the first should be 1: it is the speed-up reference).
    pub threads: Vec<usize>,
    /// Jobs per batch (the same for every row).
    pub jobs: usize,
    /// Worm width w (the paper's benchmark: 12).
    pub w: u32,
    /// Simulated seconds per job.
    pub duration_s: f64,
}

impl ThroughputOptions {
    /// The paper worm (12 × 3, all springs, dt 1/60) for `duration_s`, on 1 … N threads (N = the
    /// logical CPUs; above 8, powers of two and N), with 4 jobs per thread of the largest count.
    pub fn for_this_machine(duration_s: f64) -> ThroughputOptions {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        ThroughputOptions { threads: default_thread_counts(n), jobs: 4 * n, w: 12, duration_s }
    }
}

/// 1, 2, … n; above 8 threads 1, 2, 4, 8, … and n.
pub fn default_thread_counts(n: usize) -> Vec<usize> {
    let n = n.max(1);
    if n <= 8 {
        return (1..=n).collect();
    }
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1usize), |&t| t.checked_mul(2)).take_while(|&t| t < n).collect();
    counts.push(n);
    counts
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThroughputRow {
    pub threads: usize,
    pub jobs: usize,
    pub voxels: usize,
    pub steps_per_job: u64,
    /// Wall time of the whole batch, s.
    pub seconds: f64,
    /// Simulations (jobs) per second.
    pub sims_per_second: f64,
    /// Aggregate simulated voxel steps per second over all threads.
    pub svsps: f64,
    /// `sims_per_second` / that of the first row.
    pub speedup: f64,
    /// `speedup` / (`threads` / the first row's threads).
    pub efficiency: f64,
}

/// Runs one batch per thread count, calling `on_row` as each finishes.
pub fn run_throughput(
    options: &ThroughputOptions,
    mut on_row: impl FnMut(&ThroughputRow),
) -> Result<Vec<ThroughputRow>, BenchError> {
    if options.threads.is_empty() || options.threads.contains(&0) {
        return Err(BenchError::Options("throughput thread counts must be at least 1".into()));
    }
    if options.jobs == 0 {
        return Err(BenchError::Options("throughput needs at least one job".into()));
    }
    if !(options.duration_s.is_finite() && options.duration_s > 0.0) {
        return Err(BenchError::Options(format!("duration {} s must be a positive number", options.duration_s)));
    }
    let w = options.w;
    let scenario = worm_scenario(w, Scaffolding::ALL, 1.0 / 60.0, options.duration_s);
    // Validates the worm (and counts its voxels and steps) before any batch runs.
    let sim = scenario.build().map_err(|source| BenchError::Scenario { w, source })?;
    let (voxels, steps) = (sim.world().voxel_count(), sim.steps());
    drop(sim);

    let io = |what: &str, e: std::io::Error| BenchError::Throughput(format!("{what}: {e}"));
    let dir = tempfile::tempdir().map_err(|e| io("cannot create a temporary directory", e))?;
    let input = dir.path().join("jobs.jsonl");
    {
        let text = serde_json::to_string(&scenario).map_err(|e| io("cannot serialise the worm", e.into()))?;
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(&input).map_err(|e| io("cannot write the jobs file", e))?);
        for id in 0..options.jobs {
            writeln!(file, "{{\"id\": {id}, \"scenario\": {text}}}")
                .map_err(|e| io("cannot write the jobs file", e))?;
        }
        file.flush().map_err(|e| io("cannot write the jobs file", e))?;
    }

    let mut rows: Vec<ThroughputRow> = Vec::with_capacity(options.threads.len());
    for (i, &threads) in options.threads.iter().enumerate() {
        let output = dir.path().join(format!("results-{i}.jsonl"));
        let batch = BatchOptions { input: input.clone(), output, jobs: threads, shard: None, progress: false };
        let start = Instant::now();
        let summary = run_batch_with(batch, JobLimits::default())
            .map_err(|e| BenchError::Throughput(format!("{threads} thread(s): the batch failed: {e}")))?;
        let seconds = start.elapsed().as_secs_f64();
        if summary.errors > 0 {
            return Err(BenchError::Throughput(format!(
                "{threads} thread(s): {} of {} jobs gave an error record",
                summary.errors, summary.written
            )));
        }
        let sims_per_second = if seconds > 0.0 { options.jobs as f64 / seconds } else { 0.0 };
        let (base_rate, base_threads) =
            rows.first().map_or((sims_per_second, threads), |r| (r.sims_per_second, r.threads));
        let speedup = if base_rate > 0.0 { sims_per_second / base_rate } else { 0.0 };
        let row = ThroughputRow {
            threads,
            jobs: options.jobs,
            voxels,
            steps_per_job: steps,
            seconds,
            sims_per_second,
            svsps: sims_per_second * voxels as f64 * steps as f64,
            speedup,
            efficiency: speedup * base_threads as f64 / threads as f64,
        };
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The table's header lines.
pub fn throughput_header() -> String {
    let head = format!(
        "{:>7} {:>5} {:>9} {:>10} {:>12} {:>8} {:>10}",
        "threads", "jobs", "wall s", "sims/s", "SVSPS total", "speed-up", "efficiency"
    );
    let rule = "-".repeat(head.chars().count());
    format!("{head}\n{rule}")
}

/// One table line.
pub fn throughput_row(r: &ThroughputRow) -> String {
    format!(
        "{:>7} {:>5} {:>9.3} {:>10.2} {:>12.0} {:>7.2}× {:>9.0} %",
        r.threads,
        r.jobs,
        r.seconds,
        r.sims_per_second,
        r.svsps,
        r.speedup,
        100.0 * r.efficiency
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_cover_one_to_n() {
        assert_eq!(default_thread_counts(1), vec![1]);
        assert_eq!(default_thread_counts(4), vec![1, 2, 3, 4]);
        assert_eq!(default_thread_counts(12), vec![1, 2, 4, 8, 12]);
        assert_eq!(default_thread_counts(16), vec![1, 2, 4, 8, 16]);
    }

    #[test]
    fn one_row_per_thread_count_through_the_batch_runner() {
        let options = ThroughputOptions { threads: vec![1, 2], jobs: 3, w: 3, duration_s: 0.1 };
        let mut seen = 0;
        let rows = run_throughput(&options, |_| seen += 1).unwrap();
        assert_eq!(seen, 2);
        assert_eq!(rows.iter().map(|r| r.threads).collect::<Vec<_>>(), vec![1, 2]);
        assert!(rows.iter().all(|r| r.jobs == 3 && r.voxels == 9 && r.steps_per_job == 6));
        assert_eq!(rows[0].speedup, 1.0);
        assert_eq!(rows[0].efficiency, 1.0);
    }

    #[test]
    fn bad_options_are_refused() {
        let ok = ThroughputOptions { threads: vec![1], jobs: 1, w: 3, duration_s: 0.1 };
        for bad in [
            ThroughputOptions { threads: vec![], ..ok.clone() },
            ThroughputOptions { threads: vec![0], ..ok.clone() },
            ThroughputOptions { jobs: 0, ..ok.clone() },
            ThroughputOptions { duration_s: f64::NAN, ..ok.clone() },
        ] {
            assert!(matches!(run_throughput(&bad, |_| {}), Err(BenchError::Options(_))));
        }
    }
}
