//! Why a POM spec, model or query cannot be used. Every message names where the problem is (a JSON path
//! such as `controls[1].push`, or the ids involved) and what to do about it; nothing in `pom` panics on
//! input.

/// A refused spec, model or query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PomError {
    /// The JSON does not parse into the spec types (syntax, type, unknown field).
    #[error("invalid POM spec JSON at `{path}`: {message}")]
    Json { path: String, message: String },
    /// A value that parses but is not usable; `message` says what it must be.
    #[error("`{path}`: {message}")]
    Invalid { path: String, message: String },
    /// Two controls would drive one plane of motion; the paper sums contributions only "so long as no
    /// two control nodes share a plane of motion".
    #[error(
        "controls {first:?} and {second:?} share the plane of motion d = {d}, {axis}-layer {layer} (voxels {voxels}); \
         move one to another layer or push it along another axis"
    )]
    SharedPlane { first: String, second: String, d: usize, axis: char, layer: i32, voxels: String },
    /// A node pushed along its own axis does not rotate any square (its column of every A_d is zero).
    #[error(
        "`{path}`: control {id:?} pushes node {node} along its own axis ({push}), which moves nothing in POM; \
         push it along {allowed}"
    )]
    PushAlongOwnAxis { path: String, id: String, node: usize, push: String, allowed: String },
    /// A query whose size does not match the model (a programming error of the caller, reported anyway).
    #[error("{what}: expected {expected} values, got {got}")]
    Length { what: &'static str, expected: usize, got: usize },
}

impl PomError {
    pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> PomError {
        PomError::Invalid { path: path.into(), message: message.into() }
    }
}
