#!/usr/bin/env python3
"""Writes fixtures/codex/calibration.jsonl: a multi-call Codex rollout for the calibration test.

The corpus holds no real Codex rollout with more than two token_count events (its rollouts are
single-record samples), so this one is assembled from the corpus's Codex sample records and
the corpus README's text as tool output. Its token_count values are SYNTHESIZED, not recorded:
each call's prompt = ctxc's own count of what the call was sent (GPT models use o200k, the
encoding ctxc counts) + 4,000 hidden instruction tokens + 5 framing tokens per record sent.
Codex's placement is kept: the event follows the reply it reports, some events repeat, cached
tokens are counted inside input_tokens. Run from the crate root after `cargo build`.
"""
import json
import subprocess

CORPUS = "../shared/corpus/"
SAMPLES = CORPUS + "codex-rollout/claude-code-log-samples/"


def sample(rel):
    return json.load(open(SAMPLES + rel))


def counted(lines):
    """ctxc's context tokens of a rollout prefix."""
    out = subprocess.run(
        ["target/debug/ctxc", "stats", "--json", "--format", "codex", "-"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["files"][0]["contextTokens"]


def item(payload):
    return json.dumps({"type": "response_item", "payload": payload}, ensure_ascii=False)


readme = open(CORPUS + "README.md").read().splitlines()
commands = [json.loads(s["payload"]["arguments"])["cmd"] if "cmd" in s["payload"]["arguments"] else "ls"
            for s in sample("tools/async-command.json") if s["payload"]["type"] == "function_call"]
lines = [json.dumps(sample("session/session_meta.json")),
         json.dumps(sample("lifecycle/turn-context.json"))]
env = sample("messages/environment-context.json")["payload"]["message"]
lines.append(item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": env}]}))
reasoning = sample("reasoning/summary.json")["payload"]
previous = 0
for turn in range(12):
    ask = sample("messages/visible-pair.json")[1]["payload"]
    lines.append(item(ask))
    call_id = f"call-{turn:03}"
    cmd = commands[turn % len(commands)] if commands else "ls"
    lines.append(item(reasoning))
    lines.append(item({"type": "function_call", "name": "exec_command",
                       "arguments": json.dumps({"cmd": cmd}), "call_id": call_id}))
    cut = lines[:-2]  # the call was sent everything before its reply
    prompt = counted(cut) + 4000 + 5 * len(cut)
    for repeat in range(1 + (turn % 3 == 0)):
        usage = {"input_tokens": prompt, "cached_input_tokens": min(previous, prompt),
                 "output_tokens": 40, "reasoning_output_tokens": 8, "total_tokens": prompt + 40}
        lines.append(json.dumps({"type": "event_msg", "payload": {
            "type": "token_count", "info": {"last_token_usage": usage, "model_context_window": 272000}}}))
    previous = prompt
    output = "\n".join(readme[turn * 7: turn * 7 + 4 + 3 * turn])
    lines.append(item({"type": "function_call_output", "call_id": call_id, "output": output}))
open("fixtures/codex/calibration.jsonl", "w").write("\n".join(lines) + "\n")
