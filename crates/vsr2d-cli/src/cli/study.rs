//! `vsr2d study body|evodevo|sensing|distributed|qd|energy`: the paper's three studies, the distributed one and
//! two of other optimizers (GA vs MAP-Elites; NSGA-II on speed against effort), each configuration run over several
//! seeds as ordinary `vsr2d evolve` run directories under `DIR/<config>/run-<k>/`, then the report
//! `DIR/index.html`. Rerunning the command resumes unfinished runs and reuses finished ones; `--config`,
//! `--run` and `--shard` select runs for cluster jobs, and `--report-only` gathers them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, Context};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use vsr2d::evolve::study::{Preset, RunState, Study, StudyKind};
use vsr2d::output::run_dir;
use vsr2d::run_media::media::VideoOutcome;
use vsr2d_report::study::{write, ReportInput};

use super::{input, Failure};

#[derive(Clone, Copy, ValueEnum)]
pub enum StudyArg {
    /// Body optimisation, gmm_body on 5×5 vs 10×10 (paper Fig. 8).
    Body,
    /// Evolution vs evolution + development of an 11×4 body's phases (paper Fig. 10).
    Evodevo,
    /// Sensing (MLP) vs non-sensing (phases) controllers on worm, biped, tripod (paper Fig. 11).
    Sensing,
    /// Central MLP vs homogeneous and heterogeneous distributed controllers on worm and biped.
    Distributed,
    /// Quality-diversity: the GA vs MAP-Elites on 5×5 gmm_body bodies (best fitness, coverage, body diversity).
    Qd,
    /// NSGA-II on the biped's speed against its control effort (fronts, hypervolume, a video of a front).
    Energy,
}

#[derive(Args)]
pub struct StudyArgs {
    /// Which study.
    #[arg(value_enum)]
    pub study: StudyArg,
    /// The small preset of spec §10: n_pop 20, 10 generations, 20 s simulations, 2 runs (default: the
    /// paper's n_pop 250, 500 generations, 60 s, 10 runs: a cluster job).
    #[arg(long)]
    pub quick: bool,
    /// Runs (seeds 0 … N−1) per configuration [default: 2 with --quick, else 10].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub runs: Option<u32>,
    /// Study directory: run directories <config>/run-<k>/ and the report index.html [default: study-<name>].
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Evaluation threads per run [default: RAYON_NUM_THREADS, else one per logical CPU]; results do not
    /// depend on it. At most 1024, as for `eval` and `evolve`.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Run only this configuration (repeatable; e.g. body-5x5, sensing-worm); no report is written.
    #[arg(long = "config", value_name = "NAME")]
    pub configs: Vec<String>,
    /// Run only run K (seed K) of the selected configurations; no report is written.
    #[arg(long, value_name = "K")]
    pub run: Option<u32>,
    /// Run only the runs r (configurations in order, then k) with r mod n = i; no report is written.
    #[arg(long, value_name = "i/n", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Run nothing: write the report from the finished runs in the directory (missing ones are listed).
    #[arg(long, conflicts_with_all = ["configs", "run", "shard"])]
    pub report_only: bool,
    /// Skip the mp4 grid of the best individuals.
    #[arg(long)]
    pub no_video: bool,
    /// Override the preset's population size n_pop.
    #[arg(long, value_name = "N")]
    pub pop: Option<usize>,
    /// Override the preset's number of generations.
    #[arg(long, value_name = "N")]
    pub generations: Option<u32>,
    /// Override the preset's simulated seconds per evaluation.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let err = || format!("--shard {text:?} must be i/n with 0 ≤ i < n, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(err)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| err())?, n.trim().parse().map_err(|_| err())?);
    if n == 0 || i >= n {
        return Err(err());
    }
    Ok((i, n))
}

pub fn run(args: StudyArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let kind = match args.study {
        StudyArg::Body => StudyKind::Body,
        StudyArg::Evodevo => StudyKind::Evodevo,
        StudyArg::Sensing => StudyKind::Sensing,
        StudyArg::Distributed => StudyKind::Distributed,
        StudyArg::Qd => StudyKind::Qd,
        StudyArg::Energy => StudyKind::Energy,
    };
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0 && d <= vsr2d::scenario::MAX_DURATION) {
            return Err(input(anyhow!("--duration {d} is invalid: give a number of seconds in (0, 1e6]")));
        }
    }
    let preset = Preset { quick: args.quick, n_pop: args.pop, n_gen: args.generations, duration: args.duration };
    let runs = args.runs.unwrap_or(if args.quick { Preset::QUICK_RUNS } else { Preset::FULL_RUNS });
    let study = Study::new(kind, &preset, runs).map_err(|e| super::classified(e.is_input(), e))?;
    for c in &study.configs {
        vsr2d::evolve::limits::check_limits(&c.experiment, &super::limits())
            .with_context(|| format!("configuration {}", c.name))
            .map_err(input)?;
    }
    let root = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("study-{}", kind.name())));
    // An unwritable directory is bad input, found before anything is simulated.
    super::check_dir_creatable(&root).map_err(input)?;
    let mut selected = Vec::new();
    for name in &args.configs {
        let c = study.config_index(name).ok_or_else(|| {
            let names: Vec<&str> = study.configs.iter().map(|c| c.name.as_str()).collect();
            input(anyhow!(
                "--config {name:?} is not a configuration of study {}: give one of {}",
                kind.name(),
                names.join(", ")
            ))
        })?;
        selected.push(c);
    }
    if let Some(k) = args.run {
        if k >= runs {
            return Err(input(anyhow!(
                "--run {k} is out of range: the study has runs 0 … {} (--runs {runs})",
                runs - 1
            )));
        }
    }
    let partial = !args.configs.is_empty() || args.run.is_some() || args.shard.is_some();
    // Several processes may run some runs each (shared); one that writes the report holds it alone.
    let access = if partial { run_dir::Access::Shared } else { run_dir::Access::Exclusive };
    let _held = if args.report_only && !root.exists() {
        None
    } else {
        Some(study.claim(&root, access).map_err(|e| super::classified(e.is_input(), e))?)
    };
    let chosen: Vec<(usize, u32)> = study
        .all_runs()
        .into_iter()
        .enumerate()
        .filter(|(r, (c, k))| {
            (selected.is_empty() || selected.contains(c))
                && args.run.is_none_or(|want| want == *k)
                && args.shard.is_none_or(|(i, n)| r % n == i)
        })
        .map(|(_, run)| run)
        .collect();

    if !args.report_only {
        std::fs::create_dir_all(&root)
            .with_context(|| format!("cannot create the study directory {}", root.display()))
            .map_err(input)?;
        execute(&study, &root, &chosen, args.jobs.map_or(0, |j| j as usize), args.quiet)?;
    }
    if partial {
        if !args.quiet {
            eprintln!(
                "ran {} of the study's {} runs in {:.1} s; when all are done, `vsr2d study {}{} -o {} --report-only` \
                 writes the report",
                chosen.len(),
                study.all_runs().len(),
                started.elapsed().as_secs_f64(),
                kind.name(),
                options_text(&args),
                root.display()
            );
        }
        return Ok(());
    }

    // Gather.
    let mut results = Vec::new();
    let mut missing = Vec::new();
    for (c, k) in study.all_runs() {
        let name = format!("{}/run-{k}", study.configs[c].name);
        match study.load_run(&root, c, k).map_err(|e| super::classified(e.is_input(), e))? {
            RunState::Finished(r) => results.push(r),
            RunState::Missing => missing.push(format!("{name} (not started)")),
            RunState::Unfinished { generations } => missing.push(format!(
                "{name} ({} of {} generations)",
                generations.saturating_sub(1),
                study.configs[c].experiment.algorithm().generations()
            )),
            RunState::Foreign => {
                return Err(input(anyhow!(
                    "{} holds a run of another experiment: was the study run with other options (--quick, --runs, \
                     --pop, --generations, --duration)? Give the same options, or another -o DIR",
                    study.run_dir(&root, c, k).display()
                )))
            }
        }
    }
    if results.is_empty() {
        return Err(input(anyhow!(
            "no finished run under {}: run `vsr2d study {}{} -o {}` first",
            root.display(),
            kind.name(),
            options_text(&args),
            root.display()
        )));
    }
    let report = write(&root, &ReportInput { study: &study, results: &results, missing, video: !args.no_video })
        .with_context(|| format!("cannot write the report in {}", root.display()))?;
    if !args.quiet {
        eprintln!("{}", table_text(&report.stats));
        if let VideoOutcome::Skipped(why) = &report.video {
            eprintln!("note: {why}");
        }
        eprintln!("wrote {} in {:.1} s", report.index.display(), started.elapsed().as_secs_f64());
    }
    let configs: Vec<serde_json::Value> = report
        .stats
        .configs
        .iter()
        .map(|c| {
            serde_json::json!({
                "config": c.name, "runs": c.n, "gen0_median": c.gen0_median, "final_median": c.final_median,
                "ratio_of_medians": c.ratio_of_medians, "improved": c.improved,
            })
        })
        .collect();
    super::outln(&serde_json::to_string_pretty(&serde_json::json!({
        "index": report.index,
        "configs": configs,
        "missing": report.stats.missing,
    }))?)
}

/// The options that select the experiments, as typed (for the hints).
fn options_text(args: &StudyArgs) -> String {
    let mut s = String::new();
    if args.quick {
        s.push_str(" --quick");
    }
    if let Some(r) = args.runs {
        s.push_str(&format!(" --runs {r}"));
    }
    if let Some(p) = args.pop {
        s.push_str(&format!(" --pop {p}"));
    }
    if let Some(g) = args.generations {
        s.push_str(&format!(" --generations {g}"));
    }
    if let Some(d) = args.duration {
        s.push_str(&format!(" --duration {d}"));
    }
    s
}

/// Runs the chosen runs one after the other (each evaluates its generations on `jobs` threads).
fn execute(
    study: &Study,
    root: &std::path::Path,
    chosen: &[(usize, u32)],
    jobs: usize,
    quiet: bool,
) -> Result<(), Failure> {
    let total: u64 =
        chosen.iter().map(|(c, _)| u64::from(study.configs[*c].experiment.algorithm().generations()) + 1).sum();
    let bar = ProgressBar::new(total);
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} generations · {msg} [{elapsed_precise}, ETA {eta}]")
            .expect("valid template"),
    );
    let mut done: u64 = 0;
    for (i, &(c, k)) in chosen.iter().enumerate() {
        let config = &study.configs[c];
        let n_gen = u64::from(config.experiment.algorithm().generations());
        let run_started = Instant::now();
        bar.set_message(format!("run {}/{}: {} run-{k}", i + 1, chosen.len(), config.name));
        let mut observer = |g: &vsr2d::evolve::GenerationDone| bar.set_position(done + u64::from(g.generation) + 1);
        let summary = study.run_one(root, c, k, jobs, &mut observer).map_err(|e| super::classified(e.is_input(), e))?;
        done += n_gen + 1;
        bar.set_position(done);
        if !quiet {
            // Not `bar.println`: it prints nothing when stderr is not a terminal.
            let line = format!(
                "{} run-{k} (seed {k}): best {} after {} generations{} ({:.1} s)",
                config.name,
                summary.best.map_or("none".into(), |b| format!("{b:.4} ({})", config.experiment.fitness_name())),
                summary.generation,
                match summary.resumed_from {
                    Some(g) if g >= config.experiment.algorithm().generations() => ", finished earlier".to_string(),
                    Some(g) => format!(", resumed from generation {g}"),
                    None => String::new(),
                },
                run_started.elapsed().as_secs_f64()
            );
            bar.suspend(|| eprintln!("{line}"));
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// The results table as plain text.
fn table_text(stats: &vsr2d_report::study::StudyStats) -> String {
    let f = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.4}"));
    let mut out = format!("study {} ({}); {} per run and generation\n", stats.study, stats.preset, stats.score);
    out.push_str(&format!(
        "{:<22} {:>4} {:>17} {:>17} {:>7}  improved\n",
        "configuration", "runs", "gen-0 med±σ", "final med±σ", "ratio"
    ));
    for c in &stats.configs {
        out.push_str(&format!(
            "{:<22} {:>4} {:>17} {:>17} {:>7}  {}\n",
            c.name,
            c.n,
            format!("{}±{}", f(c.gen0_median), f(c.gen0_sd)),
            format!("{}±{}", f(c.final_median), f(c.final_sd)),
            c.ratio_of_medians.map_or("–".into(), |r| format!("×{r:.2}")),
            if c.improved { "yes" } else { "NO" }
        ));
    }
    for row in stats.comparisons.iter().chain(stats.qd.iter().flat_map(|q| &q.comparisons)) {
        if let Some(t) = &row.test {
            out.push_str(&format!(
                "{}{} vs {}: U = {}, p = {} ({}), A12 = {:.3}, r = {:+.3}\n",
                row.measure.as_deref().map_or(String::new(), |m| format!("{m}: ")),
                row.a,
                row.b,
                t.u,
                vsr2d::format::sig(t.p, 3),
                if t.method == vsr2d_report::stats::PMethod::Exact { "exact" } else { "normal approx." },
                t.a12,
                t.r
            ));
        }
    }
    out.trim_end().to_string()
}
