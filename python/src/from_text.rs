//! ctxc's output text → Python values, built in Rust, equal to what `json.loads` gives for
//! each value of the text. A part of the output that is the text of a container the caller
//! gave ([`Given`]: a message compaction kept as it was) is not read again: it is a copy of
//! the given value, made without decoding any string.
//!
//! The copy is deep in its containers (new dicts and lists; a tuple becomes a list, a dict
//! subclass a dict, as `json.loads` would give them) and shares only the immutable leaves
//! (`str`, `int`, `float`, `bool`, `None`): nothing the caller gets back can change what they
//! gave.

use crate::to_text::{FINGERPRINT, RECORDED_DEPTH, Span, key_text};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// rustc's Fx hash, for the short byte strings looked up here (a container's first bytes, a
/// key): several times cheaper than the default SipHash, whose defence against chosen
/// collisions buys nothing within one caller's own conversation.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// How many containers with the same first bytes are tried for one part of the output, at
/// most: the cost of a lookup stays bounded when many share them (every conversation of a
/// benchmark run starts with one system prompt). A part not found is read from the text: the
/// same value, made more slowly.
const TRIES: usize = 16;

/// The containers of the text given to ctxc, looked up by their first bytes.
pub(crate) struct Given<'a, 'py> {
    text: &'a str,
    /// In the order of the text.
    spans: Vec<Span<'py>>,
    /// (the hash of a span's first bytes, the span), by hash, then in the order of the text.
    by_start: Vec<(u64, usize)>,
    /// Where the last container found ends in the given text: compaction keeps what it keeps
    /// in order, so the next one is most likely the first after it with those first bytes.
    cursor: Cell<usize>,
}

impl<'a, 'py> Given<'a, 'py> {
    pub(crate) fn new(text: &'a str, mut spans: Vec<Span<'py>>) -> Given<'a, 'py> {
        spans.sort_unstable_by_key(|s| s.start);
        let mut by_start: Vec<(u64, usize)> = spans
            .iter()
            .enumerate()
            .map(|(i, s)| (fx(&text.as_bytes()[s.start..s.start + FINGERPRINT]), i))
            .collect();
        by_start.sort_unstable();
        Given {
            text,
            spans,
            by_start,
            cursor: Cell::new(0),
        }
    }

    /// The given container whose text `rest` starts with, and that text's length. A JSON
    /// container's text ends where the container does, so a match is the whole value.
    ///
    /// Those with the same first bytes are tried from the cursor on, each on its last bytes
    /// first (where `rest` would hold them), so that a changed container, which matches none,
    /// costs no comparison of a long shared start.
    fn find(&self, rest: &[u8]) -> Option<(usize, &Bound<'py, PyAny>)> {
        let hash = fx(rest.get(..FINGERPRINT)?);
        let from = self.by_start.partition_point(|&(h, _)| h < hash);
        let count = self.by_start[from..].partition_point(|&(h, _)| h == hash);
        let same = &self.by_start[from..from + count];
        let cursor = self.cursor.get();
        let next = same.partition_point(|&(_, i)| self.spans[i].start < cursor);
        let span = same[next..]
            .iter()
            .chain(&same[..next])
            .take(TRIES)
            .map(|&(_, i)| &self.spans[i])
            .find(|span| {
                let text = &self.text.as_bytes()[span.start..span.end];
                let tail = text.len() - 16..text.len();
                rest.get(tail.clone()) == Some(&text[tail]) && rest.starts_with(text)
            })?;
        self.cursor.set(span.end);
        Some((span.end - span.start, &span.value))
    }
}

/// rustc's Fx hash of a byte string.
fn fx(bytes: &[u8]) -> u64 {
    let mut hasher = Fx::default();
    hasher.write(bytes);
    hasher.finish()
}

/// The values of `text` (JSON values separated by white space: JSONL, or one document),
/// reading unchanged containers of `given` from it.
pub(crate) fn values<'py>(
    py: Python<'py>,
    text: &str,
    given: Option<&Given<'_, 'py>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut reader = Reader {
        py,
        text,
        pos: 0,
        given,
        keys: FxMap::with_capacity_and_hasher(16, Default::default()),
    };
    let mut values = Vec::new();
    loop {
        reader.skip_space();
        if reader.pos == text.len() {
            return Ok(values);
        }
        values.push(reader.value(0)?);
    }
}

struct Reader<'a, 'g, 'py> {
    py: Python<'py>,
    text: &'a str,
    pos: usize,
    given: Option<&'g Given<'g, 'py>>,
    /// Keys read so far, one Python string each, as `json.loads` shares them.
    keys: FxMap<&'a str, Bound<'py, PyString>>,
}

impl<'a, 'py> Reader<'a, '_, 'py> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn invalid(&self) -> PyErr {
        PyValueError::new_err(format!(
            "ctxc's output is not JSON at byte {} (a bug in ctxc)",
            self.pos
        ))
    }

    fn expect(&mut self, byte: u8) -> PyResult<()> {
        self.skip_space();
        if self.peek() != Some(byte) {
            return Err(self.invalid());
        }
        self.pos += 1;
        Ok(())
    }

    fn value(&mut self, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        self.skip_space();
        match self.peek() {
            Some(b'{' | b'[') => {
                if depth <= RECORDED_DEPTH {
                    if let Some((len, value)) =
                        self.given.and_then(|g| g.find(&self.bytes()[self.pos..]))
                    {
                        self.pos += len;
                        return copy(value);
                    }
                }
                if self.peek() == Some(b'{') {
                    self.object(depth)
                } else {
                    self.array(depth)
                }
            }
            Some(b'"') => Ok(self.string()?.into_any()),
            Some(b't') => self.literal("true", PyBool::new(self.py, true).to_owned().into_any()),
            Some(b'f') => self.literal("false", PyBool::new(self.py, false).to_owned().into_any()),
            Some(b'n') => self.literal("null", self.py.None().into_bound(self.py)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.invalid()),
        }
    }

    fn literal(&mut self, word: &str, value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if !self.text[self.pos..].starts_with(word) {
            return Err(self.invalid());
        }
        self.pos += word.len();
        Ok(value)
    }

    fn object(&mut self, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        let dict = PyDict::new(self.py);
        self.pos += 1;
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(dict.into_any());
        }
        loop {
            self.skip_space();
            let key = self.key()?;
            self.expect(b':')?;
            let value = self.value(depth + 1)?;
            dict.set_item(key, value)?;
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(dict.into_any());
                }
                _ => return Err(self.invalid()),
            }
        }
    }

    fn array(&mut self, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        let mut items = Vec::new();
        self.pos += 1;
        self.skip_space();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(PyList::empty(self.py).into_any());
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(PyList::new(self.py, items)?.into_any());
                }
                _ => return Err(self.invalid()),
            }
        }
    }

    /// A key: shared with the keys of the same text read before.
    fn key(&mut self) -> PyResult<Bound<'py, PyString>> {
        if self.peek() != Some(b'"') {
            return Err(self.invalid());
        }
        if let Some(plain) = self.plain_string() {
            if let Some(key) = self.keys.get(plain) {
                return Ok(key.clone());
            }
            let key = PyString::new(self.py, plain);
            self.keys.insert(plain, key.clone());
            return Ok(key);
        }
        self.string()
    }

    /// The string at `pos` when it has no escape (the common case), moving past it.
    fn plain_string(&mut self) -> Option<&'a str> {
        let bytes = self.bytes();
        let start = self.pos + 1;
        let len = bytes[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\')?;
        if bytes[start + len] != b'"' {
            return None;
        }
        self.pos = start + len + 1;
        Some(&self.text[start..start + len])
    }

    fn string(&mut self) -> PyResult<Bound<'py, PyString>> {
        if let Some(plain) = self.plain_string() {
            return Ok(PyString::new(self.py, plain));
        }
        let open = self.pos;
        let mut out = String::new();
        let mut pos = self.pos + 1;
        let bytes = self.bytes();
        loop {
            let run = bytes[pos..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
                .ok_or_else(|| self.invalid())?;
            out.push_str(&self.text[pos..pos + run]);
            pos += run;
            if bytes[pos] == b'"' {
                self.pos = pos + 1;
                return Ok(PyString::new(self.py, &out));
            }
            let escaped = *bytes.get(pos + 1).ok_or_else(|| self.invalid())?;
            pos += 2;
            match escaped {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => match self.code_point(&mut pos) {
                    Some(c) => out.push(c),
                    // A lone surrogate: a `str` Rust cannot hold; `json.loads` reads it.
                    None => return self.loads_string(open),
                },
                _ => return Err(self.invalid()),
            }
        }
    }

    /// The character of a `\u` escape whose hex digits start at `pos` (a surrogate pair's
    /// two escapes); None for a lone surrogate or a malformed escape.
    fn code_point(&self, pos: &mut usize) -> Option<char> {
        let hex =
            |at: usize| -> Option<u32> { u32::from_str_radix(self.text.get(at..at + 4)?, 16).ok() };
        let first = hex(*pos)?;
        *pos += 4;
        if !(0xd800..0xdc00).contains(&first) {
            return char::from_u32(first);
        }
        if self.text.get(*pos..*pos + 2)? != "\\u" {
            return None;
        }
        let second = hex(*pos + 2)?;
        if !(0xdc00..0xe000).contains(&second) {
            return None;
        }
        *pos += 6;
        char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00))
    }

    /// The string at `open` read by `json.loads` (for what a Rust `str` cannot hold).
    fn loads_string(&mut self, open: usize) -> PyResult<Bound<'py, PyString>> {
        self.pos = open;
        let end = self.skip_string()?;
        let value = self
            .py
            .import("json")?
            .call_method1("loads", (&self.text[open..end],))?;
        self.pos = end;
        Ok(value.cast_into::<PyString>()?)
    }

    /// The end of the string at `pos`.
    fn skip_string(&self) -> PyResult<usize> {
        let bytes = self.bytes();
        let mut pos = self.pos + 1;
        while pos < bytes.len() {
            match bytes[pos] {
                b'\\' => pos += 2,
                b'"' => return Ok(pos + 1),
                _ => pos += 1,
            }
        }
        Err(self.invalid())
    }

    fn number(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let start = self.pos;
        let bytes = self.bytes();
        let mut end = start;
        let mut float = false;
        while let Some(&b) = bytes.get(end) {
            match b {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => float = true,
                _ => break,
            }
            end += 1;
        }
        let digits = &self.text[start..end];
        self.pos = end;
        if float {
            let value: f64 = digits.parse().map_err(|_| self.invalid())?;
            return Ok(PyFloat::new(self.py, value).into_any());
        }
        match digits.parse::<i64>() {
            Ok(small) => Ok(small.into_pyobject(self.py)?.into_any()),
            // As `json.loads` reads a big int: `int(digits)`.
            Err(_) => self.py.get_type::<PyInt>().call1((digits,)),
        }
    }
}

/// A copy of a value the caller gave, as `json.loads` would read its JSON text: new
/// containers, the immutable leaves shared (those of a subclass made plain).
fn copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        // Copied whole (the key table at once), then the values that are no plain leaf
        // replaced by their copies; a key that is no `str` needs the slow way.
        let out = dict.copy()?;
        for (key, item) in dict.iter() {
            if !key.is_exact_instance_of::<PyString>() {
                return copy_dict(dict);
            }
            if !is_plain_leaf(&item) {
                out.set_item(key, copy(&item)?)?;
            }
        }
        return Ok(out.into_any());
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return copy_dict(dict);
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        let out = list.get_slice(0, list.len());
        for (i, item) in list.iter().enumerate() {
            if !is_plain_leaf(&item) {
                out.set_item(i, copy(&item)?)?;
            }
        }
        return Ok(out.into_any());
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value
            .try_iter()?
            .map(|item| copy(&item?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(py, items)?.into_any());
    }
    plain_leaf(value)
}

/// A dict copied key by key: keys that are no `str` turned into their JSON text.
fn copy_dict<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
    let out = PyDict::new(dict.py());
    for (key, item) in dict.iter() {
        out.set_item(copy_key(&key)?, copy(&item)?)?;
    }
    Ok(out.into_any())
}

/// Whether `json.loads` would give back this very value: `None`, a `bool`, or an exact `str`,
/// `int` or `float`.
fn is_plain_leaf(value: &Bound<'_, PyAny>) -> bool {
    value.is_exact_instance_of::<PyString>()
        || value.is_none()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_exact_instance_of::<PyBool>()
}

/// A leaf as `json.loads` gives it back: itself when of a plain type, else its plain value.
fn plain_leaf<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if is_plain_leaf(value) {
        return Ok(value.clone());
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(PyString::new(py, &s.to_cow()?).into_any());
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(PyFloat::new(py, value.extract()?).into_any());
    }
    // An int subclass (an IntEnum): its int value.
    py.get_type::<PyInt>().call1((value,))
}

/// A key as `json.loads` gives it back: a `str` (a number, `True`, `None`... as its JSON text).
fn copy_key<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if key.is_instance_of::<PyString>() {
        return plain_leaf(key);
    }
    let text = key_text(key).map_err(|_| PyValueError::new_err("a key written before"))?;
    Ok(PyString::new(key.py(), &text).into_any())
}
