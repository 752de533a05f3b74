#!/usr/bin/env python3
"""Checks `ctxc fit` output independently of ctxc: every sample's length in the trained
model's tokenizer with its chat template, counted by Hugging Face's own `tokenizers` package
and the template rendered by Jinja2 as transformers' `apply_chat_template` renders it
(trim_blocks, lstrip_blocks, loop controls, `tojson` as `json.dumps(ensure_ascii=False)`);
and the structure: no tool call parted from its results, the train flag 0/1 on every
message, each sample's trained messages exactly its assistant messages after the head.

    python3 -m venv /tmp/fitvenv && /tmp/fitvenv/bin/pip install tokenizers jinja2
    ctxc fit corpus/swe-agent --max-len 4096 \
        --tokenizer-file fixtures/tokenizers/qwen3/tokenizer.json -o /tmp/out.jsonl
    /tmp/fitvenv/bin/python scripts/ci/fit_check.py /tmp/out.jsonl --max-len 4096 \
        --tokenizer-file fixtures/tokenizers/qwen3/tokenizer.json

Prints `N passed, 0 failed` (samples) and exits 1 on any failure.
"""

import argparse
import json
import os
import sys

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer

SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


def template_env(config):
    """The template and special tokens, compiled as transformers compiles them."""

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    source = config["chat_template"]
    if isinstance(source, list):
        source = next((t["template"] for t in source if t.get("name") == "default"), source[0]["template"])
    tokens = {}
    for name in SPECIAL:
        value = config.get(name)
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            tokens[name] = value
    return env.from_string(source), tokens


def check_structure(row, flag):
    """Problems with a sample's pairs and flags, as strings."""
    problems = []
    messages = row["messages"]
    open_calls = set()
    for m in messages:
        if flag not in m or m[flag] not in (0, 1):
            problems.append(f"a {m.get('role')} message without a 0/1 {flag}")
        if m[flag] == 1 and m["role"] != "assistant":
            problems.append(f"a {m['role']} message is trained")
        if m["role"] == "assistant":
            for call in m.get("tool_calls") or []:
                open_calls.add(call["id"])
        if m["role"] == "tool" and m.get("tool_call_id") not in open_calls:
            problems.append(f"result {m.get('tool_call_id')} without its call in the sample")
    answered = {m.get("tool_call_id") for m in messages if m["role"] == "tool"}
    for m in messages:
        for call in m.get("tool_calls") or []:
            if call["id"] not in answered and m is not messages[-1]:
                problems.append(f"call {call['id']} without its result in the sample")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples")
    ap.add_argument("--max-len", type=int, required=True)
    ap.add_argument("--tokenizer-file", required=True)
    ap.add_argument("--chat-template")
    ap.add_argument("--train-field", default="weight")
    args = ap.parse_args()
    tokenizer = Tokenizer.from_file(args.tokenizer_file)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    config_path = args.chat_template or os.path.join(os.path.dirname(args.tokenizer_file), "tokenizer_config.json")
    with open(config_path, encoding="utf-8") as f:
        template, tokens = template_env(json.load(f))
    passed = failed = 0
    longest = 0
    with open(args.samples, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            row = json.loads(line)
            context = dict(tokens, messages=row["messages"], add_generation_prompt=False)
            if row.get("tools"):
                context["tools"] = row["tools"]
            text = template.render(**context)
            length = len(tokenizer.encode(text, add_special_tokens=False).ids)
            longest = max(longest, length)
            problems = check_structure(row, args.train_field)
            if length > args.max_len:
                problems.append(f"{length} tokens, over {args.max_len}")
            if problems:
                failed += 1
                print(f"line {n} ({row.get('sample_of')} segment {row.get('segment')}): {'; '.join(problems)}")
            else:
                passed += 1
    print(f"longest sample: {longest} tokens of {args.max_len}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
