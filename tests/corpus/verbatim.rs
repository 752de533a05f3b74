//! The strict probe of issue 40, counted here on its own: of the file paths, commands and
//! error lines the client sends the model from the original, the share the compacted output
//! still sends *verbatim* — a summary's folded artifact index not counted (it keeps a file's
//! name, not the edit made to it). Every corpus conversation is compacted in memory with the
//! default strategy at half and a quarter of its context tokens, read back, and its text
//! searched with `str::contains`; `ctxc eval`'s verbatim figures must agree with this count.
//! Run with `--nocapture` to see the shares and what was not sent.
//!
//! The trail probes of issue 40 item 3 (an edit's text before a later edit, a file created
//! then deleted, the last failure with its error, answers to the agent's questions, injected
//! meta prompts) are counted here too, each answer looked for by this file's own search, and
//! must agree with `ctxc eval`'s verbatim count of them.
//!
//! The floors below are what the default reaches today, so it cannot slip back; issue 40's
//! targets are higher (at 0.5: paths 99%, commands 98%, errors 95%; at 0.25: 90%, 85%, 80%):
//! the turns a summary still replaces keep their paths and commands only in its index. Most
//! of what is still lost is in conversations whose target cannot be met (a SWE-agent system
//! prompt and demonstration, kept verbatim, are more than a quarter of the whole).

use crate::{forced_settings, supported_transcripts};
use ctxc::eval::{Kept, Probe, Subject, check_kept, derive};
use ctxc::facts::Facts;
use ctxc::retention::{context_text, verbatim_retention_of};
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Conversation, PartKind, ReadOptions, read};

/// Lines that open an artifact index, as the extractive summary writes them (and wrote them).
const INDEX_TITLES: [&str; 3] = [
    "Files touched, actions in order:",
    "Files touched, by last action:",
    "Commands run, oldest first (×N: N runs; `x`…: `a`, `b` ran xa, xb):",
];

/// What `conv` sends the model, less every artifact index (its titles, the `- ` entries
/// under them and the `$ROOT = ` lines), written here rather than borrowed from ctxc.
fn sent_verbatim(conv: &Conversation) -> String {
    let raw = context_text(conv);
    without_index(&ctxc::facts::clean::clean(&raw))
}

/// `text` less its artifact indexes.
fn without_index(text: &str) -> String {
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

/// `text` with its words one space apart.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What `conv` sends before cleaning, less its indexes, without tags like
/// `<system-reminder>`, flat: where injected prompts are looked for.
fn sent_untagged(conv: &Conversation) -> String {
    let text = without_index(&context_text(conv));
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name = after.strip_prefix('/').unwrap_or(after);
        let len = name
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(name.len());
        let tag = len > 0 && name.starts_with(|c: char| c.is_ascii_alphabetic());
        if tag && name[len..].starts_with('>') {
            out.push(' ');
            rest = &name[len + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    flat(&out)
}

/// Whether a kept call of `conv` deletes `path` (a delete tool, or `rm` naming its file).
fn deletes(conv: &Conversation, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    conv.items.iter().filter(|i| i.in_context).any(|item| {
        let mut parts = item.parts.iter().peekable();
        while let Some(part) = parts.next() {
            if part.kind != PartKind::ToolName {
                continue;
            }
            let args = parts
                .next_if(|p| p.kind == PartKind::ToolArguments)
                .map_or("", |p| p.text.as_str());
            let tool = part.text.to_ascii_lowercase();
            let by_tool = tool.contains("delete") || tool.contains("remove");
            let by_rm = args.contains("rm ") || args.contains("unlink ");
            if (by_tool || by_rm) && args.contains(name) {
                return true;
            }
        }
        false
    })
}

/// Whether this file's own search finds a trail probe's answer sent verbatim in `after`.
fn trail_found(probe: &Probe, after: &Conversation, text: &str, untagged: &str) -> bool {
    match probe.subject {
        Subject::EditText => text.contains(&probe.answer),
        Subject::Deleted => text.contains(&probe.answer) && deletes(after, &probe.answer),
        Subject::LastFailure => {
            text.contains(&probe.answer) && probe.also.as_deref().is_some_and(|c| text.contains(c))
        }
        Subject::Answer => flat(text).contains(&probe.answer),
        Subject::MetaPrompt => untagged.contains(&probe.answer),
        _ => unreachable!("not a trail probe"),
    }
}

/// The trail probe kinds, in the order printed.
const TRAIL: [Subject; 5] = [
    Subject::EditText,
    Subject::Deleted,
    Subject::LastFailure,
    Subject::Answer,
    Subject::MetaPrompt,
];

/// Verbatim and total counts: paths, commands, error lines, task and latest request.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Strict {
    paths: [usize; 2],
    commands: [usize; 2],
    errors: [usize; 2],
    task: [usize; 2],
    latest: [usize; 2],
    /// The trail probes, in [`TRAIL`]'s order.
    trail: [[usize; 2]; 5],
}

fn share([kept, total]: [usize; 2]) -> f64 {
    if total == 0 {
        1.0
    } else {
        kept as f64 / total as f64
    }
}

/// `paths 99.1% (111/112), commands …, errors …`.
fn shares(s: &Strict) -> String {
    let each = [
        ("paths", s.paths),
        ("commands", s.commands),
        ("errors", s.errors),
    ];
    let each: Vec<String> = each
        .iter()
        .map(|(what, [kept, total])| {
            format!(
                "{what} {:.1}% ({kept}/{total})",
                share([*kept, *total]) * 100.0
            )
        })
        .collect();
    each.join(", ")
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
/// Also the count over only the conversations whose verbatim floor fits the target.
fn strict_at(ratio: f64) -> (Strict, Strict) {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let summarizer = Extractive;
    let settings = forced_settings(StrategyName::Adaptive, ratio, &counter, &summarizer);
    let mut strict = Strict::default();
    let mut fits = Strict::default();
    let mut over = 0;
    let mut lost: [Vec<String>; 3] = Default::default();
    for (rel, t) in supported_transcripts() {
        let outcome = ctxc::pipeline::run(&t, &settings).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        // Conversations whose system prompt, task and current turn alone are over the
        // target: a summary must take some of what the agent did, whatever the ladder.
        let floor_over: Vec<bool> = outcome
            .conversations
            .iter()
            .map(|c| {
                let short = c.compaction.as_ref().and_then(|c| c.shortfall.as_ref());
                short.is_some_and(|s| s.verbatim_tokens() > s.target)
            })
            .collect();
        let after = read(outcome.output.into_owned(), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{rel}: {:?}", e.findings[0]));
        for (k, (before, after)) in t.conversations.iter().zip(&after.conversations).enumerate() {
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
            let untagged = sent_untagged(after);
            for (n, subject) in TRAIL.into_iter().enumerate() {
                let of: Vec<&Probe> = probes.iter().filter(|p| p.subject == subject).collect();
                let found = of
                    .iter()
                    .filter(|p| trail_found(p, after, &text, &untagged))
                    .count();
                own.trail[n] = [found, of.len()];
                assert_eq!(
                    verbatim(subject),
                    own.trail[n],
                    "{rel} at {ratio}: ctxc eval's verbatim {} probes disagree",
                    subject.name()
                );
                strict.trail[n][0] += found;
                strict.trail[n][1] += of.len();
            }
            let floor_over = floor_over.get(k).copied().unwrap_or(false);
            over += usize::from(floor_over);
            for tally in std::iter::once(&mut strict).chain((!floor_over).then_some(&mut fits)) {
                for (total, own) in [
                    (&mut tally.paths, own.paths),
                    (&mut tally.commands, own.commands),
                    (&mut tally.errors, own.errors),
                    (&mut tally.task, own.task),
                    (&mut tally.latest, own.latest),
                ] {
                    total[0] += own[0];
                    total[1] += own[1];
                }
            }
        }
    }
    println!(
        "strict verbatim at {ratio}: {}, task {}/{}, latest request {}/{}",
        shares(&strict),
        strict.task[0],
        strict.task[1],
        strict.latest[0],
        strict.latest[1],
    );
    let trail: Vec<String> = TRAIL
        .iter()
        .zip(strict.trail)
        .map(|(s, [kept, total])| format!("{} {kept}/{total}", s.name()))
        .collect();
    println!("trail probes verbatim at {ratio}: {}", trail.join(", "));
    println!(
        "  where the verbatim floor fits the target (all but {over} conversations): {}",
        shares(&fits)
    );
    for (what, lost) in ["path", "command", "error"].iter().zip(&lost) {
        for fact in lost.iter().take(show_lost()) {
            println!("  {what} not sent verbatim at {ratio}: {fact}");
        }
    }
    (strict, fits)
}

/// At `ratio`, at least these shares of the paths, commands and errors are sent verbatim,
/// and every task and latest request; `where_it_fits`, the same over the conversations whose
/// verbatim floor (system prompt, task, current turn) fits the target.
fn assert_verbatim_at(ratio: f64, [paths, commands, errors]: [f64; 3], where_it_fits: [f64; 3]) {
    let (s, fits) = strict_at(ratio);
    let [fit_paths, fit_commands, fit_errors] = where_it_fits;
    let least = [
        ("paths", s.paths, paths),
        ("commands", s.commands, commands),
        ("errors", s.errors, errors),
        ("task", s.task, 1.0),
        ("latest request", s.latest, 1.0),
        ("paths where the floor fits", fits.paths, fit_paths),
        ("commands where the floor fits", fits.commands, fit_commands),
        ("errors where the floor fits", fits.errors, fit_errors),
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
    // Cutting outputs and calls to their tersest before any summary (paths 98.2% → 99.1%,
    // commands 93.7% → 96.8%).
    // Where the floor fits the target, issue 40's targets at 0.5 are met (paths 99.0%,
    // commands 99.3%, errors 100%).
    assert_verbatim_at(0.5, [0.99, 0.96, 0.97], [0.99, 0.99, 1.0]);
}

#[test]
fn the_default_at_a_quarter_sends_most_of_the_agents_actions_verbatim() {
    // SWE-agent's observations are tool outputs, no longer user requests whose paths and
    // errors the task kept (one error, two paths of the XML trajectory left the count).
    // The tersest cut before any summary: paths 85.7% → 94.6%, commands 57.6% → 65.8%.
    // Where the floor fits: paths 94.2%, commands 72.2%, errors 95.5%.
    assert_verbatim_at(0.25, [0.94, 0.65, 0.94], [0.94, 0.72, 0.95]);
}

/// How many facts not sent to list per kind: 12, or `CTXC_SHOW_LOST`.
fn show_lost() -> usize {
    std::env::var("CTXC_SHOW_LOST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12)
}
