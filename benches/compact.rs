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
use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() {
    let runs = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let texts: Vec<String> = files(&corpus)
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

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else if ["json", "jsonl", "traj"]
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e))
        {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn time<T>(f: impl FnOnce() -> T) -> f64 {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed().as_secs_f64()
}

fn median(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    let mut times: Vec<f64> = (0..runs).map(|_| f()).collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
