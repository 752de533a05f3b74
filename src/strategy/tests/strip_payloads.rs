//! Tests of strip-payloads.

use super::*;

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
