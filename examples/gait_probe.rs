//! Worm gait probe (issue 38): runs the reference gait set with `legacy-1.0` and prints each gait's
//! x velocity; with a directory argument it also writes each run's centre x(t), y(t) per step.
//!
//! ```sh
//! cargo run --release --example gait_probe -- [DURATION_S] [TRAJECTORY_DIR]
//! ```

use rayon::prelude::*;
use vsr2d::scenario::Scenario;
use vsr2d::snapshot::Progress;

fn scenario(w: u32, freq: f64, phase_scale: f64, duration: f64, extra: &str) -> String {
    let row = "#".repeat(w as usize);
    let body = vec![format!("\"{row}\""); 3].join(", ");
    let mut cells = Vec::new();
    for y in 0..3 {
        for x in 0..w {
            let phase = phase_scale * std::f64::consts::PI * x as f64 / w as f64;
            cells.push(format!(
                r#"{{"cell": [{x}, {y}], "function": {{"type": "sin", "amplitude": 1, "frequency": {}, "phase": {phase:e}, "offset": 0}}}}"#,
                -freq
            ));
        }
    }
    format!(
        r#"{{"world": {{"terrain": {{"type": "uneven", "height": 5, "spacing": 40, "seed": 1}}, "dt": 0.016666666666666666,
            "duration": {duration}, "control_interval": 1, "compat": "legacy-1.0"{extra}}},
           "robots": [{{"label": "worm", "body": [{body}], "controller": {{"type": "time_functions", "cells": [{}]}}}}],
           "task": {{"type": "locomotion"}}}}"#,
        cells.join(", ")
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let duration: f64 = args.get(1).map_or(60.0, |s| s.parse().unwrap());
    let dir = args.get(2).filter(|s| *s != "-").cloned();
    let extra = std::env::var("GAIT_WORLD_EXTRA").unwrap_or_default();
    let mut gaits = Vec::new();
    for w in [3u32, 4, 6, 8] {
        for f in [0.5, 1.0, 2.0] {
            for p in [1.0, 2.0] {
                gaits.push((w, f, p));
            }
        }
    }
    if std::env::var("GAIT_TERRAIN").is_ok() {
        let sc = Scenario::from_json(&scenario(3, 1.0, 1.0, duration, &extra)).unwrap();
        let mut sim = sc.build().unwrap();
        for p in sim.world.snapshot().terrain.unwrap().iter() {
            println!("{:.17},{:.17}", p.x, p.y);
        }
        return;
    }
    let only = std::env::var("GAIT_ONLY").ok();
    let results: Vec<_> = gaits
        .par_iter()
        .filter(|(w, f, p)| only.as_ref().is_none_or(|o| o == &format!("{w}_{f}_{p}")))
        .map(|&(w, f, p)| {
            let sc = Scenario::from_json(&scenario(w, f, p, duration, &extra)).unwrap();
            let mut sim = sc.build().unwrap();
            let dt = sc.world.dt;
            let x0 = sim.world.centre(0).x;
            let mut traj = String::from("t,x,y\n");
            for _ in 0..sim.steps {
                sim.world.step(&mut []).unwrap();
                if dir.is_some() {
                    let c = sim.world.centre(0);
                    traj.push_str(&format!("{:.6},{:.9},{:.9}\n", sim.world.time(), c.x, c.y));
                }
            }
            if let Some(d) = &dir {
                std::fs::write(format!("{d}/vsr_{w}_{f}_{p}.csv"), traj).unwrap();
            }
            let v = (sim.world.centre(0).x - x0) / (sim.steps as f64 * dt);
            (w, f, p, v)
        })
        .collect();
    for (w, f, p, v) in results {
        println!("{w},3,{f},{p},{v:.6}");
    }
}
