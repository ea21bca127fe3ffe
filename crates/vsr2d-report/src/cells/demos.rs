//! Section 4 of the cells report (spec `cells.md` §15 item 4, the paper's Fig. 2): the demonstrations,
//! run from the fixtures as they are in this checkout (`include_str!`, so a rebuilt report picks up a
//! changed fixture): a cell dropped on the ground at C 50 and C 450, two cells connecting and released,
//! and the 8-cell muscle chain. Each run's series come from its snapshots through
//! [`vsr2d::batch::simulate`]; filmstrips and videos come from the study's media helpers, which draw
//! with the renderer `vsr2d render` uses.

use std::f64::consts::PI;
use std::sync::Arc;

use serde::Serialize;

use vsr2d::scenario::{Scenario, ScenarioError};
use vsr2d::snapshot::{Flow, ListenerError, Snapshot, SnapshotListener};

/// The fixtures, as compiled in.
pub const CELL_SINGLE_JSON: &str = include_str!("../../../../fixtures/scenarios/cell-single.json");
pub const CELLS_CONNECT_JSON: &str = include_str!("../../../../fixtures/scenarios/cells-connect.json");
pub const CELLS_MUSCLE_CHAIN_JSON: &str = include_str!("../../../../fixtures/scenarios/cells-muscle-chain.json");
/// C of the two bounce runs (spec §15 item 4a).
pub const BOUNCE_C: [f64; 2] = [50.0, 450.0];

/// A demonstration that could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("demo {name}: {source}")]
    Scenario { name: String, source: ScenarioError },
    #[error("demo {name}: {source}")]
    Sim { name: String, source: vsr2d::task::RunError },
    #[error("demo {name}: the fixture is not the JSON expected: {message}")]
    Fixture { name: String, message: String },
}

/// Every snapshot's time and the quantities a demo plots.
#[derive(Default)]
struct Recorder {
    t: Vec<f64>,
    rows: Vec<Vec<f64>>,
    pick: Option<Box<dyn FnMut(&Snapshot) -> Vec<f64>>>,
    last: Option<Arc<Snapshot>>,
    max_perimeter_error: f64,
}

impl SnapshotListener for Recorder {
    fn on_snapshot(&mut self, s: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self.t.push(s.t);
        if let Some(pick) = self.pick.as_mut() {
            self.rows.push(pick(s));
        }
        self.max_perimeter_error = s.cells().map(|c| c.perimeter_error).fold(self.max_perimeter_error, f64::max);
        self.last = Some(Arc::clone(s));
        Ok(Flow::Continue)
    }
}

fn simulate(
    name: &str,
    scenario: &Scenario,
    pick: impl FnMut(&Snapshot) -> Vec<f64> + 'static,
) -> Result<Recorder, DemoError> {
    let sim = scenario.build().map_err(|source| DemoError::Scenario { name: name.into(), source })?;
    let mut rec = Recorder { pick: Some(Box::new(pick)), ..Recorder::default() };
    vsr2d::batch::simulate(sim, &mut [&mut rec]).map_err(|source| DemoError::Sim { name: name.into(), source })?;
    Ok(rec)
}

fn parse(name: &str, json: &serde_json::Value) -> Result<Scenario, DemoError> {
    Scenario::from_json(&json.to_string()).map_err(|source| DemoError::Scenario { name: name.into(), source })
}

fn value(name: &str, text: &str) -> Result<serde_json::Value, DemoError> {
    serde_json::from_str(text).map_err(|e| DemoError::Fixture { name: name.into(), message: e.to_string() })
}

/// The bounce fixture (`cell-single.json`) with every cell type at pressure `c`.
pub fn bounce_scenario(c: f64) -> Result<Scenario, DemoError> {
    let name = format!("bounce C {c}");
    let mut v = value(&name, CELL_SINGLE_JSON)?;
    let types = v
        .get_mut("cell_types")
        .and_then(|t| t.as_object_mut())
        .ok_or_else(|| DemoError::Fixture { name: name.clone(), message: "no `cell_types` object".into() })?;
    for (_, t) in types.iter_mut() {
        if let Some(o) = t.as_object_mut() {
            o.insert("pressure".into(), serde_json::json!(c));
        }
    }
    parse(&name, &v)
}

pub fn connect_scenario() -> Result<Scenario, DemoError> {
    parse("connect", &value("connect", CELLS_CONNECT_JSON)?)
}

pub fn chain_scenario() -> Result<Scenario, DemoError> {
    parse("muscle chain", &value("muscle chain", CELLS_MUSCLE_CHAIN_JSON)?)
}

/// The first schedule time of an entry holding `key` (with `key = value` when given).
fn schedule_time(text: &str, key: &str, value_is: Option<&str>) -> Option<f64> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("schedule")?
        .as_array()?
        .iter()
        .filter(|e| e.get(key).is_some_and(|x| value_is.is_none_or(|want| x.as_str() == Some(want))))
        .filter_map(|e| e.get("t")?.as_f64())
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.min(t))))
}

/// One bounce run.
#[derive(Debug, Clone, Serialize)]
pub struct BounceRun {
    pub pressure: f64,
    pub t: Vec<f64>,
    /// 1 − H/W of the cell's bounding box (body circles), ours.
    pub flattening: Vec<f64>,
    pub area_ratio: Vec<f64>,
    pub peak_flattening: f64,
    pub peak_t: f64,
    pub max_perimeter_error: f64,
    pub duration: f64,
}

/// The two-cell connect-and-release run.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectRun {
    pub t: Vec<f64>,
    pub distance: Vec<f64>,
    pub pairs: Vec<f64>,
    /// When the fixture switches a connector off (and pushes).
    pub release_t: Option<f64>,
    pub pairs_before_release: usize,
    pub pairs_at_end: usize,
    pub distance_at_release: Option<f64>,
    pub distance_at_end: f64,
    pub min_distance: f64,
    pub max_perimeter_error: f64,
}

/// The muscle chain.
#[derive(Debug, Clone, Serialize)]
pub struct ChainRun {
    pub cells: usize,
    pub t: Vec<f64>,
    /// The turn from the first link's direction (centre 0 → 1) to the last's (n−2 → n−1), degrees.
    pub angle_deg: Vec<f64>,
    /// Largest |angle − angle(0)|, degrees.
    pub angle_change_deg: f64,
    /// When the schedule first commands a muscle.
    pub muscle_t: Option<f64>,
    pub max_perimeter_error: f64,
}

/// The idle-muscle check (spec §16): the dropped cell of `cell-single.json` as it is and with a spring
/// muscle across it (bodies 12 ↔ 88) that is never commanded (ℓ = 1).
#[derive(Debug, Clone, Serialize)]
pub struct IdleRun {
    /// Mean A/A₀ over the run and its value at the end, without and with the muscle.
    pub mean_without: f64,
    pub mean_with: f64,
    pub end_without: f64,
    pub end_with: f64,
}

impl IdleRun {
    /// The larger relative change, mean or end.
    pub fn change(&self) -> f64 {
        ((self.mean_with - self.mean_without) / self.mean_without)
            .abs()
            .max(((self.end_with - self.end_without) / self.end_without).abs())
    }
}

pub fn run_idle() -> Result<IdleRun, DemoError> {
    let name = "idle muscle";
    let mut v = value(name, CELL_SINGLE_JSON)?;
    let plain = parse(name, &v)?;
    let cell = v
        .get_mut("cells")
        .and_then(|c| c.get_mut(0))
        .and_then(|c| c.as_object_mut())
        .ok_or_else(|| DemoError::Fixture { name: name.into(), message: "no `cells[0]` object".into() })?;
    cell.insert("muscles".into(), serde_json::json!([{ "id": "idle", "kind": "spring", "from": 12, "to": 88 }]));
    let muscled = parse(name, &v)?;
    let area = |s: &Scenario| -> Result<(f64, f64), DemoError> {
        let rec = simulate(name, s, |s| vec![s.cells().next().map_or(f64::NAN, |c| c.area_ratio)])?;
        let a: Vec<f64> = rec.rows.iter().map(|r| r[0]).collect();
        Ok((a.iter().sum::<f64>() / a.len().max(1) as f64, a.last().copied().unwrap_or(f64::NAN)))
    };
    let ((mean_without, end_without), (mean_with, end_with)) = (area(&plain)?, area(&muscled)?);
    Ok(IdleRun { mean_without, mean_with, end_without, end_with })
}

fn flattening(s: &Snapshot) -> Vec<f64> {
    s.cells()
        .next()
        .map(|c| {
            let (w, h) = (c.bbox.max.x - c.bbox.min.x, c.bbox.max.y - c.bbox.min.y);
            vec![1.0 - h / w, c.area_ratio]
        })
        .unwrap_or_else(|| vec![f64::NAN, f64::NAN])
}

pub fn run_bounce(c: f64) -> Result<(BounceRun, Option<Arc<Snapshot>>), DemoError> {
    let s = bounce_scenario(c)?;
    let rec = simulate(&format!("bounce C {c}"), &s, flattening)?;
    let flat: Vec<f64> = rec.rows.iter().map(|r| r[0]).collect();
    let (k, peak) =
        flat.iter().copied().enumerate().fold((0, f64::NEG_INFINITY), |m, (i, f)| if f > m.1 { (i, f) } else { m });
    Ok((
        BounceRun {
            pressure: c,
            peak_t: rec.t.get(k).copied().unwrap_or(0.0),
            area_ratio: rec.rows.iter().map(|r| r[1]).collect(),
            flattening: flat,
            peak_flattening: peak,
            max_perimeter_error: rec.max_perimeter_error,
            duration: s.world.duration,
            t: rec.t,
        },
        rec.last,
    ))
}

pub fn run_connect() -> Result<ConnectRun, DemoError> {
    let s = connect_scenario()?;
    let rec = simulate("connect", &s, |s| {
        let cells: Vec<_> = s.cells().collect();
        let d = if cells.len() >= 2 { (cells[0].center - cells[1].center).length() } else { f64::NAN };
        vec![d, cells.iter().map(|c| c.pairs.len()).sum::<usize>() as f64]
    })?;
    let release_t = schedule_time(CELLS_CONNECT_JSON, "switch", Some("off"));
    let distance: Vec<f64> = rec.rows.iter().map(|r| r[0]).collect();
    let pairs: Vec<f64> = rec.rows.iter().map(|r| r[1]).collect();
    let before = |t: f64| release_t.is_none_or(|r| t < r);
    let pairs_before_release =
        rec.t.iter().zip(&pairs).filter(|(t, _)| before(**t)).map(|(_, p)| *p as usize).max().unwrap_or(0);
    let distance_at_release =
        release_t.and_then(|r| rec.t.iter().zip(&distance).filter(|(t, _)| **t <= r).map(|(_, d)| *d).last());
    Ok(ConnectRun {
        release_t,
        pairs_before_release,
        pairs_at_end: pairs.last().map_or(0, |p| *p as usize),
        distance_at_release,
        distance_at_end: distance.last().copied().unwrap_or(f64::NAN),
        min_distance: distance.iter().copied().fold(f64::INFINITY, f64::min),
        max_perimeter_error: rec.max_perimeter_error,
        t: rec.t,
        distance,
        pairs,
    })
}

pub fn run_chain() -> Result<ChainRun, DemoError> {
    let s = chain_scenario()?;
    let muscle_t = schedule_time(CELLS_MUSCLE_CHAIN_JSON, "muscle", None);
    let rec = simulate("muscle chain", &s, |s| {
        let c: Vec<_> = s.cells().collect();
        let n = c.len();
        let angle = if n >= 3 {
            let a = c[1].center - c[0].center;
            let b = c[n - 1].center - c[n - 2].center;
            let turn = b.y.atan2(b.x) - a.y.atan2(a.x);
            ((turn + PI).rem_euclid(2.0 * PI) - PI).to_degrees()
        } else {
            f64::NAN
        };
        vec![angle, n as f64]
    })?;
    let angle_deg: Vec<f64> = rec.rows.iter().map(|r| r[0]).collect();
    let a0 = angle_deg.first().copied().unwrap_or(f64::NAN);
    Ok(ChainRun {
        cells: rec.rows.first().map_or(0, |r| r[1] as usize),
        angle_change_deg: angle_deg.iter().map(|a| (a - a0).abs()).fold(0.0, f64::max),
        muscle_t,
        max_perimeter_error: rec.max_perimeter_error,
        t: rec.t,
        angle_deg,
    })
}

/// Two runs of the C 50 bounce compared bit for bit (spec §16, determinism).
#[derive(Debug, Clone, Serialize)]
pub struct Determinism {
    pub scenario: String,
    pub identical: bool,
    pub steps: u64,
}

/// Everything section 4 measured.
#[derive(Debug, Clone, Serialize)]
pub struct DemoData {
    pub bounce: Vec<BounceRun>,
    pub connect: ConnectRun,
    pub chain: ChainRun,
    pub idle: IdleRun,
    pub determinism: Determinism,
}

impl DemoData {
    pub fn run() -> Result<DemoData, DemoError> {
        let mut bounce = Vec::new();
        let mut first_last = None;
        for c in BOUNCE_C {
            let (run, last) = run_bounce(c)?;
            if first_last.is_none() {
                first_last = Some((run.clone(), last));
            }
            bounce.push(run);
        }
        let (again, again_last) = run_bounce(BOUNCE_C[0])?;
        let (first, first_last) = first_last.expect("BOUNCE_C is not empty");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let snap = |s: &Option<Arc<Snapshot>>| s.as_ref().and_then(|s| serde_json::to_string(&**s).ok());
        let identical = bits(&first.flattening) == bits(&again.flattening)
            && bits(&first.area_ratio) == bits(&again.area_ratio)
            && snap(&first_last).is_some()
            && snap(&first_last) == snap(&again_last);
        let steps = first_last.as_ref().map_or(0, |s| s.step);
        Ok(DemoData {
            bounce,
            connect: run_connect()?,
            chain: run_chain()?,
            idle: run_idle()?,
            determinism: Determinism { scenario: format!("cell-single.json at C {}", BOUNCE_C[0]), identical, steps },
        })
    }
}
