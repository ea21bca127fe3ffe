//! `vsr2d bench`: the paper's SVSPS benchmark (spec §14), and the render/encode figures.

use clap::Args;

use vsr2d::bench::{run_bench, table_header, table_row, BenchError, BenchOptions, MachineInfo};

use super::{input, Failure};

#[derive(Args)]
pub struct BenchArgs {
    /// 5 s runs and 3 repeats instead of 60 s and 5: a fast, noisier look.
    #[arg(long)]
    pub quick: bool,
    /// Print a JSON array of rows on stdout (machine information goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// Worm widths to measure, e.g. `--widths 3,12` [default: 3,6,12,24,45].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub widths: Option<Vec<u32>>,
    /// Timed runs per row (the median is reported).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeats: Option<u64>,
    /// Simulated seconds per run.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Attach the metrics listener (what `eval` pays per step) instead of no listener.
    #[arg(long)]
    pub with_metrics: bool,
    /// Also measure rendering and encoding (frames/s).
    #[arg(long)]
    pub render: bool,
}

pub fn run(args: BenchArgs) -> Result<(), Failure> {
    let mut options = if args.quick { BenchOptions::quick() } else { BenchOptions::full() };
    if let Some(w) = args.widths {
        options.widths = w;
    }
    if let Some(r) = args.repeats {
        options.repeats = r as usize;
    }
    if let Some(d) = args.duration {
        options.duration_s = d;
    }
    options.with_metrics = args.with_metrics;

    let machine = MachineInfo::detect();
    let header = format!(
        "{machine}\nSVSPS = voxels × steps / wall time of the step loop ({}), one simulation at a time on one thread;\n\
         worm w×3, f(t) = sin(−2πt + πx/w), uneven terrain h = 5 m seed 1, {} s simulated, {} repeats",
        if options.with_metrics { "metrics listener attached" } else { "no listener" },
        options.duration_s,
        options.repeats
    );
    let classify = |e: BenchError| match e {
        BenchError::Options(_) | BenchError::Scenario { .. } => input(e),
        BenchError::Sim { .. } => Failure::Runtime(e.into()),
    };
    if args.json {
        eprintln!("{header}");
        let rows = run_bench(&options, |r| eprintln!("{}", table_row(r))).map_err(classify)?;
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!("{header}\n");
        println!("{}", table_header());
        run_bench(&options, |r| println!("{}", table_row(r))).map_err(classify)?;
    }
    if args.render {
        render_bench(args.json)?;
    }
    Ok(())
}

// HOOK(render-bench): the render developer's frames/s benchmark (`vsr2d::movie::bench_frames` or
// similar) does not exist yet; once it does, call it here and print its frames/s next to the table.
fn render_bench(json: bool) -> Result<(), Failure> {
    let note = "render benchmark: see `vsr2d render --bench`";
    if json {
        eprintln!("{note}");
    } else {
        println!("\n{note}");
    }
    Ok(())
}
