//! Fleet runs: `--shard auto` under each job runner's environment, `--resume-from` after a
//! kill, and `report merge` of the shards equal to one run.

use crate::compact::corpus_workspace;
use crate::ctxc;
use crate::stderr_of;
use serde_json::Value;
use std::path::Path;

/// `compact` of the workspace into `out`, the report written to `report`.
fn compact(dir: &Path, out: &str, report: &str, extra: &[&str], env: &[(&str, &str)]) -> i32 {
    let mut cmd = ctxc();
    cmd.current_dir(dir)
        .args([
            "compact",
            "-q",
            "--force",
            "--target-ratio",
            "0.5",
            "--jobs",
            "1",
        ])
        .args([
            "--out-dir",
            out,
            "--report",
            report,
            "--glob",
            "*.traj",
            "--glob",
            "*.json*",
        ])
        .args(extra)
        .arg("in");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let done = cmd.output().unwrap();
    done.status.code().unwrap_or(-1)
}

/// A workspace with the corpus copies under `in/`.
fn workspace() -> tempfile::TempDir {
    let dir = corpus_workspace();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::rename(&path, inputs.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A report's files without what differs between two runs of the same work: time, and the
/// output directory's name.
fn files_of(report: &Value, out: &str) -> Vec<Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.as_object_mut().unwrap().remove("timeMs");
            if let Some(o) = f["output"].as_str() {
                let rel = o.split_once(out).map_or(o, |(_, rel)| rel);
                f["output"] = format!("OUT{rel}").into();
            }
            // Runs from another directory name the same input another way.
            let name = f["path"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string();
            f["path"] = name.into();
            f
        })
        .collect()
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walk(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn shard_auto_reads_each_runner_and_the_shards_merge_to_one_run() {
    let dir = workspace();
    let d = dir.path();
    assert_eq!(compact(d, "whole", "whole.json", &[], &[]), 0);
    let whole = report(&d.join("whole.json"));
    type Runner = fn(u32) -> Vec<(&'static str, String)>;
    let runners: [(&str, &str, Runner); 3] = [
        ("slurm", "auto", |k| {
            vec![
                ("SLURM_ARRAY_TASK_ID", (k + 9).to_string()),
                ("SLURM_ARRAY_TASK_MIN", "10".into()),
                ("SLURM_ARRAY_TASK_MAX", "12".into()),
            ]
        }),
        ("k8s", "auto/3", |k| {
            vec![("JOB_COMPLETION_INDEX", (k - 1).to_string())]
        }),
        ("aws", "auto/3", |k| {
            vec![("AWS_BATCH_JOB_ARRAY_INDEX", (k - 1).to_string())]
        }),
    ];
    for (name, spec, env) in runners {
        let mut parts = Vec::new();
        for k in 1..=3 {
            let vars = env(k);
            let vars: Vec<(&str, &str)> = vars.iter().map(|(a, b)| (*a, b.as_str())).collect();
            let part = format!("{name}-{k}.json");
            let code = compact(d, &format!("out-{name}"), &part, &["--shard", spec], &vars);
            assert_eq!(code, 0, "{name} shard {k}");
            parts.push(d.join(part));
        }
        let merged = ctxc()
            .args(["report", "merge", "--json"])
            .args(&parts)
            .output()
            .unwrap();
        assert_eq!(merged.status.code(), Some(0), "{}", stderr_of(&merged));
        let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
        assert_eq!(
            files_of(&merged, &format!("out-{name}")),
            files_of(&whole, "whole"),
            "{name}"
        );
        let totals = |r: &Value| {
            let mut t = r["totals"].clone();
            t.as_object_mut().unwrap().remove("meanTimeMs");
            t
        };
        assert_eq!(totals(&merged), totals(&whole), "{name}");
        assert_eq!(
            tree(&d.join(format!("out-{name}"))),
            tree(&d.join("whole")),
            "{name}"
        );
    }
    // No runner in the environment: a usage error that names what it looked for.
    let out = ctxc()
        .current_dir(d)
        .args(["compact", "--dry-run", "--shard", "auto", "in"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("JOB_COMPLETION_INDEX"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_killed_run_resumes_to_what_an_uninterrupted_run_gives() {
    let dir = workspace();
    let d = dir.path();
    assert_eq!(compact(d, "whole", "whole.json", &[], &[]), 0);
    let resume = ["--resume-from", "manifest.jsonl"];
    // Killed as the 4th file's entry is recorded, before its output is written.
    let code = compact(
        d,
        "out",
        "r.json",
        &resume,
        &[("CTXC_FAILPOINT", "manifest-entry:4")],
    );
    assert_eq!(code, -1, "killed");
    assert!(!d.join("r.json").exists(), "no report from the killed run");
    assert_eq!(tree(&d.join("out")).len(), 3, "three files were finished");
    let before = tree(&d.join("out"));
    // Killed again later on, after some more outputs.
    let code = compact(
        d,
        "out",
        "r.json",
        &resume,
        &[("CTXC_FAILPOINT", "manifest-entry:3")],
    );
    assert_eq!(code, -1, "killed");
    assert_eq!(tree(&d.join("out")).len(), 5, "two more were finished");
    let after = tree(&d.join("out"));
    assert!(
        before.iter().all(|f| after.contains(f)),
        "finished files are kept"
    );
    assert_eq!(compact(d, "out", "r.json", &resume, &[]), 0);
    assert_eq!(
        tree(&d.join("out")),
        tree(&d.join("whole")),
        "byte-identical outputs"
    );
    let (resumed, whole) = (report(&d.join("r.json")), report(&d.join("whole.json")));
    assert_eq!(
        files_of(&resumed, "out"),
        files_of(&whole, "whole"),
        "the same report"
    );
    assert_eq!(
        resumed["totals"]["contextTokensAfter"],
        whole["totals"]["contextTokensAfter"]
    );
    // A finished run redoes none; changed settings redo every file.
    assert_eq!(skipped_on_resume(d, "0.5", "out"), 8);
    assert_eq!(skipped_on_resume(d, "0.4", "out2"), 0);
}

/// How many files a `--resume-from manifest.jsonl` run at `ratio` into `out` skips as finished.
fn skipped_on_resume(d: &Path, ratio: &str, out: &str) -> usize {
    let done = ctxc()
        .current_dir(d)
        .args([
            "compact",
            "-v",
            "--force",
            "--target-ratio",
            ratio,
            "--jobs",
            "1",
        ])
        .args(["--out-dir", out, "--glob", "*.traj", "--glob", "*.json*"])
        .args(["--resume-from", "manifest.jsonl", "in"])
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr_of(&done));
    stderr_of(&done)
        .matches("finished by an earlier run")
        .count()
}

#[test]
fn a_file_in_two_reports_is_refused_by_merge() {
    let dir = workspace();
    let d = dir.path();
    assert_eq!(compact(d, "a", "a.json", &["--dry-run"], &[]), 0);
    assert_eq!(
        compact(d, "a", "b.json", &["--dry-run", "--shard", "1/2"], &[]),
        0
    );
    let out = ctxc()
        .current_dir(d)
        .args(["report", "merge", "a.json", "b.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("counted twice") && err.contains("b.json"),
        "{err}"
    );
}

/// PATH with the ctxc under test first.
fn path_with_ctxc() -> String {
    let bin = assert_cmd::cargo::cargo_bin("ctxc");
    let dir = bin.parent().unwrap().display().to_string();
    format!("{dir}:{}", std::env::var("PATH").unwrap_or_default())
}

/// `ctxc report merge --json` of `parts` equals one run of the examples' command over the
/// same inputs, and the outputs under `out` are that run's.
fn merges_to_one_run(d: &Path, parts: &[std::path::PathBuf], out: &Path) {
    let whole = ctxc()
        .current_dir(d)
        .args([
            "compact",
            "in",
            "--out-dir",
            "whole",
            "--target-ratio",
            "0.5",
            "-q",
        ])
        .args(["--report", "whole.json"])
        .output()
        .unwrap();
    assert_eq!(whole.status.code(), Some(0), "{}", stderr_of(&whole));
    let merged = ctxc()
        .args(["report", "merge", "--json"])
        .args(parts)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_of(&merged));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let whole = report(&d.join("whole.json"));
    let out_name = out.file_name().unwrap().to_string_lossy();
    assert_eq!(files_of(&merged, &out_name), files_of(&whole, "whole"));
    assert_eq!(tree(out), tree(&d.join("whole")));
}

#[test]
fn the_slurm_example_runs_as_an_array() {
    let dir = workspace();
    let d = dir.path();
    let script = crate::root().join("examples/slurm-array.sh");
    for id in 0..8 {
        let out = std::process::Command::new("bash")
            .current_dir(d)
            .arg(&script)
            .args(["in", "out"])
            .env("PATH", path_with_ctxc())
            .env("XDG_CONFIG_HOME", d.join("no-config"))
            .env("SLURM_ARRAY_TASK_ID", id.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("SLURM_ARRAY_TASK_MAX", "7")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "task {id}: {}", stderr_of(&out));
    }
    let parts: Vec<_> = (0..8)
        .map(|k| d.join(format!("reports/shard-{k}.json")))
        .collect();
    merges_to_one_run(d, &parts, &d.join("out"));
}

#[test]
fn the_kubernetes_example_runs_as_an_indexed_job() {
    let dir = workspace();
    let d = dir.path();
    let manifest =
        std::fs::read_to_string(crate::root().join("examples/kubernetes-indexed-job.yaml"))
            .unwrap();
    let job: Value = serde_yaml::from_str(&manifest).unwrap();
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().unwrap();
    let container = &spec["template"]["spec"]["containers"][0];
    assert_eq!(container["command"], serde_json::json!(["sh", "-c"]));
    // The pod's script, with the shared volume at this workspace.
    let script = container["args"][0]
        .as_str()
        .unwrap()
        .replace("/data", &d.display().to_string());
    assert!(
        script.contains(&format!("--shard auto/{completions}")),
        "{script}"
    );
    for index in 0..completions {
        let out = std::process::Command::new("sh")
            .current_dir(d)
            .args(["-c", &script])
            .env("PATH", path_with_ctxc())
            .env("XDG_CONFIG_HOME", d.join("no-config"))
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "index {index}: {}",
            stderr_of(&out)
        );
    }
    let parts: Vec<_> = (0..completions)
        .map(|k| d.join(format!("reports/shard-{k}.json")))
        .collect();
    merges_to_one_run(d, &parts, &d.join("out"));
}
