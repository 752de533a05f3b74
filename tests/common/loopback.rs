//! A small HTTP/1.1 server on 127.0.0.1 standing in for a model API: it records every
//! request, answers what the test scripts, and counts requests being handled at once. One
//! thread per connection, `Connection: close` on every answer, stopped when dropped.
//!
//! Shared by `tests/llm` (ctxc's summarizers against scripted answers) and `tests/e2e` (the
//! real clients resumed against a stand-in model), each including it with `#[path]`.
// Each test binary uses part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; `null` when it is not JSON (a `GET`, say).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Answer with this status, extra headers and body.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Answer nothing for this long, then close the connection.
    Hang(Duration),
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::Respond {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// A successful Chat Completions answer.
    pub fn openai(text: &str) -> Reply {
        Reply::json(
            200,
            json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
            }),
        )
    }

    /// A successful Messages answer.
    pub fn anthropic(text: &str) -> Reply {
        Reply::json(
            200,
            json!({
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 200, "output_tokens": 40},
            }),
        )
    }

    /// An answer with this status, content type and body.
    pub fn typed(status: u16, content_type: &str, body: String) -> Reply {
        Reply::Respond {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body,
        }
    }

    /// The same answer with one more header.
    pub fn with_header(self, name: &str, value: &str) -> Reply {
        match self {
            Reply::Respond {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.into(), value.into()));
                Reply::Respond {
                    status,
                    headers,
                    body,
                }
            }
            hang => hang,
        }
    }
}

type Responder = Box<dyn Fn(usize, &Recorded) -> Reply + Send + Sync>;

struct State {
    responder: Responder,
    /// How long each request is held before it is answered.
    hold: Duration,
    requests: Mutex<Vec<Recorded>>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    stop: AtomicBool,
}

/// The running server.
pub struct Server {
    addr: SocketAddr,
    state: Arc<State>,
}

impl Server {
    /// Starts a server answering request `n` (0-based) with `responder(n, &request)`.
    pub fn start(responder: impl Fn(usize, &Recorded) -> Reply + Send + Sync + 'static) -> Server {
        Server::holding(Duration::ZERO, responder)
    }

    /// Like [`Server::start`], holding each request for `hold` before answering.
    pub fn holding(
        hold: Duration,
        responder: impl Fn(usize, &Recorded) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State {
            responder: Box::new(responder),
            hold,
            requests: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
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
                std::thread::spawn(move || serve(&state, stream));
            }
        });
        Server { addr, state }
    }

    /// The server's URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The API base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Every request received so far, forgotten here.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.state.requests.lock().unwrap())
    }

    /// The most requests that were being handled at once.
    pub fn peak(&self) -> usize {
        self.state.peak.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(state: &State, stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let Some(request) = read_request(&mut reader) else {
        return;
    };
    let n = {
        let mut requests = state.requests.lock().unwrap();
        requests.push(request.clone());
        requests.len() - 1
    };
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.peak.fetch_max(now, Ordering::SeqCst);
    std::thread::sleep(state.hold);
    let reply = (state.responder)(n, &request);
    // Counted out before answering, so a client cannot see the answer while it still counts.
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    write_reply(stream, reply);
}

fn read_request(reader: &mut impl BufRead) -> Option<Recorded> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        read_chunked(reader)?
    } else {
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        body
    };
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// A body sent in chunks (Node's clients stream some request bodies so).
fn read_chunked(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size).ok()?;
        let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        if n == 0 {
            reader.read_line(&mut String::new()).ok()?;
            return Some(body);
        }
        let mut chunk = vec![0; n + 2];
        reader.read_exact(&mut chunk).ok()?;
        body.extend_from_slice(&chunk[..n]);
    }
}

fn write_reply(mut stream: TcpStream, reply: Reply) {
    match reply {
        Reply::Hang(how_long) => std::thread::sleep(how_long),
        Reply::Respond {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Scripted\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            if !headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            {
                head.push_str("content-type: application/json\r\n");
            }
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
    }
}
