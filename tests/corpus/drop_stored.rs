//! `--drop-stored` over every Claude Code session of the corpus, with `ctxc compact`'s
//! default settings: the model is sent exactly what it is sent without the flag, the archive
//! restores the input byte-for-byte, and the real sessions that carry an earlier compaction
//! (the ones that grow too large to load) come out under 15% of their bytes.

use crate::supported_transcripts;
use ctxc::archive::{self, Archive};
use ctxc::pipeline::{self, Settings, Target};
use ctxc::strategy::{StrategyName, StrategySettings};
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Format, ReadOptions, Transcript};
use ctxc::trigger::TriggerSettings;

/// The largest share of its bytes a compacted real session may keep.
const MAX_SHARE: f64 = 0.15;

fn settings<'a>(
    drop_stored: bool,
    counter: &'a TokenCounter,
    summarizer: &'a Extractive,
) -> Settings<'a> {
    Settings {
        read: ReadOptions::default(),
        triggers: TriggerSettings::default(),
        target: Target::Threshold,
        strategies: vec![StrategyName::Adaptive],
        strategy: StrategySettings {
            drop_stored,
            ..StrategySettings::default()
        },
        summarizer,
        counter,
    }
}

/// What is wrong with `--drop-stored` on `t`; the share of bytes kept when `t` holds an
/// earlier compaction.
fn check(t: &Transcript, counter: &TokenCounter) -> Result<Option<f64>, String> {
    let summarizer = Extractive;
    let plain =
        pipeline::run(t, &settings(false, counter, &summarizer)).map_err(|e| format!("{e:#}"))?;
    let dropped =
        pipeline::run(t, &settings(true, counter, &summarizer)).map_err(|e| format!("{e:#}"))?;
    for (a, b) in plain.conversations.iter().zip(&dropped.conversations) {
        if a.tokens_after != b.tokens_after {
            return Err(format!(
                "context tokens {} without --drop-stored, {} with it",
                a.tokens_after, b.tokens_after
            ));
        }
    }
    if dropped.output.len() > plain.output.len() {
        return Err("--drop-stored made the file larger".into());
    }
    let record = archive::record(t, &dropped, serde_json::Value::Null);
    let read = Archive::parse(&Archive::new(vec![record]).to_json(), "archive".as_ref())
        .map_err(|e| format!("{e:#}"))?;
    let restored = archive::undo(&read.records, dropped.output.as_bytes(), 1, false)?;
    if restored.bytes != t.source.as_bytes() {
        return Err("restore differs from the original".into());
    }
    let compacted_before = t
        .conversations
        .iter()
        .any(|c| c.items.iter().any(|i| i.anchor));
    Ok(compacted_before.then(|| dropped.output.len() as f64 / t.source.len() as f64))
}

#[test]
fn drop_stored_keeps_the_context_restores_exactly_and_shrinks_real_sessions() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let mut failures = Vec::new();
    let mut shares = Vec::new();
    for (rel, t) in supported_transcripts() {
        if t.format != Format::ClaudeCode {
            continue;
        }
        match check(&t, &counter) {
            Err(e) => failures.push(format!("{rel}: {e}")),
            Ok(Some(share)) => shares.push((rel, t.source.len(), share)),
            Ok(None) => {}
        }
    }
    for (rel, bytes, share) in &shares {
        eprintln!("{rel}: {bytes} bytes → {:.1}%", share * 100.0);
        if *share >= MAX_SHARE {
            failures.push(format!("{rel}: {:.1}% of its bytes kept", share * 100.0));
        }
    }
    assert!(
        shares.len() >= 2,
        "the corpus's compacted sessions were not found"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
