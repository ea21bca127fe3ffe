//! The README's (and its user guide's) scenarios and quoted figures are the code's: every JSON example (scenario or evolution
//! experiment) parses, and the gait
//! table's velocities, the MLP example's velocity and the letters' fold errors are what `simulate`
//! gives today.

use std::path::Path;

use vsr2d::scenario::Scenario;

/// The README and the user-guide pages that moved out of it, as one text.
fn readme() -> String {
    let root = Path::new(crate::ROOT);
    let pages = [
        "README.md",
        "docs/commands.md",
        "docs/scenarios.md",
        "docs/clusters.md",
        "docs/evolution.md",
        "docs/studies.md",
        "docs/python.md",
        "docs/cells.md",
        "docs/model.md",
        "docs/architecture.md",
        "docs/golden-images.md",
        "docs/testing.md",
        "docs/benchmarks.md",
    ];
    pages.iter().map(|p| std::fs::read_to_string(root.join(p)).unwrap()).collect::<Vec<_>>().join("\n")
}

/// The anchors of a Markdown page: its headings' GitHub slugs (lower case; letters, digits, `-`
/// and `_` kept, spaces to `-`, the rest dropped; repeats numbered `-1`, `-2`) and explicit `id="…"`.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        if let Some(heading) = line.trim_start_matches('#').strip_prefix(' ').filter(|_| line.starts_with('#')) {
            let mut slug = String::new();
            for c in heading.trim().to_lowercase().chars() {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    slug.push(c);
                } else if c == ' ' {
                    slug.push('-');
                }
            }
            let repeats = out.iter().filter(|a| **a == slug || a.starts_with(&format!("{slug}-"))).count();
            out.push(if repeats == 0 { slug.clone() } else { format!("{slug}-{repeats}") });
            out.push(slug);
        }
        for part in line.split("id=\"").skip(1) {
            out.extend(part.split('"').next().map(str::to_string));
        }
    }
    out
}

#[test]
fn every_link_of_the_readme_and_the_guide_resolves() {
    let root = Path::new(crate::ROOT);
    let mut pages = vec![root.join("README.md")];
    pages.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut broken = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in text.split("](").skip(1).filter_map(|rest| rest.split([')', ' ']).next()) {
            if link.is_empty() || link.starts_with("http") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            if !target.exists() {
                broken.push(format!("{}: link {link} does not resolve", page.display()));
                continue;
            }
            // A named section must exist in the page linked to (Markdown pages only).
            if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let sections = anchors(&std::fs::read_to_string(&target).unwrap());
                if !sections.iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{}: link {link}: {} has no section #{anchor}",
                        page.display(),
                        target.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

fn x_velocity(path: &Path, duration: f64) -> f64 {
    let mut scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    scenario.world.duration = duration;
    scenario.build().unwrap().evaluate().unwrap().robots[0].x_velocity
}

/// `0.61 m/s` or `−0.005 m/s` → the value and its number of decimals.
fn quoted(cell: &str) -> (f64, usize) {
    let text = cell.trim().trim_end_matches("m/s").trim().replace('−', "-");
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
    (text.parse().unwrap_or_else(|_| panic!("not a velocity: {cell:?}")), decimals)
}

#[test]
fn every_json_example_in_the_readme_is_a_valid_scenario() {
    let text = readme();
    let blocks: Vec<&str> = text.split("```json\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 2, "the README shows scenario examples");
    for block in blocks {
        // Evolution experiments and check manifests are the other JSON the README shows.
        let parsed = if block.contains("\"cases\"") {
            // A `vsr2d check` manifest (docs/golden-images.md).
            vsr2d::check::Manifest::from_json(block).map(|_| ()).map_err(|e| e.to_string())
        } else if block.contains("\"representation\"") {
            vsr2d::evolve::experiment::Experiment::from_json(block).map(|_| ()).map_err(|e| e.to_string())
        } else {
            Scenario::from_json(block).map(|_| ()).map_err(|e| e.to_string())
        };
        if let Err(e) = parsed {
            panic!("README example does not parse: {e}\n{block}");
        }
    }
}

#[test]
fn the_gait_table_quotes_what_simulate_gives() {
    let root = Path::new(crate::ROOT).join("fixtures/scenarios");
    let text = readme();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains(".json` |") && l.ends_with("m/s |"))
        .map(|l| l.trim_matches('|').split(" | ").collect())
        .collect();
    assert_eq!(rows.len(), 6, "one row per fixture");
    for row in rows {
        let name = row[0].trim().trim_matches('`');
        for (column, duration) in [(row.len() - 2, 20.0), (row.len() - 1, 60.0)] {
            let (value, decimals) = quoted(row[column]);
            let simulated = x_velocity(&root.join(name), duration);
            let shown = format!("{simulated:.decimals$}");
            assert!(
                shown.parse::<f64>().unwrap() == value,
                "{name} at {duration} s: README says {value}, simulate gives {simulated} ({shown})"
            );
        }
    }
}

#[test]
fn the_mlp_example_walks_as_quoted() {
    let text = readme();
    let quoted_line =
        text.lines().find(|l| l.contains("reports `\"x_velocity\": ")).expect("the MLP example quotes its velocity");
    let value: f64 = quoted_line.split("\"x_velocity\": ").nth(1).unwrap().split('`').next().unwrap().parse().unwrap();
    let simulated = x_velocity(&Path::new(crate::ROOT).join("docs/examples/mlp-worm.json"), 20.0);
    assert_eq!(simulated, value, "bit-identical runs: the README must quote today's value");
}

#[test]
fn the_fold_errors_quoted_are_what_simulate_gives() {
    let text = readme();
    let at = text.find("final error L ").expect("the README quotes the letters' final errors");
    let quote = &text[at + "final error ".len()..];
    let quote = quote[..quote.find(" (open chain").unwrap()].replace('\n', " ");
    let mut seen = 0;
    for item in quote.split(", ") {
        let (letter, value) = item.trim().split_once(' ').unwrap();
        let value = value.trim_end_matches("·D");
        let decimals = value.split_once('.').map_or(0, |(_, d)| d.len());
        let path = Path::new(crate::ROOT).join(format!("fixtures/scenarios/cells-fold-{letter}.json"));
        let scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        let out = vsr2d::batch::evaluate(&scenario).unwrap();
        let Some(vsr2d::task::TaskMetrics::Fold(fold)) = out.task else { panic!("a fold result") };
        let measured = fold[0].final_error;
        let quoted: f64 = value.parse().unwrap();
        assert!(
            (measured - quoted).abs() <= 0.5 * 10f64.powi(-(decimals as i32)) + 1e-12,
            "{letter}: README says {quoted}·D, simulate gives {measured}"
        );
        seen += 1;
    }
    assert_eq!(seen, 4, "{quote}");
}

/// The shell commands of a README section's ```sh blocks, each with the output lines quoted under it
/// (comment lines `#   text`, where `...` stands for anything).
fn section_commands(text: &str, heading: &str) -> Vec<(String, Vec<String>)> {
    let start = text.find(heading).unwrap_or_else(|| panic!("the README has a section {heading:?}"));
    let rest = &text[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for block in section.split("```sh\n").skip(1) {
        for line in block.split("```").next().unwrap().lines().map(str::trim) {
            if let Some(quoted) = line.strip_prefix("#   ") {
                out.last_mut().expect("a quote follows a command").1.push(quoted.to_string());
            } else if !line.is_empty() && !line.starts_with('#') {
                out.push((line.to_string(), Vec::new()));
            }
        }
    }
    out
}

/// Runs `commands` (with their quoted output lines) in `dir`, without a display, and asserts each
/// succeeds and prints what is quoted under it (`...` standing for anything).
fn run_as_written(dir: &Path, path: &std::ffi::OsStr, commands: &[(String, Vec<String>)]) {
    for (command, quoted) in commands {
        let out = std::process::Command::new("bash")
            .args(["-eo", "pipefail", "-c", command])
            .current_dir(dir)
            .env("PATH", path)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "`{command}` failed:\n{printed}");
        // Whitespace aside (the README folds pretty-printed JSON onto one line).
        let squeeze = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let flat = squeeze(&printed);
        for quote in quoted {
            // `...` stands for anything: the pieces between must appear in order.
            let mut at = 0;
            for piece in quote.split("...").map(squeeze).filter(|p| !p.is_empty()) {
                let found = flat[at..].find(&piece);
                assert!(found.is_some(), "`{command}`: the page quotes {quote:?}, the output is:\n{printed}");
                at += found.unwrap() + piece.len();
            }
        }
    }
}

/// The README's first five minutes and its "Problems you won't have" evidence, run as written with
/// the binary cargo built (as `./target/release/vsr2d`) in a scratch directory that sees the
/// repository's fixtures, without a display; every quoted output line is in the command's output.
#[test]
fn the_first_five_minutes_run_as_written() {
    let root = Path::new(crate::ROOT);
    let text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut commands = section_commands(&text, "## The first five minutes");
    assert!(commands.len() >= 4, "simulate, render, evolve, view: {commands:?}");
    commands.extend(section_commands(&text, "## Problems you won't have"));
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("fixtures"), dir.path().join("fixtures")).unwrap();
    std::fs::create_dir_all(dir.path().join("target/release")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_vsr2d"), dir.path().join("target/release/vsr2d")).unwrap();
    run_as_written(dir.path(), &std::env::var_os("PATH").unwrap_or_default(), &commands);
    // What the commands promise: the pictures of the run, and an mp4 that starts playing at once
    // (`+faststart`: the index, moov, before the media data, mdat).
    for file in ["jumping.mp4", "jump-run/fitness.png", "jump-run/best.mp4", "best.html", "jump.png", "top3.png"] {
        assert!(dir.path().join(file).is_file(), "{file} was not written");
    }
    let mp4 = std::fs::read(dir.path().join("jumping.mp4")).unwrap();
    let find = |tag: &[u8]| mp4.windows(4).position(|w| w == tag).unwrap_or_else(|| panic!("no {tag:?} box"));
    assert!(find(b"moov") < find(b"mdat"), "the mp4's index comes first");
}

/// The guide pages written as command walk-throughs (rendering, POM, reports): every ```sh block runs
/// as written from the repository's root, with `vsr2d` on the PATH (as the pages assume), in a
/// scratch directory that sees the repository's fixtures and docs; quoted output lines must appear.
#[test]
fn the_guide_pages_run_as_written() {
    let root = Path::new(crate::ROOT);
    let dir = tempfile::tempdir().unwrap();
    for shared in ["fixtures", "docs"] {
        std::os::unix::fs::symlink(root.join(shared), dir.path().join(shared)).unwrap();
    }
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_vsr2d"), bin.join("vsr2d")).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    for page in ["docs/rendering.md", "docs/pom.md", "docs/reports.md"] {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        let commands: Vec<_> =
            text.split("\n## ").flat_map(|section| section_commands(&format!("\n## {section}"), "\n## ")).collect();
        assert!(!commands.is_empty(), "{page} has commands");
        run_as_written(dir.path(), &path, &commands);
    }
    for file in [
        "biped.mp4",
        "two-material.gif",
        "carrying.png",
        "worm-strip.png",
        "showcase-paper.svg",
        "showcase-paper.pdf",
        "climbing-strip.pdf",
        "worm-springs.mp4",
        "top3.png",
        "archive-grid.png",
        "archive-grid.mp4",
        "map-elites-run/archive.png",
        "front-grid.png",
        "nsga2-run/front.png",
    ] {
        assert!(dir.path().join(file).is_file(), "docs/rendering.md: {file} was not written");
    }
    for file in ["pom-report/index.html", "fig1-report/J.csv", "align-report/index.html", "cantilever-quick/index.html"]
    {
        assert!(dir.path().join(file).is_file(), "{file} was not written");
    }
}
