//! Object storage: `stats`, `check` and `compact` on `s3://` prefixes against a real
//! S3-compatible server on loopback (moto's, installed by `scripts/ci/s3-standin.sh`): outputs
//! byte-identical to a local run, a run killed mid-upload leaving nothing at a final key and
//! resuming to the same end, `--in-place` keeping its backup and refusing an object that
//! changed since it was read, and archives kept in a bucket that `restore` reads back.
//!
//! Without moto installed the tests print why and pass, unless `CTXC_S3_REQUIRED` is set (as
//! `.ci/run` does).

use crate::compact::corpus_workspace;
use crate::stderr_of;
use crate::{ctxc, stdout_of};
use object_store::ObjectStoreExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The moto server shared by this binary's tests (each test uses a bucket of its own). It is
/// started through a shell that stops it when this process's end closes its standard input, so
/// no server outlives the tests.
struct Moto {
    endpoint: String,
    _shell: Mutex<Child>,
}

pub(crate) fn moto_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CTXC_MOTO_SERVER") {
        return Some(path.into());
    }
    let venv = std::env::var_os("CTXC_S3_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::root().join("target/s3-standin"));
    Some(venv.join("bin/moto_server")).filter(|p| p.exists())
}

/// The shared server, or `None` (after saying why) when moto is not installed.
fn moto() -> Option<&'static Moto> {
    static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
    MOTO.get_or_init(|| {
        let Some(server) = moto_server() else {
            let why = "moto_server not found (run scripts/ci/s3-standin.sh, or set CTXC_MOTO_SERVER)";
            if std::env::var_os("CTXC_S3_REQUIRED").is_some() {
                panic!("CTXC_S3_REQUIRED is set and {why}");
            }
            // Straight to stderr, once: the harness captures eprintln! of passing tests, and
            // would report these as plain `ok`.
            use std::io::Write;
            let bar = "!".repeat(78);
            let _ = writeln!(
                std::io::stderr(),
                "\n{bar}\n!!! SKIPPED: the object-storage tests did NOT run: {why}\n{bar}\n"
            );
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut shell = Command::new("sh")
            .arg("-c")
            .arg(r#""$0" -H 127.0.0.1 -p "$1" >/dev/null 2>&1 & pid=$!; echo started; read _; kill $pid"#)
            .arg(&server)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting moto_server");
        let mut line = String::new();
        BufReader::new(shell.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let endpoint = format!("http://127.0.0.1:{port}");
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed().as_secs() < 60, "moto_server did not start");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Some(Moto {
            endpoint,
            _shell: Mutex::new(shell),
        })
    })
    .as_ref()
}

/// One test's bucket on the shared server.
pub(crate) struct Bucket {
    name: String,
    pub(crate) endpoint: String,
    client: AmazonS3,
    runtime: tokio::runtime::Runtime,
}

impl Bucket {
    /// A new bucket, or `None` when moto is not installed.
    pub(crate) fn new(name: &str) -> Option<Bucket> {
        let moto = moto()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        create_bucket(&moto.endpoint, name);
        let client = AmazonS3Builder::new()
            .with_endpoint(&moto.endpoint)
            .with_allow_http(true)
            .with_bucket_name(name)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .build()
            .unwrap();
        Some(Bucket {
            name: name.to_string(),
            endpoint: moto.endpoint.clone(),
            client,
            runtime,
        })
    }

    pub(crate) fn url(&self, key: &str) -> String {
        format!("s3://{}/{key}", self.name)
    }

    pub(crate) fn put(&self, key: &str, bytes: &[u8]) {
        let payload = object_store::PutPayload::from(bytes.to_vec());
        self.runtime
            .block_on(self.client.put(&key.into(), payload))
            .unwrap();
    }

    pub(crate) fn delete(&self, key: &str) {
        self.runtime
            .block_on(self.client.delete(&key.into()))
            .unwrap();
    }

    pub(crate) fn get(&self, key: &str) -> Option<Vec<u8>> {
        let got = self.runtime.block_on(async {
            let got = self.client.get(&key.into()).await?;
            got.bytes().await
        });
        got.ok().map(|b| b.to_vec())
    }

    /// Every object below `prefix`, relative to it, with its bytes, sorted.
    fn tree(&self, prefix: &str) -> Vec<(String, Vec<u8>)> {
        use futures_util::TryStreamExt;
        let listed: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(
                object_store::ObjectStore::list(&self.client, Some(&prefix.into())).try_collect(),
            )
            .unwrap();
        let mut files: Vec<(String, Vec<u8>)> = listed
            .iter()
            .map(|m| {
                let key = m.location.as_ref();
                let rel = key.strip_prefix(&format!("{prefix}/")).unwrap().to_string();
                (rel, self.get(key).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// Copies every file of `dir` (not below) to `prefix/NAME`.
    fn upload(&self, dir: &Path, prefix: &str) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let name = path.file_name().unwrap().to_string_lossy();
                self.put(&format!("{prefix}/{name}"), &std::fs::read(&path).unwrap());
            }
        }
    }

    /// `ctxc` pointed at this server, with no other AWS settings of the machine.
    pub(crate) fn ctxc(&self) -> assert_cmd::Command {
        let mut cmd = ctxc();
        for name in aws_vars() {
            cmd.env_remove(name);
        }
        for (name, value) in self.env() {
            cmd.env(name, value);
        }
        cmd
    }

    /// The settings that point ctxc at this server.
    pub(crate) fn env(&self) -> [(&'static str, &str); 5] {
        [
            ("AWS_ENDPOINT_URL", &self.endpoint),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
        ]
    }
}

/// The machine's own AWS settings, which the tests keep away from ctxc.
pub(crate) fn aws_vars() -> Vec<String> {
    std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("AWS_") || name.starts_with("CTXC_"))
        .collect()
}

/// Makes a bucket: moto takes an unsigned `PUT /BUCKET`.
fn create_bucket(endpoint: &str, name: &str) {
    unsigned_put(endpoint, name, "", b"");
}

/// An unsigned `PUT /PATH` with extra header lines, which moto takes.
pub(crate) fn unsigned_put(endpoint: &str, path: &str, headers: &str, body: &[u8]) {
    use std::io::{Read, Write};
    let host = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    let head = format!(
        "PUT /{path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Every file under `dir`, relative, with its bytes, sorted.
fn local_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(dir).unwrap();
            let bytes = std::fs::read(entry.path()).unwrap();
            files.push((rel.to_string_lossy().into_owned(), bytes));
        }
    }
    files.sort();
    files
}

/// A report's files with paths cut to their names and times left out: what must be equal
/// between a local run and one on the store.
fn files_of(report: &Value) -> Vec<Value> {
    let name = |v: &Value| {
        v.as_str()
            .map(|s| s.rsplit('/').next().unwrap().to_string())
    };
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = f.clone();
            let o = f.as_object_mut().unwrap();
            o.remove("timeMs");
            for key in ["path", "output"] {
                if let Some(n) = o.get(key).and_then(name) {
                    o.insert(key.into(), n.into());
                }
            }
            f
        })
        .collect()
}

pub(crate) fn json(out: &std::process::Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(crate) const COMPACT: [&str; 6] =
    ["compact", "--force", "--target-ratio", "0.5", "--jobs", "1"];

#[test]
fn stats_check_and_compact_on_a_prefix_match_the_local_run() {
    let Some(bucket) = Bucket::new("corpus") else {
        return;
    };
    let dir = corpus_workspace();
    let d = dir.path();
    bucket.upload(d, "in");
    // Something --glob leaves out.
    bucket.put("in/notes.txt", b"not a transcript");

    let local_stats = json(&ctxc().args(["stats", "--json"]).arg(d).output().unwrap());
    let remote_stats = bucket
        .ctxc()
        .args(["stats", "--json", &bucket.url("in/")])
        .output()
        .unwrap();
    let remote_stats = json(&remote_stats);
    assert_eq!(files_of(&remote_stats), files_of(&local_stats));
    assert_eq!(remote_stats["totals"], local_stats["totals"]);
    let first = remote_stats["files"][0]["path"].as_str().unwrap();
    assert!(first.starts_with("s3://corpus/in/"), "{first}");

    // The same object, made public, over plain HTTP: read only.
    let name = local_tree(d)[0].0.clone();
    let public = format!("corpus/public/{name}");
    let bytes = std::fs::read(d.join(&name)).unwrap();
    unsigned_put(
        &bucket.endpoint,
        &public,
        "x-amz-acl: public-read\r\n",
        &bytes,
    );
    let http = format!("{}/{public}", bucket.endpoint);
    let one = json(
        &bucket
            .ctxc()
            .args(["stats", "--json", &http])
            .output()
            .unwrap(),
    );
    assert_eq!(files_of(&one)[0], files_of(&local_stats)[0]);
    let read_only = bucket
        .ctxc()
        .args(["compact", "--in-place", &http])
        .output()
        .unwrap();
    assert_eq!(read_only.status.code(), Some(1));
    assert!(
        stderr_of(&read_only).contains("read only"),
        "{}",
        stderr_of(&read_only)
    );
    let to_http = bucket
        .ctxc()
        .args(["compact", "-o", &http.replace(&name, "y.json")])
        .arg(bucket.url(&format!("in/{name}")))
        .output()
        .unwrap();
    assert_eq!(to_http.status.code(), Some(1));
    assert!(
        stderr_of(&to_http).contains("read only"),
        "{}",
        stderr_of(&to_http)
    );
    let listing = bucket
        .ctxc()
        .args(["stats", &format!("{}/corpus/in/", bucket.endpoint)])
        .output()
        .unwrap();
    assert!(
        stderr_of(&listing).contains("names one object"),
        "{}",
        stderr_of(&listing)
    );

    let check = bucket
        .ctxc()
        .args(["check", &bucket.url("in")])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", stderr_of(&check));

    // An output of an earlier run, which compact skips.
    bucket.put("in/old.compact.jsonl", b"[]");
    let work = tempfile::tempdir().unwrap();
    let local = ctxc()
        .args(COMPACT)
        .arg("--out-dir")
        .arg(work.path().join("out"))
        .arg("--report")
        .arg(work.path().join("local.json"))
        .arg(d)
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    let remote = bucket
        .ctxc()
        .args(COMPACT)
        .args([
            "--out-dir",
            &bucket.url("out/"),
            "--report",
            &bucket.url("report.json"),
        ])
        .arg(bucket.url("in/"))
        .output()
        .unwrap();
    assert_eq!(remote.status.code(), Some(0), "{}", stderr_of(&remote));
    assert_eq!(
        bucket.tree("out"),
        local_tree(&work.path().join("out")),
        "byte-identical"
    );
    let local_report: Value =
        serde_json::from_slice(&std::fs::read(work.path().join("local.json")).unwrap()).unwrap();
    let remote_report: Value = serde_json::from_slice(&bucket.get("report.json").unwrap()).unwrap();
    assert_eq!(files_of(&remote_report), files_of(&local_report));
    assert_eq!(
        remote_report["files"][0]["output"].as_str().unwrap(),
        format!("s3://corpus/out/{}", local_tree(d)[0].0)
    );

    // The same command again is safe: each output there already holds exactly its result.
    let again = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--out-dir", &bucket.url("out/")])
        .arg(bucket.url("in/"))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert!(stdout_of(&again).contains("byte for byte this result"));
    // Other settings: an existing output is refused, by URL, and the others go on (exit 1).
    let again = bucket
        .ctxc()
        .args(["compact", "--force", "--target-ratio", "0.3", "--jobs", "1"])
        .args(["--out-dir", &bucket.url("out/")])
        .arg(bucket.url("in/"))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr_of(&again).contains("the output s3://corpus/out/")
            && stderr_of(&again).contains("exists"),
        "{}",
        stderr_of(&again)
    );
    // A missing object is named.
    let missing = bucket
        .ctxc()
        .args(["stats", &bucket.url("in/nope.json")])
        .output()
        .unwrap();
    // As a missing local path: an I/O error, 2.
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr_of(&missing).contains("s3://corpus/in/nope.json"),
        "{}",
        stderr_of(&missing)
    );
}

/// A transcript larger than two upload parts: an array of tau-bench runs, repeated.
fn large_transcript() -> Vec<u8> {
    let text = std::fs::read_to_string(crate::shared(
        "corpus/openai-chat/tau-bench/gpt-4o-airline.json",
    ))
    .unwrap();
    let runs: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(&text).unwrap();
    let mut all = Vec::new();
    while all.len() * text.len() / runs.len().max(1) < 20 << 20 {
        all.extend(runs.iter().cloned());
    }
    serde_json::to_vec(&all).unwrap()
}

#[test]
fn a_run_killed_mid_upload_leaves_no_partial_object_and_resumes_identical() {
    let Some(bucket) = Bucket::new("killed") else {
        return;
    };
    let dir = corpus_workspace();
    let d = dir.path();
    std::fs::write(d.join("aaa-large.json"), large_transcript()).unwrap();
    bucket.upload(d, "in");
    let work = tempfile::tempdir().unwrap();
    let manifest = work.path().join("manifest.jsonl");
    // The large transcript triggers nothing: it is written as it was, in parts.
    const RUN: [&str; 4] = ["compact", "--jobs", "1", "-q"];
    let run = |failpoint: Option<&str>| {
        let mut cmd = bucket.ctxc();
        cmd.args(RUN)
            .args(["--out-dir", &bucket.url("out/"), "--resume-from"])
            .arg(&manifest)
            .arg(bucket.url("in/"));
        if let Some(point) = failpoint {
            cmd.env("CTXC_FAILPOINT", point);
        }
        cmd.output().unwrap()
    };
    let local = ctxc()
        .args(RUN)
        .arg("--out-dir")
        .arg(work.path().join("out"))
        .arg(d)
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    let expected = local_tree(&work.path().join("out"));
    // What is at a final key is a whole output, byte for byte the local run's.
    let whole = |outputs: &[(String, Vec<u8>)]| {
        outputs
            .iter()
            .all(|(key, bytes)| expected.iter().any(|(k, b)| k == key && b == bytes))
    };
    // The large transcript comes first; killed after the first part of its output is sent
    // (while the small outputs after it upload beside it): it is not at its key.
    let killed = run(Some("upload-part:1"));
    assert_eq!(killed.status.code(), None, "killed: {}", stderr_of(&killed));
    let partial = bucket.tree("out");
    assert!(
        whole(&partial) && !partial.iter().any(|(k, _)| k == "aaa-large.json"),
        "nothing partial at a final key: {:?}",
        keys(&bucket)
    );
    // Killed again once one more output is in place (others may have finished uploading
    // meanwhile).
    let before = partial.len();
    let killed = run(Some("remote-put:1"));
    assert_eq!(killed.status.code(), None, "killed: {}", stderr_of(&killed));
    let partial = bucket.tree("out");
    assert!(partial.len() > before, "{:?}", keys(&bucket));
    assert!(whole(&partial), "nothing partial: {:?}", keys(&bucket));
    let finished = run(None);
    assert_eq!(finished.status.code(), Some(0), "{}", stderr_of(&finished));

    let outputs = bucket.tree("out");
    assert_eq!(outputs.len(), expected.len());
    assert!(
        outputs[0].1.len() > 2 * ctxc::store::PART_SIZE,
        "the large output went in parts"
    );
    assert!(outputs == expected, "byte-identical to the local run");
    // Finished: a re-run redoes nothing.
    let again = bucket
        .ctxc()
        .args(["compact", "--jobs", "1", "-v"])
        .args(["--out-dir", &bucket.url("out/"), "--resume-from"])
        .arg(&manifest)
        .arg(bucket.url("in/"))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert_eq!(
        stderr_of(&again)
            .matches("finished by an earlier run")
            .count(),
        expected.len()
    );
}

fn keys(bucket: &Bucket) -> Vec<String> {
    bucket.tree("out").into_iter().map(|(k, _)| k).collect()
}

#[test]
fn in_place_on_s3_keeps_a_backup_and_refuses_an_object_changed_meanwhile() {
    let Some(bucket) = Bucket::new("inplace") else {
        return;
    };
    let original =
        std::fs::read(crate::shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    bucket.put("s/tool_heavy.jsonl", &original);
    let url = bucket.url("s/tool_heavy.jsonl");
    let paused = Paused::start(
        &bucket,
        &[&COMPACT[..], &["--in-place", "--backup", &url]].concat(),
    );
    // Between ctxc's read and its write, someone appends a record.
    let mut changed = original.clone();
    changed.extend_from_slice(b"{\"type\":\"user\",\"late\":true}\n");
    bucket.put("s/tool_heavy.jsonl", &changed);
    let (code, err) = paused.go();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{url} changed since ctxc read it")),
        "{err}"
    );
    assert_eq!(
        bucket.get("s/tool_heavy.jsonl").unwrap(),
        changed,
        "the change is kept"
    );
    assert_eq!(
        bucket.get("s/tool_heavy.jsonl.bak").unwrap(),
        original,
        "backup first"
    );

    // Undisturbed, the object is replaced by what a local run writes; its backup, the
    // original, was there already and is kept (a note says so).
    bucket.put("s/tool_heavy.jsonl", &original);
    let done = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--in-place", "--backup", &url])
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr_of(&done));
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("tool_heavy.jsonl");
    std::fs::write(&input, &original).unwrap();
    let local = ctxc()
        .args(COMPACT)
        .arg("-o")
        .arg(work.path().join("out.jsonl"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    let compacted = std::fs::read(work.path().join("out.jsonl")).unwrap();
    assert_ne!(compacted, original);
    assert_eq!(bucket.get("s/tool_heavy.jsonl").unwrap(), compacted);
    assert_eq!(bucket.get("s/tool_heavy.jsonl.bak").unwrap(), original);
    // A second run: the backup holds another version, and is never overwritten.
    let third = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--in-place", "--backup", &url])
        .output()
        .unwrap();
    assert_eq!(third.status.code(), Some(1));
    assert!(
        stderr_of(&third).contains("never overwrites a backup"),
        "{}",
        stderr_of(&third)
    );
    assert_eq!(bucket.get("s/tool_heavy.jsonl.bak").unwrap(), original);
}

#[test]
fn a_parquet_dataset_is_read_from_and_written_to_a_bucket() {
    let Some(bucket) = Bucket::new("dataset") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    let rows = crate::parquet::tau_bench_rows(8);
    let codec = parquet::basic::Compression::ZSTD(Default::default());
    crate::parquet::write_dataset(&input, &rows, 3, codec);
    bucket.put("in/runs.parquet", &std::fs::read(&input).unwrap());
    let local = json(
        &ctxc()
            .args(["stats", "--json"])
            .arg(&input)
            .output()
            .unwrap(),
    );
    let url = bucket.url("in/runs.parquet");
    let remote = json(
        &bucket
            .ctxc()
            .args(["stats", "--json", &url])
            .output()
            .unwrap(),
    );
    assert_eq!(files_of(&remote), files_of(&local));
    assert_eq!(remote["files"][1]["path"], format!("{url}#row=1"));

    let out = dir.path().join("out.parquet");
    let local = ctxc()
        .args(COMPACT)
        .arg("-o")
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    let remote = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--out-dir", &bucket.url("out/"), &bucket.url("in/")])
        .output()
        .unwrap();
    assert_eq!(remote.status.code(), Some(0), "{}", stderr_of(&remote));
    assert_eq!(
        bucket.get("out/runs.parquet").unwrap(),
        std::fs::read(&out).unwrap()
    );
    // With a manifest, a dataset uploaded by an earlier run is skipped, its rows' reports
    // given again, and the object is not written anew.
    let manifest = dir.path().join("run.manifest");
    let resumed = |what: &str| {
        let run = bucket
            .ctxc()
            .args(COMPACT)
            .args(["-v", "--json", "--force-overwrite", "--resume-from"])
            .arg(&manifest)
            .args(["--out-dir", &bucket.url("again/"), &bucket.url("in/")])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{what}: {}", stderr_of(&run));
        (json(&run), stderr_of(&run))
    };
    let (first, _) = resumed("first run");
    bucket.put("again/runs.parquet", b"changed meanwhile");
    let (redone, log) = resumed("output changed: redone");
    assert!(!log.contains("finished by an earlier run"), "{log}");
    assert_eq!(
        bucket.get("again/runs.parquet").unwrap(),
        std::fs::read(&out).unwrap()
    );
    let (skipped, log) = resumed("finished: skipped");
    assert!(log.contains("finished by an earlier run"), "{log}");
    assert_eq!(files_of(&skipped).len(), files_of(&first).len());
    assert_eq!(files_of(&redone).len(), files_of(&first).len());
}

/// Two transcripts of the corpus (JSONL and JSON) in `DIR/in/`.
fn two_transcripts(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let mut files = Vec::new();
    for rel in [
        "corpus/claude-code/spotter/tool_heavy.jsonl",
        "corpus/swe-agent/ctf__crypto__katy.traj",
    ] {
        let bytes = std::fs::read(crate::shared(rel)).unwrap();
        let name = rel.rsplit('/').next().unwrap().to_string();
        std::fs::write(input.join(&name), &bytes).unwrap();
        files.push((name, bytes));
    }
    files
}

#[test]
fn an_archive_in_a_bucket_restores_every_original_byte_for_byte() {
    let Some(bucket) = Bucket::new("archives") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let originals = two_transcripts(w);
    bucket.upload(&w.join("in"), "in");
    // The same run on disk and on the bucket writes the same outputs, each with its archive
    // beside it.
    let local = ctxc()
        .args(COMPACT)
        .arg("--archive")
        .arg("--out-dir")
        .arg(w.join("out"))
        .arg(w.join("in"))
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    let remote = bucket
        .ctxc()
        .args(COMPACT)
        .args([
            "--archive",
            "--out-dir",
            &bucket.url("out/"),
            &bucket.url("in/"),
        ])
        .output()
        .unwrap();
    assert_eq!(remote.status.code(), Some(0), "{}", stderr_of(&remote));
    let outputs = |tree: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        tree.into_iter()
            .filter(|(name, _)| !name.ends_with(".ctxc-archive.json"))
            .collect()
    };
    assert_eq!(
        outputs(bucket.tree("out")),
        outputs(local_tree(&w.join("out"))),
        "byte-identical outputs"
    );
    let names: Vec<String> = bucket.tree("out").into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        names,
        [
            "ctf__crypto__katy.ctxc-archive.json",
            "ctf__crypto__katy.traj",
            "tool_heavy.ctxc-archive.json",
            "tool_heavy.jsonl",
        ]
    );
    for (name, original) in &originals {
        let stem = name.rsplit_once('.').unwrap().0;
        let archive = bucket.url(&format!("out/{stem}.ctxc-archive.json"));
        assert_ne!(&bucket.get(&format!("out/{name}")).unwrap(), original);
        // From the archive in the bucket to a disk...
        let back = w.join(format!("back-{name}"));
        let out = bucket
            .ctxc()
            .args(["restore", &archive, "-o"])
            .arg(&back)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert_eq!(&std::fs::read(&back).unwrap(), original, "{name}");
        // ...and, named by the compacted object, to the bucket.
        let out = bucket
            .ctxc()
            .args(["restore", &bucket.url(&format!("out/{name}")), "-o"])
            .arg(bucket.url(&format!("back/{name}")))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert_eq!(&bucket.get(&format!("back/{name}")).unwrap(), original);
        // The original's place is outside the compacted object's: restore writes there only
        // when told to with -o (an archive does not choose), and the refusal names it.
        let out = bucket.ctxc().args(["restore", &archive]).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let input = bucket.url(&format!("in/{name}"));
        assert!(
            stderr_of(&out).contains(&format!("names {input} as the original's place")),
            "{}",
            stderr_of(&out)
        );
        let shown = bucket
            .ctxc()
            .args(["archive", "show", &archive])
            .output()
            .unwrap();
        assert_eq!(shown.status.code(), Some(0), "{}", stderr_of(&shown));
        assert!(String::from_utf8_lossy(&shown.stdout).contains(&format!("../in/{name}")));
    }

    // From a bucket to a disk, and from a disk to a bucket with --archive-dir in it.
    let (name, original) = &originals[0];
    let out = bucket
        .ctxc()
        .args(COMPACT)
        .arg("--archive")
        .arg("-o")
        .arg(w.join("local/s.jsonl"))
        .arg(bucket.url(&format!("in/{name}")))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(w.join("local/s.ctxc-archive.json").is_file());
    let back = w.join("local/back.jsonl");
    let out = ctxc()
        .arg("restore")
        .arg(w.join("local/s.jsonl"))
        .arg("-o")
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(&std::fs::read(&back).unwrap(), original);
    let out = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--archive", "--archive-dir", &bucket.url("arch/"), "-o"])
        .arg(bucket.url("o2/s.jsonl"))
        .arg(w.join("in").join(name))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let out = bucket
        .ctxc()
        .args([
            "restore",
            "-o",
            "-",
            &bucket.url("arch/s.ctxc-archive.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(&out.stdout, original);
}

/// A run of `ctxc ARGS` at the bucket, spawned (not run to its end, so that a test acts while
/// it waits) with the shielding of `ctxc()` by hand, stopped just before it replaces an object
/// until [`Paused::go`].
pub(crate) struct Paused {
    child: std::process::Child,
    dir: tempfile::TempDir,
}

impl Paused {
    pub(crate) fn start(bucket: &Bucket, args: &[&str]) -> Paused {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxc"));
        for name in aws_vars() {
            cmd.env_remove(name);
        }
        cmd.envs(bucket.env())
            .env(
                "XDG_CONFIG_HOME",
                crate::root().join("target/no-user-config"),
            )
            .env(
                "CTXC_PAUSE",
                format!("remote-replace:{}", dir.path().display()),
            )
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        let started = std::time::Instant::now();
        while !dir.path().join("paused").exists() {
            assert!(
                started.elapsed().as_secs() < 120,
                "never reached remote-replace"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        Paused { child, dir }
    }

    /// Lets it go on, and waits for its end: exit code and standard error.
    pub(crate) fn go(self) -> (Option<i32>, String) {
        std::fs::write(self.dir.path().join("go"), "").unwrap();
        let out = self.child.wait_with_output().unwrap();
        (out.status.code(), stderr_of(&out))
    }
}

/// The arguments of one round of `compact --in-place --archive` on `url` to `ratio`.
pub(crate) fn in_place_args<'a>(url: &'a str, ratio: &'a str) -> [&'a str; 10] {
    [
        "compact",
        "-q",
        "--force",
        "--jobs",
        "1",
        "--target-ratio",
        ratio,
        "--in-place",
        "--archive",
        url,
    ]
}

/// One round of `compact --in-place --archive` on `url` run by `cmd`, killed at `failpoint`
/// when one is named.
pub(crate) fn in_place_round(
    mut cmd: assert_cmd::Command,
    url: &str,
    ratio: &str,
    failpoint: Option<&str>,
) -> std::process::Output {
    if let Some(point) = failpoint {
        cmd.env("CTXC_FAILPOINT", point);
    }
    cmd.args(in_place_args(url, ratio)).output().unwrap()
}

#[test]
fn in_place_on_s3_with_an_archive_chains_and_a_kill_loses_nothing() {
    let Some(bucket) = Bucket::new("inplace-archive") else {
        return;
    };
    let original =
        std::fs::read(crate::shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    let url = bucket.url("s/t.jsonl");
    let archive = bucket.url("s/t.ctxc-archive.json");
    let round = |ratio: &str, failpoint: Option<&str>| {
        in_place_round(bucket.ctxc(), &url, ratio, failpoint)
    };
    let restored = |extra: &[&str]| {
        let out = bucket
            .ctxc()
            .args(["restore", "-q", "-o", "-"])
            .args(extra)
            .arg(&url)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        out.stdout
    };
    // Killed after the archive's record is written pending, before the object is replaced:
    // the object is as it was, and the pending record is no compaction.
    bucket.put("s/t.jsonl", &original);
    let killed = round("0.5", Some("archive-pending"));
    assert_eq!(killed.status.code(), None, "killed by a signal");
    assert_eq!(bucket.get("s/t.jsonl").unwrap(), original);
    let nothing = bucket.ctxc().args(["restore", &archive]).output().unwrap();
    assert_eq!(nothing.status.code(), Some(1));
    assert!(
        stderr_of(&nothing).contains("never reached its file"),
        "{}",
        stderr_of(&nothing)
    );
    // Killed after the object is replaced, before the record is committed: the record
    // counts, and restores the original.
    let killed = round("0.5", Some("output-in-place"));
    assert_eq!(killed.status.code(), None, "killed by a signal");
    let first = bucket.get("s/t.jsonl").unwrap();
    assert_ne!(first, original);
    assert_eq!(restored(&[]), original);
    // One more round in place joins the archive: each step back comes back.
    let again = round("0.3", None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert_ne!(bucket.get("s/t.jsonl").unwrap(), first);
    assert_eq!(restored(&[]), original);
    assert_eq!(restored(&["--steps", "1"]), first);
    let json: Value =
        serde_json::from_slice(&bucket.get("s/t.ctxc-archive.json").unwrap()).unwrap();
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r.get("pending").is_none()));
    assert_eq!(records[0]["input"]["path"], url.as_str());
}

#[test]
fn a_dataset_in_a_bucket_is_archived_restored_and_replaced_in_place() {
    let Some(bucket) = Bucket::new("dataset-archive") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("runs.parquet");
    let rows = crate::parquet::tau_bench_rows(8);
    let codec = parquet::basic::Compression::ZSTD(Default::default());
    crate::parquet::write_dataset(&input, &rows, 3, codec);
    let original = std::fs::read(&input).unwrap();
    // On disk: compacted with its archive, then restored.
    let run = |args: &[&str]| {
        let out = ctxc().current_dir(d).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    };
    run(&[
        &COMPACT[..],
        &["--archive", "-o", "out.parquet", "runs.parquet"],
    ]
    .concat());
    run(&["restore", "-q", "out.parquet", "-o", "back.parquet"]);
    let compacted = std::fs::read(d.join("out.parquet")).unwrap();
    let restored = std::fs::read(d.join("back.parquet")).unwrap();
    assert_ne!(compacted, original);

    // The same from a bucket to a bucket: the same dataset and archive's restore.
    bucket.put("in/runs.parquet", &original);
    let out = bucket
        .ctxc()
        .args(COMPACT)
        .args([
            "--archive",
            "--out-dir",
            &bucket.url("out/"),
            &bucket.url("in/"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(bucket.get("out/runs.parquet").unwrap(), compacted);
    assert!(bucket.get("out/runs.ctxc-archive.json").is_some());
    let out = bucket
        .ctxc()
        .args(["restore", "-q", &bucket.url("out/runs.parquet"), "-o"])
        .arg(bucket.url("back/runs.parquet"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(bucket.get("back/runs.parquet").unwrap(), restored);

    // In place: changed between ctxc's read and its write, the object is left as it is,
    // and the archive records nothing.
    let url = bucket.url("s/runs.parquet");
    bucket.put("s/runs.parquet", &original);
    let args = [&COMPACT[..], &["--in-place", "--backup", "--archive", &url]].concat();
    let paused = Paused::start(&bucket, &args);
    bucket.put("s/runs.parquet", b"PAR1 rewritten meanwhile");
    let (code, err) = paused.go();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{url} changed since ctxc read it")),
        "{err}"
    );
    assert_eq!(
        bucket.get("s/runs.parquet").unwrap(),
        b"PAR1 rewritten meanwhile"
    );
    assert_eq!(bucket.get("s/runs.parquet.bak").unwrap(), original);
    assert_eq!(bucket.get("s/runs.ctxc-archive.json"), None, "rolled back");

    // Undisturbed: replaced by what a local run writes, its backup kept, and restorable.
    bucket.put("s/runs.parquet", &original);
    let out = bucket
        .ctxc()
        .args(COMPACT)
        .args(["--in-place", "--backup", "--archive", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(bucket.get("s/runs.parquet").unwrap(), compacted);
    assert_eq!(bucket.get("s/runs.parquet.bak").unwrap(), original);
    let out = bucket
        .ctxc()
        .args(["restore", "-q", &url, "-o"])
        .arg(d.join("in-place-back.parquet"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        std::fs::read(d.join("in-place-back.parquet")).unwrap(),
        restored
    );
}

#[test]
fn a_manifest_in_a_bucket_resumes_a_killed_run() {
    let Some(bucket) = Bucket::new("manifest") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    two_transcripts(w);
    bucket.upload(&w.join("in"), "in");
    let manifest = bucket.url("run/manifest.jsonl");
    let run = |failpoint: Option<&str>| {
        let mut cmd = bucket.ctxc();
        if let Some(point) = failpoint {
            cmd.env("CTXC_FAILPOINT", point);
        }
        cmd.args(COMPACT)
            .args(["-v", "--resume-from", &manifest, "--out-dir"])
            .args([&bucket.url("out/"), &bucket.url("in/")])
            .output()
            .unwrap()
    };
    let parts = || -> Vec<String> {
        bucket
            .tree("run")
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k.starts_with("manifest.jsonl.parts/"))
            .collect()
    };
    // Killed after the second entry, before its output: one output, two entries kept as
    // objects of their own, no manifest object yet.
    let killed = run(Some("manifest-entry:2"));
    assert_eq!(killed.status.code(), None, "killed: {}", stderr_of(&killed));
    assert_eq!(bucket.tree("out").len(), 1, "{:?}", keys(&bucket));
    assert_eq!(parts().len(), 2);
    assert_eq!(bucket.get("run/manifest.jsonl"), None);
    // Resumed: the first is skipped, the second redone; the parts are folded in.
    let resumed = run(None);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    assert_eq!(
        stderr_of(&resumed)
            .matches("finished by an earlier run")
            .count(),
        1,
        "{}",
        stderr_of(&resumed)
    );
    assert!(parts().is_empty(), "{:?}", parts());
    let folded = bucket.get("run/manifest.jsonl").unwrap();
    assert_eq!(folded.iter().filter(|&&b| b == b'\n').count(), 3);
    let local = ctxc()
        .args(COMPACT)
        .arg("--out-dir")
        .arg(w.join("out"))
        .arg(w.join("in"))
        .output()
        .unwrap();
    assert_eq!(local.status.code(), Some(0), "{}", stderr_of(&local));
    assert_eq!(
        bucket.tree("out"),
        local_tree(&w.join("out")),
        "byte-identical"
    );
    // Finished: a re-run redoes nothing and writes no entry.
    let again = run(None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert_eq!(
        stderr_of(&again)
            .matches("finished by an earlier run")
            .count(),
        2
    );
    assert_eq!(bucket.get("run/manifest.jsonl").unwrap(), folded);
    assert!(parts().is_empty());
}
