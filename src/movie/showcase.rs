//! The bundled showcase: the paper's worm, biped, tripod and two-material robot walking side by side for
//! 20 s. The scenario files are compiled in, so `vsr2d render` with no arguments needs no files on disk.

use crate::render::GridLayout;
use crate::scenario::{Scenario, ScenarioError};

/// Simulated seconds of the showcase.
pub const DURATION_S: f64 = 20.0;

/// The showcase robots: (name, scenario JSON), in grid order (row by row).
pub(crate) const SCENARIOS: [(&str, &str); 4] = [
    ("worm", include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/worm.json"))),
    ("biped", include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/biped.json"))),
    ("tripod", include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/tripod.json"))),
    ("two-material", include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/two-material.json"))),
];

/// The showcase grid: 2 rows × 2 columns.
pub const LAYOUT: GridLayout = GridLayout { cols: 2, rows: 2 };

/// The showcase scenarios, parsed, with their duration set to [`DURATION_S`].
pub fn scenarios() -> Result<Vec<(&'static str, Scenario)>, ScenarioError> {
    SCENARIOS
        .iter()
        .map(|&(name, json)| {
            let mut scenario = Scenario::from_json(json)?;
            scenario.world.duration = DURATION_S;
            Ok((name, scenario))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_scenario_parses_and_builds() {
        let all = scenarios().expect("embedded showcase scenarios parse");
        assert_eq!(all.len(), LAYOUT.cells());
        for (name, scenario) in &all {
            assert_eq!(scenario.world.duration, DURATION_S, "{name}");
            assert_eq!(scenario.robots.len(), 1, "{name}: one robot per showcase cell");
            assert!(scenario.build().is_ok(), "{name} builds");
        }
    }
}
