//! A benchmark dataset from the corpus: `cargo run --release --example parquet_dataset ROWS
//! GROUP DIR` repeats tau-bench's 200 airline runs into ROWS conversations and writes them
//! twice: `DIR/runs.parquet` (a list-of-struct `messages` column beside `task_id`, `reward`
//! and `trial`; row groups of GROUP rows; zstd) and `DIR/runs.jsonl` (the same rows, one JSON
//! object per line). Used to compare `ctxc compact` on the two (docs/datasets.md, "Parquet datasets").

use anyhow::{Context, Result, bail};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rows, group, dir] = args.as_slice() else {
        bail!("usage: parquet_dataset ROWS GROUP DIR");
    };
    let (rows, group): (usize, usize) = (rows.parse()?, group.parse()?);
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/openai-chat/tau-bench/gpt-4o-airline.json"
    );
    let text = std::fs::read_to_string(corpus).with_context(|| format!("reading {corpus}"))?;
    let runs: Vec<Value> = serde_json::from_str(&text)?;
    let row = |i: usize| {
        let run = &runs[i % runs.len()];
        json!({"task_id": i, "reward": run["reward"], "trial": run["trial"], "messages": run["traj"]})
    };
    let sample: Vec<Value> = (0..runs.len()).map(row).collect();
    let schema = Arc::new(arrow_json::reader::infer_json_schema_from_iterator(
        sample.iter().map(Ok),
    )?);
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(Default::default()))
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut parquet = ArrowWriter::try_new(
        std::fs::File::create(dir.join("runs.parquet"))?,
        schema.clone(),
        Some(props),
    )?;
    let mut jsonl = std::io::BufWriter::new(std::fs::File::create(dir.join("runs.jsonl"))?);
    for start in (0..rows).step_by(group) {
        let chunk: Vec<Value> = (start..rows.min(start + group)).map(row).collect();
        for value in &chunk {
            serde_json::to_writer(&mut jsonl, value)?;
            jsonl.write_all(b"\n")?;
        }
        let mut decoder = arrow_json::ReaderBuilder::new(schema.clone())
            .with_batch_size(group)
            .build_decoder()?;
        decoder.serialize(&chunk)?;
        if let Some(batch) = decoder.flush()? {
            parquet.write(&batch)?;
        }
    }
    parquet.close()?;
    jsonl.flush()?;
    Ok(())
}
