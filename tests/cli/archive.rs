//! `ctxc compact --archive`, `ctxc restore` and `ctxc archive show` with the real binary on
//! temp copies of corpus files: restores are byte-identical, a changed compacted file is
//! refused unless `--force`, chains undo step by step, `--archive-dir` mirrors the input
//! tree, and `archive show` is pinned by snapshots (machine paths and times redacted).

use crate::stderr_of;
use crate::{ctxc, shared, stdout_of};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A small Claude Code session with tool results to mask and history to summarize.
const SESSION: &str = "corpus/claude-code/spotter/tool_heavy.jsonl";
/// A SWE-agent trajectory (one conversation inside a JSON object).
const TRAJECTORY: &str = "corpus/swe-agent/ctf__crypto__katy.traj";

/// Copies a shared corpus file into `dir/sub` (writable), returning the copy.
fn copy_into(dir: &Path, sub: &str, rel: &str) -> PathBuf {
    let from = shared(rel);
    let to_dir = dir.join(sub);
    std::fs::create_dir_all(&to_dir).unwrap();
    let to = to_dir.join(from.file_name().unwrap());
    std::fs::write(&to, std::fs::read(&from).unwrap()).unwrap();
    to
}

/// Runs ctxc in `dir` with `args`.
fn run(dir: &Path, args: &[&str]) -> Output {
    ctxc().current_dir(dir).args(args).output().unwrap()
}

/// Runs ctxc in `dir` and checks it exits with `code`.
fn expect(dir: &Path, args: &[&str], code: i32) -> Output {
    let out = run(dir, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        stderr_of(&out)
    );
    out
}

/// `ctxc compact -q --force --target-ratio 0.5 --archive ARGS...`.
fn compact(dir: &Path, args: &[&str]) {
    let mut all = vec![
        "compact",
        "-q",
        "--force",
        "--target-ratio",
        "0.5",
        "--archive",
    ];
    all.extend_from_slice(args);
    expect(dir, &all, 0);
}

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn archive_json(path: impl AsRef<Path>) -> serde_json::Value {
    serde_json::from_slice(&read(path)).unwrap()
}

#[test]
fn compact_then_restore_gives_the_original_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "", SESSION);
    let original = read(&input);
    compact(d, &["tool_heavy.jsonl"]);
    let archive = d.join("tool_heavy.compact.ctxc-archive.json");
    assert_ne!(read(d.join("tool_heavy.compact.jsonl")), original);
    let json = archive_json(&archive);
    assert_eq!(json["schemaVersion"], 2);
    assert_eq!(json["records"].as_array().unwrap().len(), 1);

    // The original is still there, byte for byte: there is nothing to restore.
    let done = expect(d, &["restore", "tool_heavy.compact.ctxc-archive.json"], 0);
    assert!(
        stderr_of(&done).contains("tool_heavy.jsonl already holds the original"),
        "{}",
        stderr_of(&done)
    );
    // Another file in its place: restore will not overwrite it.
    std::fs::write(&input, "another file").unwrap();
    let refused = expect(d, &["restore", "tool_heavy.compact.ctxc-archive.json"], 1);
    assert!(
        stderr_of(&refused).contains("tool_heavy.jsonl exists"),
        "{}",
        stderr_of(&refused)
    );
    assert!(stderr_of(&refused).contains("-o FILE"));

    // To a file, to standard output, and to the original's place once it is gone.
    expect(
        d,
        &[
            "restore",
            "tool_heavy.compact.ctxc-archive.json",
            "-o",
            "r.jsonl",
        ],
        0,
    );
    assert_eq!(read(d.join("r.jsonl")), original);
    let out = expect(
        d,
        &[
            "restore",
            "-q",
            "tool_heavy.compact.ctxc-archive.json",
            "-o",
            "-",
        ],
        0,
    );
    assert_eq!(out.stdout, original);
    std::fs::remove_file(&input).unwrap();
    expect(d, &["restore", "tool_heavy.compact.ctxc-archive.json"], 0);
    assert_eq!(read(&input), original);
}

#[test]
fn an_archive_moved_with_its_files_still_restores() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "a", TRAJECTORY);
    let original = read(&input);
    compact(d, &["a/ctf__crypto__katy.traj"]);
    std::fs::remove_file(&input).unwrap();
    std::fs::rename(d.join("a"), d.join("b")).unwrap();
    let archive = "b/ctf__crypto__katy.compact.ctxc-archive.json";
    expect(d, &["restore", archive], 0);
    // The default destination is the original's place as seen from the archive.
    assert_eq!(read(d.join("b/ctf__crypto__katy.traj")), original);
}

#[test]
fn a_changed_compacted_file_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "", SESSION);
    let original = read(&input);
    compact(d, &["tool_heavy.jsonl"]);
    let output = d.join("tool_heavy.compact.jsonl");
    let mut bytes = read(&output);
    // A byte the restore copies back (one of the summary's would simply vanish).
    let json = archive_json(d.join("tool_heavy.compact.ctxc-archive.json"));
    let copy = json["records"][0]["restore"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|p| p.as_array().cloned())
        .expect("a copied range");
    let at = (copy[0].as_u64().unwrap() + copy[1].as_u64().unwrap()) as usize / 2;
    bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
    std::fs::write(&output, &bytes).unwrap();

    let archive = "tool_heavy.compact.ctxc-archive.json";
    // The archive keeps a copy of its last output: the original is still exact.
    let from_copy = expect(d, &["restore", archive, "-o", "r.jsonl"], 0);
    assert!(
        stderr_of(&from_copy).contains("restored from the archive's copy"),
        "{}",
        stderr_of(&from_copy)
    );
    assert_eq!(read(d.join("r.jsonl")), original);
    std::fs::remove_file(d.join("r.jsonl")).unwrap();
    // An archive without that copy (schema 1) can only apply itself to the file as it is.
    let mut json = archive_json(d.join(archive));
    json["schemaVersion"] = 1.into();
    json["records"][0]
        .as_object_mut()
        .unwrap()
        .remove("outputCopy");
    std::fs::write(d.join(archive), json.to_string()).unwrap();
    let refused = expect(d, &["restore", archive, "-o", "r.jsonl"], 1);
    let msg = stderr_of(&refused);
    assert!(
        msg.contains("tool_heavy.compact.jsonl has changed"),
        "{msg}"
    );
    assert!(msg.contains(archive), "{msg}");
    assert!(msg.contains("--force"), "{msg}");
    assert!(
        !d.join("r.jsonl").exists(),
        "nothing is written when refused"
    );

    let forced = expect(d, &["restore", archive, "-o", "r.jsonl", "--force"], 0);
    assert!(
        stderr_of(&forced).contains("warning"),
        "{}",
        stderr_of(&forced)
    );
    let restored = read(d.join("r.jsonl"));
    assert_eq!(restored.len(), original.len());
    let differing = restored
        .iter()
        .zip(&original)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 1, "the one changed byte carries through");
}

#[test]
fn chained_compactions_restore_step_by_step() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "", TRAJECTORY);
    let original = read(&input);
    compact(d, &["ctf__crypto__katy.traj"]);
    let first = read(d.join("ctf__crypto__katy.compact.traj"));
    compact(d, &["ctf__crypto__katy.compact.traj"]);
    let archive = "ctf__crypto__katy.compact.compact.ctxc-archive.json";
    let json = archive_json(d.join(archive));
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["output"]["hash"], records[1]["input"]["hash"]);

    expect(d, &["restore", archive, "-o", "all.traj"], 0);
    assert_eq!(read(d.join("all.traj")), original);
    expect(
        d,
        &["restore", archive, "--steps", "1", "-o", "one.traj"],
        0,
    );
    assert_eq!(read(d.join("one.traj")), first);
    // By default --steps 1 goes to the intermediate file, which is still there, as it was;
    // changed, it is not overwritten.
    expect(d, &["restore", archive, "--steps", "1"], 0);
    std::fs::write(d.join("ctf__crypto__katy.compact.traj"), "changed").unwrap();
    expect(d, &["restore", archive, "--steps", "1"], 1);
    let usage = expect(d, &["restore", archive, "--steps", "3", "-o", "x.traj"], 2);
    assert!(
        stderr_of(&usage).contains("holds 2 compactions"),
        "{}",
        stderr_of(&usage)
    );
}

#[test]
fn in_place_compactions_chain_in_one_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "", TRAJECTORY);
    let original = read(&input);
    compact(d, &["--in-place", "ctf__crypto__katy.traj"]);
    let again = [
        "--force",
        "--target-ratio",
        "0.25",
        "--archive",
        "--in-place",
    ];
    expect(
        d,
        &[&["compact", "-q"], &again[..], &["ctf__crypto__katy.traj"]].concat(),
        0,
    );
    let archive = "ctf__crypto__katy.ctxc-archive.json";
    assert_eq!(
        archive_json(d.join(archive))["records"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    expect(d, &["restore", archive, "-o", "orig.traj"], 0);
    assert_eq!(read(d.join("orig.traj")), original);
}

#[test]
fn archive_dir_mirrors_the_input_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "in/sub", SESSION);
    let original = read(&input);
    compact(d, &["in", "--out-dir", "out", "--archive-dir", "arch"]);
    let archive = d.join("arch/sub/tool_heavy.ctxc-archive.json");
    assert!(archive.is_file(), "no archive at {}", archive.display());
    assert!(!d.join("out/sub/tool_heavy.ctxc-archive.json").exists());
    let json = archive_json(&archive);
    let output = &json["records"][0]["output"];
    assert_eq!(
        output["relativeToArchive"],
        "../../out/sub/tool_heavy.jsonl"
    );
    expect(
        d,
        &[
            "restore",
            "arch/sub/tool_heavy.ctxc-archive.json",
            "-o",
            "r.jsonl",
        ],
        0,
    );
    assert_eq!(read(d.join("r.jsonl")), original);
}

#[test]
fn an_unchanged_file_still_gets_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = copy_into(d, "", SESSION);
    // No trigger fires: the output is the input.
    expect(d, &["compact", "-q", "--archive", "tool_heavy.jsonl"], 0);
    let json = archive_json(d.join("tool_heavy.compact.ctxc-archive.json"));
    assert_eq!(json["records"][0]["changed"], false);
    expect(
        d,
        &[
            "restore",
            "tool_heavy.compact.ctxc-archive.json",
            "-o",
            "r.jsonl",
        ],
        0,
    );
    assert_eq!(read(d.join("r.jsonl")), read(&input));
}

#[test]
fn dry_runs_write_no_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_into(d, "", SESSION);
    compact(d, &["--dry-run", "tool_heavy.jsonl"]);
    assert!(!d.join("tool_heavy.compact.ctxc-archive.json").exists());
}

#[test]
fn restore_names_a_missing_or_foreign_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = expect(d, &["restore", "nope.ctxc-archive.json"], 1);
    assert!(stderr_of(&missing).contains("nope.ctxc-archive.json"));
    std::fs::write(d.join("x.json"), "{\"a\": 1}").unwrap();
    let foreign = expect(d, &["archive", "show", "x.json"], 1);
    assert!(stderr_of(&foreign).contains("x.json is not a ctxc archive"));
}

/// Compacts the session with masking then a sliding window, archived, in a temp dir.
fn shown(args: &[&str]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_into(d, "", SESSION);
    compact(
        d,
        &[
            "--strategy",
            "observation-masking,sliding-window",
            "tool_heavy.jsonl",
        ],
    );
    let mut all = vec!["archive", "show", "tool_heavy.compact.ctxc-archive.json"];
    all.extend_from_slice(args);
    let out = expect(d, &all, 0);
    let prefix = d.canonicalize().unwrap().display().to_string();
    let text = stdout_of(&out).replace(&prefix, "[tmp]");
    (dir, text)
}

#[test]
fn archive_show_text() {
    let (dir, text) = shown(&[]);
    let json = archive_json(dir.path().join("tool_heavy.compact.ctxc-archive.json"));
    let time = json["records"][0]["time"].as_str().unwrap();
    let version = json["records"][0]["ctxcVersion"].as_str().unwrap();
    let text = text
        .replace(time, "[time]")
        .replace(&format!("ctxc {version}"), "ctxc [version]");
    insta::assert_snapshot!("show_text", text);
}

#[test]
fn archive_show_json() {
    let (_dir, text) = shown(&["--json"]);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    insta::assert_json_snapshot!("show_json", json, {
        ".records[].time" => "[time]",
        ".records[].ctxcVersion" => "[version]",
        ".records[].input.path" => "[path]",
        ".records[].output.path" => "[path]",
    });
}

#[test]
fn an_original_from_standard_input_needs_an_output_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = read(shared(SESSION));
    let out = ctxc()
        .current_dir(d)
        .args([
            "compact",
            "-q",
            "--force",
            "--target-ratio",
            "0.5",
            "--archive",
        ])
        .args(["-", "-o", "s.jsonl"])
        .write_stdin(original.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let usage = expect(d, &["restore", "s.ctxc-archive.json"], 2);
    assert!(
        stderr_of(&usage).contains("standard input"),
        "{}",
        stderr_of(&usage)
    );
    expect(d, &["restore", "s.ctxc-archive.json", "-o", "r.jsonl"], 0);
    assert_eq!(read(d.join("r.jsonl")), original);
}

#[test]
fn an_archive_of_another_output_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two inputs with one stem: both outputs' archives would be x.compact.ctxc-archive.json.
    std::fs::write(d.join("x.jsonl"), read(shared(SESSION))).unwrap();
    std::fs::write(d.join("x.traj"), read(shared(TRAJECTORY))).unwrap();
    let args = ["compact", "-q", "-j", "1", "--force", "--archive"];
    let out = expect(d, &[&args[..], &["x.jsonl", "x.traj"]].concat(), 1);
    assert!(
        stderr_of(&out).contains("belongs to"),
        "{}",
        stderr_of(&out)
    );
    let json = archive_json(d.join("x.compact.ctxc-archive.json"));
    let kept = json["records"][0]["output"]["relativeToArchive"].as_str();
    assert_eq!(kept, Some("x.compact.jsonl"), "the first archive stays");
}

/// Appends one user record chained to the session's last record, as a resumed Claude Code
/// does.
pub(crate) fn append_turn(path: &Path, text: &str) {
    let content = String::from_utf8(read(path)).unwrap();
    let last = content
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["uuid"].is_string())
        .expect("a record with a uuid");
    let record = serde_json::json!({
        "parentUuid": last["uuid"], "isSidechain": false, "userType": "external",
        "cwd": last["cwd"], "sessionId": last["sessionId"], "version": last["version"],
        "type": "user", "message": {"role": "user", "content": text},
        "uuid": format!("00000000-0000-4000-8000-{:012x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()) >> 16),
        "timestamp": "2026-02-12T00:00:00.000Z"
    });
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut file, format!("{record}\n").as_bytes()).unwrap();
}

/// The README's headline flow, round after round: compact in place with an archive, the
/// client appends, compact again. Every generation stays restorable.
const IN_PLACE: [&str; 6] = [
    "compact",
    "-q",
    "--in-place",
    "--archive",
    "--drop-stored",
    "--force",
];

fn writable_copy(d: &Path, rel: &str, name: &str) -> PathBuf {
    let to = d.join(name);
    std::fs::write(&to, read(shared(rel))).unwrap();
    to
}

#[test]
fn in_place_rounds_keep_every_generation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = writable_copy(d, SESSION, "s.jsonl");
    let mut generations = vec![read(&s)];
    expect(d, &[&IN_PLACE[..], &["s.jsonl"]].concat(), 0);
    for round in 1..=3 {
        append_turn(&s, &format!("round {round}: carry on"));
        generations.push(read(&s));
        let ratio = ["--target-ratio", "0.6", "s.jsonl"];
        expect(d, &[&IN_PLACE[..], &ratio].concat(), 0);
    }
    let archive = "s.ctxc-archive.json";
    let json = archive_json(d.join(archive));
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 4);
    let numbers: Vec<u64> = records
        .iter()
        .map(|r| r["generation"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    assert!(
        records[..3].iter().all(|r| r.get("outputCopy").is_none()),
        "only the latest record keeps a copy of its output"
    );
    let restored = expect(d, &["restore", archive, "-o", "r.jsonl"], 0);
    assert_eq!(read(d.join("r.jsonl")), generations[0], "the true original");
    let msg = stderr_of(&restored);
    assert!(msg.contains("generation 1 of 4"), "{msg}");
    assert!(msg.contains("--generation 2 to 4"), "{msg}");
    for (g, bytes) in generations.iter().enumerate() {
        let name = format!("g{}.jsonl", g + 1);
        let n = (g + 1).to_string();
        expect(
            d,
            &["restore", "-q", archive, "--generation", &n, "-o", &name],
            0,
        );
        assert_eq!(&read(d.join(&name)), bytes, "generation {n}");
    }
    expect(
        d,
        &["restore", "-q", archive, "--original", "-o", "o.jsonl"],
        0,
    );
    assert_eq!(read(d.join("o.jsonl")), generations[0]);
    let usage = expect(d, &["restore", archive, "--generation", "5", "-o", "x"], 2);
    assert!(stderr_of(&usage).contains("holds 4 generations"));
    let shown = stdout_of(&expect(d, &["archive", "show", archive], 0));
    assert!(
        shown.contains("generation 2 of 4: the file changed after the compaction before"),
        "{shown}"
    );
    assert!(shown.contains("bytes appended"), "{shown}");
}

#[test]
fn a_rewritten_file_starts_a_generation_that_keeps_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = writable_copy(d, SESSION, "s.jsonl");
    let original = read(&s);
    expect(d, &[&IN_PLACE[..], &["s.jsonl"]].concat(), 0);
    // Not an append: the first line is rewritten.
    let compacted = String::from_utf8(read(&s)).unwrap();
    let (first, rest) = compacted.split_once('\n').unwrap();
    let edited = format!("{}\n{rest}", first.replace("\"type\"", "\"type\" "));
    std::fs::write(&s, &edited).unwrap();
    expect(
        d,
        &[&IN_PLACE[..], &["--target-ratio", "0.5", "s.jsonl"]].concat(),
        0,
    );
    expect(
        d,
        &["restore", "-q", "s.ctxc-archive.json", "-o", "r.jsonl"],
        0,
    );
    assert_eq!(read(d.join("r.jsonl")), original);
    let g2 = [
        "restore",
        "-q",
        "s.ctxc-archive.json",
        "--generation",
        "2",
        "-o",
        "g2.jsonl",
    ];
    expect(d, &g2, 0);
    assert_eq!(read(d.join("g2.jsonl")), edited.as_bytes());
    let shown = stdout_of(&expect(d, &["archive", "show", "s.ctxc-archive.json"], 0));
    assert!(shown.contains("rewritten; the archive keeps"), "{shown}");
}

#[test]
fn the_archive_restores_when_the_compacted_file_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = writable_copy(d, SESSION, "s.jsonl");
    let original = read(&s);
    expect(d, &[&IN_PLACE[..], &["s.jsonl"]].concat(), 0);
    std::fs::remove_file(&s).unwrap();
    let out = expect(d, &["restore", "s.ctxc-archive.json"], 0);
    assert!(stderr_of(&out).contains("the compacted file is gone"));
    assert_eq!(read(&s), original);
}

/// Where `CTXC_FAILPOINT` stops a debug build, as abruptly as `kill -9`: after the archive's
/// pending record is written, after the output is in place, after the record is committed.
const CRASH_POINTS: [&str; 3] = ["archive-pending", "output-in-place", "archive-committed"];

#[test]
fn a_kill_at_any_point_of_a_round_loses_nothing() {
    for point in CRASH_POINTS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let s = writable_copy(d, SESSION, "s.jsonl");
        let original = read(&s);
        expect(d, &[&IN_PLACE[..], &["s.jsonl"]].concat(), 0);
        append_turn(&s, "after the first compaction");
        let before_crash = read(&s);
        let round = [&IN_PLACE[..], &["--target-ratio", "0.5", "s.jsonl"]].concat();
        let killed = ctxc()
            .current_dir(d)
            .env("CTXC_FAILPOINT", point)
            .args(&round)
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{point}: killed by a signal");
        let archive = "s.ctxc-archive.json";
        expect(d, &["restore", "-q", archive, "-o", "r.jsonl"], 0);
        assert_eq!(read(d.join("r.jsonl")), original, "{point}: the original");
        std::fs::remove_file(d.join("r.jsonl")).unwrap();
        // The file is the one before the round or the one after it, and the next round
        // picks up from either.
        let now = read(&s);
        if point == "archive-pending" {
            assert_eq!(
                now, before_crash,
                "{point}: the output never reached the file"
            );
        } else {
            assert_ne!(now, before_crash, "{point}: the output is in place");
        }
        append_turn(&s, "after the crash");
        let last = read(&s);
        expect(d, &round, 0);
        expect(d, &["restore", "-q", archive, "-o", "r.jsonl"], 0);
        assert_eq!(
            read(d.join("r.jsonl")),
            original,
            "{point}: after one more round"
        );
        let json = archive_json(d.join(archive));
        let records = json["records"].as_array().unwrap();
        assert!(
            records.iter().all(|r| r.get("pending").is_none()),
            "{point}"
        );
        let g = records.last().unwrap()["generation"]
            .as_u64()
            .unwrap()
            .to_string();
        expect(
            d,
            &[
                "restore",
                "-q",
                archive,
                "--generation",
                &g,
                "-o",
                "g.jsonl",
            ],
            0,
        );
        assert_eq!(
            read(d.join("g.jsonl")),
            last,
            "{point}: the latest generation"
        );
    }
}

#[test]
fn an_output_that_cannot_be_written_leaves_the_archive_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_into(d, "", SESSION);
    // A directory where the output goes: the archive is written first, then put back.
    std::fs::create_dir(d.join("tool_heavy.compact.jsonl")).unwrap();
    let args = [
        "compact",
        "-q",
        "--force",
        "--archive",
        "--force-overwrite",
        "tool_heavy.jsonl",
    ];
    expect(d, &args, 1);
    assert!(!d.join("tool_heavy.compact.ctxc-archive.json").exists());
    std::fs::remove_dir(d.join("tool_heavy.compact.jsonl")).unwrap();
    expect(d, &args, 0);
    let before = read(d.join("tool_heavy.compact.ctxc-archive.json"));
    std::fs::remove_file(d.join("tool_heavy.compact.jsonl")).unwrap();
    std::fs::create_dir(d.join("tool_heavy.compact.jsonl")).unwrap();
    expect(d, &args, 1);
    assert_eq!(read(d.join("tool_heavy.compact.ctxc-archive.json")), before);
}

#[test]
fn a_real_kill_at_random_moments_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = writable_copy(d, SESSION, "s.jsonl");
    let original = read(&s);
    expect(d, &[&IN_PLACE[..], &["s.jsonl"]].concat(), 0);
    let archive = "s.ctxc-archive.json";
    // Delays spread over a round's run time, so kills land before, during and after writes.
    for (k, delay_ms) in [0u64, 5, 10, 20, 30, 45, 60, 80, 110, 150]
        .into_iter()
        .enumerate()
    {
        append_turn(&s, &format!("turn {k}"));
        let ratio = if k % 2 == 0 { "0.7" } else { "0.9" };
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxc"))
            .current_dir(d)
            .env("XDG_CONFIG_HOME", d.join("no-config"))
            .args([&IN_PLACE[..], &["--target-ratio", ratio, "s.jsonl"]].concat())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        let out = run(d, &["restore", "-q", archive, "-o", "r.jsonl"]);
        assert_eq!(out.status.code(), Some(0), "kill {k}: {}", stderr_of(&out));
        assert_eq!(
            read(d.join("r.jsonl")),
            original,
            "kill {k} after {delay_ms} ms"
        );
        std::fs::remove_file(d.join("r.jsonl")).unwrap();
    }
}

/// A kill after the output is in place but before the archive's record is committed, then an
/// in-place run without `--archive` that rewrites the file: that run settles the pending record
/// first (and says so), and `restore` gives back the original, also with `--generation 1`
/// (`--force` would restore from the file as it is now, by design).
#[test]
fn a_pending_record_survives_a_later_in_place_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = writable_copy(d, SESSION, "s.jsonl");
    let original = read(&s);
    let killed = ctxc()
        .current_dir(d)
        .env("CTXC_FAILPOINT", "output-in-place")
        .args([&IN_PLACE[..], &["s.jsonl"]].concat())
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "killed by a signal");
    let archive = "s.ctxc-archive.json";
    assert_eq!(archive_json(d.join(archive))["records"][0]["pending"], true);
    let after_kill = read(&s);
    let again = [
        "compact",
        "-q",
        "--in-place",
        "--force",
        "--target-ratio",
        "0.3",
        "s.jsonl",
    ];
    let out = expect(d, &again, 0);
    assert_ne!(read(&s), after_kill, "the second run rewrote the file");
    assert!(
        stderr_of(&out).contains("now recorded as done"),
        "{}",
        stderr_of(&out)
    );
    let json = archive_json(d.join(archive));
    assert!(json["records"][0].get("pending").is_none(), "{json}");
    for extra in [&[][..], &["--generation", "1"]] {
        let _ = std::fs::remove_file(d.join("r.jsonl"));
        let args = [&["restore", "-q", archive, "-o", "r.jsonl"][..], extra].concat();
        expect(d, &args, 0);
        assert!(read(d.join("r.jsonl")) == original, "{extra:?}");
    }
}

/// The same pending record, its file rewritten by something that does not settle archives:
/// the record's copy of its output matches its digest, so `restore` still finds the original;
/// a pending record whose file still holds its input is left out.
#[test]
fn a_pending_record_with_a_sound_copy_is_restorable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let archive = "s.ctxc-archive.json";
    for point in ["output-in-place", "archive-pending"] {
        let s = writable_copy(d, SESSION, "s.jsonl");
        let original = read(&s);
        let _ = std::fs::remove_file(d.join(archive));
        let _ = std::fs::remove_file(d.join("r.jsonl"));
        let killed = ctxc()
            .current_dir(d)
            .env("CTXC_FAILPOINT", point)
            .args([&IN_PLACE[..], &["s.jsonl"]].concat())
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{point}: killed by a signal");
        if point == "archive-pending" {
            let out = expect(d, &["restore", archive, "-o", "r.jsonl"], 1);
            assert!(
                stderr_of(&out).contains("nothing to restore"),
                "{}",
                stderr_of(&out)
            );
            continue;
        }
        std::fs::write(&s, b"{\"rewritten\": true}\n").unwrap();
        let out = expect(d, &["restore", archive, "-o", "r.jsonl"], 0);
        assert!(
            stderr_of(&out).contains("archive's copy"),
            "{}",
            stderr_of(&out)
        );
        assert_eq!(read(d.join("r.jsonl")), original, "{point}");
    }
}

/// An archive is untrusted input: paths it records for the original that lie outside the
/// compacted file's directory (climbing with `..`, or absolute elsewhere) are refused as the
/// default destination, nothing written; `-o` still restores.
#[test]
fn restore_writes_nowhere_the_archive_chooses() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nest = d.join("a/b");
    copy_into(&nest, "", SESSION);
    compact(&nest, &["tool_heavy.jsonl"]);
    std::fs::remove_file(nest.join("tool_heavy.jsonl")).unwrap();
    let archive = nest.join("tool_heavy.compact.ctxc-archive.json");
    let honest = archive_json(&archive);
    let outside = d.join("x.jsonl");
    for (relative, path) in [
        (Some("../../x.jsonl"), None),
        (None, Some(outside.display().to_string())),
        (Some("../../x.jsonl"), Some(outside.display().to_string())),
    ] {
        let mut forged = honest.clone();
        let input = &mut forged["records"][0]["input"];
        input["relativeToArchive"] = serde_json::json!(relative);
        input["path"] = serde_json::json!(path);
        std::fs::write(&archive, forged.to_string()).unwrap();
        let out = expect(
            &nest,
            &["restore", "tool_heavy.compact.ctxc-archive.json"],
            1,
        );
        assert!(stderr_of(&out).contains("-o FILE"), "{}", stderr_of(&out));
        assert!(!outside.exists(), "{relative:?} {path:?}: written outside");
        assert!(!nest.join("tool_heavy.jsonl").exists());
    }
    let to = [
        "restore",
        "-q",
        "tool_heavy.compact.ctxc-archive.json",
        "-o",
        "mine.jsonl",
    ];
    expect(&nest, &to, 0);
    assert_eq!(read(nest.join("mine.jsonl")), read(shared(SESSION)));
}

/// `restore FILE` for a file with no archive beside it says the archive is missing, not why
/// the file is no archive.
#[test]
fn restore_of_a_file_with_no_archive_says_the_archive_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("small.parquet"), b"PAR1\x00\xff\x00PAR1").unwrap();
    copy_into(d, "", SESSION);
    for (file, archive) in [
        ("small.parquet", "small.ctxc-archive.json"),
        ("tool_heavy.jsonl", "tool_heavy.ctxc-archive.json"),
    ] {
        let out = expect(d, &["restore", file], 1);
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!("{file} has no archive: {archive} is missing")),
            "{err}"
        );
        assert!(!err.contains("UTF-8"), "{err}");
    }
}
