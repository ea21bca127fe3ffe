//! `vsr2d bench`: the paper's SVSPS benchmark (spec §14), and the render/encode figures.

use clap::Args;

use vsr2d::movie::MovieError;
use vsr2d_report::bench::render::bench_render;
use vsr2d_report::bench::throughput::{run_throughput, throughput_header, throughput_row, ThroughputOptions};
use vsr2d_report::bench::{run_bench, table_header, table_row, BenchError, BenchOptions, MachineInfo};

use super::Failure;

#[derive(Args)]
pub struct BenchArgs {
    /// 5 s runs and 3 repeats instead of 60 s and 5: a fast, noisier look.
    #[arg(long)]
    pub quick: bool,
    /// Print a JSON array of rows on stdout (machine information goes to stderr); with --throughput an
    /// object `{"svsps": [rows], "throughput": [rows]}`.
    #[arg(long)]
    pub json: bool,
    /// Worm widths to measure, e.g. `--widths 3,12` [default: 3,6,12,24,45]; the scaffolding and dt
    /// sweeps run at w = 12, or at the first width when 12 is not listed.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub widths: Option<Vec<u32>>,
    /// Only the baseline row per width (scaffolding `all`, dt = 1/60, the wave): no scaffolding, dt or
    /// controller sweep.
    #[arg(long)]
    pub no_sweep: bool,
    /// Timed runs per row (the median is reported).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeats: Option<u64>,
    /// Simulated seconds per run.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Attach the metrics listener (what `eval` pays per step) instead of no listener.
    #[arg(long)]
    pub with_metrics: bool,
    /// Also measure the multi-core batch throughput of `eval`: simulations per second of the 12×3
    /// worm on 1, 2, … N worker threads (N = logical CPUs), 4·N jobs of 10 s each (2 s with --quick,
    /// or --duration), through the same batch runner as `vsr2d eval`; with speed-up and efficiency.
    #[arg(long)]
    pub throughput: bool,
    /// Also measure the showcase's rendering and encoding, in frames/s (2 s of video with --quick, else 10 s).
    #[arg(long)]
    pub render: bool,
    /// Time the soft cells instead (cells.md §15 item 3 b, c): ms per step for 1 … 10 000 scs-paper
    /// cells (N 100; up to 1000 with --quick) and for one cell at N 10 … 1000, mean ± sd over repeats
    /// after warm-up steps, with a linear fit. 10 000 cells are a million rigid bodies: several GB.
    #[arg(long)]
    pub cells: bool,
    /// With --cells: the cell counts of the grid series, e.g. `--cell-counts 1,10,100`.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub cell_counts: Option<Vec<u64>>,
    /// With --cells: the resolutions N of the single-cell series (even, ≥ 8), e.g. `--cell-resolutions 10,100`.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(8..=10_000))]
    pub cell_resolutions: Option<Vec<u64>>,
}

pub fn run(args: BenchArgs) -> Result<(), Failure> {
    if args.cells {
        return run_cells(&args);
    }
    let mut options = if args.quick { BenchOptions::quick() } else { BenchOptions::full() };
    if let Some(w) = args.widths {
        // The scaffolding and dt sweeps stay at w = 12 when it is measured, else at the first width.
        if !w.contains(&12) {
            options.sweep_width = w.first().copied();
        }
        options.widths = w;
    }
    if args.no_sweep {
        options.scaffoldings.truncate(1);
        options.dts.truncate(1);
        options.controllers.truncate(1);
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
         worm w×3, f(t) = sin(−2πt + πx/w) (controller `wave`; `mlp`: central MLP, paper6 features + 1 Hz driver, \
         no hidden layer; `distributed`: one network per voxel, paper6 + 1 signal per direction, 5 hidden), \
         uneven terrain h = 5 m seed 1, {} s simulated, {} repeats",
        if options.with_metrics { "metrics listener attached" } else { "no listener" },
        options.duration_s,
        options.repeats
    );
    let classify = |e: BenchError| super::classified(e.is_input(), e);
    let rows = if args.json {
        eprintln!("{header}\n\n{}", table_header());
        run_bench(&options, |r| eprintln!("{}", table_row(r))).map_err(classify)?
    } else {
        println!("{header}\n");
        println!("{}", table_header());
        run_bench(&options, |r| println!("{}", table_row(r))).map_err(classify)?
    };
    if args.throughput {
        let duration = args.duration.unwrap_or(if args.quick { 2.0 } else { 10.0 });
        let throughput = ThroughputOptions::for_this_machine(duration);
        let print = |line: String| if args.json { eprintln!("{line}") } else { println!("{line}") };
        print(format!(
            "\neval throughput: {} jobs of the {w}×3 worm ({duration} s simulated each, dt 1/60, all springs) \
             through the batch runner of `vsr2d eval`, whole batch timed (parse, simulate, write)\n\n{}",
            throughput.jobs,
            throughput_header(),
            w = throughput.w
        ));
        let table = run_throughput(&throughput, |r| print(throughput_row(r))).map_err(classify)?;
        if args.json {
            let both = serde_json::json!({ "svsps": rows, "throughput": table });
            println!("{}", serde_json::to_string_pretty(&both)?);
        }
    } else if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    if args.render {
        render_bench(args.json, if args.quick { 2.0 } else { 10.0 })?;
    }
    Ok(())
}

/// Prints the render table: to stderr in `--json` mode, so stdout stays the SVSPS array.
fn render_bench(json: bool, seconds: f64) -> Result<(), Failure> {
    let text = render_table(seconds)?;
    if json {
        eprintln!("{text}");
    } else {
        println!("\n{text}");
    }
    Ok(())
}

/// Frames per second of the showcase pipeline at two sizes, as a table (`vsr2d bench --render` and
/// `vsr2d render --bench`): drawing alone (simulation included, frames discarded), the encoder's own rate
/// (frames per second of time spent in the H.264 encoder, `video` feature) and the whole pipeline
/// (drawing and encoding overlapped on two threads, as `vsr2d render` runs).
pub fn render_table(seconds: f64) -> Result<String, Failure> {
    let mut lines = vec![
        format!(
            "showcase 2x2, {seconds} s at 30 fps; draw: simulate + draw, frames discarded; encode: frames per second \
             of encoder time (H.264, default settings); total: draw and encode overlapped, whole run"
        ),
        format!("{:>10} {:>7} {:>9} {:>11} {:>10}", "size", "frames", "draw fps", "encode fps", "total fps"),
    ];
    let classify = |e: MovieError| super::classified(e.is_input(), e);
    for (w, h) in [(640, 360), (1280, 720)] {
        let draw = bench_render(w, h, seconds, false).map_err(classify)?;
        let (encode, total) = if cfg!(feature = "video") {
            let run = bench_render(w, h, seconds, true).map_err(classify)?;
            (format!("{:.1}", run.encode_fps.unwrap_or(0.0)), format!("{:.1}", run.fps))
        } else {
            ("n/a".to_string(), "n/a (no video)".to_string())
        };
        lines.push(format!(
            "{:>10} {:>7} {:>9.1} {:>11} {:>10}",
            format!("{w}x{h}"),
            draw.frames,
            draw.fps,
            encode,
            total
        ));
    }
    Ok(lines.join("\n"))
}

/// `vsr2d bench --cells`.
fn run_cells(args: &BenchArgs) -> Result<(), Failure> {
    use vsr2d_report::bench::cells::{
        cell_table_header, cell_table_row, run_cell_bench, CellBenchError, CellBenchOptions,
    };
    let mut options = if args.quick { CellBenchOptions::quick() } else { CellBenchOptions::full() };
    if let Some(c) = &args.cell_counts {
        options.counts = c.iter().map(|&c| c as usize).collect();
    }
    if let Some(n) = &args.cell_resolutions {
        options.resolutions = n.iter().map(|&n| n as usize).collect();
    }
    if let Some(r) = args.repeats {
        options.repeats = r as usize;
    }
    let machine = MachineInfo::detect();
    let header = format!(
        "{machine}\nsoft cells, scs-paper (N 100, R 5, C 200), dt 1/50 s, gravity 0, k × n = engine steps per step × solver substeps ({}); square grid 1 m apart, \
         random initial velocities ≤ 0.5 m/s (seed 1); {} warm-up steps, {} repeats; paper: 0.3 ms per cell per step, goal ≤ 0.1",
        options.stepping.map_or("per N, as scenarios get them".to_string(), |s| s.to_string()), options.warmup, options.repeats
    );
    let classify = |e: CellBenchError| super::classified(matches!(e, CellBenchError::Options(_)), e);
    let print = |line: String| if args.json { eprintln!("{line}") } else { println!("{line}") };
    print(format!("{header}\n\n{}", cell_table_header()));
    let report = run_cell_bench(&options, |r| print(cell_table_row(r))).map_err(classify)?;
    if let Some(f) = report.fit {
        print(format!(
            "linear fit over ≥ 10 cells: ms/step = {:.4} + {:.5}·cells, R² = {:.4}",
            f.intercept_ms, f.slope_ms_per_cell, f.r2
        ));
    }
    for u in &report.unstable {
        print(format!("not measured (unstable): {u}"));
    }
    if let Some(m) = report.peak_rss_mb {
        print(format!("peak resident memory {m:.0} MB"));
    }
    let (cells, steps) = vsr2d_report::bench::cell_increments::size(args.quick);
    print(format!(
        "\nincremental cost per step (§15 item 3a): {cells} resting cells, {steps} steps per run, difference of two worlds (all timed in turns, one run each per round)"
    ));
    print(format!(
        "{:>26} {:>6} {:>18} {:>18} {:>20}",
        "element", "count", "ms/step with", "ms/step without", "µs/step per element"
    ));
    let increments =
        vsr2d_report::bench::cell_increments::measure_increments(cells, steps, &options).map_err(classify)?;
    for r in &increments {
        print(format!(
            "{:>26} {:>6} {:>11.3} ± {:<5.3} {:>11.3} ± {:<5.3} {:>12.2} ± {:<6.2}",
            r.element.name(),
            r.count,
            r.ms_with,
            r.ms_with_sd,
            r.ms_without,
            r.ms_without_sd,
            r.us_per_element,
            r.us_per_element_sd
        ));
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "series": report, "increments": increments }))?
        );
    }
    Ok(())
}
