//! `vsr2d pom`: run a POM spec (or the built-in `pom-quadruped`), print J and the gait's phase table,
//! and write the run's CSV files into the output directory.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use vsr2d::output::atomic;
use vsr2d::pom::{example, run as run_spec, tables, PomSpec};

use super::{input, Failure};

#[derive(Args)]
pub struct PomArgs {
    /// POM spec JSON file (see `vsr2d pom --schema`); without it, the built-in `--example` runs.
    pub spec: Option<PathBuf>,
    /// Built-in example to run when no spec file is given.
    #[arg(long, default_value = example::QUADRUPED, conflicts_with = "spec")]
    pub example: String,
    /// Output directory for J.csv, q.csv, x.csv, residuals.csv, violations.csv and support.csv.
    #[arg(long, short, default_value = "pom-report")]
    pub out: PathBuf,
    /// Print the JSON Schema of POM spec files and exit.
    #[arg(long, exclusive = true)]
    pub schema: bool,
}

pub fn run(args: PomArgs) -> Result<(), Failure> {
    if args.schema {
        println!("{}", serde_json::to_string_pretty(&schemars::schema_for!(PomSpec))?);
        return Ok(());
    }
    let (spec, csv) = match &args.spec {
        Some(path) => load(path)?,
        None => (example::by_name(&args.example).map_err(input)?, None),
    };
    let result = run_spec(&spec, csv.as_deref()).map_err(input)?;
    if let Some(note) = &result.reconstruction {
        println!("NOTE: {note}\n");
    }
    println!("{}", tables::j_table(&result));
    let phases = tables::phase_table(&result);
    if !phases.is_empty() {
        println!("{phases}");
    }
    print!("{}", tables::summary(&result));
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut files = vec![
        ("J.csv", tables::j_csv(&result)),
        ("q.csv", tables::q_csv(&result)),
        ("x.csv", tables::x_csv(&result)),
        ("residuals.csv", tables::residuals_csv(&result)),
        ("violations.csv", tables::violations_csv(&result)),
    ];
    if let Some(support) = tables::support_csv(&result) {
        files.push(("support.csv", support));
    }
    for (name, text) in &files {
        let path = args.out.join(name);
        atomic::write(&path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    eprintln!("wrote {} files to {}", files.len(), args.out.display());
    Ok(())
}

/// Reads a spec and, for `forward` from a CSV log, the log (relative to the spec file).
fn load(path: &Path) -> Result<(PomSpec, Option<String>), Failure> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read POM spec {}", path.display()))
        .map_err(input)?;
    let spec = PomSpec::from_json(&text).with_context(|| format!("POM spec {}", path.display())).map_err(input)?;
    let csv = match spec.forward.as_ref().and_then(|f| f.csv.as_ref()) {
        Some(name) if spec.mode == vsr2d::pom::spec::Mode::Forward => {
            let log = path.parent().unwrap_or(Path::new(".")).join(name);
            let text = std::fs::read_to_string(&log)
                .with_context(|| format!("cannot read forward.csv {}", log.display()))
                .map_err(input)?;
            Some(text)
        }
        _ => None,
    };
    Ok((spec, csv))
}
