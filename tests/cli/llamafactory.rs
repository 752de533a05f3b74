//! LLaMA-Factory datasets end to end: its `messages` format with typed content parts (tool
//! calls as `tool_call` parts answered by the `tool` messages after them) and its OpenAI-style
//! formatting with `function_call` / `observation` roles are checked clean, compacted by every
//! strategy without a finding, written back as typed parts, and restored exactly.

use crate::{ctxc, fixture, stdout_of};
use ctxc::strategy::StrategyName;
use serde_json::Value;

#[test]
fn datasets_check_clean() {
    for rel in [
        "llamafactory/messages-typed.jsonl",
        "llamafactory/openai-roles.json",
    ] {
        let out = ctxc().arg("check").arg(fixture(rel)).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stdout_of(&out));
    }
}

#[test]
fn typed_parts_compact_with_every_strategy_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("data.jsonl");
    let original = std::fs::read(fixture("llamafactory/messages-typed.jsonl")).unwrap();
    std::fs::write(&input, &original).unwrap();
    for strategy in StrategyName::ALL {
        for ratio in ["0.5", "0.25"] {
            let name = format!("{}-{ratio}", strategy.name());
            let output = dir.path().join(format!("{name}.jsonl"));
            let out = ctxc()
                .args(["compact", "--force", "--target-ratio", ratio, "--json"])
                .args(["--strategy", strategy.name(), "--archive", "-o"])
                .arg(&output)
                .arg(&input)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            let file = &report["files"][0];
            assert!(file["contextTokensAfter"].as_u64() <= file["contextTokensBefore"].as_u64());
            let out = ctxc().arg("check").arg(&output).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stdout_of(&out));
            for line in std::fs::read_to_string(&output).unwrap().lines() {
                let sample: Value = serde_json::from_str(line).unwrap();
                for message in sample["messages"].as_array().unwrap() {
                    let parts = message["content"].as_array().unwrap_or_else(|| {
                        panic!("{name}: content is not a list of typed parts: {message}")
                    });
                    assert!(
                        parts
                            .iter()
                            .all(|p| p["type"].is_string() && p["value"].is_string())
                    );
                }
            }
            let archive = dir.path().join(format!("{name}.ctxc-archive.json"));
            if archive.exists() {
                let restored = dir.path().join(format!("{name}.restored"));
                let out = ctxc()
                    .args(["restore", "-q", "-o"])
                    .arg(&restored)
                    .arg(&archive)
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{name}");
                assert_eq!(std::fs::read(&restored).unwrap(), original, "{name}");
            }
        }
    }
}
