#!/usr/bin/env python3
"""Writes the Parquet fixtures under fixtures/parquet/ (see its README) with pyarrow, as the
Hugging Face `datasets` library and pandas write them (Arrow's schema in the footer).

    python3 -m venv /tmp/pa && /tmp/pa/bin/pip install pyarrow
    /tmp/pa/bin/python scripts/dev/parquet-fixtures.py      # from the crate root

nebius-swe-agent.parquet: the shape of nebius/SWE-agent-trajectories (its dataset card's
`dataset_info`: instance_id, model_name, target, trajectory as a list of
{cutoff_date, mask, role, system_prompt, text}, exit_status, generated_patch, eval_logs;
roles system, user, ai). No nebius data is in the corpus: the messages are the corpus's
SWE-agent trajectories (../shared/corpus/swe-agent/), each cut to its first 12 messages, with
`assistant` written `ai` and `content` written `text`. Whether nebius keeps the system prompt in
`text` or in `system_prompt` the card does not say: row 0 has it in `system_prompt` (its
`text` null), the others in `text`.

category.parquet: a conversation column of JSON text stored as a pandas `category`
(an Arrow dictionary of strings, int8 keys), from the corpus's tau-bench runs.
"""
import glob
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

CORPUS = "../shared/corpus/"
OUT = "fixtures/parquet/"


def nebius_rows():
    paths = sorted(glob.glob(CORPUS + "swe-agent/*.traj"))[:4]
    rows = []
    for i, path in enumerate(paths):
        history = json.load(open(path))["history"][:12]
        trajectory = []
        for m in history:
            role = {"assistant": "ai"}.get(m["role"], m["role"])
            text = m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            system = role == "system"
            trajectory.append({
                "cutoff_date": "2024-11-30" if system else None,
                "mask": role != "ai",
                "role": role,
                "system_prompt": text if system and i == 0 else None,
                "text": None if system and i == 0 else text,
            })
        rows.append({
            "instance_id": os.path.basename(path).rsplit(".", 1)[0][-40:],
            "model_name": "swe-agent-llama-70b",
            "target": i % 2 == 0,
            "trajectory": trajectory,
            "exit_status": "submitted" if i % 2 == 0 else "exit_cost",
            "generated_patch": "diff --git a/x.py b/x.py\n" if i % 2 == 0 else "",
            "eval_logs": f"Will execute following command for run_tests: {i}",
        })
    return rows


NEBIUS = pa.schema([
    ("instance_id", pa.string()),
    ("model_name", pa.string()),
    ("target", pa.bool_()),
    ("trajectory", pa.list_(pa.struct([
        ("cutoff_date", pa.string()),
        ("mask", pa.bool_()),
        ("role", pa.string()),
        ("system_prompt", pa.string()),
        ("text", pa.string()),
    ]))),
    ("exit_status", pa.string()),
    ("generated_patch", pa.string()),
    ("eval_logs", pa.string()),
])


def category_table():
    runs = json.load(open(CORPUS + "openai-chat/tau-bench/gpt-4o-airline.json"))[:3]
    texts = [json.dumps(run["traj"]) for run in runs]
    # Two rows share a value, as categories do.
    texts.append(texts[0])
    messages = pa.array(texts).dictionary_encode()
    messages = pa.DictionaryArray.from_arrays(messages.indices.cast(pa.int8()), messages.dictionary)
    return pa.table({"id": pa.array(range(len(texts)), pa.int64()), "messages": messages})


def main():
    os.makedirs(OUT, exist_ok=True)
    table = pa.Table.from_pylist(nebius_rows(), schema=NEBIUS)
    pq.write_table(table, OUT + "nebius-swe-agent.parquet", compression="zstd", row_group_size=2)
    pq.write_table(category_table(), OUT + "category.parquet", compression="snappy")


main()
