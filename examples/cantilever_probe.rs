//! Solver convergence probe (spec §7): static and dynamic cantilever deflections for 5×2, 10×2 and
//! 10×4 beams at 4, 8 and 30 Hz with a given number of solver substeps. Compare a count N with 2N to
//! choose `world::DEFAULT_SOLVER_ITERATIONS`:
//!
//! ```sh
//! cargo run --release --example cantilever_probe -- 10
//! cargo run --release --example cantilever_probe -- 20
//! ```

use std::process::ExitCode;

use vsr2d::model::voxel::material::Preset;
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::sim::world::DEFAULT_SOLVER_ITERATIONS;
use vsr2d::task::cantilever::{run, BeamSetup};

const DT: f64 = 1.0 / 60.0;

fn main() -> ExitCode {
    let iterations = match std::env::args().nth(1).map(|s| s.parse::<usize>()) {
        None => DEFAULT_SOLVER_ITERATIONS,
        Some(Ok(n)) if n >= 1 => n,
        Some(_) => {
            eprintln!("usage: cantilever_probe [SUBSTEPS ≥ 1]");
            return ExitCode::from(2);
        }
    };
    println!("size  f_s  substeps  static δ (m)  first peak (m)  δ at 15 s (m)  wall (s)");
    for (w, h) in [(5, 2), (10, 2), (10, 4)] {
        for fs in [4.0, 8.0, 30.0] {
            let material = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
            let mut static_case = BeamSetup::static_case(w, h, material, 30.0, 60.0, DT);
            let mut dynamic_case = BeamSetup::dynamic_case(w, h, material, 800.0, 15.0, DT);
            static_case.solver_iterations = iterations;
            dynamic_case.solver_iterations = iterations;
            let started = std::time::Instant::now();
            let (deflection, ringing) = match (run(&static_case), run(&dynamic_case)) {
                (Ok(s), Ok(d)) => (s, d),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("{w}x{h} at {fs} Hz: {e}");
                    return ExitCode::from(1);
                }
            };
            let peak = ringing.iter().cloned().fold(0.0f64, f64::min);
            println!(
                "{w}x{h} {fs:>4} {iterations:>9}  {:>12.6}  {peak:>14.5}  {:>13.5}  {:>8.2}",
                deflection.last().copied().unwrap_or(0.0),
                ringing.last().copied().unwrap_or(0.0),
                started.elapsed().as_secs_f64()
            );
        }
    }
    ExitCode::SUCCESS
}
