//! Running ctxc on its own output (DESIGN: earlier summaries are "kept or merged into the new
//! summary"): a real session compacted three times at 0.125, each run on the previous output,
//! keeps one ctxc summary before the kept tail instead of stacking one per run, still states
//! the original task, still keeps the user requests, and never grows.

use crate::{forced_settings as settings, load};
use ctxc::pipeline;
use ctxc::retention::{context_text, retention};
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Kind, ReadOptions, read};

/// A real Claude Code session whose default compaction at 0.125 writes a summary every run
/// (at 0.25 cutting its outputs and calls to their tersest is enough).
const SESSION: &str = "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

#[test]
fn three_runs_on_their_own_output_keep_one_summary_and_the_task() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let summarizer = Extractive;
    let settings = settings(StrategyName::Adaptive, 0.125, &counter, &summarizer);
    let original = load(SESSION).unwrap();
    let task = original.conversations[0]
        .items
        .iter()
        .find(|i| i.in_context && i.kind == Kind::User)
        .expect("the session has a task")
        .text();
    let mut current = original.clone();
    for run in 1..=3 {
        let outcome = pipeline::run(&current, &settings).unwrap();
        let result = &outcome.conversations[0];
        assert!(
            result.tokens_after <= result.before.tokens,
            "run {run}: {} → {} tokens",
            result.before.tokens,
            result.tokens_after
        );
        let out = read(outcome.output.into_owned(), &ReadOptions::default()).unwrap();
        let conv = &out.conversations[0];
        let summaries = conv
            .items
            .iter()
            .filter(|i| i.in_context && i.ctxc_summary)
            .count();
        assert_eq!(summaries, 1, "run {run}: ctxc summaries stacked");
        assert!(
            context_text(conv).contains(&task),
            "run {run}: the task is no longer sent"
        );
        let requests = retention(&original.conversations[0], conv).user_requests;
        assert!(
            requests.total > 0 && requests.kept == requests.total,
            "run {run}: user requests kept {requests:?}"
        );
        current = out;
    }
}
