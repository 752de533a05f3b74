//! What `ctxc.compact` spends in Rust (issue 22): `cargo run --release --example api_bench
//! [RUNS] [FILE]` times [`ctxc::api::compact_text`], the call the Python package's
//! `compact_text` makes with the GIL released, on the text the package hands it for the
//! tau-bench runs (FILE, default the corpus's 200 airline runs): the whole list in one call (one
//! run per line, as `ctxc.dumps(runs)` writes it) and one call per run's `traj` (one message
//! per line), at 50% with `force`. Prints medians; profile one call with
//! `valgrind --tool=callgrind target/release/examples/api_bench 1`.

use anyhow::{Context, Result};
use ctxc::api::{self, Options};
use ctxc::config::Layer;
use serde_json::Value;
use std::time::Instant;

/// One timed job: the context tokens before and after, summed over its calls.
type Job<'a> = dyn Fn() -> (usize, usize) + 'a;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs_n: usize = args.first().map_or(Ok(5), |n| n.parse())?;
    let path = args.get(1).map_or_else(
        || {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../shared/corpus/openai-chat/tau-bench/gpt-4o-airline.json"
            )
            .to_string()
        },
        Clone::clone,
    );
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let runs: Vec<Value> = serde_json::from_str(&text)?;
    // As the package writes a list: one element per line, compact separators.
    let lines = |values: &[Value]| -> String {
        values
            .iter()
            .map(|v| serde_json::to_string(v).unwrap() + "\n")
            .collect()
    };
    let whole = lines(&runs);
    let each: Vec<String> = runs
        .iter()
        .map(|r| {
            lines(
                r["traj"]
                    .as_array()
                    .expect("a tau-bench run has a traj list"),
            )
        })
        .collect();
    let settings: Layer = serde_json::from_str(r#"{"target_ratio": 0.5}"#)?;
    let options = Options {
        name: "<input>".into(),
        settings,
        force: true,
        ..Options::default()
    };
    let compact = |text: &str| -> (usize, usize) {
        let done = api::compact_text(text.to_string(), &options).expect("compacts");
        let report = done.report.public();
        let tokens = |k: &str| report[k].as_u64().unwrap_or(0) as usize;
        (tokens("contextTokensBefore"), tokens("contextTokensAfter"))
    };
    let one_call = || compact(&whole);
    let per_conversation = || {
        each.iter()
            .map(|t| compact(t))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    };
    let jobs: [(&str, &Job); 2] = [
        ("one call", &one_call),
        ("per conversation", &per_conversation),
    ];
    for (label, job) in jobs {
        let mut times = Vec::new();
        let mut tokens = (0, 0);
        for _ in 0..runs_n {
            let start = Instant::now();
            tokens = job();
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        println!(
            "api::compact_text {label:<17} {:7.4} s (median of {runs_n}; min {:.4})  tokens {} -> {}",
            times[times.len() / 2],
            times[0],
            tokens.0,
            tokens.1
        );
    }
    Ok(())
}
