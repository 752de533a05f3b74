use crate::human::Shown;
use super::*;
use crate::transcript::{Format, check, read};
use std::path::Path;

const TOOL_HEAVY: &str = "spotter/tool_heavy.jsonl";
const LONG_SESSION: &str = "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

fn text_of(path: impl AsRef<Path>) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.shown()))
}

fn fixture(name: &str) -> String {
    text_of(format!("fixtures/claude-code/{name}"))
}

fn corpus(rel: &str) -> String {
    text_of(format!("../shared/corpus/claude-code/{rel}"))
}

fn load(src: String) -> Transcript {
    let t = read(src, &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::ClaudeCode);
    t
}

fn findings(t: &Transcript) -> Vec<String> {
    check(t).iter().map(ToString::to_string).collect()
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn record_type(t: &Transcript, i: usize) -> Option<String> {
    value(t.raw(0, i))["type"].as_str().map(String::from)
}

/// Every non-null `parentUuid` of a JSONL text names one of its records.
fn assert_chain_resolves(out: &str) {
    let records: Vec<Value> = out.lines().map(value).collect();
    let uuids: HashSet<&str> = records.iter().filter_map(|r| r["uuid"].as_str()).collect();
    for (n, record) in records.iter().enumerate() {
        if let Some(parent) = record["parentUuid"].as_str() {
            assert!(uuids.contains(parent), "line {}: parent {parent}", n + 1);
        }
    }
}

/// The original chain: uuid → parentUuid.
fn parents(t: &Transcript) -> HashMap<String, Option<String>> {
    let conv = &t.conversations[0];
    (0..conv.items.len())
        .map(|i| value(t.raw(0, i)))
        .filter_map(|r| {
            let parent = r["parentUuid"].as_str().map(String::from);
            Some((r["uuid"].as_str()?.to_string(), parent))
        })
        .collect()
}

/// As Claude Code 2.1.330 wrote it on resume (tests/e2e), shortened: the notification of
/// a background task, kept for the transcript only; the next prompt carries it to the model.
#[test]
fn transcript_only_records_are_not_context() {
    let src = [
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"start phoenix"},"uuid":"u1","sessionId":"s"}"#,
        r#"{"parentUuid":"u1","isSidechain":false,"promptId":"p","type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>bae407b</task-id>\n<status>stopped</status>\n</task-notification>"},"uuid":"u2","origin":{"kind":"task-notification"},"promptSource":"system","queueTranscriptOnly":true,"sessionId":"s"}"#,
        r#"{"parentUuid":"u2","isSidechain":false,"type":"user","message":{"role":"user","content":"continue"},"uuid":"u3","sessionId":"s"}"#,
    ]
    .join("\n")
        + "\n";
    let t = load(src.clone());
    let items = &t.conversations[0].items;
    assert!(items[0].in_context && items[2].in_context);
    assert!(!items[1].in_context && items[1].kind == Kind::NonContext);
    assert!(findings(&t).is_empty(), "{:?}", findings(&t));
    assert_eq!(t.write(&[Some((0..3).map(OutItem::Keep).collect())]), src);
}

#[test]
fn removing_records_relinks_a_real_session() {
    for rel in [TOOL_HEAVY, LONG_SESSION] {
        let t = load(corpus(rel));
        assert!(findings(&t).is_empty(), "{rel}: {:?}", findings(&t));
        let groups = t.conversations[0].groups();
        let middle = &groups[groups.len() / 3..groups.len() * 2 / 3];
        let dropped: HashSet<usize> = middle.iter().flat_map(Clone::clone).collect();
        let plan: Vec<OutItem> = (0..t.conversations[0].items.len())
            .filter(|i| {
                !dropped.contains(i) && record_type(&t, *i).as_deref() != Some("progress")
            })
            .map(OutItem::Keep)
            .collect();
        let out = t.write(&[Some(plan.clone())]);
        assert_chain_resolves(&out);
        let again = load(out.clone());
        assert_eq!(again.conversations[0].items.len(), plan.len());
        assert!(findings(&again).is_empty(), "{rel}: {:?}", findings(&again));
        let mut relinked = 0;
        for (line, kept) in out.lines().zip(&plan) {
            let OutItem::Keep(i) = kept else {
                unreachable!()
            };
            let original = t.raw(0, *i);
            if line != original {
                // Only the parentUuid value may change.
                let parent = member(parse_raw(line).unwrap(), "parentUuid")
                    .unwrap()
                    .get();
                assert_eq!(
                    replace_member(original, "parentUuid", parent).as_deref(),
                    Some(line)
                );
                relinked += 1;
            }
        }
        assert!(relinked > 0, "{rel}: nothing was re-linked");
    }
}

#[test]
fn a_summary_is_linked_into_the_chain_deterministically() {
    let t = load(corpus(TOOL_HEAVY));
    let n = t.conversations[0].items.len();
    let groups = t.conversations[0].groups();
    let replaces = groups[groups.len() / 3].start..groups[groups.len() * 2 / 3].start;
    let mut plan: Vec<OutItem> = (0..replaces.start).map(OutItem::Keep).collect();
    plan.push(OutItem::Summary {
        text: "The user asked for X; files a and b were changed.".into(),
        replaces: replaces.clone(),
    });
    plan.extend((replaces.end..n).map(OutItem::Keep));
    let out = t.write(&[Some(plan.clone())]);
    assert_eq!(out, t.write(&[Some(plan)]), "two writes differ");
    assert_chain_resolves(&out);

    let again = load(out.clone());
    assert!(findings(&again).is_empty(), "{:?}", findings(&again));
    let summary = &again.conversations[0].items[replaces.start];
    assert_eq!(summary.kind, Kind::Summary);
    assert!(summary.ctxc_summary && summary.in_context);
    let record = value(again.raw(0, replaces.start));
    let uuid = record["uuid"].as_str().unwrap();
    assert_eq!((uuid.len(), &uuid[14..15]), (36, "4"));
    let first = value(t.raw(0, replaces.start));
    for key in ["sessionId", "cwd", "version", "gitBranch", "timestamp"] {
        assert_eq!(record[key], first[key], "{key}");
    }

    // The summary hangs below the nearest ancestor outside the range...
    let chain = parents(&t);
    let replaced: HashSet<String> = replaces
        .clone()
        .filter_map(|i| value(t.raw(0, i))["uuid"].as_str().map(String::from))
        .collect();
    let mut ancestor = first["parentUuid"].as_str().map(String::from);
    while let Some(a) = ancestor.clone().filter(|a| replaced.contains(a)) {
        ancestor = chain[&a].clone();
    }
    assert_eq!(record["parentUuid"].as_str(), ancestor.as_deref());
    // ...and the records that hung below the range hang below the summary.
    let mut below = 0;
    for (k, i) in (replaces.end..n).enumerate() {
        let parent = value(t.raw(0, i))["parentUuid"].as_str().map(String::from);
        if parent.is_some_and(|p| replaced.contains(&p)) {
            let now = value(again.raw(0, replaces.start + 1 + k));
            assert_eq!(now["parentUuid"].as_str(), Some(uuid));
            below += 1;
        }
    }
    assert!(below > 0);
}

#[test]
fn compacted_history_is_out_of_context() {
    let t = load(corpus(LONG_SESSION));
    let items = &t.conversations[0].items;
    let boundary = (0..items.len())
        .find(|&i| value(t.raw(0, i))["subtype"] == "compact_boundary")
        .unwrap();
    assert!(items[..boundary].iter().all(|i| !i.in_context));
    assert_eq!(items[boundary].kind, Kind::NonContext);
    let summary = &items[boundary + 1];
    assert_eq!(summary.kind, Kind::Summary);
    assert!(summary.in_context && !summary.ctxc_summary);
    assert!(
        items[boundary..]
            .iter()
            .any(|i| i.kind == Kind::ToolResult && i.in_context)
    );
    let stored: usize = items.iter().map(|i| i.stored_only_bytes).sum();
    assert!(
        stored > t.source.len() / 10,
        "toolUseResult copies: {stored}"
    );

    // Without its boundary record the history stays out of context.
    let plan = (0..items.len())
        .filter(|&i| i != boundary)
        .map(OutItem::Keep)
        .collect();
    let again = load(t.write(&[Some(plan)]));
    let items = &again.conversations[0].items;
    assert_eq!(value(again.raw(0, boundary))["parentUuid"], Value::Null);
    assert!(items[..boundary].iter().all(|i| !i.in_context));
    assert!(items[boundary].in_context);
    assert!(findings(&again).is_empty());
}

#[test]
fn links_walk_through_removed_records_to_summaries() {
    let kinds = ["user", "assistant"];
    let src: Vec<String> = (0..6)
        .map(|i| {
            let parent = if i == 0 { "null".to_string() } else { format!("\"r{}\"", i - 1) };
            let (kind, extra) = (kinds[i % 2], if i == 5 { r#","logicalParentUuid":"r1""# } else { "" });
            format!(
                r#"{{"parentUuid":{parent}{extra},"sessionId":"s","type":"{kind}","message":{{"role":"{kind}","content":"m{i}"}},"uuid":"r{i}"}}"#
            )
        })
        .collect();
    let t = load(src.join("\n"));
    let summary = |replaces| OutItem::Summary {
        text: "s".into(),
        replaces,
    };
    let parent_of = |out: &str, line: usize| {
        value(out.lines().nth(line).unwrap())["parentUuid"]
            .as_str()
            .map(String::from)
    };
    // r3 is dropped: r4 hangs below the summary standing in for r1 and r2.
    let out = t.write(&[Some(vec![
        OutItem::Keep(0),
        summary(1..3),
        OutItem::Keep(4),
        OutItem::Keep(5),
    ])]);
    let uuid = value(out.lines().nth(1).unwrap())["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(parent_of(&out, 1).as_deref(), Some("r0"));
    assert_eq!(parent_of(&out, 2), Some(uuid.clone()));
    assert_eq!(
        value(out.lines().nth(3).unwrap())["logicalParentUuid"].as_str(),
        Some(uuid.as_str())
    );
    // r1 is dropped: the summary of r2 and r3 hangs below r0.
    let out = t.write(&[Some(vec![
        OutItem::Keep(0),
        summary(2..4),
        OutItem::Keep(4),
        OutItem::Keep(5),
    ])]);
    assert_eq!(parent_of(&out, 1).as_deref(), Some("r0"));
    assert_eq!(
        value(out.lines().nth(3).unwrap())["logicalParentUuid"].as_str(),
        Some("r0")
    );
    // The root is dropped: its child becomes the root.
    let out = t.write(&[Some(vec![OutItem::Keep(1), OutItem::Keep(2)])]);
    assert_eq!(parent_of(&out, 0), None);
    assert_eq!(out.lines().nth(1), Some(src[2].as_str()));
}

#[test]
fn split_assistant_records_group_and_count_usage_once() {
    let line = |uuid: &str, parent: &str, rest: &str| {
        format!(r#"{{"parentUuid":"{parent}","sessionId":"s","type":{rest},"uuid":"{uuid}"}}"#)
    };
    let usage = |out: u64| format!(r#""usage":{{"input_tokens":3,"output_tokens":{out}}}"#);
    let call = |id: &str| {
        format!(
            r#"{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"/a"}}}}"#
        )
    };
    let result = |id: &str| {
        format!(
            r#""user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"text"}}]}},"toolUseResult":{{"file":"a"}}"#
        )
    };
    let assistant = |id: &str, block: &str, out: u64| {
        format!(
            r#""assistant","message":{{"id":"{id}","role":"assistant","content":[{block}],{}}}"#,
            usage(out)
        )
    };
    let src = [
        r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"go"},"uuid":"u1"}"#.to_string(),
        line("a1", "u1", &assistant("msg_A", r#"{"type":"text","text":"Reading."}"#, 5)),
        line("a2", "a1", &assistant("msg_A", &call("t1"), 9)),
        line("r1", "a2", &result("t1")),
        line("a3", "r1", &assistant("msg_A", &call("t2"), 12)),
        line("r2", "a3", &result("t2")),
        line("a4", "r2", &assistant("msg_B", r#"{"type":"text","text":"Done."}"#, 2)),
    ]
    .join("\n");
    let t = load(src);
    let conv = &t.conversations[0];
    assert_eq!(conv.groups(), vec![0..1, 1..6, 6..7]);
    let usages: Vec<Option<u64>> = conv
        .items
        .iter()
        .map(|i| i.usage.as_ref().map(|u| u.output_tokens))
        .collect();
    assert_eq!(usages, [None, Some(12), None, None, None, None, Some(2)]);
    let kinds: Vec<Kind> = conv.items.iter().map(|i| i.kind).collect();
    use Kind::*;
    assert_eq!(
        kinds,
        [
            User,
            AssistantText,
            ToolCall,
            ToolResult,
            ToolCall,
            ToolResult,
            AssistantText
        ]
    );
    assert_eq!(conv.items[3].stored_only_bytes, r#"{"file":"a"}"#.len());
    assert_eq!(conv.items[2].parts[1].text, r#"{"file_path":"/a"}"#);
    assert!(findings(&t).is_empty());
}

#[test]
fn fixtures_give_their_findings() {
    for (name, want) in [
        (
            "dangling-parent.jsonl",
            "3: parentUuid 'missing-0000' names no record in this file",
        ),
        (
            "orphan-result.jsonl",
            "2: tool result for call 'toolu_missing' has no earlier tool call",
        ),
        (
            "unanswered-call.jsonl",
            "2: tool call 'toolu_ls' (Bash) is never answered, yet the conversation goes on",
        ),
    ] {
        assert_eq!(findings(&load(fixture(name))), [want], "{name}");
    }
}

#[test]
fn a_repeated_uuid_is_a_finding_that_blocks_edits_once_a_link_names_it() {
    let record = |parent: &str, uuid: &str| {
        format!(
            r#"{{"parentUuid":{parent},"type":"user","sessionId":"s","message":{{"role":"user","content":"m"}},"uuid":"{uuid}"}}"#
        )
    };
    let named = [
        record("null", "u1"),
        record("\"u1\"", "u2"),
        record("\"u2\"", "u1"),
    ]
    .join("\n");
    let found = check(&load(named));
    let want = "3: uuid 'u1' appears again (first at line 1): the chain cannot be followed";
    assert_eq!(
        found.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [want]
    );
    // u1 is named (by line 2), so the repeat blocks edits; a repeated uuid no link names
    // does not.
    assert!(found[0].blocks_edits);
    // Named only by a title's leafUuid, which nothing walks: no block either.
    let title = r#"{"type":"summary","summary":"t","leafUuid":"u1"}"#;
    let unnamed = [record("null", "u1"), record("null", "u1"), title.into()].join("\n");
    let found = check(&load(unnamed));
    assert_eq!(found.len(), 1);
    assert!(!found[0].blocks_edits);
}

#[test]
fn a_file_may_begin_mid_chain() {
    // Like a compaction agent's file: opening records hang off the parent session, and a
    // result answers a call stored there.
    let src = r#"{"parentUuid":"outside-1","type":"user","sessionId":"s","message":{"role":"user","content":"reminder"},"uuid":"u1"}
{"parentUuid":"outside-2","type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]},"uuid":"u2"}
{"parentUuid":"u2","type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"fine"}]},"uuid":"a1"}
"#;
    let t = load(src.to_string());
    assert!(findings(&t).is_empty(), "{:?}", findings(&t));
    assert_eq!(t.conversations[0].items[1].kind, Kind::ToolResult);
    // Once the chain is inside the file, an outside parent is a broken link.
    let t = load(format!(
        "{src}{}\n",
        r#"{"parentUuid":"outside-3","type":"user","sessionId":"s","message":{"role":"user","content":"x"},"uuid":"u3"}"#
    ));
    assert_eq!(
        findings(&t),
        ["4: parentUuid 'outside-3' names no record in this file"]
    );
}

#[test]
fn loglines_export_is_detected_and_relinked() {
    let src = fixture("loglines.json");
    let t = load(src.clone());
    assert_eq!(t.container, "json /loglines");
    assert_eq!(t.conversations[0].items.len(), 4);
    assert_eq!(t.conversations[0].items[2].results, ["toolu_ls"]);
    assert!(findings(&t).is_empty());
    assert_eq!(t.write(&[None]), src);
    let all = (0..4).map(OutItem::Keep).collect();
    assert_eq!(t.write(&[Some(all)]), src);

    let out = t.write(&[Some(vec![
        OutItem::Keep(0),
        OutItem::Summary {
            text: "listed the files".into(),
            replaces: 1..3,
        },
        OutItem::Keep(3),
    ])]);
    // Written in the document's pretty style, not as one compact line.
    assert!(out.contains("\"parentUuid\": \"u-0001\",\n"), "{out}");
    let again = load(out.clone());
    assert!(findings(&again).is_empty());
    let lines = &value(&out)["loglines"];
    assert_eq!(lines[2]["parentUuid"], lines[1]["uuid"]);
    assert_eq!(again.conversations[0].items[1].kind, Kind::Summary);
}

#[test]
fn replacing_a_result_or_text_keeps_everything_else() {
    let t = load(corpus(TOOL_HEAVY));
    let items = &t.conversations[0].items;
    let i = (0..items.len())
        .find(|&i| items[i].stored_only_bytes > 0)
        .unwrap();
    let out = ClaudeCode.render(
        &t,
        &t.conversations[0],
        &OutItem::ReplaceResult(i, "[masked]".into()),
    );
    let (mut before, after) = (value(t.raw(0, i)), value(&out));
    before["message"]["content"][0]["content"] = "[masked]".into();
    before["toolUseResult"] = "[masked]".into();
    assert_eq!(before, after);

    let record = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}, {"type":"tool_use","id":"t","name":"x","input":{}}, {"type":"text","text":"b"}]},"uuid":"a1"}"#;
    assert_eq!(
        replace_text(record, "new").unwrap(),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"new"}, {"type":"tool_use","id":"t","name":"x","input":{}}]},"uuid":"a1"}"#
    );
    let record = r#"{"type":"user","message":{"role":"user","content":"old"},"uuid":"u1"}"#;
    assert_eq!(
        replace_text(record, "new").unwrap(),
        r#"{"type":"user","message":{"role":"user","content":"new"},"uuid":"u1"}"#
    );
}

#[test]
fn detection_leaves_other_formats_alone() {
    let others = [
        r#"{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}
{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#,
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"yo\"}\n",
        r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}]}"#,
    ];
    for src in others {
        assert!(!ClaudeCode.detect(&Doc::parse(src).unwrap()), "{src}");
    }
    let ours = [
        fixture("loglines.json"),
        corpus("claude-code-log-samples/system/summary.jsonl"),
        corpus("claude-code-log-samples/system/file_history_snapshot.jsonl"),
        corpus("claude-code-log/edge_cases.jsonl"),
    ];
    for src in ours {
        assert!(ClaudeCode.detect(&Doc::parse(&src).unwrap()));
    }
}

/// Records whose one-scan read must agree with decoding them whole, or give way to it:
/// links null, absent, not strings and repeated; a lone surrogate; a boundary; an array.
const ODD_RECORDS: [&str; 10] = [
    r#"{"type":"user","uuid":"a","parentUuid":null,"isMeta":true,"message":{"role":"user","content":"hi"},"toolUseResult":{"stdout":"x"}}"#,
    r#"{"type":"assistant","uuid":"b","parentUuid":"a","message":{"id":"m","model":"claude-x","role":"assistant","content":[{"type":"text","text":"ok"}]}}"#,
    r#"{"type":"system","subtype":"compact_boundary","uuid":"c","parentUuid":null,"logicalParentUuid":"b"}"#,
    r#"{"type":"user","isCompactSummary":true,"parentUuid":null,"uuid":"d","message":{"role":"user","content":"sum"}}"#,
    r#"{"type":"progress","uuid":"e","parentUuid":"d","data":{"message":{"content":"\ud800 lone"}}}"#,
    r#"{"type":"user","uuid":"f","parentUuid":"e","message":{"role":"user","content":"bad \ud800"}}"#,
    r#"{"type":"user","type":"assistant","uuid":"g","message":{"role":"user","content":"twice"}}"#,
    r#"{"type":"user","uuid":7,"parentUuid":"f","message":{"role":"user","content":"n"},"toolUseResult":null}"#,
    r#"{"type":"summary","leafUuid":"g","summary":"t","queueTranscriptOnly":false}"#,
    r#"["type","user"]"#,
];

#[test]
fn a_record_read_in_one_scan_reads_as_decoded_whole() {
    let mut scanned = 0;
    for text in ODD_RECORDS {
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let whole = Members::decoded(&Node::new(raw)).unwrap();
        let Some(read) = Members::read(&Node::new(raw)) else {
            continue;
        };
        scanned += 1;
        let Value::Object(members) = &read.value else {
            panic!("{text}: not an object");
        };
        for (key, value) in members {
            assert_eq!(whole.value.get(key), Some(value), "{text}: {key}");
        }
        let mut a = Item::new(0..0, 1, Role::None, Kind::NonContext);
        let mut b = a.clone();
        parse_record(&read.value, &mut a);
        parse_record(&whole.value, &mut b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
        assert_eq!(
            is_compact_boundary(&read.value),
            is_compact_boundary(&whole.value),
            "{text}"
        );
        let links = Chain {
            replay: None,
            ..read.chain.clone()
        };
        assert_eq!(format!("{links:?}"), format!("{:?}", whole.chain));
        assert_eq!(read.stored_only_bytes, whole.stored_only_bytes, "{text}");
    }
    // The array, the repeated type and the lone surrogate in a message give way.
    assert_eq!(scanned, 7);
}

#[test]
fn stripping_at_the_cut_the_read_found_is_what_a_parse_strips() {
    let records = [
        r#"{"toolUseResult":{"a":1},"type":"user","message":{"role":"user","content":"x"}}"#,
        r#"  {"type":"user", "toolUseResult" : "s" ,"message":{"role":"user","content":"x"}}  "#,
        r#"{"type":"user","message":{"role":"user","content":"x"},"toolUseResult":[1,2]}"#,
        r#"{"type":"user","toolUseResult":1,"toolUseResult":2,"message":{"role":"user","content":"x"}}"#,
    ];
    let t = load(records.join("\n") + "\n");
    let items = &t.conversations[0].items;
    assert!(items[..3].iter().all(|i| i.copy_cut.is_some()));
    assert!(items[3].copy_cut.is_none(), "a repeated copy is left to the parse");
    let big = "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
    let mut cut = 0;
    for t in [t, load(corpus(TOOL_HEAVY)), load(corpus(big))] {
        for (i, item) in t.conversations[0].items.iter().enumerate() {
            let raw = t.raw(0, i);
            let want = crate::transcript::payload::strip(raw, &COPY_MEMBERS);
            assert_eq!(strip_record(raw, item), want, "{raw}");
            cut += usize::from(item.copy_cut.is_some());
        }
    }
    assert!(cut > 10, "only {cut} records had a cut");
}
