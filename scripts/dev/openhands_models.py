#!/usr/bin/env python3
"""Reads OpenHands event streams with OpenHands' own event models and replays them as its
agent would: event_from_dict on every event, the agent's history filter (null events and state
changes left out), View.from_events (condensations applied, the latest summary inserted at its
offset), then ConversationMemory.process_events. Fails when an event does not deserialize,
when a tool result is sent without its call, or when a stream holding a ctxc summary does not
send it. Flat CodeAct histories (no ids) are skipped: they predate these models.

Not run by CI (OpenHands' V0 package is large). Checked with openhands-ai 0.62.0, the last
release holding the V0 event models, installed into a Python 3.12 virtual environment with
`pip install --no-deps openhands-ai==0.62.0`, then `litellm pydantic` and the modules its
imports ask for (python-json-logger, termcolor, toml, tenacity, google-cloud-storage,
browsergym-core==0.13.3, ...). Usage, on ctxc outputs:

    scripts/dev/openhands_models.py out/*.json out/*.jsonl
"""
import json
import os
import sys
from openhands.events.serialization.event import event_from_dict
from openhands.memory.view import View
from openhands.events.action import MessageAction
def lists(path):
    if path.endswith('.jsonl'):
        for l in open(path):
            if l.strip():
                d = json.loads(l)
                if isinstance(d.get('history'), list) and d['history']: yield d['history']
    else:
        d = json.load(open(path))
        yield d if isinstance(d, list) else d['history']
try:
    from openhands.memory.conversation_memory import ConversationMemory
    from openhands.core.config.agent_config import AgentConfig
    from openhands.utils.prompt import PromptManager
    import openhands
    pm = PromptManager(prompt_dir=os.path.join(os.path.dirname(openhands.__file__), 'agenthub/codeact_agent/prompts'))
    mem = ConversationMemory(AgentConfig(), pm)
except Exception as e:
    print('no ConversationMemory:', repr(e)[:200]); mem = None
bad = 0
for path in sys.argv[1:]:
    for h in lists(path):
        if 'id' not in h[0]:
            continue  # flat CodeAct history: not event_from_dict's shape
        try:
            events = []
            for d in h:
                e = event_from_dict(dict(d))
                events.append(e)
            skip = ('NullAction', 'NullObservation', 'ChangeAgentStateAction', 'AgentStateChangedObservation')
            events = [e for e in events if type(e).__name__ not in skip]
            view = View.from_events(events)
            summ = [e for e in view.events if type(e).__name__ == 'AgentCondensationObservation']
            msgs = None
            if mem:
                first = next(e for e in events if isinstance(e, MessageAction) and e.source == 'user')
                msgs = mem.process_events(list(view.events), first)
                calls = {tc.id for m in msgs if m.tool_calls for tc in m.tool_calls}
                res = [m.tool_call_id for m in msgs if m.role == 'tool']
                assert all(r in calls for r in res), 'unpaired'
                assert any('[ctxc summary]' in (c.text if hasattr(c,'text') else '') for m in msgs for c in m.content) or not any('ctxc summary' in json.dumps(d) for d in h), 'summary not sent'
            print('ok', os.path.basename(path), len(h), 'events ->', len(view.events), 'view,', len(msgs) if msgs is not None else '-', 'messages,', len(summ), 'summary')
        except Exception as e:
            bad += 1
            print('FAIL', path, repr(e)[:300])
sys.exit(1 if bad else 0)
