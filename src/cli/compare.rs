//! `vsr2d compare`: the test suite's golden-image check for users' own CI.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use clap::Args;
use image::RgbaImage;

use vsr2d::output::atomic;
use vsr2d::render::compare::{compare, Budget};

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
    /// Write the difference image (red where pixels differ) here, when they differ beyond the budget.
    #[arg(long, value_name = "DIFF.png")]
    pub diff: Option<PathBuf>,
}

fn open(path: &Path) -> Result<RgbaImage, Failure> {
    Ok(image::open(path).with_context(|| format!("cannot read image {}", path.display())).map_err(input)?.to_rgba8())
}

/// Prints the one-line verdict; exit 0 when the images match within the budget, 1 when they differ.
pub fn run(args: CompareArgs) -> Result<(), Failure> {
    if let Some(path) = &args.diff {
        vsr2d::output::check_output_writable(path).map_err(input)?;
        vsr2d::output::check_distinct(&[("--diff", path)], &[("EXPECTED", &args.expected), ("ACTUAL", &args.actual)])
            .map_err(input)?;
    }
    let (expected, actual) = (open(&args.expected)?, open(&args.actual)?);
    let c = compare(&expected, &actual, args.tolerance);
    let budget = args.budget.pixels(&expected);
    println!("{}", c.summary(budget));
    if c.within(budget) {
        return Ok(());
    }
    let mut why = format!("{} differs from {}", args.actual.display(), args.expected.display());
    if let Some(path) = &args.diff {
        let mut png = Vec::new();
        c.diff
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .context("cannot encode the difference image")?;
        atomic::write(path, &png).with_context(|| format!("cannot write {}", path.display()))?;
        why.push_str(&format!("; differences in {}", path.display()));
    }
    Err(Failure::Runtime(anyhow!(why)))
}
