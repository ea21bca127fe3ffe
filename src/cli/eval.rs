//! `vsr2d eval`: a JSONL batch of scenarios, evaluated in parallel, restartable and shardable.

use std::path::PathBuf;

use clap::Args;

use vsr2d::batch::{parse_shard, run_batch, BatchOptions};

use super::{input, Failure};

#[derive(Args)]
pub struct EvalArgs {
    /// Jobs file: one `{"id": ..., "scenario": {...}}` per line (see docs/batch.md).
    #[arg(long)]
    pub input: PathBuf,
    /// Results file: one `{"id", "line", "metrics" | "error"}` per job; an existing one is resumed.
    #[arg(long)]
    pub output: PathBuf,
    /// Worker threads [default: RAYON_NUM_THREADS, else one per logical CPU].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Evaluate only the lines whose 0-based index is ≡ i (mod n), e.g. `--shard 0/4`.
    #[arg(long, value_name = "i/n", value_parser = shard_arg)]
    pub shard: Option<(usize, usize)>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn shard_arg(text: &str) -> Result<(usize, usize), String> {
    parse_shard(text).map_err(|e| e.to_string())
}

pub fn run(args: EvalArgs) -> Result<(), Failure> {
    // An output that cannot be written is bad input, found before any job runs.
    vsr2d::output::check_output_writable(&args.output).map_err(input)?;
    let options = BatchOptions {
        input: args.input,
        output: args.output.clone(),
        jobs: args.jobs.map_or(0, |j| j as usize),
        shard: args.shard,
        progress: !args.quiet,
    };
    let summary = run_batch(options).map_err(|e| super::classified(e.is_input(), e))?;
    if !args.quiet {
        if summary.dropped_partial_line {
            eprintln!(
                "note: dropped the partial last line of {} (an interrupted write); redid that job",
                args.output.display()
            );
        }
        eprintln!(
            "{} jobs evaluated ({} with an error record), {} already done, {} in this shard; {:.1} s -> {}",
            summary.written,
            summary.errors,
            summary.already_done,
            summary.shard_jobs,
            summary.elapsed.as_secs_f64(),
            args.output.display()
        );
    }
    Ok(())
}
