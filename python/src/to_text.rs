//! A conversation given as Python values → the JSON text ctxc reads, written by walking the
//! values in Rust: byte for byte what CPython's `json` encoder writes with
//! `ensure_ascii=False, allow_nan=False, separators=(",", ":")` (and what `JSON.stringify`
//! writes), without a Python-level encoder or a Python string per element. A list (or tuple) is
//! JSONL, one element per line; a dict is one line.
//!
//! The containers near the top (a list's elements, their fields, the messages in them) are
//! recorded with their place in the text ([`Span`]): the compacted output's unchanged parts
//! are read back from them instead of from the text ([`crate::from_text`]).

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// How deep below a top value (a list's element, or the dict given) containers are recorded
/// for reuse: an element (a message, a record, a conversation), its fields (a conversation's
/// message list), the items of those (its messages). Deeper, a changed message's parts are
/// read again: recording them costs more than reading them saves.
pub(crate) const RECORDED_DEPTH: usize = 2;

/// The bytes a recorded container's text is looked up by ([`crate::from_text::Given`]): as
/// many as it takes to tell most messages apart (a tool call's id comes after
/// `{"role":"assistant","content":null,"tool_calls":[{"id":`); a shorter container is cheap
/// to read again.
pub(crate) const FINGERPRINT: usize = 128;

/// Deeper than this is refused (with a circular value, which would never end, named as such):
/// the walk recurses, and ctxc's reader would refuse the text anyway.
const MAX_DEPTH: usize = 512;

/// A container written at depth ≤ [`RECORDED_DEPTH`]: its text is `text[start..end]`.
pub(crate) struct Span<'py> {
    pub start: usize,
    pub end: usize,
    pub value: Bound<'py, PyAny>,
}

/// The text of a conversation and the containers recorded in it.
pub(crate) struct Written<'py> {
    pub text: String,
    pub spans: Vec<Span<'py>>,
}

/// Why a value cannot be written: what the `json` module raises a `TypeError` for (a type
/// with no JSON form) or a `ValueError` for (NaN, a circular value, a lone surrogate).
pub(crate) enum NotJson {
    Type(String),
    Value(String),
}

impl NotJson {
    /// The error with the element it is in (`messages[2] is not JSON: ...`): a `TypeError`,
    /// or the message of the `ctxc.CtxcError` the Python half raises.
    pub(crate) fn at(self, place: &str) -> Result<String, PyErr> {
        match self {
            NotJson::Type(why) => Err(PyTypeError::new_err(format!("{place} is not JSON: {why}"))),
            NotJson::Value(why) => Ok(format!("{place} is not JSON: {why}")),
        }
    }
}

/// Writes a list or tuple as JSONL, or a dict as one line; `record`: with the spans of its
/// top containers. Errors name the element (`messages[i]`) or `messages`, as
/// [`NotJson::at`] words them.
pub(crate) fn write<'py>(
    value: &Bound<'py, PyAny>,
    record: bool,
) -> Result<Written<'py>, (String, NotJson)> {
    let mut writer = Writer {
        out: Vec::new(),
        spans: Vec::new(),
        record,
        path: Vec::new(),
    };
    if let Ok(list) = value.cast::<PyList>() {
        for (i, element) in list.iter().enumerate() {
            writer.line(&element, || format!("messages[{i}]"))?;
        }
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        for (i, element) in tuple.iter().enumerate() {
            writer.line(&element, || format!("messages[{i}]"))?;
        }
    } else {
        writer.line(value, || "messages".to_string())?;
    }
    // Every byte written is UTF-8: whole `str`s, ASCII punctuation and escapes.
    let text = String::from_utf8(writer.out).expect("written from UTF-8 pieces");
    Ok(Written {
        text,
        spans: writer.spans,
    })
}

struct Writer<'py> {
    out: Vec<u8>,
    spans: Vec<Span<'py>>,
    record: bool,
    /// The containers being written, outermost first (their addresses), to tell a circular
    /// value from a deep one.
    path: Vec<usize>,
}

impl<'py> Writer<'py> {
    fn line(
        &mut self,
        value: &Bound<'py, PyAny>,
        place: impl Fn() -> String,
    ) -> Result<(), (String, NotJson)> {
        self.value(value, 0).map_err(|e| (place(), e))?;
        self.out.push(b'\n');
        Ok(())
    }

    /// In the `json` encoder's order of checks: None, True, False, str, int, float, list or
    /// tuple, dict.
    fn value(&mut self, value: &Bound<'py, PyAny>, depth: usize) -> Result<(), NotJson> {
        // The exact types first, each a pointer comparison (a subclass check is a call into
        // Python under the stable ABI): nearly every value of a conversation is one of them.
        if let Ok(s) = value.cast_exact::<PyString>() {
            return self.string(s);
        }
        if value.is_exact_instance_of::<PyDict>() || value.is_exact_instance_of::<PyList>() {
            return self.container(value, depth);
        }
        if value.is_none() {
            self.out.extend_from_slice(b"null");
        } else if let Ok(b) = value.cast_exact::<PyBool>() {
            let text: &[u8] = if b.is_true() { b"true" } else { b"false" };
            self.out.extend_from_slice(text);
        } else if let Ok(s) = value.cast::<PyString>() {
            self.string(s)?;
        } else if let Ok(i) = value.cast::<PyInt>() {
            let text = int_text(i).map_err(value_error)?;
            self.out.extend_from_slice(text.as_bytes());
        } else if let Ok(f) = value.cast::<PyFloat>() {
            let text = float_text(f)?;
            self.out.extend_from_slice(text.as_bytes());
        } else if value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
            || value.is_instance_of::<PyDict>()
        {
            self.container(value, depth)?;
        } else {
            let name = value
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "?".into());
            return Err(NotJson::Type(format!(
                "Object of type {name} is not JSON serializable"
            )));
        }
        Ok(())
    }

    fn container(&mut self, value: &Bound<'py, PyAny>, depth: usize) -> Result<(), NotJson> {
        let address = value.as_ptr() as usize;
        if depth >= MAX_DEPTH {
            return Err(NotJson::Value(if self.path.contains(&address) {
                "Circular reference detected".into()
            } else {
                format!("nested more than {MAX_DEPTH} deep")
            }));
        }
        self.path.push(address);
        let start = self.out.len();
        if let Ok(list) = value.cast_exact::<PyList>() {
            self.array(list.iter(), depth)?;
        } else if let Ok(dict) = value.cast::<PyDict>() {
            self.dict(dict, depth)?;
        } else if let Ok(list) = value.cast::<PyList>() {
            self.array(list.iter(), depth)?;
        } else if let Ok(tuple) = value.cast::<PyTuple>() {
            self.array(tuple.iter(), depth)?;
        }
        self.path.pop();
        let end = self.out.len();
        if self.record && depth <= RECORDED_DEPTH && end - start >= FINGERPRINT {
            self.spans.push(Span {
                start,
                end,
                value: value.clone(),
            });
        }
        Ok(())
    }

    fn array(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> Result<(), NotJson> {
        self.out.push(b'[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&item, depth + 1)?;
        }
        self.out.push(b']');
        Ok(())
    }

    fn dict(&mut self, dict: &Bound<'py, PyDict>, depth: usize) -> Result<(), NotJson> {
        self.out.push(b'{');
        for (i, (key, item)) in dict.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            match key
                .cast_exact::<PyString>()
                .or_else(|_| key.cast::<PyString>())
            {
                Ok(s) => self.string(s)?,
                Err(_) => {
                    let text = key_text(&key)?;
                    self.out.push(b'"');
                    self.out.extend_from_slice(text.as_bytes());
                    self.out.push(b'"');
                }
            }
            self.out.push(b':');
            self.value(&item, depth + 1)?;
        }
        self.out.push(b'}');
        Ok(())
    }

    fn string(&mut self, s: &Bound<'py, PyString>) -> Result<(), NotJson> {
        escape_into(&mut self.out, utf8(s).map_err(value_error)?);
        Ok(())
    }
}

/// The UTF-8 bytes of a `str`, borrowed from it: no `bytes` object, no copy. Most strings of a
/// conversation are ASCII, whose UTF-8 is the string's own data; any other keeps its UTF-8
/// with it once made (as it does for every other reader of it through this function).
///
/// `PyUnicode_AsUTF8AndSize` is in the stable ABI from 3.10 on, which pyo3's abi3-py39 build
/// does not declare; CPython 3.9 exports it too, with the same signature (it is public API
/// since 3.3), so the abi3 wheel for 3.9 and later can call it.
#[allow(unsafe_code)]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    unsafe extern "C" {
        fn PyUnicode_AsUTF8AndSize(
            unicode: *mut ffi::PyObject,
            size: *mut ffi::Py_ssize_t,
        ) -> *const std::ffi::c_char;
    }
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (a `Bound` holds a reference to it, with the GIL held) and
    // `size` a valid place for the length.
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    let len = usize::try_from(size).expect("a length is never negative");
    // SAFETY: on success the pointer is to `size` bytes of UTF-8 that the string owns and
    // keeps, unchanged, for as long as the string lives: at least 'a, the borrow of `s`.
    Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
}

/// A quoted JSON string, escaped as the `json` module (and `JSON.stringify`) escape with
/// `ensure_ascii=False`: `"`, `\` and the control characters, nothing else.
fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = next_escaped(bytes, at) {
        out.extend_from_slice(&bytes[copied..found]);
        escape_byte(out, bytes[found]);
        copied = found + 1;
        at = found + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// The first byte from `at` on that a JSON string escapes. Eight bytes at a time: most text
/// has none, and this runs over every byte of the conversation.
fn next_escaped(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero: the high bit of that byte of the result is set.
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let found = control
            | zero_byte(x ^ (ONES * u64::from(b'"')))
            | zero_byte(x ^ (ONES * u64::from(b'\\')));
        if found != 0 {
            // A borrow can mark bytes above a found one, never below: the lowest mark is
            // the first such byte.
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|i| at + i)
}

fn escape_byte(out: &mut Vec<u8>, b: u8) {
    let short: &[u8] = match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
            return;
        }
    };
    out.extend_from_slice(short);
}

/// `int.__repr__`, as the encoder writes an int (a subclass's own `__repr__` ignored).
fn int_text(i: &Bound<'_, PyInt>) -> PyResult<String> {
    if i.is_exact_instance_of::<PyInt>() {
        if let Ok(small) = i.extract::<i64>() {
            return Ok(small.to_string());
        }
    }
    let py = i.py();
    py.get_type::<PyInt>()
        .call_method1("__repr__", (i,))?
        .extract()
}

/// `float.__repr__`; NaN and the infinities refused, as with `allow_nan=False`.
fn float_text(f: &Bound<'_, PyFloat>) -> Result<String, NotJson> {
    let py = f.py();
    let value: f64 = f.extract().map_err(value_error)?;
    let repr = || -> PyResult<String> {
        if f.is_exact_instance_of::<PyFloat>() {
            return Ok(f.repr()?.to_cow()?.into_owned());
        }
        py.get_type::<PyFloat>()
            .call_method1("__repr__", (f,))?
            .extract()
    };
    if !value.is_finite() {
        let shown = repr().unwrap_or_else(|_| value.to_string());
        return Err(NotJson::Value(format!(
            "Out of range float values are not JSON compliant: {shown}"
        )));
    }
    repr().map_err(value_error)
}

/// A dict key that is no `str`, as the encoder writes it: a float, `true`, `false`, `null`
/// or an int, as text (quoted by the caller); any other type refused.
pub(crate) fn key_text(key: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    if let Ok(f) = key.cast::<PyFloat>() {
        return float_text(f);
    }
    if key.is_none() {
        return Ok("null".into());
    }
    if let Ok(b) = key.cast_exact::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.into());
    }
    if let Ok(i) = key.cast::<PyInt>() {
        return int_text(i).map_err(value_error);
    }
    let name = key
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    Err(NotJson::Type(format!(
        "keys must be str, int, float, bool or None, not {name}"
    )))
}

fn value_error(e: PyErr) -> NotJson {
    NotJson::Value(Python::attach(|py| e.value(py).to_string()))
}
