//! Which scaffolding groups a voxel has: a non-empty subset of {E, I, X, C} (spec §3).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A non-empty set of spring groups, written `all`, `E+C`, `E+I+C`, `E+I+X`, … (codes in E, I, X, C order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scaffolding(u8);

impl Scaffolding {
    pub const ALL: Scaffolding = Scaffolding(0b1111);
    pub const EC: Scaffolding = Scaffolding(0b1001);
    pub const EIC: Scaffolding = Scaffolding(0b1011);
    pub const EIX: Scaffolding = Scaffolding(0b0111);
    /// The four sets of the paper's characterization, softest first.
    pub const PAPER_SETS: [Scaffolding; 4] = [Scaffolding::EC, Scaffolding::EIC, Scaffolding::EIX, Scaffolding::ALL];

    fn bit(group: SpringGroup) -> u8 {
        match group {
            SpringGroup::SideExternal => 1,
            SpringGroup::SideInternal => 2,
            SpringGroup::SideCross => 4,
            SpringGroup::CentralCross => 8,
        }
    }

    /// Builds a set from groups; `None` when empty.
    pub fn from_groups(groups: impl IntoIterator<Item = SpringGroup>) -> Option<Scaffolding> {
        let bits = groups.into_iter().fold(0, |b, g| b | Self::bit(g));
        (bits != 0).then_some(Scaffolding(bits))
    }

    pub fn contains(self, group: SpringGroup) -> bool {
        self.0 & Self::bit(group) != 0
    }

    pub fn groups(self) -> impl Iterator<Item = SpringGroup> {
        SpringGroup::ALL.into_iter().filter(move |g| self.contains(*g))
    }

    /// Springs per voxel: E and I have 4, X has 8, C has 2.
    pub fn springs_per_voxel(self) -> usize {
        self.groups()
            .map(|g| match g {
                SpringGroup::SideExternal | SpringGroup::SideInternal => 4,
                SpringGroup::SideCross => 8,
                SpringGroup::CentralCross => 2,
            })
            .sum()
    }
}

impl Default for Scaffolding {
    fn default() -> Self {
        Scaffolding::ALL
    }
}

impl fmt::Display for Scaffolding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Scaffolding::ALL {
            return f.write_str("all");
        }
        let codes: Vec<String> = self.groups().map(|g| g.code().to_string()).collect();
        f.write_str(&codes.join("+"))
    }
}

/// Error for a scaffolding string that is not `all` or a `+`-joined list of E, I, X, C.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid scaffolding {0:?}: write `all` or groups joined by `+` from E (side external), I (side internal), X (side cross), C (central cross), e.g. `E+C`")]
pub struct ParseScaffoldingError(pub String);

impl FromStr for Scaffolding {
    type Err = ParseScaffoldingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let trimmed = s.trim();
        if trimmed.eq_ignore_ascii_case("all") {
            return Ok(Scaffolding::ALL);
        }
        let mut groups = Vec::new();
        for code in trimmed.split('+') {
            let g = match code.trim().to_ascii_uppercase().as_str() {
                "E" => SpringGroup::SideExternal,
                "I" => SpringGroup::SideInternal,
                "X" => SpringGroup::SideCross,
                "C" => SpringGroup::CentralCross,
                _ => return Err(ParseScaffoldingError(s.to_string())),
            };
            groups.push(g);
        }
        Scaffolding::from_groups(groups).ok_or_else(|| ParseScaffoldingError(s.to_string()))
    }
}

impl Serialize for Scaffolding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Scaffolding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Scaffolding {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Scaffolding".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Spring groups: `all`, or codes joined by `+` from E (side external), I (side internal), X (side cross), C (central cross).",
            "examples": ["all", "E+C", "E+I+C", "E+I+X"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_paper_sets() {
        for (text, set, springs) in [
            ("all", Scaffolding::ALL, 18),
            ("E+C", Scaffolding::EC, 6),
            ("E+I+C", Scaffolding::EIC, 10),
            ("E+I+X", Scaffolding::EIX, 16),
        ] {
            assert_eq!(text.parse::<Scaffolding>().unwrap(), set);
            assert_eq!(set.to_string(), text);
            assert_eq!(set.springs_per_voxel(), springs);
        }
        assert_eq!("c+e".parse::<Scaffolding>().unwrap(), Scaffolding::EC);
        assert!("".parse::<Scaffolding>().is_err());
        assert!("E+Q".parse::<Scaffolding>().is_err());
    }
}

/// The scaffolding group a spring belongs to (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SpringGroup {
    /// Side external: outer gap corners of two adjacent masses.
    #[serde(rename = "E")]
    SideExternal,
    /// Side internal: inner gap corners of two adjacent masses.
    #[serde(rename = "I")]
    SideInternal,
    /// Side cross: the two diagonals of the gap between adjacent masses.
    #[serde(rename = "X")]
    SideCross,
    /// Central cross: mass centres, SW–NE and SE–NW.
    #[serde(rename = "C")]
    CentralCross,
}

impl SpringGroup {
    pub const ALL: [SpringGroup; 4] =
        [SpringGroup::SideExternal, SpringGroup::SideInternal, SpringGroup::SideCross, SpringGroup::CentralCross];
    /// The one-letter code of the spec (E, I, X, C).
    pub fn code(self) -> char {
        match self {
            SpringGroup::SideExternal => 'E',
            SpringGroup::SideInternal => 'I',
            SpringGroup::SideCross => 'X',
            SpringGroup::CentralCross => 'C',
        }
    }
}
