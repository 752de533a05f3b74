//! Retries, time-outs and what each `OnFailure` makes of a summary that cannot be had.

use crate::server::{Reply, Server};
use crate::{SESSION, items, settings, summarize, summarizer};
use ctxc::summarizer::llm::{OnFailure, Provider};
use serde_json::json;
use std::net::TcpListener;
use std::time::{Duration, Instant};

fn error(status: u16, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"error": {"message": message, "type": "test"}}),
    )
}

#[test]
fn retries_after_429_honouring_retry_after() {
    let server = Server::start(|n, _| match n {
        0 => error(429, "rate limited").with_header("retry-after", "1"),
        _ => Reply::openai("<summary>after the wait</summary>"),
    });
    let start = Instant::now();
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(950),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
    assert!(summary.text.ends_with("after the wait"));
    assert_eq!(summary.llm_calls, 2);
    assert_eq!(summary.fallback, None);
}

#[test]
fn retries_5xx_honouring_retry_after_ms() {
    let server = Server::start(|n, _| match n {
        0 => error(503, "overloaded").with_header("retry-after-ms", "50"),
        1 => error(502, "bad gateway"),
        _ => Reply::anthropic("<summary>third time</summary>"),
    });
    let mut s = settings(Provider::Anthropic, &server.base_url());
    s.api_key = Some("k".into());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert_eq!(server.requests().len(), 3);
    assert!(summary.text.ends_with("third time"));
    assert_eq!(summary.llm_calls, 3);
}

#[test]
fn no_retry_on_400_and_extractive_fallback() {
    let server = Server::start(|_, _| error(400, "context length exceeded"));
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert_eq!(server.requests().len(), 1);
    let why = summary.fallback.unwrap().detail;
    assert!(
        why.starts_with("openai summary failed after 1 attempt: http://127.0.0.1:"),
        "{why}"
    );
    assert!(
        why.contains("HTTP 400 Bad Request: context length exceeded"),
        "{why}"
    );
    assert!(why.ends_with("; used extractive"), "{why}");
    // The extractive summary of the span.
    assert!(summary.text.contains("src/lib.rs"), "{}", summary.text);
    assert_eq!(summary.llm_calls, 1);
}

#[test]
fn time_out_falls_back_without_retrying() {
    let server = Server::start(|_, _| Reply::Hang(Duration::from_secs(4)));
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.timeout = Duration::from_secs(1);
    let start = Instant::now();
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(950) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    assert_eq!(server.requests().len(), 1);
    let why = summary.fallback.unwrap().detail;
    assert!(
        why.contains("no response from") && why.contains("within 1 s"),
        "{why}"
    );
    assert!(!summary.text.is_empty());
    assert_eq!(summary.llm_calls, 1);
}

#[test]
fn fail_returns_an_error_after_the_retries() {
    let server = Server::start(|_, _| error(500, "internal"));
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.on_failure = OnFailure::Fail;
    s.max_retries = 1;
    let err = summarize(&summarizer(s), &items(&SESSION)).unwrap_err();
    let message = format!("{err:#}");
    assert!(
        message.starts_with("openai summary failed after 2 attempts:"),
        "{message}"
    );
    assert!(
        message.contains("HTTP 500 Internal Server Error: internal"),
        "{message}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn truncate_returns_an_empty_text() {
    let server = Server::start(|_, _| error(404, "no such model"));
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.on_failure = OnFailure::Truncate;
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert_eq!(summary.text, "");
    assert!(summary.drop_span);
    let why = summary.fallback.unwrap().detail;
    assert!(why.contains("no such model") && why.ends_with("dropped the span without a summary"));
}

#[test]
fn connect_errors_are_retried_and_not_counted_as_calls() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let s = settings(Provider::OpenAi, &format!("http://127.0.0.1:{port}/v1"));
    let start = Instant::now();
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    // Two backoffs: 125-250 ms, then 250-500 ms.
    assert!(
        start.elapsed() >= Duration::from_millis(375),
        "{:?}",
        start.elapsed()
    );
    let why = summary.fallback.unwrap().detail;
    assert!(
        why.contains("after 3 attempts: cannot connect to http://127.0.0.1:"),
        "{why}"
    );
    assert_eq!(summary.llm_calls, 0);
}

#[test]
fn turn_shaped_replies_are_asked_again_once_then_rejected() {
    let server =
        Server::start(|_, _| Reply::openai("user: thanks!\nassistant: running the tests now"));
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert_eq!(server.requests().len(), 2);
    let why = summary.fallback.unwrap().detail;
    assert!(
        why.contains("unusable reply: the reply looks like a conversation turn"),
        "{why}"
    );
    assert_eq!(summary.llm_calls, 2);
    assert_eq!(
        summary.prompt_tokens, 240,
        "usage of rejected replies is still booked"
    );
}

#[test]
fn a_second_sample_may_pass() {
    let server = Server::start(|n, _| match n {
        0 => Reply::openai(""),
        _ => Reply::openai("<summary>second sample</summary>"),
    });
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(summary.text.ends_with("second sample"));
    assert_eq!(summary.llm_calls, 2);
}

#[test]
fn switches_to_max_completion_tokens_when_asked() {
    let server = Server::start(|n, _| match n {
        0 => error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        ),
        _ => Reply::openai("<summary>ok</summary>"),
    });
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].json()["max_completion_tokens"], 321);
    assert!(requests[1].json().get("max_tokens").is_none());
    assert_eq!(summary.fallback, None);
}

#[test]
fn a_retry_after_beyond_the_cap_gives_up_at_once() {
    let server = Server::start(|_, _| error(429, "quota").with_header("retry-after", "3600"));
    let s = settings(Provider::OpenAi, &server.base_url());
    let start = Instant::now();
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(server.requests().len(), 1);
    let why = summary.fallback.unwrap().detail;
    assert!(why.contains("asked to retry after 3600 s"), "{why}");
}

#[test]
fn redirects_are_not_followed() {
    let server = Server::start(|_, _| {
        Reply::json(307, json!({})).with_header("location", "http://127.0.0.1:9/elsewhere")
    });
    let s = settings(Provider::OpenAi, &server.base_url());
    let summary = summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert_eq!(server.requests().len(), 1);
    let why = summary.fallback.unwrap().detail;
    assert!(why.contains("does not follow redirects"), "{why}");
}
