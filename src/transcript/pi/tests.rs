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
fn detects_pi_sessions_of_every_version_and_nothing_else() {
    for name in ["pi/session.jsonl", "pi/compacted.jsonl", "pi/v1-head.jsonl"] {
        assert_eq!(read_str(&fixture(name)).format, Format::Pi, "{name}");
    }
    for name in ["codex/session.jsonl", "claude-code/unanswered-call.jsonl"] {
        assert_ne!(read_str(&fixture(name)).format, Format::Pi, "{name}");
    }
}

#[test]
fn sends_the_resumed_branch_only_and_pairs_its_calls() {
    let t = read_str(&fixture("pi/session.jsonl"));
    let conv = &t.conversations[0];
    let sent: Vec<usize> = (0..conv.items.len())
        .filter(|&i| conv.items[i].in_context)
        .collect();
    // The abandoned branch (lines 9-11) is not sent; its summary (line 12) is.
    assert_eq!(sent, [3, 4, 5, 6, 7, 11, 12, 13, 14, 15]);
    assert_eq!(conv.items[11].kind, Kind::Summary);
    assert_eq!(conv.items[4].calls[0].id, "toolu_01");
    assert_eq!(conv.items[5].results, ["toolu_01"]);
    assert_eq!(conv.model.as_deref(), Some("claude-sonnet-4-5"));
    let usage = conv.items[6].usage.as_deref().copied().unwrap();
    assert_eq!((usage.input_tokens, usage.cache_read_input_tokens), (60, 2200));
    assert!(conv.items[3].anchor, "the first prompt titles the session");
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    assert_eq!(t.write(&keep_all(&t)), t.source);
}

#[test]
fn history_before_the_first_kept_entry_is_not_sent() {
    let t = read_str(&fixture("pi/compacted.jsonl"));
    let conv = &t.conversations[0];
    let sent: Vec<bool> = conv.items.iter().map(|i| i.in_context).collect();
    assert_eq!(sent, [false, false, false, true, true, true, true, true, false, true]);
    assert!(conv.items[1].stale_history && conv.items[2].stale_history);
    assert_eq!(conv.items[5].kind, Kind::Summary);
    // The aborted reply is never replayed, so the call before it is left unanswered.
    let found: Vec<String> = check(&t).iter().map(|f| f.to_string()).collect();
    assert!(found.iter().any(|f| f.contains("toolu_11")), "{found:?}");
}

#[test]
fn a_summary_is_a_compaction_entry_pi_reads_back() {
    let t = read_str(&fixture("pi/session.jsonl"));
    // Keep the header, the settings and the first prompt; summarize the first turn's work.
    let mut plan: Vec<OutItem> = (0..4).map(OutItem::Keep).collect();
    plan.push(OutItem::Summary {
        text: "Fixed parse in src/parser.rs.".into(),
        replaces: 4..8,
    });
    plan.extend((8..18).map(OutItem::Keep));
    let out = t.write(&[Some(plan)]);
    let records = lines(&out);
    let summary = &records[4];
    assert_eq!(summary["type"], "compaction");
    assert_eq!(summary["parentId"], "a0000003");
    assert_eq!(summary["firstKeptEntryId"], "a0000003");
    assert_eq!(summary["timestamp"], "2026-01-05T10:00:03.000Z");
    let id = summary["id"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    // The next prompt hangs under the summary; the branch summary under it too (its parent
    // a0000007 went), every other record is written as it was.
    assert_eq!(records[5]["parentId"], id);
    assert_eq!(records[8]["parentId"], id);
    for (k, line) in out.lines().enumerate().filter(|(k, _)| ![4, 5, 8].contains(k)) {
        let i = if k < 4 { k } else { k + 3 };
        assert_eq!(line, t.raw(0, i), "line {k}");
    }
    let again = read_str(&out);
    assert_eq!(again.format, Format::Pi);
    let conv = &again.conversations[0];
    assert!(conv.items[4].ctxc_summary && conv.items[4].in_context);
    assert!(conv.items[3].in_context, "the first prompt is still sent");
    assert!(check(&again).is_empty(), "{:?}", check(&again));
}

#[test]
fn a_kept_compaction_stays_the_one_pi_honours() {
    let t = read_str(&fixture("pi/compacted.jsonl"));
    let mut plan: Vec<OutItem> = (0..6).map(OutItem::Keep).collect();
    plan.push(OutItem::Summary {
        text: "Asked for a test.".into(),
        replaces: 6..7,
    });
    plan.extend((7..10).map(OutItem::Keep));
    let out = t.write(&[Some(plan)]);
    let records = lines(&out);
    assert_eq!(records[6]["type"], "custom_message");
    assert_eq!(records[6]["customType"], CTXC_CUSTOM_TYPE);
    assert_eq!(records[6]["parentId"], "b0000005");
    assert_eq!(records[7]["parentId"], records[6]["id"]);
    let again = read_str(&out);
    assert!(again.conversations[0].items[6].ctxc_summary);
    assert!(again.conversations[0].items[6].in_context);
}

#[test]
fn version_1_sessions_get_a_version_1_compaction() {
    let t = read_str(&fixture("pi/v1-head.jsonl"));
    let conv = &t.conversations[0];
    assert!(!conv.items[2].in_context, "the aborted reply is not sent");
    assert!(conv.items[5].calls.len() == 3 && conv.items[6].results.len() == 1);
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    let mut plan: Vec<OutItem> = (0..5).map(OutItem::Keep).collect();
    plan.push(OutItem::Summary {
        text: "Read the sources.".into(),
        replaces: 5..17,
    });
    plan.extend((17..25).map(OutItem::Keep));
    let out = t.write(&[Some(plan)]);
    let records = lines(&out);
    assert_eq!(records[5]["type"], "compaction");
    assert_eq!(records[5]["firstKeptEntryIndex"], 1);
    assert!(records[5].get("id").is_none());
    let again = read_str(&out);
    let conv = &again.conversations[0];
    assert!(conv.items[5].ctxc_summary && conv.items[5].in_context);
    assert!(conv.items[1].in_context, "the first prompt is still sent");
}

#[test]
fn replacements_change_only_their_member() {
    let t = read_str(&fixture("pi/session.jsonl"));
    let mut plan: Vec<OutItem> = (0..18).map(OutItem::Keep).collect();
    plan[5] = OutItem::ReplaceResult(5, "[elided]".into());
    plan[6] = OutItem::ReplaceText(6, "short".into());
    let out = t.write(&[Some(plan)]);
    let again = read_str(&out);
    let conv = &again.conversations[0];
    assert_eq!(conv.items[5].text(), "[elided]");
    assert_eq!(conv.items[5].results, ["toolu_01"]);
    assert_eq!(conv.items[6].prose(), "short");
    assert_eq!(conv.items[6].calls[0].id, "toolu_02", "the call stays");
    assert!(check(&again).is_empty());
}

#[test]
fn broken_links_are_found() {
    let src = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":"zz","timestamp":"t","message":{"role":"user","content":"again"}}"#,
        "\n",
    );
    let found: Vec<String> = check(&read_str(src)).iter().map(|f| f.to_string()).collect();
    assert!(found.iter().any(|f| f.starts_with("3: entry id 'a' repeats")), "{found:?}");
    assert!(found.iter().any(|f| f.starts_with("3: parentId 'zz' names no entry")), "{found:?}");
}

#[test]
fn a_calls_arguments_are_rewritten_in_place_and_stay_an_object() {
    let t = read_str(&fixture("pi/session.jsonl"));
    let n = t.conversations[0].items.len();
    let mut plan: Vec<OutItem> = (0..n).map(OutItem::Keep).collect();
    let cut = r#"{"path":"src/parser.rs","cut":"[ctxc: cut]"}"#;
    plan[4] = OutItem::ReplaceArguments(
        4,
        vec![crate::transcript::CallEdit {
            call: 0,
            arguments: cut.into(),
        }],
    );
    let out = t.write(&[Some(plan)]);
    let (before, after) = (lines(&t.source), lines(&out));
    assert_eq!(before.len(), after.len());
    let call = &after[4]["message"]["content"][1];
    assert_eq!(call["type"], "toolCall");
    assert_eq!(call["arguments"], serde_json::from_str::<Value>(cut).unwrap());
    // Everything else of the record, and every other record, is as it was.
    assert_eq!(after[4]["message"]["content"][0], before[4]["message"]["content"][0]);
    assert_eq!(after[4]["id"], before[4]["id"]);
    let (o, s): (Vec<&str>, Vec<&str>) = (out.lines().collect(), t.source.lines().collect());
    for k in (0..s.len()).filter(|&k| k != 4) {
        assert_eq!(o[k], s[k], "line {}", k + 1);
    }
}
