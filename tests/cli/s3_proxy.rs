//! A fault-injecting HTTP/1.1 proxy on loopback, between ctxc and the S3 stand-in: it forwards
//! every request to moto, one request per connection (`Connection: close` both ways), and on
//! command breaks what a flaky network breaks — the reply to a request that reached the store
//! (a `PUT` that landed, its answer lost), or a `GET` body cut short with a `Content-Length`
//! rewritten to match (a read that looks whole). Stopped when dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What to break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Forward the request, wait for the store's answer, then close the connection without
    /// passing it on.
    DropReply,
    /// Pass on only the first half of a `GET`'s body, with a `Content-Length` saying that half
    /// is all there is.
    Truncate,
    /// Answer `400 InvalidArgument` without forwarding (a request that must never be sent).
    Refuse,
}

/// A fault for requests with this method whose target contains `path`, the next `times`.
#[derive(Debug, Clone)]
struct Rule {
    method: String,
    path: String,
    fault: Fault,
    times: usize,
}

/// A request as the proxy saw it: method and target (`/bucket/key?query`).
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) fault: Option<Fault>,
}

#[derive(Default)]
struct Shared {
    rules: Mutex<Vec<Rule>>,
    seen: Mutex<Vec<Seen>>,
    stop: AtomicBool,
}

/// The running proxy.
pub(crate) struct Proxy {
    pub(crate) endpoint: String,
    shared: Arc<Shared>,
    port: u16,
}

impl Proxy {
    /// A proxy in front of the store at `upstream` (`http://127.0.0.1:PORT`).
    pub(crate) fn start(upstream: &str) -> Proxy {
        let upstream = upstream.trim_start_matches("http://").to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        let state = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if state.stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let (state, upstream) = (Arc::clone(&state), upstream.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &upstream, &state);
                });
            }
        });
        Proxy {
            endpoint: format!("http://127.0.0.1:{port}"),
            shared,
            port,
        }
    }

    /// Breaks the next `times` requests with this method whose target contains `path`.
    pub(crate) fn fail(&self, method: &str, path: &str, fault: Fault, times: usize) {
        self.shared.rules.lock().unwrap().push(Rule {
            method: method.to_string(),
            path: path.to_string(),
            fault,
            times,
        });
    }

    /// Forgets every rule not used up.
    pub(crate) fn clear(&self) {
        self.shared.rules.lock().unwrap().clear();
    }

    /// The requests seen so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the stop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The fault for this request, if a rule matches (using one of its times).
fn fault_for(state: &Shared, method: &str, target: &str) -> Option<Fault> {
    let mut rules = state.rules.lock().unwrap();
    let rule = rules
        .iter_mut()
        .find(|r| r.times > 0 && r.method == method && target.contains(&r.path))?;
    rule.times -= 1;
    Some(rule.fault)
}

/// A message's head (start line and header lines) and its declared body length.
struct Head {
    start: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn read(from: &mut impl BufRead) -> std::io::Result<Option<Head>> {
        let mut start = String::new();
        if from.read_line(&mut start)? == 0 {
            return Ok(None);
        }
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            from.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
        }
        Ok(Some(Head {
            start: start.trim_end().to_string(),
            headers,
        }))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn length(&self) -> Option<usize> {
        self.header("content-length").and_then(|v| v.parse().ok())
    }

    /// The head as sent: `Connection: close`, and `Content-Length` set to `length` if given.
    fn bytes(&self, length: Option<usize>) -> Vec<u8> {
        let mut out = format!("{}\r\n", self.start);
        for (name, value) in &self.headers {
            let lower = name.to_ascii_lowercase();
            if lower == "connection" || (lower == "content-length" && length.is_some()) {
                continue;
            }
            out.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(n) = length {
            out.push_str(&format!("Content-Length: {n}\r\n"));
        }
        out.push_str("Connection: close\r\n\r\n");
        out.into_bytes()
    }
}

/// Reads a body: `length` bytes, or chunks, or (an answer) everything to the end.
fn read_body(from: &mut impl BufRead, head: &Head, answer: bool) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if let Some(n) = head.length() {
        body.resize(n, 0);
        from.read_exact(&mut body)?;
    } else if head
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            from.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            from.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if answer {
        from.read_to_end(&mut body)?;
    }
    Ok(body)
}

/// Handles one connection: one request, forwarded, and its answer (or the fault).
fn serve(client: TcpStream, upstream: &str, state: &Shared) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let Some(request) = Head::read(&mut reader)? else {
        return Ok(());
    };
    let body = read_body(&mut reader, &request, false)?;
    let mut parts = request.start.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let fault = fault_for(state, &method, &target);
    state.seen.lock().unwrap().push(Seen {
        method: method.clone(),
        target: target.clone(),
        fault,
    });
    let mut client = client;
    if fault == Some(Fault::Refuse) {
        let body = "<Error><Code>InvalidArgument</Code><Message>refused by the test proxy</Message></Error>";
        let answer = format!(
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return client.write_all(answer.as_bytes());
    }
    let mut store = TcpStream::connect(upstream)?;
    let chunked = request.header("transfer-encoding").is_some();
    let length = (chunked || request.length().is_some()).then_some(body.len());
    let mut head = request;
    head.headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("transfer-encoding"));
    store.write_all(&head.bytes(length))?;
    store.write_all(&body)?;
    let mut answer = BufReader::new(store);
    let Some(reply) = Head::read(&mut answer)? else {
        return Ok(());
    };
    let status: u16 = reply
        .start
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let no_body = method == "HEAD" || status == 204 || status == 304;
    let reply_body = if no_body {
        Vec::new()
    } else {
        read_body(&mut answer, &reply, true)?
    };
    match fault {
        Some(Fault::DropReply) => {
            let _ = client.shutdown(std::net::Shutdown::Both);
            Ok(())
        }
        Some(Fault::Truncate) if !no_body => {
            let half = &reply_body[..reply_body.len() / 2];
            client.write_all(&reply.bytes(Some(half.len())))?;
            client.write_all(half)
        }
        _ => {
            let length = (!no_body).then_some(reply_body.len());
            let head = match length {
                Some(n) => reply.bytes(Some(n)),
                // A HEAD's Content-Length is the object's size: passed on as it is.
                None => reply.bytes(None),
            };
            client.write_all(&head)?;
            client.write_all(&reply_body)
        }
    }
}
