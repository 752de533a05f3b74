//! Parquet datasets through Arrow: a row group read, its conversation column turned into one
//! JSON text per row, and — for `compact` — the column rebuilt from the compacted texts and the
//! row group written out with everything else as it was read.
//!
//! A list-of-struct column goes to JSON with `arrow-json`'s writer (null members left out) and
//! comes back with its reader, against the column's own Arrow type in strict mode, after
//! [`fit`] has shaped what loses nothing (a summary's text where contents are lists of text
//! parts): a compacted conversation that still does not fit the type (a member the structs do
//! not have) fails its row, which keeps its value. Rows left alone keep their Arrow value as
//! read, never a copy through JSON.

use super::{COLUMN_NAMES, Row};
use anyhow::{Context, Result, anyhow, bail};
use arrow_array::{
    Array, ArrayRef, LargeStringArray, RecordBatch, StringArray, StringViewArray, cast::AsArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::{WriterProperties, WriterVersion};
use rayon::prelude::*;
use std::fs::File;
use std::io::Write;
use std::sync::Arc;

/// The schema key where Arrow keeps its own schema; the writer writes it anew.
const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

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

/// An open Parquet dataset and its conversation column.
pub struct Dataset {
    file: File,
    meta: ArrowReaderMetadata,
    column: usize,
    shape: Shape,
    /// The key a bare message list is wrapped under.
    key: &'static str,
    /// Whether a replaced row must be able to come back exactly ([`Dataset::keep_originals`]).
    exact: bool,
}

/// A row as it went back into the dataset: what [`Dataset::rewrite`] hands its sink, in row
/// order.
pub struct Done<'a, R> {
    /// The row's index in the file, from 0.
    pub index: usize,
    /// What the row's closure returned.
    pub result: R,
    /// What became of the row.
    pub written: Written,
    /// The row's conversation as read.
    pub text: &'a str,
    /// For a replaced row of a dataset that keeps originals: its new value's text, as it
    /// reads back from the dataset written.
    pub stored: Option<String>,
}

/// What [`Dataset::rewrite`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    /// Rows in the dataset.
    pub rows: u64,
    /// [`crate::archive::hash`] over every row's conversation text as read (see
    /// [`Dataset::values_hash`]).
    pub values_hash: String,
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

impl Dataset {
    /// Opens a Parquet file and finds its conversation column: `column` if given, else the
    /// first of [`COLUMN_NAMES`] there is.
    pub fn open(file: File, column: Option<&str>) -> Result<Dataset> {
        let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
            .context("reading the Parquet footer")?;
        let schema = meta.schema();
        let names = || {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            names.join(", ")
        };
        let index = match column {
            Some(name) => schema
                .index_of(name)
                .map_err(|_| anyhow!("no column '{name}' (the columns: {})", names()))?,
            None => COLUMN_NAMES
                .iter()
                .find_map(|name| schema.index_of(name).ok())
                .ok_or_else(|| {
                    anyhow!(
                        "no conversation column ({}) among the columns {}: name it with --column",
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
        Ok(Dataset {
            file,
            meta,
            column: index,
            shape,
            key,
            exact: false,
        })
    }

    /// Makes [`Dataset::rewrite`] replace a row only when its original value comes back
    /// exactly from its text (a list-of-struct value through JSON), and hand the sink each
    /// replaced row's new text: what an archive needs to give every row back.
    pub fn keep_originals(&mut self) {
        self.exact = true;
    }

    /// Rows in the dataset.
    pub fn rows(&self) -> u64 {
        self.meta.metadata().file_metadata().num_rows().max(0) as u64
    }

    /// A hash over every row's conversation text, in row order, a null counted as one: equal
    /// for two datasets whose conversation columns hold equal values.
    pub fn values_hash(&self) -> Result<String> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            hash_texts(&mut hasher, &self.texts(batch.column(self.column))?);
        }
        Ok(crate::archive::hash_of(hasher.digest128()))
    }

    /// The conversation column's name.
    pub fn column_name(&self) -> &str {
        self.meta.schema().field(self.column).name()
    }

    /// Calls `each` on every row that holds a conversation (not null), a row group at a
    /// time, the rows of a group in parallel; the results come back in row order.
    pub fn read<R: Send>(&self, each: impl Fn(Row) -> R + Sync) -> Result<Vec<R>> {
        let mut results = Vec::new();
        let mut first = 0;
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            let texts = self.texts(batch.column(self.column))?;
            results.par_extend((0..texts.len()).into_par_iter().filter_map(|i| {
                let text = texts.get(i)?;
                Some(each(Row {
                    index: first + i,
                    text,
                }))
            }));
            first += batch.num_rows();
        }
        Ok(results)
    }

    /// Like [`Dataset::read`], with `each` also returning the row's compacted text (`None`
    /// to leave it alone), and writes the dataset to `out` (when given) with those texts in
    /// the conversation column. Each row's result goes to `sink` with what became of the row,
    /// in row order, as soon as its row group is done: nothing is kept for the whole file.
    pub fn rewrite<R: Send, W: Write + Send>(
        &self,
        out: Option<W>,
        each: impl Fn(Row) -> (R, Option<String>) + Sync,
        mut sink: impl FnMut(Done<R>) -> Result<()>,
    ) -> Result<Rewritten> {
        let mut writer = out
            .map(|w| ArrowWriter::try_new(w, self.meta.schema().clone(), Some(self.properties())))
            .transpose()
            .context("starting the Parquet output")?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut first = 0;
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            let column = batch.column(self.column);
            let texts = self.texts(column)?;
            hash_texts(&mut hasher, &texts);
            let done: Vec<(usize, R, Option<String>)> = (0..texts.len())
                .into_par_iter()
                .filter_map(|i| {
                    let text = texts.get(i)?;
                    let (r, output) = each(Row {
                        index: first + i,
                        text,
                    });
                    Some((i, r, output))
                })
                .collect();
            let (new_column, written) = self.rebuild(column, &texts, &done)?;
            for ((i, result, _), (written, stored)) in done.into_iter().zip(written) {
                sink(Done {
                    index: first + i,
                    result,
                    written,
                    text: texts.get(i).expect("a row with a conversation"),
                    stored,
                })?;
            }
            drop(texts);
            if let Some(writer) = writer.as_mut() {
                let mut columns = batch.columns().to_vec();
                columns[self.column] = new_column;
                let batch = RecordBatch::try_new(batch.schema(), columns)?;
                writer.write(&batch).context("writing a row group")?;
                // The input's row groups end where they ended.
                writer.flush().context("writing a row group")?;
            }
            first += batch.num_rows();
        }
        if let Some(writer) = writer {
            writer.close().context("writing the Parquet footer")?;
        }
        Ok(Rewritten {
            rows: first as u64,
            values_hash: crate::archive::hash_of(hasher.digest128()),
        })
    }

    fn groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// Row group `group`, all of it in one batch.
    fn read_group(&self, group: usize) -> Result<RecordBatch> {
        let rows = self.meta.metadata().row_group(group).num_rows().max(1) as usize;
        let file = self.file.try_clone()?;
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone())
            .with_row_groups(vec![group])
            .with_batch_size(rows)
            .build()?;
        let mut batches = reader
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("reading row group {group}"))?;
        if batches.len() == 1 {
            return Ok(batches.remove(0));
        }
        Ok(arrow_select::concat::concat_batches(
            self.meta.schema(),
            &batches,
        )?)
    }

    /// Each row's conversation as JSON text (`None` for a null), in one buffer.
    fn texts(&self, column: &ArrayRef) -> Result<Texts> {
        match self.shape {
            Shape::Json => {
                let mut texts = Texts::default();
                for value in strings(column) {
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
    /// of `done` (with, when the dataset keeps originals, a replaced row's new text).
    fn rebuild<R>(
        &self,
        column: &ArrayRef,
        texts: &Texts,
        done: &[(usize, R, Option<String>)],
    ) -> Result<(ArrayRef, Vec<RowWritten>)> {
        let originals = match self.shape {
            Shape::Json => strings(column),
            Shape::Structs => Vec::new(),
        };
        let mut written = Vec::with_capacity(done.len());
        // (row, value) of the rows that change.
        let mut values: Vec<(usize, ArrayRef)> = Vec::new();
        for (i, _, output) in done {
            let Some(output) = output else {
                written.push((Written::Kept, None));
                continue;
            };
            let wrapped = match self.shape {
                Shape::Json => originals[*i].is_some_and(is_list),
                Shape::Structs => true,
            };
            let value = self
                .unwrap(wrapped, output)
                .and_then(|value| self.value(column, value))
                .and_then(|value| {
                    let stored = match (self.exact, self.shape) {
                        (false, _) => None,
                        (true, Shape::Json) => Some(output.clone()),
                        (true, Shape::Structs) => {
                            let original = texts.get(*i).expect("a row with a conversation");
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
            return Ok((column.clone(), written));
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

    /// The writer's settings: the input's codec for each column (as its first row group has
    /// them), its format version and key-value metadata; row groups end only where
    /// [`Dataset::rewrite`] ends them.
    fn properties(&self) -> WriterProperties {
        let meta: &ParquetMetaData = self.meta.metadata();
        let file = meta.file_metadata();
        let kv: Vec<KeyValue> = file
            .key_value_metadata()
            .into_iter()
            .flatten()
            .filter(|kv| kv.key != ARROW_SCHEMA_KEY)
            .cloned()
            .collect();
        let mut builder = WriterProperties::builder()
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(None)
            .set_writer_version(if file.version() >= 2 {
                WriterVersion::PARQUET_2_0
            } else {
                WriterVersion::PARQUET_1_0
            })
            .set_key_value_metadata((!kv.is_empty()).then_some(kv));
        if let Some(group) = meta.row_groups().first() {
            if let Some(first) = group.columns().first() {
                builder = builder.set_compression(first.compression());
            }
            for chunk in group.columns() {
                builder = builder
                    .set_column_compression(chunk.column_path().clone(), chunk.compression());
            }
        }
        builder.build()
    }
}

/// What became of a row, and its new text when the dataset keeps originals.
type RowWritten = (Written, Option<String>);

/// Adds a row group's texts to a [`Dataset::values_hash`].
fn hash_texts(hasher: &mut xxhash_rust::xxh3::Xxh3, texts: &Texts) {
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
struct Texts {
    buf: String,
    /// Each row's text in `buf` (`None` for a null).
    rows: Vec<Option<std::ops::Range<usize>>>,
}

impl Texts {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn get(&self, row: usize) -> Option<&str> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A dataset of `rows` (JSON objects, schema inferred) in row groups of 2.
    fn dataset(rows: &[serde_json::Value]) -> (tempfile::NamedTempFile, Dataset) {
        let schema =
            arrow_json::reader::infer_json_schema_from_iterator(rows.iter().map(Ok)).unwrap();
        let mut decoder = arrow_json::ReaderBuilder::new(Arc::new(schema))
            .build_decoder()
            .unwrap();
        decoder.serialize(rows).unwrap();
        let batch = decoder.flush().unwrap().unwrap();
        let file = tempfile::NamedTempFile::new().unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(2))
            .build();
        let mut writer =
            ArrowWriter::try_new(file.reopen().unwrap(), batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let dataset = Dataset::open(file.reopen().unwrap(), None).unwrap();
        (file, dataset)
    }

    /// [`Dataset::rewrite`] with each row's result and what became of it collected.
    fn rewritten<R: Send>(
        d: &Dataset,
        out: &tempfile::NamedTempFile,
        each: impl Fn(Row) -> (R, Option<String>) + Sync,
    ) -> Vec<(R, Written)> {
        let mut all = Vec::new();
        d.rewrite(Some(out.reopen().unwrap()), each, |done| {
            all.push((done.result, done.written));
            Ok(())
        })
        .unwrap();
        all
    }

    fn message(text: &str) -> serde_json::Value {
        json!([{"role": "user", "content": text}])
    }

    #[test]
    fn struct_rows_are_wrapped_json_and_a_value_that_does_not_fit_is_refused() {
        let rows = [
            json!({"id": 0, "messages": message("a")}),
            json!({"id": 1, "messages": null}),
            json!({"id": 2, "messages": message("c")}),
        ];
        let (_file, d) = dataset(&rows);
        let texts = d.read(|row| (row.index, row.text.to_string())).unwrap();
        assert_eq!(
            texts,
            [
                (
                    0,
                    r#"{"messages":[{"role":"user","content":"a"}]}"#.to_string()
                ),
                (
                    2,
                    r#"{"messages":[{"role":"user","content":"c"}]}"#.to_string()
                ),
            ]
        );
        let out = tempfile::NamedTempFile::new().unwrap();
        let written = rewritten(&d, &out, |row| {
            let text = match row.index {
                0 => r#"{"messages":[{"role":"user","content":"A"}]}"#,
                _ => r#"{"messages":[{"role":"user","content":"C","extra":1}]}"#,
            };
            (row.index, Some(text.to_string()))
        });
        assert_eq!(written[0], (0, Written::Replaced));
        assert!(matches!(&written[1], (2, Written::Refused(why)) if why.contains("extra")));
        let back = Dataset::open(out.reopen().unwrap(), None).unwrap();
        let texts: Vec<String> = back.read(|row| row.text.to_string()).unwrap();
        assert_eq!(
            texts,
            [
                r#"{"messages":[{"role":"user","content":"A"}]}"#,
                r#"{"messages":[{"role":"user","content":"c"}]}"#,
            ]
        );
    }

    #[test]
    fn text_written_where_the_column_holds_text_parts_becomes_one_part() {
        let parts = json!([{"role": "user", "content": [{"type": "text", "text": "a"}]}]);
        let (_file, d) = dataset(&[json!({"messages": parts})]);
        let out = tempfile::NamedTempFile::new().unwrap();
        let summary = r#"{"messages":[{"role":"user","content":"[ctxc summary]\nb"}]}"#;
        let written = rewritten(&d, &out, |_| ((), Some(summary.to_string())));
        assert_eq!(written, [((), Written::Replaced)]);
        let back = Dataset::open(out.reopen().unwrap(), None).unwrap();
        let texts: Vec<String> = back.read(|row| row.text.to_string()).unwrap();
        assert_eq!(
            texts,
            [
                r#"{"messages":[{"role":"user","content":[{"type":"text","text":"[ctxc summary]\nb"}]}]}"#
            ]
        );
    }

    #[test]
    fn json_rows_are_wrapped_only_when_they_are_a_bare_list() {
        let object = json!({"messages": message("b")}).to_string();
        let rows = [
            json!({"conversation": message("a").to_string()}),
            json!({"conversation": object}),
        ];
        let (_file, d) = dataset(&rows);
        assert_eq!(d.column_name(), "conversation");
        let texts: Vec<String> = d.read(|row| row.text.to_string()).unwrap();
        assert_eq!(texts[0], format!("{{\"conversation\":{}}}", message("a")));
        assert_eq!(texts[1], object);
        let out = tempfile::NamedTempFile::new().unwrap();
        rewritten(&d, &out, |row| {
            (
                row.index,
                Some(row.text.replace("\"a\"", "\"A\"").replace("\"b\"", "\"B\"")),
            )
        });
        let back = Dataset::open(out.reopen().unwrap(), None).unwrap();
        let texts: Vec<String> = back.read(|row| row.text.to_string()).unwrap();
        assert_eq!(texts[0], format!("{{\"conversation\":{}}}", message("A")));
        assert_eq!(texts[1], json!({"messages": message("B")}).to_string());
    }

    /// With originals kept, a row whose original value would not come back from its JSON
    /// text (a NaN, which JSON cannot hold) is refused and keeps its value; the others are
    /// replaced and their new text handed on.
    #[test]
    fn a_value_that_would_not_come_back_from_an_archive_is_not_replaced() {
        use arrow_array::{Float64Array, ListArray, StructArray};
        // Two rows of one message, read from JSON; then the second score made NaN.
        let (_json, from_json) = dataset(&[
            json!({"messages": [{"role": "user", "content": "a", "score": 0.5}]}),
            json!({"messages": [{"role": "user", "content": "b", "score": 0.5}]}),
        ]);
        let read = from_json.read_group(0).unwrap();
        let template = read.column(0).as_list::<i32>();
        let structs = template.values().as_struct();
        let mut columns = structs.columns().to_vec();
        let at = structs.fields().find("score").unwrap().0;
        columns[at] = Arc::new(Float64Array::from(vec![0.5, f64::NAN]));
        let messages = StructArray::new(structs.fields().clone(), columns, None);
        let DataType::List(item) = template.data_type().clone() else {
            unreachable!("a list")
        };
        let list = ListArray::new(item, template.offsets().clone(), Arc::new(messages), None);
        let schema = Arc::new(Schema::new(vec![Field::new(
            "messages",
            list.data_type().clone(),
            true,
        )]));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap();
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut writer = ArrowWriter::try_new(file.reopen().unwrap(), schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let mut d = Dataset::open(file.reopen().unwrap(), None).unwrap();
        d.keep_originals();
        let out = tempfile::NamedTempFile::new().unwrap();
        let mut seen = Vec::new();
        d.rewrite(
            Some(out.reopen().unwrap()),
            |row| {
                let text = r#"{"messages":[{"role":"user","content":"short"}]}"#;
                (row.index, Some(text.to_string()))
            },
            |done| {
                seen.push((done.index, done.written, done.stored));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen[0].1, Written::Replaced);
        assert_eq!(
            seen[0].2.as_deref(),
            Some(r#"{"messages":[{"role":"user","content":"short"}]}"#)
        );
        assert!(
            matches!(&seen[1].1, Written::Refused(why) if why.contains("come back")),
            "{:?}",
            seen[1]
        );
        let back = Dataset::open(out.reopen().unwrap(), None).unwrap();
        let batch = back.read_group(0).unwrap();
        let values = batch.column(0).as_list::<i32>().value(1);
        let score = values
            .as_struct()
            .column(at)
            .as_primitive::<arrow_array::types::Float64Type>()
            .value(0);
        assert!(score.is_nan(), "the refused row keeps its value");
    }

    #[test]
    fn a_column_of_another_type_or_name_is_refused_with_the_columns_named() {
        let (file, _) = dataset(&[json!({"messages": "[]", "n": 1})]);
        let err = Dataset::open(file.reopen().unwrap(), Some("n"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("is Int64"), "{err}");
        let err = Dataset::open(file.reopen().unwrap(), Some("x"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("messages, n"), "{err}");
    }
}
