//! `vsr2d cantilever`: run the characterization sweeps and write the report directory.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{anyhow, Context};
use clap::Args;

use super::{input, Failure};
use vsr2d::model::voxel::material::Preset;
use vsr2d::model::voxel::material::{Material, MaterialSpec};
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::task::cantilever::{solver_iterations_for, PAPER, PAPER_SCAFFOLD_FS_HZ};
use vsr2d_report::cantilever::report::write_report_with_viewer;
use vsr2d_report::cantilever::sweep::{Cases, SweepOptions};
use vsr2d_report::checks::Verdict;

#[derive(Args)]
pub struct CantileverArgs {
    /// Report directory (created if missing).
    #[arg(short, long, default_value = "cantilever-report")]
    output: PathBuf,
    /// Beam sizes as WxH, comma-separated.
    // The list defaults restate the paper's sweep as text (clap needs a literal); a test checks them.
    #[arg(long, value_delimiter = ',', default_value = "5x2,10x2,10x4")]
    sizes: Vec<String>,
    /// Spring frequencies (Hz) of the f_s sweep, all groups.
    #[arg(long = "fs", value_delimiter = ',', default_value = "4,8,10,15,20,25,30")]
    fs: Vec<f64>,
    /// Scaffolding sets of the scaffolding sweep (at 8 Hz).
    #[arg(long, value_delimiter = ',', default_value = "E+C,E+I+C,E+I+X,all")]
    scaffolds: Vec<Scaffolding>,
    /// Run only the static or only the dynamic case.
    #[arg(long, value_parser = ["static", "dynamic"])]
    only: Option<String>,
    /// Total static load, N.
    #[arg(long, default_value_t = PAPER.static_force_n)]
    force: f64,
    /// Total load of the dynamic impulse, N (acts for 0.1 s).
    #[arg(long, default_value_t = PAPER.dynamic_force_n)]
    impulse_force: f64,
    /// Duration of the static case, s.
    #[arg(long, default_value_t = PAPER.static_duration_s)]
    duration: f64,
    /// Duration of the dynamic case, s.
    #[arg(long, default_value_t = PAPER.dynamic_duration_s)]
    dynamic_duration: f64,
    /// Time step, s.
    #[arg(long, default_value_t = PAPER.dt)]
    dt: f64,
    /// Material preset: default or legacy-1.0.
    #[arg(long, default_value = "default", conflicts_with = "material")]
    preset: Preset,
    /// The beams' material, a JSON object as a scenario writes one under `robots[i].materials`
    /// (preset, side, mass, spring_hz, damping_ratio, max_area_change, scaffolding, ...): the f_s sweep
    /// varies its spring_hz, the scaffolding sweep runs at its spring_hz (its own scaffolding included),
    /// and the comparison with the original is left out (that was measured with the original's material).
    #[arg(long, value_name = "FILE.json")]
    material: Option<PathBuf>,
    /// Exit 1 when a physical sanity check of the report is flagged (a check that cannot measure, e.g. the
    /// period of an overdamped beam, is "not applicable", not a failure).
    #[arg(long)]
    check: bool,
    /// Solver substeps per step (default: the project's measured default; 1 for legacy-1.0).
    #[arg(long)]
    solver_iterations: Option<usize>,
    /// Skip the convergence re-runs at twice the solver iterations.
    #[arg(long)]
    no_convergence: bool,
    /// Skip the comparison with the original 2D-VSR-Sim 1.0.0 (the extra legacy-1.0 runs).
    #[arg(long)]
    no_reference: bool,
    /// Parallel simulations (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_size(s: &str) -> Result<(u32, u32), Failure> {
    let (w, h) = super::parse_wxh(s, "beam size", "10x4").map_err(|e| input(anyhow!(e)))?;
    if w > 200 || h > 200 {
        return Err(input(anyhow!("beam size {s:?} is too large: at most 200 voxels each way")));
    }
    Ok((w, h))
}

pub fn run(args: CantileverArgs) -> Result<(), Failure> {
    let sizes = args.sizes.iter().map(|s| parse_size(s)).collect::<Result<Vec<_>, _>>()?;
    use vsr2d::geom::compact;
    use vsr2d::scenario::{MAX_DURATION, MIN_DT};
    for (name, value, ok, range) in [
        ("--dt", args.dt, (MIN_DT..=0.1).contains(&args.dt), "[0.00001, 0.1] s"),
        ("--duration", args.duration, args.duration > 0.0 && args.duration <= MAX_DURATION, "(0, 1e6] s"),
        (
            "--dynamic-duration",
            args.dynamic_duration,
            args.dynamic_duration > 0.0 && args.dynamic_duration <= MAX_DURATION,
            "(0, 1e6] s",
        ),
        ("--force", args.force, args.force.abs() <= 1e9, "[-1e9, 1e9] N"),
        ("--impulse-force", args.impulse_force, args.impulse_force.abs() <= 1e9, "[-1e9, 1e9] N"),
    ] {
        if !(value.is_finite() && ok) {
            return Err(input(anyhow!("{name} {} is out of range: it must be in {range}", compact(value))));
        }
    }
    if let Some(f) = args.fs.iter().find(|f| !(f.is_finite() && **f > 0.0 && **f <= 1e4)) {
        return Err(input(anyhow!("--fs {} is invalid: spring frequencies must be in [1e-6, 10000] Hz", compact(*f))));
    }
    if let Some(n) = args.solver_iterations.filter(|n| !(1..=100).contains(n)) {
        return Err(input(anyhow!("--solver-iterations {n} is invalid: give 1 to 100")));
    }
    // The cost of the largest run against the scenario limit (`--allow-large` lifts it).
    let voxels = sizes.iter().map(|&(w, h)| u64::from(w) * u64::from(h)).max().unwrap_or(0);
    let longest = args.duration.max(args.dynamic_duration);
    let voxel_steps = voxels.saturating_mul((longest / args.dt).ceil() as u64);
    let limit = super::limits().max_voxel_steps;
    if voxel_steps > limit {
        return Err(input(anyhow!(
            "the largest run needs {} voxel steps (voxels × duration / dt), more than the limit of {}; use \
             smaller beams, a shorter duration or a larger --dt (`--allow-large` lifts the limit)",
            compact(voxel_steps as f64),
            compact(limit as f64)
        )));
    }
    let material = args.material.as_deref().map(read_material).transpose()?;
    let preset = material.map_or(args.preset, |m| m.preset);
    let mut scaffolds = args.scaffolds.clone();
    if let Some(m) = material {
        // The material as written is always among the runs.
        if !scaffolds.contains(&m.scaffolding) {
            scaffolds.push(m.scaffolding);
        }
    }
    // Fail on an unwritable report directory before minutes of simulation.
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create the report directory {}", args.output.display()))
        .map_err(input)?;
    vsr2d::output::check_dir_writable(&args.output).map_err(input)?;

    let options = SweepOptions {
        sizes,
        fs_hz: args.fs,
        scaffolds,
        scaffold_fs_hz: material.map_or(PAPER_SCAFFOLD_FS_HZ, |m| m.spring_hz),
        material,
        cases: match args.only.as_deref() {
            Some("static") => Cases::Static,
            Some("dynamic") => Cases::Dynamic,
            _ => Cases::Both,
        },
        static_force_n: args.force,
        static_duration_s: args.duration,
        dynamic_force_n: args.impulse_force,
        dynamic_duration_s: args.dynamic_duration,
        dt: args.dt,
        preset,
        solver_iterations: args.solver_iterations.unwrap_or(solver_iterations_for(preset)),
        measure_convergence: !args.no_convergence,
        compare_with_original: !args.no_reference && material.is_none(),
        progress: !args.quiet && std::io::stderr().is_terminal(),
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let started = std::time::Instant::now();
    let (data, figure) = pool.install(|| -> Result<_, Failure> {
        let data = options.run()?;
        // Figure 4: the largest beam requested, loaded.
        let &(w, h) = options.sizes.iter().max_by_key(|(w, h)| w * h).expect("at least one size");
        let figure = options.beam_figure(w, h, 1280, 720)?;
        let viewer = options.beam_viewer(w, h)?;
        Ok((data, (figure, viewer)))
    })?;
    let (figure, viewer) = figure;
    let files = write_report_with_viewer(&args.output, &data, Some(&figure), Some(&viewer.html))?;
    let legacy = match &data.reference_runs {
        Some(r) if r.reused_main_runs => " (the legacy-1.0 comparison reuses them)".to_string(),
        Some(r) => format!(" and {} legacy-1.0 runs for the comparison", r.static_runs.len() + r.dynamic_runs.len()),
        None => String::new(),
    };
    super::note(&format!(
        "cantilever: {} static and {} dynamic runs{legacy} in {:.1} s; report in {}",
        data.static_runs.len(),
        data.dynamic_runs.len(),
        started.elapsed().as_secs_f64(),
        files.index_html.display()
    ))?;
    if !args.check {
        return Ok(());
    }
    let analysis = vsr2d_report::cantilever::analysis::analyse(&data);
    for c in &analysis.sanity {
        let verdict = match c.verdict {
            Verdict::Pass => "pass",
            Verdict::Flag => "FLAG",
            Verdict::NoData => "n/a ",
        };
        let why = if c.verdict == Verdict::Pass { String::new() } else { format!(" — {}", c.explanation) };
        super::outln(&format!("{verdict}  {}: {} (predicted {}){why}", c.name, c.measured, c.predicted))?;
    }
    super::note(&analysis.summary.line("cantilever checks"))?;
    let flagged: Vec<&str> =
        analysis.sanity.iter().filter(|c| c.verdict == Verdict::Flag).map(|c| c.id.as_str()).collect();
    if flagged.is_empty() {
        Ok(())
    } else {
        Err(Failure::Runtime(anyhow!(
            "{} sanity checks flagged: {}; see {}",
            flagged.len(),
            flagged.join(", "),
            files.index_html.display()
        )))
    }
}

/// A material file: one JSON object as a scenario writes a voxel material, with JSON-path errors.
fn read_material(path: &std::path::Path) -> Result<Material, Failure> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the material {}", path.display()))
        .map_err(input)?;
    let spec: MaterialSpec = vsr2d::scenario::from_json_located(&text, "the material object", "`vsr2d schema`")
        .map_err(|(at, message)| {
            let at = if at.is_empty() || at == "." { String::new() } else { format!(" `{at}`") };
            input(anyhow!("material {}{at}: {message}", path.display()))
        })?;
    spec.resolve().map_err(|e| input(anyhow!("material {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use vsr2d::task::cantilever::{PAPER_FS_HZ, PAPER_SCAFFOLD_FS_HZ, PAPER_SIZES};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: CantileverArgs,
    }

    #[test]
    fn defaults_are_the_papers_sweep() {
        let args = Cli::parse_from(["cantilever"]).args;
        let sizes: Vec<(u32, u32)> = args.sizes.iter().map(|s| parse_size(s).ok().unwrap()).collect();
        assert_eq!(sizes, PAPER_SIZES);
        assert_eq!(args.fs, PAPER_FS_HZ);
        assert_eq!(args.scaffolds, Scaffolding::PAPER_SETS);
        assert_eq!(
            (args.force, args.impulse_force, args.duration, args.dynamic_duration, args.dt),
            (PAPER.static_force_n, PAPER.dynamic_force_n, PAPER.static_duration_s, PAPER.dynamic_duration_s, PAPER.dt)
        );
        let options = SweepOptions::default();
        assert_eq!((options.sizes, options.fs_hz, options.scaffolds), (sizes, args.fs, args.scaffolds));
        assert_eq!(options.scaffold_fs_hz, PAPER_SCAFFOLD_FS_HZ);
    }
}
