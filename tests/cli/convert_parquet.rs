//! `ctxc convert` of Parquet datasets: row by row, every other column kept, the conversation
//! column JSON text in the target format; OpenAI → ATIF → OpenAI gives each row's messages
//! back; a row that does not convert is named and null, and the others convert.

use crate::ctxc;
use crate::parquet::{tau_bench_rows, write_dataset};
use arrow_array::{Array, RecordBatch, cast::AsArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use serde_json::{Value, json};
use std::path::Path;

/// All rows of a dataset in one batch, and its row-group sizes.
fn read(path: &Path) -> (RecordBatch, Vec<i64>) {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let groups = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    let batch = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    (batch, groups)
}

/// The string column `name` of `batch`, row by row.
fn strings(batch: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let column = batch.column(batch.schema().index_of(name).unwrap());
    let column = column.as_string::<i32>();
    (0..column.len())
        .map(|i| (!column.is_null(i)).then(|| column.value(i).to_string()))
        .collect()
}

fn convert(input: &Path, to: &str) -> std::process::Output {
    ctxc()
        .args(["convert", "--to", to])
        .arg(input)
        .output()
        .unwrap()
}

#[test]
fn a_dataset_converts_row_by_row_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("data.parquet");
    let mut rows = tau_bench_rows(7);
    rows[3]["messages"] = Value::Null;
    write_dataset(&input, &rows, 3, Compression::SNAPPY);
    let out = convert(&input, "atif");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let atif = dir.path().join("data.atif.parquet");
    let (converted, groups) = read(&atif);
    let (original, original_groups) = read(&input);
    assert_eq!(groups, original_groups);
    // Every other column as it was.
    for field in original.schema().fields() {
        if field.name() != "messages" {
            let name = field.name();
            let at = converted.schema().index_of(name).unwrap();
            let was = original.column(original.schema().index_of(name).unwrap());
            assert_eq!(converted.column(at), was, "column {name}");
        }
    }
    let cells = strings(&converted, "messages");
    assert!(
        cells[3].is_none(),
        "a row without a conversation stays null"
    );
    for (i, cell) in cells.iter().enumerate().filter(|(i, _)| *i != 3) {
        let trajectory: Value = serde_json::from_str(cell.as_deref().unwrap()).unwrap();
        assert!(
            trajectory["schema_version"]
                .as_str()
                .unwrap()
                .starts_with("ATIF-v")
        );
        assert!(
            trajectory["session_id"]
                .as_str()
                .unwrap()
                .starts_with(&format!("data#row={i}")),
            "{}",
            trajectory["session_id"]
        );
        assert!(!trajectory["steps"].as_array().unwrap().is_empty());
    }

    // Back to OpenAI: each row's messages as they were.
    let out = convert(&atif, "openai");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (back, _) = read(&dir.path().join("data.atif.openai.parquet"));
    for (i, cell) in strings(&back, "messages").iter().enumerate() {
        match cell {
            None => assert_eq!(i, 3),
            Some(text) => {
                let record: Value = serde_json::from_str(text).unwrap();
                assert_eq!(record["messages"], rows[i]["messages"], "row {i}");
            }
        }
    }

    // An existing output is not replaced.
    let out = convert(&input, "atif");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force-overwrite"));
}

#[test]
fn a_row_that_does_not_convert_is_named_and_null() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("text.parquet");
    let messages = |i: usize| tau_bench_rows(2)[i]["messages"].to_string();
    let rows = [
        json!({"id": 0, "history": messages(0)}),
        json!({"id": 1, "history": "[{\"role\": "}),
        json!({"id": 2, "history": messages(1)}),
    ];
    write_dataset(&input, &rows, 10, Compression::UNCOMPRESSED);
    let out = convert(&input, "atif");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("text.parquet#row=1: "), "{err}");
    assert!(err.contains("2 conversations"), "{err}");
    let (converted, _) = read(&dir.path().join("text.atif.parquet"));
    let cells = strings(&converted, "history");
    assert!(cells[1].is_none());
    assert!(cells[0].as_deref().unwrap().contains("ATIF-v"));
    assert!(cells[2].as_deref().unwrap().contains("ATIF-v"));
}
