"""LangChain drop-in: compact a list of LangChain messages where an agent calls
``trim_messages``. Needs ``langchain-core`` (``pip install 'ctxc-compact[langchain]'``); ``import ctxc``
never imports it, this module does.

``trim`` converts the messages to OpenAI chat dicts (``convert_to_openai_messages``), compacts
them with :func:`ctxc.compact` towards ``max_tokens`` (ctxc's count, o200k by default), and
converts the result back (``convert_to_messages``). Unlike ``trim_messages``, what is dropped is
summarized, and what must stay (system messages, the task, the latest user message) stays even
when it alone is over ``max_tokens``: ``report`` of :func:`trim_with_report` says so in its
``notes``.
"""

from langchain_core.messages import convert_to_messages, convert_to_openai_messages

import ctxc

__all__ = ["trim", "trim_with_report"]


def trim_with_report(messages, max_tokens, *, strategy="adaptive", model=None, **settings):
    """Like :func:`trim`; returns ``(messages, report)``."""
    dicts = convert_to_openai_messages(list(messages))
    if ctxc.count_tokens(dicts, model=model) <= max_tokens:
        return list(messages), None
    done = ctxc.compact(
        dicts,
        target_tokens=max_tokens,
        strategy=strategy,
        model=model,
        force=True,
        **settings,
    )
    return convert_to_messages(done.messages), done.report


def trim(messages, max_tokens, *, strategy="adaptive", model=None, **settings):
    """The messages compacted to about ``max_tokens`` context tokens, as LangChain messages.

    Messages already within ``max_tokens`` come back as they are. ``settings`` are ctxc's
    settings keys (``keep_recent_rounds=4``, ...)."""
    return trim_with_report(messages, max_tokens, strategy=strategy, model=model, **settings)[0]
