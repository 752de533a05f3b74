//! `ctxc._ctxc`: the native half of the `ctxc` Python package. It runs the library pipeline
//! `ctxc compact` runs ([`ctxc::api`]), with the GIL released, on a transcript's text or on a
//! conversation given as Python values: those are written to the JSON text the command would
//! read by walking them in Rust ([`to_text`]), and the output is built as Python values from
//! the compacted text, its unchanged parts copied from the values given ([`from_text`]). The
//! Python half (`ctxc/__init__.py`) checks the arguments and raises `ctxc.CtxcError`. Arrow
//! data (`compact_batch`) crosses as an Arrow C stream in a PyCapsule, both ways, without a
//! copy.

use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use ctxc::api::{self, Options};
use ctxc::config::{CompactConfig, Layer};
use ctxc::pipeline::OnFindings;
use ctxc::transcript::{Finding, Format, ReadOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyList, PyString};
use std::ffi::CStr;
use std::sync::{Arc, Mutex, PoisonError};
use to_text::Written;

mod from_text;
mod to_text;

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

/// A conversation as the Python half hands it over: a transcript's text, or Python values
/// written as the JSON text ctxc reads ([`to_text`]).
enum Conversation<'py> {
    Text(String),
    Values(Written<'py>),
}

impl<'py> Conversation<'py> {
    /// A `str` as it is, a list, tuple or dict written (`record`: with its containers, to
    /// read the unchanged ones back without parsing). A value with no JSON form is a
    /// `TypeError`, or a `parse` failure for what the `json` module raises a `ValueError` for.
    fn of(value: &Bound<'py, PyAny>, record: bool) -> PyResult<Result<Self, Failure>> {
        if let Ok(text) = value.cast::<PyString>() {
            // One copy, from the string's own UTF-8 (CPython's is always valid).
            let utf8 = to_text::utf8(text)?;
            let text = String::from_utf8(utf8.to_vec())
                .map_err(|e| PyValueError::new_err(format!("a str that is not UTF-8: {e}")))?;
            return Ok(Ok(Conversation::Text(text)));
        }
        match to_text::write(value, record) {
            Ok(written) => Ok(Ok(Conversation::Values(written))),
            Err((place, not_json)) => {
                let message = not_json.at(&place)?;
                Ok(Err(("parse".into(), 0, message, None)))
            }
        }
    }

    fn into_text(self) -> String {
        match self {
            Conversation::Text(text) => text,
            Conversation::Values(written) => written.text,
        }
    }
}

/// The text ctxc compacts for a list, tuple or dict (`ctxc.dumps`): (text, None) or (None,
/// failure).
#[pyfunction]
fn dumps(value: &Bound<'_, PyAny>) -> PyResult<(Option<String>, Option<Failure>)> {
    Ok(match Conversation::of(value, false)? {
        Ok(conversation) => (Some(conversation.into_text()), None),
        Err(failure) => (None, Some(failure)),
    })
}

/// The output of a compaction in the shape given: text for text (`written` None); for
/// values, the list of the output's values, the unchanged ones copied from the values given
/// instead of read from the text ([`from_text`]).
fn output<'py>(
    py: Python<'py>,
    written: Option<Written<'py>>,
    output: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(written) = written else {
        return Ok(PyString::new(py, output).into_any());
    };
    let given = from_text::Given::new(&written.text, written.spans);
    let values = from_text::values(py, output, Some(&given))?;
    Ok(PyList::new(py, values)?.into_any())
}

/// Compacts a conversation: a transcript's text, or a list, tuple or dict of JSON values
/// ([`Conversation::of`]). Returns (output, report JSON, None), or (None, None, failure);
/// the output is text for text, else the list of output values.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn compact<'py>(
    py: Python<'py>,
    conversation: &Bound<'py, PyAny>,
    call: &str,
) -> PyResult<(Option<Bound<'py, PyAny>>, Option<String>, Option<Failure>)> {
    let options = match Call::parse(call).and_then(|c| c.options()) {
        Ok(o) => o,
        Err(failure) => return Ok((None, None, Some(failure))),
    };
    let given = match Conversation::of(conversation, true)? {
        Ok(given) => given,
        Err(failure) => return Ok((None, None, Some(failure))),
    };
    let (text, written) = match given {
        Conversation::Text(text) => (text, None),
        Conversation::Values(written) => (String::new(), Some(written)),
    };
    let source = written.as_ref().map(|w| w.text.as_str());
    let pool = pool()?;
    let result = py.detach(|| {
        pool.install(|| {
            // The values' text stays, to read the output back by: ctxc gets a copy.
            let text = source.map_or(text, str::to_owned);
            api::compact_text(text, &options)
        })
    });
    Ok(match result {
        Ok(done) => {
            // The report's JSON text, for the Python half to read on first use. A compacted
            // report is its fields as they are (`public()` differs only for a failure).
            let report = serde_json::to_string(&done.report)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            (Some(output(py, written, &done.output)?), Some(report), None)
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

/// Counts tokens: of plain text (`transcript` false, a `str`) or of a conversation's context
/// (a transcript's text, or values), as `ctxc stats` counts `contextTokens`. Returns (count,
/// None) or (None, failure).
#[pyfunction]
fn count_tokens(
    py: Python<'_>,
    conversation: &Bound<'_, PyAny>,
    transcript: bool,
    call: &str,
) -> PyResult<(Option<usize>, Option<Failure>)> {
    let text = match Conversation::of(conversation, false)? {
        Ok(c) => c.into_text(),
        Err(failure) => return Ok((None, Some(failure))),
    };
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
    Ok(match counted {
        Ok(n) => (Some(n), None),
        Err(f) => (None, Some(f)),
    })
}

/// What `ctxc check` finds in a conversation (text or values): (format or None, [(line,
/// message)]), or a failure of the options or the values.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn check(
    py: Python<'_>,
    conversation: &Bound<'_, PyAny>,
    call: &str,
) -> PyResult<(Option<String>, Vec<(usize, String)>, Option<Failure>)> {
    let read = match Call::parse(call).and_then(|c| c.read()) {
        Ok(r) => r,
        Err(f) => return Ok((None, Vec::new(), Some(f))),
    };
    let text = match Conversation::of(conversation, false)? {
        Ok(c) => c.into_text(),
        Err(failure) => return Ok((None, Vec::new(), Some(failure))),
    };
    let pool = match pool() {
        Ok(p) => p,
        Err(e) => return Ok((None, Vec::new(), Some(settings_failure(e.to_string())))),
    };
    let (format, findings) = py.detach(|| pool.install(|| api::check_text(text, &read)));
    Ok((
        format.map(|f| f.to_string()),
        findings.into_iter().map(|f| (f.line, f.message)).collect(),
        None,
    ))
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
    m.add_function(wrap_pyfunction!(compact, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(compact_batches, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
