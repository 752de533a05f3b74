//! Helpers both benchmarks use: the corpus files, a thread pool of a given size, timing
//! medians. Included with `#[path]`, since benches are separate crates.

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The number after `--runs` on the command line, else 5.
pub fn runs() -> usize {
    std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
}

/// The shared corpus beside the checkout.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// Transcript files (`.json`, `.jsonl`, `.traj`) under `dir`, sorted.
pub fn transcript_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(transcript_files(&path));
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

/// Runs `f` on a rayon pool of `threads` threads.
pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Seconds `f` takes.
pub fn time<T>(f: impl FnOnce() -> T) -> f64 {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed().as_secs_f64()
}

/// The median of `runs` measurements.
pub fn median(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    let mut times: Vec<f64> = (0..runs).map(|_| f()).collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
