//! Session stores kept in a bucket (`CLAUDE_CONFIG_DIR` / `CODEX_HOME` given as URLs),
//! against the same moto server as `s3.rs`: `@PREFIX`, `@ID` and `@` resolve to objects that
//! commands read as they read the same files locally, `ctxc sessions` lists and measures them,
//! nothing is written beside them, and a store that cannot be listed or holds no such id says
//! which store it searched.

use crate::s3::{Bucket, json};
use crate::{ctxc, fixture, shared, stderr_of, stdout_of};
use std::path::Path;

const BIG: &str = "8463c716-a2ea-4c14-9efa-87158ebd9f20";
const CODEX: &str = "0199a000-0000-7000-8000-000000000001";
const ROLLOUT: &str = "home/.codex/sessions/2025/09/01/rollout-2025-09-01T10-00-00-";

/// The name Claude Code gives the project directory of `dir`.
fn claude_project_name(dir: &Path) -> String {
    dir.to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A bucket `name` holding a machine's session stores below `home/`: a corpus Claude Code session
/// (with its subagents, and a ctxc output beside it that is no session) in the project of
/// `proj`, and the Codex fixture rollout.
fn stores_bucket(name: &str, proj: &Path) -> Option<Bucket> {
    let bucket = Bucket::new(name)?;
    let spotter = shared("corpus/claude-code/spotter");
    let project = format!("home/.claude/projects/{}", claude_project_name(proj));
    let session = std::fs::read(spotter.join(format!("{BIG}.jsonl"))).unwrap();
    bucket.put(&format!("{project}/{BIG}.jsonl"), &session);
    bucket.put(&format!("{project}/{BIG}.compact.jsonl"), b"{}\n");
    for entry in std::fs::read_dir(spotter.join(BIG).join("subagents")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let key = format!("{project}/{BIG}/subagents/{name}");
        bucket.put(&key, &std::fs::read(&path).unwrap());
    }
    let rollout = std::fs::read(fixture("codex/session.jsonl")).unwrap();
    bucket.put(&format!("{ROLLOUT}{CODEX}.jsonl"), &rollout);
    Some(bucket)
}

/// `ctxc` on this bucket's stores, from `proj`, with a HOME that has no stores of its own.
fn with_stores(bucket: &Bucket, home: &Path, proj: &Path) -> assert_cmd::Command {
    let mut cmd = bucket.ctxc();
    cmd.current_dir(proj)
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", bucket.url("home/.claude"))
        .env("CODEX_HOME", bucket.url("home/.codex"));
    cmd
}

#[test]
fn session_references_resolve_in_stores_kept_in_a_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, proj) = (root.join("home"), root.join("proj"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let Some(bucket) = stores_bucket("stores", &proj) else {
        return;
    };
    let session_url = bucket.url(&format!(
        "home/.claude/projects/{}/{BIG}.jsonl",
        claude_project_name(&proj)
    ));

    // @PREFIX (the ctxc output beside it does not make it ambiguous) and @ (this directory's
    // latest session) both read the object, and measure what the local file measures.
    let local = json(
        &ctxc()
            .args(["stats", "--json"])
            .arg(shared(&format!("corpus/claude-code/spotter/{BIG}.jsonl")))
            .output()
            .unwrap(),
    );
    for reference in ["@8463c716", "@"] {
        let out = with_stores(&bucket, &home, &proj)
            .args(["stats", "--json", reference])
            .output()
            .unwrap();
        let remote = json(&out);
        assert_eq!(
            remote["files"][0]["path"],
            session_url.as_str(),
            "{reference}"
        );
        assert_eq!(remote["totals"], local["totals"], "{reference}");
    }

    // A Codex rollout by its id: compacted to a local directory, as the same file is locally.
    let out_dir = root.join("out");
    let out = with_stores(&bucket, &home, &proj)
        .args(["compact", "--force", "--target-ratio", "0.5", "--out-dir"])
        .arg(&out_dir)
        .arg(format!("@{CODEX}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let name = format!("rollout-2025-09-01T10-00-00-{CODEX}.jsonl");
    let local_in = root.join("local");
    std::fs::create_dir_all(&local_in).unwrap();
    std::fs::copy(fixture("codex/session.jsonl"), local_in.join(&name)).unwrap();
    let local_out = root.join("local-out");
    let out = ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--out-dir"])
        .arg(&local_out)
        .arg(local_in.join(&name))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let compacted = |dir: &Path| {
        let mut files: Vec<_> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| std::fs::read(e.path()).unwrap())
            .collect();
        files.sort();
        files
    };
    assert_eq!(compacted(&out_dir), compacted(&local_out));
    assert_eq!(compacted(&out_dir).len(), 1);

    // Beside a session in the store, a copy would be one more session: refused.
    let out = with_stores(&bucket, &home, &proj)
        .args(["compact", "--force", "@8463c716"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains(&session_url), "{err}");
    assert!(err.contains("is a session in its client's store"), "{err}");
    let beside = format!(
        "home/.claude/projects/{}/{BIG}.compact.jsonl",
        claude_project_name(&proj)
    );
    assert_eq!(
        bucket.get(&beside).as_deref(),
        Some(&b"{}\n"[..]),
        "left as it was"
    );

    // `ctxc sessions` lists both, named by URL, measured from the objects.
    let out = with_stores(&bucket, &home, &proj)
        .args(["sessions", "--all", "--json"])
        .output()
        .unwrap();
    let listed = json(&out);
    let sessions = listed["sessions"].as_array().unwrap();
    let ids: Vec<&str> = sessions.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{listed}");
    assert!(ids.contains(&BIG) && ids.contains(&CODEX), "{ids:?}");
    let big = sessions.iter().find(|s| s["id"] == BIG).unwrap();
    assert_eq!(big["path"], session_url.as_str());
    assert_eq!(big["subagents"].as_array().unwrap().len(), 2, "{big}");
    assert!(big.get("error").is_none(), "{big}");
    assert!(big["contextTokens"].as_u64().unwrap() > 0, "{big}");
    assert_eq!(
        listed["stores"]["claudeCode"],
        bucket.url("home/.claude/projects").as_str()
    );
    // The table's footer names both bucket stores as there: they were listed, not looked up
    // as local folders.
    let out = with_stores(&bucket, &home, &proj)
        .args(["sessions", "--all"])
        .output()
        .unwrap();
    let table = stdout_of(&out);
    let looked = table.lines().find(|l| l.starts_with("looked in:")).unwrap();
    for (store, client) in [("claudeCode", "Claude Code"), ("codex", "Codex")] {
        let named = format!("{} ({client})", listed["stores"][store].as_str().unwrap());
        assert!(looked.contains(&named), "{named} not in {looked}");
    }
}

#[test]
fn a_reference_names_the_bucket_store_it_searched_and_one_that_cannot_be_listed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let Some(bucket) = stores_bucket("stores-unknown", &root) else {
        return;
    };
    let out = with_stores(&bucket, &root, &root)
        .args(["stats", "@ffffffff"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("no session id starts with 'ffffffff'"),
        "{err}"
    );
    let store = bucket.url("home/.claude/projects (Claude Code)");
    assert!(err.contains(&store), "{err}");

    let out = with_stores(&bucket, &root, &root)
        .env("CLAUDE_CONFIG_DIR", "s3://no-such-bucket/home/.claude")
        .args(["stats", "@8463c716"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("listing Claude Code's session store"), "{err}");
    assert!(
        err.contains("s3://no-such-bucket/home/.claude/projects"),
        "{err}"
    );
}
