//! Cross-check of the merged weld clusters (spec §6): the static cantilever deflection with one rigid
//! body per cluster of welded masses against one body per corner mass with rapier fixed joints.
//!
//! ```sh
//! cargo run --release --example weld_check -- [SUBSTEPS_JOINTED] [DURATION_S] [PRESET]
//! ```
//!
//! PRESET is `default` (the default) or `legacy-1.0`; both runs use it.

use std::process::ExitCode;

use vsr2d::model::voxel::material::Preset;
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::sim::voxel_robot::Welds;
use vsr2d::sim::world::DEFAULT_SOLVER_ITERATIONS;
use vsr2d::task::cantilever::{run, BeamSetup};

fn main() -> ExitCode {
    let preset = match std::env::args().nth(3).map(|s| s.parse::<Preset>()) {
        None => Preset::Default,
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            eprintln!("weld_check: {e}");
            return ExitCode::from(2);
        }
    };
    let mut args = std::env::args().skip(1).take(2).map(|s| s.parse::<f64>());
    let (jointed_substeps, duration) = match (args.next(), args.next()) {
        (None, _) => (DEFAULT_SOLVER_ITERATIONS, 15.0),
        (Some(Ok(n)), None) if n >= 1.0 => (n as usize, 15.0),
        (Some(Ok(n)), Some(Ok(d))) if n >= 1.0 && d > 0.0 => (n as usize, d),
        _ => {
            eprintln!("usage: weld_check [SUBSTEPS_JOINTED ≥ 1] [DURATION_S > 0] [default|legacy-1.0]");
            return ExitCode::from(2);
        }
    };
    println!(
        "{} preset; size  f_s  merged δ (m)  jointed δ (m, {jointed_substeps} substeps)  difference",
        preset.name()
    );
    for (w, h) in [(5, 2), (10, 4)] {
        for fs in [4.0, 8.0, 30.0] {
            let material = BeamSetup::material(preset, fs, Scaffolding::ALL);
            let merged = BeamSetup::static_case(w, h, material, 30.0, duration, 1.0 / 60.0);
            let jointed = BeamSetup { welds: Welds::Joints, solver_iterations: jointed_substeps, ..merged };
            match (run(&merged), run(&jointed)) {
                (Ok(a), Ok(b)) => {
                    let (a, b) = (a[a.len() - 1], b[b.len() - 1]);
                    println!("{w}x{h} {fs:>4}  {a:>12.6}  {b:>12.6}  {:>+8.2} %", (a - b) / b.abs() * 100.0);
                }
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("{w}x{h} at {fs} Hz: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }
    ExitCode::SUCCESS
}
