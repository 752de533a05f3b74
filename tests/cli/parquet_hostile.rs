//! Parquet datasets that are damaged, hostile or merely unusual (issue 39 items 5, 8, 9, 11):
//! a damaged Arrow schema in the footer, a row that decompresses to far more than the file,
//! rows whose message lists are empty or have null roles, a pandas `category` column, and the
//! same compaction run twice.

use crate::parquet::{tau_bench_rows, write_dataset};
use crate::{ctxc, fixture, stderr_of, stdout_of};
use arrow_array::Array;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::basic::Compression;
use serde_json::{Value, json};
use std::path::Path;

fn run(args: &[&str], inputs: &[&Path]) -> std::process::Output {
    let out = ctxc().args(args).args(inputs).output().unwrap();
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    out
}

/// Whether arrow's footer reader panics on `bytes` (it does on some damaged Arrow schemas).
fn arrow_panics(bytes: &[u8]) -> bool {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    let opened = std::fs::File::open(file.path()).unwrap();
    std::panic::catch_unwind(|| ArrowReaderMetadata::load(&opened, ArrowReaderOptions::new()))
        .is_err()
}

/// `good` with one byte of its `ARROW:schema` value changed: the first change that makes
/// arrow panic (or, should a later arrow panic on none, the first that leaves it readable as
/// Parquet but not as Arrow's schema).
fn damaged_schema(good: &[u8]) -> Vec<u8> {
    let key = b"ARROW:schema";
    let at = good.windows(key.len()).rposition(|w| w == key).unwrap() + key.len();
    // The value's base64 follows its thrift length, a few bytes on.
    let start = at
        + good[at..]
            .iter()
            .position(|b| b.is_ascii_alphanumeric())
            .unwrap();
    let end = start
        + good[start..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"+/=".contains(b)))
            .unwrap();
    let mut fallback = None;
    for i in start..end {
        for replacement in [b'A', b'/', b'z'] {
            let mut bytes = good.to_vec();
            if bytes[i] == replacement {
                continue;
            }
            bytes[i] = replacement;
            if arrow_panics(&bytes) {
                return bytes;
            }
            fallback.get_or_insert(bytes);
        }
    }
    fallback.unwrap()
}

#[test]
fn a_damaged_arrow_schema_is_one_unreadable_dataset_and_the_others_are_processed() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a-good.parquet");
    write_dataset(&good, &tau_bench_rows(3), 2, Compression::SNAPPY);
    let bad = dir.path().join("b-bad.parquet");
    std::fs::write(&bad, damaged_schema(&std::fs::read(&good).unwrap())).unwrap();
    let out_dir = dir.path().join("out");
    for args in [
        &["check", "--json"][..],
        &["stats"],
        &[
            "compact",
            "--force",
            "--target-ratio",
            "0.5",
            "--out-dir",
            out_dir.to_str().unwrap(),
        ],
    ] {
        let out = run(args, &[&good, &bad]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
        // Named (in JSON, the path and the message apart) with what is wrong.
        assert!(
            all.contains("b-bad.parquet") && all.contains("not a readable Parquet dataset: "),
            "{args:?}: {all}"
        );
        // The other dataset's rows are all there.
        for row in 0..3 {
            assert!(
                all.contains(&format!("a-good.parquet#row={row}")),
                "{args:?}: {all}"
            );
        }
    }
    assert!(out_dir.join("a-good.parquet").exists());
    assert!(!out_dir.join("b-bad.parquet").exists());
}

#[test]
fn an_identical_rerun_of_a_dataset_compaction_is_done_and_a_different_output_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("data.parquet");
    write_dataset(
        &input,
        &tau_bench_rows(4),
        2,
        Compression::ZSTD(Default::default()),
    );
    let output = dir.path().join("out.parquet");
    let args = [
        "compact",
        "--force",
        "--target-ratio",
        "0.5",
        "-o",
        output.to_str().unwrap(),
    ];
    let first = run(&args, &[&input]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let written = std::fs::read(&output).unwrap();
    // The same command again: its output is there, byte for byte, and the run is done.
    for extra in [&[][..], &["--dry-run"]] {
        let again = run(&[&args[..], extra].concat(), &[&input]);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{extra:?}: {}",
            stderr_of(&again)
        );
        assert_eq!(std::fs::read(&output).unwrap(), written);
    }
    // Another result where the output is: refused, and the output left as it was.
    let other = run(
        &[
            "compact",
            "--force",
            "--target-ratio",
            "0.8",
            "-o",
            output.to_str().unwrap(),
        ],
        &[&input],
    );
    assert_eq!(other.status.code(), Some(1), "{}", stderr_of(&other));
    assert!(
        stderr_of(&other).contains("exists and differs"),
        "{}",
        stderr_of(&other)
    );
    assert_eq!(std::fs::read(&output).unwrap(), written);
}

#[test]
fn a_row_group_over_max_input_bytes_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.parquet");
    // 8 MB of one repeated line, a few kilobytes of zstd.
    let text = "all work and no play makes a dull agent\n".repeat(200_000);
    let rows = [json!({"messages": [{"role": "user", "content": text}]})];
    write_dataset(&input, &rows, 1, Compression::ZSTD(Default::default()));
    let size = std::fs::metadata(&input).unwrap().len();
    assert!(size < 100_000, "{size}");
    for args in [
        &["stats"][..],
        &["check"],
        &["compact", "--force", "-o", "-"],
    ] {
        let started = std::time::Instant::now();
        let out = run(&[args, &["--max-input-bytes", "1M"]].concat(), &[&input]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
        assert!(
            all.contains("row group 0 (row 0) holds") && all.contains("over --max-input-bytes"),
            "{args:?}: {all}"
        );
        assert!(
            started.elapsed().as_secs() < 10,
            "{args:?}: {:?}",
            started.elapsed()
        );
    }
    // Under a limit it fits, it is read.
    let out = run(&["stats", "--max-input-bytes", "64M"], &[&input]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

#[test]
fn rows_with_an_empty_list_or_null_roles_are_named_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("d.parquet");
    let rows = [
        json!({"messages": [{"role": "user", "content": "fix the failing test"}]}),
        json!({"messages": []}),
        json!({"messages": [{"role": null, "content": "who said this"}]}),
    ];
    write_dataset(&input, &rows, 3, Compression::SNAPPY);
    let out = run(&["check"], &[&input]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
    assert!(
        all.contains("d.parquet#row=1: ") && all.contains("its messages an empty array"),
        "{all}"
    );
    // A null is left out of a row's JSON: its message has no role.
    let no_role = "its messages an array of 1 values, the first an object with keys [content]";
    assert!(
        all.contains("d.parquet#row=2: ") && all.contains(no_role),
        "{all}"
    );
    assert!(!all.contains("d.parquet#row=0:"), "{all}");
}

#[test]
fn a_dictionary_encoded_conversation_column_is_read_and_written_back_as_one() {
    let input = fixture("parquet/category.parquet");
    let out = run(&["stats", "--json"], &[&input]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(report["files"].as_array().unwrap().len(), 4);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.parquet");
    let args = [
        &crate::COMPACT_HALF[..],
        &["--json", "-o", output.to_str().unwrap()],
    ];
    let out = run(&args.concat(), &[&input]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let (before, after) = crate::parquet::assert_same_but(&input, &output, "messages");
    assert!(matches!(
        after.data_type(),
        arrow_schema::DataType::Dictionary(..)
    ));
    let texts = |column: &arrow_array::ArrayRef| -> Vec<String> {
        let plain = arrow_cast::cast(column, &arrow_schema::DataType::Utf8).unwrap();
        let plain = arrow_array::cast::AsArray::as_string::<i32>(&plain);
        (0..plain.len())
            .map(|i| plain.value(i).to_string())
            .collect()
    };
    let (before, after) = (texts(&before), texts(&after));
    for (b, a) in before.iter().zip(&after) {
        assert!(a.len() < b.len() && a.contains("[ctxc summary]"), "{a}");
    }
    // Rows 0 and 3 held one value; compacted alike, they still do.
    assert_eq!(after[0], after[3]);
}
