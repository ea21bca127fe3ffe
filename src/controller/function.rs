//! Time functions f(t) for open-loop control and MLP driving (spec §9a), in their JSON form and a
//! compiled form.

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use super::expr::{Expr, ExprError, Vars};

fn one() -> f64 {
    1.0
}

/// A time function, written in JSON as an object tagged by `"type"`.
///
/// `{"type":"sin","amplitude":1,"frequency":1,"phase":0,"offset":0}`,
/// `{"type":"constant","value":0.5}`, `{"type":"expr","expr":"sin(-2*pi*t + pi*x/w)"}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeFunction {
    /// f(t) = amplitude·sin(2π·frequency·t + phase) + offset.
    Sin {
        #[serde(default = "one")]
        amplitude: f64,
        /// In Hz; a negative frequency reverses the direction of a travelling wave.
        #[serde(default = "one")]
        frequency: f64,
        /// In rad.
        #[serde(default)]
        phase: f64,
        #[serde(default)]
        offset: f64,
    },
    /// f(t) = value.
    Constant { value: f64 },
    /// An expression over t, x, y (the voxel's cell), w, h (the grid size) and pi, with
    /// + - * / ^, unary minus, parentheses and sin cos tan abs sign sqrt exp ln min max floor.
    Expr { expr: String },
}

/// What [`TimeFunction`] is read from: the same variants, externally tagged, so that an error inside one
/// is located at its field (see [`crate::tagged`]).
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum TimeFunctionWire {
    Sin {
        #[serde(default = "one")]
        amplitude: f64,
        #[serde(default = "one")]
        frequency: f64,
        #[serde(default)]
        phase: f64,
        #[serde(default)]
        offset: f64,
    },
    Constant {
        value: f64,
    },
    Expr {
        expr: String,
    },
}

impl<'de> Deserialize<'de> for TimeFunction {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match crate::tagged::deserialize(d, "type", None)? {
            TimeFunctionWire::Sin { amplitude, frequency, phase, offset } => {
                TimeFunction::Sin { amplitude, frequency, phase, offset }
            }
            TimeFunctionWire::Constant { value } => TimeFunction::Constant { value },
            TimeFunctionWire::Expr { expr } => TimeFunction::Expr { expr },
        })
    }
}

/// Why a time function cannot be compiled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FunctionError {
    #[error("{function} function: '{field}' must be a finite number, got {value}")]
    NonFinite { function: &'static str, field: &'static str, value: f64 },
    #[error("expr function: {0}")]
    Expr(#[from] ExprError),
}

/// A validated, ready-to-evaluate time function.
#[derive(Debug, Clone, PartialEq)]
pub enum CompiledFunction {
    Sin { amplitude: f64, frequency: f64, phase: f64, offset: f64 },
    Constant(f64),
    Expr(Expr),
}

impl TimeFunction {
    /// The travelling wave of the paper for one cell: sin(−2πt + π·x/w).
    pub fn travelling_wave(x: u32, w: u32) -> TimeFunction {
        TimeFunction::Sin { amplitude: 1.0, frequency: -1.0, phase: PI * x as f64 / w as f64, offset: 0.0 }
    }

    /// Validates the numbers and parses the expression.
    pub(crate) fn compile(&self) -> Result<CompiledFunction, FunctionError> {
        let finite = |function, field, value: f64| {
            if value.is_finite() {
                Ok(value)
            } else {
                Err(FunctionError::NonFinite { function, field, value })
            }
        };
        Ok(match self {
            TimeFunction::Sin { amplitude, frequency, phase, offset } => CompiledFunction::Sin {
                amplitude: finite("sin", "amplitude", *amplitude)?,
                frequency: finite("sin", "frequency", *frequency)?,
                phase: finite("sin", "phase", *phase)?,
                offset: finite("sin", "offset", *offset)?,
            },
            TimeFunction::Constant { value } => CompiledFunction::Constant(finite("constant", "value", *value)?),
            TimeFunction::Expr { expr } => CompiledFunction::Expr(Expr::parse(expr)?),
        })
    }
}

impl CompiledFunction {
    /// f at time t for the voxel in `cell` of a grid of size `grid` = [w, h].
    pub fn eval(&self, t: f64, cell: [u32; 2], grid: [u32; 2]) -> f64 {
        match self {
            CompiledFunction::Sin { amplitude, frequency, phase, offset } => {
                amplitude * (2.0 * PI * frequency * t + phase).sin() + offset
            }
            CompiledFunction::Constant(v) => *v,
            CompiledFunction::Expr(e) => {
                e.eval(&Vars { t, x: cell[0] as f64, y: cell[1] as f64, w: grid[0] as f64, h: grid[1] as f64 })
            }
        }
    }

    /// The same function with the cell and grid fixed, so expressions fold everything but t.
    /// `eval` on the result gives the same bits for that cell, whatever cell it is then given.
    pub(crate) fn for_cell(&self, cell: [u32; 2], grid: [u32; 2]) -> CompiledFunction {
        match self {
            CompiledFunction::Expr(e) => {
                CompiledFunction::Expr(e.specialize(cell[0] as f64, cell[1] as f64, grid[0] as f64, grid[1] as f64))
            }
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<TimeFunction, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn sin_defaults() {
        let f = parse(r#"{"type":"sin"}"#).unwrap();
        assert_eq!(f, TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase: 0.0, offset: 0.0 });
        let f = parse(r#"{"type":"sin","frequency":-2,"offset":0.5}"#).unwrap();
        assert_eq!(f, TimeFunction::Sin { amplitude: 1.0, frequency: -2.0, phase: 0.0, offset: 0.5 });
        let c = f.compile().unwrap();
        assert_eq!(c.eval(0.125, [0, 0], [1, 1]), (2.0 * PI * -2.0 * 0.125).sin() + 0.5);
    }

    #[test]
    fn other_forms_and_round_trip() {
        let c = parse(r#"{"type":"constant","value":0.5}"#).unwrap();
        assert_eq!(c.compile().unwrap().eval(3.0, [1, 2], [3, 3]), 0.5);
        let e = parse(r#"{"type":"expr","expr":"x + 10*y + 100*w + 1000*h + t"}"#).unwrap();
        assert_eq!(e.compile().unwrap().eval(0.5, [1, 2], [3, 4]), 4321.5);
        for f in [c, e, TimeFunction::travelling_wave(1, 4)] {
            let back: TimeFunction = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
            assert_eq!(back, f);
        }
        assert!(parse(r#"{"type":"constant"}"#).unwrap_err().to_string().contains("value"));
    }

    #[test]
    fn unknown_fields_and_types_are_refused() {
        let e = parse(r#"{"type":"sin","amplitud":2}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `amplitud`"), "{e}");
        let e = parse(r#"{"type":"constant","value":1,"phase":0}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `phase`"), "{e}");
        let e = parse(r#"{"type":"square"}"#).unwrap_err().to_string();
        assert!(e.contains("square"), "{e}");
    }

    #[test]
    fn non_finite_numbers_are_refused_with_the_field_name() {
        let f = TimeFunction::Sin { amplitude: 1.0, frequency: f64::NAN, phase: 0.0, offset: 0.0 };
        let e = f.compile().unwrap_err();
        assert!(matches!(e, FunctionError::NonFinite { field: "frequency", .. }));
        assert!(e.to_string().contains("'frequency'"), "{e}");
        let e = TimeFunction::Constant { value: f64::INFINITY }.compile().unwrap_err();
        assert_eq!(e.to_string(), "constant function: 'value' must be a finite number, got inf");
        let e = TimeFunction::Expr { expr: "sin(".into() }.compile().unwrap_err();
        assert!(e.to_string().starts_with("expr function: expected an expression at position 4"), "{e}");
    }

    #[test]
    fn travelling_wave_expr_equals_sin_form() {
        let expr = TimeFunction::Expr { expr: "sin(-2*pi*t + pi*x/w)".into() }.compile().unwrap();
        let grid = [5, 2];
        for x in 0..5 {
            let sin = TimeFunction::travelling_wave(x, grid[0]).compile().unwrap();
            let cell_expr = expr.for_cell([x, 1], grid);
            for t in [0.0, 1.0 / 30.0, 0.4, 2.75, 59.99] {
                let a = sin.eval(t, [x, 1], grid);
                let b = expr.eval(t, [x, 1], grid);
                assert!((a - b).abs() < 1e-12, "t={t} x={x}: {a} vs {b}");
                assert_eq!(cell_expr.eval(t, [0, 0], [1, 1]).to_bits(), b.to_bits());
            }
        }
    }

    #[test]
    fn evolution_and_development_example() {
        let f = TimeFunction::Expr { expr: "sin(2*pi*t + 0.3) + 0.1 + t/60*(0.5 - 0.1)".into() };
        let c = f.compile().unwrap();
        for t in [0.0, 10.0, 60.0] {
            let want = (2.0 * PI * t + 0.3).sin() + 0.1 + t / 60.0 * 0.4;
            assert!((c.eval(t, [0, 0], [1, 1]) - want).abs() < 1e-12);
        }
    }
}
