//! The built-in `pom-quadruped` spec (spec §12): **a reconstruction of the paper's walking robot, not
//! the robot itself** — the paper only draws its actuator, foot and marker placements. Written as JSON
//! so the built-in example goes through the same parser and checks as a user's file.

use super::error::PomError;
use super::spec::PomSpec;

/// Name of the built-in example.
pub const QUADRUPED: &str = "pom-quadruped";

/// The flag every output of the example repeats.
pub(crate) const QUADRUPED_NOTE: &str = "RECONSTRUCTION, not the paper's robot: the 2×2×2 core, two front voxels, four vertical \
actuators (red and yellow as named by the paper, blue and green ours), feet, markers, the diagonal walking direction and \
the gait parameters are this project's reading of the paper's Fig. 5 (spec §12)";

const QUADRUPED_JSON: &str = r###"{
  "lattice": {
    "pitch": 0.0762,
    "numbering": "pfea",
    "layers": { "z0": ["##", "##"], "z1": ["##", "##"] },
    "mass_voxels": [[2, 1, 0], [1, 2, 0]],
    "extensions": [
      { "id": "front_r", "attach": { "voxel": [1, 1, 0], "node": 3 }, "offset": [0.0381, 0, -0.0381] },
      { "id": "front_l", "attach": { "voxel": [1, 1, 0], "node": 4 }, "offset": [0, 0.0381, -0.0381] }
    ]
  },
  "controls": [
    { "id": "red", "voxel": [0, 1, 1], "node": 0, "push": "+z", "partner": { "voxel": [0, 1, 0], "node": 0 } },
    { "id": "yellow", "voxel": [0, 0, 1], "node": 1, "push": "+z", "partner": { "voxel": [0, 0, 0], "node": 1 } },
    { "id": "blue", "voxel": [0, 0, 1], "node": 0, "push": "+z", "partner": { "voxel": [0, 0, 0], "node": 0 } },
    { "id": "green", "voxel": [1, 0, 1], "node": 1, "push": "+z", "partner": { "voxel": [1, 0, 0], "node": 1 } }
  ],
  "effectors": [
    { "id": "foot_bl", "voxel": [0, 1, 0], "node": 2, "role": "foot" },
    { "id": "foot_br", "voxel": [1, 0, 0], "node": 2, "role": "foot" },
    { "id": "foot_fr", "extension": "front_r", "role": "foot" },
    { "id": "foot_fl", "extension": "front_l", "role": "foot" },
    { "id": "m1", "voxel": [0, 1, 1], "node": 5, "role": "marker" },
    { "id": "m2", "voxel": [0, 0, 1], "node": 5, "role": "marker" },
    { "id": "m3", "voxel": [1, 1, 1], "node": 5, "role": "marker" },
    { "id": "m4", "voxel": [1, 0, 1], "node": 5, "role": "marker" }
  ],
  "mode": "gait",
  "dt": 0.05,
  "gait": { "type": "tripod", "lift": 0.004, "stride": 0.004, "period": 8, "order": ["foot_fr", "foot_fl"],
            "cycles": 2, "ground_tol": 0.0001 }
}"###;

/// The `pom-quadruped` spec, flagged as a reconstruction.
pub fn quadruped() -> Result<PomSpec, PomError> {
    let mut spec = PomSpec::from_json(QUADRUPED_JSON)?;
    spec.reconstruction = Some(QUADRUPED_NOTE.to_string());
    Ok(spec)
}

/// A built-in example by name.
pub fn by_name(name: &str) -> Result<PomSpec, PomError> {
    match name {
        QUADRUPED => quadruped(),
        other => Err(PomError::invalid("--example", format!("no built-in example {other:?}: use `{QUADRUPED}`"))),
    }
}
