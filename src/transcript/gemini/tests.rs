use super::super::testing::{fixture, read_str};
use super::super::{Format, check};
use super::*;

fn keep_all(t: &Transcript) -> Vec<Option<Vec<OutItem>>> {
    let n = t.conversations[0].items.len();
    vec![Some((0..n).map(OutItem::Keep).collect())]
}

fn sent_texts(t: &Transcript) -> Vec<String> {
    let conv = &t.conversations[0];
    conv.items
        .iter()
        .filter(|i| i.in_context)
        .map(|i| i.text())
        .collect()
}

#[test]
fn detects_gemini_sessions_and_nothing_else() {
    for name in ["gemini/resumed.jsonl", "gemini/legacy.json"] {
        assert_eq!(read_str(&fixture(name)).format, Format::Gemini, "{name}");
    }
    for name in ["pi/session.jsonl", "codex/session.jsonl", "claude-code/unanswered-call.jsonl"] {
        assert_ne!(read_str(&fixture(name)).format, Format::Gemini, "{name}");
    }
}

#[test]
fn sends_the_latest_checkpoint_and_the_last_copy_of_each_message() {
    let t = read_str(&fixture("gemini/resumed.jsonl"));
    let conv = &t.conversations[0];
    let sent = sent_texts(&t);
    // Five prompts, each answered; the session context of the checkpoints is not sent.
    assert_eq!(sent.first().map(String::as_str), Some("Inspect this project and tell me what is in it. run: ls -la"));
    assert!(sent.last().unwrap().starts_with("Understood: Thanks."));
    assert!(sent.iter().all(|s| !s.starts_with("<session_context>")));
    let prompts = sent.iter().filter(|s| s.contains("run: ")).count();
    assert_eq!(prompts, 4, "{sent:#?}");
    // Everything before the latest checkpoint (line 54) is history the client no longer reads.
    for item in conv.items.iter().filter(|i| i.line < 54) {
        assert!(!item.in_context, "line {}", item.line);
    }
    assert!(conv.items.iter().any(|i| i.line == 54 && i.anchor));
    let usage = conv.items.iter().rev().find_map(|i| i.usage.as_deref().copied()).unwrap();
    assert!(usage.input_tokens > 0);
    assert_eq!(conv.model.as_deref(), Some("gemini-2.5-flash"));
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    assert_eq!(t.write(&keep_all(&t)), t.source);
}

#[test]
fn calls_pair_with_the_results_their_record_keeps() {
    let t = read_str(&fixture("gemini/resumed.jsonl"));
    let conv = &t.conversations[0];
    let calls: Vec<&Item> = conv.items.iter().filter(|i| i.in_context && !i.calls.is_empty()).collect();
    assert_eq!(calls.len(), 4);
    for call in calls {
        let id = &call.calls[0].id;
        let answers = conv.items.iter().filter(|i| i.in_context && i.results.contains(id)).count();
        assert_eq!(answers, 1, "{id}");
    }
}

/// The indices of a summary over the in-context items from the second prompt to the one
/// before the last prompt: the conversation's middle.
fn middle(conv: &Conversation) -> std::ops::Range<usize> {
    let prompts: Vec<usize> = (0..conv.items.len())
        .filter(|&i| conv.items[i].in_context && conv.items[i].kind == Kind::User)
        .collect();
    prompts[1]..prompts[prompts.len() - 1]
}

#[test]
fn a_summary_inside_the_checkpoint_is_written_back_into_its_line() {
    let t = read_str(&fixture("gemini/resumed.jsonl"));
    let conv = &t.conversations[0];
    let range = middle(conv);
    let mut out: Vec<OutItem> = (0..range.start).map(OutItem::Keep).collect();
    out.push(OutItem::Summary {
        text: "the middle of the work".into(),
        replaces: range.clone(),
    });
    out.extend((range.end..conv.items.len()).map(OutItem::Keep));
    let written = t.write(&[Some(out)]);
    let back = read_str(&written);
    let sent = sent_texts(&back);
    assert!(sent.iter().any(|s| s.starts_with(SUMMARY_MARKER)), "{sent:#?}");
    assert!(!sent.iter().any(|s| s.contains("wc -l")), "{sent:#?}");
    assert!(check(&back).is_empty(), "{:?}", check(&back));
    // Lines the summary is not in are written byte for byte.
    let kept: Vec<&str> = t.source.lines().filter(|l| !l.contains("$set\":{\"messages")).collect();
    let now: Vec<&str> = written.lines().collect();
    assert!(kept.iter().all(|l| now.contains(l)));
    assert_eq!(written.lines().count(), t.source.lines().count());
}

#[test]
fn a_masked_result_is_stored_as_the_client_stores_one() {
    let t = read_str(&fixture("gemini/resumed.jsonl"));
    let conv = &t.conversations[0];
    let mut out: Vec<OutItem> = (0..conv.items.len()).map(OutItem::Keep).collect();
    let last = (0..conv.items.len())
        .rev()
        .find(|&i| conv.items[i].in_context && !conv.items[i].results.is_empty())
        .unwrap();
    out[last] = OutItem::ReplaceResult(last, "[output masked]".into());
    let back = read_str(&t.write(&[Some(out)]));
    let conv = &back.conversations[0];
    let masked = conv.items.iter().filter(|i| i.in_context && i.text() == "[output masked]");
    assert_eq!(masked.count(), 1);
    assert!(check(&back).is_empty(), "{:?}", check(&back));
}

#[test]
fn the_older_whole_file_record_reads_and_writes_back() {
    let t = read_str(&fixture("gemini/legacy.json"));
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    assert_eq!(t.write(&keep_all(&t)), t.source);
    let conv = &t.conversations[0];
    assert!(conv.items.iter().any(|i| !i.calls.is_empty()));
    let range = middle(conv);
    let mut out: Vec<OutItem> = (0..range.start).map(OutItem::Keep).collect();
    out.push(OutItem::Summary {
        text: "done so far".into(),
        replaces: range.clone(),
    });
    out.extend((range.end..conv.items.len()).map(OutItem::Keep));
    let back = read_str(&t.write(&[Some(out)]));
    assert_eq!(back.format, Format::Gemini);
    assert!(sent_texts(&back).iter().any(|s| s.starts_with(SUMMARY_MARKER)));
    assert!(check(&back).is_empty(), "{:?}", check(&back));
}

#[test]
fn a_stale_copy_and_a_rewound_message_are_not_sent() {
    let text = concat!(
        r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}"#,
        "\n",
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"first"}]}"#,
        "\n",
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"draft"}"#,
        "\n",
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"answer"}"#,
        "\n",
        r#"{"id":"u2","timestamp":"t","type":"user","content":[{"text":"second"}]}"#,
        "\n",
        r#"{"$rewindTo":"u2"}"#,
        "\n",
        r#"{"id":"u3","timestamp":"t","type":"user","content":[{"text":"/help"}]}"#,
        "\n",
    );
    let t = read_str(text);
    assert_eq!(t.format, Format::Gemini);
    assert_eq!(sent_texts(&t), ["first", "answer"]);
    let conv = &t.conversations[0];
    // The rewind's target stays: without it the client would clear the whole history.
    assert!(conv.items[4].anchor);
    // The draft goes with its message (one message id).
    assert_eq!(conv.items[2].message_id, conv.items[3].message_id);
}
