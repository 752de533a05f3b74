//! Throughput of compaction over the shared corpus, side by side in one run with the token
//! report (`ctxc stats`'s work) on the same files, so the ratio says what compaction costs
//! beyond counting: strategies, summaries, writing, re-reading, the invariant checks and the
//! second run that proves determinism.
//!
//! Run: `cargo bench --bench compact` (add `-- --runs 7` for more runs). Prints MB/s of input
//! (medians) for `adaptive` at a 50% target and for `observation-masking`, on 1 and 2 threads.

use ctxc::count::count_transcript;
use ctxc::pipeline::{self, Settings, Target};
use ctxc::strategy::{StrategyName, StrategySettings};
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{self, ReadOptions, Transcript};
use ctxc::trigger::TriggerSettings;
use rayon::prelude::*;

#[path = "common.rs"]
mod common;
use common::{in_pool, median, time};

fn main() {
    let runs = common::runs();
    let texts: Vec<String> = common::transcript_files(&common::corpus())
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mb = texts.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    println!("runs: {runs} (median); corpus {mb:.2} MB; MB = 10^6 bytes\n");
    println!(
        "{:<34} {:>10} {:>10} {:>8} {:>12}",
        "work", "1t MB/s", "2t MB/s", "2t/1t", "vs stats 1t"
    );
    let stats_one = mb / median(runs, || time(|| in_pool(1, || stats(&texts))));
    let stats_two = mb / median(runs, || time(|| in_pool(2, || stats(&texts))));
    row("stats (count only)", stats_one, stats_two, stats_one);
    for (name, strategy) in [
        ("compact adaptive @50%", StrategyName::Adaptive),
        (
            "compact observation-masking @50%",
            StrategyName::ObservationMasking,
        ),
    ] {
        let one = mb / median(runs, || time(|| in_pool(1, || compact(&texts, strategy))));
        let two = mb / median(runs, || time(|| in_pool(2, || compact(&texts, strategy))));
        row(name, one, two, stats_one);
    }
    println!("\n2t MB/s is the total over both threads.");
}

fn row(name: &str, one: f64, two: f64, stats_one: f64) {
    println!(
        "{name:<34} {one:>10.1} {two:>10.1} {:>7.2}x {:>11.2}x",
        two / one,
        one / stats_one
    );
}

fn read(text: &str) -> Option<Transcript> {
    transcript::read(text.to_string(), &ReadOptions::default()).ok()
}

fn stats(texts: &[String]) -> usize {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    texts
        .par_iter()
        .filter_map(|t| read(t))
        .map(|t| {
            count_transcript(&counter, &t)
                .conversations
                .iter()
                .map(|c| c.total())
                .sum::<usize>()
        })
        .sum()
}

fn compact(texts: &[String], strategy: StrategyName) -> usize {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let settings = Settings {
        read: ReadOptions::default(),
        triggers: TriggerSettings {
            force: true,
            ..TriggerSettings::default()
        },
        target: Target::Ratio(0.5),
        strategies: vec![strategy],
        strategy: StrategySettings::default(),
        summarizer: &Extractive,
        counter: &counter,
    };
    texts
        .par_iter()
        .filter_map(|t| read(t))
        .map(|t| pipeline::run(&t, &settings).map_or(0, |o| o.output.len()))
        .sum()
}
