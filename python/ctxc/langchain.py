"""LangChain drop-in: compact a list of LangChain messages where an agent calls
``trim_messages``. Needs ``langchain-core`` (``pip install 'ctxc-compact[langchain]'``); ``import ctxc``
never imports it, this module does.

``trim`` takes ``trim_messages``' arguments with their meaning (``max_tokens``, ``token_counter``,
``strategy="last"|"first"``, ``include_system``, ``start_on``, ``end_on``, ``allow_partial``,
``text_splitter``). With ``strategy="last"`` and messages over ``max_tokens``, ctxc first compacts
them (older turns summarized and masked, the latest kept) towards ``max_tokens`` as
``token_counter`` counts; ``trim_messages`` itself then applies every argument to the compacted
messages, so what comes back is always what ``trim_messages`` would return for them. Messages
within ``max_tokens``, and ``strategy="first"`` (keep the head: ctxc's compaction keeps the latest
turns instead), are left to ``trim_messages`` alone, so the result is exactly its result.
"""

import inspect

from langchain_core.messages import (
    BaseMessage,
    convert_to_messages,
    convert_to_openai_messages,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

import ctxc

__all__ = ["trim", "trim_with_report"]

# Tries at a tighter ctxc target when ``token_counter`` counts the compacted messages over
# ``max_tokens`` (its count and ctxc's differ, so the first target is a scaled guess).
_TRIES = 3


def trim_with_report(
    messages,
    max_tokens,
    *,
    token_counter=None,
    strategy="last",
    allow_partial=False,
    end_on=None,
    start_on=None,
    include_system=False,
    text_splitter=None,
    model=None,
    compaction="adaptive",
    **settings,
):
    """Like :func:`trim`; returns ``(messages, report)``, ``report`` being ctxc's report of the
    compaction, or None when nothing was compacted."""
    if strategy not in ("last", "first"):
        raise ValueError(
            f"strategy is trim_messages' 'last' or 'first', not {strategy!r}; "
            "ctxc's own strategy goes in compaction="
        )
    messages = convert_to_messages(list(messages))
    counter = _counter(token_counter, model)
    rules = dict(
        max_tokens=max_tokens,
        token_counter=counter,
        strategy=strategy,
        allow_partial=allow_partial,
        end_on=end_on,
        start_on=start_on,
        include_system=include_system,
        text_splitter=text_splitter,
    )
    report = None
    if strategy == "last":
        # trim_messages cuts the tail at end_on before it counts: compact what it would keep.
        ending = _cut_at_end_on(messages, end_on)
        if ending and _count(counter, ending) > max_tokens:
            messages, report = _compacted(ending, max_tokens, counter, model, compaction, settings)
    return trim_messages(messages, **rules), report


def trim(
    messages,
    max_tokens,
    *,
    token_counter=None,
    strategy="last",
    allow_partial=False,
    end_on=None,
    start_on=None,
    include_system=False,
    text_splitter=None,
    model=None,
    compaction="adaptive",
    **settings,
):
    """The messages trimmed to ``max_tokens`` as ``trim_messages`` does, compacted by ctxc first
    when ``strategy="last"`` and they are over it; LangChain messages in and out.

    ``token_counter`` is what ``trim_messages`` takes (a function of the message list or of one
    message, a chat model, ``len`` to count messages, ``"approximate"``), a model name for ctxc's
    own count of that model, or None (the default) for ctxc's count (o200k, or ``model``'s).
    ``compaction`` is ctxc's strategy, ``settings`` ctxc's settings keys
    (``keep_recent_rounds=4``, ...). The input is never modified."""
    return trim_with_report(
        messages,
        max_tokens,
        token_counter=token_counter,
        strategy=strategy,
        allow_partial=allow_partial,
        end_on=end_on,
        start_on=start_on,
        include_system=include_system,
        text_splitter=text_splitter,
        model=model,
        compaction=compaction,
        **settings,
    )[0]


def _counter(token_counter, model):
    """What trim_messages can take: ctxc's count stands in for None and for a model name."""
    if token_counter is None:
        return _ctxc_counter(model)
    if isinstance(token_counter, str) and token_counter != "approximate":
        return _ctxc_counter(token_counter)
    return token_counter


def _ctxc_counter(model):
    def count(messages):
        return ctxc.count_tokens(convert_to_openai_messages(list(messages)), model=model)

    return count


def _count(counter, messages):
    """The list's count under ``counter``, normalised as trim_messages normalises it: a chat
    model's own list count, a function of one message summed, else a function of the list."""
    if counter == "approximate":
        return count_tokens_approximately(messages)
    if hasattr(counter, "get_num_tokens_from_messages"):
        return counter.get_num_tokens_from_messages(messages)
    params = list(inspect.signature(counter).parameters.values())
    if params and params[0].annotation is BaseMessage:
        return sum(counter(m) for m in messages)
    return counter(messages)


def _cut_at_end_on(messages, end_on):
    """The messages with trailing ones not of ``end_on``'s types dropped, by trim_messages."""
    if end_on is None:
        return list(messages)
    return trim_messages(
        messages, max_tokens=len(messages), token_counter=len, strategy="last", end_on=end_on
    )


def _compacted(messages, max_tokens, counter, model, compaction, settings):
    """``messages`` compacted by ctxc until ``counter`` counts them within ``max_tokens`` (or
    ``_TRIES`` targets were tried), with the last compaction's report."""
    dicts = convert_to_openai_messages(messages)
    ours = ctxc.count_tokens(dicts, model=model)
    target = max_tokens * ours / max(1, _count(counter, messages))
    for _ in range(_TRIES):
        done = ctxc.compact(
            dicts,
            target_tokens=max(1, int(target)),
            strategy=compaction,
            model=model,
            force=True,
            **settings,
        )
        out = convert_to_messages(done.messages)
        theirs = _count(counter, out)
        if theirs <= max_tokens:
            break
        target *= max_tokens / theirs
    return out, done.report
