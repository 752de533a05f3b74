//! Object storage through a flaky network (issue 39): ctxc against the S3 stand-in through a
//! fault-injecting proxy on loopback ([`crate::s3_proxy`]). A write whose reply is lost is
//! read back and settled, never taken for a failure that loses the original; a read cut short
//! is retried, then fails its object, and is never compacted or written out; after it all,
//! `restore` gives back the original byte for byte.

use crate::s3::{Bucket, COMPACT, Paused};
use crate::s3_proxy::{Fault, Proxy};
use crate::stderr_of;
use serde_json::Value;

fn transcript() -> Vec<u8> {
    std::fs::read(crate::shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap()
}

/// `ctxc` pointed at the store through `proxy`.
fn through(bucket: &Bucket, proxy: &Proxy) -> assert_cmd::Command {
    let mut cmd = bucket.ctxc();
    cmd.env("AWS_ENDPOINT_URL", &proxy.endpoint);
    cmd
}

/// What `restore -o -` gives back for `url` (straight to the store).
fn restored(bucket: &Bucket, url: &str) -> Vec<u8> {
    let out = bucket
        .ctxc()
        .args(["restore", "-q", "-o", "-", url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    out.stdout
}

/// The records of the archive at `key`.
fn records(bucket: &Bucket, key: &str) -> Vec<Value> {
    let json: Value = serde_json::from_slice(&bucket.get(key).expect("an archive")).unwrap();
    json["records"].as_array().unwrap().clone()
}

/// A bucket named `name` holding the transcript at `s/t.jsonl`, behind a proxy that meets the
/// first `PUT` of that object with `fault`.
struct FaultyPut {
    bucket: Bucket,
    proxy: Proxy,
    original: Vec<u8>,
    url: String,
}

impl FaultyPut {
    /// The bucket and proxy, or `None` when moto is not installed.
    fn new(name: &str, fault: Fault) -> Option<FaultyPut> {
        let bucket = Bucket::new(name)?;
        let proxy = Proxy::start(&bucket.endpoint);
        let original = transcript();
        bucket.put("s/t.jsonl", &original);
        let url = bucket.url("s/t.jsonl");
        proxy.fail("PUT", &format!("/{name}/s/t.jsonl"), fault, 1);
        Some(FaultyPut {
            bucket,
            proxy,
            original,
            url,
        })
    }
}

/// The replace `PUT` lands but its answer never comes back: ctxc reads the object back, finds
/// its output there, commits the archive and exits 0; `restore` gives back the original.
#[test]
fn a_lost_reply_to_the_replace_commits_the_archive_of_the_output_that_landed() {
    let Some(FaultyPut {
        bucket,
        proxy,
        original,
        url,
    }) = FaultyPut::new("lost-reply", Fault::DropReply)
    else {
        return;
    };
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--in-place", "--archive", "--json", &url])
        .output()
        .unwrap();
    let dropped: Vec<_> = proxy
        .seen()
        .into_iter()
        .filter(|s| s.fault == Some(Fault::DropReply))
        .collect();
    assert_eq!(dropped.len(), 1, "the reply was dropped");
    assert_eq!(
        (dropped[0].method.as_str(), dropped[0].target.as_str()),
        ("PUT", "/lost-reply/s/t.jsonl")
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = report["files"][0]["notes"].to_string();
    assert!(notes.contains("answer to the write was lost"), "{notes}");
    let compacted = bucket.get("s/t.jsonl").unwrap();
    assert_ne!(compacted, original);
    let records = records(&bucket, "s/t.ctxc-archive.json");
    assert_eq!(records.len(), 1);
    assert!(records[0].get("pending").is_none(), "committed");
    assert_eq!(restored(&bucket, &url), original);
}

/// The replace is refused by the store before anything is written: read back, the object is
/// still the original, so the archive's record is put back, and the run fails that file.
#[test]
fn a_refused_replace_puts_the_archive_back_and_keeps_the_original() {
    let Some(FaultyPut {
        bucket,
        proxy,
        original,
        url,
    }) = FaultyPut::new("refused-replace", Fault::Refuse)
    else {
        return;
    };
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--in-place", "--archive", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(bucket.get("s/t.jsonl").unwrap(), original);
    assert_eq!(bucket.get("s/t.ctxc-archive.json"), None, "put back");
}

/// A Parquet dataset replaced in place, the reply to its `PUT` lost: the same settling.
#[test]
fn a_lost_reply_to_a_datasets_replace_commits_its_archive() {
    let Some(bucket) = Bucket::new("lost-reply-dataset") else {
        return;
    };
    let proxy = Proxy::start(&bucket.endpoint);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    let rows = crate::parquet::tau_bench_rows(6);
    let codec = parquet::basic::Compression::ZSTD(Default::default());
    crate::parquet::write_dataset(&input, &rows, 3, codec);
    let original = std::fs::read(&input).unwrap();
    bucket.put("s/runs.parquet", &original);
    let url = bucket.url("s/runs.parquet");
    proxy.fail(
        "PUT",
        "/lost-reply-dataset/s/runs.parquet",
        Fault::DropReply,
        1,
    );
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--in-place", "--archive", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("answer to the write was lost"),
        "{}",
        stderr_of(&out)
    );
    assert_ne!(bucket.get("s/runs.parquet").unwrap(), original);
    let records = records(&bucket, "s/runs.ctxc-archive.json");
    assert!(records.iter().all(|r| r.get("pending").is_none()));
    let back = dir.path().join("back.parquet");
    let out = bucket
        .ctxc()
        .args(["restore", "-q", &url, "-o"])
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // The same compaction and restore on disk give the same dataset back.
    let run = |args: &[&str]| {
        let out = crate::ctxc()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    };
    run(&[&COMPACT[..], &["--in-place", "--archive", "runs.parquet"]].concat());
    run(&["restore", "-q", "runs.parquet", "-o", "local-back.parquet"]);
    let local = std::fs::read(dir.path().join("local-back.parquet")).unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), local, "restored as on disk");
}

/// A `GET` cut in half with a `Content-Length` to match looks whole: the listing's size (on
/// a prefix) and the ETag's MD5 (one object) tell it. Once, it is read again and compacted
/// as a clean read is; every time, the object fails, nothing is written, the input is kept.
#[test]
fn a_read_cut_short_is_retried_then_fails_its_object_and_writes_nothing() {
    let Some(bucket) = Bucket::new("short-read") else {
        return;
    };
    let proxy = Proxy::start(&bucket.endpoint);
    let original = transcript();
    bucket.put("in/t.jsonl", &original);
    let clean = bucket
        .ctxc()
        .args(COMPACT)
        .args(["-o", "-", &bucket.url("in/t.jsonl")])
        .output()
        .unwrap();
    assert_eq!(clean.status.code(), Some(0), "{}", stderr_of(&clean));

    // Once, on a prefix: read again, and the output is the clean run's.
    proxy.fail("GET", "/short-read/in/t.jsonl", Fault::Truncate, 1);
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--out-dir", &bucket.url("once/"), &bucket.url("in/")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(bucket.get("once/t.jsonl").unwrap(), clean.stdout);

    // Every time, on a prefix to an output prefix: failed, nothing lands.
    proxy.fail("GET", "/short-read/in/t.jsonl", Fault::Truncate, 100);
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--out-dir", &bucket.url("out/"), &bucket.url("in/")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("never compacted"), "{err}");
    assert!(
        err.contains(&format!("{} bytes received", original.len() / 2)),
        "{err}"
    );
    assert_eq!(bucket.get("out/t.jsonl"), None, "no output landed");

    // Every time, one object in place with a backup: the object and nothing else as it was.
    let url = bucket.url("in/t.jsonl");
    let out = through(&bucket, &proxy)
        .args(COMPACT)
        .args(["--in-place", "--backup", "--archive", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("never compacted"));
    assert_eq!(bucket.get("in/t.jsonl").unwrap(), original);
    assert_eq!(bucket.get("in/t.jsonl.bak"), None, "no backup");
    assert_eq!(bucket.get("in/t.ctxc-archive.json"), None, "no archive");
    proxy.clear();
}

/// A run of `ctxc compact --in-place --archive` on `url` to `ratio`, stopped just before it
/// replaces the object (its archive record written pending).
fn paused(bucket: &Bucket, url: &str, ratio: &str) -> Paused {
    Paused::start(bucket, &crate::s3::in_place_args(url, ratio))
}

/// Two in-place `--archive` runs on one object, both having read the same version and
/// written their archive record, in either order of their replaces: the winner's archive is
/// the one left, never removed or rewritten by the loser, and restores the original.
#[test]
fn two_concurrent_in_place_runs_never_lose_the_winners_archive() {
    let Some(bucket) = Bucket::new("concurrent") else {
        return;
    };
    let original = transcript();
    let url = bucket.url("s/t.jsonl");
    for first_wins in [true, false] {
        bucket.put("s/t.jsonl", &original);
        bucket.delete("s/t.ctxc-archive.json");
        let first = paused(&bucket, &url, "0.5");
        let second = paused(&bucket, &url, "0.3");
        let ((won, won_err), (lost, lost_err)) = if first_wins {
            (first.go(), second.go())
        } else {
            (second.go(), first.go())
        };
        let order = if first_wins {
            "first wins"
        } else {
            "second wins"
        };
        assert_eq!(won, Some(0), "{order}: {won_err}");
        assert_eq!(lost, Some(1), "{order}: {lost_err}");
        assert!(
            lost_err.contains("changed since ctxc read it"),
            "{order}: {lost_err}"
        );
        assert_ne!(bucket.get("s/t.jsonl").unwrap(), original, "{order}");
        let records = records(&bucket, "s/t.ctxc-archive.json");
        assert_eq!(records.len(), 1, "{order}: {records:?}");
        assert!(records[0].get("pending").is_none(), "{order}");
        assert_eq!(restored(&bucket, &url), original, "{order}");
    }
}

/// Issue 39's bar on s3://: rounds of compact in place, append, compact again, with a lost
/// reply, a kill between the replace and the archive's commit, and two concurrent runs;
/// `restore` gives back the true original byte for byte, and each generation.
#[test]
fn rounds_with_lost_replies_kills_and_concurrent_runs_restore_the_original() {
    let Some(FaultyPut {
        bucket,
        proxy,
        original,
        url,
    }) = FaultyPut::new("rounds", Fault::DropReply)
    else {
        return;
    };
    let in_place = |failpoint: Option<&str>, ratio: &str| {
        crate::s3::in_place_round(through(&bucket, &proxy), &url, ratio, failpoint)
    };
    let append = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, bucket.get("s/t.jsonl").unwrap()).unwrap();
        crate::archive::append_turn(&path, text);
        let bytes = std::fs::read(&path).unwrap();
        bucket.put("s/t.jsonl", &bytes);
        bytes
    };
    // Round 1: the replace's reply is lost (the proxy's first fault).
    let out = in_place(None, "0.6");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let second = append("round 2: carry on");
    // Round 2: killed after the replace, before the archive's commit.
    let killed = in_place(Some("output-in-place"), "0.5");
    assert_eq!(killed.status.code(), None, "killed by a signal");
    let third = append("round 3: carry on");
    assert_ne!(third, second);
    // Round 3: two runs at once; one wins.
    let first = paused(&bucket, &url, "0.5");
    let other = paused(&bucket, &url, "0.4");
    let (won, won_err) = first.go();
    let (lost, lost_err) = other.go();
    assert_eq!(won, Some(0), "{won_err}");
    // Refused, or (the two outputs being the same bytes) done: the object holds its output.
    assert!(matches!(lost, Some(0 | 1)), "{lost_err}");
    assert_eq!(restored(&bucket, &url), original, "the true original");
    for (g, bytes) in [(2, &second), (3, &third)] {
        let out = bucket
            .ctxc()
            .args([
                "restore",
                "-q",
                "-o",
                "-",
                "--generation",
                &g.to_string(),
                &url,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert_eq!(&out.stdout, bytes, "generation {g}");
    }
}
