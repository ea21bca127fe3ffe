//! Worm gait probe (issue 38): runs the reference gait set (`fixtures/reference/locomotion_gaits.csv`)
//! with `legacy-1.0` and prints `w,h,freq,phase_scale,original_vx,vsr2d_vx`; with a directory it also
//! writes each run's centre x(t), y(t) after every step (`vsr_<w>_<freq>_<phase_scale>.csv`), to lay
//! beside the original's trajectories (`-` for none). DT_PERTURBATION ε runs every gait with
//! Δt × (1 + ε), to see how noisy each gait is (docs/model.md). TERRAIN `flat` runs the same gaits on
//! flat ground against the original's flat-ground figures (`locomotion_gaits_flat.csv`).
//!
//! ```sh
//! cargo run --release --example gait_probe -- [DURATION_S] [TRAJECTORY_DIR] [DT_PERTURBATION] [uneven5|flat]
//! ```

use rayon::prelude::*;
use vsr2d::model::terrain::TerrainSpec;
use vsr2d::snapshot::Progress;
use vsr2d_report::cantilever::locomotion::{gait_scenario, parse_gaits, reference_gaits};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let duration: f64 = args.get(1).map_or(60.0, |s| s.parse().expect("DURATION_S is a number"));
    let dir = args.get(2).cloned().filter(|d| d != "-");
    let dt_scale: f64 = args.get(3).map_or(0.0, |s| s.parse().expect("DT_PERTURBATION is a number"));
    let flat = match args.get(4).map(String::as_str) {
        None | Some("uneven5") => false,
        Some("flat") => true,
        Some(other) => panic!("TERRAIN is uneven5 or flat, not {other}"),
    };
    let gaits = if flat {
        parse_gaits(include_str!("../../../fixtures/reference/locomotion_gaits_flat.csv")).expect("the flat gait set")
    } else {
        reference_gaits().expect("the embedded gait set")
    };
    let rows: Vec<String> = gaits
        .par_iter()
        .map(|g| {
            let mut scenario = gait_scenario(g, duration).expect("a valid scenario");
            scenario.world.dt *= 1.0 + dt_scale;
            if flat {
                scenario.world.terrain = TerrainSpec::Flat { ceiling: None };
            }
            let dt = scenario.world.dt;
            let sim = scenario.build().expect("a buildable scenario");
            let steps = sim.steps();
            let mut world = sim.into_world();
            let x0 = world.centre(0).x;
            let mut trajectory = String::from("t,x,y\n");
            for _ in 0..steps {
                world.step(&mut []).expect("a stable run");
                let c = world.centre(0);
                trajectory.push_str(&format!("{:.6},{:.9},{:.9}\n", world.time(), c.x, c.y));
            }
            if let Some(d) = &dir {
                let path = format!("{d}/vsr_{}_{}_{}.csv", g.w, g.freq, g.phase_scale);
                std::fs::write(&path, trajectory).unwrap_or_else(|e| panic!("{path}: {e}"));
            }
            let v = (world.centre(0).x - x0) / (steps as f64 * dt);
            format!("{},{},{},{},{},{v:.6}", g.w, g.h, g.freq, g.phase_scale, g.original_vx)
        })
        .collect();
    println!("w,h,freq,phase_scale,original_vx,vsr2d_vx");
    for row in rows {
        println!("{row}");
    }
}
