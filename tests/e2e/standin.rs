//! A loopback stand-in for the four model APIs the clients call: the Anthropic Messages API
//! (streaming SSE, for Claude Code, and for pi through its built-in `anthropic` provider with
//! the base URL moved here), the OpenAI Responses API (streaming SSE, plus the
//! `/responses/compact` endpoint, for Codex CLI), the Gemini API (`streamGenerateContent`
//! SSE, `generateContent`, `countTokens`, for Gemini CLI) and OpenAI chat completions
//! (`/v1/chat/completions`, streaming SSE `data:` chunks ending `data: [DONE]` or one JSON
//! answer, for Qwen Code's `openai` auth type). It records every request and answers
//! each turn with one short text, so a resumed session ends after one request. One thread per
//! connection, `Connection: close` on every answer; the listener stops when dropped.

#[path = "../common/loopback.rs"]
mod loopback;

pub use loopback::Recorded;
use loopback::{Reply, Server};
use serde_json::{Value, json};

/// What the model answers to every turn.
pub const ANSWER: &str = "Resumed from the stand-in.";

/// The opaque content of the compaction item the stand-in returns.
pub const COMPACTION: &str = "stand-in compaction";

/// The running stand-in.
pub struct StandIn(Server);

impl StandIn {
    pub fn start() -> StandIn {
        StandIn(Server::start(|_, request| {
            let (status, content_type, body) = answer(request);
            Reply::typed(status, content_type, body)
        }))
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.0.url()
    }

    /// Everything recorded so far, and forget it.
    pub fn take(&self) -> Vec<Recorded> {
        self.0.take()
    }
}

/// Status, content type and body for one request.
fn answer(req: &Recorded) -> (u16, &'static str, String) {
    let path = req.path.split('?').next().unwrap_or_default();
    if req.header("upgrade").is_some() {
        // Codex tries a Responses websocket first; 426 makes it fall back to HTTP at once
        // instead of retrying.
        return (426, "text/plain", String::new());
    }
    match (req.method.as_str(), path) {
        // A proxy request: something tried to leave the machine. Recorded, refused.
        ("CONNECT", _) => (403, "text/plain", String::new()),
        ("POST", p) if p.ends_with("/messages/count_tokens") => (
            200,
            "application/json",
            json!({"input_tokens": 1000}).to_string(),
        ),
        ("POST", p) if p.ends_with("/messages") => messages(&req.json()),
        ("POST", p) if p.ends_with("/responses/compact") => (
            200,
            "application/json",
            // Exactly one compaction item: Codex replaces the history with it.
            json!({
                "id": "resp_compact",
                "object": "response.compaction",
                "output": [{"type": "compaction", "encrypted_content": COMPACTION}],
                "usage": usage(),
            })
            .to_string(),
        ),
        ("POST", p) if p.ends_with("/responses") => {
            (200, "text/event-stream", responses(&req.json()))
        }
        ("POST", p) if p.ends_with(":countTokens") => (
            200,
            "application/json",
            json!({"totalTokens": req.body.len() / 4}).to_string(),
        ),
        ("POST", p) if p.ends_with(":streamGenerateContent") => (
            200,
            "text/event-stream",
            // Gemini's SSE has no event names: one `data:` line per chunk.
            format!("data: {}\r\n\r\n", gemini_answer()),
        ),
        ("POST", p) if p.ends_with(":generateContent") => gemini_utility(&req.json()),
        ("POST", p) if p.ends_with("/chat/completions") => chat_completions(&req.json()),
        _ => (404, "text/plain", String::new()),
    }
}

/// A Messages answer: SSE when the client streams (the resume turn), else one JSON object.
fn messages(req: &Value) -> (u16, &'static str, String) {
    let model = req["model"].clone();
    if req["stream"] != true {
        let message = json!({
            "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": ANSWER}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        });
        return (200, "application/json", message.to_string());
    }
    let events = [
        json!({"type": "message_start", "message": {
            "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": ANSWER}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
        json!({"type": "message_stop"}),
    ];
    (200, "text/event-stream", sse(&events))
}

/// A Responses stream with one assistant message, or, for Codex's compaction request (its
/// input ends with a `compaction_trigger` item), with exactly one compaction item.
fn responses(req: &Value) -> String {
    let compaction = req["input"]
        .as_array()
        .and_then(|i| i.last())
        .is_some_and(|i| i["type"] == "compaction_trigger");
    let item = if compaction {
        json!({"type": "compaction", "id": "cmp_standin", "encrypted_content": COMPACTION})
    } else {
        json!({
            "type": "message", "id": "msg_standin", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
        })
    };
    sse(&[
        json!({"type": "response.created", "response": {"id": "resp_standin"}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": "resp_standin", "usage": usage()}}),
    ])
}

/// A whole Gemini answer: one text part, the turn done.
fn gemini_answer() -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
    })
}

/// Gemini CLI's side calls (`generateContent`, not streamed). The one that would write a title
/// into the session (its "summarize the user's primary intent" call, made for the previous
/// session on every start and before `--list-sessions`) is refused with a 400, which the client
/// does not retry: the session keeps the title its file gives, the one the test compares.
fn gemini_utility(req: &Value) -> (u16, &'static str, String) {
    if req.to_string().contains("primary intent") {
        let error = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                     "message": "the stand-in writes no session titles"}});
        return (400, "application/json", error.to_string());
    }
    (200, "application/json", gemini_answer().to_string())
}

/// An OpenAI chat completions answer: one assistant text, the turn done; SSE chunks (the role,
/// the text, the finish with usage, then `[DONE]`) when the client streams, else one
/// `chat.completion` object.
fn chat_completions(req: &Value) -> (u16, &'static str, String) {
    let model = req["model"].clone();
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let (id, created) = ("chatcmpl-standin", 1_796_300_000);
    if req["stream"] != true {
        let answer = json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER},
                         "finish_reason": "stop"}],
            "usage": usage,
        });
        return (200, "application/json", answer.to_string());
    }
    let chunk = |delta: Value, finish: Value, usage: Option<&Value>| {
        let mut c = json!({
            "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        if let Some(u) = usage {
            c["usage"] = u.clone();
        }
        format!("data: {c}\n\n")
    };
    let body = [
        chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
            None,
        ),
        chunk(json!({"content": ANSWER}), Value::Null, None),
        chunk(json!({}), json!("stop"), Some(&usage)),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    (200, "text/event-stream", body)
}

fn usage() -> Value {
    json!({
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    })
}

fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}
