//! What is sent and what is made of the reply, for both APIs.

use crate::server::{Reply, Server};
use crate::{PENDING, SESSION, items, settings, summarize, summarizer};
use ctxc::summarizer::llm::Provider;
use ctxc::summarizer::llm::prompt::DEFAULT_SUMMARY_PROMPT;

#[test]
fn openai_request_shape_and_reply() {
    let server = Server::start(|_, _| {
        Reply::openai("Sure.\n<summary>\nThe task: fix src/lib.rs.\n</summary>")
    });
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.api_key = Some("test-key-123".into());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer test-key-123"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-api-key"), None);
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 321);
    assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("data to summarize")
    );
    assert_eq!(messages[1]["role"], "user");
    let user = messages[1]["content"].as_str().unwrap();
    assert_user_message(user);

    assert_eq!(
        summary.text,
        "Continuation summary of 6 earlier messages (records 1-6), written by test-model for ctxc.\nThe task: fix src/lib.rs."
    );
    assert_eq!(summary.llm_calls, 1);
    assert_eq!(
        (summary.prompt_tokens, summary.completion_tokens),
        (120, 30)
    );
    assert_eq!(summary.fallback, None);
}

/// The span, delimited, before the seed-002 prompt; the pending call left out.
fn assert_user_message(user: &str) {
    let transcript = user
        .find("<transcript>\n--- system ---\nYou are a coding agent.")
        .unwrap();
    let end = user.find("</transcript>").unwrap();
    assert!(transcript < end && end < user.find(DEFAULT_SUMMARY_PROMPT).unwrap());
    assert!(user.ends_with("Wrap your summary in <summary></summary> tags."));
    for part in [
        "--- user ---\nFix the failing test in src/lib.rs.",
        "--- assistant ---\n[calls tool bash] {\"cmd\": \"cargo test\"}",
        "--- tool result from bash ---\nerror[E0425]",
        "--- assistant ---\nFixed the typo",
    ] {
        assert!(user.contains(part), "no {part:?} in {user}");
    }
    assert!(
        !user.contains(PENDING),
        "the trailing unanswered call was sent"
    );
}

#[test]
fn anthropic_request_shape_and_reply() {
    let server = Server::start(|_, _| Reply::anthropic("<summary>Fixed src/lib.rs.</summary>"));
    let mut s = settings(Provider::Anthropic, &server.base_url());
    s.api_key = Some("ant-key-456".into());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("ant-key-456"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 321);
    assert!(body.get("tools").is_none());
    assert!(
        body["system"]
            .as_str()
            .unwrap()
            .contains("data to summarize")
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    assert_user_message(messages[0]["content"].as_str().unwrap());

    assert!(
        summary.text.ends_with("\nFixed src/lib.rs."),
        "{}",
        summary.text
    );
    assert_eq!(summary.llm_calls, 1);
    assert_eq!(
        (summary.prompt_tokens, summary.completion_tokens),
        (200, 40)
    );
}

#[test]
fn whole_reply_when_there_are_no_summary_tags() {
    let server = Server::start(|_, _| {
        Reply::openai("<think>what matters?</think>\n1. Task Overview\nFix the test.")
    });
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(
        summary
            .text
            .ends_with("ctxc.\n1. Task Overview\nFix the test."),
        "{}",
        summary.text
    );
    // No key: no authentication header (local servers need none).
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn over_long_span_is_truncated_with_a_marker() {
    let server = Server::start(|_, _| Reply::openai("<summary>long</summary>"));
    let head = "HEAD-OF-SPAN ".repeat(10);
    let tail = " TAIL-OF-SPAN".repeat(10);
    let long = format!("{head}{}{tail}", "m".repeat(250_000));
    let source = serde_json::json!([
        {"role": "user", "content": long},
        {"role": "assistant", "content": "ok"},
    ])
    .to_string();
    let s = settings(Provider::OpenAi, &server.base_url());
    summarize(&summarizer(s), &items(&source)).unwrap();
    let body = server.requests()[0].json();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("characters from the middle of this span were over the summarizer's 200,000-character input limit"));
    assert!(user.contains("HEAD-OF-SPAN") && user.contains("TAIL-OF-SPAN"));
    assert!(user.chars().count() < 200_000 + DEFAULT_SUMMARY_PROMPT.len() + 1_000);
}

#[test]
fn a_summary_far_over_budget_is_clipped() {
    let long: String = (0..400)
        .map(|i| format!("point {i} of a long summary\n"))
        .collect();
    let server = Server::start(move |_, _| Reply::openai(&format!("<summary>{long}</summary>")));
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(summary.text.contains("point 0 of a long summary"));
    assert!(
        summary.text.ends_with("was cut here ...]"),
        "{}",
        summary.text
    );
    assert!(crate::COUNTER.count(&summary.text) <= 321 + 40);
}
