//! The four fuzz targets on the stable toolchain, on every `cargo test`: the same bodies as cargo-fuzz
//! runs (`vsr2d::fuzzing`), driven by proptest with a fixed seed and a fixed number of cases per target
//! and structure-aware inputs: arbitrary JSON trees over the fixtures' own keys and words, and fixture
//! documents with a random subtree replaced, a byte flipped or the text cut short. A panic fails the
//! test with proptest's shrunk input; every case ends `Ok` (accepted) or `Err` (refused), and both
//! must happen, so the inputs reach past the parser.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

use super::robustness::{get_mut, recordings, value_paths, PathSeg};

/// Cases per target: sized so that the four together take well under a minute in the test profile
/// (a recording is a larger document than the others: fewer of them).
const CASES: u32 = 10_000;
const RECORDING_CASES: u32 = 2_000;

/// How a document is written back to bytes: one JSON text, or a recording's JSON Lines (the document is
/// then the array of its lines).
#[derive(Clone, Copy)]
enum Form {
    Text,
    Lines,
}

fn to_bytes(doc: &Value, form: Form) -> Vec<u8> {
    match (form, doc) {
        (Form::Lines, Value::Array(lines)) => {
            lines.iter().map(|l| serde_json::to_string(l).unwrap()).collect::<Vec<_>>().join("\n").into_bytes()
        }
        _ => serde_json::to_vec_pretty(doc).unwrap(),
    }
}

/// Every object key and string value of the documents: the words the JSON trees are made of, so that
/// they name real fields and variants (`"type": "stairs"`) far more often than random strings would.
fn words(docs: &[Value]) -> Vec<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    out.insert(k.clone());
                    walk(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|c| walk(c, out)),
            Value::String(s) if s.len() < 40 => {
                out.insert(s.clone());
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    docs.iter().for_each(|d| walk(d, &mut out));
    out.into_iter().collect()
}

/// Numbers that break ranges, counts and the engine's f32 world.
const NUMBERS: &[f64] =
    &[0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, 1e-50, 1e9, 1e38, -1e38, 1e300, 1e308, -1e308, 4294967296.0];

/// Arbitrary JSON trees (at most 4 levels, 64 nodes) over `words`.
fn json_tree(words: Arc<Vec<String>>) -> BoxedStrategy<Value> {
    let keys = words.clone();
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // NaN and infinities become null, as serde_json writes them.
        any::<f64>().prop_map(Value::from),
        prop::sample::select(NUMBERS).prop_map(Value::from),
        prop::sample::select((*words).clone()).prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select((*keys).clone()), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

fn get<'a>(v: &'a Value, path: &[PathSeg]) -> &'a Value {
    path.iter().fold(v, |v, seg| match seg {
        PathSeg::Key(k) => &v[k.as_str()],
        PathSeg::Index(i) => &v[*i],
    })
}

/// A random value path of `doc` (any, or one of a number when it has numbers).
fn some_path(doc: &Value, at: Index, numbers_only: bool) -> Vec<PathSeg> {
    let mut paths = Vec::new();
    value_paths(doc, &mut Vec::new(), &mut paths);
    if numbers_only && paths.iter().any(|p| get(doc, p).is_number()) {
        paths.retain(|p| get(doc, p).is_number());
    }
    paths.swap_remove(at.index(paths.len()))
}

/// The inputs of one target: an arbitrary tree; a fixture with a subtree replaced by one, with a number
/// replaced by another (past the parser, into validation's ranges), or with a subtree of another
/// fixture put somewhere; a fixture with one byte changed; a fixture cut short.
fn inputs(docs: Vec<Value>, form: Form) -> BoxedStrategy<Vec<u8>> {
    let tree = json_tree(Arc::new(words(&docs)));
    let docs = Arc::new(docs);
    let texts: Arc<Vec<Vec<u8>>> = Arc::new(docs.iter().map(|d| to_bytes(d, form)).collect());
    let (d1, d2, d3, t1, t2) = (docs.clone(), docs.clone(), docs, texts.clone(), texts);
    let number = prop_oneof![
        prop::sample::select(NUMBERS).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
    ];
    prop_oneof![
        1 => tree.clone().prop_map(move |v| to_bytes(&v, form)),
        3 => (any::<Index>(), any::<Index>(), tree).prop_map(move |(which, at, v)| {
            let mut doc = d1[which.index(d1.len())].clone();
            let path = some_path(&doc, at, false);
            *get_mut(&mut doc, &path) = v;
            to_bytes(&doc, form)
        }),
        3 => (any::<Index>(), any::<Index>(), number).prop_map(move |(which, at, v)| {
            let mut doc = d2[which.index(d2.len())].clone();
            let path = some_path(&doc, at, true);
            *get_mut(&mut doc, &path) = v;
            to_bytes(&doc, form)
        }),
        1 => (any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>()).prop_map(move |(a, at, b, from)| {
            let mut doc = d3[a.index(d3.len())].clone();
            let other = &d3[b.index(d3.len())];
            let piece = get(other, &some_path(other, from, false)).clone();
            let path = some_path(&doc, at, false);
            *get_mut(&mut doc, &path) = piece;
            to_bytes(&doc, form)
        }),
        2 => (any::<Index>(), any::<Index>(), 1..=255u8).prop_map(move |(which, at, mask)| {
            let mut bytes = t1[which.index(t1.len())].clone();
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
            bytes
        }),
        1 => (any::<Index>(), any::<Index>()).prop_map(move |(which, at)| {
            let bytes = &t2[which.index(t2.len())];
            bytes[..at.index(bytes.len() + 1)].to_vec()
        }),
    ]
    .boxed()
}

fn parse(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(Path::new(crate::ROOT).join(path)).unwrap()).unwrap()
}

fn parse_all(dir: &str) -> Vec<Value> {
    let mut paths: Vec<_> = std::fs::read_dir(Path::new(crate::ROOT).join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()).collect()
}

/// Runs `target` on `cases` inputs from a fixed seed; panics (with the shrunk input) if the target
/// panics. Prints how many were accepted and refused.
fn fuzz(name: &str, seed: u8, cases: u32, docs: Vec<Value>, form: Form, target: fn(&[u8]) -> Result<(), String>) {
    assert!(!docs.is_empty());
    // The fixtures themselves are accepted: the mutations start from valid documents.
    for doc in &docs {
        let bytes = to_bytes(doc, form);
        target(&bytes).unwrap_or_else(|e| panic!("{name}: a fixture is refused: {e}"));
    }
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]));
    let (accepted, refused) = (Cell::new(0u32), Cell::new(0u32));
    let start = Instant::now();
    let outcome = runner.run(&inputs(docs, form), |bytes| {
        match target(&bytes) {
            Ok(()) => accepted.set(accepted.get() + 1),
            Err(message) => {
                refused.set(refused.get() + 1);
                prop_assert!(!message.is_empty());
            }
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("fuzz target {name}: {e}");
    }
    let (accepted, refused) = (accepted.get(), refused.get());
    eprintln!(
        "fuzz target {name}: {} cases, {accepted} accepted, {refused} refused, no panic ({:.1} s)",
        accepted + refused,
        start.elapsed().as_secs_f64()
    );
    assert_eq!(accepted + refused, cases, "every case runs once (no shrinking without a failure)");
    // Both outcomes, each often: most inputs are broken, and enough get past the parser into validation.
    assert!(accepted >= cases / 50 && refused >= cases / 2, "{name}: {accepted} accepted, {refused} refused");
}

#[test]
fn fuzz_scenario() {
    let mut docs = parse_all("fixtures/scenarios");
    docs.extend(["distributed-worm", "mlp-worm", "two-robots"].map(|n| parse(&format!("docs/examples/{n}.json"))));
    fuzz("scenario", 1, CASES, docs, Form::Text, vsr2d::fuzzing::scenario);
}

#[test]
fn fuzz_recording() {
    let dir = tempfile::tempdir().unwrap();
    let docs: Vec<Value> = recordings(dir.path())
        .iter()
        .map(|text| Value::Array(text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()))
        .collect();
    fuzz("recording", 2, RECORDING_CASES, docs, Form::Lines, vsr2d::fuzzing::recording);
}

#[test]
fn fuzz_experiment() {
    let docs = parse_all("fixtures/experiments");
    fuzz("experiment", 3, CASES, docs, Form::Text, vsr2d::fuzzing::experiment);
}

#[test]
fn fuzz_pom_spec() {
    let docs = vec![
        serde_json::from_str(&vsr2d::pom::example::quadruped().unwrap().to_json()).unwrap(),
        parse("docs/examples/pom-fig1.json"),
    ];
    fuzz("pom_spec", 4, CASES, docs, Form::Text, vsr2d::fuzzing::pom_spec);
}
