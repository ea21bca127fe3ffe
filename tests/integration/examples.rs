//! The Rust examples run in the suite. Each example's code is compiled into this binary with `#[path]`
//! and called as a function: no `cargo run` inside `cargo test` (a second build under the same lock),
//! and the test reads the example's own return value rather than parsing what it prints.

#[cfg(feature = "video")]
#[allow(dead_code)] // the example's `main` is its binary's, not the test's
#[path = "../../examples/quickstart.rs"]
mod quickstart;

/// The front-door example: the listener sees every step, measures what the task measures, and the mp4
/// is a valid H.264 video of the 2 s run.
#[cfg(feature = "video")]
#[test]
fn quickstart_steps_the_worm_with_its_listener_and_films_it() {
    use quickstart::{quickstart, SECONDS, SIZE, WORM};

    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let video = dir.path().join("worm.mp4");
    let s = quickstart(WORM, &video).unwrap();

    // 2 s of 1/60 s steps: a snapshot at t = 0 and one after each step, all seen by the listener.
    assert_eq!(s.steps, 120);
    assert_eq!(s.track.xs.len(), 121);
    let robot = &s.result.robots[0];
    assert_eq!(robot.steps, s.steps);
    // The listener's centre is the task's: the same distance and time on the ground.
    let travelled = s.track.xs.last().unwrap() - s.track.xs.first().unwrap();
    assert!((travelled - robot.x_distance).abs() < 1e-12, "{travelled} vs {}", robot.x_distance);
    assert_eq!(s.track.steps_on_ground as f64 / s.steps as f64, robot.ground_contact);
    // The render simulated the same scenario again, to the same result.
    assert_eq!(s.rendered, s.result);

    let info = vsr2d::output::video::probe(&video).unwrap();
    assert_eq!((info.codec.as_str(), info.pix_fmt.as_str()), ("h264", "yuv420p"));
    assert_eq!((info.width, info.height), SIZE);
    assert_eq!(info.frames, s.frames);
    assert_eq!(s.frames, (SECONDS * 30.0) as u64 + 1, "30 fps from t = 0 to the end");

    let printed = quickstart::describe(&s);
    assert!(printed.starts_with("120 steps, 121 snapshots seen by the listener\nworm: centre x "), "{printed}");
    assert!(printed.contains("the render's own run gives the same result: true"), "{printed}");
}
