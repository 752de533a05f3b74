//! Each client format's repair steps, run whole through [`repair`] (the steps themselves live
//! in the adapters' folders, `src/transcript/<format>/repair.rs`).

use super::{Options, Repaired, oversize::Fit, repair};
use crate::transcript::{Format, ReadOptions, read};

fn options() -> Options {
    Options {
        read: Default::default(),
        max_session_bytes: u64::MAX,
        fit: Fit::default(),
    }
}

fn fixture(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel);
    std::fs::read_to_string(path).unwrap()
}

/// `text` repaired by one repair that leaves nothing to find, and its output's records.
fn repaired_once(text: &str) -> (Repaired, Vec<serde_json::Value>) {
    let r = repair(text, &options()).unwrap();
    assert_eq!(r.repairs.len(), 1, "{:?}", r.repairs);
    assert!(r.remaining.is_empty(), "{:?}", r.remaining);
    let lines = r
        .output
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (r, lines)
}

#[test]
fn event_copies_go_with_their_replayed_history_and_other_repeats_stay() {
    let meta = r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"s","instructions":""}}"#;
    let user = r#"{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#;
    let said =
        r#"{"timestamp":"t1","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#;
    let tokens =
        r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
    let reply = r#"{"timestamp":"t3","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}"#;
    // A token count reported twice (kept), then the user turn replayed with its event.
    let lines = [meta, user, said, tokens, tokens, reply, user, said];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let r = repair(&text, &options()).unwrap();
    let kept: String = lines[..6].iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(r.output, kept, "{:?}", r.repairs);
    assert_eq!(r.repairs.len(), 1, "{:?}", r.repairs);
    assert_eq!(r.repairs[0].lines(), "7-8");
}

#[test]
fn an_unanswered_call_gets_pis_result_and_the_chain_stays_whole() {
    let text = fixture("pi/compacted.jsonl");
    let (r, lines) = repaired_once(&text);
    let added = &lines[8];
    assert_eq!(added["parentId"], "b0000007");
    assert_eq!(added["message"]["toolCallId"], "toolu_11");
    assert_eq!(added["message"]["content"][0]["text"], "No result provided");
    assert_eq!(added["message"]["isError"], true);
    // The aborted reply now hangs under the result; the last prompt is still the leaf.
    assert_eq!(lines[9]["parentId"], added["id"]);
    let t = read(r.output.clone(), &ReadOptions::default()).unwrap();
    let conv = &t.conversations[0];
    assert!(conv.items.last().unwrap().in_context);
    assert!(
        conv.items[8].in_context,
        "the result is on the resumed path"
    );
    // Every other line is the input's.
    let input: Vec<&str> = text.lines().collect();
    let output: Vec<&str> = r.output.lines().collect();
    assert_eq!(output[..8], input[..8]);
    assert_eq!(output[10..], input[9..]);
}

#[test]
fn an_unanswered_call_gets_the_clients_orphan_response_and_the_chain_stays_whole() {
    let text = fixture("qwen/unanswered.jsonl");
    let (r, lines) = repaired_once(&text);
    assert_eq!(lines[4]["type"], "tool_result");
    assert_eq!(lines[4]["parentUuid"], lines[3]["uuid"]);
    assert_eq!(
        lines[5]["parentUuid"], lines[4]["uuid"],
        "the next prompt hangs under the result"
    );
    let response = &lines[4]["message"]["parts"][0]["functionResponse"];
    assert_eq!(
        response["id"],
        lines[3]["message"]["parts"][0]["functionCall"]["id"]
    );
    assert!(
        response["response"]["error"]
            .as_str()
            .unwrap()
            .starts_with("Tool execution result was not recorded")
    );
    let t = read(r.output.clone(), &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::Qwen);
    assert!(crate::transcript::check(&t).is_empty());
}
