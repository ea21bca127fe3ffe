//! The README's (and its user guide's) scenarios and quoted figures are the code's: every JSON example (scenario or evolution
//! experiment) parses, and the gait
//! table's velocities, the MLP example's velocity and the letters' fold errors are what `simulate`
//! gives today.

use std::path::Path;

use vsr2d::scenario::Scenario;

/// The README and the user-guide pages that moved out of it, as one text.
fn readme() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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

#[test]
fn every_link_of_the_readme_and_the_guide_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    pages.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in text.split("](").skip(1).filter_map(|rest| rest.split([')', '#', ' ']).next()) {
            if link.is_empty() || link.starts_with("http") || link.starts_with("mailto:") {
                continue;
            }
            let target = page.parent().unwrap().join(link);
            assert!(target.exists(), "{}: link {link} does not resolve", page.display());
        }
    }
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
        // Evolution experiments are the other JSON the README shows.
        let parsed = if block.contains("\"representation\"") {
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
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
    let simulated = x_velocity(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/mlp-worm.json"), 20.0);
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
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/scenarios/cells-fold-{letter}.json"));
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
