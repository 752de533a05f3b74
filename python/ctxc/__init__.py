"""ctxc: compact stored LLM agent transcripts in-process.

The same Rust library as the ``ctxc`` command, with the same results: the native module writes
the conversation as the JSON text the command would read (:func:`dumps`), walking the Python
values in Rust, runs ``ctxc compact``'s pipeline on it with the GIL released, and builds the
output in the shape it was given. What compaction kept unchanged is copied from the values given
(new dicts and lists, shared strings and numbers) instead of parsed again; nothing returned
shares a dict or list with the input.

- a ``list`` (OpenAI chat message dicts, Anthropic messages, Claude Code or Codex records, or a
  list of conversations such as tau-bench runs) is written as JSONL, one element per line, as a
  Claude Code or Codex session file is, so a finding's ``line`` N is element N - 1 (given as
  ``index``);
- a ``dict`` (a container: ``{"messages": [...]}``, an Anthropic request, ShareGPT, ...) is
  written on one line;
- a ``str`` is taken as the JSON or JSONL text of a transcript, and ``.messages`` is text too.

Settings are the keys of ctxc's settings file (``keep_recent_rounds``, ``trigger_ratio``, ...),
over the defaults: a call reads no settings file and no ``CTXC_*`` variable.

:func:`compact_batch` compacts a column of conversations in Arrow data (a ``pyarrow.RecordBatch``
or ``Table``, or a ``dict`` of lists), one conversation per row, as ``ctxc compact`` compacts a
Parquet dataset: the batch crosses to Rust and back through the Arrow C stream interface, without
a copy.
"""

import json as _json
import warnings as _warnings
from collections.abc import Mapping as _Mapping

from . import _ctxc

__all__ = [
    "REPORT_COLUMNS",
    "REPORT_DDL",
    "Compacted",
    "CtxcError",
    "check",
    "compact",
    "compact_batch",
    "count_tokens",
    "dumps",
    "__version__",
]

# The columns compact_batch adds, with their Spark SQL types (for mapInArrow's schema).
REPORT_COLUMNS = (
    ("tokens_before", "bigint"),
    ("tokens_after", "bigint"),
    ("strategy_steps", "array<struct<strategy:string,tokens_before:bigint,tokens_after:bigint>>"),
    ("retention_paths", "double"),
    ("retention_commands", "double"),
    ("retention_errors", "double"),
    ("retention_user_requests", "double"),
    ("error", "string"),
)
# The same as Spark SQL DDL: `DataType.fromDDL(ctxc.REPORT_DDL).fields`.
REPORT_DDL = ", ".join(f"{name} {spark_type}" for name, spark_type in REPORT_COLUMNS)

__version__ = _ctxc.__version__


class CtxcError(ValueError):
    """A transcript ctxc cannot read, check or compact, or settings it refuses.

    ``str(error)`` is the message ``ctxc compact`` gives (with ``line N:`` in front when it is
    about a line). ``step`` is ``settings``, ``parse``, ``check`` or ``compact``; ``line`` the
    line of the serialized input (0: none); ``index`` the element of a list input that line
    holds (None: none); ``report`` the report measured before the failure, if any.
    """

    def __init__(self, message, *, step="", line=0, index=None, report=None):
        self.message = message
        self.step = step
        self.line = line
        self.index = index
        self.report = report
        super().__init__(f"line {line}: {message}" if line else message)


class Compacted:
    """The result of :func:`compact`: ``messages`` in the shape given, and ``report``.

    ``report`` is read from the report's JSON text when first used (and kept): an agent loop
    that only wants the messages does not pay for it."""

    __slots__ = ("messages", "_report", "_report_text")

    def __init__(self, messages, report):
        self.messages = messages
        self._report = report
        self._report_text = None

    @classmethod
    def _of(cls, messages, report_text):
        done = cls(messages, None)
        done._report_text = report_text
        return done

    @property
    def report(self):
        if self._report is None and self._report_text is not None:
            report = _json.loads(self._report_text)
            report.pop("output", None)
            self._report = report
        return self._report

    def __repr__(self):
        r = self.report
        return (
            f"Compacted(status={r.get('status')!r}, tokens {r.get('contextTokensBefore')}"
            f" -> {r.get('contextTokensAfter')}, messages {r.get('messagesBefore')}"
            f" -> {r.get('messagesAfter')})"
        )


def _shape(messages):
    """How a conversation is handed over and read back: ``text``, ``list`` or ``dict``."""
    if isinstance(messages, str):
        return "text"
    if isinstance(messages, (list, tuple)):
        return "list"
    if isinstance(messages, dict):
        return "dict"
    raise TypeError(
        "ctxc takes a list of messages or records, a dict container, or a transcript's JSON "
        f"text; got {type(messages).__name__}"
    )


def dumps(messages):
    """The text :func:`compact` compacts for ``messages``: a list as JSONL, one element per
    line (line N is element N - 1), a dict on one line, both as ``JSON.stringify`` writes
    them (and ``json.dumps`` with ``ensure_ascii=False, separators=(",", ":")``). ``ctxc
    compact`` on a file holding this text gives what :func:`compact` gives."""
    shape = _shape(messages)
    if shape == "text":
        return messages
    text, failure = _ctxc.dumps(messages)
    if failure is not None:
        _raise(failure, shape, 0)
    return text


def _index(line, shape, count):
    if shape == "list" and 1 <= line <= count:
        return line - 1
    return None


def _raise(failure, shape, count):
    step, line, message, report = failure
    raise CtxcError(
        message,
        step=step,
        line=line,
        index=_index(line, shape, count),
        report=_json.loads(report) if report else None,
    )


def _call(settings, **given):
    call = {k: v for k, v in given.items() if v is not None and v is not False}
    call["settings"] = {k: v for k, v in settings.items() if v is not None}
    try:
        return _json.dumps(call)
    except (TypeError, ValueError) as e:
        raise CtxcError(f"settings: {e}", step="settings") from None


def _on_findings(on_findings, allow_findings):
    """``on_findings``, or ``"allow"`` for the deprecated ``allow_findings=True`` (as the CLI's
    ``--allow-findings`` is ``--on-findings allow``; naming both is refused, as there)."""
    if not allow_findings:
        return on_findings
    if on_findings is not None:
        raise CtxcError(
            "allow_findings=True is on_findings='allow': give only on_findings", step="settings"
        )
    _warnings.warn(
        "allow_findings=True is deprecated: use on_findings='allow'",
        DeprecationWarning,
        stacklevel=3,
    )
    return "allow"


def compact(
    messages,
    *,
    target_ratio=None,
    target_tokens=None,
    strategy="adaptive",
    format=None,
    model=None,
    force=False,
    on_findings=None,
    allow_findings=False,
    messages_path=None,
    **settings,
):
    """Compacts a conversation as ``ctxc compact`` compacts a file holding it.

    ``on_findings`` is what a conversation that fails ``ctxc check`` does, as
    ``--on-findings``: ``"keep"`` (the default: in a list of many conversations it is left as it
    was and reported in the report's ``keptConversations``, the others are compacted; a single
    conversation or session is refused), ``"refuse"`` (the whole input is refused) or
    ``"allow"`` (compacted anyway). ``allow_findings=True`` is the deprecated spelling of
    ``on_findings="allow"``.

    Returns a :class:`Compacted`. ``messages`` is never modified, and ``.messages`` shares no
    dict or list with it: what compaction kept is copied from ``messages`` once the compaction
    (which runs with the GIL released) is done, so another thread must not change ``messages``
    during the call. Raises :class:`CtxcError`
    for settings ctxc refuses and transcripts it cannot read, check or compact, and
    ``TypeError`` for a value that is no conversation.
    """
    shape = _shape(messages)
    settings = dict(settings)
    settings.update(
        target_ratio=target_ratio, target_tokens=target_tokens, strategy=strategy, model=model
    )
    call = _call(
        settings,
        format=format,
        messages_path=messages_path,
        force=bool(force),
        on_findings=_on_findings(on_findings, allow_findings),
    )
    output, report, failure = _ctxc.compact(messages, call)
    if failure is not None:
        _raise(failure, shape, len(messages) if shape == "list" else 0)
    if shape == "dict":
        (output,) = output
    elif isinstance(messages, tuple):
        output = tuple(output)
    return Compacted._of(output, report)


def count_tokens(messages_or_text, *, model=None, format=None, messages_path=None):
    """Tokens: of a ``str`` as plain text; of a list or dict as the context the model is sent
    (``contextTokens`` of ``ctxc stats``: per-message overhead, tool calls, results...)."""
    settings = {"model": model}
    shape = _shape(messages_or_text)
    count = len(messages_or_text) if shape == "list" else 0
    if shape == "text":
        call = _call(settings)
    else:
        call = _call(settings, format=format, messages_path=messages_path)
    n, failure = _ctxc.count_tokens(messages_or_text, shape != "text", call)
    if failure is not None:
        _raise(failure, shape, count)
    return n


def check(messages, *, format=None, messages_path=None):
    """What ``ctxc check`` finds: a list of ``{"line", "index", "message"}`` dicts (empty when
    the conversation is valid). ``index`` is the list element the line holds, or None."""
    shape = _shape(messages)
    count = len(messages) if shape == "list" else 0
    call = _call({}, format=format, messages_path=messages_path)
    _format, findings, failure = _ctxc.check(messages, call)
    if failure is not None:
        _raise(failure, shape, count)
    return [
        {"line": line, "index": _index(line, shape, count), "message": message}
        for line, message in findings
    ]


def compact_batch(
    batch,
    *,
    column=None,
    target_ratio=None,
    target_tokens=None,
    strategy="adaptive",
    format=None,
    model=None,
    force=False,
    on_findings=None,
    allow_findings=False,
    messages_path=None,
    **settings,
):
    """Compacts the conversation column of Arrow data, one conversation per row, as
    ``ctxc compact data.parquet`` compacts each row of a Parquet dataset.

    ``batch`` is a ``pyarrow.RecordBatch`` or ``pyarrow.Table`` (Ray Data's
    ``batch_format="pyarrow"``, Spark's ``mapInArrow``), or a ``dict`` (any mapping) of column
    lists (Hugging Face ``datasets``' ``map(batched=True)``); the result is of the same type (a
    ``dict`` for a mapping), with the same columns (the conversation column compacted,
    everything else as given) and the
    :data:`REPORT_COLUMNS` after them: ``tokens_before``, ``tokens_after``, ``strategy_steps``
    (each strategy that ran, with tokens before and after), ``retention_paths``,
    ``retention_commands``, ``retention_errors``, ``retention_user_requests`` (the share of each
    kind of fact kept, as the JSON report's ``retention``) and ``error``. A row that ctxc cannot
    read, check or compact keeps its value and gets the error (``line N: ...``) in ``error``; a
    null conversation stays null, its report columns too.

    The conversation column is ``column``, else the first of ``messages``, ``conversations``,
    ``conversation``, ``trajectory``, ``history``, ``traj``, ``chat``; it is a list of structs
    (one per message) or a string of JSON. Settings are as for :func:`compact`. Rows are compacted
    in parallel, with the GIL released. Raises :class:`CtxcError` for settings ctxc refuses and
    for data without such a column (``step`` ``read``), and ``TypeError`` for another type.
    Needs pyarrow.
    """
    import pyarrow as pa

    columns = isinstance(batch, _Mapping)
    if columns:
        # A dict of lists; datasets hands over a dict-like LazyBatch.
        table = pa.Table.from_pydict(dict(batch))
    elif isinstance(batch, (pa.RecordBatch, pa.Table)):
        table = batch
    else:
        raise TypeError(
            "compact_batch takes a pyarrow.RecordBatch, a pyarrow.Table or a dict of column "
            f"lists; got {type(batch).__name__}"
        )
    settings = dict(settings)
    settings.update(
        target_ratio=target_ratio, target_tokens=target_tokens, strategy=strategy, model=model
    )
    call = _call(
        settings,
        name="batch",
        format=format,
        messages_path=messages_path,
        force=bool(force),
        on_findings=_on_findings(on_findings, allow_findings),
    )
    if isinstance(table, pa.RecordBatch):
        stream = pa.RecordBatchReader.from_batches(table.schema, [table]).__arrow_c_stream__()
    else:
        stream = table.__arrow_c_stream__()
    out, failure = _ctxc.compact_batches(stream, column, call)
    if failure is not None:
        _raise(failure, "batch", 0)
    reader = pa.RecordBatchReader._import_from_c_capsule(out)
    if isinstance(batch, pa.RecordBatch):
        return reader.read_next_batch()
    table = reader.read_all()
    return table.to_pydict() if columns else table
