//! Throughput of `ctxc stats` over the shared corpus, side by side with a naive reference, in
//! one run (machines are shared and noisy: compare the ratios, not the absolute numbers).
//!
//! - **ctxc**: read → model → context-token count (skips non-context records and duplicate
//!   copies, caches repeated text), on a 1-thread and a 2-thread pool.
//! - **naive**: every JSON string of every record through tiktoken-rs o200k, no skipping, no
//!   cache, one thread.
//!
//! Run: `cargo bench --bench stats` (add `-- --runs 7` for more runs). Prints MB/s of input
//! per core, medians over the runs, for the Claude Code sessions and for the whole corpus.

use ctxc::count::count_transcript;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{self, ReadOptions};
use rayon::prelude::*;
use serde_json::Value;
use std::path::Path;

#[path = "common.rs"]
mod common;
use common::{in_pool, median, time};

struct Sample {
    name: &'static str,
    files: Vec<String>,
}

impl Sample {
    fn bytes(&self) -> usize {
        self.files.iter().map(String::len).sum()
    }
}

fn main() {
    let runs = common::runs();
    let corpus = common::corpus();
    let all = load(&corpus, |_| true);
    let sessions = load(&corpus, |p| {
        p.to_string_lossy().contains("claude-code/spotter")
            && !p.to_string_lossy().contains("subagents")
    });
    let samples = [
        Sample {
            name: "claude-code sessions",
            files: sessions,
        },
        Sample {
            name: "whole corpus",
            files: all,
        },
    ];
    println!("runs: {runs} (median); MB = 10^6 bytes\n");
    println!(
        "{:<22} {:>8} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "sample", "MB", "naive MB/s", "ctxc 1t", "ctxc 2t", "ctxc/naive", "2t/1t"
    );
    for sample in &samples {
        let mb = sample.bytes() as f64 / 1e6;
        let naive = median(runs, || time(|| naive_count(&sample.files)));
        let one = median(runs, || time(|| in_pool(1, || ctxc_count(&sample.files))));
        let two = median(runs, || time(|| in_pool(2, || ctxc_count(&sample.files))));
        let (naive_rate, one_rate, two_rate) = (mb / naive, mb / one, mb / two);
        println!(
            "{:<22} {:>8.2} {:>12.1} {:>12.1} {:>12.1} {:>9.2}x {:>9.2}x",
            sample.name,
            mb,
            naive_rate,
            one_rate,
            two_rate / 2.0,
            one_rate / naive_rate,
            two_rate / one_rate
        );
    }
    println!("\nctxc 2t is MB/s per core (total / 2); 2t/1t is the total speed-up of 2 threads.");
}

/// Transcript texts under `dir` whose path passes `keep`, sorted.
fn load(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<String> {
    common::transcript_files(dir)
        .iter()
        .filter(|p| keep(p))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// What `ctxc stats` does per file: read into the model, count context tokens. A fresh
/// counter per pass so the cache only helps within the pass, as in one real run.
fn ctxc_count(files: &[String]) -> usize {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    files
        .par_iter()
        .map(
            |text| match transcript::read(text.clone(), &ReadOptions::default()) {
                Ok(t) => count_transcript(&counter, &t)
                    .conversations
                    .iter()
                    .map(|c| c.total())
                    .sum(),
                Err(_) => 0,
            },
        )
        .sum()
}

/// Every JSON string of every record through tiktoken-rs o200k, no skipping, no cache.
fn naive_count(files: &[String]) -> usize {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let mut total = 0;
    for text in files {
        let values: Vec<Value> = match serde_json::from_str::<Value>(text) {
            Ok(v) => vec![v],
            Err(_) => text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
        };
        for value in &values {
            total += strings_tokens(&bpe, value);
        }
    }
    total
}

fn strings_tokens(bpe: &tiktoken_rs::CoreBPE, value: &Value) -> usize {
    match value {
        Value::String(s) => bpe.encode_ordinary(s).len(),
        Value::Array(items) => items.iter().map(|v| strings_tokens(bpe, v)).sum(),
        Value::Object(map) => map.values().map(|v| strings_tokens(bpe, v)).sum(),
        _ => 0,
    }
}
