//! Internally tagged enums (`{"type": "sin", "amplitude": 1}`) read so that an error inside one is
//! located at its innermost JSON path.
//!
//! serde buffers the content of an internally tagged or untagged enum before it picks the variant, and
//! serde_path_to_error cannot follow into that buffer: a `null` amplitude deep inside a controller was
//! reported at `robots[0].controller`. [`deserialize`] reads the object as a JSON value instead, takes
//! the tag out and deserializes `{tag_value: rest}` as an *externally* tagged wire enum `W` (which serde
//! reads without buffering) through serde_path_to_error. A failure comes back with its inner path in
//! front of the message (``at `default.amplitude`: invalid type: null, expected f64``), readable as it
//! is; [`locate`] moves that path onto the outer one, so tagged enums nested in tagged enums compose
//! and the scenario parser reports `robots[0].controller.default.amplitude`.
//!
//! Each tagged type implements `Deserialize` as one call of [`deserialize`] with its wire enum (the same
//! variants, externally tagged, `deny_unknown_fields`) and a `From<Wire>`.

use serde::de::{DeserializeOwned, Error as _, Unexpected};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use serde_path_to_error::Segment;

/// Where an inner path is written in a message: ``at `PATH`: message``.
const AT: &str = "at `";
const END: &str = "`: ";

/// Reads an object tagged by its field `tag` as the externally tagged `W`. An object without the tag
/// is read as variant `untagged` if given (recordings made before bodies had kinds), an error otherwise.
/// An unknown tag is reported at the tag field with the list of valid tags.
pub fn deserialize<'de, D, W>(d: D, tag: &'static str, untagged: Option<&'static str>) -> Result<W, D::Error>
where
    D: Deserializer<'de>,
    W: DeserializeOwned,
{
    let value = Value::deserialize(d)?;
    let mut map = match value {
        Value::Object(map) => map,
        other => {
            let expected = format!("an object with a \"{tag}\" field");
            return Err(D::Error::invalid_type(unexpected(&other), &expected.as_str()));
        }
    };
    let (variant, tag_given) = match map.remove(tag) {
        Some(Value::String(name)) => (name, true),
        // Not a name: read as an unknown variant named by its JSON text, which lists the valid ones.
        Some(other) => (other.to_string(), true),
        None => match untagged {
            Some(name) => (name.to_string(), false),
            None => return Err(D::Error::custom(format!("missing field `{tag}` ({})", expected_tags::<W>()))),
        },
    };
    let wire = Value::Object(Map::from_iter([(variant, Value::Object(map))]));
    serde_path_to_error::deserialize::<_, W>(wire).map_err(|e| {
        // The first segment is the variant (the tag's value), not a field: drop it.
        let mut segments = e.path().iter().peekable();
        if let Some(Segment::Enum { .. }) = segments.peek() {
            segments.next();
        }
        let inner = join_segments(segments);
        let message = e.into_inner().to_string();
        let (path, message) = locate(&inner, &message);
        let path =
            if path.is_empty() && tag_given && message.starts_with("unknown variant") { tag.to_string() } else { path };
        D::Error::custom(if path.is_empty() { message } else { format!("{AT}{path}{END}{message}") })
    })
}

/// Splits an inner path written by [`deserialize`] off `message` and appends it to `outer` (a
/// serde_path_to_error path, `.` for the root): returns the innermost path and the bare message.
pub fn locate(outer: &str, message: &str) -> (String, String) {
    let outer = if outer == "." { "" } else { outer };
    if let Some(rest) = message.strip_prefix(AT) {
        if let Some(end) = rest.find(END) {
            return (join(outer, &rest[..end]), rest[end + END.len()..].to_string());
        }
    }
    (outer.to_string(), message.to_string())
}

fn join(outer: &str, inner: &str) -> String {
    if outer.is_empty() {
        inner.to_string()
    } else if inner.is_empty() || inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

fn join_segments<'a>(segments: impl Iterator<Item = &'a Segment>) -> String {
    segments.fold(String::new(), |path, segment| match segment {
        Segment::Seq { index } => format!("{path}[{index}]"),
        Segment::Map { key } | Segment::Enum { variant: key } => join(&path, key),
        Segment::Unknown => join(&path, "?"),
        #[allow(unreachable_patterns)]
        _ => join(&path, "?"),
    })
}

/// "expected one of `a`, `b`": what serde says of an unknown variant of `W`.
fn expected_tags<W: DeserializeOwned>() -> String {
    let probe = Value::Object(Map::from_iter([(String::new(), Value::Object(Map::new()))]));
    match serde_json::from_value::<W>(probe) {
        Err(e) => {
            let message = e.to_string();
            message.find("expected").map_or_else(String::new, |i| message[i..].to_string())
        }
        Ok(_) => String::new(),
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_paths_are_spliced_onto_outer_ones() {
        assert_eq!(
            locate("robots[0].controller", "at `default.amplitude`: bad"),
            ("robots[0].controller.default.amplitude".into(), "bad".into())
        );
        assert_eq!(locate(".", "at `cells[1].function`: bad"), ("cells[1].function".into(), "bad".into()));
        assert_eq!(locate("a", "at `[2].b`: bad"), ("a[2].b".into(), "bad".into()));
        assert_eq!(locate("a.b", "invalid type: null"), ("a.b".into(), "invalid type: null".into()));
    }
}
