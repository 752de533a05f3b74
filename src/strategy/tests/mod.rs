//! Unit tests of the strategies on small hand-made transcripts: for each strategy, which
//! original items are kept verbatim and which are summarized, dropped or masked under the
//! documented defaults; and the properties every plan must have (no call split from its
//! results, preserved items kept, tokens never grow, the output passes `check`).
//!
//! Plans are compared in a short notation (see [`shape`]): `7` keeps item 7, `S2-5` is one
//! summary of items 2 to 5, `M9` masks the output of item 9, `P9` strips its payloads, and a
//! dropped item is simply absent.

use super::*;
use crate::engine::{Goal, compact};
use crate::plan::{Side, Subject, side_of};
use crate::preserve::Hold;
use crate::summarizer::extractive::Extractive;
use crate::tokens::{Encoding, TokenCounter};
use crate::transcript::{Kind, OutItem, PartKind, ReadOptions, Transcript, check, read};
use crate::verify::{Edited, digest, verify};
use serde_json::{Value, json};

// ----- Building transcripts -----

/// An OpenAI chat transcript written one message per line, so item `i` is on line `i + 2`.
#[derive(Default)]
struct Chat {
    lines: Vec<String>,
    calls: usize,
}

impl Chat {
    fn message(mut self, message: Value) -> Self {
        self.lines.push(message.to_string());
        self
    }

    fn system(self, text: &str) -> Self {
        self.message(json!({"role": "system", "content": text}))
    }

    fn user(self, text: &str) -> Self {
        self.message(json!({"role": "user", "content": text}))
    }

    fn assistant(self, text: &str) -> Self {
        self.message(json!({"role": "assistant", "content": text}))
    }

    /// One tool round: an assistant message calling `name`, and the tool's answer.
    fn tool(self, name: &str, args: Value, output: &str) -> Self {
        self.parallel(&[(name, args, output)])
    }

    /// One assistant message calling every tool of `calls`, then their answers in order.
    fn parallel(mut self, calls: &[(&str, Value, &str)]) -> Self {
        let mut requests = Vec::new();
        let mut answers = Vec::new();
        for (name, args, output) in calls {
            self.calls += 1;
            let id = format!("call_{}", self.calls);
            requests.push(json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}}));
            answers.push(json!({"role": "tool", "tool_call_id": id, "content": output}));
        }
        let mut chat =
            self.message(json!({"role": "assistant", "content": null, "tool_calls": requests}));
        for answer in answers {
            chat = chat.message(answer);
        }
        chat
    }

    /// `n` routine rounds, each reading `src/mod<k>.rs` (k counts calls) with a bulky output.
    fn reads(mut self, n: usize) -> Self {
        for _ in 0..n {
            let k = self.calls + 1;
            let path = format!("src/mod{k}.rs");
            self = self.tool("read_file", json!({ "path": path }), &bulky(k));
        }
        self
    }

    fn source(&self) -> String {
        format!("[\n{}\n]\n", self.lines.join(",\n"))
    }

    fn case(&self) -> Case {
        Case::new(&self.source())
    }
}

/// A tool output of about 300 tokens, different for each `k`.
fn bulky(k: usize) -> String {
    (0..40)
        .map(|j| format!("row {k}.{j}: value {} of field_{}", (j * 7 + k) % 13, j % 5))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A bulky output of a failing test run.
fn failing_tests() -> String {
    format!(
        "{}\nFAILED tests/test_parser.py::test_empty - AssertionError: 0 != 1\n1 failed, 9 passed",
        bulky(99)
    )
}

/// The transcript the cross-cutting tests run every strategy on: system, task, reads, a
/// failing test and the fix, a pin, parallel calls, a task list, the latest user message
/// and the current turn.
fn rich() -> Chat {
    Chat::default()
        .system("You are a coding agent.")
        .user("Fix the failing parser test in src/parser.rs.")
        .reads(1)
        .tool(
            "bash",
            json!({"command": "pytest tests/test_parser.py"}),
            &failing_tests(),
        )
        .assistant("The root cause is an off-by-one in src/parser.rs.")
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "i + 1", "new": "i"}),
            "edited",
        )
        .user("<Pin>Keep the public API of parse() unchanged.</Pin>")
        .parallel(&[
            (
                "grep",
                json!({"pattern": "parse(", "path": "src"}),
                &bulky(50),
            ),
            ("read_file", json!({"path": "src/lexer.rs"}), &bulky(51)),
        ])
        .tool(
            "TodoWrite",
            json!({"todos": [
                {"content": "Fix the off-by-one", "status": "completed"},
                {"content": "Run the linter", "status": "pending"}]}),
            "Todos updated",
        )
        .reads(5)
        .assistant("Looking at the lexer next.")
        .user("Also run the linter.")
        .tool(
            "bash",
            json!({"command": "ruff check ."}),
            "All checks passed!",
        )
        .assistant("Done: the parser is fixed and the linter passes.")
}

/// The preserved items of `rich()`: system, task, pin, latest user message, current turn.
const RICH_PRESERVED: [usize; 7] = [0, 1, 9, 26, 27, 28, 29];

/// A ShareGPT conversation with function calls, one turn per line.
#[derive(Default)]
struct ShareGpt {
    turns: Vec<String>,
    calls: usize,
}

impl ShareGpt {
    fn turn(mut self, from: &str, value: &str) -> Self {
        self.turns
            .push(json!({"from": from, "value": value}).to_string());
        self
    }

    fn human(self, text: &str) -> Self {
        self.turn("human", text)
    }

    fn gpt(self, text: &str) -> Self {
        self.turn("gpt", text)
    }

    fn reads(mut self, n: usize) -> Self {
        for _ in 0..n {
            self.calls += 1;
            let k = self.calls;
            let call = json!({"name": "read_file", "arguments": {"path": format!("doc{k}.md")}});
            self = self
                .turn("function_call", &call.to_string())
                .turn("observation", &bulky(k));
        }
        self
    }

    fn case(&self) -> Case {
        Case::new(&format!(
            "{{\"conversations\": [\n{}\n]}}\n",
            self.turns.join(",\n")
        ))
    }
}

/// A Claude Code record.
fn record(uuid: &str, parent: Option<&str>, kind: &str, rest: Value) -> String {
    let mut record = json!({"parentUuid": parent, "sessionId": "s1", "type": kind});
    for (key, value) in rest.as_object().unwrap() {
        record[key] = value.clone();
    }
    record["uuid"] = uuid.into();
    record.to_string()
}

/// Base64 text of exactly `bytes` bytes (a multiple of 4), repeating `unit` (4 characters),
/// so blobs of different units are never substrings of each other.
fn base64(bytes: usize, unit: &str) -> String {
    unit.repeat(bytes / 4)
}

// ----- Running strategies -----

/// A transcript read and a counter to price it.
struct Case {
    t: Transcript,
    counter: TokenCounter,
}

impl Case {
    fn new(src: &str) -> Case {
        let t = read(src.to_string(), &ReadOptions::default()).unwrap();
        assert_eq!(check(&t), [], "the hand-made input must be valid");
        Case {
            t,
            counter: TokenCounter::new(Encoding::O200kBase).unwrap(),
        }
    }

    fn subject(&self) -> Subject<'_> {
        Subject::new(&self.t, 0, &self.counter)
    }

    fn tokens(&self) -> usize {
        let s = self.subject();
        s.keep_all().tokens(&s)
    }

    /// `name` applied once, with the default settings and a target of 0, to the plan that
    /// keeps everything.
    fn apply(&self, name: StrategyName) -> Plan {
        self.apply_with(name, &StrategySettings::default(), 0)
    }

    /// Like [`Case::apply`]; the plan and its written output are checked ([`Case::assert_plan`],
    /// [`Case::assert_written`]).
    fn apply_with(&self, name: StrategyName, settings: &StrategySettings, target: usize) -> Plan {
        let plan = self.plan_of(name, settings, target);
        self.assert_written(name, &plan);
        plan
    }

    /// The plan of one application, checked but not written.
    fn plan_of(&self, name: StrategyName, settings: &StrategySettings, target: usize) -> Plan {
        let subject = self.subject();
        let cx = Context::new(&subject, &Extractive, settings, target);
        let plan = name.strategy().apply(&cx, subject.keep_all()).unwrap();
        self.assert_plan(name, &plan);
        plan
    }

    /// The text of the summary whose range starts at item `first`.
    fn summary_of<'p>(&self, plan: &'p Plan, first: usize) -> &'p str {
        plan.items
            .iter()
            .find_map(|o| match o {
                OutItem::Summary { text, replaces } if replaces.start == first => {
                    Some(text.as_str())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no summary starting at {first}: {}", shape(plan)))
    }

    /// What must hold for every plan: items in order, no call split from its results,
    /// preserved items kept as they are, no more tokens than before.
    fn assert_plan(&self, name: StrategyName, plan: &Plan) {
        let s = self.subject();
        let n = s.conv.items.len();
        let at = format!("{name}: {}", shape(plan));
        // Output items stand for increasing, disjoint ranges of original items.
        let mut next = 0;
        let mut fate = vec![Fate::Dropped; n];
        for (k, out) in plan.items.iter().enumerate() {
            let originals = out.originals();
            assert!(originals.start >= next, "out of order: {at}");
            next = originals.end;
            for i in originals {
                fate[i] = match out {
                    OutItem::Summary { .. } => Fate::Summarized(k),
                    _ => Fate::Kept,
                };
            }
        }
        // A tool result shares its call's fate.
        for (j, item) in s.conv.items.iter().enumerate() {
            for id in &item.results {
                let call = (0..j)
                    .rfind(|&i| s.conv.items[i].calls.iter().any(|c| &c.id == id))
                    .expect("the input pairs every result");
                assert_eq!(
                    fate[call], fate[j],
                    "call {call} split from result {j}: {at}"
                );
            }
        }
        // So does every record of one logical message (Claude Code splits responses), but
        // for old thinking records, which go whole while the rest of the response stays.
        let thinking_dropped =
            |i: usize| fate[i] == Fate::Dropped && s.conv.items[i].kind == Kind::Thinking;
        for (j, item) in s.conv.items.iter().enumerate() {
            let first = (0..j).find(|&i| {
                item.message_id.is_some()
                    && s.conv.items[i].message_id == item.message_id
                    && !thinking_dropped(i)
            });
            if let Some(i) = first.filter(|_| !thinking_dropped(j)) {
                assert_eq!(fate[i], fate[j], "message split at {i} and {j}: {at}");
            }
        }
        // Preserved items are written back as they are (an earlier ctxc summary may be
        // merged into a new one instead).
        for (i, hold) in s.holds.iter().enumerate() {
            if let Hold::Preserved(reason) = hold {
                let merged = crate::preserve::mergeable(*hold, &s.conv.items[i])
                    && matches!(fate[i], Fate::Summarized(_));
                let kept = merged
                    || plan
                        .items
                        .iter()
                        .any(|o| matches!(o, OutItem::Keep(k) | OutItem::Strip(k) if *k == i));
                assert!(kept, "item {i} ({}) not kept: {at}", reason.label());
            }
        }
        assert!(
            plan.tokens(&s) <= self.tokens(),
            "{at}: tokens grew from {} to {}",
            self.tokens(),
            plan.tokens(&s)
        );
    }

    /// What must hold for every output (DESIGN "Invariants", as `verify` checks them before a
    /// file is written): it reads back in its format, kept messages read back unchanged,
    /// preserved ones are all there, context tokens did not grow, and `check` finds nothing.
    /// Returns the output read back.
    fn assert_written(&self, name: StrategyName, plan: &Plan) -> Transcript {
        let s = self.subject();
        let at = format!("{name}: {}", shape(plan));
        let output = self.t.write(&[Some(plan.items.clone())]);
        let digests: Vec<u128> = s.conv.items.iter().map(|i| digest(&i.parts)).collect();
        let edit = Edited {
            index: 0,
            plan,
            holds: &s.holds,
            tokens_before: s.keep_all().tokens(&s),
            digests: &digests,
        };
        verify(
            &self.t,
            &check(&self.t),
            &output,
            &[edit],
            &ReadOptions::default(),
            &self.counter,
            &mut |_, _, _| {},
        )
        .unwrap_or_else(|v| panic!("{at}: {v}"));
        let forced = ReadOptions {
            format: Some(self.t.format),
            ..ReadOptions::default()
        };
        let out = crate::transcript::read(output, &forced).unwrap();
        assert_eq!(check(&out), [], "{at}");
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Kept,
    Summarized(usize),
    Dropped,
}

/// The plan in short: `7` keeps item 7, `S2-5` summarizes items 2 to 5, `M9` masks the output
/// of item 9, `T9` rewrites its text, `P9` strips its payloads, `D9` drops its thinking blocks;
/// dropped items are absent.
fn shape(plan: &Plan) -> String {
    let words: Vec<String> = plan
        .items
        .iter()
        .map(|out| match out {
            OutItem::Keep(i) => i.to_string(),
            OutItem::Summary { replaces, .. } => {
                format!("S{}-{}", replaces.start, replaces.end - 1)
            }
            OutItem::ReplaceResult(i, _) => format!("M{i}"),
            OutItem::ReplaceText(i, _) => format!("T{i}"),
            OutItem::Strip(i) => format!("P{i}"),
            OutItem::DropThinking(i) => format!("D{i}"),
            OutItem::ReplaceArguments(i, _) => format!("A{i}"),
        })
        .collect();
    words.join(" ")
}

/// `from..=to` kept, in the notation of [`shape`].
fn kept(from: usize, to: usize) -> String {
    (from..=to)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn goal(target_tokens: usize) -> Goal {
    Goal {
        target_tokens,
        at_least_one_step: false,
    }
}

mod adaptive;
mod dedup_and_trim_outputs;
mod engine;
mod full_summary;
mod importance;
mod incremental;
mod key_events;
mod observation_masking;
mod properties;
mod selective;

/// Whether a summary's artifact index names `path`.
fn indexes(summary: &str, path: &str) -> bool {
    crate::summarizer::artifacts::unfold(summary)
        .iter()
        .any(|p| p == path)
}

mod sliding_window;
mod strip_payloads;
mod terse;
mod trim_calls;
mod truncate;
