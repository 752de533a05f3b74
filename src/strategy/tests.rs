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
use crate::transcript::{Kind, OutItem, ReadOptions, Transcript, check, read};
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

// ----- sliding-window -----

#[test]
fn sliding_window_keeps_4_user_and_5_assistant_messages_and_summarizes_the_rest() {
    // 0 system, 1 task, 2-17 eight read rounds, 18 assistant, 19 latest user, 20-21 a test
    // run, 22 the answer.
    let c = Chat::default()
        .system("You are a coding agent.")
        .user("Fix the failing parser test in src/parser.rs.")
        .reads(8)
        .assistant("I found it.")
        .user("Good, now run the tests.")
        .tool("bash", json!({"command": "cargo test"}), "test result: ok")
        .assistant("All tests pass.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    // The window: results 15, 17, 21 and user 19; assistant 14, 16, 18, 20, 22.
    assert_eq!(shape(&plan), format!("0 1 S2-13 {}", kept(14, 22)));
    let summary = c.summary_of(&plan, 2);
    assert!(indexes(summary, "src/mod1.rs") && indexes(summary, "src/mod6.rs"));
    assert!(!indexes(summary, "src/mod7.rs"), "{summary}");
}

#[test]
fn sliding_window_is_split_by_a_pin_and_follows_its_settings() {
    // 0 system, 1 task, 2-7 reads, 8 pin, 9-20 reads, 21 latest user, 22 answer.
    let c = Chat::default()
        .system("sys")
        .user("Survey the modules.")
        .reads(3)
        .user("<Pin>Report sizes in bytes.</Pin>")
        .reads(6)
        .user("Which module is largest?")
        .assistant("mod9.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    // Four user-side messages fill the window first: 22, 21, 19-20, 17-18, 15-16.
    assert_eq!(shape(&plan), format!("0 1 S2-7 8 S9-14 {}", kept(15, 22)));
    let narrow = StrategySettings {
        window_user_messages: 1,
        window_assistant_messages: 1,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::SlidingWindow, &narrow, 0);
    assert_eq!(shape(&plan), "0 1 S2-7 8 S9-20 21 22");
}

#[test]
fn sliding_window_grows_back_as_far_as_the_target_allows() {
    // 0 system, 1 task, 2-17 eight reads, 18 latest user, 19 answer.
    let c = Chat::default()
        .system("sys")
        .user("Survey the modules.")
        .reads(8)
        .user("Largest?")
        .assistant("mod3.")
        .case();
    let s = c.subject();
    let budget = StrategySettings {
        summary_max_tokens: 100,
        ..StrategySettings::default()
    };
    // The least window starts at 12 (with 10-11 it would hold 5 user-side messages).
    let least = c.apply_with(StrategyName::SlidingWindow, &budget, 0);
    assert_eq!(shape(&least), format!("0 1 S2-11 {}", kept(12, 19)));
    // Priced at its budget plus 40, a summary of the first three rounds leaves exactly the
    // target: the window grows back to 8.
    let three: usize = s.tokens[2..8].iter().sum();
    let target = c.tokens() - three + budget.summary_max_tokens + 40;
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, target);
    assert_eq!(shape(&plan), format!("0 1 S2-7 {}", kept(8, 19)));
    assert!(plan.tokens(&s) <= target);
    // One token less and the fourth round goes too.
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, target - 1);
    assert_eq!(shape(&plan), format!("0 1 S2-9 {}", kept(10, 19)));
    // Everything fits: nothing to do.
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, c.tokens());
    assert_eq!(plan, s.keep_all());
}

#[test]
fn sliding_window_leaves_a_short_conversation_alone() {
    let c = Chat::default()
        .user("Read one file.")
        .reads(2)
        .assistant("Read.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    assert_eq!(plan, c.subject().keep_all());
}

// ----- importance -----

/// 0 system, 1 task, 2-7 reads (low), 8-9 failing tests (error: 3.5), 10 a root cause
/// (decision: 3.0), 11-14 reads, 15 a user request (3.0), 16-25 five reads, 26 latest user,
/// 27 answer.
fn scored() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the failing parser test.")
        .reads(3)
        .tool(
            "bash",
            json!({"command": "pytest tests/test_parser.py -x"}),
            &failing_tests(),
        )
        .assistant("The root cause is an off-by-one in the tokenizer.")
        .reads(2)
        .user("Also check the lexer please.")
        .reads(5)
        .user("What did you find?")
        .assistant("Both are fixed.")
        .case()
}

#[test]
fn importance_keeps_scores_of_3_and_the_last_5_low_units() {
    let c = scored();
    let plan = c.apply(StrategyName::Importance);
    assert_eq!(
        shape(&plan),
        format!("0 1 S2-7 8 9 10 S11-14 {}", kept(15, 27))
    );
}

#[test]
fn importance_threshold_and_recent_count_come_from_settings() {
    let c = scored();
    // At 4.0 the error, the decision and the user request score low too.
    let strict = StrategySettings {
        importance_threshold: 4.0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Importance, &strict, 0);
    assert_eq!(shape(&plan), format!("0 1 S2-15 {}", kept(16, 27)));
    let none_spared = StrategySettings {
        importance_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Importance, &none_spared, 0);
    assert_eq!(shape(&plan), "0 1 S2-7 8 9 10 S11-14 15 S16-25 26 27");
}

// ----- key-events -----

/// 0 system, 1 task, 2-5 reads, 6-7 failing tests (key), 8 chatter, 9-10 read, 11-12 the
/// fix (key), 13-14 a commit (key), 15-24 five reads, 25 "has been fixed" (key), 26 latest
/// user, 27 answer.
fn eventful() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the failing parser test.")
        .reads(2)
        .tool("bash", json!({"command": "pytest -x"}), &failing_tests())
        .assistant("Let me look closer.")
        .reads(1)
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "i + 1", "new": "i"}),
            "edited",
        )
        .tool(
            "bash",
            json!({"command": "git commit -am 'fix parser'"}),
            "[main 1a2b3c] fix parser",
        )
        .reads(5)
        .assistant("The bug has been fixed.")
        .user("Great, thanks.")
        .assistant("You're welcome.")
        .case()
}

#[test]
fn key_events_keeps_errors_fixes_state_changes_and_completions() {
    let c = eventful();
    let plan = c.apply(StrategyName::KeyEvents);
    assert_eq!(shape(&plan), format!("0 1 S2-5 6 7 S8-10 {}", kept(11, 27)));
    let none_spared = StrategySettings {
        key_events_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::KeyEvents, &none_spared, 0);
    assert_eq!(
        shape(&plan),
        "0 1 S2-5 6 7 S8-10 11 12 13 14 S15-24 25 26 27"
    );
}

// ----- incremental -----

#[test]
fn incremental_summarizes_each_20_turn_chunk_but_the_last_on_its_own() {
    // 0 system, 1 task; round k (1..=45) at 2k, 2k+1; 92 latest user, 93 answer. The first
    // chunk is the task and rounds 1-19 (20 turns), the second rounds 20-39, the last 40-45.
    let c = Chat::default()
        .system("sys")
        .user("Survey every module.")
        .reads(45)
        .user("Done?")
        .assistant("Yes.")
        .case();
    let plan = c.apply(StrategyName::Incremental);
    assert_eq!(shape(&plan), format!("0 1 S2-39 S40-79 {}", kept(80, 93)));
    let first = c.summary_of(&plan, 2);
    let second = c.summary_of(&plan, 40);
    assert!(indexes(first, "src/mod19.rs") && !indexes(first, "src/mod20.rs"));
    assert!(indexes(second, "src/mod20.rs") && indexes(second, "src/mod39.rs"));
    assert!(!indexes(second, "src/mod19.rs") && !indexes(second, "src/mod40.rs"));
}

#[test]
fn incremental_leaves_a_single_chunk_alone() {
    let c = Chat::default()
        .system("sys")
        .user("Survey.")
        .reads(18)
        .user("Done?")
        .assistant("Yes.")
        .case();
    let plan = c.apply(StrategyName::Incremental);
    assert_eq!(plan, c.subject().keep_all());
    let small = StrategySettings {
        incremental_chunk_turns: 5,
        ..StrategySettings::default()
    };
    // Chunks: task + rounds 1-4, 5-9, 10-14, 15-18 (the last, kept).
    let plan = c.apply_with(StrategyName::Incremental, &small, 0);
    assert_eq!(
        shape(&plan),
        format!("0 1 S2-9 S10-19 S20-29 {}", kept(30, 39))
    );
}

// ----- selective -----

/// 0 system, 1 task, then assistant and user chatter between five read rounds (5-6, 9-10,
/// 13-14, 17-18, 21-22), 25 latest user, 26 answer.
fn chatty() -> Case {
    let mut chat = Chat::default()
        .system("sys")
        .user("Help me plan the refactor.")
        .assistant("Sure, a1.")
        .user("u1 then.")
        .assistant("a2 noted.");
    for k in 2..=6 {
        chat = chat
            .reads(1)
            .user(&format!("u{k} then."))
            .assistant(&format!("a{} noted.", k + 1));
    }
    chat.user("Thanks.").assistant("Done.").case()
}

#[test]
fn selective_applies_its_rules_in_order() {
    let c = chatty();
    // tool_result keeps 3 (drops 5-6, 9-10); assistant keeps 5 (drops 2, 4, 8); user keeps 5
    // (drops 3, 7); the task and the latest message are preserved.
    let plan = c.apply(StrategyName::Selective);
    assert_eq!(shape(&plan), format!("0 1 {}", kept(11, 26)));
    assert!(
        !plan
            .items
            .iter()
            .any(|o| matches!(o, OutItem::Summary { .. }))
    );
}

#[test]
fn selective_stops_once_under_target() {
    let c = chatty();
    let tools_only = StrategySettings {
        selective_rules: vec![Rule {
            kind: selective::RuleKind::ToolResult,
            action: RuleAction::Truncate { keep_recent: 3 },
        }],
        ..StrategySettings::default()
    };
    let after_tools = c.apply_with(StrategyName::Selective, &tools_only, 0);
    assert_eq!(
        shape(&after_tools),
        format!("0 1 2 3 4 7 8 {}", kept(11, 26))
    );
    let s = c.subject();
    let target = after_tools.tokens(&s);
    let defaults = StrategySettings::default();
    let plan = c.apply_with(StrategyName::Selective, &defaults, target);
    assert_eq!(
        plan, after_tools,
        "no rule after the one that got under target"
    );
    let plan = c.apply_with(StrategyName::Selective, &defaults, target - 1);
    assert_eq!(shape(&plan), format!("0 1 3 7 {}", kept(11, 26)));
    let plan = c.apply_with(StrategyName::Selective, &defaults, c.tokens());
    assert_eq!(plan, s.keep_all(), "already under target");
}

#[test]
fn selective_none_and_drop_rules() {
    let c = chatty();
    let rules = |kind, action| StrategySettings {
        selective_rules: vec![Rule { kind, action }],
        ..StrategySettings::default()
    };
    use selective::RuleKind;
    let plan = c.apply_with(
        StrategyName::Selective,
        &rules(RuleKind::User, RuleAction::None),
        0,
    );
    assert_eq!(plan, c.subject().keep_all());
    // Dropping every user message leaves the task and the latest message.
    let plan = c.apply_with(
        StrategyName::Selective,
        &rules(RuleKind::User, RuleAction::Drop),
        0,
    );
    assert_eq!(
        shape(&plan),
        "0 1 2 4 5 6 8 9 10 12 13 14 16 17 18 20 21 22 24 25 26"
    );
}

#[test]
fn selective_drops_skill_prompts_and_metadata() {
    let lines = [
        record(
            "u1",
            None,
            "user",
            json!({"message": {"role": "user", "content": "Ship the release."}}),
        ),
        record(
            "m1",
            Some("u1"),
            "user",
            json!({"isMeta": true, "message": {"role": "user",
                "content": format!("Base directory for this skill: /skills/release\n{}", bulky(1))}}),
        ),
        record(
            "m2",
            Some("m1"),
            "user",
            json!({"isMeta": true, "message": {"role": "user",
                "content": format!("Caveat: local command output follows.\n{}", bulky(2))}}),
        ),
        record(
            "a1",
            Some("m2"),
            "assistant",
            json!({"message": {"id": "msg_1", "role": "assistant",
                "content": [{"type": "text", "text": "Releasing."}]}}),
        ),
        record(
            "u2",
            Some("a1"),
            "user",
            json!({"message": {"role": "user", "content": "Go on."}}),
        ),
        record(
            "a2",
            Some("u2"),
            "assistant",
            json!({"message": {"id": "msg_2", "role": "assistant",
                "content": [{"type": "text", "text": "Released."}]}}),
        ),
    ];
    let c = Case::new(&(lines.join("\n") + "\n"));
    use selective::RuleKind;
    let only = |kind| StrategySettings {
        selective_rules: vec![Rule {
            kind,
            action: RuleAction::Drop,
        }],
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Selective, &only(RuleKind::SkillPrompt), 0);
    assert_eq!(shape(&plan), "0 2 3 4 5");
    let plan = c.apply_with(StrategyName::Selective, &only(RuleKind::SkillMetadata), 0);
    assert_eq!(shape(&plan), "0 1 3 4 5");
}

// ----- observation-masking -----

#[test]
fn observation_masking_masks_old_outputs_and_keeps_every_call() {
    // 0 system, 1 task, 2-3 a tiny `ls`, 4-5 read, 6-7 failing tests, 8-9 a pinned output,
    // 10-15 reads, 16 latest user, 17 answer.
    let c = Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .tool("bash", json!({"command": "ls"}), "Cargo.toml src")
        .reads(1)
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool(
            "read_file",
            json!({"path": "NOTES.md"}),
            &format!("<Pin>Release on Friday.</Pin>\n{}", bulky(4)),
        )
        .reads(3)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let plan = c.apply(StrategyName::ObservationMasking);
    // The last 3 outputs (11, 13, 15) stay; `ls` is smaller than its placeholder; the pinned
    // output is preserved.
    assert_eq!(shape(&plan), format!("0 1 2 3 4 M5 6 M7 {}", kept(8, 17)));
    let masked = |at: usize| match &plan.items[at] {
        OutItem::ReplaceResult(_, text) => text.as_str(),
        other => panic!("{other:?}"),
    };
    let tokens = c.counter.count(&bulky(2));
    assert_eq!(
        masked(5),
        format!("[ctxc: output of read_file masked, {tokens} tokens in 40 lines]")
    );
    assert!(
        masked(7).starts_with("[ctxc: output of bash masked, ")
            && masked(7).ends_with(
                "tokens in 42 lines; first error: FAILED tests/test_parser.py::test_empty - AssertionError: 0 != 1]"
            ),
        "{}",
        masked(7)
    );
    let all = StrategySettings {
        masking_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::ObservationMasking, &all, 0);
    assert_eq!(
        shape(&plan),
        "0 1 2 3 4 M5 6 M7 8 9 10 M11 12 M13 14 M15 16 17"
    );
}

// ----- dedup and trim-outputs -----

#[test]
fn dedup_points_re_reads_and_repeated_outputs_to_their_later_copy() {
    // 0 task, 1-2 read a.rs, 3-4 pytest, 5-6 read a.rs again, 7-8 pytest again (same
    // output), 9-10 a partial read of b.rs, 11-12 a whole read of b.rs, 13 latest user, 14.
    let c = Chat::default()
        .user("Fix the parser.")
        .tool("read_file", json!({"path": "a.rs"}), &bulky(1))
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool("read_file", json!({"path": "a.rs"}), &bulky(2))
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool(
            "read_file",
            json!({"path": "b.rs", "offset": 10}),
            &bulky(3),
        )
        .tool("read_file", json!({"path": "b.rs"}), &bulky(4))
        .user("Status?")
        .assistant("Fixed.")
        .case();
    let plan = c.apply(StrategyName::Dedup);
    assert_eq!(
        shape(&plan),
        format!("0 1 M2 3 M4 {} M10 {}", kept(5, 9), kept(11, 14))
    );
    let text = |at: usize| match &plan.items[at] {
        OutItem::ReplaceResult(_, text) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text(2),
        "[ctxc: superseded by the later read of a.rs (call call_3), kept there]"
    );
    assert_eq!(
        text(4),
        "[ctxc: identical to the later output of call call_4, kept there]"
    );
}

#[test]
fn trim_outputs_keeps_head_tail_and_every_error_line_of_old_outputs() {
    // 0 task, 1-2 a failing test run (42 lines), 3-12 five reads, 13 latest user, 14.
    let c = Chat::default()
        .user("Fix the parser.")
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .reads(5)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let plan = c.apply(StrategyName::TrimOutputs);
    // The last 3 outputs stay whole.
    assert_eq!(shape(&plan), format!("0 1 M2 3 M4 5 M6 {}", kept(7, 14)));
    let OutItem::ReplaceResult(_, text) = &plan.items[2] else {
        panic!("{}", shape(&plan));
    };
    let original = failing_tests();
    let original: Vec<&str> = original.lines().collect();
    assert!(text.starts_with(&original[..8].join("\n")), "{text}");
    assert!(
        text.ends_with(&original[original.len() - 2..].join("\n")),
        "{text}"
    );
    assert!(text.contains("lines ("), "{text}");
    for error in crate::facts::error_lines(&failing_tests(), false) {
        assert!(text.contains(&error), "{error} missing from {text}");
    }
    // Only as far as the target needs: the engine reaches back from the oldest output.
    let s = c.subject();
    let all = c.tokens();
    let trimmed = plan.tokens(&s);
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, all - (all - trimmed) / 2);
    let some = cx
        .apply_to_target(StrategyName::TrimOutputs, s.keep_all(), false)
        .unwrap();
    c.assert_plan(StrategyName::TrimOutputs, &some);
    assert!(some.tokens(&s) <= cx.target && some.tokens(&s) > trimmed);
}

/// A Claude Code session whose responses think first: 0 the task; rounds 1-6 are each a
/// thinking record (signed), a `tool_use` record of the same `message.id` and the result;
/// 19 the latest user message; 20-21 the answer, thinking then text.
fn thoughtful() -> Case {
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Port the module to Rust."}}),
    )];
    let mut parent = "u0".to_string();
    let message = |k: usize, block: Value| json!({"message": {"id": format!("msg_{k}"), "role": "assistant", "content": [block]}});
    let thinking = |k: usize| {
        json!({"type": "thinking", "signature": format!("sig{k}"),
            "thinking": format!("Part {k} is next; the parser in m{k} needs a closer look. ").repeat(20)})
    };
    for k in 1..=6 {
        let (think, call, result) = (format!("h{k}"), format!("c{k}"), format!("r{k}"));
        let tool = format!("toolu_{k}");
        lines.push(record(
            &think,
            Some(&parent),
            "assistant",
            message(k, thinking(k)),
        ));
        lines.push(record(
            &call,
            Some(&think),
            "assistant",
            message(
                k,
                json!({"type": "tool_use", "id": tool, "name": "Read",
                "input": {"file_path": format!("/repo/src/m{k}.py")}}),
            ),
        ));
        lines.push(record(
            &result,
            Some(&call),
            "user",
            json!({"message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool, "content": format!("part {k}")}]}}),
        ));
        parent = result;
    }
    lines.push(record(
        "u7",
        Some(&parent),
        "user",
        json!({"message": {"role": "user", "content": "Which part is largest?"}}),
    ));
    lines.push(record(
        "h7",
        Some("u7"),
        "assistant",
        message(7, thinking(7)),
    ));
    lines.push(record(
        "a7",
        Some("h7"),
        "assistant",
        message(7, json!({"type": "text", "text": "Part 3."})),
    ));
    Case::new(&(lines.join("\n") + "\n"))
}

#[test]
fn trim_outputs_drops_old_thinking_records_whole_and_relinks_the_chain() {
    let c = thoughtful();
    let s = c.subject();
    let plan = c.apply(StrategyName::TrimOutputs);
    // Rounds 1-3 lose their thinking; the last 3 and the current turn's keep theirs.
    assert_eq!(shape(&plan), format!("0 2 3 5 6 8 9 {}", kept(10, 21)));
    let out = c.assert_written(StrategyName::TrimOutputs, &plan);
    let written = c.t.write(&[Some(plan.items.clone())]);
    let records: Vec<Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Each call now hangs from what preceded its thinking; kept thinking keeps its signature.
    let parent_of = |uuid: &str| {
        let r = records.iter().find(|r| r["uuid"] == uuid).unwrap();
        r["parentUuid"].as_str().unwrap().to_string()
    };
    assert_eq!(parent_of("c1"), "u0");
    assert_eq!(parent_of("c3"), "r2");
    assert_eq!(parent_of("c4"), "h4");
    assert!(written.contains(r#""signature":"sig4""#) && !written.contains("sig3"));
    // The planned price is the written one: the calls' responses are still counted once.
    let after = crate::count::count_conversation(&c.counter, &out.conversations[0]).total();
    assert_eq!(plan.tokens(&s), after);
    assert!(after < c.tokens());
    // Only as far as the target needs: a target met by dropping one block drops just the oldest.
    let one = s.tokens[1];
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, c.tokens() - one);
    let some = cx
        .apply_to_target(StrategyName::TrimOutputs, s.keep_all(), false)
        .unwrap();
    assert_eq!(shape(&some), format!("0 {}", kept(2, 21)));
}

/// An Anthropic Messages request whose responses think: 0 the task; 1-10 five rounds, each an
/// assistant message with a signed thinking block and a `tool_use`, then its result; 11 the
/// latest user message; 12 the answer, thinking then text.
fn thoughtful_messages() -> Case {
    let thinking = |k: usize| {
        json!({"type": "thinking", "signature": format!("sig{k}"),
            "thinking": format!("Part {k} is next; m{k} needs a closer look. ").repeat(20)})
    };
    let mut messages = vec![json!({"role": "user", "content": "Port the module to Rust."})];
    for k in 1..=5 {
        let tool = format!("toolu_{k}");
        messages.push(json!({"role": "assistant", "content": [thinking(k),
            {"type": "tool_use", "id": tool, "name": "Read",
             "input": {"file_path": format!("/repo/src/m{k}.py")}}]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool, "content": format!("part {k}")}]}));
    }
    messages.push(json!({"role": "user", "content": "Which part is largest?"}));
    messages.push(json!({"role": "assistant", "content": [thinking(6),
        {"type": "text", "text": "Part 3."}]}));
    let request = json!({"model": "claude-sonnet-4-5", "messages": messages});
    Case::new(&serde_json::to_string_pretty(&request).unwrap())
}

#[test]
fn trim_outputs_drops_old_thinking_blocks_from_anthropic_messages() {
    let c = thoughtful_messages();
    let s = c.subject();
    let plan = c.apply(StrategyName::TrimOutputs);
    // Messages 1 and 3 lose their thinking; the last 3 and the current turn's keep theirs.
    assert_eq!(shape(&plan), format!("0 D1 2 D3 {}", kept(4, 12)));
    let out = c.assert_written(StrategyName::TrimOutputs, &plan);
    let written = c.t.write(&[Some(plan.items.clone())]);
    for gone in ["sig1", "sig2"] {
        assert!(!written.contains(gone), "{gone} still written");
    }
    for kept in ["sig3", "sig4", "sig5", "sig6", "toolu_1", "/repo/src/m1.py"] {
        assert!(written.contains(kept), "{kept} lost");
    }
    let after = crate::count::count_conversation(&c.counter, &out.conversations[0]).total();
    assert_eq!(plan.tokens(&s), after);
    assert!(after < c.tokens());
    // The report's step says how many blocks went; its tokens are the step's.
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::TrimOutputs],
        goal(0),
    )
    .unwrap();
    assert_eq!(run.steps[0].thinking_dropped, 2);
    assert_eq!(run.steps[0].tokens_after, after);
    // Summaries are not counted as dropped thinking.
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::FullSummary],
        goal(0),
    )
    .unwrap();
    assert_eq!(run.steps[0].thinking_dropped, 0);
}

#[test]
fn trim_outputs_stops_at_the_target_and_keeps_what_it_can_of_the_last_output() {
    // 0 task, 1-4 two reads of ~300 tokens, 5-10 three more, 11 latest user, 12.
    let c = Chat::default()
        .user("Audit the modules.")
        .reads(5)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let s = c.subject();
    let all = c.tokens();
    let settings = StrategySettings::default();
    // 60 tokens to save: less than cutting one output to 8 + 4 lines saves.
    let cx = Context::new(&s, &Extractive, &settings, all - 60);
    let plan = StrategyName::TrimOutputs
        .strategy()
        .apply(&cx, s.keep_all())
        .unwrap();
    c.assert_plan(StrategyName::TrimOutputs, &plan);
    assert!(cx.in_band(&plan), "{} for {}", plan.tokens(&s), cx.target);
    // Only the oldest output is cut, and it keeps more than the usual head.
    assert_eq!(shape(&plan), format!("0 1 M2 {}", kept(3, 12)));
    let OutItem::ReplaceResult(_, text) = &plan.items[2] else {
        panic!("{}", shape(&plan));
    };
    assert!(text.starts_with(&bulky(1).lines().take(9).collect::<Vec<_>>().join("\n")));
}

#[test]
fn a_step_whose_least_stretch_is_one_big_unit_cuts_its_outputs_instead() {
    // 0 task, 1-4 one assistant message reading three files at once (one unit), 5 latest
    // user message, 6 the answer: summarizing the unit would take far more than needed.
    let c = Chat::default()
        .user("Audit the modules.")
        .parallel(&[
            ("read_file", json!({"path": "src/a.rs"}), &bulky(1)),
            ("read_file", json!({"path": "src/b.rs"}), &bulky(2)),
            ("read_file", json!({"path": "src/c.rs"}), &bulky(3)),
        ])
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let s = c.subject();
    let all = c.tokens();
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, all * 9 / 10);
    let name = StrategyName::FullSummary;
    let plan = cx.apply_to_target(name, s.keep_all(), false).unwrap();
    c.assert_plan(name, &plan);
    assert!(cx.in_band(&plan), "{} for {}", plan.tokens(&s), cx.target);
    // Every call stays; the outputs are cut, not summarized.
    assert!(
        plan.items.iter().all(|o| o.kept().is_some()),
        "{}",
        shape(&plan)
    );
}

// ----- full-summary -----

#[test]
fn full_summary_keeps_what_is_preserved_beside_one_summary() {
    // 0 system, 1 task, 2-5 reads, 6-7 a task list, 8-9 an edit, 10-11 read, 12 latest user,
    // 13-14 a test run, 15 answer.
    let c = Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .reads(2)
        .tool(
            "TodoWrite",
            json!({"todos": [
                {"content": "Read the parser", "status": "completed"},
                {"content": "Fix the off-by-one", "status": "in_progress"},
                {"content": "Run the tests", "status": "pending"}]}),
            "ok",
        )
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "i + 1", "new": "i"}),
            "edited",
        )
        .reads(1)
        .user("Run the tests now.")
        .tool("bash", json!({"command": "cargo test"}), "ok")
        .assistant("Passing.")
        .case();
    let plan = c.apply(StrategyName::FullSummary);
    assert_eq!(shape(&plan), "0 1 S2-11 12 13 14 15");
    let text = c.summary_of(&plan, 2);
    assert!(text.contains("the whole conversation but what is kept verbatim"));
    assert!(text.contains(
        "Task list (latest state):\n- [in_progress] Fix the off-by-one\n- [pending] Run the tests\n- [completed] Read the parser"
    ));
    assert!(text.contains("- modified: src/parser.rs"), "{text}");
}

#[test]
fn full_summary_around_a_pin_writes_one_summary_per_side() {
    let c = rich().case();
    let plan = c.apply(StrategyName::FullSummary);
    // The pin (9) stays in place, so the history either side of it is summarized apart.
    assert_eq!(shape(&plan), "0 1 S2-8 9 S10-25 26 27 28 29");
}

/// 0 system, 1 task, 2 an earlier ctxc summary, 3-14 six reads, 15 latest user, 16 answer.
fn resumed() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .user("[ctxc summary]\nContinuation summary of 9 earlier messages, by ctxc.\n\n## 2. Current state\nFiles modified:\n- src/old.rs")
        .reads(6)
        .user("Next?")
        .assistant("Testing.")
        .case()
}

#[test]
fn every_strategy_keeps_or_merges_an_earlier_summary() {
    let c = resumed();
    // A new summary right after an earlier ctxc summary absorbs it, its lists merged: one
    // ctxc summary stands, however often ctxc runs.
    let plan = c.apply(StrategyName::SlidingWindow);
    assert_eq!(shape(&plan), format!("0 1 S2-8 {}", kept(9, 16)));
    let merged = c.summary_of(&plan, 2);
    assert!(indexes(merged, "src/old.rs"), "{merged}");
    assert!(indexes(merged, "src/mod1.rs"), "{merged}");
    let tight = StrategySettings {
        importance_keep_recent: 0,
        key_events_keep_recent: 0,
        incremental_chunk_turns: 2,
        ..StrategySettings::default()
    };
    for name in [StrategyName::Importance, StrategyName::KeyEvents] {
        let plan = c.apply_with(name, &tight, 0);
        assert_eq!(shape(&plan), "0 1 S2-14 15 16", "{name}");
    }
    let plan = c.apply_with(StrategyName::Incremental, &tight, 0);
    assert!(
        plan.items
            .iter()
            .any(|o| matches!(o, OutItem::Summary { replaces, .. } if replaces.start == 2)),
        "{}",
        shape(&plan)
    );
    let plan = c.apply(StrategyName::FullSummary);
    assert_eq!(shape(&plan), "0 1 S2-14 15 16");
    // Strategies that write no summary keep it verbatim: it may be all that states the task.
    let plan = c.apply(StrategyName::Truncate);
    assert_eq!(shape(&plan), format!("0 1 2 {}", kept(7, 16)));
}

// ----- truncate -----

#[test]
fn truncate_keeps_preserved_items_and_the_last_10_messages() {
    let c = rich().case();
    let plan = c.apply(StrategyName::Truncate);
    // Counting back 10 messages: 29, 27-28, 26, 25, 23-24, 21-22; 19-20 would be the 10th
    // and 11th, and a call is never split from its result.
    assert_eq!(shape(&plan), format!("0 1 9 {}", kept(21, 29)));
    let five = StrategySettings {
        truncate_keep_recent: 5,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Truncate, &five, 0);
    assert_eq!(shape(&plan), "0 1 9 25 26 27 28 29");
}

// ----- strip-payloads -----

#[test]
fn strip_payloads_drops_records_the_model_never_sees_and_stubs_media() {
    let image = |data: &str| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}});
    let user = |text: &str, media: Option<&str>| {
        let mut content = vec![json!({"type": "text", "text": text})];
        content.extend(media.map(image));
        json!({"message": {"role": "user", "content": content}})
    };
    let say = |id: &str, text: &str| json!({"message": {"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}});
    let big = base64(8 * 1024, "QUJD");
    let small = base64(8 * 1024 - 4, "REVG");
    let latest = base64(16 * 1024, "R0hJ");
    let lines = [
        record("u1", None, "user", user("Fix the layout.", None)),
        record(
            "p1",
            Some("u1"),
            "progress",
            json!({"data": {"type": "hook_progress", "hookEvent": "SessionStart"}}),
        ),
        record(
            "a1",
            Some("p1"),
            "assistant",
            json!({"message": {"id": "msg_1", "role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/repo/app.css"}}]}}),
        ),
        record(
            "r1",
            Some("a1"),
            "user",
            json!({"message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "body { margin: 0 }"}]},
                "toolUseResult": {"file": {"filePath": "/repo/app.css", "content": "body { margin: 0 }"}}}),
        ),
        json!({"type": "file-history-snapshot", "messageId": "msg_1",
            "snapshot": {"messageId": "msg_1", "trackedFileBackups": {}}, "isSnapshotUpdate": false})
        .to_string(),
        record("a2", Some("r1"), "assistant", say("msg_2", "Send a screenshot.")),
        record("u2", Some("a2"), "user", user("Here.", Some(&big))),
        record("a3", Some("u2"), "assistant", say("msg_3", "I see it.")),
        record("u3", Some("a3"), "user", user("And a thumbnail.", Some(&small))),
        record("a4", Some("u3"), "assistant", say("msg_4", "Noted.")),
        record("u4", Some("a4"), "user", user("Now the full page.", Some(&latest))),
        record("a5", Some("u4"), "assistant", say("msg_5", "Fixed.")),
    ];
    let c = Case::new(&(lines.join("\n") + "\n"));
    // Not `apply`: the stub's tokens make the output fail `verify` (see the ignored test
    // `stubbing_media_never_adds_context_tokens`).
    let plan = c.plan_of(StrategyName::StripPayloads, &StrategySettings::default(), 0);
    // Progress (1) and the snapshot (4) go; the copy of 3 and the 8 KiB image of 6 are
    // stripped; the image just under 8 KiB (8) and the preserved latest message's (10) stay.
    assert_eq!(shape(&plan), "0 2 P3 5 P6 7 8 9 10 11");
    let out = c.t.write(&[Some(plan.items.clone())]);
    assert!(!out.contains("\"progress\"") && !out.contains("file-history-snapshot"));
    assert!(!out.contains("toolUseResult"));
    assert!(out.contains("[ctxc: image/png removed, 8,192 bytes of base64, xxh3 "));
    assert!(!out.contains(&big) && out.contains(&small) && out.contains(&latest));
    // Linked past the dropped progress record.
    let again = read(out, &ReadOptions::default()).unwrap();
    assert_eq!(check(&again), []);
    let a1: Value = serde_json::from_str(again.raw(0, 1)).unwrap();
    assert_eq!(a1["uuid"], "a1");
    assert_eq!(a1["parentUuid"], "u1");
}

/// 0 the task with a 12 KiB image, 1 answer, 2 the same image again, 3-5 chatter.
fn pictures() -> Case {
    let picture = |data: &str| {
        json!({"role": "user", "content": [{"type": "text", "text": "see"},
            {"type": "image_url", "image_url": {"url": format!("data:image/jpeg;base64,{data}")}}]})
    };
    let big = base64(12 * 1024, "QUJD");
    Chat::default()
        .message(picture(&big))
        .assistant("A chart.")
        .message(picture(&big))
        .assistant("The same chart.")
        .user("Thanks.")
        .assistant("Welcome.")
        .case()
}

#[test]
fn strip_payloads_stubs_openai_data_urls_outside_preserved_messages() {
    let c = pictures();
    let plan = c.plan_of(StrategyName::StripPayloads, &StrategySettings::default(), 0);
    // The first user message is the original task: preserved, image and all.
    assert_eq!(shape(&plan), "0 1 P2 3 4 5");
    let out = c.t.write(&[Some(plan.items)]);
    assert_eq!(
        out.matches("[ctxc: image/jpeg removed, 12,288 bytes")
            .count(),
        1
    );
    assert_eq!(out.matches(&base64(12 * 1024, "QUJD")).count(), 1);
    assert_eq!(check(&read(out, &ReadOptions::default()).unwrap()), []);
    let plain = Chat::default().user("hi").assistant("hello").case();
    assert_eq!(
        plain.apply(StrategyName::StripPayloads),
        plain.subject().keep_all()
    );
}

#[test]
fn stubbing_media_never_adds_context_tokens() {
    // The image part counts as `[image_url]` (4 tokens); its stub `[ctxc: image/jpeg removed,
    // 12,288 bytes of base64, xxh3 …]` is text the model reads (about 30). The plan prices
    // `Strip(i)` as unchanged, so the engine takes the step, then `verify` fails the file:
    // "context tokens grew". `ctxc compact --force` on such a file exits 1, writing nothing.
    let c = pictures();
    let plan = c.plan_of(StrategyName::StripPayloads, &StrategySettings::default(), 0);
    c.assert_written(StrategyName::StripPayloads, &plan);
}

// ----- adaptive -----

fn calls(names: &[&str]) -> Case {
    let mut chat = Chat::default().system("sys").user("Do the work.");
    for (k, name) in names.iter().enumerate() {
        let args = match *name {
            "bash" => json!({"command": format!("make step{k}")}),
            _ => json!({"path": format!("src/f{k}.rs")}),
        };
        chat = chat.tool(name, args, "ok");
    }
    chat.assistant("Done.").case()
}

#[test]
fn adaptive_detects_the_task_type_from_tool_calls() {
    for (names, want) in [
        (
            &["edit_file", "bash", "bash", "write_file", "read_file"][..],
            TaskType::Code,
        ),
        (
            &[
                "read_file",
                "search_code",
                "get_weather",
                "list_dir",
                "fetch_url",
            ],
            TaskType::Analysis,
        ),
        (
            &["read_file", "grep", "read_file", "edit_file", "bash"],
            TaskType::Mixed,
        ),
        (
            &[
                "read_file",
                "grep",
                "bash",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
            ],
            TaskType::Mixed,
        ),
        (&["frobnicate", "transmogrify", "frob"], TaskType::Unknown),
        (&[], TaskType::Conversation),
    ] {
        let c = calls(names);
        assert_eq!(detect_task_type(&c.subject()), want, "{names:?}");
    }
    // One call in more than ten messages is still a conversation.
    let mut chat = Chat::default().user("Hi.");
    for k in 0..5 {
        chat = chat.assistant(&format!("a{k}")).user(&format!("u{k}"));
    }
    let c = chat
        .tool("edit_file", json!({"path": "a.rs"}), "ok")
        .assistant("ok")
        .case();
    assert_eq!(detect_task_type(&c.subject()), TaskType::Conversation);
}

#[test]
fn adaptive_chain_runs_the_type_chain_then_the_fallbacks() {
    use StrategyName::*;
    let code = calls(&["edit_file", "bash", "bash", "read_file"]);
    assert_eq!(
        adaptive_chain(&code.subject(), false),
        (
            TaskType::Code,
            vec![
                Dedup,
                TrimOutputs,
                SlidingWindow,
                KeyEvents,
                Incremental,
                ObservationMasking,
                Importance,
                Selective,
                FullSummary,
                Truncate
            ]
        )
    );
    let analysis = calls(&["read_file", "grep", "get_user"]);
    assert_eq!(
        adaptive_chain(&analysis.subject(), false).1,
        [
            Dedup,
            TrimOutputs,
            SlidingWindow,
            Importance,
            Incremental,
            ObservationMasking,
            KeyEvents,
            Selective,
            FullSummary,
            Truncate
        ]
    );
    let mixed = calls(&["read_file", "grep", "edit_file"]);
    assert_eq!(
        adaptive_chain(&mixed.subject(), false).1[2..5],
        [SlidingWindow, Incremental, Importance]
    );
    // Payloads put strip-payloads first, unless they are to be kept.
    let image = json!({"role": "user", "content": [{"type": "image_url",
        "image_url": {"url": format!("data:image/png;base64,{}", base64(9000, "QUJD"))}}]});
    let c = Chat::default()
        .user("Look.")
        .message(image)
        .assistant("Seen.")
        .user("Thanks.")
        .assistant("Welcome.")
        .case();
    let (task, steps) = adaptive_chain(&c.subject(), false);
    assert_eq!(task, TaskType::Conversation);
    assert_eq!(steps[..3], [StripPayloads, Dedup, TrimOutputs]);
    assert_eq!(adaptive_chain(&c.subject(), true).1[0], Dedup);
}

#[test]
fn adaptive_strategy_stops_once_under_target() {
    let c = rich().case();
    let total = c.tokens();
    let plan = c.apply_with(StrategyName::Adaptive, &StrategySettings::default(), total);
    assert_eq!(plan, c.subject().keep_all());
    // A target that sliding-window alone meets.
    let window = c.apply(StrategyName::SlidingWindow);
    let target = window.tokens(&c.subject());
    let plan = c.apply_with(StrategyName::Adaptive, &StrategySettings::default(), target);
    assert_eq!(plan, window);
}

// ----- the engine -----

fn goal(target_tokens: usize) -> Goal {
    Goal {
        target_tokens,
        at_least_one_step: false,
    }
}

#[test]
fn engine_runs_adaptive_until_the_target_is_met() {
    let c = rich().case();
    let s = c.subject();
    let window = c.apply(StrategyName::SlidingWindow).tokens(&s);
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(window),
    )
    .unwrap();
    assert_eq!(run.task_type, Some(TaskType::Mixed));
    // The ladder: the free and near-free rungs first, then the type's chain; it stops at the
    // rung that meets the target.
    let ran: Vec<StrategyName> = run.steps.iter().map(|s| s.strategy).collect();
    assert_eq!(
        ran,
        [
            StrategyName::Dedup,
            StrategyName::TrimOutputs,
            StrategyName::SlidingWindow
        ][..ran.len()],
    );
    assert!(run.steps.last().unwrap().changed);
    assert_eq!(run.tokens_before, c.tokens());
    assert!(run.tokens_after <= window);
    assert_eq!(run.shortfall, None);
    c.assert_plan(StrategyName::Adaptive, &run.plan);
    c.assert_written(StrategyName::Adaptive, &run.plan);
    // Already under target: nothing to do, unless a step is asked for.
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(c.tokens()),
    )
    .unwrap();
    assert!(run.steps.is_empty());
    assert_eq!(run.plan, s.keep_all());
    let forced = Goal {
        at_least_one_step: true,
        ..goal(c.tokens())
    };
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        forced,
    )
    .unwrap();
    // Sliding-window grows to the (met) target and so changes nothing; the chain goes on to
    // the first step that does, and stops there.
    let changed: Vec<bool> = run.steps.iter().map(|s| s.changed).collect();
    assert_eq!(changed, [false, true], "{:?}", run.steps);
    assert!(run.tokens_after < run.tokens_before);
}

#[test]
fn engine_says_why_an_unreachable_target_is_missed() {
    let c = rich().case();
    let s = c.subject();
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(1),
    )
    .unwrap();
    let tried: Vec<StrategyName> = run.steps.iter().map(|s| s.strategy).collect();
    assert_eq!(tried, adaptive_chain(&s, false).1);
    for step in &run.steps {
        assert!(step.tokens_after <= step.tokens_before, "{step:?}");
    }
    let why = run
        .shortfall
        .expect("a target of 1 token cannot be met")
        .to_string();
    assert!(why.contains("target 1"), "{why}");
    assert!(why.contains("must stay verbatim"), "{why}");
    assert!(
        why.contains("the original task") && why.contains("pinned messages"),
        "{why}"
    );
    // Everything but the preserved items ends up in summaries.
    let kept: Vec<usize> = run.plan.items.iter().filter_map(OutItem::kept).collect();
    assert_eq!(kept, RICH_PRESERVED);
    c.assert_plan(StrategyName::Adaptive, &run.plan);
    c.assert_written(StrategyName::Adaptive, &run.plan);
}

#[test]
fn the_same_input_gives_the_same_output() {
    let write = || {
        let c = rich().case();
        let s = c.subject();
        let run = compact(
            &s,
            &Extractive,
            &StrategySettings::default(),
            &[StrategyName::Adaptive],
            goal(c.tokens() / 3),
        )
        .unwrap();
        c.t.write(&[Some(run.plan.items)])
    };
    assert_eq!(write(), write());
}

// ----- properties of every strategy -----

#[test]
fn every_strategy_keeps_preserved_items_and_pairs() {
    let c = rich().case();
    let s = c.subject();
    let preserved: Vec<usize> = (0..s.holds.len())
        .filter(|&i| matches!(s.holds[i], Hold::Preserved(_)))
        .collect();
    assert_eq!(preserved, RICH_PRESERVED);
    for name in StrategyName::ALL {
        // `apply` checks pairing, preservation, tokens and the written output.
        let plan = c.apply(name);
        for &i in &RICH_PRESERVED {
            assert!(plan.items.contains(&OutItem::Keep(i)), "{name}: {i}");
        }
        // Fewer than 20 turns: one chunk, nothing for incremental; no payloads to strip;
        // nothing is repeated for dedup; drop-stored never changes the context.
        if !matches!(
            name,
            StrategyName::StripPayloads
                | StrategyName::Incremental
                | StrategyName::Dedup
                | StrategyName::DropStored
        ) {
            assert!(plan.tokens(&s) < c.tokens(), "{name} changed nothing");
        }
    }
}

/// A Claude Code session: 0 the task; each of 8 rounds is a response split over a text
/// record and a `tool_use` record (one `message.id`), then the result with its
/// `toolUseResult` copy; 25 latest user, 26 answer.
fn session() -> Case {
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Port the module to Rust."}}),
    )];
    let mut parent = "u0".to_string();
    for k in 1..=8 {
        let message = |block: Value| json!({"message": {"id": format!("msg_{k}"), "role": "assistant", "content": [block]}});
        let (text, call, result) = (format!("t{k}"), format!("c{k}"), format!("r{k}"));
        let tool = format!("toolu_{k}");
        let path = format!("/repo/src/m{k}.py");
        lines.push(record(
            &text,
            Some(&parent),
            "assistant",
            message(json!({"type": "text", "text": format!("Reading part {k}.")})),
        ));
        lines.push(record(
            &call,
            Some(&text),
            "assistant",
            message(json!({"type": "tool_use", "id": tool, "name": "Read",
                "input": {"file_path": path}})),
        ));
        lines.push(record(
            &result,
            Some(&call),
            "user",
            json!({"message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool, "content": bulky(k)}]},
                "toolUseResult": {"file": {"filePath": path}}}),
        ));
        parent = result;
    }
    lines.push(record(
        "u9",
        Some(&parent),
        "user",
        json!({"message": {"role": "user", "content": "Which part is largest?"}}),
    ));
    lines.push(record(
        "a9",
        Some("u9"),
        "assistant",
        json!({"message": {"id": "msg_9", "role": "assistant",
            "content": [{"type": "text", "text": "Part 3."}]}}),
    ));
    Case::new(&(lines.join("\n") + "\n"))
}

#[test]
fn every_strategy_keeps_claude_code_messages_whole_and_chains_linked() {
    let c = session();
    assert_eq!(
        c.subject().groups[1],
        1..4,
        "text, call and result are one group"
    );
    for name in StrategyName::ALL {
        // `apply` checks that no message or call is split and that the written session
        // passes `check`, whose Claude Code rules include resolving every `parentUuid`.
        let plan = c.apply(name);
        assert!(plan.tokens(&c.subject()) <= c.tokens(), "{name}");
    }
    // A split response is one assistant message: the window holds rounds 6-8 (3 results,
    // 3 responses), the latest user message and the answer; round 5 would be a 5th result.
    assert_eq!(
        shape(&c.apply(StrategyName::SlidingWindow)),
        format!("0 S1-15 {}", kept(16, 26))
    );
    // Only the copies go: the model sees the same.
    let stripped = c.apply(StrategyName::StripPayloads);
    assert_eq!(stripped.tokens(&c.subject()), c.tokens());
    assert_eq!(
        shape(&stripped),
        "0 1 2 P3 4 5 P6 7 8 P9 10 11 P12 13 14 P15 16 17 P18 19 20 P21 22 23 P24 25 26"
    );
}

#[test]
fn with_strict_alternation_summaries_stand_where_a_human_turn_was() {
    // 0 task, 1-4 reads, 5 gpt, 6 human, 7-10 reads, 11 gpt, 12 human, 13 gpt, 14 human,
    // 15-18 reads, 19 gpt, 20 pin, 21 gpt, 22 latest human, 23-24 read, 25 gpt.
    let c = ShareGpt::default()
        .human("Summarize the docs folder.")
        .reads(2)
        .gpt("Read two docs.")
        .human("Now the guides.")
        .reads(2)
        .gpt("Read the guides.")
        .human("And the FAQ?")
        .gpt("It is short.")
        .human("Check the changelog too.")
        .reads(2)
        .gpt("Changelog read.")
        .human("<Pin>Mention the license.</Pin>")
        .gpt("Will do.")
        .human("Write the summary.")
        .reads(1)
        .gpt("Here it is.")
        .case();
    assert!(c.subject().strict_alternation);
    let mut summarized = false;
    for name in StrategyName::ALL {
        let plan = c.apply(name);
        let out = c.assert_written(name, &plan);
        let items = &out.conversations[0].items;
        for (at, item) in items.iter().enumerate() {
            if item.kind != Kind::Summary {
                continue;
            }
            summarized = true;
            let side = |i: usize| side_of(&items[i]);
            assert!(
                at == 0 || side(at - 1) == Side::Assistant,
                "{name}: {}",
                shape(&plan)
            );
            assert_eq!(side(at + 1), Side::Assistant, "{name}: {}", shape(&plan));
        }
        for out in &plan.items {
            if let OutItem::Summary { replaces, .. } = out {
                let first = &c.t.conversations[0].items[replaces.start];
                assert_eq!(side_of(first), Side::User, "{name}: {}", shape(&plan));
            }
        }
    }
    assert!(summarized, "no strategy summarized anything");
    assert_eq!(
        shape(&c.apply(StrategyName::FullSummary)),
        // Nothing before the first human turn after the task can be replaced by a summary
        // (it would follow the task); 19 stays to answer the summary before the pin.
        "0 1 2 3 4 5 S6-18 19 20 21 22 23 24 25"
    );
}

/// Whether a summary's artifact index names `path`.
fn indexes(summary: &str, path: &str) -> bool {
    crate::summarizer::artifacts::unfold(summary)
        .iter()
        .any(|p| p == path)
}
