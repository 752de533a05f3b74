//! Whole-process figures of the built `ctxc`, side by side in one run (the machine is shared:
//! compare within a run, not across runs). Each row is the median of `--runs` runs, taken in
//! turns so that load changes hit every row alike.
//!
//! - start-up: `--version` (the floor), `check` and `stats -q` on a two-message file: wall time
//!   and peak RSS;
//! - threads: `stats -q` and `compact --dry-run` (adaptive, 50%) over the whole corpus with
//!   `--jobs 1` and `--jobs 2`;
//! - one core: the largest real Claude Code session compacted at 50% under `taskset -c 0`,
//!   dry run and writing its output, beside `stats` of it and the peer cozempic (`treat -rx
//!   standard --execute` on a copy; `CTXC_COZEMPIC`, else where `scripts/bench/peer-bench.sh`
//!   installs it), with the ratios the speed goals are set in;
//! - large inputs: compaction of generated inputs of 10 MB and more (varied prose, and a
//!   50 MiB tool output of short repeated lines) and of real sessions scaled past 10 MB (the
//!   largest Claude Code session written four times over, the 200 tau-bench conversations
//!   three times over): MB/s and peak RSS over input size.
//!
//! Run: `cargo bench --bench process` (add `-- --runs 7` for more runs; set
//! `CTXC_BASELINE=/path/to/other/ctxc` to measure another build's rows in the same turns). Needs GNU time at
//! `/usr/bin/time` for peak RSS and `taskset` for the one-core row (else those cells say so).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common.rs"]
#[allow(dead_code)]
mod common;

const CTXC: &str = env!("CARGO_BIN_EXE_ctxc");

/// One measured command.
struct Row {
    /// The binary to run.
    bin: String,
    name: String,
    args: Vec<String>,
    /// Bytes of input, for MB/s and RSS/input.
    input: usize,
    /// Pin to one core with taskset.
    pinned: bool,
    /// A file copied over another before every run, for a command that rewrites its input.
    fresh: Option<(PathBuf, PathBuf)>,
    /// HOME for the command (a peer that writes its state there stays in the scratch folder).
    home: Option<PathBuf>,
    seconds: Vec<f64>,
    rss_kb: Vec<u64>,
}

impl Row {
    fn new(name: &str, args: &[&str], input: usize, pinned: bool) -> Row {
        Row {
            bin: CTXC.to_string(),
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            input,
            pinned,
            fresh: None,
            home: None,
            seconds: Vec::new(),
            rss_kb: Vec::new(),
        }
    }

    /// A peer's command `bin args`, pinned, run on a fresh copy of `original` at `copy` with
    /// `home` as its HOME.
    fn peer(
        name: &str,
        bin: &Path,
        args: &[&str],
        original: &Path,
        copy: &Path,
        home: &Path,
    ) -> Row {
        let input = std::fs::metadata(original).unwrap().len() as usize;
        Row {
            bin: bin.to_str().unwrap().to_string(),
            fresh: Some((original.to_path_buf(), copy.to_path_buf())),
            home: Some(home.to_path_buf()),
            ..Row::new(name, args, input, true)
        }
    }

    /// Runs the command once, recording wall time and (with GNU time) peak RSS.
    fn run_once(&mut self) {
        let gnu_time = Path::new("/usr/bin/time").exists();
        let taskset = self.pinned && Path::new("/usr/bin/taskset").exists();
        let mut argv: Vec<String> = Vec::new();
        if gnu_time {
            argv.extend(["/usr/bin/time", "-f", "RSS_KB %M"].map(String::from));
        }
        if taskset {
            argv.extend(["/usr/bin/taskset", "-c", "0"].map(String::from));
        }
        argv.push(self.bin.clone());
        argv.extend(self.args.iter().cloned());
        if let Some((original, copy)) = &self.fresh {
            // The input is rewritten in place: each run starts from the original (read-only
            // in the corpus, so the copy's permissions are opened up first).
            let _ = std::fs::remove_file(copy);
            std::fs::copy(original, copy).unwrap();
            let mut perms = std::fs::metadata(copy).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(copy, perms).unwrap();
        }
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        if let Some(home) = &self.home {
            command.env("HOME", home);
        }
        let start = Instant::now();
        let out = command.output().expect("runs the command");
        self.seconds.push(start.elapsed().as_secs_f64());
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some(kb) = stderr
            .lines()
            .find_map(|l| l.strip_prefix("RSS_KB "))
            .and_then(|n| n.trim().parse().ok())
        {
            self.rss_kb.push(kb);
        }
        // Over the whole corpus, the files of unsupported formats fail (exit status 1).
        let whole_corpus = self.name.contains("corpus");
        assert!(
            out.status.success() || whole_corpus && out.status.code() == Some(1),
            "{} failed: {}",
            self.args.join(" "),
            stderr
        );
    }

    fn median_s(&self) -> f64 {
        median(&self.seconds)
    }

    fn print(&self) {
        let s = self.median_s();
        let rss = (!self.rss_kb.is_empty())
            .then(|| median(&self.rss_kb.iter().map(|&k| k as f64).collect::<Vec<_>>()) / 1024.0);
        let rss_cell = rss.map_or("n/a".to_string(), |m| format!("{m:.1}"));
        let (mbps, ratio) = if self.input > 0 {
            let mb = self.input as f64 / 1e6;
            (
                format!("{:.1}", mb / s),
                rss.map_or("n/a".to_string(), |m| format!("{:.2}x", m * 1.048_576 / mb)),
            )
        } else {
            ("-".to_string(), "-".to_string())
        };
        let pinned = if self.pinned { " (1 core)" } else { "" };
        println!(
            "{:<46} {:>9.1} {:>9} {:>9} {:>10}",
            format!("{}{pinned}", self.name),
            s * 1000.0,
            rss_cell,
            mbps,
            ratio
        );
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Writes an OpenAI chat file whose one tool output (answered and followed by a new turn, so
/// compaction may cut it) is `output`.
fn chat_with_output(path: &Path, output: &str) -> usize {
    let messages = serde_json::json!({ "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "bash", "arguments": "{\"cmd\":\"pytest\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": output},
        {"role": "assistant", "content": "All tests passed."},
        {"role": "user", "content": "thanks, now write the changelog"},
        {"role": "assistant", "content": "Done: CHANGELOG.md updated."}
    ]});
    let text = serde_json::to_string(&messages).unwrap();
    std::fs::write(path, &text).unwrap();
    text.len()
}

/// `bytes` of lines of pseudo-random words (a fixed seed: the same text every run).
fn varied_text(bytes: usize) -> String {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let words: Vec<String> = (0..5000)
        .map(|_| {
            let len = 2 + next() % 8;
            (0..len)
                .map(|_| char::from(b'a' + (next() % 26) as u8))
                .collect()
        })
        .collect();
    let mut text = String::with_capacity(bytes + 128);
    while text.len() < bytes {
        let n = 3 + next() % 12;
        for i in 0..n {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(&words[(next() % 5000) as usize]);
        }
        text.push('\n');
    }
    text
}

fn main() {
    let runs = common::runs();
    let dir = tempfile::tempdir().unwrap();
    let tiny = dir.path().join("tiny.json");
    std::fs::write(
        &tiny,
        r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#,
    )
    .unwrap();
    let corpus = common::corpus();
    let corpus_files = common::transcript_files(&corpus);
    let corpus_bytes: usize = corpus_files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len() as usize)
        .sum();
    let session = largest_claude_session(&corpus_files);
    let session_bytes = std::fs::metadata(&session).unwrap().len() as usize;
    let repeated = dir.path().join("repeated-lines.json");
    let repeated_bytes = chat_with_output(&repeated, &"ok: test passed\n".repeat(50 << 20 >> 4));
    let varied = dir.path().join("varied-lines.json");
    let varied_bytes = chat_with_output(&varied, &varied_text(50 << 20));
    let sessions = dir.path().join("claude-code-x4.jsonl");
    let sessions_bytes = repeated_session(&session, &sessions, 4);
    let runs_file = dir.path().join("tau-bench-x3.json");
    let runs_bytes = repeated_runs(
        &corpus.join("openai-chat/tau-bench/gpt-4o-airline.json"),
        &runs_file,
        3,
    );

    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (tiny, corpus_dir, session_path) = (s(&tiny), s(&corpus), s(&session));
    let compact = [
        "compact",
        "-q",
        "--dry-run",
        "--force",
        "--target-ratio",
        "0.5",
    ];
    let with = |base: &[&str], more: &[&str]| -> Vec<String> {
        base.iter().chain(more).map(|a| a.to_string()).collect()
    };
    let mut rows = vec![
        Row::new("ctxc --version (floor)", &["--version"], 0, false),
        Row::new("ctxc check tiny file", &["check", "-q", &tiny], 0, false),
        Row::new("ctxc stats -q tiny file", &["stats", "-q", &tiny], 0, false),
        Row::new(
            "stats corpus --jobs 1",
            &["stats", "-q", "--jobs", "1", &corpus_dir],
            corpus_bytes,
            false,
        ),
        Row::new(
            "stats corpus --jobs 2",
            &["stats", "-q", "--jobs", "2", &corpus_dir],
            corpus_bytes,
            false,
        ),
    ];
    for jobs in ["1", "2"] {
        let args = with(&compact, &["--jobs", jobs, &corpus_dir]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        rows.push(Row::new(
            &format!("compact 50% corpus --jobs {jobs}"),
            &args,
            corpus_bytes,
            false,
        ));
    }
    let one_core = with(&compact, &["--jobs", "1", &session_path]);
    let one_core: Vec<&str> = one_core.iter().map(String::as_str).collect();
    rows.push(Row::new(
        &format!("compact 50% {:.1} MB session", session_bytes as f64 / 1e6),
        &one_core,
        session_bytes,
        true,
    ));
    // The same session's fixed costs side by side, one core each: `stats` (one read and
    // count), `compact` writing its output (DESIGN's invariants verified on it), and the peer
    // cozempic rewriting a copy in place (`treat -rx standard --execute`), when installed.
    let session_mb = session_bytes as f64 / 1e6;
    rows.push(Row::new(
        &format!("stats -q {session_mb:.1} MB session"),
        &["stats", "-q", &session_path],
        session_bytes,
        true,
    ));
    let written_dir = dir.path().join("written");
    let written = [
        "compact",
        "-q",
        "--force",
        "--target-ratio",
        "0.5",
        "--jobs",
        "1",
        "--out-dir",
        written_dir.to_str().unwrap(),
        &session_path,
    ];
    rows.push(Row::new(
        &format!("compact 50% {session_mb:.1} MB session, written"),
        &written,
        session_bytes,
        true,
    ));
    let cozempic = cozempic_bin();
    if let Some(bin) = &cozempic {
        let home = dir.path().join("cozempic-home");
        std::fs::create_dir_all(&home).unwrap();
        let copy = home.join("session.jsonl");
        let copy_arg = copy.to_str().unwrap().to_string();
        rows.push(Row::peer(
            &format!("cozempic treat -rx standard {session_mb:.1} MB"),
            bin,
            &["treat", &copy_arg, "-rx", "standard", "--execute"],
            &session,
            &copy,
            &home,
        ));
    }
    for (name, path, bytes) in [
        (
            "compact 50% 50 MiB repeated lines",
            &repeated,
            repeated_bytes,
        ),
        ("compact 50% 50 MiB varied lines", &varied, varied_bytes),
        (
            &format!(
                "compact 50% {:.1} MB Claude Code x4",
                sessions_bytes as f64 / 1e6
            ),
            &sessions,
            sessions_bytes,
        ),
        (
            &format!("compact 50% {:.1} MB tau-bench x3", runs_bytes as f64 / 1e6),
            &runs_file,
            runs_bytes,
        ),
    ] {
        let args = with(&compact, &[&s(path)]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        rows.push(Row::new(name, &args, bytes, false));
    }

    // `CTXC_BASELINE=/path/to/ctxc` adds the same rows for another build, e.g. main's.
    if let Ok(baseline) = std::env::var("CTXC_BASELINE") {
        let extra: Vec<Row> = rows
            .iter()
            .filter(|r| r.fresh.is_none())
            .map(|r| Row {
                bin: baseline.clone(),
                name: format!("baseline: {}", r.name),
                args: r.args.clone(),
                fresh: None,
                home: None,
                seconds: Vec::new(),
                rss_kb: Vec::new(),
                ..*r
            })
            .collect();
        rows.extend(extra);
    }
    for _ in 0..runs {
        for row in &mut rows {
            row.run_once();
        }
    }
    println!(
        "runs: {runs} (median, taken in turns); corpus {} files, {:.1} MB; MB = 10^6 bytes\n",
        corpus_files.len(),
        corpus_bytes as f64 / 1e6
    );
    println!(
        "{:<46} {:>9} {:>9} {:>9} {:>10}",
        "command", "ms", "peak MiB", "MB/s", "RSS/input"
    );
    for row in &rows {
        row.print();
    }
    let ratio = |a: &str, b: &str| {
        let find = |n: &str| rows.iter().find(|r| r.name == n).unwrap().median_s();
        find(a) / find(b)
    };
    println!(
        "\n--jobs 2 speed-up: stats {:.2}x, compact {:.2}x",
        ratio("stats corpus --jobs 1", "stats corpus --jobs 2"),
        ratio("compact 50% corpus --jobs 1", "compact 50% corpus --jobs 2")
    );
    let stats_row = format!("stats -q {session_mb:.1} MB session");
    let written_row = format!("compact 50% {session_mb:.1} MB session, written");
    println!(
        "one core, {session_mb:.1} MB session: compact written / stats {:.2}x",
        ratio(&written_row, &stats_row)
    );
    if cozempic.is_some() {
        let peer_row = format!("cozempic treat -rx standard {session_mb:.1} MB");
        println!(
            "one core, {session_mb:.1} MB session: cozempic / compact written {:.2}x",
            ratio(&peer_row, &written_row)
        );
    } else {
        println!(
            "cozempic: not installed (scripts/bench/peer-bench.sh installs it; or CTXC_COZEMPIC)"
        );
    }
    println!(
        "repeated lines vs varied lines, time per byte: {:.2}x",
        ratio(
            "compact 50% 50 MiB repeated lines",
            "compact 50% 50 MiB varied lines"
        ) * varied_bytes as f64
            / repeated_bytes as f64
    );
}

/// The peer cozempic: `CTXC_COZEMPIC`, else the venv `scripts/bench/peer-bench.sh` installs it in.
fn cozempic_bin() -> Option<PathBuf> {
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/peer/venv/bin/cozempic");
    std::env::var_os("CTXC_COZEMPIC")
        .map(PathBuf::from)
        .or(Some(default))
        .filter(|p| p.exists())
}

/// A real session past 10 MB: the records of `session` written `times` times over, each copy's
/// uuids renamed (their first eight digits the copy's number) so that every chain still
/// resolves: `check` refuses a uuid that appears twice.
fn repeated_session(session: &Path, path: &Path, times: usize) -> usize {
    let mut one = std::fs::read_to_string(session).unwrap();
    if !one.ends_with('\n') {
        one.push('\n');
    }
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")
        .unwrap();
    let text: String = (0..times)
        .map(|copy| match copy {
            0 => one.clone(),
            _ => uuid
                .replace_all(&one, format!("{copy:08x}-$1"))
                .into_owned(),
        })
        .collect();
    std::fs::write(path, &text).unwrap();
    text.len()
}

/// Real conversations past 10 MB: the runs of a tau-bench file (a JSON array) `times` times
/// over, written as the original is (pretty-printed).
fn repeated_runs(file: &Path, path: &Path, times: usize) -> usize {
    let runs: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let all: Vec<&serde_json::Value> = (0..times).flat_map(|_| &runs).collect();
    let text = serde_json::to_string_pretty(&all).unwrap();
    std::fs::write(path, &text).unwrap();
    text.len()
}

/// The largest Claude Code session of the corpus (a real ~3 MB one).
fn largest_claude_session(files: &[PathBuf]) -> PathBuf {
    files
        .iter()
        .filter(|p| p.to_str().is_some_and(|s| s.contains("claude-code")))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .expect("the corpus has Claude Code sessions")
        .clone()
}
