use super::super::testing::{fixture, read_str};
use super::super::{Format, check};
use super::*;

fn keep_all(t: &Transcript) -> Vec<Option<Vec<OutItem>>> {
    let n = t.conversations[0].items.len();
    vec![Some((0..n).map(OutItem::Keep).collect())]
}

fn lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn detects_qwen_sessions_and_nothing_else() {
    for name in ["qwen/resumed.jsonl", "qwen/compressed.jsonl", "qwen/unanswered.jsonl"] {
        assert_eq!(read_str(&fixture(name)).format, Format::Qwen, "{name}");
    }
    for name in ["claude-code/unanswered-call.jsonl", "pi/session.jsonl", "gemini/resumed.jsonl"] {
        assert_ne!(read_str(&fixture(name)).format, Format::Qwen, "{name}");
    }
}

#[test]
fn reads_the_chain_pairs_calls_and_usage_and_writes_back_byte_for_byte() {
    let t = read_str(&fixture("qwen/resumed.jsonl"));
    let conv = &t.conversations[0];
    let sent: Vec<usize> = (0..conv.items.len())
        .filter(|&i| conv.items[i].in_context)
        .collect();
    // Prompts, calls, results and answers; telemetry and snapshots are never sent.
    assert_eq!(sent, [0, 3, 5, 7, 8, 11, 13, 15, 16, 19]);
    assert_eq!(conv.items[3].kind, Kind::ToolCall);
    assert_eq!(conv.items[3].calls[0].name, "run_shell_command");
    assert_eq!(conv.items[5].results, [conv.items[3].calls[0].id.clone()]);
    assert!(conv.items[0].anchor, "the first record names the session");
    assert!(conv.items[2].disposable, "telemetry is not needed to resume");
    let usage = conv.items[3].usage.as_deref().copied().unwrap();
    assert!(usage.input_tokens > 9000, "{usage:?}");
    assert_eq!(conv.context_window, Some(262_144));
    assert_eq!(conv.model.as_deref(), Some("qwen-standin"));
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    assert_eq!(t.write(&keep_all(&t)), t.source);
}

#[test]
fn history_before_the_clients_compression_is_not_sent() {
    let t = read_str(&fixture("qwen/compressed.jsonl"));
    let conv = &t.conversations[0];
    let c = conv
        .items
        .iter()
        .position(|i| i.kind == Kind::Summary)
        .unwrap();
    assert_eq!(c, 33, "line 34 is the compression");
    assert!(conv.items[c].anchor && conv.items[c].in_context && !conv.items[c].ctxc_summary);
    assert!(conv.items[c].prose().contains("<state_snapshot>"));
    assert!(conv.items[..c].iter().all(|i| !i.in_context));
    assert!(conv.items[0].stale_history && conv.items[3].stale_history);
    assert!(conv.items[34].in_context, "the prompt after it is sent");
    assert_eq!(t.write(&keep_all(&t)), t.source);
}

#[test]
fn dropped_records_are_unlinked_and_a_leading_summary_is_a_compression() {
    let t = read_str(&fixture("qwen/resumed.jsonl"));
    let n = t.conversations[0].items.len();
    // Keep the first prompt, summarize its turn, drop the telemetry of the rest.
    let mut out = vec![OutItem::Keep(0), OutItem::Summary { text: "ran cat".into(), replaces: 1..8 }];
    out.extend((8..n).filter(|&i| !t.conversations[0].items[i].disposable).map(OutItem::Keep));
    let written = t.write(&[Some(out)]);
    let records = lines(&written);
    let back = read_str(&written);
    assert_eq!(back.format, Format::Qwen);
    assert!(check(&back).is_empty(), "{:?}", check(&back));
    // The summary follows a sent prompt, so it is a user message in the chain.
    assert_eq!(records[1]["type"], "user");
    assert_eq!(records[1]["parentUuid"], records[0]["uuid"]);
    assert_eq!(records[2]["parentUuid"], records[1]["uuid"]);
    for pair in records.windows(2).skip(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"], "{}", pair[1]);
    }
    let sent = back.conversations[0].items.iter().filter(|i| i.in_context).count();
    assert_eq!(sent, back.conversations[0].items.len() - 2, "all but the two snapshots");

    // A summary in front of everything sent is the client's own compression record.
    let out: Vec<OutItem> = [OutItem::Summary { text: "earlier work".into(), replaces: 0..16 }]
        .into_iter()
        .chain((16..n).map(OutItem::Keep))
        .collect();
    let t2 = read_str(&t.write(&[Some(out)]));
    let conv = &t2.conversations[0];
    let first = &lines(&t2.source)[0];
    assert_eq!(first["subtype"], "chat_compression");
    assert_eq!(first["parentUuid"], Value::Null);
    assert!(conv.items[0].ctxc_summary && conv.items[0].in_context);
    assert!(check(&t2).is_empty(), "{:?}", check(&t2));
}
