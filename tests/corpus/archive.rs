//! Lossless archives over the whole corpus: for every transcript, every strategy and targets
//! of 50% and 25% (`--force --target-ratio R`), the archive's restore data rebuilds the
//! original byte-for-byte from the output; a second compaction of that output chains onto
//! the first, undoing both gives the original and undoing one gives the intermediate file.

use crate::{cases, forced_settings as settings, supported_transcripts};
use ctxc::archive::{self, Archive, Record};
use ctxc::pipeline::{self, Settings};
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{self, ReadOptions, Transcript};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

const RATIOS: [f64; 2] = [0.5, 0.25];

/// Compacts `t` and returns the output and its archive record.
fn compact(t: &Transcript, settings: &Settings) -> Result<(String, Record), String> {
    let outcome = pipeline::run(t, settings).map_err(|e| format!("{e:#}"))?;
    let record = archive::record(t, &outcome, serde_json::Value::Null);
    Ok((outcome.output.into_owned(), record))
}

/// Archive sizes for the size report, over adaptive at 50%.
#[derive(Default)]
struct Sizes {
    inputs: AtomicU64,
    outputs: AtomicU64,
    archives: AtomicU64,
}

/// What is wrong with one case, if anything.
fn problems(t: &Transcript, settings: &Settings, sizes: Option<&Sizes>) -> Result<(), String> {
    let (output, first) = compact(t, settings)?;
    // Through the file format, as restore reads it.
    let written = Archive::new(vec![first]).to_json();
    let read = Archive::parse(&written, "archive".as_ref()).map_err(|e| format!("{e:#}"))?;
    if let Some(s) = sizes {
        s.inputs.fetch_add(t.source.len() as u64, Ordering::Relaxed);
        s.outputs.fetch_add(output.len() as u64, Ordering::Relaxed);
        s.archives
            .fetch_add(written.len() as u64, Ordering::Relaxed);
    }
    let restored = archive::undo(&read.records, output.as_bytes(), 1, false)?;
    if restored.bytes != t.source.as_bytes() {
        return Err("restore differs from the original".into());
    }
    // A second compaction of the output, chained.
    let again = transcript::read(output.clone(), &ReadOptions::default())
        .map_err(|e| format!("the output does not read back: {:?}", e.findings))?;
    let (output2, second) = compact(&again, settings)?;
    let mut records = read.records;
    records.push(second);
    let all = archive::undo(&records, output2.as_bytes(), 2, false)?;
    if all.bytes != t.source.as_bytes() {
        return Err("undoing two chained compactions differs from the original".into());
    }
    let one = archive::undo(&records, output2.as_bytes(), 1, false)?;
    if one.bytes != output.as_bytes() {
        return Err("undoing the last of two compactions differs from the first output".into());
    }
    Ok(())
}

#[test]
fn archives_restore_every_corpus_file_byte_for_byte() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let summarizer = Extractive;
    let transcripts = supported_transcripts();
    let cases = cases(transcripts.len(), &RATIOS);
    let sizes = Sizes::default();
    let failures: Vec<String> = cases
        .par_iter()
        .filter_map(|&(f, strategy, ratio)| {
            let (rel, t) = &transcripts[f];
            let settings = settings(strategy, ratio, &counter, &summarizer);
            let measured = (strategy == StrategyName::Adaptive && ratio == 0.5).then_some(&sizes);
            problems(t, &settings, measured)
                .err()
                .map(|p| format!("{rel} [{strategy:?} at {ratio}]: {p}"))
        })
        .collect();
    let (i, o, a) = (
        sizes.inputs.into_inner(),
        sizes.outputs.into_inner(),
        sizes.archives.into_inner(),
    );
    eprintln!(
        "adaptive at 50%: inputs {i} bytes, outputs {o} bytes, archives {a} bytes ({:.0}% of inputs)",
        100.0 * a as f64 / i.max(1) as f64
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
