//! Object keys object_store cannot address (`in//x.jsonl`, `in/../y.jsonl`) beside ordinary
//! ones, against the moto server of `s3.rs`: every command that reads a prefix names each odd
//! key and skips it (exit 1), processes the others, and writes nothing at a normalised key
//! (which would be another object). Before, one such key failed the whole listing: exit 2,
//! nothing processed.

use crate::s3::{Bucket, json, unsigned_put};
use crate::{shared, stderr_of, stdout_of};
use std::collections::BTreeMap;

const ODD: [&str; 2] = ["in//x.jsonl", "in/../y.jsonl"];
const VALID: [&str; 2] = ["in/a.jsonl", "in/sub/b.jsonl"];

/// Every key in the bucket as the store holds it, with its ETag (its bytes' MD5): listed by
/// an unsigned request (moto takes it), since object_store's own listing fails on the odd keys,
/// and moto refuses a GET of a `..` key.
fn raw_objects(bucket: &Bucket, name: &str) -> BTreeMap<String, String> {
    let listing = unsigned_get(bucket, &format!("{name}?list-type=2"));
    let field = |entry: &str, tag: &str| {
        let open = format!("<{tag}>");
        let rest = &entry[entry.find(&open).unwrap() + open.len()..];
        rest[..rest.find('<').unwrap()].to_string()
    };
    listing
        .split("<Contents>")
        .skip(1)
        .map(|entry| (field(entry, "Key"), field(entry, "ETag")))
        .collect()
}

/// The body of an unsigned `GET /PATH`, sent as it is.
fn unsigned_get(bucket: &Bucket, path: &str) -> String {
    use std::io::{Read, Write};
    let host = bucket.endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    let head = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "GET /{path}: {answer}");
    answer[answer.find("\r\n\r\n").unwrap() + 4..].to_string()
}

/// A bucket with two ordinary transcripts and the same bytes at two odd keys.
fn odd_bucket(name: &str) -> Option<(Bucket, BTreeMap<String, String>)> {
    let bucket = Bucket::new(name)?;
    let short = std::fs::read(shared("corpus/claude-code/spotter/short.jsonl")).unwrap();
    let heavy = std::fs::read(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    bucket.put(VALID[0], &short);
    bucket.put(VALID[1], &heavy);
    for key in ODD {
        unsigned_put(&bucket.endpoint, &format!("{name}/{key}"), "", &short);
    }
    let before = raw_objects(&bucket, name);
    let keys: Vec<&str> = before.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "in/../y.jsonl",
            "in//x.jsonl",
            "in/a.jsonl",
            "in/sub/b.jsonl"
        ]
    );
    Some((bucket, before))
}

/// Asserts that `out` failed on the odd keys alone (exit 1), naming each with why (on stderr,
/// or in `check`'s findings on stdout).
fn names_and_skips_the_odd_keys(bucket: &Bucket, what: &str, out: &std::process::Output) {
    let err = format!("{}{}", stdout_of(out), stderr_of(out));
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    for (key, why) in [
        (ODD[0], "an empty segment"),
        (ODD[1], "a `.` or `..` segment"),
    ] {
        let line = format!("{}: its key has {why}", bucket.url(key));
        assert!(err.contains(&line), "{what}: no `{line}` in:\n{err}");
    }
    assert!(err.contains("skipped"), "{what}: {err}");
}

#[test]
fn odd_keys_are_named_and_skipped_and_the_rest_of_the_prefix_is_read() {
    let Some((bucket, before)) = odd_bucket("oddkeys") else {
        return;
    };
    let stats = bucket
        .ctxc()
        .args(["stats", "--json", &bucket.url("in/")])
        .output()
        .unwrap();
    names_and_skips_the_odd_keys(&bucket, "stats", &stats);
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    let read: Vec<&str> = files
        .iter()
        .filter(|f| f["error"].is_null())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(read, [bucket.url(VALID[0]), bucket.url(VALID[1])]);
    let failed: Vec<(&str, &str)> = files
        .iter()
        .filter_map(|f| Some((f["path"].as_str()?, f["error"].as_str()?)))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    for ((path, error), key) in failed.iter().zip(ODD.iter().rev()) {
        assert_eq!(*path, bucket.url(key));
        assert!(error.contains("cannot address"), "{error}");
    }
    assert_eq!(report["totals"]["failed"], 2, "{report}");

    for args in [vec!["check"], vec!["eval", "--target-ratio", "0.5"]] {
        let out = bucket
            .ctxc()
            .args(&args)
            .arg(bucket.url("in/"))
            .output()
            .unwrap();
        names_and_skips_the_odd_keys(&bucket, args[0], &out);
    }

    let compact = bucket
        .ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--jobs", "1"])
        .args(["--out-dir", &bucket.url("out/"), &bucket.url("in/")])
        .output()
        .unwrap();
    names_and_skips_the_odd_keys(&bucket, "compact --out-dir", &compact);
    let after = raw_objects(&bucket, "oddkeys");
    let outputs: Vec<&str> = after
        .keys()
        .map(String::as_str)
        .filter(|k| k.starts_with("out"))
        .collect();
    // The valid inputs' outputs only: nothing at out/x.jsonl, out/y.jsonl or y.jsonl.
    assert_eq!(
        outputs,
        ["out/a.jsonl", "out/sub/b.jsonl"],
        "{:?}",
        after.keys()
    );
    assert!(!after.contains_key("y.jsonl") && !after.contains_key("in/x.jsonl"));
    for key in ODD.iter().chain(&VALID) {
        assert_eq!(after[*key], before[*key], "{key} unchanged");
    }

    let in_place = bucket
        .ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--jobs", "1"])
        .args(["--in-place", &bucket.url("in/")])
        .output()
        .unwrap();
    names_and_skips_the_odd_keys(&bucket, "compact --in-place", &in_place);
    let after = raw_objects(&bucket, "oddkeys");
    for key in ODD {
        assert_eq!(after[key], before[key], "{key} unchanged");
    }
    assert_ne!(
        after[VALID[1]], before[VALID[1]],
        "the valid ones compacted in place"
    );
    // Nothing new but beside the valid inputs (their backups) and the earlier runs' outputs.
    let new: Vec<&String> = after
        .keys()
        .filter(|k| !before.contains_key(*k))
        .filter(|k| !k.starts_with("out/"))
        .filter(|k| !VALID.iter().any(|v| k.starts_with(v)))
        .collect();
    assert!(new.is_empty(), "{new:?}");
}

#[test]
fn a_session_store_with_an_odd_key_lists_the_other_sessions() {
    let Some(bucket) = Bucket::new("oddsessions") else {
        return;
    };
    let session = std::fs::read(shared("corpus/claude-code/spotter/short.jsonl")).unwrap();
    bucket.put("cfg/projects/p/s1.jsonl", &session);
    let odd = "cfg/projects/p//s2.jsonl";
    unsigned_put(
        &bucket.endpoint,
        &format!("oddsessions/{odd}"),
        "",
        &session,
    );
    let home = tempfile::tempdir().unwrap();
    let out = bucket
        .ctxc()
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", bucket.url("cfg"))
        .env("CODEX_HOME", home.path().join("no-codex"))
        .args(["sessions", "--all", "--json"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let listed = json(&out);
    let ids: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s1"], "{listed}");
    let line = format!("{}: its key has an empty segment", bucket.url(odd));
    assert!(err.contains(&line), "no `{line}` in:\n{err}");
}
