//! `vsr2d compare`: the test suite's golden-image check for users' own CI.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use clap::Args;
use image::RgbaImage;

use vsr2d::output::png::write_rgba_image;
use vsr2d::render::compare::{compare, composite, read_image, Budget};

use super::{input, Failure};

#[derive(Args)]
pub struct CompareArgs {
    /// The reference image (PNG).
    pub expected: PathBuf,
    /// The image to check (PNG), e.g. from `vsr2d render SCENARIO --png ACTUAL.png --at T`.
    pub actual: PathBuf,
    /// A pixel differs when one of its channels differs by more than this (0–255).
    #[arg(long, default_value_t = 2)]
    pub tolerance: u8,
    /// How many pixels may differ: a count (12) or a percentage of the image (0.5%).
    #[arg(long, default_value = "0")]
    pub budget: Budget,
    /// Write the difference mask (red where pixels differ, on black) here, when they differ beyond the
    /// budget.
    #[arg(long, value_name = "DIFF.png")]
    pub diff: Option<PathBuf>,
    /// Write one composite here when they differ beyond the budget: expected | actual | the differing
    /// pixels highlighted on a faded copy of the actual, with their bounding box and the counts under it
    /// (what `vsr2d check` writes as CASE-compare.png).
    #[arg(long, value_name = "COMPARE.png")]
    pub composite: Option<PathBuf>,
    /// The global `--allow-large` lifts the limits of simulations and renders; compare runs none. Declared
    /// here, hidden, so that this command's help does not list it and giving it is refused.
    #[arg(long, hide = true)]
    pub allow_large: bool,
}

fn open(path: &Path) -> Result<RgbaImage, Failure> {
    read_image(path).with_context(|| format!("cannot read image {}", path.display())).map_err(input)
}

/// Prints the one-line verdict; exit 0 when the images match within the budget, 1 when they differ.
pub fn run(args: CompareArgs) -> Result<(), Failure> {
    if args.allow_large {
        return Err(input(anyhow!(
            "--allow-large lifts the resource limits of simulations and renders; compare runs neither: leave it out"
        )));
    }
    let outputs: Vec<(&str, &Path)> = [("--diff", &args.diff), ("--composite", &args.composite)]
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|p| (flag, p)))
        .collect();
    for (_, path) in &outputs {
        vsr2d::output::check_output_writable(path).map_err(input)?;
    }
    vsr2d::output::check_distinct(&outputs, &[("EXPECTED", &args.expected), ("ACTUAL", &args.actual)])
        .map_err(input)?;
    let (expected, actual) = (open(&args.expected)?, open(&args.actual)?);
    let c = compare(&expected, &actual, args.tolerance);
    let budget = args.budget.pixels(&expected);
    println!("{}", c.summary(budget));
    if c.within(budget) {
        return Ok(());
    }
    let mut why = format!("{} differs from {}", args.actual.display(), args.expected.display());
    if let Some(path) = &args.diff {
        write_png(path, &c.diff)?;
        why.push_str(&format!("; differences in {}", path.display()));
    }
    if let Some(path) = &args.composite {
        write_png(path, &composite(&expected, &actual, &c, &[c.summary(budget)]))?;
        why.push_str(&format!("; composite in {}", path.display()));
    }
    Err(Failure::Runtime(anyhow!(why)))
}

fn write_png(path: &Path, image: &RgbaImage) -> Result<(), Failure> {
    Ok(write_rgba_image(path, image).with_context(|| format!("cannot write {}", path.display()))?)
}
