//! A conversation compacts the same wherever it sits: alone in a file, or as one of the 200
//! tau-bench runs of the corpus's OpenAI file (the Python API hands one over as a list, as
//! alone). Its summaries name the records they stand for by their place in the conversation,
//! never by the file's lines (which made 2 of the 200 keep a different number of messages: a
//! run deep in the file has longer line numbers, a longer summary, and lands elsewhere).

use crate::{corpus_dir, forced_settings as settings};
use ctxc::pipeline;
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{ReadOptions, read};
use rayon::prelude::*;
use serde_json::Value;

const FILE: &str = "openai-chat/tau-bench/gpt-4o-airline.json";

/// The output of compacting `text` with the default strategy to `ratio`, parsed.
fn compacted(text: String, ratio: f64, counter: &TokenCounter) -> Value {
    let summarizer = Extractive;
    let t = read(text, &ReadOptions::default()).unwrap();
    let outcome = pipeline::run(
        &t,
        &settings(StrategyName::Adaptive, ratio, counter, &summarizer),
    )
    .unwrap();
    serde_json::from_str(&outcome.output).unwrap()
}

#[test]
fn each_tau_bench_run_compacts_alone_as_it_does_in_its_file() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let text = std::fs::read_to_string(corpus_dir().join(FILE)).unwrap();
    let runs: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(runs.len(), 200);
    for ratio in [0.5, 0.25] {
        let whole = compacted(text.clone(), ratio, &counter);
        let differ: Vec<String> = runs
            .par_iter()
            .enumerate()
            .filter_map(|(k, run)| {
                let alone = serde_json::to_string_pretty(&run["traj"]).unwrap();
                let alone = compacted(alone, ratio, &counter);
                let within = &whole[k]["traj"];
                (alone != *within).then(|| {
                    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
                    format!(
                        "run {k}: {} messages alone, {} in the file",
                        len(&alone),
                        len(within)
                    )
                })
            })
            .collect();
        assert!(differ.is_empty(), "at {ratio}: {}", differ.join("\n"));
    }
}
