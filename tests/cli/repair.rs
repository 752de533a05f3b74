//! `ctxc repair` on real sessions damaged the ways clients and crashes damage them (see
//! `tests/common/damage.rs`): `check` names each fault, the repair names each fix, the output
//! passes `check`, and `restore` gives back the damaged input byte for byte.

use crate::damage::{Damage, damage};
use crate::{ctxc, fixture, shared, stderr_of, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A real Claude Code session with tool calls, progress records and snapshots.
const CLAUDE_CODE: &str = "corpus/claude-code/spotter/tool_heavy.jsonl";

fn claude_code_text() -> String {
    std::fs::read_to_string(shared(CLAUDE_CODE)).unwrap()
}

fn codex_text() -> String {
    std::fs::read_to_string(fixture("codex/rollout.jsonl")).unwrap()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    ctxc().current_dir(dir).args(args).output().unwrap()
}

fn expect(dir: &Path, args: &[&str], code: i32) -> Output {
    let out = run(dir, args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "ctxc {args:?}\nstdout: {}\nstderr: {}",
        stdout_of(&out),
        stderr_of(&out)
    );
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Repairs `damaged` (written as `s.jsonl`) with `-o r.jsonl --json`; checks the repair is
/// named, the output passes `check` and the archive restores the damaged input. Returns the
/// report's file entry and the repaired text.
fn repair_and_verify(damaged: &str, kind: Damage) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.jsonl", damaged);
    let out = expect(d, &["repair", "s.jsonl", "-o", "r.jsonl", "--json"], 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = report["files"][0].clone();
    assert_eq!(file["status"], "repaired", "{kind:?}: {file:#}");
    assert!(
        !file["repairs"].as_array().unwrap().is_empty(),
        "{kind:?}: {file:#}"
    );
    expect(d, &["check", "r.jsonl"], 0);
    // The input is never touched; the archive gives it back exactly.
    assert_eq!(std::fs::read_to_string(d.join("s.jsonl")).unwrap(), damaged);
    expect(
        d,
        &["restore", "r.ctxc-archive.json", "-o", "restored.jsonl"],
        0,
    );
    let restored = std::fs::read_to_string(d.join("restored.jsonl")).unwrap();
    assert!(restored == damaged, "{kind:?}: restore differs");
    let repaired = std::fs::read_to_string(d.join("r.jsonl")).unwrap();
    (file, repaired)
}

#[test]
fn check_names_every_damage_of_a_real_session() {
    let dir = tempfile::tempdir().unwrap();
    for (text, kinds) in [
        (claude_code_text(), &Damage::ALL[..]),
        (codex_text(), &Damage::CODEX[..]),
    ] {
        write(dir.path(), "clean.jsonl", &text);
        expect(dir.path(), &["check", "clean.jsonl"], 0);
        for &kind in kinds {
            let (damaged, said) = damage(&text, kind);
            write(dir.path(), "d.jsonl", &damaged);
            let out = expect(dir.path(), &["check", "d.jsonl"], 1);
            assert!(
                stdout_of(&out).contains(said),
                "{kind:?}: {}",
                stdout_of(&out)
            );
        }
    }
}

#[test]
fn a_torn_tail_hides_no_other_fault_from_check() {
    let dir = tempfile::tempdir().unwrap();
    let (lost_result, _) = damage(&claude_code_text(), Damage::DeleteToolResult);
    let (both, _) = damage(&lost_result, Damage::CutLastLine);
    write(dir.path(), "d.jsonl", &both);
    let out = expect(dir.path(), &["check", "d.jsonl"], 1);
    let found = stdout_of(&out);
    assert!(found.contains("torn last line"), "{found}");
    assert!(found.contains("is never answered"), "{found}");
}

#[test]
fn every_damage_of_a_claude_code_session_is_repaired() {
    let original = claude_code_text();
    for kind in Damage::ALL {
        let (damaged, _) = damage(&original, kind);
        let (file, repaired) = repair_and_verify(&damaged, kind);
        match kind {
            // What was replayed or inserted goes; the session is as it was.
            Damage::DuplicateBlock | Damage::GarbageLine => {
                assert!(repaired == original, "{kind:?}: not the original");
                if kind == Damage::DuplicateBlock {
                    // The replayed block is one repair over its run of lines.
                    let replay = &file["repairs"][0];
                    let fault = replay["fault"].as_str().unwrap();
                    assert!(fault.contains("records replay lines"), "{replay}");
                    assert!(replay["lastLine"].as_u64() > replay["line"].as_u64());
                }
            }
            // The torn line goes (to the archive): the session is as it was before it.
            Damage::CutLastLine => {
                let body = original.strip_suffix('\n').unwrap();
                let before_last = &body[..body.rfind('\n').unwrap() + 1];
                assert!(
                    repaired == before_last,
                    "{kind:?}: not the session before the cut"
                );
            }
            Damage::DeleteToolResult => {
                assert!(repaired.contains("[Request interrupted by user for tool use]"));
                assert_interrupted_shape(&repaired);
                let repairs = file["repairs"].to_string();
                assert!(repairs.contains("is never answered"), "{repairs}");
            }
            Damage::DanglingParent | Damage::Cycle => {
                let repairs = file["repairs"].to_string();
                assert!(repairs.contains("re-linked to line"), "{repairs}");
            }
        }
    }
}

/// The result record repair adds for an unanswered call has the shape Claude Code 2.1.330
/// writes for an interrupted call: one error `tool_result` with the interrupted text, the text
/// again as `toolUseResult`, `toolDenialKind: "interrupted"`, and the caller's uuid as
/// `sourceToolAssistantUUID`.
fn assert_interrupted_shape(repaired: &str) {
    let records: Vec<Value> = repaired
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text = "[Request interrupted by user for tool use]";
    let added = records
        .iter()
        .find(|r| r["toolUseResult"] == text)
        .expect("an interrupted-call result record");
    assert_eq!(added["type"], "user");
    assert_eq!(added["message"]["role"], "user");
    let block = &added["message"]["content"][0];
    assert_eq!(added["message"]["content"].as_array().unwrap().len(), 1);
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["content"], text);
    assert_eq!(block["is_error"], true);
    assert_eq!(added["toolDenialKind"], "interrupted");
    let caller = records
        .iter()
        .find(|r| r["uuid"] == added["sourceToolAssistantUUID"])
        .expect("sourceToolAssistantUUID names a record");
    let calls = caller["message"]["content"].as_array().unwrap();
    assert!(
        calls
            .iter()
            .any(|c| c["type"] == "tool_use" && c["id"] == block["tool_use_id"]),
        "the caller made the call answered"
    );
}

#[test]
fn every_damage_of_a_codex_rollout_is_repaired() {
    let original = codex_text();
    for kind in Damage::CODEX {
        let (damaged, _) = damage(&original, kind);
        let (_, repaired) = repair_and_verify(&damaged, kind);
        if kind == Damage::DeleteToolResult {
            assert!(repaired.contains(r#""output":"aborted""#), "{repaired}");
        }
        if kind == Damage::DuplicateBlock {
            // The event_msg copies replayed with the history go with it.
            let events = |text: &str| text.matches(r#""type":"event_msg""#).count();
            assert!(events(&damaged) > events(&original));
            assert_eq!(events(&repaired), events(&original));
        }
    }
}

#[test]
fn repairs_are_named_by_input_line_in_every_report_form() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (damaged, _) = damage(&claude_code_text(), Damage::GarbageLine);
    write(d, "s.jsonl", &damaged);
    let garbage_line = damaged
        .lines()
        .position(|l| l.starts_with("this is not JSON"))
        .unwrap()
        + 1;
    let table = expect(d, &["repair", "s.jsonl", "--dry-run"], 0);
    let want =
        format!("s.jsonl:{garbage_line}: invalid JSON line (25 bytes) → moved to the archive");
    assert!(stdout_of(&table).contains(&want), "{}", stdout_of(&table));
    assert!(
        stdout_of(&table).contains("to repair"),
        "{}",
        stdout_of(&table)
    );
    let markdown = expect(d, &["repair", "s.jsonl", "--dry-run", "--markdown"], 0);
    let row = format!("| {garbage_line} | invalid JSON line (25 bytes) | moved to the archive |");
    assert!(
        stdout_of(&markdown).contains(&row),
        "{}",
        stdout_of(&markdown)
    );
    let json = expect(d, &["repair", "s.jsonl", "--dry-run", "--json"], 0);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["files"][0]["repairs"][0]["line"], garbage_line);
    assert_eq!(report["dryRun"], true);
    // A dry run writes nothing.
    let names: Vec<_> = std::fs::read_dir(d).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn in_place_repair_keeps_a_backup_and_restores() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = claude_code_text();
    let (damaged, _) = damage(&original, Damage::DuplicateBlock);
    write(d, "s.jsonl", &damaged);
    expect(d, &["repair", "s.jsonl", "--in-place", "--backup"], 0);
    assert!(std::fs::read_to_string(d.join("s.jsonl")).unwrap() == original);
    assert!(std::fs::read_to_string(d.join("s.jsonl.bak")).unwrap() == damaged);
    // Repairing again finds it clean and leaves it alone.
    let again = expect(d, &["repair", "s.jsonl", "--in-place", "--json"], 0);
    let report: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["files"][0]["status"], "clean");
    std::fs::remove_file(d.join("s.jsonl.bak")).unwrap();
    expect(
        d,
        &["restore", "s.ctxc-archive.json", "-o", "back.jsonl"],
        0,
    );
    assert!(std::fs::read_to_string(d.join("back.jsonl")).unwrap() == damaged);
}

#[test]
fn a_clean_session_passes_through_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let original = claude_code_text();
    write(d, "s.jsonl", &original);
    let out = expect(d, &["repair", "s.jsonl", "-o", "r.jsonl", "--json"], 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["status"], "clean");
    assert!(std::fs::read_to_string(d.join("r.jsonl")).unwrap() == original);
    assert!(!d.join("r.ctxc-archive.json").exists());
    // Beside the input, a clean session gets no copy at all.
    expect(d, &["repair", "s.jsonl"], 0);
    assert!(!d.join("s.repaired.jsonl").exists());
}

#[test]
fn an_oversized_session_loses_stored_payloads_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.jsonl", &claude_code_text());
    let out = expect(
        d,
        &["repair", "s.jsonl", "--max-session-bytes", "30K", "--json"],
        0,
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["status"], "repaired", "{file:#}");
    let size = &file["size"];
    assert!(
        size["bytesAfter"].as_u64() < size["bytesBefore"].as_u64(),
        "{size}"
    );
    assert_eq!(size["fits"], true, "{size}");
    let action = file["repairs"][0]["action"].as_str().unwrap();
    assert!(action.contains("stored-only"), "{action}");
    expect(d, &["check", "s.repaired.jsonl"], 0);
    // What the model is sent is unchanged.
    let tokens = |name: &str| {
        let out = expect(d, &["stats", "-q", "--raw-tokens", name], 0);
        stdout_of(&out)
    };
    assert_eq!(tokens("s.jsonl"), tokens("s.repaired.jsonl"));
}

#[test]
fn an_unreadable_input_fails_alone_and_names_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "bad.json", "[{\"role\": ");
    let (damaged, _) = damage(&claude_code_text(), Damage::CutLastLine);
    write(d, "s.jsonl", &damaged);
    let out = expect(d, &["repair", "bad.json", "s.jsonl"], 1);
    assert!(stderr_of(&out).contains("bad.json"), "{}", stderr_of(&out));
    assert!(d.join("s.repaired.jsonl").exists());
    assert!(!d.join("bad.repaired.json").exists());
}

/// The corpus session its authors damaged on purpose: an unanswered call, repeated uuids, a
/// dangling parent.
const EDGE_CASES: &str = "corpus/claude-code/claude-code-log/edge_cases.jsonl";

/// `compact --repair` compacts a session `compact` refuses for its findings: every repair is
/// named by input line, the output passes `check`, `archive show` lists the repair and the
/// compaction, and `restore` gives back the damaged original byte for byte.
#[test]
fn compact_repair_compacts_a_refused_session_and_restores_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let damaged = std::fs::read_to_string(shared(EDGE_CASES)).unwrap();
    write(d, "s.jsonl", &damaged);
    let compact = ["compact", "s.jsonl", "--force", "--target-ratio", "0.5"];
    let refused = expect(d, &[&compact[..], &["-o", "plain.jsonl"]].concat(), 1);
    assert!(
        stderr_of(&refused).contains("s.jsonl:"),
        "{}",
        stderr_of(&refused)
    );
    assert!(!d.join("plain.jsonl").exists());
    let args = [&compact[..], &["--repair", "-o", "c.jsonl", "--json"]].concat();
    let out = expect(d, &args, 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["status"], "compacted", "{file:#}");
    assert_eq!(file["bytesBefore"], damaged.len(), "{file:#}");
    let repairs = file["repairs"].as_array().unwrap();
    let named: Vec<String> = repairs
        .iter()
        .map(|r| format!("{}: {}", r["line"], r["fault"].as_str().unwrap()))
        .collect();
    for (line, fault) in [
        (9, "is never answered"),
        (12, "replays line 11 (same uuid)"),
        (17, "names no record in this file"),
    ] {
        assert!(
            named
                .iter()
                .any(|n| n.starts_with(&format!("{line}: ")) && n.contains(fault)),
            "{named:?}"
        );
    }
    assert!(file["contextTokensAfter"].as_u64() < file["contextTokensBefore"].as_u64());
    expect(d, &["check", "c.jsonl"], 0);
    assert_eq!(std::fs::read_to_string(d.join("s.jsonl")).unwrap(), damaged);
    // The table names each repair as `ctxc repair` does.
    let table = expect(d, &[&compact[..], &["--repair", "--dry-run"]].concat(), 0);
    assert!(
        stdout_of(&table)
            .contains("s.jsonl:9: tool call 'tool_edge_002' (MultiEdit) is never answered → added"),
        "{}",
        stdout_of(&table)
    );
    let shown = expect(d, &["archive", "show", "c.ctxc-archive.json"], 0);
    let shown = stdout_of(&shown);
    assert!(shown.contains("repair 1 of 2:"), "{shown}");
    assert!(shown.contains("  line 17: parentUuid"), "{shown}");
    assert!(shown.contains("compaction 2 of 2:"), "{shown}");
    expect(d, &["restore", "c.jsonl", "-o", "back.jsonl"], 0);
    assert!(std::fs::read_to_string(d.join("back.jsonl")).unwrap() == damaged);
}

/// In place, `compact --repair` keeps every in-place guarantee: the backup holds the damaged
/// input, a second run finds nothing to repair, and `restore` walks back through every
/// compaction and repair to the damaged input.
#[test]
fn compact_repair_in_place_keeps_a_backup_and_restores() {
    for kind in [Damage::DeleteToolResult, Damage::CutLastLine] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (damaged, _) = damage(&claude_code_text(), kind);
        write(d, "s.jsonl", &damaged);
        expect(d, &["compact", "s.jsonl", "--force", "--in-place"], 1);
        assert!(std::fs::read_to_string(d.join("s.jsonl")).unwrap() == damaged);
        let args = [
            "compact",
            "s.jsonl",
            "--force",
            "--target-ratio",
            "0.5",
            "--repair",
            "--in-place",
            "--backup",
        ];
        expect(d, &args, 0);
        assert!(std::fs::read_to_string(d.join("s.jsonl.bak")).unwrap() == damaged);
        expect(d, &["check", "s.jsonl"], 0);
        let once = std::fs::read_to_string(d.join("s.jsonl")).unwrap();
        assert!(once.len() < damaged.len(), "{kind:?}");
        // Compacted again: nothing left to repair, the archive chains a third record.
        let again = expect(
            d,
            &[
                "compact",
                "s.jsonl",
                "--force",
                "--repair",
                "--in-place",
                "--archive",
                "--json",
            ],
            0,
        );
        let report: Value = serde_json::from_slice(&again.stdout).unwrap();
        assert!(report["files"][0].get("repairs").is_none(), "{kind:?}");
        std::fs::remove_file(d.join("s.jsonl.bak")).unwrap();
        expect(
            d,
            &["restore", "s.ctxc-archive.json", "-o", "back.jsonl"],
            0,
        );
        assert!(
            std::fs::read_to_string(d.join("back.jsonl")).unwrap() == damaged,
            "{kind:?}"
        );
    }
}

/// A session with nothing to repair is compacted by `compact --repair` exactly as without it,
/// and gets no archive it did not ask for.
#[test]
fn compact_repair_leaves_a_clean_session_to_compact_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.jsonl", &claude_code_text());
    let compact = ["compact", "s.jsonl", "--force", "--target-ratio", "0.5"];
    expect(d, &[&compact[..], &["-o", "plain.jsonl"]].concat(), 0);
    let out = expect(
        d,
        &[&compact[..], &["--repair", "-o", "r.jsonl", "--json"]].concat(),
        0,
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["files"][0].get("repairs").is_none());
    let plain = std::fs::read(d.join("plain.jsonl")).unwrap();
    assert!(std::fs::read(d.join("r.jsonl")).unwrap() == plain);
    assert!(!d.join("r.ctxc-archive.json").exists());
}

/// Real tau-bench runs (OpenAI chat, a JSON array of runs each holding its `traj`), run
/// `damaged_run` damaged three ways: the answer to one call deleted, another answer
/// duplicated, and a tool message answering no call added. Returns the runs, as JSON, and the
/// damaged run's tool call left unanswered.
fn damaged_tau_bench(damaged_run: usize) -> (Vec<Value>, String) {
    let text = std::fs::read_to_string(shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json"))
        .unwrap();
    let mut runs: Vec<Value> = serde_json::from_str(&text).unwrap();
    runs.truncate(6);
    let traj = runs[damaged_run]["traj"].as_array_mut().unwrap();
    let tools: Vec<usize> = (0..traj.len())
        .filter(|&i| traj[i]["role"] == "tool")
        .collect();
    assert!(
        tools.len() >= 2,
        "run {damaged_run} has too few tool messages"
    );
    let lost = traj.remove(tools[0]);
    let duplicate = traj[tools[1] - 1].clone();
    traj.insert(tools[1], duplicate);
    let stray = serde_json::json!({"role": "tool", "tool_call_id": "call_nowhere", "name": "x", "content": "late"});
    let last_user = (0..traj.len())
        .rev()
        .find(|&i| traj[i]["role"] == "user")
        .unwrap();
    traj.insert(last_user + 1, stray);
    (runs, lost["tool_call_id"].as_str().unwrap().to_string())
}

/// OpenAI chat lists are repaired in their own shape, in a JSON array of runs and in JSONL
/// of conversations: the unanswered call gets a `tool` message saying it was interrupted, the
/// second answer and the stray answer are removed, each named by input line; the output passes
/// `check`, every other conversation keeps its bytes, and `restore` gives back the damaged
/// input.
#[test]
fn openai_lists_are_repaired_in_every_container() {
    let (runs, lost) = damaged_tau_bench(2);
    let array = serde_json::to_string_pretty(&runs).unwrap();
    let jsonl: String = runs
        .iter()
        .map(|r| format!("{}\n", serde_json::json!({"messages": r["traj"]})))
        .collect();
    for (name, damaged) in [("runs.json", array), ("runs.jsonl", jsonl)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, name, &damaged);
        expect(d, &["check", name], 1);
        let out = expect(d, &["repair", name, "-o", "r.out", "--json"], 0);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let file = &report["files"][0];
        assert_eq!(file["status"], "repaired", "{name}: {file:#}");
        let repairs: Vec<String> = file["repairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} → {}",
                    r["fault"].as_str().unwrap(),
                    r["action"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(repairs.len(), 3, "{name}: {repairs:#?}");
        assert!(
            repairs[0].contains(&format!("'{lost}'")) && repairs[0].contains("interrupted"),
            "{repairs:?}"
        );
        assert!(
            repairs
                .iter()
                .any(|r| r.contains("already has a result → removed")),
            "{repairs:?}"
        );
        assert!(
            repairs
                .iter()
                .any(|r| r.contains("'call_nowhere' has no earlier tool call → removed")),
            "{repairs:?}"
        );
        for r in file["repairs"].as_array().unwrap() {
            let line = r["line"].as_u64().unwrap() as usize;
            let at = damaged.lines().nth(line - 1).unwrap();
            assert!(
                at.contains("\"role\"") || at.trim() == "{",
                "{name}:{line}: {at}"
            );
        }
        expect(d, &["check", "r.out"], 0);
        let repaired = std::fs::read_to_string(d.join("r.out")).unwrap();
        let answer: Value = serde_json::from_str::<Value>(&repaired)
            .map(|v| v[2]["traj"].clone())
            .unwrap_or_else(|_| {
                serde_json::from_str::<Value>(repaired.lines().nth(2).unwrap()).unwrap()["messages"]
                    .clone()
            });
        let added = answer
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["tool_call_id"] == lost.as_str())
            .expect("the lost call is answered");
        assert_eq!(added["role"], "tool");
        assert!(added["content"].as_str().unwrap().contains("interrupted"));
        // The conversations no repair touched keep their bytes.
        if name.ends_with(".jsonl") {
            let (before, after): (Vec<&str>, Vec<&str>) =
                (damaged.lines().collect(), repaired.lines().collect());
            assert_eq!(before.len(), after.len());
            for k in [0, 1, 3, 4, 5] {
                assert!(before[k] == after[k], "line {}", k + 1);
            }
        }
        expect(d, &["restore", "r.ctxc-archive.json", "-o", "back"], 0);
        assert!(
            std::fs::read_to_string(d.join("back")).unwrap() == damaged,
            "{name}"
        );
    }
}

/// Anthropic Messages lists: an unanswered tool_use gets a tool_result saying it was
/// interrupted, in the user message right after the call; a tool_result answering no call is
/// removed; a clean request passes through byte-identical.
#[test]
fn anthropic_lists_are_repaired_and_clean_ones_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let damaged = std::fs::read_to_string(fixture("anthropic/orphan-tool-result.json")).unwrap();
    write(d, "m.json", &damaged);
    let out = expect(d, &["repair", "m.json", "--json"], 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines: Vec<u64> = report["files"][0]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [7, 13]);
    expect(d, &["check", "m.repaired.json"], 0);
    let repaired: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("m.repaired.json")).unwrap()).unwrap();
    let answer = &repaired["messages"][2];
    assert_eq!(answer["role"], "user");
    assert_eq!(answer["content"][0]["type"], "tool_result");
    assert_eq!(answer["content"][0]["tool_use_id"], "toolu_01");
    assert_eq!(answer["content"][0]["is_error"], true);
    assert_eq!(answer["content"][1]["text"], "Never mind. What time is it?");
    expect(d, &["restore", "m.repaired.json", "-o", "back.json"], 0);
    assert!(std::fs::read_to_string(d.join("back.json")).unwrap() == damaged);
    let clean = std::fs::read_to_string(fixture("anthropic/request.json")).unwrap();
    write(d, "clean.json", &clean);
    let out = expect(d, &["repair", "clean.json", "-o", "c.json", "--json"], 0);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["status"], "clean");
    assert!(std::fs::read_to_string(d.join("c.json")).unwrap() == clean);
}

#[test]
fn repair_to_an_object_url_is_refused_not_written_under_a_local_s3_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "s.jsonl",
        &damage(&claude_code_text(), Damage::DeleteToolResult).0,
    );
    let out = run(d, &["repair", "s.jsonl", "-o", "s3://bucket/r.jsonl"]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let said = format!("{}{}", stdout_of(&out), stderr_of(&out));
    assert!(said.contains("is an object"), "{said}");
    assert!(!d.join("s3:").exists(), "written as a local path: {said}");
}
