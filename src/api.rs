//! One transcript's text in, its compacted text and report out: what `ctxc compact` does to
//! one file, without files, for library callers (the Python package in `python/`); and an
//! Arrow record batch of conversations in, the batch compacted with one report per row out:
//! what `ctxc compact` does to a row group of a Parquet dataset ([`compact_batch`]).
//!
//! `ctxc compact` runs each file through [`plan`] and [`finish`] too, and each dataset row
//! through [`compact_row`] and [`row_report`], so a caller gets the CLI's output bytes, report
//! figures and error messages. Settings are the settings file's keys ([`Layer`]), over the
//! defaults: no settings file and no `CTXC_*` variable is read.

use crate::config::{CompactConfig, Layer, TokenSettings};
use crate::count::count_transcript;
use crate::dataset::{self, Column, Written};
use crate::pipeline::{self, OnFindings, Outcome, PlanFailure, Plans, Settings};
use crate::report::compact::{FileReport, Status};
use crate::strategy::StrategySettings;
use crate::summarizer::extractive::Extractive;
use crate::tokens::{Encoding, TokenCounter};
use crate::transcript::{self, Finding, Format, ReadOptions, Transcript};
use arrow_array::builder::{
    Float64Builder, Int64Builder, ListBuilder, StringBuilder, StructBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Why a transcript failed: the step (`parse`, `check`, `compact`; `settings` for settings
/// no transcript could be compacted with), the line (0 for none), the error, and what was
/// measured before it failed.
#[derive(Debug)]
pub struct Failed {
    /// The step that failed.
    pub step: &'static str,
    /// The line of the input the error is about (0: none).
    pub line: usize,
    /// What went wrong, as `ctxc compact` reports it.
    pub error: anyhow::Error,
    /// The report so far, when the file was measured.
    pub report: Option<Box<FileReport>>,
}

impl Failed {
    /// A failure at `step`, `line`, from an error.
    pub fn at(step: &'static str, line: usize) -> impl Fn(anyhow::Error) -> Failed {
        move |error| Failed {
            step,
            line,
            error,
            report: None,
        }
    }

    /// The failed report of `path`, with what was measured before the failure.
    pub fn into_report(self, path: &str) -> FileReport {
        let report = self.report.map_or_else(
            || FileReport {
                path: path.to_string(),
                ..FileReport::default()
            },
            |r| *r,
        );
        report.fail(self.step, self.line, format!("{:#}", self.error))
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{:#}", self.error),
            line => write!(f, "line {line}: {:#}", self.error),
        }
    }
}

/// Reads, checks and plans `text` ([`pipeline::read_and_plan`]); a failure says the step and
/// line as `ctxc compact` reports them.
///
/// With [`OnFindings::Keep`], a conversation that fails `check` is left as it was while the
/// others are compacted, but only where there are others: a file that is one conversation, or
/// a session of a client that resumes it (Claude Code, Codex: a broken chain can make it
/// unresumable), is refused as with [`OnFindings::Refuse`].
pub fn plan(
    text: String,
    settings: &Settings,
    on_findings: OnFindings,
) -> Result<(Transcript, Plans), Failed> {
    let (t, plans) = pipeline::read_and_plan(text, settings, on_findings).map_err(plan_failed)?;
    if !plans.kept.is_empty() && !isolates(&t) {
        let mut findings: Vec<Finding> = plans
            .kept
            .iter()
            .flat_map(|k| k.findings.iter().cloned())
            .collect();
        transcript::sort_findings(&mut findings);
        return Err(refused(&findings));
    }
    Ok((t, plans))
}

/// Whether a conversation of `t` that fails `check` can be left as it was while the others
/// are compacted: `t` holds several, and is not one client session.
fn isolates(t: &Transcript) -> bool {
    t.conversations.len() > 1 && !matches!(t.format, Format::ClaudeCode | Format::Codex)
}

/// A planning failure as `ctxc compact` reports it: the step and line.
fn plan_failed(failure: PlanFailure) -> Failed {
    match failure {
        PlanFailure::Read(e) => {
            let first = &e.findings[0];
            Failed::at("parse", first.line)(anyhow::anyhow!(first.message.clone()))
        }
        PlanFailure::Findings(findings) => refused(&findings),
        PlanFailure::Compact(e) => Failed::at("compact", 0)(e),
    }
}

/// The failure of an input refused for its findings (sorted, at least one).
fn refused(findings: &[Finding]) -> Failed {
    let first = &findings[0];
    let more = match findings.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Failed::at("check", first.line)(anyhow::anyhow!(
        "{}{more}: the input fails `ctxc check`, so it is not compacted (--on-findings allow compacts it anyway)",
        first.message
    ))
}

/// Compacts what [`plan`] planned ([`pipeline::finish`]).
pub fn finish<'t>(
    t: &'t Transcript,
    plans: Plans,
    settings: &Settings,
) -> Result<Outcome<'t>, Failed> {
    pipeline::finish(t, plans, settings).map_err(|e| match e.downcast::<pipeline::Unwritable>() {
        Ok(pipeline::Unwritable(finding)) => Failed::at("check", finding.line)(anyhow::anyhow!(
            "{}: compaction cannot work around it, so the input is not compacted, even with --allow-findings",
            finding.message
        )),
        Err(e) => Failed::at("compact", 0)(e),
    })
}

/// What a call compacts with, besides the text.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The name the report gives the input (`path`).
    pub name: String,
    /// The format (detected when `None`) and the message lists' JSON pointer.
    pub read: ReadOptions,
    /// Settings-file keys; unset keys take their defaults.
    pub settings: Layer,
    /// Compact even when no trigger fires (`--force`).
    pub force: bool,
    /// What a conversation that fails `check` does (`--on-findings`; keep by default).
    pub on_findings: OnFindings,
    /// Compact a JSON Lines text whose last line is torn without that line
    /// (`--drop-torn-tail`; refused by default).
    pub drop_torn_tail: bool,
}

/// A compacted transcript.
#[derive(Debug, Clone)]
pub struct Compacted {
    /// The output text, in the input's format and layout.
    pub output: String,
    /// The report `ctxc compact --json` gives for the file (`output` unset).
    pub report: FileReport,
}

/// The validated settings of `options` (only the extractive summarizer: a call never sends a
/// transcript anywhere).
pub fn config(options: &Options) -> Result<CompactConfig, Failed> {
    let config = CompactConfig::from_layer(options.settings.clone(), options.force)
        .map_err(Failed::at("settings", 0))?;
    if config.summarizer.kind != "extractive" {
        return Err(Failed::at("settings", 0)(anyhow::anyhow!(
            "summarizer '{}': only the extractive summarizer is available in a library call",
            config.summarizer.kind
        )));
    }
    Ok(config)
}

/// Runs `f` with the pipeline settings of `options` (as [`compact_text`] compacts with them).
fn with_settings<T>(
    options: &Options,
    f: impl FnOnce(&Settings) -> Result<T, Failed>,
) -> Result<T, Failed> {
    let config = config(options)?;
    let counter = counter(&config.tokens).map_err(Failed::at("settings", 0))?;
    let settings = Settings {
        read: options.read.clone(),
        strategy: StrategySettings {
            drop_stored: false,
            step_plans: false,
            ..config.strategy.clone()
        },
        ..config.pipeline(&Extractive, &counter)
    };
    f(&settings)
}

/// Texts a shared counter caches before it is replaced by an empty one, so that a process
/// that compacts for days holds at most ~40 MB of counts (one entry: a 64-bit hash and a count).
const SHARED_CACHE_TEXTS: u64 = 1 << 20;

/// The counter a call counts with: for a cached encoding, one per encoding for the process, so
/// that its content-hash cache carries over from call to call. An agent loop compacts a
/// history that is mostly the one it compacted last turn, and a batch's rows repeat their
/// system prompt and tools: each text is tokenized once per process instead of once per call.
/// Counts stay exact (the cache holds what the tokenizer said).
///
/// A forked child (another process id) builds its own: the parent's locks, the one around
/// these counters included, may be held by a thread the child does not have, so everything
/// inherited is left alone, never used.
pub fn counter(tokens: &TokenSettings) -> anyhow::Result<Arc<TokenCounter>> {
    if !tokens.cache {
        return tokens.counter().map(Arc::new);
    }
    let mut counters = this_process()
        .counters
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let full = |c: &Arc<TokenCounter>| c.cache_stats().misses >= SHARED_CACHE_TEXTS;
    match counters.get(&tokens.encoding) {
        Some(counter) if !full(counter) => Ok(counter.clone()),
        _ => {
            let counter = Arc::new(tokens.counter()?);
            counters.insert(tokens.encoding, counter.clone());
            Ok(counter)
        }
    }
}

/// One process's shared counters.
struct ProcessCounters {
    pid: u32,
    counters: Mutex<HashMap<Encoding, Arc<TokenCounter>>>,
}

/// The shared counters of this process, made on first use in each process. Found through an
/// atomic pointer, not a lock: a child forked while a thread of its parent held a lock here
/// would wait for it forever.
fn this_process() -> &'static ProcessCounters {
    static CURRENT: AtomicPtr<ProcessCounters> = AtomicPtr::new(std::ptr::null_mut());
    let pid = std::process::id();
    loop {
        let seen = CURRENT.load(Ordering::Acquire);
        if let Some(current) = leaked(seen).filter(|c| c.pid == pid) {
            return current;
        }
        let fresh: &'static ProcessCounters = Box::leak(Box::new(ProcessCounters {
            pid,
            counters: Mutex::default(),
        }));
        let fresh_ptr = std::ptr::from_ref(fresh).cast_mut();
        // Another thread of this process may have set its own first; then that one is used
        // (the loser's few bytes stay leaked, once per such race).
        if CURRENT
            .compare_exchange(seen, fresh_ptr, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return fresh;
        }
    }
}

/// The counters a pointer of [`this_process`] points to.
#[allow(unsafe_code)]
fn leaked(ptr: *mut ProcessCounters) -> Option<&'static ProcessCounters> {
    // SAFETY: the pointer is null or was made by `Box::leak`, and is never freed or written
    // through, so it stays valid and shared for the rest of the process (a fork copies it).
    unsafe { ptr.as_ref() }
}

/// `text` without its torn last line (see [`transcript::Doc::torn_tail`]), with that line's
/// number and bytes; refused, with the hint, unless `drop` (`--drop-torn-tail`).
pub fn torn_tail(
    mut text: String,
    drop: bool,
) -> Result<(String, Option<(usize, String)>), Failed> {
    let Some(torn) = transcript::Doc::torn_tail(&text) else {
        return Ok((text, None));
    };
    if !drop {
        return Err(Failed::at("parse", torn.line)(anyhow::anyhow!(
            "{}: a write cut short; --drop-torn-tail compacts the rest without it (with \
             --archive to keep it, so that `ctxc restore` gives it back)",
            torn.message
        )));
    }
    let fragment = text.split_off(torn.start);
    Ok((text, Some((torn.line, fragment))))
}

/// Compacts one transcript's text as `ctxc compact` compacts a file holding it. A torn last
/// line dropped (`drop_torn_tail`) is not in the output, and the report says so: a library
/// call keeps no archive.
pub fn compact_text(text: String, options: &Options) -> Result<Compacted, Failed> {
    let started = Instant::now();
    let (text, torn) = torn_tail(text, options.drop_torn_tail)?;
    with_settings(options, |settings| {
        let (t, plans) = plan(text, settings, options.on_findings)?;
        let outcome = finish(&t, plans, settings)?;
        let mut report = FileReport::of(options.name.clone(), &t, &outcome);
        if let Some((line, fragment)) = &torn {
            let bytes = fragment.len();
            report.status = Status::Compacted;
            report.bytes_before += bytes;
            report.notes.push(format!(
                "torn last line {line} ({bytes} bytes, not valid JSON) dropped"
            ));
        }
        report.time_ms = started.elapsed().as_millis() as u64;
        Ok(Compacted {
            output: outcome.output.into_owned(),
            report,
        })
    })
}

/// One dataset row's conversation through the pipeline, as `ctxc compact` compacts each row
/// of a Parquet file: its report, named `path` (failed, when it failed), and its compacted
/// text when it changed.
pub fn compact_row(
    path: String,
    text: &str,
    settings: &Settings,
    on_findings: OnFindings,
) -> (FileReport, Option<String>) {
    let ((report, ()), text) = compact_row_with(path, text, settings, on_findings, |_, _| ());
    (report, text)
}

/// [`compact_row`], also handing back what `also` takes from the row's transcript and its
/// outcome when it was compacted (the CLI's archive keeps what happened to its conversations);
/// `X::default()` for a row that failed.
pub fn compact_row_with<X: Default>(
    path: String,
    text: &str,
    settings: &Settings,
    on_findings: OnFindings,
    also: impl FnOnce(&Transcript, &Outcome) -> X,
) -> ((FileReport, X), Option<String>) {
    let started = Instant::now();
    // A row is one conversation of the dataset: kept as it was, it leaves the others to be
    // compacted, whatever it holds.
    let planned = pipeline::read_and_plan(text.into(), settings, on_findings)
        .map_err(plan_failed)
        .and_then(|(t, plans)| {
            let outcome = finish(&t, plans, settings)?;
            let report = FileReport::of(path.clone(), &t, &outcome);
            let x = also(&t, &outcome);
            Ok((
                (report, x),
                outcome.changed.then(|| outcome.output.into_owned()),
            ))
        });
    let ((mut report, x), text) =
        planned.unwrap_or_else(|f| ((f.into_report(&path), X::default()), None));
    report.time_ms = started.elapsed().as_millis() as u64;
    ((report, x), text)
}

/// A row's report, failed when its compacted conversation could not be written back into
/// the column.
pub fn row_report(report: FileReport, written: Written) -> FileReport {
    match written {
        Written::Refused(why) if report.status != Status::Failed => {
            report.fail("write", 0, format!("{why}; the row is left as it was"))
        }
        _ => report,
    }
}

/// A compacted record batch.
#[derive(Debug, Clone)]
pub struct CompactedBatch {
    /// The batch: its columns, the conversation column compacted, then [`REPORT_COLUMNS`]
    /// (in place of columns of those names it already had).
    pub batch: RecordBatch,
    /// Each row's report (`None` for a row without a conversation), named
    /// `NAME#row=N` with [`Options::name`].
    pub reports: Vec<Option<FileReport>>,
}

/// The columns [`compact_batch`] adds, each row's figures from its report: context tokens
/// before and after, the strategies that ran (tokens before and after each), the share of
/// each kind of fact kept (`retention` of the JSON report), and the error of a row that
/// failed (which keeps its value; its tokens are the tokens measured, before = after, or null
/// when it could not be read, and it has no steps and no retention). All null for a row
/// without a conversation.
pub const REPORT_COLUMNS: [&str; 8] = [
    "tokens_before",
    "tokens_after",
    "strategy_steps",
    "retention_paths",
    "retention_commands",
    "retention_errors",
    "retention_user_requests",
    "error",
];

/// Compacts each row of a record batch as `ctxc compact` compacts each row of a Parquet
/// dataset: the conversation column is `column`, else the first of
/// [`dataset::COLUMN_NAMES`] there is; it holds a list of structs or JSON text. A row that
/// fails keeps its value, and its error is in its report and its `error` column. Rows are
/// compacted in parallel (on the current rayon pool). Fails only for settings it refuses
/// (`settings`) and a batch without a conversation column (`read`).
pub fn compact_batch(
    batch: &RecordBatch,
    column: Option<&str>,
    options: &Options,
) -> Result<CompactedBatch, Failed> {
    let mut done = compact_batches(std::slice::from_ref(batch), column, options)?;
    Ok(done.remove(0))
}

/// [`compact_batch`] on each of `batches` (of one schema), in parallel, with one token counter
/// (and so one count cache) for them all, as `ctxc compact` has one for all the row groups of
/// a dataset. Row names count from 0 in each batch.
pub fn compact_batches(
    batches: &[RecordBatch],
    column: Option<&str>,
    options: &Options,
) -> Result<Vec<CompactedBatch>, Failed> {
    let found = match batches.first() {
        Some(batch) => {
            Column::find(&batch.schema(), column, "column=").map_err(Failed::at("read", 0))?
        }
        None => return Ok(Vec::new()),
    };
    with_settings(options, |settings| {
        batches
            .par_iter()
            .map(|batch| {
                let each = |row: dataset::Row| {
                    let path = dataset::row_path(&options.name, row.index);
                    compact_row(path, row.text, settings, options.on_findings)
                };
                let (compacted, done) = found
                    .rewrite(batch, 0, each)
                    .map_err(Failed::at("write", 0))?;
                let mut reports = vec![None; batch.num_rows()];
                for (i, report, written) in done {
                    reports[i] = Some(row_report(report, written));
                }
                let batch =
                    with_report_columns(&compacted, &reports).map_err(Failed::at("write", 0))?;
                Ok(CompactedBatch { batch, reports })
            })
            .collect()
    })
}

/// `batch` with [`REPORT_COLUMNS`] from `reports`, one per row.
fn with_report_columns(
    batch: &RecordBatch,
    reports: &[Option<FileReport>],
) -> anyhow::Result<RecordBatch> {
    let step_fields = Fields::from(vec![
        Field::new("strategy", DataType::Utf8, true),
        Field::new("tokens_before", DataType::Int64, true),
        Field::new("tokens_after", DataType::Int64, true),
    ]);
    let n = reports.len();
    let mut before = Int64Builder::with_capacity(n);
    let mut after = Int64Builder::with_capacity(n);
    let mut steps = ListBuilder::new(StructBuilder::from_fields(step_fields.clone(), n))
        .with_field(Field::new("item", DataType::Struct(step_fields), true));
    let mut retention: [Float64Builder; 4] =
        std::array::from_fn(|_| Float64Builder::with_capacity(n));
    let mut error = StringBuilder::new();
    for report in reports {
        let Some(r) = report else {
            before.append_null();
            after.append_null();
            steps.append_null();
            retention.iter_mut().for_each(Float64Builder::append_null);
            error.append_null();
            continue;
        };
        let failed = r.status == Status::Failed;
        let measured = r.format.is_some();
        before.append_option(measured.then_some(r.context_tokens_before as i64));
        after.append_option(measured.then_some(r.context_tokens_after as i64));
        if failed {
            steps.append_null();
            retention.iter_mut().for_each(Float64Builder::append_null);
            let message = r.error.clone().unwrap_or_default();
            error.append_value(match r.error_line {
                Some(line) => format!("line {line}: {message}"),
                None => message,
            });
            continue;
        }
        let values = steps.values();
        for step in &r.steps {
            values
                .field_builder::<StringBuilder>(0)
                .expect("strategy")
                .append_value(step.strategy.to_string());
            values
                .field_builder::<Int64Builder>(1)
                .expect("tokens_before")
                .append_value(step.tokens_before as i64);
            values
                .field_builder::<Int64Builder>(2)
                .expect("tokens_after")
                .append_value(step.tokens_after as i64);
            values.append(true);
        }
        steps.append(true);
        let kept = &r.retention;
        for (builder, tally) in
            retention
                .iter_mut()
                .zip([kept.paths, kept.commands, kept.errors, kept.user_requests])
        {
            // As the JSON report writes it: four decimals, null for nothing to keep.
            builder.append_option(tally.share());
        }
        error.append_null();
    }
    let [paths, commands, errors, requests] =
        retention.map(|mut b| Arc::new(b.finish()) as ArrayRef);
    let added: [ArrayRef; 8] = [
        Arc::new(before.finish()),
        Arc::new(after.finish()),
        Arc::new(steps.finish()),
        paths,
        commands,
        errors,
        requests,
        Arc::new(error.finish()),
    ];
    let schema = batch.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut columns = batch.columns().to_vec();
    for (name, column) in REPORT_COLUMNS.into_iter().zip(added) {
        let field = Field::new(name, column.data_type().clone(), true);
        match fields.iter().position(|f| f.name() == name) {
            Some(at) => {
                fields[at] = field;
                columns[at] = column;
            }
            None => {
                fields.push(field);
                columns.push(column);
            }
        }
    }
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    Ok(RecordBatch::try_new(Arc::new(schema), columns)?)
}

/// Reads `text` as a transcript; the first finding when it cannot be read.
fn read(text: String, read: &ReadOptions) -> Result<Transcript, Finding> {
    transcript::read(text, read).map_err(|mut e| e.findings.swap_remove(0))
}

/// The context tokens of a transcript's text, summed over its conversations, as `ctxc stats`
/// counts them (`contextTokens`).
pub fn count_transcript_text(
    text: String,
    read_options: &ReadOptions,
    counter: &TokenCounter,
) -> Result<usize, Finding> {
    let t = read(text, read_options)?;
    Ok(count_transcript(counter, &t)
        .conversations
        .iter()
        .map(|c| c.total())
        .sum())
}

/// What `ctxc check` finds in a transcript's text, and the format it was read as.
pub fn check_text(text: String, read_options: &ReadOptions) -> (Option<Format>, Vec<Finding>) {
    match transcript::read(text, read_options) {
        Err(e) => (None, e.findings),
        Ok(t) => {
            let findings = transcript::check(&t);
            (Some(t.format), findings)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use arrow_array::{Array, StringArray};

    fn chat(rounds: usize) -> String {
        let mut messages = vec![serde_json::json!({"role": "system", "content": "Be brief."})];
        for i in 0..rounds {
            messages.push(serde_json::json!({"role": "user", "content": format!("Please edit src/file{i}.rs and run cargo test again, round {i}.")}));
            messages.push(serde_json::json!({"role": "assistant", "content": format!("Done with round {i}: the tests pass and src/file{i}.rs compiles.")}));
        }
        serde_json::Value::Array(messages).to_string()
    }

    #[test]
    fn calls_share_one_count_cache_and_a_warm_call_gives_what_the_first_gave() {
        // cl100k: no other test counts with it, so its cache's misses are this test's.
        let options = Options {
            name: "chat.json".into(),
            settings: serde_json::from_value(
                serde_json::json!({"target_ratio": 0.5, "encoding": "cl100k_base"}),
            )
            .unwrap(),
            force: true,
            ..Options::default()
        };
        let tokens = config(&options).unwrap().tokens;
        let shared = counter(&tokens).unwrap();
        assert!(Arc::ptr_eq(&shared, &counter(&tokens).unwrap()));
        let text = chat(15);
        let first = compact_text(text.clone(), &options).unwrap();
        let counted = shared.cache_stats().misses;
        let second = compact_text(text, &options).unwrap();
        assert_eq!(
            shared.cache_stats().misses,
            counted,
            "nothing tokenized twice"
        );
        assert!(first.report.context_tokens_after < first.report.context_tokens_before);
        assert_eq!(second.output, first.output);
        let public = |r: &FileReport| {
            let mut v = r.public();
            v.as_object_mut().unwrap().remove("timeMs");
            v
        };
        assert_eq!(public(&second.report), public(&first.report));
        // The count a call gives is the tokenizer's, as a counter of its own counts it.
        let fresh = TokenSettings {
            cache: false,
            ..tokens
        };
        let own = counter(&fresh).unwrap();
        assert!(!Arc::ptr_eq(&own, &shared));
        assert_eq!(own.count(&first.output), shared.count(&first.output));
    }

    #[test]
    fn a_torn_last_line_is_refused_with_the_hint_or_dropped_when_asked() {
        let messages: Vec<serde_json::Value> = serde_json::from_str(&chat(12)).unwrap();
        let lines: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
        let whole = lines.join("\n") + "\n";
        let torn = whole.clone() + r#"{"role": "assistant", "content": "Now I'"#;
        let mut options = Options {
            name: "t.jsonl".into(),
            settings: serde_json::from_value(serde_json::json!({"target_ratio": 0.5})).unwrap(),
            force: true,
            ..Options::default()
        };
        let refused = compact_text(torn.clone(), &options).unwrap_err();
        assert_eq!((refused.step, refused.line), ("parse", lines.len() + 1));
        assert!(
            refused.to_string().contains("--drop-torn-tail"),
            "{refused}"
        );
        options.drop_torn_tail = true;
        let dropped = compact_text(torn.clone(), &options).unwrap();
        let rest = compact_text(whole, &options).unwrap();
        assert_eq!(dropped.output, rest.output);
        assert_eq!(dropped.report.bytes_before, torn.len());
        assert!(
            dropped
                .report
                .notes
                .iter()
                .any(|n| n.starts_with("torn last line"))
        );
    }

    #[test]
    fn a_batch_is_compacted_row_by_row_with_a_report_per_row() {
        let rows = StringArray::from(vec![Some(chat(12)), None, Some("not json".to_string())]);
        let ids = arrow_array::Int64Array::from(vec![1, 2, 3]);
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("history", DataType::Utf8, true),
        ]);
        let batch =
            RecordBatch::try_new(Arc::new(schema), vec![Arc::new(ids), Arc::new(rows)]).unwrap();
        let options = Options {
            name: "b".into(),
            settings: serde_json::from_value(serde_json::json!({"target_ratio": 0.5})).unwrap(),
            force: true,
            ..Options::default()
        };
        let done = compact_batch(&batch, None, &options).unwrap();
        let out = &done.batch;
        let schema = out.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names[..2], ["id", "history"]);
        assert_eq!(names[2..], REPORT_COLUMNS);
        assert_eq!(out.column(0).as_ref(), batch.column(0).as_ref());
        let history = out.column(1).as_string::<i32>();
        assert!(history.value(0).len() < batch.column(1).as_string::<i32>().value(0).len());
        assert!(history.is_null(1));
        assert_eq!(history.value(2), "not json", "a failed row keeps its value");
        let report = done.reports[0].as_ref().unwrap();
        assert_eq!(report.path, "b#row=0");
        assert_eq!(report.status, Status::Compacted);
        assert!(done.reports[1].is_none());
        assert_eq!(done.reports[2].as_ref().unwrap().status, Status::Failed);
        let before = out.column(2).as_primitive::<Int64Type>();
        let after = out.column(3).as_primitive::<Int64Type>();
        assert_eq!(before.value(0) as usize, report.context_tokens_before);
        assert_eq!(after.value(0) as usize, report.context_tokens_after);
        assert!(before.is_null(1) && before.is_null(2));
        let steps = out.column(4).as_list::<i32>();
        assert_eq!(steps.value(0).len(), report.steps.len());
        assert!(steps.is_null(2));
        let paths = out.column(5).as_primitive::<Float64Type>();
        assert_eq!(paths.value(0), report.retention.paths.ratio());
        let error = out.column(9).as_string::<i32>();
        assert!(error.is_null(0) && error.is_null(1));
        assert!(error.value(2).starts_with("line 1: "), "{}", error.value(2));
        // Batches compacted together, with one counter, give each batch's rows.
        let both = compact_batches(&[batch.clone(), batch.slice(2, 1)], None, &options).unwrap();
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].batch.columns()[..4], out.columns()[..4]);
        assert_eq!(
            both[1].batch.column(9).as_ref(),
            out.column(9).slice(2, 1).as_ref()
        );
        assert!(compact_batches(&[], None, &options).unwrap().is_empty());
        // The column is found by name or given; another is refused.
        let err = compact_batch(&batch, Some("id"), &options).unwrap_err();
        assert_eq!(err.step, "read");
        assert!(err.to_string().contains("is Int64"), "{err}");
    }
}
