//! The limits of a PoM spec's numbers and ids, and its defaults: what every layer's checks refer to.

/// Default control range, m: the prototype's actuators change their length by ±10 mm, moving each of
/// their two nodes by ±5 mm (paper).
pub(crate) const DEFAULT_RANGE: [f64; 2] = [-0.005, 0.005];

/// The longest id of a control, effector or extension: ids head table columns, CSV headers and plot
/// legends.
pub(crate) const MAX_ID_CHARS: usize = 100;

/// The largest length accepted anywhere in a spec (pitch, offsets, ranges, targets, displacements), m: a
/// lattice a kilometre wide is a typo, and 1e308 would overflow every sum that follows.
pub(crate) const MAX_LENGTH: f64 = 1e3;

/// The largest time accepted (keyframes, gait period, dt), s, as for scenarios.
pub(crate) const MAX_TIME: f64 = 1e6;
