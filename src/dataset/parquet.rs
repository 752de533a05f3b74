//! Parquet datasets through Arrow: a row group read, its conversation column turned into one
//! JSON text per row, and — for `compact` — the column rebuilt from the compacted texts and the
//! row group written out with everything else as it was read ([`Column`], which does both, a
//! row group at a time).

use super::Row;
use super::batch::{self, Column, Written, hash_texts};
use anyhow::{Context, Result, anyhow, bail};
use arrow_array::{RecordBatch, StringArray};
use arrow_schema::{DataType, Field, FieldRef, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::{WriterProperties, WriterVersion};
use std::fs::File;
use std::io::Write;
use std::sync::Arc;

/// The schema key where Arrow keeps its own schema; the writer writes it anew.
const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// How every error reading a dataset begins: the file is not what it claims to be.
const UNREADABLE: &str = "not a readable Parquet dataset";

/// An open Parquet dataset and its conversation column.
pub struct Dataset {
    file: File,
    meta: ArrowReaderMetadata,
    column: Column,
    /// The most bytes a row group may hold decompressed (`--max-input-bytes`).
    limit: u64,
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
    /// The row's conversation as read, when the dataset keeps originals
    /// ([`Dataset::keep_originals`]).
    pub text: Option<&'a str>,
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

impl Dataset {
    /// Opens a Parquet file and finds its conversation column: `column` if given, else the
    /// first of [`super::COLUMN_NAMES`] there is. A row group that holds more than `limit`
    /// bytes decompressed is refused when it is reached, before it is decoded.
    pub fn open(file: File, column: Option<&str>, limit: u64) -> Result<Dataset> {
        let meta = load_footer(&file)?;
        let column = Column::find(meta.schema(), column, "--column")?;
        Ok(Dataset {
            file,
            meta,
            column,
            limit,
        })
    }

    /// Makes [`Dataset::rewrite`] replace a row only when its original value comes back
    /// exactly from its text (a list-of-struct value through JSON), and hand the sink each
    /// replaced row's new text: what an archive needs to give every row back.
    pub fn keep_originals(&mut self) {
        self.column.keep_originals();
    }

    /// A hash over every row's conversation text, in row order, a null counted as one: equal
    /// for two datasets whose conversation columns hold equal values.
    pub fn values_hash(&self) -> Result<String> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            let texts = self.column.texts(batch.column(self.column.index()))?;
            hash_texts(&mut hasher, &texts);
        }
        Ok(crate::archive::hash_of(hasher.digest128()))
    }

    /// The conversation column's name.
    pub fn column_name(&self) -> &str {
        self.meta.schema().field(self.column.index()).name()
    }

    /// Calls `each` on every row that holds a conversation (not null), a row group at a
    /// time, the rows of a group in parallel; the results come back in row order.
    pub fn read<R: Send>(&self, each: impl Fn(Row) -> R + Sync) -> Result<Vec<R>> {
        let mut results = Vec::new();
        let mut first = 0;
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            let done = self.column.read(&batch, first, &each)?;
            results.extend(done.into_iter().map(|(_, r)| r));
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
            let column = batch.column(self.column.index());
            let texts = self.column.texts(column)?;
            hash_texts(&mut hasher, &texts);
            let mut done: Vec<(usize, R, Option<String>)> = batch::run(&texts, first, &each)
                .into_iter()
                .map(|(i, (r, output))| (i, r, output))
                .collect();
            // The rows as read are let go now unless an archive needs them.
            let texts = self.column.keeps_originals().then_some(texts);
            let (new_column, written) = self.column.rebuild(column, texts.as_ref(), &mut done)?;
            for ((i, result, _), (written, stored)) in done.into_iter().zip(written) {
                sink(Done {
                    index: first + i,
                    result,
                    written,
                    text: texts.as_ref().and_then(|t| t.get(i)),
                    stored,
                })?;
            }
            drop(texts);
            let rows = batch.num_rows();
            if let Some(writer) = writer.as_mut() {
                // The old conversation column let go before the row group is encoded.
                let (schema, mut columns, _) = batch.into_parts();
                columns[self.column.index()] = new_column;
                let batch = RecordBatch::try_new(schema, columns)?;
                writer.write(&batch).context("writing a row group")?;
                // The input's row groups end where they ended.
                writer.flush().context("writing a row group")?;
            }
            first += rows;
        }
        if let Some(writer) = writer {
            writer.close().context("writing the Parquet footer")?;
        }
        Ok(Rewritten {
            rows: first as u64,
            values_hash: crate::archive::hash_of(hasher.digest128()),
        })
    }

    /// Writes the dataset to `out` with its conversation column replaced by a column of JSON
    /// text holding what `each` makes of each row's conversation (`ctxc convert`): the target
    /// format's structure is not the input column's Arrow type, so it goes in as text. A null
    /// row, and a row `each` gives nothing for, is null; every other column, the metadata, the
    /// row order, the row-group sizes and the codecs are the input's. Returns the rows read.
    pub fn convert<W: Write + Send>(
        &self,
        out: W,
        each: impl Fn(Row) -> Option<String> + Sync,
    ) -> Result<u64> {
        let index = self.column.index();
        let input = self.meta.schema();
        let mut fields: Vec<FieldRef> = input.fields().iter().cloned().collect();
        fields[index] = Arc::new(Field::new(fields[index].name(), DataType::Utf8, true));
        let schema = Arc::new(Schema::new_with_metadata(fields, input.metadata().clone()));
        let mut writer = ArrowWriter::try_new(out, schema.clone(), Some(self.properties()))
            .context("starting the Parquet output")?;
        let mut first = 0;
        for group in 0..self.groups() {
            let batch = self.read_group(group)?;
            let texts = self.column.texts(batch.column(index))?;
            let mut converted: Vec<Option<String>> = vec![None; batch.num_rows()];
            for (i, text) in batch::run(&texts, first, &each) {
                converted[i] = text;
            }
            drop(texts);
            let rows = batch.num_rows();
            let (_, mut columns, _) = batch.into_parts();
            columns[index] = Arc::new(StringArray::from(converted));
            let batch = RecordBatch::try_new(schema.clone(), columns)?;
            writer.write(&batch).context("writing a row group")?;
            writer.flush().context("writing a row group")?;
            first += rows;
        }
        writer.close().context("writing the Parquet footer")?;
        Ok(first as u64)
    }

    fn groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// Row group `group`, all of it in one batch; refused before it is decoded when its
    /// footer says it holds more than the limit decompressed. A decoder that panics on its
    /// bytes (a damaged page) is an error too.
    fn read_group(&self, group: usize) -> Result<RecordBatch> {
        let meta = self.meta.metadata().row_group(group);
        self.check_size(group)?;
        let rows = meta.num_rows().max(1) as usize;
        let read = || -> Result<RecordBatch> {
            let file = self.file.try_clone()?;
            let reader =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone())
                    .with_row_groups(vec![group])
                    .with_batch_size(rows)
                    .build()?;
            let mut batches = reader.collect::<Result<Vec<_>, _>>()?;
            if batches.len() == 1 {
                return Ok(batches.remove(0));
            }
            Ok(arrow_select::concat::concat_batches(
                self.meta.schema(),
                &batches,
            )?)
        };
        let unreadable = || format!("{UNREADABLE}: reading row group {group}");
        match crate::panics::catch(read) {
            Ok(batch) => batch.with_context(unreadable),
            Err(panic) => Err(anyhow!(
                "{}: its bytes do not decode ({panic})",
                unreadable()
            )),
        }
    }

    /// Fails when row group `group` holds more than the limit decompressed, as its footer
    /// says: a few kilobytes of zstd can hold a row of gigabytes.
    fn check_size(&self, group: usize) -> Result<()> {
        let meta = self.meta.metadata().row_group(group);
        let chunks = meta
            .columns()
            .iter()
            .map(|c| c.uncompressed_size().max(0) as u64);
        let size = chunks
            .sum::<u64>()
            .max(meta.total_byte_size().max(0) as u64);
        if size <= self.limit {
            return Ok(());
        }
        let first: i64 = (0..group)
            .map(|g| self.meta.metadata().row_group(g).num_rows())
            .sum();
        let rows = match meta.num_rows() {
            1 => format!("row {first}"),
            n => format!("rows {first} to {}", first + n - 1),
        };
        bail!(
            "row group {group} ({rows}) holds {} bytes decompressed, over --max-input-bytes \
             ({} bytes): refused before it is read",
            crate::human::thousands(size),
            crate::human::thousands(self.limit)
        )
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

/// The footer, with Arrow's schema decoded from its metadata; a footer whose decoding panics
/// (arrow-ipc on a damaged `ARROW:schema`) is an error like any other.
fn load_footer(file: &File) -> Result<ArrowReaderMetadata> {
    let load = |options: ArrowReaderOptions| {
        crate::panics::catch(|| ArrowReaderMetadata::load(file, options))
    };
    match load(ArrowReaderOptions::new()) {
        Ok(meta) => meta.context(UNREADABLE),
        Err(panic) => {
            // Which part is damaged: the footer without Arrow's schema may read.
            let skipped = load(ArrowReaderOptions::new().with_skip_arrow_metadata(true));
            let part = match skipped {
                Ok(Ok(_)) => {
                    format!("its Arrow schema ({ARROW_SCHEMA_KEY} in the footer) is damaged")
                }
                _ => "its footer is damaged".to_string(),
            };
            bail!("{UNREADABLE}: {part} ({panic})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_schema::{DataType, Field, Schema};
    use serde_json::json;
    use std::sync::Arc;

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
        let dataset = Dataset::open(file.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let back = Dataset::open(out.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let back = Dataset::open(out.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let back = Dataset::open(out.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let mut d = Dataset::open(file.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let back = Dataset::open(out.reopen().unwrap(), None, u64::MAX).unwrap();
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
        let err = Dataset::open(file.reopen().unwrap(), Some("n"), u64::MAX)
            .err()
            .unwrap();
        assert!(err.to_string().contains("is Int64"), "{err}");
        let err = Dataset::open(file.reopen().unwrap(), Some("x"), u64::MAX)
            .err()
            .unwrap();
        assert!(err.to_string().contains("messages, n"), "{err}");
    }
}
