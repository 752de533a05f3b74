//! End-to-end resume test with the real clients: corpus and fixture sessions and their ctxc
//! outputs are placed where Claude Code, Codex CLI, Gemini CLI, pi and Qwen Code keep sessions (throwaway
//! homes in a temp dir), each is resumed non-interactively against a loopback stand-in for the
//! model API, and the request the client sends is checked: it still states the task and the
//! ctxc summary, every tool call is answered, roles are in the order the API requires, it
//! shrank as the compaction did, and the session keeps its title.
//!
//! The clients come from `tests/e2e/package.json` (pinned in `package-lock.json`), installed by
//! `npm ci` into `tests/e2e/node_modules` (about 1,194 MB). The test runs `npm ci` itself when
//! that folder is missing only if asked (`CTXC_E2E_INSTALL=1`, or `CTXC_E2E_REQUIRED`, which CI
//! sets): a plain `cargo test` on a fresh machine downloads nothing. Without the clients it
//! skips with a loud message, unless `CTXC_E2E_REQUIRED` is set, then it fails.
// Tests name the paths they made in assertion messages, for whoever reads a failure: raw
// `display()` is right there (clippy.toml forbids it in ctxc's own output).
#![allow(clippy::disallowed_methods)]

mod claude;
mod codex;
#[path = "../common/damage.rs"]
mod damage;
mod gemini;
#[path = "../common/paths.rs"]
mod paths;
mod pi;
mod qwen;
mod repair;
mod standin;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The prompt every resume sends.
pub const PROMPT: &str = "continue";

/// Strategies and targets every session is compacted with.
pub const STRATEGIES: [&str; 4] = [
    "adaptive",
    "sliding-window",
    "observation-masking",
    "full-summary",
];
pub const RATIOS: [f64; 2] = [0.5, 0.25];

pub use paths::{corpus, root};

/// The installed client binaries, or `None` (after a loud message) when node/npm are absent.
pub struct Clients {
    pub claude: PathBuf,
    pub codex: PathBuf,
    pub gemini: PathBuf,
    pub pi: PathBuf,
    pub qwen: PathBuf,
}

/// The five clients, as the messages name them.
const NAMES: &str = "Claude Code, Codex CLI, Gemini CLI, pi and Qwen Code";

pub fn clients() -> Option<&'static Clients> {
    static CLIENTS: OnceLock<Option<Clients>> = OnceLock::new();
    CLIENTS.get_or_init(install).as_ref()
}

fn install() -> Option<Clients> {
    let dir = root().join("tests/e2e");
    let bin = dir.join("node_modules/.bin");
    let found = || {
        let c = Clients {
            claude: bin.join("claude"),
            codex: bin.join("codex"),
            gemini: bin.join("gemini"),
            pi: bin.join("pi"),
            qwen: bin.join("qwen"),
        };
        [&c.claude, &c.codex, &c.gemini, &c.pi, &c.qwen]
            .iter()
            .all(|b| b.exists())
            .then_some(c)
    };
    if let Some(c) = found() {
        return Some(c);
    }
    let required = std::env::var_os("CTXC_E2E_REQUIRED").is_some();
    if !required && std::env::var_os("CTXC_E2E_INSTALL").is_none() {
        skipped(&format!(
            "the clients are not installed: the end-to-end resume test with the real {NAMES} \
             did NOT run. `CTXC_E2E_INSTALL=1 cargo test --test e2e` (or `npm ci` in \
             tests/e2e) downloads them, about 1,194 MB, with Node.js 22+."
        ));
        return None;
    }
    let npm_works = Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !npm_works {
        let msg = format!(
            "node/npm not found: the end-to-end resume test with the real {NAMES} did NOT run. \
             Install Node.js 22+ and run `npm ci` in tests/e2e."
        );
        assert!(!required, "CTXC_E2E_REQUIRED is set but {msg}");
        skipped(&msg);
        return None;
    }
    let _ = writeln!(
        std::io::stderr(),
        "ctxc e2e: `npm ci` in {}: downloading {NAMES}, about 1,194 MB",
        dir.display()
    );
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .status()
        .expect("run npm ci");
    assert!(status.success(), "npm ci in {} failed", dir.display());
    Some(found().expect("npm ci installed claude, codex, gemini, pi and qwen"))
}

/// Says loudly that the test did not run.
fn skipped(msg: &str) {
    // Straight to stderr: the test harness captures eprintln! of passing tests.
    let bar = "!".repeat(78);
    let _ = writeln!(std::io::stderr(), "\n{bar}\n!!! SKIPPED: {msg}\n{bar}\n");
}

/// `ctxc check FILE` finds nothing wrong.
pub fn assert_check_clean(file: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .args(["check", "-q"])
        .arg(file)
        .output()
        .expect("run ctxc");
    assert!(
        out.status.success(),
        "ctxc check {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One compaction run: `ctxc compact SOURCE --strategy S --target-ratio R --force`.
pub struct Compacted {
    pub label: String,
    pub output: PathBuf,
    /// Context tokens after / before, from ctxc's JSON report.
    pub token_ratio: f64,
}

pub fn compact(source: &Path, dir: &Path, strategy: &str, ratio: f64) -> Compacted {
    let label = format!("{strategy}@{ratio}");
    let ext = source.extension().unwrap().to_str().unwrap();
    let output = dir.join(format!("{strategy}-{ratio}.{ext}"));
    let report = dir.join(format!("{strategy}-{ratio}.report.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .env("XDG_CONFIG_HOME", dir.join("no-user-config"))
        .args([
            "compact",
            "-q",
            "--force",
            "--no-config",
            "--strategy",
            strategy,
        ])
        .arg("--target-ratio")
        .arg(ratio.to_string())
        .arg(source)
        .arg("-o")
        .arg(&output)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("run ctxc");
    assert!(
        out.status.success(),
        "ctxc compact {} ({label}) failed: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let file = &report["files"][0];
    let before = file["contextTokensBefore"]
        .as_f64()
        .expect("report has contextTokensBefore");
    let after = file["contextTokensAfter"]
        .as_f64()
        .expect("report has contextTokensAfter");
    Compacted {
        label,
        output,
        token_ratio: after / before,
    }
}

/// A temp dir for one client run: its home, config dir and the session's working directory.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::Builder::new()
                .prefix("ctxc-e2e")
                .tempdir()
                .unwrap(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
}

/// `text` with every JSON member `"cwd":"FROM"` set to `to`: the only change made to a session
/// before a client loads it (the client needs its working directory to exist).
pub fn rewrite_cwd(text: &str, from: &str, to: &Path) -> String {
    let quoted = |s: &str| serde_json::to_string(s).unwrap();
    let to = quoted(to.to_str().unwrap());
    text.replace(
        &format!("\"cwd\":{}", quoted(from)),
        &format!("\"cwd\":{to}"),
    )
    .replace(
        &format!("\"cwd\": {}", quoted(from)),
        &format!("\"cwd\": {to}"),
    )
}

/// Runs a client with a scrubbed environment (nothing inherited but PATH), returns stdout and
/// stderr, panicking with both when it fails.
pub fn run_client(mut cmd: Command, what: &str) -> String {
    cmd.stdin(Stdio::null());
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} exited with {}\n{text}",
        out.status
    );
    text
}

/// A clean environment: only PATH from outside. The stand-in is also the proxy for every
/// other address, so anything that tries to leave the machine is recorded (and refused).
pub fn scrubbed(program: &Path, sandbox: &Sandbox, standin: &standin::StandIn) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sandbox.path("home"))
        .env("TMPDIR", sandbox.path("tmp"))
        .env("NO_PROXY", "127.0.0.1,localhost")
        // Node keeps the clients' compiled code between runs (Gemini CLI, pi and Qwen Code start
        // node).
        .env(
            "NODE_COMPILE_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-node-compile-cache"),
        )
        .current_dir(sandbox.path("cwd"));
    for var in [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
    ] {
        cmd.env(var, standin.url());
    }
    cmd
}

/// Panics when a client tried to reach anything but the stand-in.
pub fn assert_hermetic(requests: &[standin::Recorded], log: &str) {
    let outbound: Vec<_> = requests
        .iter()
        .filter(|r| r.method == "CONNECT" || r.path.starts_with("http"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(
        outbound.is_empty(),
        "a client tried to leave 127.0.0.1: {outbound:?}\n{log}"
    );
}

/// Writes a recorded request to `$CTXC_E2E_DUMP/NAME.json` when that variable is set (for
/// looking at what a client sent).
pub fn dump(name: &str, request: &Value) {
    if let Some(dir) = std::env::var_os("CTXC_E2E_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{}.json", name.replace(['/', '@'], "_")));
        std::fs::write(file, serde_json::to_string_pretty(request).unwrap()).unwrap();
    }
}

/// Writes a session file to `$CTXC_E2E_DUMP/NAME` when that variable is set.
pub fn dump_text(name: &str, text: &str) {
    if let Some(dir) = std::env::var_os("CTXC_E2E_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// Characters of a JSON value as sent, the size measure of a request's conversation.
pub fn size(values: &[&Value]) -> usize {
    values.iter().map(|v| v.to_string().len()).sum()
}

/// The checks of one resumed request: (request, baseline request, original, output, token
/// ratio) → problems and the request's size ratio.
pub type Check = fn(&Value, &Value, &str, &str, f64) -> (Problems, f64);

/// The file a client left after resuming (`appended`, with its turn in the client's current
/// format), as ctxc sees it: it passes `ctxc check`, compacts (adaptive, 50%), and the output
/// resumes in that client as cleanly as `appended` itself does. `what` names the client.
pub fn compact_and_resume_appended(
    what: &str,
    appended: &str,
    file_name: &str,
    resume: impl Fn(&str) -> Value,
    check: Check,
) {
    let work = Sandbox::new();
    let source = work.path("in").join(file_name);
    std::fs::write(&source, appended).unwrap();
    assert_check_clean(&source);
    let baseline = resume(appended);
    let c = compact(&source, work.dir.path(), "adaptive", 0.5);
    let output = std::fs::read_to_string(&c.output).unwrap();
    dump_text(&format!("{what}-appended.jsonl"), appended);
    dump_text(&format!("{what}-appended.compact.jsonl"), &output);
    let request = resume(&output);
    let (problems, ratio) = check(&request, &baseline, appended, &output, c.token_ratio);
    log_run(
        &format!("{what}, appended by {what}"),
        c.token_ratio,
        ratio,
        &problems,
    );
    assert!(problems.0.is_empty(), "{problems:?}");
}

/// Compacts `source` with every strategy and ratio, resumes each output with `resume` and
/// checks the request it sent against `baseline` (the original's); the failures, labelled
/// with `what`, go to `failures`. Returns the number of outputs resumed.
pub fn resume_every_output(
    what: &str,
    source: &Path,
    dir: &Path,
    (original, baseline): (&str, &Value),
    resume: impl Fn(&str) -> Value,
    check: Check,
    failures: &mut Vec<String>,
) -> usize {
    let mut runs = 0;
    for strategy in STRATEGIES {
        for ratio in RATIOS {
            let c = compact(source, dir, strategy, ratio);
            let output = std::fs::read_to_string(&c.output).unwrap();
            let request = resume(&output);
            let (problems, ratio) = check(&request, baseline, original, &output, c.token_ratio);
            runs += 1;
            log_run(
                &format!("{what} {}", c.label),
                c.token_ratio,
                ratio,
                &problems,
            );
            if !problems.0.is_empty() {
                failures.push(format!("{what} {}: {}", c.label, problems.0.join("; ")));
            }
        }
    }
    runs
}

/// Fails with every failure listed unless all `runs` resumed outputs passed.
/// A failure for each output the client lists under another title than the original's:
/// `titles[0]` is the original's, the outputs' follow in the order of `labels`.
pub fn listed_unlike_the_original<T: PartialEq + std::fmt::Debug>(
    client: &str,
    labels: impl IntoIterator<Item = impl std::fmt::Display>,
    titles: &[T],
) -> Vec<String> {
    labels
        .into_iter()
        .zip(&titles[1..])
        .filter(|(_, title)| **title != titles[0])
        .map(|(label, title)| {
            format!(
                "{client} {label}: listed as {title:?}, the original as {:?}",
                titles[0]
            )
        })
        .collect()
}

pub fn assert_all_resumed(failures: &[String], runs: usize) {
    assert!(
        failures.is_empty(),
        "{} of {runs} resumed outputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The checks one resumed request failed, labelled; empty when it passed.
#[derive(Default, Debug)]
pub struct Problems(pub Vec<String>);

/// One line per resumed output for the test log: what was compacted how far, and how large the
/// request came out.
pub fn log_run(what: &str, token_ratio: f64, request_ratio: f64, problems: &Problems) {
    eprintln!(
        "{what}: context tokens {:.0}%, request {:.0}% of the original's, {}",
        token_ratio * 100.0,
        request_ratio * 100.0,
        if problems.0.is_empty() {
            "ok".to_string()
        } else {
            problems.0.join("; ")
        }
    );
}

impl Problems {
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }
}

/// Size check shared by both clients: the request's conversation shrank like the transcript's
/// context tokens did (bytes and tokens differ by content, hence the tolerance).
pub fn size_matches(problems: &mut Problems, request_ratio: f64, token_ratio: f64) {
    problems.check(
        (request_ratio - token_ratio).abs() <= 0.2 + 0.25 * token_ratio,
        || {
            format!(
                "request size is {:.0}% of the original's, but ctxc reports {:.0}% of the context tokens",
                request_ratio * 100.0,
                token_ratio * 100.0
            )
        },
    );
}

/// Like [`resume_every_output`], with the resumes run at once, one thread each (`resume` starts
/// its own stand-in, so the requests of one run are its own): the clients spend most of their
/// time starting node, which the 2-core CI machine overlaps with the other tests' runs. The
/// original's own resume (the baseline, returned) and `list`, given each output's label and
/// text, run beside them. An output byte for byte the same as another (two ratios a strategy
/// meets alike) is resumed once and checked for both; one the same as the original (nothing to
/// compact) is checked on the original's resume. Returns the number of outputs checked.
#[allow(clippy::too_many_arguments)]
pub fn resume_every_output_at_once<R: Send>(
    what: &str,
    source: &Path,
    dir: &Path,
    original: &str,
    resume: impl Fn(&str) -> Value + Sync,
    list: impl FnOnce(&[(String, String)]) -> R + Send,
    check: Check,
    failures: &mut Vec<String>,
) -> (usize, Value, R) {
    let runs: Vec<Compacted> = STRATEGIES
        .iter()
        .flat_map(|s| RATIOS.map(|r| (s, r)))
        .map(|(s, r)| compact(source, dir, s, r))
        .collect();
    let outputs: Vec<(String, String)> = runs
        .iter()
        .map(|c| (c.label.clone(), std::fs::read_to_string(&c.output).unwrap()))
        .collect();
    let first = |i: usize| outputs.iter().position(|o| o.1 == outputs[i].1).unwrap();
    let resume = &resume;
    let (baseline, requests, listed) = std::thread::scope(|scope| {
        let baseline = scope.spawn(move || resume(original));
        let listed = scope.spawn(|| list(&outputs));
        let handles: Vec<_> = (0..runs.len())
            .map(|i| {
                let output = &outputs[i].1;
                let own = first(i) == i && output != original;
                scope.spawn(move || own.then(|| resume(output)))
            })
            .collect();
        let requests: Vec<Option<Value>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        (baseline.join().unwrap(), requests, listed.join().unwrap())
    });
    for (i, c) in runs.iter().enumerate() {
        let request = match outputs[i].1 == original {
            true => &baseline,
            false => requests[first(i)].as_ref().unwrap(),
        };
        let (problems, ratio) = check(request, &baseline, original, &outputs[i].1, c.token_ratio);
        log_run(
            &format!("{what} {}", c.label),
            c.token_ratio,
            ratio,
            &problems,
        );
        if !problems.0.is_empty() {
            failures.push(format!("{what} {}: {}", c.label, problems.0.join("; ")));
        }
    }
    (runs.len(), baseline, listed)
}

/// `source` compacted in place with an archive (`--target-ratio 0.25`), then `ctxc restore`d:
/// the restored text, which must be the original byte for byte.
pub fn compacted_and_restored(source: &Path) -> String {
    let original = std::fs::read(source).unwrap();
    let work = Sandbox::new();
    let file = work.path("in").join(source.file_name().unwrap());
    std::fs::write(&file, &original).unwrap();
    for args in [
        &[
            "compact",
            "-q",
            "--force",
            "--no-config",
            "--in-place",
            "--archive",
        ][..],
        &["restore", "-q"][..],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxc"));
        cmd.env("XDG_CONFIG_HOME", work.path("no-user-config"))
            .env("HOME", work.path("home"))
            .args(args);
        if args[0] == "compact" {
            cmd.args(["--target-ratio", "0.25"]);
        }
        let out = cmd.arg(&file).output().expect("run ctxc");
        assert!(
            out.status.success(),
            "ctxc {} {}: {}",
            args[0],
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        if args[0] == "compact" {
            assert_ne!(
                std::fs::read(&file).unwrap(),
                original,
                "nothing was compacted"
            );
        }
    }
    let restored = std::fs::read(&file).unwrap();
    assert!(
        restored == original,
        "ctxc restore did not give back {} byte for byte",
        source.display()
    );
    String::from_utf8(restored).unwrap()
}

/// `ctxc repair SOURCE -o OUT`: OUT's text, which passes `ctxc check` (SOURCE does not).
pub fn repaired(source: &Path) -> String {
    let work = Sandbox::new();
    let output = work.path("out").join(source.file_name().unwrap());
    let before = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .args(["check", "-q"])
        .arg(source)
        .output()
        .expect("run ctxc");
    assert!(
        !before.status.success(),
        "{} is not damaged",
        source.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .args(["repair", "-q"])
        .arg(source)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ctxc");
    assert!(
        out.status.success(),
        "ctxc repair {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_check_clean(&output);
    std::fs::read_to_string(output).unwrap()
}

/// Every ctxc summary a session file holds: the JSON strings in it that carry the marker.
pub fn ctxc_summaries(text: &str) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.contains("[ctxc summary]") => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            Value::Object(o) => o.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match serde_json::from_str::<Value>(text) {
        Ok(doc) => walk(&doc, &mut out),
        Err(_) => text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .for_each(|v: Value| walk(&v, &mut out)),
    }
    out.dedup();
    out
}
