//! A loopback stand-in for the two model APIs the clients call: the Anthropic Messages API
//! (streaming SSE, for Claude Code) and the OpenAI Responses API (streaming SSE, plus the
//! `/responses/compact` endpoint, for Codex CLI). It records every request and answers each
//! turn with one short text, so a resumed session ends after one request. One thread per
//! connection, `Connection: close` on every answer; the listener stops when dropped.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the model answers to every turn.
pub const ANSWER: &str = "Resumed from the stand-in.";

/// The opaque content of the compaction item the stand-in returns.
pub const COMPACTION: &str = "stand-in compaction";

/// A request as the stand-in received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub body: String,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

struct State {
    requests: Mutex<Vec<Recorded>>,
    stop: AtomicBool,
}

pub struct StandIn {
    addr: SocketAddr,
    state: Arc<State>,
}

impl StandIn {
    pub fn start() -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State {
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let accepting = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = accepting.clone();
                std::thread::spawn(move || {
                    // A client that hangs up early is its own business; the test looks at what
                    // was recorded.
                    let _ = serve(stream, &state);
                });
            }
        });
        StandIn { addr, state }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Everything recorded so far, and forget it.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.state.requests.lock().unwrap())
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(stream: TcpStream, state: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        read_chunked(&mut reader)?
    } else {
        let len = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut buf = vec![0; len];
        reader.read_exact(&mut buf)?;
        buf
    };
    let upgrade = header("upgrade").is_some();
    let recorded = Recorded {
        method,
        path,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let (status, content_type, answer) = answer(&recorded, upgrade);
    state.requests.lock().unwrap().push(recorded);
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    )?;
    out.flush()
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let n =
            usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        let mut chunk = vec![0; n + 2];
        if n == 0 {
            let mut end = String::new();
            reader.read_line(&mut end)?;
            return Ok(body);
        }
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk[..n]);
    }
}

/// Status line, content type and body for one request.
fn answer(req: &Recorded, upgrade: bool) -> (&'static str, &'static str, String) {
    let path = req.path.split('?').next().unwrap_or_default();
    if upgrade {
        // Codex tries a Responses websocket first; 426 makes it fall back to HTTP at once
        // instead of retrying.
        return ("426 Upgrade Required", "text/plain", String::new());
    }
    match (req.method.as_str(), path) {
        // A proxy request: something tried to leave the machine. Recorded, refused.
        ("CONNECT", _) => ("403 Forbidden", "text/plain", String::new()),
        ("POST", p) if p.ends_with("/messages/count_tokens") => (
            "200 OK",
            "application/json",
            json!({"input_tokens": 1000}).to_string(),
        ),
        ("POST", p) if p.ends_with("/messages") => messages(&req.json()),
        ("POST", p) if p.ends_with("/responses/compact") => (
            "200 OK",
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
            ("200 OK", "text/event-stream", responses(&req.json()))
        }
        _ => ("404 Not Found", "text/plain", String::new()),
    }
}

/// A Messages answer: SSE when the client streams (the resume turn), else one JSON object.
fn messages(req: &Value) -> (&'static str, &'static str, String) {
    let model = req["model"].clone();
    if req["stream"] != true {
        let message = json!({
            "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": ANSWER}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        });
        return ("200 OK", "application/json", message.to_string());
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
    ("200 OK", "text/event-stream", sse(&events))
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
