//! Subcommand implementations of the `vsr2d` binary, one module per command, sharing the
//! input-versus-runtime failure classification that decides the exit code.

pub mod cantilever;

use std::path::Path;

use anyhow::Context;

use vsr2d::scenario::Scenario;

pub mod bench;
pub mod compare;
pub mod eval;
pub mod evolve;
pub mod pom;
pub mod render;

/// A failure, classified for the exit code.
pub enum Failure {
    /// Bad command line, scenario or recording: exit code 2.
    Input(anyhow::Error),
    /// Anything else: exit code 1.
    Runtime(anyhow::Error),
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Runtime(e.into())
    }
}

pub fn input<E: Into<anyhow::Error>>(e: E) -> Failure {
    Failure::Input(e.into())
}

/// A library error, classified by its own `is_input()`.
pub fn classified<E: Into<anyhow::Error>>(is_input: bool, e: E) -> Failure {
    if is_input {
        input(e)
    } else {
        Failure::Runtime(e.into())
    }
}

/// Parses `WxH` (also `WXH` or `W×H`), both positive integers; `what` names the value in the error.
pub fn parse_wxh(text: &str, what: &str, example: &str) -> Result<(u32, u32), String> {
    let err = || format!("{what} {text:?} must look like WIDTHxHEIGHT with positive integers, e.g. {example}");
    let (w, h) = text.trim().split_once(['x', 'X', '×']).ok_or_else(err)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| err())?, h.trim().parse::<u32>().map_err(|_| err())?);
    if w == 0 || h == 0 {
        return Err(err());
    }
    Ok((w, h))
}

/// Whether a scenario path names stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads and validates a scenario file (`-`: stdin); every problem is bad input.
pub fn load_scenario(path: &Path, duration: Option<f64>) -> Result<Scenario, Failure> {
    let text = if is_stdin(path) {
        std::io::read_to_string(std::io::stdin()).context("cannot read a scenario from stdin").map_err(input)?
    } else {
        std::fs::read_to_string(path)
            .with_context(|| format!("cannot read scenario {}", path.display()))
            .map_err(input)?
    };
    let mut scenario =
        Scenario::from_json(&text).with_context(|| format!("scenario {}", path.display())).map_err(input)?;
    if let Some(d) = duration {
        if !(d.is_finite() && d >= 0.0) {
            return Err(input(anyhow::anyhow!("--duration {d} is invalid: give a number of seconds ≥ 0")));
        }
        scenario.world.duration = d;
    }
    Ok(scenario)
}
