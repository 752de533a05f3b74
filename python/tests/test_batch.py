"""ctxc.compact_batch: Arrow data in and out, the same rows as `ctxc compact` on a Parquet file
of the same conversations (a list-of-struct column and a JSON-string column), and bad input."""

import copy
import threading

import pytest

import ctxc
from datasets_util import (
    REPORT,
    assert_rows_equal,
    cli_compact,
    pa,
    pq,
    swe_agent_rows,
    tau_bench_rows,
    write_dataset,
)

FORCED = ("--force", "--target-ratio", "0.5")


# A target on the command line compacts whether or not a trigger fires; the library's
# `target_ratio` without `force` is a target from the settings, which waits for a trigger:
# the CLI is given that one through the environment.
SETTINGS_TARGET = {"CTXC_TARGET_RATIO": "0.5"}


@pytest.mark.parametrize(
    ("flags", "env"),
    [((), SETTINGS_TARGET), (FORCED, None), ((*FORCED, "--strategy", "truncate"), None)],
    ids=["triggers", "forced", "truncate"],
)
def test_a_list_of_struct_column_gives_the_cli_rows(flags, env, tmp_path):
    data = tmp_path / "data.parquet"
    write_dataset(data, tau_bench_rows(12))
    cli_table, cli_reports = cli_compact(data, tmp_path / "out.parquet", *flags, env=env)
    table = pq.read_table(data)
    settings = {"target_ratio": 0.5, "force": "--force" in flags}
    if "truncate" in flags:
        settings["strategy"] = "truncate"
    got = ctxc.compact_batch(table, **settings)
    assert isinstance(got, pa.Table)
    assert got.schema.names == table.schema.names + REPORT
    assert got.schema.field("messages").type == table.schema.field("messages").type
    assert_rows_equal(got, cli_table, cli_reports)
    statuses = {r["status"] for r in cli_reports.values()}
    if "--force" in flags:
        # Forced, adaptive compacts every row; truncate some (the rest fit already).
        assert statuses == {"compacted"} if flags == FORCED else "compacted" in statuses
    # Each row group as a RecordBatch of its own gives the same rows.
    for batch in pq.ParquetFile(data).iter_batches(batch_size=5):
        out = ctxc.compact_batch(batch, **settings)
        assert isinstance(out, pa.RecordBatch) and out.num_rows == batch.num_rows
        whole = got.to_pylist()
        for row in out.to_pylist():
            assert row == whole[row["id"] - 1000]


def test_a_json_string_column_gives_the_cli_rows_and_a_bad_row_its_error(tmp_path):
    data = tmp_path / "trajectories.parquet"
    write_dataset(data, swe_agent_rows(bad=3), group=4)
    cli_table, cli_reports = cli_compact(data, tmp_path / "out.parquet", *FORCED)
    assert cli_reports[3]["status"] == "failed"
    table = pq.read_table(data)
    got = ctxc.compact_batch(table, target_ratio=0.5, force=True)
    assert_rows_equal(got, cli_table, cli_reports)
    bad = got.slice(3, 1).to_pylist()[0]
    assert bad["history"] == table.slice(3, 1).to_pylist()[0]["history"], "kept as it was"
    assert bad["error"] and bad["tokens_after"] is None


def test_a_dict_of_lists_gives_a_dict_of_lists(tmp_path):
    rows = tau_bench_rows(3)
    table = pa.Table.from_pylist(rows)
    given = table.to_pydict()
    before = copy.deepcopy(given)
    got = ctxc.compact_batch(given, target_ratio=0.5, force=True)
    assert given == before, "the input is never modified"
    assert isinstance(got, dict) and list(got) == list(given) + REPORT
    assert got == ctxc.compact_batch(table, target_ratio=0.5, force=True).to_pydict()
    assert all(a < b for a, b in zip(got["tokens_after"], got["tokens_before"]))


def test_the_column_is_found_by_name_or_given():
    convo = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    table = pa.table({"chat": [convo], "other": ["x"]})
    got = ctxc.compact_batch(table, force=True, target_ratio=0.5)
    assert got["error"].to_pylist() == [None]
    assert got["tokens_before"].to_pylist()[0] > 0
    renamed = table.rename_columns(["dialog", "other"])
    with pytest.raises(ctxc.CtxcError, match="no conversation column .* name it with column=") as e:
        ctxc.compact_batch(renamed)
    assert e.value.step == "read"
    got = ctxc.compact_batch(renamed, column="dialog", force=True, target_ratio=0.5)
    assert got.column("dialog").type == renamed.column("dialog").type
    with pytest.raises(ctxc.CtxcError, match="no column 'nope'"):
        ctxc.compact_batch(renamed, column="nope")
    with pytest.raises(ctxc.CtxcError, match="'messages' is Int64: a conversation column is"):
        ctxc.compact_batch(pa.table({"messages": [1]}))


def test_report_columns_already_there_are_replaced_in_place():
    convo = '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]'
    table = pa.table({"messages": [convo, None]})
    once = ctxc.compact_batch(table)
    assert once.schema.names == ["messages"] + REPORT
    assert once.slice(1, 1).to_pylist()[0] == {"messages": None, **{k: None for k in REPORT}}
    twice = ctxc.compact_batch(once)
    assert twice.schema == once.schema
    assert twice.to_pylist() == once.to_pylist()


def test_an_empty_table_keeps_its_schema_with_the_report_columns():
    table = pa.table({"messages": pa.array([], pa.string()), "id": pa.array([], pa.int64())})
    got = ctxc.compact_batch(table)
    assert got.num_rows == 0 and got.schema.names == ["messages", "id"] + REPORT
    batch = ctxc.compact_batch(pa.RecordBatch.from_pylist([], schema=table.schema))
    assert batch.num_rows == 0 and batch.schema == got.schema


def test_bad_input():
    with pytest.raises(TypeError, match="compact_batch takes"):
        ctxc.compact_batch([{"messages": []}])
    with pytest.raises(ctxc.CtxcError, match="unknown field `no_such_key`"):
        ctxc.compact_batch(pa.table({"messages": ["[]"]}), no_such_key=1)
    # A broken conversation is that row's error; the other rows are compacted.
    good = '[{"role": "user", "content": "a b c"}, {"role": "assistant", "content": "d e f"}]'
    got = ctxc.compact_batch(pa.table({"messages": ["not json", good]}), force=True)
    errors = got["error"].to_pylist()
    assert errors[0] and errors[1] is None
    assert got["messages"].to_pylist()[0] == "not json"


def test_batches_compact_in_parallel_threads_alike(tmp_path):
    table = pa.Table.from_pylist(tau_bench_rows(6))
    expected = ctxc.compact_batch(table, target_ratio=0.5, force=True)
    results = []

    def work():
        results.append(ctxc.compact_batch(table, target_ratio=0.5, force=True))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3 and all(r.equals(expected) for r in results)


def test_on_findings_reaches_each_row():
    """Each row is a conversation of the dataset, as `ctxc compact data.parquet` takes it: one
    that fails `check` is left as it was (keep), fails with its error (refuse), or is
    compacted (allow)."""
    rows = tau_bench_rows(4)
    broken = next(i for i, r in enumerate(rows) if any(m["role"] == "tool" for m in r["messages"]))
    tool = next(m for m in rows[broken]["messages"] if m["role"] == "tool")
    tool["tool_call_id"] = "call_nobody_made"
    table = pa.Table.from_pylist(rows)
    given = table.slice(broken, 1).to_pylist()[0]["messages"]
    kept = ctxc.compact_batch(table, target_ratio=0.5, force=True).to_pylist()
    assert kept[broken]["messages"] == given
    assert kept[broken]["error"] is None and kept[broken]["strategy_steps"] == []
    assert kept[broken]["tokens_after"] == kept[broken]["tokens_before"]
    assert all(r["tokens_after"] < r["tokens_before"] for i, r in enumerate(kept) if i != broken)
    refused = ctxc.compact_batch(table, target_ratio=0.5, force=True, on_findings="refuse")
    row = refused.to_pylist()[broken]
    assert "fails `ctxc check`" in row["error"] and row["messages"] == given
    allowed = ctxc.compact_batch(table, target_ratio=0.5, force=True, on_findings="allow")
    row = allowed.to_pylist()[broken]
    assert row["error"] is None and row["tokens_after"] < row["tokens_before"]
