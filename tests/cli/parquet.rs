//! Parquet datasets built here, with the `parquet` and `arrow` crates, from the corpus's real
//! conversations: tau-bench runs as a list-of-struct `messages` column, SWE-agent histories as
//! a JSON-string `history` column, ShareGPT conversations under a column only `--column`
//! names; beside them columns of other types (int64, float, string with nulls, a list, a
//! nested struct) that must come back equal, with the schema, its metadata, the row groups
//! and the codec.

use crate::{ctxc, shared, stdout_of};
use arrow_array::{Array, ArrayRef, RecordBatch, cast::AsArray};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// Writes `rows` (JSON objects, one per row; the schema inferred from them) as a Parquet file
/// of row groups of `group` rows, with `codec` and a key-value pair of metadata.
pub(crate) fn write_dataset(path: &Path, rows: &[Value], group: usize, codec: Compression) {
    let schema = arrow_json::reader::infer_json_schema_from_iterator(rows.iter().map(Ok)).unwrap();
    let schema =
        Arc::new(schema.with_metadata([("dataset".to_string(), "ctxc test".to_string())].into()));
    let mut decoder = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(rows.len())
        .build_decoder()
        .unwrap();
    decoder.serialize(rows).unwrap();
    let batch = decoder.flush().unwrap().unwrap();
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_max_row_group_row_count(Some(group))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "origin".to_string(),
            "tests/cli/parquet.rs".to_string(),
        )]))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// A dataset's metadata and all its rows in one batch.
fn read_dataset(path: &Path) -> (Arc<ParquetMetaData>, RecordBatch) {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let meta = builder.metadata().clone();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    (
        meta,
        arrow_select::concat::concat_batches(&schema, &batches).unwrap(),
    )
}

/// The file's key-value metadata but Arrow's own schema.
fn key_values(meta: &ParquetMetaData) -> Vec<(String, Option<String>)> {
    let mut kv: Vec<_> = meta
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != "ARROW:schema")
        .map(|kv| (kv.key.clone(), kv.value.clone()))
        .collect();
    kv.sort();
    kv
}

/// Row counts and the codec of every column chunk, per row group.
fn layout(meta: &ParquetMetaData) -> Vec<(i64, Vec<Compression>)> {
    meta.row_groups()
        .iter()
        .map(|g| {
            let codecs = g.columns().iter().map(|c| c.compression()).collect();
            (g.num_rows(), codecs)
        })
        .collect()
}

/// Asserts that the output is the input but for the column `conversations`: schema, its
/// metadata, key-value metadata, row groups, codecs and every other column's values.
pub(crate) fn assert_same_but(
    input: &Path,
    output: &Path,
    conversations: &str,
) -> (ArrayRef, ArrayRef) {
    let (meta_in, rows_in) = read_dataset(input);
    let (meta_out, rows_out) = read_dataset(output);
    assert_eq!(rows_in.schema(), rows_out.schema());
    assert_eq!(key_values(&meta_in), key_values(&meta_out));
    assert_eq!(layout(&meta_in), layout(&meta_out));
    for (i, field) in rows_in.schema().fields().iter().enumerate() {
        if field.name() != conversations {
            assert_eq!(
                rows_in.column(i).as_ref(),
                rows_out.column(i).as_ref(),
                "column {}",
                field.name()
            );
        }
    }
    let at = rows_in.schema().index_of(conversations).unwrap();
    (rows_in.column(at).clone(), rows_out.column(at).clone())
}

/// Other columns of row `i`: int64, float, string (null every third row), a list of strings
/// and a nested struct.
fn extras(i: usize, row: &mut serde_json::Map<String, Value>) {
    row.insert("id".into(), json!(1000 + i as i64));
    row.insert("score".into(), json!(i as f64 / 4.0 + 0.125));
    let note = (i % 3 != 0).then(|| format!("note {i}"));
    row.insert("note".into(), json!(note));
    row.insert("tags".into(), json!([format!("t{i}"), "corpus"]));
    row.insert(
        "meta".into(),
        json!({"source": "corpus", "run": {"trial": i, "ok": i % 2 == 0}}),
    );
}

/// The first `n` tau-bench runs, their messages a list-of-struct `messages` column.
pub(crate) fn tau_bench_rows(n: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json"))
        .unwrap();
    let runs: Vec<Value> = serde_json::from_str(&text).unwrap();
    runs.into_iter()
        .take(n)
        .enumerate()
        .map(|(i, run)| {
            let mut row = serde_json::Map::new();
            row.insert("messages".into(), run["traj"].clone());
            extras(i, &mut row);
            Value::Object(row)
        })
        .collect()
}

/// SWE-agent histories, each as JSON text in a `history` column; row `bad` holds JSON that
/// does not parse.
fn swe_agent_rows(bad: usize) -> Vec<Value> {
    let dir = shared("corpus/swe-agent");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let traj: Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let history = if i == bad {
                "[{\"role\": \"system\", \"content\": ".to_string()
            } else {
                serde_json::to_string(&traj["history"]).unwrap()
            };
            let mut row = serde_json::Map::new();
            row.insert("history".into(), json!(history));
            extras(i, &mut row);
            Value::Object(row)
        })
        .collect()
}

/// `ctxc stats --json` of a dataset: each row's path and context tokens.
fn row_tokens(path: &Path) -> Vec<(String, u64)> {
    let out = ctxc().args(["stats", "--json"]).arg(path).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            let row = path.rsplit_once('#').unwrap().1.to_string();
            (row, f["contextTokens"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn a_list_of_struct_column_is_compacted_and_everything_else_comes_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("data.parquet");
    let mut rows = tau_bench_rows(12);
    // A row without a conversation stays null and has no report entry.
    rows[7]["messages"] = Value::Null;
    write_dataset(&input, &rows, 5, Compression::ZSTD(Default::default()));
    let out = ctxc()
        .args(["compact", "--json", "--force", "--target-ratio", "0.5"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let files = report["files"].as_array().unwrap();
    let paths: Vec<String> = files
        .iter()
        .map(|f| {
            f["path"]
                .as_str()
                .unwrap()
                .rsplit_once('#')
                .unwrap()
                .1
                .to_string()
        })
        .collect();
    let expected: Vec<String> = (0..12)
        .filter(|&i| i != 7)
        .map(|i| format!("row={i}"))
        .collect();
    assert_eq!(paths, expected);
    let output = dir.path().join("data.compact.parquet");
    for f in files {
        assert_eq!(f["status"], "compacted", "{f}");
        assert_eq!(f["format"], "openai");
        assert_eq!(f["output"], output.display().to_string());
        assert!(f["contextTokensAfter"].as_u64() < f["contextTokensBefore"].as_u64());
    }
    let (before, after) = assert_same_but(&input, &output, "messages");
    assert!(after.is_null(7));
    assert_eq!(after.data_type(), before.data_type());
    // Counted again from the file written, each conversation has fewer tokens.
    let (tokens_in, tokens_out) = (row_tokens(&input), row_tokens(&output));
    assert_eq!(tokens_in.len(), 11);
    for ((row, a), (row_out, b)) in tokens_in.iter().zip(&tokens_out) {
        assert_eq!(row, row_out);
        assert!(b < a, "{row}: {a} → {b}");
    }
}

#[test]
fn a_json_string_column_is_compacted_and_a_bad_row_is_reported_by_index_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("trajectories.parquet");
    let rows = swe_agent_rows(3);
    write_dataset(&input, &rows, 4, Compression::SNAPPY);
    let out = ctxc()
        .args(["compact", "--json", "--force", "--target-ratio", "0.5"])
        .arg(&input)
        .output()
        .unwrap();
    // The failed row makes the run fail; the others are written.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("trajectories.parquet#row=3"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), rows.len());
    assert_eq!(report["totals"]["failed"], 1);
    let failed = &files[3];
    assert!(failed["path"].as_str().unwrap().ends_with("#row=3"));
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["failedStep"], "parse");
    let output = dir.path().join("trajectories.compact.parquet");
    let (before, after) = assert_same_but(&input, &output, "history");
    let (before, after) = (before.as_string::<i32>(), after.as_string::<i32>());
    assert_eq!(
        before.value(3),
        after.value(3),
        "the bad row is left as it was"
    );
    let mut compacted = 0;
    for (i, f) in files.iter().enumerate().filter(|(i, _)| *i != 3) {
        assert_eq!(f["format"], "openai", "{f}");
        // Still a JSON message list, as the column held.
        let list: Value = serde_json::from_str(after.value(i)).unwrap();
        assert!(list.is_array());
        if f["status"] == "compacted" {
            compacted += 1;
            assert!(after.value(i).len() < before.value(i).len());
        } else {
            assert_eq!(after.value(i), before.value(i));
        }
    }
    assert!(compacted >= 5, "{compacted} rows compacted");
}

#[test]
fn stats_and_check_report_each_row_also_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    let mut rows = tau_bench_rows(4);
    // Row 2 answers a tool call nobody made: a finding.
    let orphan = json!({"role": "tool", "tool_call_id": "nowhere", "name": "x", "content": "late"});
    rows[2]["messages"].as_array_mut().unwrap().push(orphan);
    write_dataset(&input, &rows, 3, Compression::UNCOMPRESSED);

    let out = ctxc().arg("check").arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let findings = stdout_of(&out);
    assert!(!findings.is_empty());
    for line in findings.lines() {
        assert!(
            line.starts_with(&format!("{}#row=2:", input.display())),
            "{line}"
        );
    }

    let bytes = std::fs::read(&input).unwrap();
    let out = ctxc()
        .args(["stats", "--json", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let paths: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "<stdin>#row=0",
            "<stdin>#row=1",
            "<stdin>#row=2",
            "<stdin>#row=3"
        ]
    );
    let from_file = row_tokens(&input);
    for (f, (_, tokens)) in report["files"].as_array().unwrap().iter().zip(&from_file) {
        assert_eq!(f["contextTokens"].as_u64(), Some(*tokens));
        assert_eq!(f["format"], "openai");
    }
}

#[test]
fn a_column_of_another_name_is_given_with_column() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sharegpt.parquet");
    let text = std::fs::read_to_string(shared(
        "corpus/sharegpt/llamafactory/glaive_toolcall_en_demo.json",
    ))
    .unwrap();
    let convs: Vec<Value> = serde_json::from_str(&text).unwrap();
    let rows: Vec<Value> = convs
        .iter()
        .take(6)
        .map(|c| json!({"turns": c["conversations"], "tools": c["tools"]}))
        .collect();
    write_dataset(&input, &rows, 6, Compression::GZIP(Default::default()));
    let out = ctxc().args(["stats"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no conversation column") && stderr.contains("--column"),
        "{stderr}"
    );

    let out = ctxc()
        .args(["stats", "--json", "--column", "turns"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 6);
    assert!(files.iter().all(|f| f["format"] == "sharegpt"), "{files:?}");

    let output = dir.path().join("out.parquet");
    let out = ctxc()
        .args([
            "compact",
            "--force",
            "--target-ratio",
            "0.5",
            "--column",
            "turns",
            "-o",
        ])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same_but(&input, &output, "turns");
}

#[test]
fn a_dataset_from_standard_input_goes_to_standard_output_and_a_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    write_dataset(&input, &tau_bench_rows(3), 2, Compression::LZ4_RAW);
    let out = ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "-"])
        .write_stdin(std::fs::read(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.starts_with(b"PAR1"));
    let output = dir.path().join("from-stdin.parquet");
    std::fs::write(&output, &out.stdout).unwrap();
    assert_same_but(&input, &output, "messages");
    // The report went to standard error, one row per conversation.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>#row=2"), "{stderr}");

    let out = ctxc()
        .args(["compact", "--dry-run", "--force", "--target-ratio", "0.5"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("runs.compact.parquet").exists());
}

#[test]
fn merged_reports_keep_rows_in_row_order() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    write_dataset(&input, &tau_bench_rows(12), 12, Compression::SNAPPY);
    let out = ctxc()
        .args([
            "compact",
            "--dry-run",
            "--json",
            "--force",
            "--target-ratio",
            "0.5",
        ])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let whole: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let paths = |report: &Value| -> Vec<String> {
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(paths(&whole)[2].ends_with("#row=2"), "{:?}", paths(&whole));
    // Two shards' reports, rows 10 and 11 in the first.
    let mut parts = [whole.clone(), whole.clone()];
    for (k, part) in parts.iter_mut().enumerate() {
        let files = part["files"].as_array_mut().unwrap();
        files.retain(|f| f["path"].as_str().unwrap().contains("#row=1") == (k == 0));
        std::fs::write(dir.path().join(format!("{k}.json")), part.to_string()).unwrap();
    }
    let out = ctxc()
        .args(["report", "merge", "--json"])
        .arg(dir.path().join("1.json"))
        .arg(dir.path().join("0.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(paths(&merged), paths(&whole));
    assert_eq!(merged["totals"], whole["totals"]);
}

/// Asserts that two datasets hold equal rows: schema and its metadata, key-value metadata,
/// row groups, codecs and every column's values (the bytes need not be equal).
pub(crate) fn assert_same_rows(a: &Path, b: &Path) {
    let (meta_a, rows_a) = read_dataset(a);
    let (meta_b, rows_b) = read_dataset(b);
    assert_eq!(rows_a.schema(), rows_b.schema());
    assert_eq!(key_values(&meta_a), key_values(&meta_b));
    assert_eq!(layout(&meta_a), layout(&meta_b));
    for (i, field) in rows_a.schema().fields().iter().enumerate() {
        assert_eq!(
            rows_a.column(i).as_ref(),
            rows_b.column(i).as_ref(),
            "column {}",
            field.name()
        );
    }
}

/// Runs ctxc in `dir`, expecting exit `code`; returns its output.
fn run_in(dir: &Path, args: &[&str], code: i32) -> std::process::Output {
    let out = ctxc().current_dir(dir).args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

use crate::COMPACT_HALF as COMPACT;

#[test]
fn an_archive_restores_every_row_value_identical_across_a_chain() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rows = tau_bench_rows(12);
    rows[7]["messages"] = Value::Null;
    write_dataset(
        &d.join("data.parquet"),
        &rows,
        5,
        Compression::ZSTD(Default::default()),
    );
    let archive = [
        &COMPACT[..],
        &["--archive", "-o", "small.parquet", "data.parquet"],
    ]
    .concat();
    run_in(d, &archive, 0);
    let (before, after) = assert_same_but(
        &d.join("data.parquet"),
        &d.join("small.parquet"),
        "messages",
    );
    assert_ne!(
        before.as_ref(),
        after.as_ref(),
        "the conversations were compacted"
    );
    let json: Value =
        serde_json::from_slice(&std::fs::read(d.join("small.ctxc-archive.json")).unwrap()).unwrap();
    assert_eq!(json["schemaVersion"], 3);
    // The compacted dataset names its archive; the default destination, the original, exists.
    let out = run_in(d, &["restore", "small.parquet"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("data.parquet exists"));
    let out = run_in(d, &["restore", "small.parquet", "-o", "back.parquet"], 0);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("value-identical") && said.contains("11 put back"),
        "{said}"
    );
    assert_same_rows(&d.join("data.parquet"), &d.join("back.parquet"));

    let shown = stdout_of(&run_in(d, &["archive", "show", "small.parquet"], 0));
    assert!(
        shown.contains("dataset: 12 rows, column messages; 11 rows changed"),
        "{shown}"
    );
    assert!(shown.contains("\n  row 0"), "{shown}");
    assert!(!shown.contains("row 7"), "{shown}");
    let view: Value = serde_json::from_str(&stdout_of(&run_in(
        d,
        &["archive", "show", "--json", "small.ctxc-archive.json"],
        0,
    )))
    .unwrap();
    assert_eq!(view["records"][0]["dataset"]["changedRows"], 11);
    assert_eq!(view["records"][0]["format"], "parquet");

    // Compacted again: the records chain, and each step back is value-identical.
    let again = [
        "compact",
        "--force",
        "--target-tokens",
        "1500",
        "--archive",
        "-o",
        "smaller.parquet",
        "small.parquet",
    ];
    run_in(d, &again, 0);
    let chained: Value =
        serde_json::from_slice(&std::fs::read(d.join("smaller.ctxc-archive.json")).unwrap())
            .unwrap();
    assert_eq!(chained["records"].as_array().unwrap().len(), 2);
    run_in(
        d,
        &["restore", "-q", "smaller.parquet", "-o", "first.parquet"],
        0,
    );
    assert_same_rows(&d.join("data.parquet"), &d.join("first.parquet"));
    run_in(
        d,
        &[
            "restore",
            "-q",
            "smaller.parquet",
            "--steps",
            "1",
            "-o",
            "one.parquet",
        ],
        0,
    );
    assert_same_rows(&d.join("small.parquet"), &d.join("one.parquet"));

    // A damaged archive is found out, and nothing is written.
    let archive_path = d.join("small.ctxc-archive.json");
    let kept = std::fs::read(&archive_path).unwrap();
    let mut damaged: Value = serde_json::from_slice(&kept).unwrap();
    let row = &mut damaged["records"][0]["dataset"]["changed"][2];
    row["hash"] = json!(format!("xxh3-128:{}", "0".repeat(32)));
    std::fs::write(&archive_path, damaged.to_string()).unwrap();
    let out = run_in(d, &["restore", "small.parquet", "-o", "x.parquet"], 1);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("row 2:") && said.contains("damaged"),
        "{said}"
    );
    assert!(!d.join("x.parquet").exists());
    std::fs::write(&archive_path, &kept).unwrap();
    // A compacted dataset that changed since is refused.
    std::fs::copy(d.join("data.parquet"), d.join("small.parquet")).unwrap();
    let out = run_in(
        d,
        &["restore", "small.ctxc-archive.json", "-o", "x.parquet"],
        1,
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has changed since it was compacted"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!d.join("x.parquet").exists());
}

#[test]
fn a_json_string_column_and_its_bad_row_come_back_from_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = swe_agent_rows(3);
    write_dataset(&d.join("t.parquet"), &rows, 4, Compression::SNAPPY);
    let archive = [
        &COMPACT[..],
        &["--archive", "--out-dir", "out", "t.parquet"],
    ]
    .concat();
    // The bad row fails the run; it is written as it was, and the archive has the others.
    run_in(d, &archive, 1);
    let out = d.join("out/t.parquet");
    let (before, after) = assert_same_but(&d.join("t.parquet"), &out, "history");
    assert_eq!(
        before.as_string::<i32>().value(3),
        after.as_string::<i32>().value(3)
    );
    assert_ne!(before.as_ref(), after.as_ref());
    run_in(
        d,
        &["restore", "-q", "out/t.parquet", "-o", "back.parquet"],
        0,
    );
    assert_same_rows(&d.join("t.parquet"), &d.join("back.parquet"));
    // To standard output too.
    let out = run_in(
        d,
        &["restore", "-q", "out/t.ctxc-archive.json", "-o", "-"],
        0,
    );
    assert!(out.stdout.starts_with(b"PAR1"));
    std::fs::write(d.join("piped.parquet"), &out.stdout).unwrap();
    assert_same_rows(&d.join("t.parquet"), &d.join("piped.parquet"));
}

/// Whether a directory holds ctxc's temporary files.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ctxc-"))
        .collect()
}

#[test]
fn in_place_keeps_a_backup_and_an_archive_that_restores() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rows = tau_bench_rows(9);
    rows[4]["messages"] = Value::Null;
    write_dataset(&d.join("original.parquet"), &rows, 4, Compression::SNAPPY);
    std::fs::copy(d.join("original.parquet"), d.join("runs.parquet")).unwrap();
    let original = std::fs::read(d.join("runs.parquet")).unwrap();
    let in_place = [
        &COMPACT[..],
        &["--in-place", "--backup", "--archive", "runs.parquet"],
    ]
    .concat();
    run_in(d, &in_place, 0);
    assert_eq!(std::fs::read(d.join("runs.parquet.bak")).unwrap(), original);
    let (before, after) = assert_same_but(
        &d.join("original.parquet"),
        &d.join("runs.parquet"),
        "messages",
    );
    assert_ne!(before.as_ref(), after.as_ref());
    assert!(temporaries(d).is_empty(), "{:?}", temporaries(d));
    run_in(
        d,
        &["restore", "-q", "runs.parquet", "-o", "back.parquet"],
        0,
    );
    assert_same_rows(&d.join("original.parquet"), &d.join("back.parquet"));
    // A second run never overwrites the backup.
    let out = run_in(d, &in_place, 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("never overwrites a backup"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(d.join("runs.parquet.bak")).unwrap(), original);
}

/// `restore` of a dataset compacted in place restores it over itself, keeping the compacted
/// dataset as NAME.parquet.compacted (never over another file).
#[test]
fn a_dataset_compacted_in_place_is_restored_over_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(
        &d.join("original.parquet"),
        &tau_bench_rows(9),
        4,
        Compression::SNAPPY,
    );
    std::fs::copy(d.join("original.parquet"), d.join("runs.parquet")).unwrap();
    run_in(
        d,
        &[&COMPACT[..], &["--in-place", "--archive", "runs.parquet"]].concat(),
        0,
    );
    let compacted = std::fs::read(d.join("runs.parquet")).unwrap();
    std::fs::write(d.join("runs.parquet.compacted"), "taken").unwrap();
    let out = run_in(d, &["restore", "runs.parquet"], 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("runs.parquet.compacted exists"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(d.join("runs.parquet")).unwrap(), compacted);
    std::fs::remove_file(d.join("runs.parquet.compacted")).unwrap();
    let out = run_in(d, &["restore", "runs.parquet"], 0);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the compacted dataset is kept as"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same_rows(&d.join("original.parquet"), &d.join("runs.parquet"));
    assert_eq!(
        std::fs::read(d.join("runs.parquet.compacted")).unwrap(),
        compacted
    );
    assert!(temporaries(d).is_empty(), "{:?}", temporaries(d));
}

/// A kill (`CTXC_FAILPOINT`, as abrupt as `kill -9`) after the archive's record is pending,
/// after the dataset is in place, after the record is committed: the dataset is the original
/// or the compacted one, the original always comes back, and the next run finishes.
#[test]
fn a_kill_during_an_in_place_run_loses_nothing() {
    for point in ["archive-pending", "output-in-place", "archive-committed"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_dataset(
            &d.join("original.parquet"),
            &tau_bench_rows(6),
            3,
            Compression::SNAPPY,
        );
        std::fs::copy(d.join("original.parquet"), d.join("runs.parquet")).unwrap();
        let original = std::fs::read(d.join("runs.parquet")).unwrap();
        let in_place = [
            &COMPACT[..],
            &["--in-place", "--backup", "--archive", "runs.parquet"],
        ]
        .concat();
        let killed = ctxc()
            .current_dir(d)
            .env("CTXC_FAILPOINT", point)
            .args(&in_place)
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{point}: killed by a signal");
        assert_eq!(
            std::fs::read(d.join("runs.parquet.bak")).unwrap(),
            original,
            "{point}"
        );
        if point == "archive-pending" {
            assert_eq!(
                std::fs::read(d.join("runs.parquet")).unwrap(),
                original,
                "{point}"
            );
        } else {
            run_in(
                d,
                &["restore", "-q", "runs.parquet", "-o", "back.parquet"],
                0,
            );
            assert_same_rows(&d.join("original.parquet"), &d.join("back.parquet"));
            std::fs::remove_file(d.join("back.parquet")).unwrap();
        }
        // The next run picks up from either: the backup holding the file is kept (pending),
        // or a compacted dataset is compacted again, its record chained.
        if point == "archive-pending" {
            run_in(d, &in_place, 0);
        } else {
            let again = [&COMPACT[..], &["--in-place", "--archive", "runs.parquet"]].concat();
            run_in(d, &again, 0);
        }
        run_in(
            d,
            &["restore", "-q", "runs.parquet", "-o", "back.parquet"],
            0,
        );
        assert_same_rows(&d.join("original.parquet"), &d.join("back.parquet"));
        assert_eq!(
            std::fs::read(d.join("runs.parquet.bak")).unwrap(),
            original,
            "{point}"
        );
    }
}

/// The report entries of a run without their timings, which differ between runs.
fn untimed(report: &Path) -> Vec<Value> {
    let report: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.as_object_mut().unwrap().remove("timeMs");
            let output = f["output"]
                .as_str()
                .map(|o| o.replacen("whole/", "out/", 1));
            f["output"] = json!(output);
            f
        })
        .collect()
}

#[test]
fn a_resumed_run_skips_finished_datasets_redoes_the_rest_and_ends_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("in")).unwrap();
    for (k, name) in ["a", "b", "c"].iter().enumerate() {
        let rows: Vec<Value> = tau_bench_rows(3 + 2 * k);
        write_dataset(
            &d.join(format!("in/{name}.parquet")),
            &rows,
            2,
            Compression::SNAPPY,
        );
    }
    let run = |out: &str, report: &str, failpoint: Option<&str>| {
        let mut cmd = ctxc();
        cmd.current_dir(d).args(COMPACT).args([
            "-v",
            "--jobs",
            "1",
            "--out-dir",
            out,
            "--report",
            report,
        ]);
        if out == "out" {
            cmd.args(["--resume-from", "manifest.jsonl"]);
        }
        if let Some(point) = failpoint {
            cmd.env("CTXC_FAILPOINT", point);
        }
        cmd.arg("in").output().unwrap()
    };
    assert_eq!(run("whole", "whole.json", None).status.code(), Some(0));
    // Killed as the second dataset's entry is recorded, before it is written.
    let killed = run("out", "r.json", Some("manifest-entry:2"));
    assert_eq!(killed.status.code(), None, "killed");
    let written: Vec<_> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".parquet"))
        .collect();
    assert_eq!(written, ["a.parquet"], "one dataset finished");
    let resumed = run("out", "r.json", None);
    assert_eq!(resumed.status.code(), Some(0));
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(
        said.matches("finished by an earlier run").count(),
        1,
        "{said}"
    );
    for name in ["a", "b", "c"] {
        let file = format!("{name}.parquet");
        assert_eq!(
            std::fs::read(d.join("out").join(&file)).unwrap(),
            std::fs::read(d.join("whole").join(&file)).unwrap(),
            "{file} byte-identical"
        );
    }
    assert!(
        untimed(&d.join("r.json")) == untimed(&d.join("whole.json")),
        "the same report"
    );
    // A finished run redoes nothing, and reports the same.
    let again = run("out", "r2.json", None);
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(
        said.matches("finished by an earlier run").count(),
        3,
        "{said}"
    );
    assert!(
        untimed(&d.join("r2.json")) == untimed(&d.join("whole.json")),
        "the same report"
    );
}

/// In place, a dataset another process holds open for writing is refused, naming it, and
/// left as it was with no backup; once it is closed the dataset is compacted.
#[cfg(target_os = "linux")]
#[test]
fn in_place_refuses_a_dataset_held_open_for_writing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(
        &d.join("runs.parquet"),
        &tau_bench_rows(4),
        2,
        Compression::SNAPPY,
    );
    let original = std::fs::read(d.join("runs.parquet")).unwrap();
    let writer = std::fs::OpenOptions::new()
        .append(true)
        .open(d.join("runs.parquet"))
        .unwrap();
    let in_place = [&COMPACT[..], &["--in-place", "--backup", "runs.parquet"]].concat();
    let out = run_in(d, &in_place, 1);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("runs.parquet is open for writing by ")
            && said.contains(&format!("(pid {})", std::process::id())),
        "{said}"
    );
    assert_eq!(std::fs::read(d.join("runs.parquet")).unwrap(), original);
    assert!(!d.join("runs.parquet.bak").exists());
    drop(writer);
    run_in(d, &in_place, 0);
    assert_ne!(std::fs::read(d.join("runs.parquet")).unwrap(), original);
    assert_eq!(std::fs::read(d.join("runs.parquet.bak")).unwrap(), original);
}
