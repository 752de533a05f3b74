//! Secrets stay home: planted keys are redacted from request bodies, the API key never shows in
//! an error or a `Debug` print, and plain HTTP goes only to loopback.

use crate::server::{Reply, Server};
use crate::{PLANTED_AWS, PLANTED_OPENAI, SESSION, items, settings, summarize, summarizer};
use ctxc::summarizer::llm::{LlmSummarizer, OnFailure, Provider, announcement};
use serde_json::json;

/// A key no server or message may ever show.
const SENTINEL: &str = "sk-test-SENTINEL-0f1e2d3c4b5a69788796a5b4";

#[test]
fn planted_secrets_never_leave() {
    for provider in [Provider::OpenAi, Provider::Anthropic] {
        let server = Server::start(move |_, _| match provider {
            Provider::OpenAi => Reply::openai("<summary>s</summary>"),
            Provider::Anthropic => Reply::anthropic("<summary>s</summary>"),
        });
        summarize(
            &summarizer(settings(provider, &server.base_url())),
            &items(&SESSION),
        )
        .unwrap();
        let body = &server.requests()[0].body;
        assert!(!body.contains(PLANTED_OPENAI) && !body.contains("PLANTEDabcdefghij"));
        assert!(!body.contains(PLANTED_AWS));
        assert!(
            body.contains("[REDACTED:openai-key]") && body.contains("[REDACTED:aws-access-key]")
        );
    }
}

#[test]
fn no_redact_sends_the_text_as_it_is() {
    let server = Server::start(|_, _| Reply::openai("<summary>s</summary>"));
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.redact = false;
    summarize(&summarizer(s), &items(&SESSION)).unwrap();
    assert!(server.requests()[0].body.contains(PLANTED_OPENAI));
}

#[test]
fn the_api_key_never_shows_in_errors_or_debug() {
    // A server that echoes the key back, as some do in their 401 bodies.
    let server = Server::start(|_, r| {
        let echoed = format!(
            "Incorrect API key provided: {}",
            r.header("authorization").unwrap_or("")
        );
        Reply::json(401, json!({"error": {"message": echoed}}))
    });
    let mut s = settings(Provider::OpenAi, &server.base_url());
    s.api_key = Some(SENTINEL.into());
    s.on_failure = OnFailure::Fail;
    assert!(!format!("{s:?}").contains("SENTINEL"), "{s:?}");
    let summarizer = summarizer(s.clone());
    assert!(
        !format!("{summarizer:?}").contains("SENTINEL"),
        "{summarizer:?}"
    );

    let err = summarize(&summarizer, &items(&SESSION)).unwrap_err();
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(&*format!("Bearer {SENTINEL}"))
    );
    for shown in [format!("{err}"), format!("{err:#}"), format!("{err:?}")] {
        assert!(!shown.contains("SENTINEL"), "{shown}");
        assert!(shown.contains("HTTP 401"), "{shown}");
    }
    // The extractive fallback's reason too.
    s.on_failure = OnFailure::Extractive;
    let summary = summarize(&crate::summarizer(s), &items(&SESSION)).unwrap();
    let fallback = summary.fallback.unwrap();
    assert!(!fallback.detail.contains("SENTINEL") && !fallback.cause.contains("SENTINEL"));
}

#[test]
fn plain_http_only_to_loopback() {
    for base in [
        "http://127.0.0.1:1/v1",
        "http://localhost:1/v1",
        "http://[::1]:1/v1",
        "https://llm.invalid/v1",
    ] {
        assert!(
            LlmSummarizer::new(settings(Provider::OpenAi, base)).is_ok(),
            "{base}"
        );
    }
    let err = LlmSummarizer::new(settings(Provider::OpenAi, "http://192.0.2.1/v1")).unwrap_err();
    assert!(
        err.to_string()
            .contains("refusing to send transcripts over plain http to http://192.0.2.1/v1"),
        "{err}"
    );
    let mut s = settings(Provider::OpenAi, "http://192.0.2.1/v1");
    s.allow_insecure_http = true;
    assert!(LlmSummarizer::new(s).is_ok());
}

#[test]
fn announcement_names_the_endpoint_and_the_amount() {
    let s = summarizer(settings(
        Provider::Anthropic,
        "http://user:hunter22@127.0.0.1:9/v1",
    ));
    assert_eq!(
        s.endpoint(),
        "http://user:[REDACTED:url-password]@127.0.0.1:9/v1/messages"
    );
    assert_eq!(
        announcement(s.endpoint(), 3, 1_234_567),
        "ctxc: remote summarization: spans from 3 files (at most 1,234,567 bytes of transcript) will be sent to http://user:[REDACTED:url-password]@127.0.0.1:9/v1/messages"
    );
}
