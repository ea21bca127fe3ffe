//! `slots` (spec §4.4, ours): genome values written into JSON pointers of a template scenario, so any
//! numeric field can be evolved without Rust.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::MapError;
use crate::evolve::EvolveError;
use crate::scenario::Scenario;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotsSpec {
    /// The complete scenario the genes are written into.
    pub template: Scenario,
    /// Where each gene goes.
    pub slots: Vec<Slot>,
    /// Genome length (default: the largest `gene` + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genes: Option<usize>,
    /// Initialisation box per gene.
    pub init: [f64; 2],
}

/// Writes clip(offset + scale·genome[gene]) at `pointer`.
// `[gene]` is an index, not a link; the text is `vsr2d evolve --schema`'s, so it stays.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Slot {
    /// RFC 6901 JSON pointer into the template as `vsr2d` writes it back (every field present), e.g.
    /// `/robots/0/controller/cells/0/function/phase`.
    pub pointer: String,
    pub gene: usize,
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default)]
    pub offset: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<[f64; 2]>,
}

fn one() -> f64 {
    1.0
}

impl SlotsSpec {
    pub fn genome_size(&self) -> usize {
        self.genes.unwrap_or_else(|| self.slots.iter().map(|s| s.gene + 1).max().unwrap_or(0))
    }

    fn template_value(&self) -> Value {
        serde_json::to_value(&self.template).expect("a scenario always serialises")
    }

    pub(crate) fn validate(&self) -> Result<(), EvolveError> {
        let bad = |path: String, message: String| Err(EvolveError::Invalid { path, message });
        super::check_init_box("representation.init", self.init)?;
        if self.genes.is_some_and(|g| g > 1_000_000_000) || self.slots.iter().any(|s| s.gene >= 1_000_000_000) {
            return bad(
                "representation.genes".into(),
                "give at most 1000000000 genes (and gene indices below it)".into(),
            );
        }
        if self.slots.is_empty() {
            return bad("representation.slots".into(), "is empty: give at least one {\"pointer\", \"gene\"}".into());
        }
        let n = self.genome_size();
        let template = self.template_value();
        for (i, s) in self.slots.iter().enumerate() {
            let at = |field: &str| format!("representation.slots[{i}].{field}");
            if s.gene >= n {
                return bad(
                    at("gene"),
                    format!(
                        "is {} but the genome has {n} genes (0 … {}): raise `genes` or fix `gene`",
                        s.gene,
                        n.saturating_sub(1)
                    ),
                );
            }
            if !(s.scale.is_finite() && s.offset.is_finite()) {
                return bad(at("scale"), "scale and offset must be finite numbers".into());
            }
            if let Some([a, b]) = s.clip {
                if !(a <= b && !a.is_nan() && !b.is_nan()) {
                    return bad(at("clip"), format!("is [{a}, {b}]: give [lo, hi] with lo ≤ hi"));
                }
            }
            match template.pointer(&s.pointer) {
                Some(Value::Number(_)) | Some(Value::Null) => {}
                Some(other) => {
                    return bad(
                        at("pointer"),
                        format!(
                            "{:?} points at {other} in the template, not at a number: point at a numeric field",
                            s.pointer
                        ),
                    )
                }
                None => {
                    return bad(
                        at("pointer"),
                        format!(
                            "{:?} names no field of the template (pointers start with `/`, array indices are numbers, \
                             e.g. /robots/0/controller/default/phase): write the field into the template with a \
                             placeholder value",
                            s.pointer
                        ),
                    )
                }
            }
        }
        Ok(())
    }

    pub(crate) fn map(&self, genome: &[f64]) -> Result<Scenario, MapError> {
        let mut value = self.template_value();
        for s in &self.slots {
            let mut v = s.offset + s.scale * genome[s.gene];
            if let Some([lo, hi]) = s.clip {
                v = v.clamp(lo, hi);
            }
            if !v.is_finite() {
                return Err(MapError::NonFinite { gene: s.gene, pointer: s.pointer.clone(), value: v });
            }
            let slot = value
                .pointer_mut(&s.pointer)
                .ok_or_else(|| MapError::Scenario(format!("no field at {}", s.pointer)))?;
            *slot = Value::from(v);
        }
        serde_json::from_value(value).map_err(|e| MapError::Scenario(e.to_string()))
    }
}
