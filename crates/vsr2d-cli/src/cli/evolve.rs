//! `vsr2d evolve`: one evolutionary run of an experiment file, checkpointed every generation; running
//! the same command again resumes it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use vsr2d::evolve::{run, Experiment, RunOptions};

use super::{input, Failure};

#[derive(Args)]
pub struct EvolveArgs {
    /// Experiment JSON (see `vsr2d evolve --schema` and docs/evolution.md).
    #[arg(required_unless_present = "schema")]
    pub experiment: Option<PathBuf>,
    /// Run directory; an unfinished run of the same experiment there is resumed.
    #[arg(long, short, default_value = "evolve-out")]
    pub output: PathBuf,
    /// Worker threads [default: RAYON_NUM_THREADS, else one per logical CPU]; results do not depend on it.
    /// At most 1024, as for `eval`.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Require a checkpoint to resume (without it, resuming is automatic when one exists).
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Without the best individual's video: a finished run writes its fitness plot (fitness.png) and,
    /// unless this is given, best.mp4 (its best individual, at most 20 s, 1280×720).
    #[arg(long)]
    pub no_media: bool,
    /// Print the JSON Schema of experiment files and exit.
    #[arg(long)]
    pub schema: bool,
}

pub fn run_cli(args: EvolveArgs) -> Result<(), Failure> {
    if args.schema {
        println!("{}", serde_json::to_string_pretty(&schemars::schema_for!(Experiment))?);
        return Ok(());
    }
    let path = args.experiment.expect("clap requires it");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read experiment {}", path.display()))
        .map_err(input)?;
    let experiment =
        Experiment::from_json(&text).with_context(|| format!("experiment {}", path.display())).map_err(input)?;
    vsr2d::evolve::limits::check_limits(&experiment, &super::limits())
        .with_context(|| format!("experiment {}", path.display()))
        .map_err(input)?;
    // An unwritable run directory is bad input, found before anything is simulated.
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create the run directory {}", args.output.display()))
        .map_err(input)?;
    if args.resume && !args.output.join("checkpoint.json").exists() {
        return Err(input(anyhow::anyhow!(
            "--resume: {} holds no checkpoint.json; drop --resume to start the run",
            args.output.display()
        )));
    }
    let n_gen = experiment.algorithm().generations();
    let bar = ProgressBar::new(n_gen as u64 + 1);
    if args.quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:30} generation {pos}/{len} best {msg} [{elapsed_precise}, ETA {eta}]")
            .expect("valid template"),
    );
    let started = Instant::now();
    let mut observer = |g: &vsr2d::evolve::GenerationDone| {
        bar.set_position(g.generation as u64 + 1);
        bar.set_message(g.best.map_or("-".to_string(), |b| format!("{b:.4}")));
    };
    let options = RunOptions { dir: args.output.clone(), jobs: args.jobs.map_or(0, |j| j as usize), stop_after: None };
    let summary = run(&experiment, &text, &options, &mut observer).map_err(|e| super::classified(e.is_input(), e))?;
    bar.finish_and_clear();
    if let Some(g) = summary.resumed_from {
        eprintln!("resumed from generation {g} of {}", args.output.display());
    }
    if summary.finished {
        match vsr2d::run_media::write_run_media(&args.output, !args.no_media) {
            Ok(media) if !args.quiet => {
                let video =
                    media.video.as_ref().map_or_else(|why| format!("no video: {why}"), |p| p.display().to_string());
                let pictures: Vec<String> =
                    std::iter::once(&media.plot).chain(&media.pictures).map(|p| p.display().to_string()).collect();
                eprintln!("pictures: {}, {video}", pictures.join(", "));
            }
            Ok(_) => {}
            // The run itself is complete and saved: its pictures failing is worth a warning, not a failure.
            Err(e) => eprintln!("warning: the run's pictures could not be made: {e}"),
        }
    }
    if !args.quiet {
        eprintln!(
            "{} generations, best fitness {}; {} evaluations, {} simulations, {} cache hits, {} invalid; {:.1} s -> {}",
            summary.generation,
            summary.best.map_or("none (every individual invalid)".into(), |b| b.to_string()),
            summary.totals.evaluations,
            summary.totals.simulations,
            summary.totals.cache_hits,
            summary.totals.invalid,
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
    }
    println!(
        "{}",
        serde_json::json!({
            "dir": args.output,
            "generation": summary.generation,
            "finished": summary.finished,
            "best": summary.best,
        })
    );
    Ok(())
}
