"""Parquet datasets built from corpus conversations, as tests/cli/parquet.rs builds them for the
CLI's tests, and the CLI's compaction of them: what compact_batch and the engines are compared
with. Shared by test_batch.py and test_engines.py."""

import json
import os
import subprocess
from pathlib import Path

import importlib

import pytest

import ctxc


def need(module):
    """`module`, imported; a test without it is skipped, or fails where
    $CTXC_ENGINES_REQUIRED is set (scripts/ci/python-tests.sh, which installs the engines)."""
    if os.environ.get("CTXC_ENGINES_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


pa = need("pyarrow")
pq = need("pyarrow.parquet")

from test_api import CORPUS, cli_binary  # noqa: E402

REPORT = [name for name, _ in ctxc.REPORT_COLUMNS]


def extras(i):
    """Other columns of row `i`, which must come back equal: int64, float, a string with
    nulls, a list and a nested struct."""
    return {
        "id": 1000 + i,
        "score": i / 4 + 0.125,
        "note": None if i % 3 == 0 else f"note {i}",
        "tags": [f"t{i}", "corpus"],
        "meta": {"source": "corpus", "run": {"trial": i, "ok": i % 2 == 0}},
    }


def tau_bench_rows(n):
    """The first `n` tau-bench runs, their messages a list-of-struct `messages` column; row 7
    holds no conversation (null)."""
    path = CORPUS / "openai-chat" / "tau-bench" / "gpt-4o-airline.json"
    if not path.exists():
        pytest.skip(f"no corpus at {CORPUS}")
    runs = json.loads(path.read_text(encoding="utf-8"))[:n]
    rows = [{"messages": run["traj"], **extras(i)} for i, run in enumerate(runs)]
    if n > 7:
        rows[7]["messages"] = None
    return rows


def swe_agent_rows(bad=3):
    """SWE-agent histories as JSON text in a `history` column; row `bad` does not parse."""
    folder = CORPUS / "swe-agent"
    if not folder.exists():
        pytest.skip(f"no corpus at {CORPUS}")
    rows = []
    for i, path in enumerate(sorted(folder.iterdir())):
        traj = json.loads(path.read_text(encoding="utf-8"))
        history = '[{"role": "system", "content": ' if i == bad else json.dumps(traj["history"])
        rows.append({"history": history, **extras(i)})
    return rows


def write_dataset(path, rows, group=5):
    """A Parquet file of `rows` (the schema inferred by pyarrow), in row groups of `group`."""
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, path, row_group_size=group, compression="zstd")
    return table


def cli_compact(path, out, *flags, env=None):
    """`ctxc compact PATH -o OUT --json FLAGS`: the output table and each row's report by index.
    `env` adds settings from the environment (the `CTXC_*` of the caller's are left out)."""
    given = env or {}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXC_")}
    env.update(given)
    done = subprocess.run(
        [str(cli_binary()), "compact", "--no-config", str(path), "-o", str(out), "--json", *flags],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    rows = {int(f["path"].rsplit("#row=", 1)[1]): f for f in report["files"]}
    return pq.read_table(out), rows


def report_columns(report):
    """What compact_batch's report columns hold for a row the CLI reported so."""
    if report is None:
        return {name: None for name in REPORT}
    failed = report["status"] == "failed"
    measured = report.get("format") is not None
    error = None
    if failed:
        error = report["error"]
        if report.get("errorLine"):
            error = f"line {report['errorLine']}: {error}"
    retention = report["retention"]
    return {
        "tokens_before": report["contextTokensBefore"] if measured else None,
        "tokens_after": report["contextTokensAfter"] if measured else None,
        "strategy_steps": None
        if failed
        else [
            {"strategy": s["strategy"], "tokens_before": s["tokensBefore"], "tokens_after": s["tokensAfter"]}
            for s in report["steps"]
        ],
        "retention_paths": None if failed else retention["paths"],
        "retention_commands": None if failed else retention["commands"],
        "retention_errors": None if failed else retention["errors"],
        "retention_user_requests": None if failed else retention["userRequests"],
        "error": error,
    }


def assert_rows_equal(got, cli_table, cli_reports, key="id"):
    """`got` (a pyarrow Table, or rows) holds the CLI's output rows, in any order, each with the
    report columns of its CLI report."""
    rows = got.to_pylist() if hasattr(got, "to_pylist") else got
    rows = sorted(rows, key=lambda r: r[key])
    expected = cli_table.to_pylist()
    index = {r[key]: i for i, r in enumerate(expected)}
    assert [r[key] for r in rows] == sorted(index), "the same rows"
    for row in rows:
        i = index[row[key]]
        want = dict(expected[i], **report_columns(cli_reports.get(i)))
        assert row == want, f"row {i}"
