//! The JSON Lines batch behind `vsr2d eval`: one job per input line, one record per job, restartable,
//! shardable, the same bytes whatever the thread count or sharding.
//!
//! Output records carry the 0-based input line index (`line`) besides the job's `id`: it is what makes
//! shards mergeable (sort by `line`) and what a restart checks a results file against.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::output::run_dir;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{evaluate_within, EvalError};
use crate::scenario::{Limits, Scenario};
use crate::task::RunResult;

/// A job's identifier: any JSON string or number, compared as parsed (so `1` and `"1"` differ).
/// Integers beyond 64 bits are read as floating point: use strings for such ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JobId {
    Text(String),
    Number(serde_json::Number),
}

impl JobId {
    /// The id in a JSON value, if it is a string or a number.
    pub fn from_value(value: &Value) -> Option<JobId> {
        match value {
            Value::String(s) => Some(JobId::Text(s.clone())),
            Value::Number(n) => Some(JobId::Number(n.clone())),
            _ => None,
        }
    }
}

impl fmt::Display for JobId {
    /// As written in JSON (strings quoted), so `1` and `"1"` stay distinguishable in messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobId::Text(s) => write!(f, "{}", Value::String(s.clone())),
            JobId::Number(n) => write!(f, "{n}"),
        }
    }
}

impl From<&str> for JobId {
    fn from(s: &str) -> Self {
        JobId::Text(s.to_string())
    }
}

impl From<u64> for JobId {
    fn from(n: u64) -> Self {
        JobId::Number(n.into())
    }
}

/// One input line of a batch: `{"id": ..., "scenario": {...}}` (the scenario JSON of `vsr2d simulate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    pub id: JobId,
    pub scenario: Scenario,
}

impl Job {
    /// The job as one JSONL line (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a job always serialises")
    }
}

/// One output line: `{"id": ..., "line": i, "scenario_hash": "…", "metrics": {...}}` or
/// `{"id": ..., "line": i, "scenario_hash": "…", "error": "..."}`. `id` is null when the line had no
/// usable id (malformed JSON, missing or non-scalar id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub id: Option<JobId>,
    /// 0-based index of the job's line in the input file (blank lines count).
    pub line: u64,
    /// [`scenario_hash`] of the job the record was computed from, as 16 hex digits: a resumed batch
    /// re-evaluates a job whose scenario no longer has this hash. Absent in records written before
    /// there was a hash (such records are re-evaluated too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<RunResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record {
    /// The record as one JSONL line (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serialises")
    }
}

/// What [`run_batch`] reads, writes and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOptions {
    /// Jobs, one JSON object per line; blank lines are ignored.
    pub input: PathBuf,
    /// Results, one record per job; appended to (after checking it) when it already exists.
    pub output: PathBuf,
    /// Worker threads; 0 means rayon's default (`RAYON_NUM_THREADS`, else one per logical CPU).
    pub jobs: usize,
    /// `Some((i, n))`: evaluate only the lines whose index is ≡ i (mod n).
    pub shard: Option<(usize, usize)>,
    /// Draw a progress bar on stderr (never drawn when stderr is not a terminal).
    pub progress: bool,
}

/// The default wall-clock budget of one job (1 h): twice what the largest job within
/// [`Limits::DEFAULT`] takes on the development machine, so only a runaway job reaches it.
pub const DEFAULT_JOB_TIMEOUT: Duration = Duration::from_secs(3600);

/// What one job may cost: the scenario [`Limits`] (checked before it runs) and a wall-clock budget
/// (`None`: unlimited). A job over either gets an error record; the batch goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    pub scenario: Limits,
    pub timeout: Option<Duration>,
}

impl Default for JobLimits {
    fn default() -> Self {
        JobLimits { scenario: Limits::DEFAULT, timeout: Some(DEFAULT_JOB_TIMEOUT) }
    }
}

/// What a batch did.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSummary {
    /// Lines in the input file, blank ones included.
    pub input_lines: u64,
    /// Non-blank lines in this shard.
    pub shard_jobs: u64,
    /// Jobs skipped because the results file already held their current record.
    pub already_done: u64,
    /// Records in the results file whose scenario changed since they were written (or that have no
    /// scenario hash): their jobs were evaluated again, and the records replaced.
    pub stale: u64,
    /// Records written by this run.
    pub written: u64,
    /// Of `written`, the error records.
    pub errors: u64,
    /// Whether a partial last line (an interrupted write) was dropped from the results file.
    pub dropped_partial_line: bool,
    pub elapsed: Duration,
}

/// A job of this shard, as found by the first pass over the input.
#[derive(Debug, Clone)]
struct ShardLine {
    line: u64,
    id: Option<JobId>,
    /// [`scenario_hash`] of the line.
    hash: u64,
    /// The line that first used this id, when this one repeats it.
    duplicate_of: Option<u64>,
}

struct Scan {
    input_lines: u64,
    jobs: Vec<ShardLine>,
}

/// The longest job line accepted (64 MiB): a scenario is a few kB, an MLP with its weights a few MB; a
/// longer line (or an endless one such as `/dev/zero`) is refused instead of filling the memory.
pub(crate) const MAX_LINE_BYTES: u64 = 64 << 20;

/// Reads the next line (without its `\n` and a trailing `\r`) into `buf`; false at end of file. A line
/// longer than [`MAX_LINE_BYTES`] is an error.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<bool> {
    buf.clear();
    if reader.by_ref().take(MAX_LINE_BYTES + 1).read_until(b'\n', buf)? == 0 {
        return Ok(false);
    }
    if buf.len() as u64 > MAX_LINE_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a line is longer than {} MiB; is this a jobs file (one JSON object per line)?",
                MAX_LINE_BYTES >> 20
            ),
        ));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    Ok(true)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The id of a job line (if the line is a JSON object with a string or number `id`) and its
/// [`scenario_hash`].
fn probe(line: &[u8]) -> (Option<JobId>, u64) {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(job)) => {
            let hash = match job.get("scenario") {
                Some(scenario) => scenario_hash(scenario),
                None => fnv1a64(line),
            };
            (job.get("id").and_then(JobId::from_value), hash)
        }
        _ => (None, fnv1a64(line)),
    }
}

/// The content hash of a job's scenario: 64-bit FNV-1a of its canonical JSON (object keys sorted, no
/// whitespace, numbers as serde_json prints them), so reformatting a jobs file or reordering keys keeps
/// it while any change of a value changes it. A line without a `scenario` (malformed, say) is hashed as
/// its raw bytes instead.
pub fn scenario_hash(scenario: &Value) -> u64 {
    /// Serialises a JSON value with the keys of every object in sorted order (whatever the map type
    /// serde_json was built with).
    struct Canonical<'a>(&'a Value);
    impl Serialize for Canonical<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{SerializeMap, SerializeSeq};
            match self.0 {
                Value::Object(map) => {
                    let mut entries: Vec<_> = map.iter().collect();
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                    let mut m = s.serialize_map(Some(entries.len()))?;
                    for (k, v) in entries {
                        m.serialize_entry(k, &Canonical(v))?;
                    }
                    m.end()
                }
                Value::Array(items) => {
                    let mut seq = s.serialize_seq(Some(items.len()))?;
                    for v in items {
                        seq.serialize_element(&Canonical(v))?;
                    }
                    seq.end()
                }
                other => other.serialize(s),
            }
        }
    }
    fnv1a64(&serde_json::to_vec(&Canonical(scenario)).expect("a JSON value always serialises"))
}

/// FNV-1a, 64 bits: stable across platforms and Rust versions (unlike `std`'s hasher).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}

/// First pass: every line's id (duplicates are judged over the whole file, so that every shard agrees
/// on which occurrence owns an id), keeping only this shard's lines.
fn scan_input(path: &Path, shard: (usize, usize)) -> Result<Scan, EvalError> {
    let io_err = |source| EvalError::Input { path: path.to_path_buf(), source };
    let mut reader = BufReader::new(File::open(path).map_err(io_err)?);
    let mut first_use: HashMap<JobId, u64> = HashMap::new();
    let mut jobs = Vec::new();
    let mut buf = Vec::new();
    let mut line = 0u64;
    while read_line(&mut reader, &mut buf).map_err(io_err)? {
        if !is_blank(&buf) {
            let (id, hash) = probe(&buf);
            let duplicate_of = id.as_ref().and_then(|id| match first_use.get(id) {
                Some(&first) => Some(first),
                None => {
                    first_use.insert(id.clone(), line);
                    None
                }
            });
            if line % shard.1 as u64 == shard.0 as u64 {
                jobs.push(ShardLine { line, id, hash, duplicate_of });
            }
        }
        line += 1;
    }
    Ok(Scan { input_lines: line, jobs })
}

/// Evaluates one job line; every problem becomes an error record.
fn run_line(job: &ShardLine, text: &[u8], limits: &JobLimits) -> Record {
    let outcome = catch_unwind(AssertUnwindSafe(|| evaluate_line(job, text, limits))).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(format!("internal error while evaluating the job (please report it): {what}"))
    });
    let (metrics, error) = match outcome {
        Ok(result) => (Some(result), None),
        Err(e) => (None, Some(e)),
    };
    Record { id: job.id.clone(), line: job.line, scenario_hash: Some(hash_text(job.hash)), metrics, error }
}

fn evaluate_line(job: &ShardLine, text: &[u8], limits: &JobLimits) -> Result<RunResult, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawJob {
        #[serde(default)]
        id: Option<Value>,
        scenario: Option<Value>,
    }
    const SHAPE: &str = r#"each line must be {"id": <string or number>, "scenario": {...}}"#;
    let raw: RawJob = serde_json::from_slice(text).map_err(|e| format!("malformed job line: {e}; {SHAPE}"))?;
    match &raw.id {
        None => return Err(format!("the job has no `id`; {SHAPE}")),
        Some(v) if JobId::from_value(v).is_none() => {
            return Err(format!("`id` must be a string or a number, got {v}"));
        }
        Some(_) => {}
    }
    if let Some(first) = job.duplicate_of {
        let id = job.id.as_ref().map(|i| i.to_string()).unwrap_or_default();
        return Err(format!("duplicate id {id}: line {first} already uses it; ids must be unique"));
    }
    let scenario = raw.scenario.ok_or_else(|| format!("the job has no `scenario`; {SHAPE}"))?;
    // Through text, so that the scenario's own parser reports JSON paths and validates.
    let scenario = Scenario::from_json(&scenario.to_string()).map_err(|e| format!("scenario: {e}"))?;
    evaluate_within(&scenario, &limits.scenario, limits.timeout).map_err(|e| match e {
        EvalError::Scenario(e) => format!("scenario: {e}"),
        e => e.to_string(),
    })
}

/// What an existing results file holds for this shard (see [`check_existing`]).
#[derive(Debug, Default)]
struct Existing {
    /// The jobs whose records stay where they are: the file up to `keep_end`.
    done: HashSet<u64>,
    /// Where the file is cut: the end of its last complete record, or the start of its first stale one.
    keep_end: u64,
    /// Current records after a stale one (by input line, without their newline): written again in input
    /// order, not evaluated again.
    rewrite: HashMap<u64, Vec<u8>>,
    /// Records whose scenario hash is not the job's (changed scenario, or no hash): evaluated again.
    stale: u64,
    /// Whether a partial last line (an interrupted write) goes.
    dropped_partial_line: bool,
}

/// Checks an existing results file against this shard's jobs: which records stay, where the file is
/// cut, which records after the cut are rewritten and how many are stale.
///
/// The file is resumed only if it is recognisably ours: every complete line is a record of a job of
/// this input and shard (same line index, same id, at most once), and an unterminated last line (an
/// interrupted write) is the beginning of the record this run would write next,
/// `{"id":<id>,"line":<i>,"…`. Anything else — someone's notes, a scenario, one line without a final
/// newline — is refused before the file is opened for writing.
///
/// A record whose `scenario_hash` is not the job's [`scenario_hash`] (the scenario changed under the
/// same id and line, or the record predates the hash) is stale: its job runs again. Records stay in
/// input order, so the file is cut at the first stale record; the current records after it are
/// written again, in place, as the run reaches them.
fn check_existing(path: &Path, jobs: &[ShardLine]) -> Result<Existing, EvalError> {
    let resume_err = |reason: String| EvalError::Resume { path: path.to_path_buf(), reason };
    let io_err = |source| EvalError::Output { path: path.to_path_buf(), source };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::default()),
        Err(e) => return Err(io_err(e)),
    };
    let by_line: HashMap<u64, &ShardLine> = jobs.iter().map(|j| (j.line, j)).collect();
    let mut reader = BufReader::new(file);
    let mut existing = Existing::default();
    let mut seen = HashSet::new();
    let mut cut: Option<u64> = None;
    let mut buf = Vec::new();
    let mut valid_end = 0u64;
    let mut offset = 0u64;
    let mut partial: Option<(u64, Vec<u8>)> = None;
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = reader.by_ref().take(MAX_LINE_BYTES + 1).read_until(b'\n', &mut buf).map_err(io_err)?;
        if n == 0 {
            break;
        }
        number += 1;
        let start = offset;
        offset += n as u64;
        if buf.last() != Some(&b'\n') {
            // Unterminated: only possible as the last line (or a line longer than any record).
            partial = Some((number, std::mem::take(&mut buf)));
            continue;
        }
        if let Some((bad, _)) = &partial {
            return Err(resume_err(format!("its line {bad} is not a result record")));
        }
        let Ok(record) = serde_json::from_slice::<Record>(&buf) else {
            return Err(resume_err(format!("its line {number} is not a result record")));
        };
        if record.metrics.is_some() == record.error.is_some() {
            return Err(resume_err(format!("its line {number} is not a result record (needs `metrics` or `error`)")));
        }
        let job = match by_line.get(&record.line) {
            None => {
                return Err(resume_err(format!(
                    "its line {number} is the result of input line {}, which is not a job of this shard",
                    record.line
                )))
            }
            Some(&job) if job.id != record.id => {
                let show = |id: &Option<JobId>| id.as_ref().map_or("null".to_string(), |i| i.to_string());
                return Err(resume_err(format!(
                    "its line {number} gives id {} for input line {}, which has id {}",
                    show(&record.id),
                    record.line,
                    show(&job.id)
                )));
            }
            Some(&job) => job,
        };
        if !seen.insert(record.line) {
            return Err(resume_err(format!("input line {} has two results (its line {number})", record.line)));
        }
        valid_end = offset;
        if record.scenario_hash.as_deref() != Some(hash_text(job.hash).as_str()) {
            existing.stale += 1;
            cut.get_or_insert(start);
        } else if cut.is_some() {
            buf.pop();
            existing.rewrite.insert(record.line, std::mem::take(&mut buf));
        } else {
            existing.done.insert(record.line);
        }
    }
    if let Some((number, bytes)) = &partial {
        // Records are written in input order: an interrupted write is the first job without a record.
        let next = jobs.iter().find(|j| !seen.contains(&j.line));
        let ours = next.is_some_and(|job| {
            // Without the hash, so that a record interrupted by an older version is recognised too.
            let head = Record { id: job.id.clone(), line: job.line, scenario_hash: None, metrics: None, error: None }
                .to_line();
            let head = format!("{},\"", head.trim_end_matches('}'));
            let n = bytes.len().min(head.len());
            bytes[..n] == head.as_bytes()[..n]
        });
        if !ours {
            return Err(resume_err(format!(
                "its line {number} has no final newline and is not the start of the next record"
            )));
        }
    }
    existing.keep_end = cut.unwrap_or(valid_end);
    existing.dropped_partial_line = partial.is_some();
    Ok(existing)
}

/// Whether two paths name the same file (same device and inode: also catches hard links and
/// different spellings of one path).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Writes records in input order as they arrive out of order, flushing each time the ordered prefix
/// grows so that an interruption loses only jobs that were still running.
struct OrderedWriter {
    out: BufWriter<File>,
    path: PathBuf,
    next: u64,
    pending: BTreeMap<u64, Ready>,
    last_sync: Instant,
    written: u64,
    errors: u64,
    progress: ProgressBar,
}

/// A record ready to be written: computed by this run, or a current record kept from the results file.
enum Ready {
    Fresh(Record),
    Kept(Vec<u8>),
}

/// How often the results are forced to disk (a flush alone already survives a killed process).
const SYNC_INTERVAL: Duration = Duration::from_secs(2);

impl OrderedWriter {
    fn io_err(&self, source: io::Error) -> EvalError {
        EvalError::Output { path: self.path.clone(), source }
    }

    fn push(&mut self, seq: u64, ready: Ready) -> Result<(), EvalError> {
        self.pending.insert(seq, ready);
        let mut wrote = false;
        while let Some(ready) = self.pending.remove(&self.next) {
            let mut line = match &ready {
                Ready::Fresh(record) => record.to_line().into_bytes(),
                Ready::Kept(bytes) => bytes.clone(),
            };
            line.push(b'\n');
            self.out.write_all(&line).map_err(|e| self.io_err(e))?;
            self.next += 1;
            if let Ready::Fresh(record) = &ready {
                self.written += 1;
                if record.error.is_some() {
                    self.errors += 1;
                    self.progress.set_message(format!("{} failed", self.errors));
                }
                self.progress.inc(1);
            }
            wrote = true;
        }
        if wrote {
            self.out.flush().map_err(|e| self.io_err(e))?;
            if self.last_sync.elapsed() >= SYNC_INTERVAL {
                self.out.get_ref().sync_data().map_err(|e| self.io_err(e))?;
                self.last_sync = Instant::now();
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(u64, u64), EvalError> {
        self.out.flush().map_err(|e| self.io_err(e))?;
        self.out.get_ref().sync_data().map_err(|e| self.io_err(e))?;
        self.progress.finish_and_clear();
        Ok((self.written, self.errors))
    }
}

/// Opens and locks an existing results file (refused while another process holds it).
fn lock_results(path: &std::path::Path) -> Result<File, EvalError> {
    let file = File::open(path).map_err(|source| EvalError::Output { path: path.to_path_buf(), source })?;
    run_dir::lock_file(&file, path)?;
    Ok(file)
}

/// Evaluates a JSONL batch (see the module docs and `docs/batch.md`).
///
/// Records are written in input order; the bytes written depend only on the input and the shard, never
/// on `jobs`. When the results file exists, it is checked against the input (ids and line indices),
/// a partial last line is dropped, and only the missing jobs run.
pub fn run_batch(options: BatchOptions) -> Result<BatchSummary, EvalError> {
    run_batch_with(options, JobLimits::default())
}

/// [`run_batch`] with explicit per-job limits.
pub fn run_batch_with(options: BatchOptions, limits: JobLimits) -> Result<BatchSummary, EvalError> {
    let start = Instant::now();
    let shard = options.shard.unwrap_or((0, 1));
    if shard.1 == 0 || shard.0 >= shard.1 {
        return Err(EvalError::Shard { index: shard.0, count: shard.1 });
    }
    if std::fs::metadata(&options.output).is_ok_and(|m| !m.is_file()) {
        return Err(EvalError::NotAFile { path: options.output.clone() });
    }
    if same_file(&options.input, &options.output) {
        return Err(EvalError::SameFile { path: options.output.clone() });
    }
    // One writer per results file: an existing one is locked before it is read, a new one once created.
    let existed = options.output.exists();
    let _held = if existed { Some(lock_results(&options.output)?) } else { None };
    let scan = scan_input(&options.input, shard)?;
    let Existing { done, keep_end, mut rewrite, stale, dropped_partial_line } =
        check_existing(&options.output, &scan.jobs)?;
    // Everything that can fail is tried before the results file is created or touched.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .thread_name(|i| format!("vsr2d-eval-{i}"))
        .build()
        .map_err(|source| EvalError::ThreadPool { jobs: options.jobs, source })?;

    let out_err = |source| EvalError::Output { path: options.output.clone(), source };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&options.output)
        .map_err(out_err)?;
    if !existed {
        run_dir::lock_file(&file, &options.output)?;
        if file.metadata().map_err(out_err)?.len() > 0 {
            // Another process created and filled it since it was read: its records are not ours to cut.
            return Err(
                run_dir::RunDirError::Busy { path: options.output.clone(), lock: options.output.clone() }.into()
            );
        }
    }
    file.set_len(keep_end).map_err(out_err)?;
    file.seek(SeekFrom::End(0)).map_err(out_err)?;

    let shard_jobs = scan.jobs.len() as u64;
    let already_done = (done.len() + rewrite.len()) as u64;
    let target = if options.progress { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
    let progress = ProgressBar::with_draw_target(Some(shard_jobs), target);
    progress.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} jobs, eta {eta} {msg}")
            .expect("the template is valid"),
    );
    progress.set_position(already_done);
    progress.enable_steady_tick(Duration::from_millis(500));

    let mut writer = OrderedWriter {
        out: BufWriter::new(file),
        path: options.output.clone(),
        next: 0,
        pending: BTreeMap::new(),
        last_sync: Instant::now(),
        written: 0,
        errors: 0,
        progress,
    };

    // Second pass: stream the input again, handing this shard's missing jobs to the pool while keeping
    // at most `window` of them in flight, so memory stays bounded whatever the file size.
    let in_err = |source| EvalError::Input { path: options.input.clone(), source };
    let mut reader = BufReader::new(File::open(&options.input).map_err(in_err)?);
    let window = 4 * pool.current_num_threads().max(1);
    let (tx, rx) = mpsc::channel::<(u64, Record)>();
    let mut in_flight = 0usize;
    let mut line = 0u64;
    let mut buf = Vec::new();
    for (seq, job) in scan.jobs.into_iter().filter(|j| !done.contains(&j.line)).enumerate() {
        if let Some(kept) = rewrite.remove(&job.line) {
            writer.push(seq as u64, Ready::Kept(kept))?;
            continue;
        }
        loop {
            if !read_line(&mut reader, &mut buf).map_err(in_err)? {
                let reason = io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank while the batch ran");
                return Err(in_err(reason));
            }
            line += 1;
            if line - 1 == job.line {
                break;
            }
        }
        while in_flight >= window {
            let (s, record) = rx.recv().expect("every job sends its record");
            in_flight -= 1;
            writer.push(s, Ready::Fresh(record))?;
        }
        let text = std::mem::take(&mut buf);
        let tx = tx.clone();
        let this = seq as u64;
        pool.spawn(move || {
            let record = run_line(&job, &text, &limits);
            // The receiver is gone only when the batch already failed.
            let _ = tx.send((this, record));
        });
        in_flight += 1;
    }
    while in_flight > 0 {
        let (s, record) = rx.recv().expect("every job sends its record");
        in_flight -= 1;
        writer.push(s, Ready::Fresh(record))?;
    }
    let (written, errors) = writer.finish()?;
    Ok(BatchSummary {
        input_lines: scan.input_lines,
        shard_jobs,
        already_done,
        stale,
        written,
        errors,
        dropped_partial_line,
        elapsed: start.elapsed(),
    })
}

/// Parses `i/n` (as given to `--shard`).
pub fn parse_shard(text: &str) -> Result<(usize, usize), EvalError> {
    let bad = || EvalError::ShardSyntax { text: text.to_string() };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(EvalError::Shard { index: i, count: n });
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parsing_accepts_only_i_below_n() {
        assert_eq!(parse_shard("0/3").unwrap(), (0, 3));
        assert_eq!(parse_shard("2/3").unwrap(), (2, 3));
        assert!(parse_shard("3/3").is_err());
        assert!(parse_shard("0/0").is_err());
        assert!(parse_shard("1").is_err());
        assert!(parse_shard("-1/2").is_err());
    }

    #[test]
    fn ids_are_json_scalars_and_keep_their_type() {
        assert_eq!(JobId::from_value(&serde_json::json!("a")), Some(JobId::from("a")));
        assert_eq!(JobId::from_value(&serde_json::json!(7)), Some(JobId::from(7)));
        assert_eq!(JobId::from_value(&serde_json::json!(null)), None);
        assert_eq!(JobId::from_value(&serde_json::json!([1])), None);
        assert_ne!(JobId::from("1"), JobId::from(1));
        assert_eq!(JobId::from("1").to_string(), "\"1\"");
    }

    #[test]
    fn scenario_hashes_ignore_formatting_and_key_order_but_not_values() {
        // The published FNV-1a 64 values.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        let hash = |text: &str| scenario_hash(&serde_json::from_str(text).unwrap());
        let a = hash(r##"{"world": {"dt": 0.01, "duration": 2}, "robots": [{"body": ["#"]}]}"##);
        assert_eq!(a, hash(r##"{"robots":[{"body":["#"]}],"world":{"duration":2,"dt":0.01}}"##));
        assert_ne!(a, hash(r##"{"world": {"dt": 0.01, "duration": 3}, "robots": [{"body": ["#"]}]}"##));
        assert_ne!(a, hash(r##"{"world": {"dt": 0.01, "duration": 2}, "robots": [{"body": ["#", "#"]}]}"##));
        // Lines with and without a scenario.
        assert_eq!(probe(br#"{"id": 1, "scenario": {"a": 1}}"#), (Some(JobId::from(1)), hash(r#"{"a": 1}"#)));
        assert_eq!(probe(b"{not json").1, fnv1a64(b"{not json"));
    }

    #[test]
    fn records_round_trip_through_their_line() {
        let r = Record {
            id: Some(JobId::from(3)),
            line: 5,
            scenario_hash: Some(hash_text(7)),
            metrics: None,
            error: Some("x".into()),
        };
        assert_eq!(r.to_line(), r#"{"id":3,"line":5,"scenario_hash":"0000000000000007","error":"x"}"#);
        assert_eq!(serde_json::from_str::<Record>(&r.to_line()).unwrap(), r);
    }
}
