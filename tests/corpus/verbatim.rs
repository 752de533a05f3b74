//! The strict probe of issue 40, counted here on its own: of the file paths, commands and
//! error lines the client sends the model from the original, the share the compacted output
//! still sends *verbatim* — a summary's folded artifact index not counted (it keeps a file's
//! name, not the edit made to it). Every corpus conversation is compacted in memory with the
//! default strategy at half and a quarter of its context tokens, read back, and its text
//! searched with `str::contains`; `ctxc eval`'s verbatim figures must agree with this count.
//! Run with `--nocapture` to see the shares and what was not sent.
//!
//! The floors below are what the default reaches today, so it cannot slip back; issue 40's
//! targets are higher (at 0.5: paths 99%, commands 98%, errors 95%; at 0.25: 90%, 85%, 80%):
//! the turns a summary still replaces keep their paths and commands only in its index.

use crate::{forced_settings, supported_transcripts};
use ctxc::eval::{Kept, Subject, check_kept, derive};
use ctxc::facts::Facts;
use ctxc::retention::{context_text, verbatim_retention_of};
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Conversation, ReadOptions, read};

/// Lines that open an artifact index, as the extractive summary writes them.
const INDEX_TITLES: [&str; 2] = [
    "Files touched, by last action:",
    "Commands run, oldest first (×N: N runs; `x`…: `a`, `b` ran xa, xb):",
];

/// What `conv` sends the model, less every artifact index (its titles, the `- ` entries
/// under them and the `$ROOT = ` lines), written here rather than borrowed from ctxc.
fn sent_verbatim(conv: &Conversation) -> String {
    let raw = context_text(conv);
    let text = ctxc::facts::clean::clean(&raw);
    let mut kept = String::new();
    let mut in_index = false;
    for line in text.lines() {
        if INDEX_TITLES.contains(&line) {
            in_index = true;
            continue;
        }
        if in_index && line.starts_with("- ") {
            continue;
        }
        in_index = false;
        if !line.starts_with("$ROOT = ") {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// Verbatim and total counts: paths, commands, error lines, task and latest request.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Strict {
    paths: [usize; 2],
    commands: [usize; 2],
    errors: [usize; 2],
    task: [usize; 2],
    latest: [usize; 2],
}

fn share([kept, total]: [usize; 2]) -> f64 {
    if total == 0 {
        1.0
    } else {
        kept as f64 / total as f64
    }
}

fn count(found: &mut [usize; 2], facts: &[String], text: &str) {
    found[0] += facts.iter().filter(|f| text.contains(f.as_str())).count();
    found[1] += facts.len();
}

/// The facts of `facts` that `text` does not hold, as `rel: fact`.
fn absent(rel: &str, facts: &[String], text: &str) -> Vec<String> {
    facts
        .iter()
        .filter(|f| !text.contains(f.as_str()))
        .map(|f| format!("{rel}: {}", f.chars().take(100).collect::<String>()))
        .collect()
}

/// The strict count over the corpus at `ratio`, checked against `ctxc eval`'s on the way.
fn strict_at(ratio: f64) -> Strict {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let summarizer = Extractive;
    let settings = forced_settings(StrategyName::Adaptive, ratio, &counter, &summarizer);
    let mut strict = Strict::default();
    let mut lost: [Vec<String>; 3] = Default::default();
    for (rel, t) in supported_transcripts() {
        let outcome = ctxc::pipeline::run(&t, &settings).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        let after = read(outcome.output.into_owned(), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{rel}: {:?}", e.findings[0]));
        for (before, after) in t.conversations.iter().zip(&after.conversations) {
            let facts = Facts::of(&before.items);
            let text = sent_verbatim(after);
            let mut own = Strict::default();
            count(&mut own.paths, &facts.paths, &text);
            count(&mut own.commands, &facts.commands, &text);
            count(&mut own.errors, &facts.errors, &text);
            for (lost, facts) in lost
                .iter_mut()
                .zip([&facts.paths, &facts.commands, &facts.errors])
            {
                lost.extend(absent(&rel, facts, &text));
            }
            // eval's verbatim figures: its retention columns, and its command and error
            // probes (the same lists), agree with this count.
            let eval = verbatim_retention_of(&facts, after);
            assert_eq!(
                [eval.paths, eval.commands, eval.errors].map(|t| [t.kept, t.total]),
                [own.paths, own.commands, own.errors],
                "{rel} at {ratio}: ctxc eval's verbatim retention disagrees"
            );
            let probes = derive(before);
            let kept = check_kept(&probes, after);
            let verbatim = |subject: Subject| -> [usize; 2] {
                let of: Vec<Kept> = probes
                    .iter()
                    .zip(&kept)
                    .filter(|(p, _)| p.subject == subject)
                    .map(|(_, k)| *k)
                    .collect();
                [
                    of.iter().filter(|k| **k == Kept::Verbatim).count(),
                    of.len(),
                ]
            };
            assert_eq!(
                [verbatim(Subject::Command), verbatim(Subject::Error)],
                [own.commands, own.errors],
                "{rel} at {ratio}: ctxc eval's verbatim probes disagree"
            );
            for (mine, subject) in [
                (&mut own.task, Subject::Task),
                (&mut own.latest, Subject::LatestRequest),
            ] {
                *mine = verbatim(subject);
            }
            for (total, own) in [
                (&mut strict.paths, own.paths),
                (&mut strict.commands, own.commands),
                (&mut strict.errors, own.errors),
                (&mut strict.task, own.task),
                (&mut strict.latest, own.latest),
            ] {
                total[0] += own[0];
                total[1] += own[1];
            }
        }
    }
    println!(
        "strict verbatim at {ratio}: paths {:.1}% ({}/{}), commands {:.1}% ({}/{}), errors {:.1}% ({}/{}), task {}/{}, latest request {}/{}",
        share(strict.paths) * 100.0,
        strict.paths[0],
        strict.paths[1],
        share(strict.commands) * 100.0,
        strict.commands[0],
        strict.commands[1],
        share(strict.errors) * 100.0,
        strict.errors[0],
        strict.errors[1],
        strict.task[0],
        strict.task[1],
        strict.latest[0],
        strict.latest[1],
    );
    for (what, lost) in ["path", "command", "error"].iter().zip(&lost) {
        for fact in lost.iter().take(show_lost()) {
            println!("  {what} not sent verbatim at {ratio}: {fact}");
        }
    }
    strict
}

/// At `ratio`, at least these shares of the paths, commands and errors are sent verbatim,
/// and every task and latest request.
fn assert_verbatim_at(ratio: f64, [paths, commands, errors]: [f64; 3]) {
    let s = strict_at(ratio);
    let least = [
        ("paths", s.paths, paths),
        ("commands", s.commands, commands),
        ("errors", s.errors, errors),
        ("task", s.task, 1.0),
        ("latest request", s.latest, 1.0),
    ];
    for (what, counts, least) in least {
        assert!(counts[1] > 0, "no {what} at {ratio}");
        assert!(
            share(counts) >= least,
            "{what} at {ratio}: {} of {} sent verbatim, under {least}",
            counts[0],
            counts[1]
        );
    }
}

#[test]
fn the_default_at_half_sends_the_agents_actions_verbatim() {
    assert_verbatim_at(0.5, [0.96, 0.81, 0.95]);
}

#[test]
fn the_default_at_a_quarter_sends_most_of_the_agents_actions_verbatim() {
    // SWE-agent's observations are tool outputs, no longer user requests whose paths and
    // errors the task kept (one error, two paths of the XML trajectory left the count).
    assert_verbatim_at(0.25, [0.83, 0.48, 0.89]);
}

/// How many facts not sent to list per kind: 12, or `CTXC_SHOW_LOST`.
fn show_lost() -> usize {
    std::env::var("CTXC_SHOW_LOST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12)
}
