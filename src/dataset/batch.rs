//! One Arrow record batch's conversation column: each row's conversation as JSON text the
//! transcript adapters read, and the column rebuilt from the compacted texts with every other
//! column as it was. The Parquet path ([`super::Dataset`]) runs each row group through it; so
//! do library callers that hold batches, not files (the Python package's `compact_batch`).
//!
//! A list-of-struct column goes to JSON with `arrow-json`'s writer (null members left out) and
//! comes back with its reader, against the column's own Arrow type in strict mode, after
//! [`fit`] has shaped what loses nothing (a summary's text where contents are lists of text
//! parts): a compacted conversation that still does not fit the type (a member the structs do
//! not have) fails its row, which keeps its value. Rows left alone keep their Arrow value as
//! read, never a copy through JSON.

use super::{COLUMN_NAMES, Row};
use anyhow::{Result, anyhow, bail};
use arrow_array::{
    Array, ArrayRef, LargeStringArray, RecordBatch, StringArray, StringViewArray, cast::AsArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;
use std::sync::Arc;

/// Names a message list is wrapped under when the column's own name tells no adapter what it is.
const WRAP_KEYS: [&str; 6] = [
    "messages",
    "conversations",
    "conversation",
    "history",
    "traj",
    "chat",
];

/// How the conversation column holds a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A list of structs, one per message.
    Structs,
    /// A string of JSON text.
    Json,
}

/// What became of a row on the way back into the dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Its value was not changed.
    Kept,
    /// Its compacted conversation was written.
    Replaced,
    /// Its compacted conversation could not be written, for this reason; its value was kept.
    Refused(String),
}

/// A batch rewritten by [`Column::rewrite`], and each result with its row's index in the batch
/// and what became of the row.
pub type RewrittenBatch<R> = (RecordBatch, Vec<(usize, R, Written)>);

/// What became of a row, and its new text when the column keeps originals.
pub(super) type RowWritten = (Written, Option<String>);

/// The conversation column of a schema: where it is, and how it holds a conversation.
#[derive(Debug, Clone)]
pub struct Column {
    index: usize,
    shape: Shape,
    /// The key a bare message list is wrapped under.
    key: &'static str,
    /// Whether a replaced row must be able to come back exactly ([`Column::keep_originals`]).
    exact: bool,
}

impl Column {
    /// Finds the conversation column of `schema`: `name` if given, else the first of
    /// [`COLUMN_NAMES`] there is. `flag` is how the caller names a column in its errors
    /// (`--column` for the CLI).
    pub fn find(schema: &Schema, name: Option<&str>, flag: &str) -> Result<Column> {
        let names = || {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            names.join(", ")
        };
        let index = match name {
            Some(name) => schema
                .index_of(name)
                .map_err(|_| anyhow!("no column '{name}' (the columns: {})", names()))?,
            None => COLUMN_NAMES
                .iter()
                .find_map(|name| schema.index_of(name).ok())
                .ok_or_else(|| {
                    anyhow!(
                        "no conversation column ({}) among the columns {}: name it with {flag}",
                        COLUMN_NAMES.join(", "),
                        names()
                    )
                })?,
        };
        let field = schema.field(index);
        let shape = match field.data_type() {
            DataType::List(item) | DataType::LargeList(item)
                if matches!(item.data_type(), DataType::Struct(_)) =>
            {
                Shape::Structs
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Shape::Json,
            // A pandas `category` of JSON texts.
            DataType::Dictionary(_, value) if is_string(value) => Shape::Json,
            other => bail!(
                "the column '{}' is {other}: a conversation column is a list of structs or a \
                 string of JSON",
                field.name()
            ),
        };
        let key = WRAP_KEYS
            .into_iter()
            .find(|k| k == field.name())
            .unwrap_or("messages");
        Ok(Column {
            index,
            shape,
            key,
            exact: false,
        })
    }

    /// The column's index in the schema.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Makes [`Column::rebuild`] replace a row only when its original value comes back
    /// exactly from its text (a list-of-struct value through JSON), and hand back each
    /// replaced row's new text: what an archive needs to give every row back.
    pub fn keep_originals(&mut self) {
        self.exact = true;
    }

    /// Whether [`Column::keep_originals`] was asked for.
    pub(super) fn keeps_originals(&self) -> bool {
        self.exact
    }

    /// Calls `each` on every row of `batch` that holds a conversation (not null), in
    /// parallel; the results come back in row order, with the row's index in the batch. A
    /// row's [`Row::index`] is `first` plus its index in the batch.
    pub fn read<R: Send>(
        &self,
        batch: &RecordBatch,
        first: usize,
        each: impl Fn(Row) -> R + Sync,
    ) -> Result<Vec<(usize, R)>> {
        let texts = self.texts(batch.column(self.index))?;
        Ok(run(&texts, first, each))
    }

    /// Like [`Column::read`], with `each` also returning the row's compacted text (`None` to
    /// leave it alone): `batch` with those texts in the conversation column, and each result
    /// with its row's index in the batch and what became of the row.
    pub fn rewrite<R: Send>(
        &self,
        batch: &RecordBatch,
        first: usize,
        each: impl Fn(Row) -> (R, Option<String>) + Sync,
    ) -> Result<RewrittenBatch<R>> {
        let column = batch.column(self.index);
        let texts = self.texts(column)?;
        let mut done: Vec<(usize, R, Option<String>)> = run(&texts, first, each)
            .into_iter()
            .map(|(i, (r, out))| (i, r, out))
            .collect();
        let (column, written) = self.rebuild(column, Some(&texts), &mut done)?;
        let results = done
            .into_iter()
            .zip(written)
            .map(|((i, r, _), (w, _))| (i, r, w))
            .collect();
        let mut columns = batch.columns().to_vec();
        columns[self.index] = column;
        let batch = RecordBatch::try_new(batch.schema(), columns)?;
        Ok((batch, results))
    }

    /// Each row's conversation as JSON text (`None` for a null), in one buffer.
    pub(super) fn texts(&self, column: &ArrayRef) -> Result<Texts> {
        match self.shape {
            Shape::Json => {
                let mut texts = Texts::default();
                let column = plain(column)?;
                for value in strings(&column) {
                    let range = value.map(|s| {
                        let start = texts.buf.len();
                        if is_list(s) {
                            texts.buf.push_str(&self.prefix());
                            texts.buf.push_str(s);
                            texts.buf.push('}');
                        } else {
                            texts.buf.push_str(s);
                        }
                        start..texts.buf.len()
                    });
                    texts.rows.push(range);
                }
                Ok(texts)
            }
            Shape::Structs => {
                let batch = RecordBatch::try_new(self.wrapper(column), vec![column.clone()])?;
                let mut lines = Vec::new();
                let mut writer = arrow_json::WriterBuilder::new()
                    .with_explicit_nulls(false)
                    .build::<_, arrow_json::writer::LineDelimited>(&mut lines);
                writer.write(&batch)?;
                writer.finish()?;
                drop(writer);
                let buf = String::from_utf8(lines)?;
                // JSON text escapes its newlines: one line is one row.
                let mut rows = Vec::with_capacity(column.len());
                let mut start = 0;
                for (i, line) in buf.split_terminator('\n').enumerate() {
                    rows.push((!column.is_null(i)).then(|| start..start + line.len()));
                    start += line.len() + 1;
                }
                if rows.len() != column.len() {
                    bail!("{} JSON lines for {} rows", rows.len(), column.len());
                }
                Ok(Texts { buf, rows })
            }
        }
    }

    /// A one-column schema holding the conversation column under the wrapping key.
    fn wrapper(&self, column: &ArrayRef) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new(
            self.key,
            column.data_type().clone(),
            true,
        )]))
    }

    fn prefix(&self) -> String {
        format!("{{\"{}\":", self.key)
    }

    /// What was wrapped, unwrapped: the compacted value of the column (the wrapper's bytes
    /// are written back untouched, like everything compaction leaves alone).
    fn unwrap<'o>(&self, wrapped: bool, output: &'o str) -> Result<&'o str> {
        let prefix = self.prefix();
        if !wrapped {
            return Ok(output);
        }
        output
            .strip_prefix(&prefix)
            .and_then(|s| s.strip_suffix('}'))
            .ok_or_else(|| anyhow!("the compacted text lost its wrapper"))
    }

    /// The conversation column with the compacted rows put in, and what became of each row
    /// of `done` (with, when the dataset keeps originals, a replaced row's new text). Each
    /// compacted text is taken out of `done` and let go once it is a value of the column: a
    /// row group's compacted texts and their values are not all held at once. `texts` (the
    /// rows as read) is needed only when the column keeps originals.
    pub(super) fn rebuild<R>(
        &self,
        read: &ArrayRef,
        texts: Option<&Texts>,
        done: &mut [(usize, R, Option<String>)],
    ) -> Result<(ArrayRef, Vec<RowWritten>)> {
        // A dictionary is rebuilt as its plain strings, and encoded again at the end.
        let column = &plain(read)?;
        let originals = match self.shape {
            Shape::Json => strings(column),
            Shape::Structs => Vec::new(),
        };
        let mut written = Vec::with_capacity(done.len());
        // (row, value) of the rows that change.
        let mut values: Vec<(usize, ArrayRef)> = Vec::new();
        for (i, _, output) in done.iter_mut() {
            let Some(output) = output.take() else {
                written.push((Written::Kept, None));
                continue;
            };
            let wrapped = match self.shape {
                Shape::Json => originals[*i].is_some_and(is_list),
                Shape::Structs => true,
            };
            let value = self
                .unwrap(wrapped, &output)
                .and_then(|value| self.value(column, value))
                .and_then(|value| {
                    let stored = match (self.exact, self.shape) {
                        (false, _) => None,
                        (true, Shape::Json) => Some(output),
                        (true, Shape::Structs) => {
                            let original = texts
                                .and_then(|t| t.get(*i))
                                .expect("kept originals: a row with a conversation");
                            self.comes_back(column, *i, original)?;
                            Some(self.texts(&value)?.get(0).unwrap_or_default().to_string())
                        }
                    };
                    Ok((value, stored))
                });
            match value {
                Ok((value, stored)) => {
                    values.push((*i, value));
                    written.push((Written::Replaced, stored));
                }
                Err(e) => written.push((Written::Refused(format!("{e:#}")), None)),
            }
        }
        if values.is_empty() {
            return Ok((read.clone(), written));
        }
        let mut sources: Vec<&dyn Array> = vec![column.as_ref()];
        sources.extend(values.iter().map(|(_, v)| v.as_ref()));
        let mut changed = values.iter().enumerate().map(|(k, (i, _))| (*i, k + 1));
        let mut next = changed.next();
        let indices: Vec<(usize, usize)> = (0..column.len())
            .map(|i| match next {
                Some((row, source)) if row == i => {
                    next = changed.next();
                    (source, 0)
                }
                _ => (0, i),
            })
            .collect();
        let column = arrow_select::interleave::interleave(&sources, &indices)?;
        let column = match read.data_type() {
            DataType::Dictionary(..) => arrow_cast::cast(&column, read.data_type())?,
            _ => column,
        };
        Ok((column, written))
    }

    /// Fails unless row `i`'s value comes back equal from its text `original`: what lets an
    /// archive keep a list-of-struct value as text.
    fn comes_back(&self, column: &ArrayRef, i: usize, original: &str) -> Result<()> {
        let back = self
            .unwrap(true, original)
            .and_then(|text| self.value(column, text));
        match back {
            Ok(back) if back.as_ref() == column.slice(i, 1).as_ref() => Ok(()),
            Ok(_) => bail!(
                "its original value would not come back exactly from an archive (the column's \
                 type does not go through JSON unchanged)"
            ),
            Err(e) => bail!("its original value would not come back from an archive: {e:#}"),
        }
    }

    /// One row's compacted value as a one-element array of the column's type.
    fn value(&self, column: &ArrayRef, value: &str) -> Result<ArrayRef> {
        match self.shape {
            Shape::Json => Ok(match column.data_type() {
                DataType::LargeUtf8 => Arc::new(LargeStringArray::from(vec![value])),
                DataType::Utf8View => Arc::new(StringViewArray::from(vec![value])),
                _ => Arc::new(StringArray::from(vec![value])),
            }),
            Shape::Structs => {
                let value: serde_json::Value = serde_json::from_str(value)?;
                let (DataType::List(item) | DataType::LargeList(item)) = column.data_type() else {
                    unreachable!("a list-of-struct column is a list");
                };
                let list = fit(value, &DataType::List(item.clone()));
                let line = format!("{}{list}}}", self.prefix());
                let mut decoder = arrow_json::ReaderBuilder::new(self.wrapper(column))
                    .with_strict_mode(true)
                    .with_batch_size(1)
                    .build_decoder()?;
                let result = decoder
                    .decode(line.as_bytes())
                    .and_then(|_| decoder.flush());
                let batch = result
                    .map_err(|e| {
                        anyhow!("the compacted conversation does not fit the column's type: {e}")
                    })?
                    .filter(|b| b.num_rows() == 1)
                    .ok_or_else(|| anyhow!("the compacted conversation is not one value"))?;
                Ok(batch.column(0).clone())
            }
        }
    }
}

/// Calls `each` on every row of `texts` that holds a conversation (not null), in parallel;
/// the results come back in row order, with the row's index in the batch (its [`Row::index`]
/// is `first` plus that).
pub(super) fn run<R: Send>(
    texts: &Texts,
    first: usize,
    each: impl Fn(Row) -> R + Sync,
) -> Vec<(usize, R)> {
    (0..texts.len())
        .into_par_iter()
        .filter_map(|i| {
            let text = texts.get(i)?;
            Some((
                i,
                each(Row {
                    index: first + i,
                    text,
                }),
            ))
        })
        .collect()
}

/// Adds a row group's texts to a dataset's values hash: equal for equal conversation values,
/// a null counted as one.
pub(super) fn hash_texts(hasher: &mut xxhash_rust::xxh3::Xxh3, texts: &Texts) {
    for row in 0..texts.len() {
        match texts.get(row) {
            Some(text) => {
                hasher.update(&(text.len() as u64).to_le_bytes());
                hasher.update(text.as_bytes());
            }
            None => hasher.update(&u64::MAX.to_le_bytes()),
        }
    }
}

/// Whether an Arrow type is a string type.
fn is_string(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    )
}

/// A dictionary-encoded column as its plain values (one string per row); any other column as
/// it is.
fn plain(column: &ArrayRef) -> Result<ArrayRef> {
    match column.data_type() {
        DataType::Dictionary(_, value) => Ok(arrow_cast::cast(column, value)?),
        _ => Ok(column.clone()),
    }
}

/// The values of a string column.
fn strings(column: &ArrayRef) -> Vec<Option<&str>> {
    match column.data_type() {
        DataType::LargeUtf8 => column.as_string::<i64>().iter().collect(),
        DataType::Utf8View => column.as_string_view().iter().collect(),
        _ => column.as_string::<i32>().iter().collect(),
    }
}

/// The rows of a row group as JSON text, in one buffer (a `String` per row would hold the
/// row group's text twice while it is split).
#[derive(Default)]
pub(super) struct Texts {
    buf: String,
    /// Each row's text in `buf` (`None` for a null).
    rows: Vec<Option<std::ops::Range<usize>>>,
}

impl Texts {
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn get(&self, row: usize) -> Option<&str> {
        self.rows[row].clone().map(|r| &self.buf[r])
    }
}

/// A compacted JSON value brought to the shape of an Arrow type where the two differ only in
/// a way that loses nothing: text where the type holds a list of text parts (a summary written
/// as a string into a column of `[{type, text}]` contents) becomes one text part, and a JSON
/// object or list where the type holds a string is written as JSON text.
fn fit(value: serde_json::Value, dt: &DataType) -> serde_json::Value {
    use serde_json::Value;
    match (value, dt) {
        (Value::Object(members), DataType::Struct(fields)) => Value::Object(
            members
                .into_iter()
                .map(|(name, member)| {
                    let member = match fields.find(&name) {
                        Some((_, field)) => fit(member, field.data_type()),
                        None => member,
                    };
                    (name, member)
                })
                .collect(),
        ),
        (Value::Array(items), DataType::List(item) | DataType::LargeList(item)) => Value::Array(
            items
                .into_iter()
                .map(|v| fit(v, item.data_type()))
                .collect(),
        ),
        (Value::String(text), DataType::List(item) | DataType::LargeList(item)) => {
            match item.data_type() {
                DataType::Struct(fields) if fields.find("text").is_some() => {
                    let mut part = serde_json::Map::new();
                    if fields.find("type").is_some() {
                        part.insert("type".into(), Value::String("text".into()));
                    }
                    part.insert("text".into(), Value::String(text));
                    Value::Array(vec![Value::Object(part)])
                }
                _ => Value::String(text),
            }
        }
        (
            v @ (Value::Object(_) | Value::Array(_)),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View,
        ) => Value::String(v.to_string()),
        (v, _) => v,
    }
}

/// Whether JSON text is a list (and so is wrapped before it is read).
fn is_list(text: &str) -> bool {
    text.trim_start().starts_with('[')
}
