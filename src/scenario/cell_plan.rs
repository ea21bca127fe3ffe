//! The cells of a scenario resolved (spec `cells.md` §4–§6, §9, §10): [`plan`] checks the cells, their
//! connectors and muscles, the connector types and interactions, the chains (with their folding
//! programs), the links and the schedule, phase by phase (errors name the JSON path and the fix), and
//! resolves names to the indices the world uses. The JSON side is in [`super::cell_parts`] and
//! [`super::cells`].

use std::collections::BTreeMap;

use super::cell_parts::{
    stop_type_name, ChainJoints, ChainSpec, ConnectorTypeSpec, Edge, EventSpec, InteractionSpec, LinkKindSpec,
    LinkSpec, NearCapRule, NearCapSpec,
};
use super::cells::{resolve_type, CellSpec, CellTypeSpec, MuscleJson, Switch};
use super::{ScenarioError, MAX_POSITION};
use crate::geom::{compact, Vec2};
use crate::model::cell::connector::{self, ConnectorParams, MU_0};
use crate::model::cell::fold::{self, Design, Program, Site, SiteKind, StopChain};
use crate::model::cell::muscle::MuscleKind;
use crate::model::cell::{CellParams, CellPreset};
use crate::sim::{CellAction, CellEvent, ConnectorType, LinkKind, MuscleSpec};
use crate::snapshot::BodyId;

/// A cell to build (the scenario's cells, then the chains' cells).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCell {
    pub id: String,
    pub type_name: String,
    pub params: CellParams,
    pub position: Vec2,
    pub rotation: f64,
}

/// A connector to build: cell index in [`CellPlan::cells`], name, body, type index, switched on.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedConnector {
    pub cell: usize,
    pub name: String,
    pub body: usize,
    pub kind: usize,
    pub on: bool,
}

/// Everything about cells, resolved: cell ids become indices (add the id of the first cell to get a
/// [`BodyId`]), type names become type indices, selectors become lists.
#[derive(Debug, Clone, PartialEq)]
pub struct CellPlan {
    pub cells: Vec<PlannedCell>,
    pub connector_types: Vec<ConnectorType>,
    pub strengths: Vec<Vec<f64>>,
    pub connectors: Vec<PlannedConnector>,
    /// `cell` holds the cell index (as a `BodyId` relative to the first cell).
    pub muscles: Vec<MuscleSpec>,
    pub links: Vec<(LinkKind, (usize, usize), (usize, usize))>,
    /// Cells in actions hold cell indices like `muscles`.
    pub events: Vec<CellEvent>,
    /// The chains with a folding program.
    pub folds: Vec<PlannedFold>,
}

/// A chain with a folding program: its cells are `first .. first + program.cells()` of
/// [`CellPlan::cells`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedFold {
    pub chain: String,
    pub first: usize,
    pub program: Program,
    pub sites: Vec<Site>,
    /// With `joints: stops`, the joints' stops and the cells' pin offsets ([`Program::stop_chain`]).
    pub stops: Option<StopChain>,
    /// The chain's centre spacing d_c and the cells' diameter D, m.
    pub pitch: f64,
    pub diameter: f64,
    /// Every site connector: which chain cell carries it, its name, the chain cell it attracts.
    pub connectors: Vec<FoldConnector>,
}

/// One connector of a folding site.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldConnector {
    pub cell: usize,
    pub name: String,
    pub partner: usize,
    pub kind: SiteKind,
}

impl CellPlan {
    /// Moves every cell reference by `first` (the id of the first cell in the world).
    pub fn offset(mut self, first: usize) -> CellPlan {
        for m in &mut self.muscles {
            m.cell = BodyId(m.cell.0 + first);
        }
        for e in &mut self.events {
            match &mut e.action {
                CellAction::Pressure { cell, .. }
                | CellAction::RestAreaScale { cell, .. }
                | CellAction::Push { cell, .. } => *cell = BodyId(cell.0 + first),
                CellAction::Switch { .. } | CellAction::Muscle { .. } => {}
            }
        }
        self
    }
}

fn at(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError::At { path: path.into(), message: message.into() }
}

fn finite_in(path: &str, value: f64, lo: f64, hi: f64, what: &str) -> Result<(), ScenarioError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(at(path, format!("{} is out of range: {what}", compact(value))))
    }
}

fn positive(path: &str, value: f64, what: &str) -> Result<(), ScenarioError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(at(path, format!("{} is invalid: {what} must be finite and > 0", compact(value))))
    }
}

/// The parts of a scenario [`plan`] reads.
pub struct CellInput<'a> {
    pub cell_types: &'a BTreeMap<String, CellTypeSpec>,
    pub cells: &'a [CellSpec],
    pub connector_types: &'a BTreeMap<String, ConnectorTypeSpec>,
    pub interactions: &'a [InteractionSpec],
    pub links: &'a [LinkSpec],
    pub chains: &'a [ChainSpec],
    pub schedule: &'a [EventSpec],
}

#[cfg(test)]
thread_local! {
    /// How many times [`plan`] ran on this thread: a test checks that a run plans its cells once.
    pub(crate) static PLANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times [`plan`] ran on this thread so far.
#[cfg(test)]
pub(crate) fn plans() -> usize {
    PLANS.with(|n| n.get())
}

/// Checks and resolves the cells' connectors, muscles, links, chains and schedule, phase by phase in
/// this order (a scenario with several problems is refused for the first one met).
pub fn plan(input: &CellInput<'_>) -> Result<CellPlan, ScenarioError> {
    #[cfg(test)]
    PLANS.with(|n| n.set(n.get() + 1));
    let mut planner = Planner::new(input)?;
    for (k, chain) in input.chains.iter().enumerate() {
        planner.chain_program(k, chain)?;
    }
    planner.strengths()?;
    for (k, chain) in input.chains.iter().enumerate() {
        planner.lay_chain(k, chain)?;
    }
    planner.check_chain_overlaps()?;
    planner.cell_connectors()?;
    planner.fold_connectors()?;
    planner.muscles()?;
    for (k, link) in input.links.iter().enumerate() {
        planner.link(k, link)?;
    }
    for (k, event) in input.schedule.iter().enumerate() {
        planner.event(k, event)?;
    }
    let Planner { cells, connector_types, strengths, connectors, muscles, links, events, folds, .. } = planner;
    Ok(CellPlan { cells, connector_types, strengths, connectors, muscles, links, events, folds })
}

/// The plan as it is built: each phase of [`plan`] reads what the earlier ones resolved.
struct Planner<'a> {
    input: &'a CellInput<'a>,
    /// The scenario's cells, then (from [`Planner::lay_chain`]) the chains' cells.
    cells: Vec<PlannedCell>,
    /// The scenario's types in key order (the colour order), then the folding programs' site types.
    connector_types: Vec<ConnectorType>,
    /// Per chain: its folding program with its sites, and its stop chain (`joints: stops`).
    programs: Vec<Option<(Program, Vec<Site>)>>,
    stops: Vec<Option<StopChain>>,
    /// Each stop joint's sites get a connector type of their own, `fold-bend.<j>`, that does not attract
    /// the other joints' (ours): a cell carries two joints' fans, and each must close its own joint.
    stop_types: Vec<usize>,
    /// A_ab of every pair of connector types.
    strengths: Vec<Vec<f64>>,
    /// (chain index, cell index) of every chain cell.
    chain_cells: Vec<(usize, usize)>,
    folds: Vec<PlannedFold>,
    links: Vec<(LinkKind, (usize, usize), (usize, usize))>,
    connectors: Vec<PlannedConnector>,
    muscles: Vec<MuscleSpec>,
    events: Vec<CellEvent>,
}

impl<'a> Planner<'a> {
    /// The scenario's cells and connector types.
    fn new(input: &'a CellInput<'a>) -> Result<Self, ScenarioError> {
        let params = super::cells::validate(input.cell_types, input.cells)?;
        let cells = input
            .cells
            .iter()
            .zip(params)
            .map(|(c, p)| PlannedCell {
                id: c.id.clone(),
                type_name: c.cell_type.clone(),
                params: p,
                position: Vec2::new(c.position[0], c.position[1]),
                rotation: c.rotation,
            })
            .collect();
        let connector_types =
            input.connector_types.iter().map(|(name, t)| connector_type(name, t)).collect::<Result<_, _>>()?;
        Ok(Planner {
            input,
            cells,
            connector_types,
            programs: Vec::new(),
            stops: Vec::new(),
            stop_types: Vec::new(),
            strengths: Vec::new(),
            chain_cells: Vec::new(),
            folds: Vec::new(),
            links: Vec::new(),
            connectors: Vec::new(),
            muscles: Vec::new(),
            events: Vec::new(),
        })
    }

    /// Chain `k`'s folding program and its sites (the design's layout, or its stop chain's), with the
    /// program's site types unless the scenario defines them.
    fn chain_program(&mut self, k: usize, ch: &ChainSpec) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("chains[{k}].{f}");
        let Some(name) = &ch.program else {
            if ch.joints == Some(ChainJoints::Stops) {
                return Err(at(path("joints"), "`stops` are set by a folding `program`; add one or remove `joints`"));
            }
            self.programs.push(None);
            self.stops.push(None);
            return Ok(());
        };
        let program = name.strip_prefix("builtin:").and_then(Program::builtin).ok_or_else(|| {
            let known: Vec<String> = fold::builtin_names().iter().map(|n| format!("builtin:{n}")).collect();
            at(path("program"), format!("{name:?} is not a folding program; use one of {known:?}"))
        })?;
        let design = site_design(k, ch)?;
        for kind in SiteKind::ALL {
            let d = design.site(kind);
            if d.angles.is_empty() {
                continue;
            }
            if !self.connector_types.iter().any(|t| t.name == kind.type_name()) {
                self.connector_types.push(ConnectorType {
                    name: kind.type_name().to_string(),
                    params: ConnectorParams {
                        strength: d.strength,
                        radius: d.radius,
                        near_cap: Some(d.near_cap),
                        hidden_mass: 0.0,
                    },
                });
            }
        }
        let stop = (ch.joints == Some(ChainJoints::Stops)).then(|| program.stop_chain());
        let sites = match &stop {
            Some(chain) => program.stop_layout(chain, &design),
            None => program.layout(&design),
        };
        if stop.is_some() {
            let bend = self.connector_types.iter().find(|t| t.name == SiteKind::Bend.type_name()).map(|t| t.params);
            for site in &sites {
                let name = stop_type_name(site.a);
                match self.connector_types.iter().position(|t| t.name == name) {
                    Some(i) => self.stop_types.push(i),
                    None => {
                        self.stop_types.push(self.connector_types.len());
                        self.connector_types.push(ConnectorType { name, params: bend.expect("the bend type exists") });
                    }
                }
            }
        }
        self.stops.push(stop);
        self.programs.push(Some((program, sites)));
        Ok(())
    }

    /// A_ab of every pair of types: √(A_a·A_b), 0 between different stop joints' types, and what
    /// `interactions` says.
    fn strengths(&mut self) -> Result<(), ScenarioError> {
        let types = &self.connector_types;
        let n = types.len();
        let mut strengths = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                strengths[i][j] = connector::default_strength(types[i].params.strength, types[j].params.strength);
            }
        }
        for &i in &self.stop_types {
            for &j in &self.stop_types {
                if i != j {
                    strengths[i][j] = 0.0;
                }
            }
        }
        for (k, it) in self.input.interactions.iter().enumerate() {
            let path = |f: &str| format!("interactions[{k}].{f}");
            let (a, b) = (self.type_index(path("a"), &it.a)?, self.type_index(path("b"), &it.b)?);
            let value = interaction_strength(k, it)?;
            strengths[a][b] = value;
            strengths[b][a] = value;
        }
        self.strengths = strengths;
        Ok(())
    }

    /// The index of connector type `name`.
    fn type_index(&self, path: String, name: &str) -> Result<usize, ScenarioError> {
        let names: Vec<&str> = self.connector_types.iter().map(|t| t.name.as_str()).collect();
        names.iter().position(|k| *k == name).ok_or_else(|| {
            let known = &names;
            at(path, format!("{name:?} is not a key of `connector_types`; use one of {known:?} or add it there"))
        })
    }

    /// Chain `k`'s cells after those built so far, pinned to their neighbours, and its fold.
    fn lay_chain(&mut self, k: usize, ch: &ChainSpec) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("chains[{k}].{f}");
        let cell_types = self.input.cell_types;
        let known_type = |field: &str, name: &str| {
            if cell_types.contains_key(name) {
                Ok(())
            } else {
                let known: Vec<&str> = cell_types.keys().map(String::as_str).collect();
                Err(at(path(field), format!("{name:?} is not a key of `cell_types`; use one of {known:?}")))
            }
        };
        known_type("type", &ch.cell_type)?;
        let p = resolve_type(cell_types, &ch.cell_type)?;
        let program = self.programs[k].as_ref().map(|(program, _)| program);
        let count = chain_length(k, ch, program)?;
        let turn = match &ch.turn_type {
            None => None,
            Some(name) => {
                if program.is_none() {
                    return Err(at(path("turn_type"), "belongs to a chain with a `program`; remove it"));
                }
                known_type("turn_type", name)?;
                let t = resolve_type(cell_types, name)?;
                if t.radius != p.radius || t.bodies != p.bodies {
                    return Err(at(
                        path("turn_type"),
                        format!(
                            "{name:?} has R {} m and N {}, the chain's type R {} m and N {}; a chain's cells share R and N",
                            compact(t.radius),
                            t.bodies,
                            compact(p.radius),
                            p.bodies
                        ),
                    ));
                }
                Some(t)
            }
        };
        check_chain_fields(k, ch, program.is_some())?;
        let pitch = 2.0 * (p.radius + p.body_radius());
        let stops = &self.stops[k];
        // Cell centres and headings relative to the chain's start and direction, in pitches and rad: a
        // straight line of touching cells, or a stop chain laid out with its joints open.
        let (open, headings) = match stops {
            Some(c) => (c.open_centres(), c.open_headings()),
            None => ((0..count).map(|j| Vec2::new(j as f64, 0.0)).collect(), vec![0.0; count]),
        };
        let dir = Vec2::new(ch.direction.cos(), ch.direction.sin());
        let first = self.cells.len();
        for j in 0..count {
            let id = format!("{}.{j}", ch.id);
            if self.cells.iter().any(|c| c.id == id) {
                return Err(at(path("id"), format!("cell id {id:?} of this chain is already taken; rename the chain")));
            }
            let o = open[j] * pitch;
            let position = Vec2::new(ch.start[0], ch.start[1]) + dir * o.x + Vec2::new(-dir.y, dir.x) * o.y;
            let (type_name, params) = match (turn, program) {
                (Some(t), Some(pr)) if pr.is_turn(j) => (ch.turn_type.clone().unwrap_or_default(), t),
                _ => (ch.cell_type.clone(), p),
            };
            self.cells.push(PlannedCell { id, type_name, params, position, rotation: ch.direction + headings[j] });
            self.chain_cells.push((k, self.cells.len() - 1));
        }
        if let Some((program, sites)) = &self.programs[k] {
            self.folds.push(PlannedFold {
                chain: ch.id.clone(),
                first,
                program: program.clone(),
                sites: sites.clone(),
                stops: stops.clone(),
                pitch,
                diameter: 2.0 * p.radius,
                connectors: Vec::new(),
            });
        }
        // Facing bodies: N/4 (on the +θ side after the turn by θ; turned by a stop chain's pin offset)
        // and 3N/4.
        for j in 0..count - 1 {
            let out = stops.as_ref().map_or(p.bodies / 4, |c| fold::body_at(c.offsets[j], p.bodies));
            self.links.push((LinkKind::Pin, (first + j, out), (first + j + 1, 3 * p.bodies / 4)));
        }
        Ok(())
    }

    /// Chain cells must not overlap anything built before them (touching neighbours are fine).
    fn check_chain_overlaps(&self) -> Result<(), ScenarioError> {
        let cells = &self.cells;
        for &(k, i) in &self.chain_cells {
            for j in 0..i {
                let (a, b) = (&cells[i], &cells[j]);
                let need = a.params.radius + a.params.body_radius() + b.params.radius + b.params.body_radius();
                let d = (a.position - b.position).length();
                if d < need * (1.0 - 1e-9) {
                    return Err(at(
                        format!("chains[{k}].start"),
                        format!(
                            "chain cell {:?} overlaps cell {:?} at t = 0: centres {} m apart, at least {} m needed; \
                             move the chain",
                            a.id,
                            b.id,
                            compact(d),
                            compact(need)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The index of the cell with this id (a scenario cell's or a chain cell's `<chain>.<j>`).
    fn find_cell(&self, path: String, id: &str) -> Result<usize, ScenarioError> {
        self.cells.iter().position(|c| c.id == id).ok_or_else(|| {
            at(
                path,
                format!("{id:?} is not a cell id; use the `id` of an entry of `cells` or a chain cell `<chain>.<j>`"),
            )
        })
    }

    /// The scenario cells' own connectors.
    fn cell_connectors(&mut self) -> Result<(), ScenarioError> {
        for (ci, c) in self.input.cells.iter().enumerate() {
            let bodies = self.cells[ci].params.bodies;
            for (k, spec) in c.connectors.iter().enumerate() {
                let path = |f: &str| format!("cells[{ci}].connectors[{k}].{f}");
                let kind = self.type_index(path("type"), &spec.connector_type)?;
                if spec.bodies.is_empty() {
                    return Err(at(path("bodies"), "the list is empty; give at least one body index"));
                }
                for (b, &body) in spec.bodies.iter().enumerate() {
                    if body >= bodies {
                        return Err(at(
                            format!("cells[{ci}].connectors[{k}].bodies[{b}]"),
                            format!("body {body} is out of range: the cell has {bodies} bodies, 0 … {}", bodies - 1),
                        ));
                    }
                    let name = format!("{}{b}", spec.id);
                    if self.connectors.iter().any(|o| o.cell == ci && o.name == name) {
                        return Err(at(
                            path("id"),
                            format!("connector id {name:?} repeats on this cell; use another prefix"),
                        ));
                    }
                    self.connectors.push(PlannedConnector {
                        cell: ci,
                        name,
                        body,
                        kind,
                        on: spec.switch == Switch::On,
                    });
                }
            }
        }
        Ok(())
    }

    /// The folding programs' sites: connector `<kind><partner>.<i>` on each face, switched on at t = 0.
    fn fold_connectors(&mut self) -> Result<(), ScenarioError> {
        let mut folds = std::mem::take(&mut self.folds);
        for fold in &mut folds {
            for site in &fold.sites {
                let type_name = match fold.stops {
                    Some(_) => stop_type_name(site.a),
                    None => site.kind.type_name().to_string(),
                };
                let kind = self.type_index(format!("chains.{}.program", fold.chain), &type_name)?;
                for (cell, other, angles) in [(site.a, site.b, &site.angles_a), (site.b, site.a, &site.angles_b)] {
                    let ci = fold.first + cell;
                    let prefix = site.kind.connector_prefix(other);
                    let taken = self.connectors.iter().filter(|c| c.cell == ci && c.name.starts_with(&prefix)).count();
                    for (m, &angle) in angles.iter().enumerate() {
                        let name = format!("{prefix}{}", taken + m);
                        let body = fold::body_at(angle, self.cells[ci].params.bodies);
                        fold.connectors.push(FoldConnector {
                            cell,
                            name: name.clone(),
                            partner: other,
                            kind: site.kind,
                        });
                        self.connectors.push(PlannedConnector { cell: ci, name, body, kind, on: true });
                    }
                }
            }
        }
        self.folds = folds;
        Ok(())
    }

    /// Muscles: the cells' own, then the chains'.
    fn muscles(&mut self) -> Result<(), ScenarioError> {
        let input = self.input;
        for (ci, c) in input.cells.iter().enumerate() {
            for (k, m) in c.muscles.iter().enumerate() {
                self.add_muscle(format!("cells[{ci}].muscles[{k}]"), ci, m)?;
            }
        }
        for (k, ch) in input.chains.iter().enumerate() {
            let members: Vec<usize> = self.chain_cells.iter().filter(|(c, _)| *c == k).map(|(_, i)| *i).collect();
            let count = members.len();
            let listed: Vec<usize> = ch.muscle_cells.clone().unwrap_or_else(|| (0..count).collect());
            for (q, &j) in listed.iter().enumerate() {
                if j >= count {
                    return Err(at(
                        format!("chains[{k}].muscle_cells[{q}]"),
                        format!("cell {j} is out of range: the chain has {count} cells, 0 … {}", count - 1),
                    ));
                }
                for (mi, m) in ch.muscles.iter().enumerate() {
                    self.add_muscle(format!("chains[{k}].muscles[{mi}]"), members[j], m)?;
                }
            }
        }
        Ok(())
    }

    fn add_muscle(&mut self, path: String, cell: usize, m: &MuscleJson) -> Result<(), ScenarioError> {
        let bodies = self.cells[cell].params.bodies;
        for (f, b) in [("from", m.from), ("to", m.to)] {
            if b >= bodies {
                return Err(at(
                    format!("{path}.{f}"),
                    format!("body {b} is out of range: the cell has {bodies} bodies, 0 … {}", bodies - 1),
                ));
            }
        }
        if m.from == m.to {
            return Err(at(format!("{path}.to"), "a muscle joins two different bodies of its cell"));
        }
        positive(&format!("{path}.hz"), m.hz, "the spring frequency in Hz")?;
        finite_in(&format!("{path}.damping_ratio"), m.damping_ratio, 0.0, 1e3, "a damping ratio ≥ 0")?;
        finite_in(&format!("{path}.min_length"), m.min_length, 1e-3, 1.0, "a fraction in (0, 1]")?;
        positive(&format!("{path}.length_factor"), m.length_factor, "the factor on the built distance")?;
        finite_in(&format!("{path}.length"), m.length, 0.0, 1.0, "a command in [0, 1]")?;
        if self.muscles.iter().any(|o| o.cell.0 == cell && o.name == m.id) {
            return Err(at(format!("{path}.id"), format!("muscle id {:?} repeats on this cell", m.id)));
        }
        self.muscles.push(MuscleSpec {
            cell: BodyId(cell),
            name: m.id.clone(),
            kind: m.kind,
            from: m.from,
            to: m.to,
            hz: m.hz,
            damping_ratio: m.damping_ratio,
            min_length: m.min_length,
            length_factor: m.length_factor,
            command: m.length,
        });
        Ok(())
    }

    /// Link `k`: a pin between two bodies, or a merge of two cells' facing edges.
    fn link(&mut self, k: usize, l: &LinkSpec) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("links[{k}].{f}");
        match l.kind {
            LinkKindSpec::Pin => {
                if l.edge.is_some() || l.fraction.is_some() {
                    return Err(at(path("kind"), "`edge` and `fraction` belong to `merge`; remove them from a pin"));
                }
                let body_ref = |f: &str, s: &str| -> Result<(usize, usize), ScenarioError> {
                    let Some((cell, body)) = s.rsplit_once(':') else {
                        return Err(at(path(f), format!("{s:?} must be \"cell:body\", e.g. \"a:25\"")));
                    };
                    let ci = self.find_cell(path(f), cell)?;
                    let n = self.cells[ci].params.bodies;
                    match body.parse::<usize>() {
                        Ok(b) if b < n => Ok((ci, b)),
                        _ => Err(at(path(f), format!("body {body:?} of cell {cell:?} must be an index 0 … {}", n - 1))),
                    }
                };
                let (a, b) = (body_ref("a", &l.a)?, body_ref("b", &l.b)?);
                if a.0 == b.0 {
                    return Err(at(path("b"), "a link joins two different cells; name a body of another cell"));
                }
                self.links.push((LinkKind::Pin, a, b));
            }
            LinkKindSpec::Merge => {
                let (a, b) = (self.find_cell(path("a"), &l.a)?, self.find_cell(path("b"), &l.b)?);
                if a == b {
                    return Err(at(path("b"), "a link joins two different cells; name another cell"));
                }
                let Some(edge) = l.edge else {
                    return Err(at(path("edge"), "a merge needs `edge`: one of \"t\", \"r\", \"b\", \"l\""));
                };
                let fraction = l.fraction.unwrap_or(0.1);
                finite_in(&path("fraction"), fraction, 1e-9, 0.5, "a fraction of N in (0, 0.5]")?;
                let (na, nb) = (self.cells[a].params.bodies, self.cells[b].params.bodies);
                let pairs = (fraction * na as f64).round() as usize;
                if pairs == 0 || pairs > nb / 2 {
                    return Err(at(path("fraction"), format!("gives {pairs} body pairs; use 1 … {} pairs", nb / 2)));
                }
                // Cell a's edge centre and the facing edge of b (opposite side).
                let (ea, eb) = match edge {
                    Edge::Top => (0, nb / 2),
                    Edge::Right => (na / 4, 3 * nb / 4),
                    Edge::Bottom => (na / 2, 0),
                    Edge::Left => (3 * na / 4, nb / 4),
                };
                for j in 0..pairs as i64 {
                    let o = j - pairs as i64 / 2;
                    let ia = (ea as i64 + o).rem_euclid(na as i64) as usize;
                    let ib = (eb as i64 - o).rem_euclid(nb as i64) as usize;
                    self.links.push((LinkKind::Merge, (a, ia), (b, ib)));
                }
            }
        }
        Ok(())
    }

    /// Scheduled event `k`, which names exactly one target: connectors, a muscle or a cell.
    fn event(&mut self, k: usize, e: &EventSpec) -> Result<(), ScenarioError> {
        finite_in(&format!("schedule[{k}].t"), e.t, 0.0, super::MAX_DURATION, "a time in s ≥ 0")?;
        let targets = [e.connectors.is_some(), e.muscle.is_some(), e.cell.is_some()].iter().filter(|x| **x).count();
        if targets != 1 {
            return Err(at(
                format!("schedule[{k}]"),
                "an event names exactly one target: `connectors` (with `switch`), `muscle` (with `length`) or `cell` \
                 (with `pressure`, `rest_area_scale` or `push`)",
            ));
        }
        if let Some(sel) = &e.connectors {
            self.connector_event(k, e, sel)
        } else if let Some(sel) = &e.muscle {
            self.muscle_event(k, e, sel)
        } else if let Some(id) = &e.cell {
            self.cell_event(k, e, id)
        } else {
            Ok(())
        }
    }

    /// A `connectors` event: switch the selected connectors on or off.
    fn connector_event(&mut self, k: usize, e: &EventSpec, sel: &str) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("schedule[{k}].{f}");
        stray(
            k,
            &[
                ("length", e.length.is_some()),
                ("ramp", e.ramp.is_some()),
                ("pressure", e.pressure.is_some()),
                ("rest_area_scale", e.rest_area_scale.is_some()),
                ("push", e.push.is_some()),
            ],
        )?;
        let Some(switch) = e.switch else {
            return Err(at(path("switch"), "a connector event needs `switch`: \"on\" or \"off\""));
        };
        let chosen: Vec<usize> = if sel == "*" {
            (0..self.connectors.len()).collect()
        } else {
            let Some((cell, which)) = sel.split_once(':') else {
                return Err(at(path("connectors"), format!("{sel:?} must be \"*\", \"cell:*\" or \"cell:c2\"")));
            };
            let ci = self.find_cell(path("connectors"), cell)?;
            self.connectors
                .iter()
                .enumerate()
                .filter(|(_, c)| c.cell == ci && (which == "*" || c.name == which))
                .map(|(i, _)| i)
                .collect()
        };
        if chosen.is_empty() {
            return Err(at(path("connectors"), format!("{sel:?} selects no connector; check the ids (c0, c1, …)")));
        }
        self.events
            .push(CellEvent { t: e.t, action: CellAction::Switch { connectors: chosen, on: switch == Switch::On } });
        Ok(())
    }

    /// A `muscle` event: command the selected muscles' length, at once or over a ramp.
    fn muscle_event(&mut self, k: usize, e: &EventSpec, sel: &str) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("schedule[{k}].{f}");
        stray(
            k,
            &[
                ("switch", e.switch.is_some()),
                ("pressure", e.pressure.is_some()),
                ("rest_area_scale", e.rest_area_scale.is_some()),
                ("push", e.push.is_some()),
            ],
        )?;
        let Some(length) = e.length else {
            return Err(at(path("length"), "a muscle event needs `length`, the command ℓ in [0, 1]"));
        };
        finite_in(&path("length"), length, 0.0, 1.0, "a command in [0, 1]")?;
        let ramp = e.ramp.unwrap_or(0.0);
        finite_in(&path("ramp"), ramp, 0.0, super::MAX_DURATION, "a duration in s ≥ 0")?;
        let Some((cell, name)) = sel.split_once('/') else {
            return Err(at(path("muscle"), format!("{sel:?} must be \"cell/muscle\" or \"*/muscle\"")));
        };
        let ci = if cell == "*" { None } else { Some(self.find_cell(path("muscle"), cell)?) };
        let muscles = &self.muscles;
        let chosen: Vec<usize> = muscles
            .iter()
            .enumerate()
            .filter(|(_, m)| m.name == name && ci.is_none_or(|c| m.cell.0 == c))
            .map(|(i, _)| i)
            .collect();
        if chosen.is_empty() {
            return Err(at(path("muscle"), format!("{sel:?} selects no muscle; check the cell and muscle ids")));
        }
        if let Some(&i) = chosen.iter().find(|&&i| muscles[i].kind == MuscleKind::Fixed) {
            return Err(at(
                path("muscle"),
                format!("muscle {:?} is `fixed`: its length cannot be commanded; use `spring`", muscles[i].name),
            ));
        }
        self.events.push(CellEvent { t: e.t, action: CellAction::Muscle { muscles: chosen, command: length, ramp } });
        Ok(())
    }

    /// A `cell` event: a new pressure, rest-area scale and/or push of one cell.
    fn cell_event(&mut self, k: usize, e: &EventSpec, id: &str) -> Result<(), ScenarioError> {
        let path = |f: &str| format!("schedule[{k}].{f}");
        stray(k, &[("switch", e.switch.is_some()), ("length", e.length.is_some()), ("ramp", e.ramp.is_some())])?;
        let cell = BodyId(self.find_cell(path("cell"), id)?);
        if e.pressure.is_none() && e.rest_area_scale.is_none() && e.push.is_none() {
            return Err(at(path("cell"), "a cell event needs `pressure`, `rest_area_scale` or `push`"));
        }
        if let Some(value) = e.pressure {
            finite_in(&path("pressure"), value, 0.0, 1e9, "a pressure constant C in N ≥ 0")?;
            self.events.push(CellEvent { t: e.t, action: CellAction::Pressure { cell, value } });
        }
        if let Some(value) = e.rest_area_scale {
            positive(&path("rest_area_scale"), value, "the factor on A₀")?;
            self.events.push(CellEvent { t: e.t, action: CellAction::RestAreaScale { cell, value } });
        }
        if let Some(p) = e.push {
            if !p.iter().all(|x| x.is_finite() && x.abs() <= 1e3) {
                return Err(at(path("push"), "both components must be finite and within ±1000 m/s"));
            }
            self.events.push(CellEvent { t: e.t, action: CellAction::Push { cell, velocity: Vec2::new(p[0], p[1]) } });
        }
        Ok(())
    }
}

/// A connector type of the scenario, its unset keys from its preset.
fn connector_type(name: &str, t: &ConnectorTypeSpec) -> Result<ConnectorType, ScenarioError> {
    let path = |f: &str| format!("connector_types.{name}.{f}");
    let preset = t.preset.unwrap_or(CellPreset::ScsPaper);
    let strength = t.strength.unwrap_or(500.0);
    positive(&path("strength"), strength, "the strength A in N·m²")?;
    let radius = t.radius.unwrap_or(2.0);
    positive(&path("radius"), radius, "the interaction radius in m")?;
    let near_cap = match t.near_cap {
        None | Some(NearCapSpec::Rule(NearCapRule::NineRByN)) => None,
        Some(NearCapSpec::Length(l)) => {
            positive(&path("near_cap"), l, "the near cap L in m (or \"9R/N\")")?;
            Some(l)
        }
    };
    let hidden_mass = t.hidden_mass.unwrap_or(match preset {
        CellPreset::ScsPaper => 0.0,
        CellPreset::ScsCode => 1.0,
    });
    finite_in(&path("hidden_mass"), hidden_mass, 0.0, 1e6, "a mass in kg ≥ 0")?;
    Ok(ConnectorType { name: name.to_string(), params: ConnectorParams { strength, radius, near_cap, hidden_mass } })
}

/// The builtin site design of a folding chain with its `site_connectors` and `sites` applied.
fn site_design(k: usize, ch: &ChainSpec) -> Result<Design, ScenarioError> {
    let path = |f: &str| format!("chains[{k}].{f}");
    let count = ch.site_connectors.unwrap_or(3);
    if !(1..=10).contains(&count) {
        return Err(at(path("site_connectors"), format!("{count} connectors per site: use 1 … 10")));
    }
    let mut design = Design::builtin(count);
    let Some(sites) = &ch.sites else { return Ok(design) };
    for kind in SiteKind::ALL {
        let Some(list) = sites.get(kind) else { continue };
        let field = format!("sites.{}", kind.key());
        if list.len() > 10 {
            return Err(at(path(&field), format!("{} angles: give at most 10 per face", list.len())));
        }
        if let Some(n) = ch.site_connectors {
            if !list.is_empty() && list.len() != n {
                return Err(at(
                    path(&field),
                    format!(
                        "{} angles, but `site_connectors` is {n}; give {n} angles or leave out `site_connectors`",
                        list.len()
                    ),
                ));
            }
        }
        for (m, &a) in list.iter().enumerate() {
            if !a.is_finite() || a.abs() > 180.0 {
                return Err(at(
                    path(&format!("{field}[{m}]")),
                    format!("{} is invalid: give an angle in degrees within ±180", compact(a)),
                ));
            }
        }
        design.site_mut(kind).angles = list.iter().map(|a| a.to_radians()).collect();
    }
    Ok(design)
}

/// A_ab of interaction `k`: its `strength`, or the pole form from `q1`, `q2` and `mu`.
fn interaction_strength(k: usize, it: &InteractionSpec) -> Result<f64, ScenarioError> {
    let path = |f: &str| format!("interactions[{k}].{f}");
    match (it.strength, it.q1, it.q2) {
        (Some(s), None, None) => {
            if !s.is_finite() || s == 0.0 {
                return Err(at(path("strength"), format!("{} is invalid: A_ab must be finite and ≠ 0", compact(s))));
            }
            Ok(s)
        }
        (None, Some(q1), Some(q2)) => {
            let mu = it.mu.unwrap_or(MU_0);
            positive(&path("mu"), mu, "the permeability μ in H/m")?;
            let s = connector::pole_strength(q1, q2, mu);
            if !s.is_finite() || s == 0.0 {
                return Err(at(path("q1"), "q1 and q2 must be finite and non-zero"));
            }
            Ok(s)
        }
        _ => Err(at(
            format!("interactions[{k}]"),
            "give either `strength` (N·m²) or both `q1` and `q2` (A·m, with optional `mu`)",
        )),
    }
}

/// How many cells chain `k` has: its `cells`, or its folding program's (both given must agree).
fn chain_length(k: usize, ch: &ChainSpec, program: Option<&Program>) -> Result<usize, ScenarioError> {
    let path = |f: &str| format!("chains[{k}].{f}");
    let count = match (ch.cells, program) {
        (Some(n), Some(pr)) if n != pr.cells() => {
            return Err(at(
                path("cells"),
                format!(
                    "{n} cells, but letter {} has {}; set `cells` to {} or leave it out",
                    pr.name,
                    pr.cells(),
                    pr.cells()
                ),
            ))
        }
        (_, Some(pr)) => pr.cells(),
        (Some(n), None) => n,
        (None, None) => return Err(at(path("cells"), "a chain without `program` needs `cells`, the number of cells")),
    };
    if !(2..=10_000).contains(&count) {
        return Err(at(path("cells"), format!("{count} cells: a chain needs 2 to 10000")));
    }
    Ok(count)
}

/// A chain's fields that belong to folding chains only, its start and its direction.
fn check_chain_fields(k: usize, ch: &ChainSpec, folding: bool) -> Result<(), ScenarioError> {
    let path = |f: &str| format!("chains[{k}].{f}");
    if ch.site_connectors.is_some() && !folding {
        return Err(at(path("site_connectors"), "belongs to a chain with a `program`; remove it"));
    }
    if ch.sites.is_some() && !folding {
        return Err(at(path("sites"), "belongs to a chain with a `program`; remove it"));
    }
    if !ch.start.iter().all(|x| x.is_finite() && x.abs() <= MAX_POSITION) {
        return Err(at(path("start"), "both coordinates must be finite and within ±1e5 m"));
    }
    if !ch.direction.is_finite() {
        return Err(at(path("direction"), "must be a finite angle in rad"));
    }
    Ok(())
}

/// Refuses the first field set on event `k` that does not belong to its target.
fn stray(k: usize, fields: &[(&str, bool)]) -> Result<(), ScenarioError> {
    match fields.iter().find(|(_, set)| *set) {
        Some((f, _)) => Err(at(format!("schedule[{k}].{f}"), "does not belong to this event's target; remove it")),
        None => Ok(()),
    }
}
