"""LangChain's side of the tau-bench job (see scripts/bench/langchain-bench.sh): trims every
conversation of a tau-bench trajectory file to RATIO of its tokens with `trim_messages`
(strategy "last", an exact tiktoken o200k counter) and writes the file back with each `traj`
trimmed. Prints the tokens before and after on stderr.

Usage: python langchain_bench.py INPUT.json OUTPUT.json [RATIO]
"""

import json
import sys

import tiktoken
from langchain_core.messages import (
    convert_to_messages,
    convert_to_openai_messages,
    trim_messages,
)

ENCODING = tiktoken.get_encoding("o200k_base")


def text_tokens(text):
    return len(ENCODING.encode(text, disallowed_special=()))


def message_tokens(message):
    """What the model is sent of a message: its text and its tool calls, counted exactly."""
    content = message.content
    if isinstance(content, list):
        content = "\n".join(
            p.get("text", "") if isinstance(p, dict) else str(p) for p in content
        )
    tokens = text_tokens(content or "")
    for call in getattr(message, "tool_calls", None) or []:
        tokens += text_tokens(call["name"]) + text_tokens(json.dumps(call["args"]))
    return tokens


def count(messages):
    return sum(message_tokens(m) for m in messages)


def trim(traj, ratio):
    messages = convert_to_messages(traj)
    before = count(messages)
    kept = trim_messages(
        messages,
        max_tokens=int(before * ratio),
        token_counter=count,
        strategy="last",
        include_system=True,
        start_on="human",
        allow_partial=False,
    )
    return convert_to_openai_messages(kept), before, count(kept)


def main():
    source, target = sys.argv[1], sys.argv[2]
    ratio = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    with open(source, encoding="utf-8") as f:
        runs = json.load(f)
    total_before = total_after = 0
    for run in runs:
        run["traj"], before, after = trim(run["traj"], ratio)
        total_before += before
        total_after += after
    with open(target, "w", encoding="utf-8") as f:
        json.dump(runs, f, ensure_ascii=False, indent=2)
    print(
        f"{len(runs)} conversations: {total_before} -> {total_after} tokens",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
