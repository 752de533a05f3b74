//! `ctxc._ctxc`: the native half of the `ctxc` Python package. Text in, text out: the Python
//! half (`ctxc/__init__.py`) turns Python values into a transcript's JSON text and back, and
//! raises `ctxc.CtxcError`; this half runs the library pipeline `ctxc compact` runs
//! ([`ctxc::api`]), with the GIL released. Arrow data (`compact_batch`) crosses as an Arrow C
//! stream in a PyCapsule, both ways, without a copy.

use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use ctxc::api::{self, Options};
use ctxc::config::{CompactConfig, Layer};
use ctxc::pipeline::OnFindings;
use ctxc::transcript::{Finding, Format, ReadOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods};
use std::ffi::CStr;
use std::sync::{Arc, Mutex, PoisonError};

/// The threads this process compacts on. Not rayon's global pool: a process forked after a
/// call (multiprocessing's default on Linux) inherits a pool whose threads it does not have, and
/// its first parallel call would wait for them forever. A forked child, with another process
/// id, builds its own; the parent's, whose threads are not there to stop, is left alone.
fn pool() -> PyResult<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut held = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((owner, pool)) = held.as_ref() {
        if *owner == pid {
            return Ok(pool.clone());
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("ctxc-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| PyValueError::new_err(format!("starting ctxc's threads: {e}")))?;
    if let Some(inherited) = held.replace((pid, pool.clone())) {
        std::mem::forget(inherited);
    }
    Ok(pool)
}

/// A failure: (step, line, message, report as JSON or None).
type Failure = (String, usize, String, Option<String>);

/// What the Python half passes besides the text, as JSON.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Call {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    messages_path: Option<String>,
    #[serde(default)]
    force: bool,
    /// `keep`, `refuse` or `allow`, as `--on-findings` takes them (the Python half maps the
    /// deprecated `allow_findings=True` to `allow`).
    #[serde(default)]
    on_findings: Option<String>,
    #[serde(default)]
    settings: serde_json::Map<String, serde_json::Value>,
}

fn settings_failure(message: String) -> Failure {
    ("settings".into(), 0, message, None)
}

impl Call {
    fn parse(json: &str) -> Result<Call, Failure> {
        serde_json::from_str(json).map_err(|e| settings_failure(format!("options: {e}")))
    }

    fn read(&self) -> Result<ReadOptions, Failure> {
        let format = match &self.format {
            Some(name) => Some(
                name.parse::<Format>()
                    .map_err(|e| settings_failure(format!("format '{name}': {e}")))?,
            ),
            None => None,
        };
        Ok(ReadOptions {
            format,
            messages_path: self.messages_path.clone(),
        })
    }

    fn layer(&self) -> Result<Layer, Failure> {
        serde_json::from_value(serde_json::Value::Object(self.settings.clone()))
            .map_err(|e| settings_failure(format!("settings: {e}")))
    }

    /// What a conversation that fails `check` does; `keep` unless named, as on the command line.
    fn on_findings(&self) -> Result<OnFindings, Failure> {
        let Some(name) = &self.on_findings else {
            return Ok(OnFindings::default());
        };
        OnFindings::ALL
            .into_iter()
            .find(|choice| choice.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = OnFindings::ALL.iter().map(|c| c.name()).collect();
                settings_failure(format!(
                    "on_findings '{name}': expected one of {}",
                    names.join(", ")
                ))
            })
    }

    fn options(&self) -> Result<Options, Failure> {
        Ok(Options {
            name: self.name.clone().unwrap_or_else(|| "<input>".into()),
            read: self.read()?,
            settings: self.layer()?,
            force: self.force,
            on_findings: self.on_findings()?,
            // The text is made from a Python value: it has no torn last line.
            drop_torn_tail: false,
        })
    }
}

fn finding_failure(step: &str, f: Finding) -> Failure {
    (step.into(), f.line, f.message, None)
}

/// Compacts a transcript's text. Returns (output, report JSON, None), or (None, None,
/// failure).
#[pyfunction]
fn compact_text(
    py: Python<'_>,
    text: String,
    call: &str,
) -> PyResult<(Option<String>, Option<String>, Option<Failure>)> {
    let options = match Call::parse(call).and_then(|c| c.options()) {
        Ok(o) => o,
        Err(failure) => return Ok((None, None, Some(failure))),
    };
    let pool = pool()?;
    let result = py.detach(|| pool.install(|| api::compact_text(text, &options)));
    Ok(match result {
        Ok(done) => {
            // As the CLI's reports write it (`null` for figures a file never had).
            let report = serde_json::to_string(&done.report.public())
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            (Some(done.output), Some(report), None)
        }
        Err(failed) => {
            let report = failed
                .report
                .as_deref()
                .and_then(|r| serde_json::to_string(&r.public()).ok());
            let failure = (
                failed.step.to_string(),
                failed.line,
                format!("{:#}", failed.error),
                report,
            );
            (None, None, Some(failure))
        }
    })
}

/// Counts tokens: of plain text (`transcript` false) or of a transcript's context, as
/// `ctxc stats` counts `contextTokens`. Returns (count, None) or (None, failure).
#[pyfunction]
fn count_tokens(
    py: Python<'_>,
    text: String,
    transcript: bool,
    call: &str,
) -> (Option<usize>, Option<Failure>) {
    let counted = (|| {
        let call = Call::parse(call)?;
        let read = call.read()?;
        let config = CompactConfig::from_layer(call.layer()?, false)
            .map_err(|e| settings_failure(format!("{e:#}")))?;
        let counter =
            api::counter(&config.tokens).map_err(|e| settings_failure(format!("{e:#}")))?;
        let pool = pool().map_err(|e| settings_failure(e.to_string()))?;
        py.detach(|| {
            pool.install(|| {
                if transcript {
                    api::count_transcript_text(text, &read, &counter)
                        .map_err(|f| finding_failure("parse", f))
                } else {
                    Ok(counter.count(&text))
                }
            })
        })
    })();
    match counted {
        Ok(n) => (Some(n), None),
        Err(f) => (None, Some(f)),
    }
}

/// What `ctxc check` finds: (format or None, [(line, message)]), or a failure of the options.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn check_text(
    py: Python<'_>,
    text: String,
    call: &str,
) -> (Option<String>, Vec<(usize, String)>, Option<Failure>) {
    let read = match Call::parse(call).and_then(|c| c.read()) {
        Ok(r) => r,
        Err(f) => return (None, Vec::new(), Some(f)),
    };
    let pool = match pool() {
        Ok(p) => p,
        Err(e) => return (None, Vec::new(), Some(settings_failure(e.to_string()))),
    };
    let (format, findings) = py.detach(|| pool.install(|| api::check_text(text, &read)));
    (
        format.map(|f| f.to_string()),
        findings.into_iter().map(|f| (f.line, f.message)).collect(),
        None,
    )
}

/// The name the Arrow PyCapsule interface gives a capsule holding an `ArrowArrayStream`.
const STREAM: &CStr = c"arrow_array_stream";

/// Moves the Arrow C stream out of a capsule of the Arrow PyCapsule interface (what
/// `__arrow_c_stream__` returns); the capsule is left holding a released stream, which its
/// destructor skips.
#[allow(unsafe_code)]
fn take_stream(capsule: &Bound<'_, PyCapsule>) -> PyResult<FFI_ArrowArrayStream> {
    let pointer = capsule.pointer_checked(Some(STREAM))?;
    // SAFETY: a capsule named `arrow_array_stream` holds a valid, aligned, initialized
    // `struct ArrowArrayStream` (the PyCapsule interface's contract; the name was checked
    // above); `from_raw` moves it out and marks the original released, as the C stream
    // interface's move semantics require.
    Ok(unsafe { FFI_ArrowArrayStream::from_raw(pointer.as_ptr().cast()) })
}

/// Compacts each row of the record batches an Arrow C stream capsule holds, as `ctxc compact`
/// compacts each row of a Parquet dataset, the batches in parallel and the rows of each in
/// parallel, with one token count cache for the call ([`api::compact_batches`]). Returns (a capsule of the stream of compacted batches, one per batch given, with
/// the report columns; None) or (None, failure).
#[pyfunction]
#[pyo3(signature = (stream, column, call))]
fn compact_batches<'py>(
    py: Python<'py>,
    stream: &Bound<'py, PyCapsule>,
    column: Option<String>,
    call: &str,
) -> PyResult<(Option<Bound<'py, PyCapsule>>, Option<Failure>)> {
    let options = match Call::parse(call).and_then(|c| c.options()) {
        Ok(o) => o,
        Err(failure) => return Ok((None, Some(failure))),
    };
    let stream = take_stream(stream)?;
    let pool = pool()?;
    let done = py.detach(
        || -> Result<(Vec<RecordBatch>, arrow_schema::SchemaRef), Failure> {
            let read_failure =
                |e: arrow_schema::ArrowError| ("read".to_string(), 0, e.to_string(), None);
            let reader = ArrowArrayStreamReader::try_new(stream).map_err(read_failure)?;
            let schema = reader.schema();
            let batches: Vec<RecordBatch> =
                reader.collect::<Result<_, _>>().map_err(read_failure)?;
            let failure =
                |f: api::Failed| (f.step.to_string(), f.line, format!("{:#}", f.error), None);
            // With no batch, the schema of the batches there would be.
            let probe = RecordBatch::new_empty(schema);
            let empty = [probe];
            let given = if batches.is_empty() {
                &empty[..]
            } else {
                &batches[..]
            };
            let compacted: Vec<RecordBatch> = pool
                .install(|| api::compact_batches(given, column.as_deref(), &options))
                .map_err(failure)?
                .into_iter()
                .map(|c| c.batch)
                .collect();
            let schema = compacted[0].schema();
            let out = if batches.is_empty() {
                Vec::new()
            } else {
                compacted
            };
            Ok((out, schema))
        },
    );
    match done {
        Ok((batches, schema)) => {
            let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
            let stream = FFI_ArrowArrayStream::new(Box::new(reader));
            let capsule = PyCapsule::new_with_value(py, stream, STREAM)?;
            Ok((Some(capsule), None))
        }
        Err(failure) => Ok((None, Some(failure))),
    }
}

#[pymodule]
fn _ctxc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compact_text, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(check_text, m)?)?;
    m.add_function(wrap_pyfunction!(compact_batches, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
