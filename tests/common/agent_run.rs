//! An OpenAI agent run the eval tests share (tests/cli/eval.rs, tests/llm/judge.rs): the
//! task, an early failing test (message 2), a decision (message 3), 20 rounds of large reads,
//! and a last request. Truncation at 0.25 loses the early error.

use serde_json::{Value, json};

/// The run's messages, with `task` as the first user message.
pub fn agent_run_messages(task: &str) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "user", "content": task}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "t0", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"pytest tests/test_http.py\"}"}}]}),
        json!({"role": "tool", "tool_call_id": "t0", "content": "E   AssertionError: 413 != 200\n1 failed"}),
        json!({"role": "assistant", "content": "I'll use a length check instead of a regex."}),
    ];
    for k in 0..20 {
        let id = format!("r{k}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "read_file", "arguments": json!({"path": format!("/repo/lib/part_{k:02}.py")}).to_string()}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": format!("def part_{k}():\n{}", "    return 1\n".repeat(120))}));
    }
    messages.push(json!({"role": "user", "content": "Now add a changelog entry"}));
    messages.push(json!({"role": "assistant", "content": "Adding it to CHANGELOG.md next."}));
    messages
}
