//! `vsr2d eval`: a JSONL batch of scenarios, evaluated in parallel, restartable and shardable.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use vsr2d::batch::{parse_shard, run_batch_with, BatchOptions, JobLimits};

use super::{input, note, Failure};

#[derive(Args)]
pub struct EvalArgs {
    /// Jobs file: one `{"id": ..., "scenario": {...}}` per line (see docs/batch.md).
    #[arg(long)]
    pub input: PathBuf,
    /// Results file: one `{"id", "line", "metrics" | "error"}` per job; an existing one is resumed.
    #[arg(long)]
    pub output: PathBuf,
    /// Worker threads, 1 to 1024 [default: RAYON_NUM_THREADS, else one per logical CPU].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Evaluate only the lines whose 0-based index is ≡ i (mod n), e.g. `--shard 0/4`.
    #[arg(long, value_name = "i/n", value_parser = shard_arg)]
    pub shard: Option<(usize, usize)>,
    /// Wall-clock budget of one job in seconds; a job still running then gets an error record. 0: no
    /// budget.
    #[arg(long, value_name = "SECONDS", default_value_t = vsr2d::batch::DEFAULT_JOB_TIMEOUT.as_secs_f64(), value_parser = timeout_arg)]
    pub job_timeout: f64,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn timeout_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && (0.0..=1e7).contains(&t) => Ok(t),
        _ => Err(format!("{text:?} is not a number of seconds in [0, 1e7] (0 = no budget)")),
    }
}

fn shard_arg(text: &str) -> Result<(usize, usize), String> {
    parse_shard(text).map_err(|e| e.to_string())
}

pub fn run(args: EvalArgs) -> Result<(), Failure> {
    // An output that cannot be written is bad input, found before any job runs.
    vsr2d::output::check_output_writable(&args.output).map_err(input)?;
    vsr2d::output::check_distinct(&[("-o", &args.output)], &[("INPUT", &args.input)]).map_err(input)?;
    let options = BatchOptions {
        input: args.input,
        output: args.output.clone(),
        jobs: args.jobs.map_or(0, |j| j as usize),
        shard: args.shard,
        progress: !args.quiet,
    };
    let limits = JobLimits {
        scenario: super::limits(),
        timeout: (args.job_timeout > 0.0).then(|| Duration::from_secs_f64(args.job_timeout)),
    };
    let summary = run_batch_with(options, limits).map_err(|e| super::classified(e.is_input(), e))?;
    if summary.stale > 0 {
        // Even under --quiet: what was run differs from what the file held.
        note(&format!(
            "note: {} record(s) of {} did not match their job's scenario (changed since, or written before \
             records carried a scenario hash); evaluated those jobs again",
            summary.stale,
            args.output.display()
        ))?;
    }
    if !args.quiet {
        if summary.dropped_partial_line {
            note(&format!(
                "note: dropped the partial last line of {} (an interrupted write); redid that job",
                args.output.display()
            ))?;
        }
        note(&format!(
            "{} jobs evaluated ({} with an error record), {} already done, {} in this shard; {:.1} s -> {}",
            summary.written,
            summary.errors,
            summary.already_done,
            summary.shard_jobs,
            summary.elapsed.as_secs_f64(),
            args.output.display()
        ))?;
    }
    Ok(())
}
