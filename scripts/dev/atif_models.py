#!/usr/bin/env python3
"""Validates ATIF trajectories with Harbor's own pydantic models
(harbor.models.trajectories.Trajectory): field types, extra fields forbidden, step ids
sequential from 1, every observation result's source_call_id naming a call of its own step.
Fails, naming the file, line and error, when one does not validate.

Not run by CI (Harbor needs Python >= 3.12 and many packages). Checked with harbor 0.25.0:
its wheel (`pip download harbor==0.25.0 --no-deps --python-version 3.12 --only-binary=:all:`)
unzipped, and only `harbor/models/trajectories/` used, with `pydantic` installed: set
HARBOR_TRAJECTORIES to that folder. Usage, on ctxc outputs and conversions:

    HARBOR_TRAJECTORIES=/tmp/hx/harbor/models/trajectories scripts/dev/atif_models.py out/*.json
"""
import json
import os
import sys
import tempfile
import types
import importlib

# Only the models: harbor's package __init__ imports the whole framework.
root = tempfile.mkdtemp()
for pkg in ("harbor", "harbor.models"):
    module = types.ModuleType(pkg)
    module.__path__ = []
    sys.modules[pkg] = module
sys.modules["harbor.models"].__path__ = [os.path.dirname(os.environ["HARBOR_TRAJECTORIES"])]
Trajectory = importlib.import_module("harbor.models.trajectories").Trajectory


def trajectories(path):
    text = open(path, encoding="utf-8").read()
    try:
        value = json.loads(text)
        for t in value if isinstance(value, list) else [value]:
            yield 1, t
    except json.JSONDecodeError:
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                yield n, json.loads(line)


failed = 0
checked = 0
for path in sys.argv[1:]:
    for line, t in trajectories(path):
        checked += 1
        try:
            Trajectory.model_validate(t)
        except Exception as e:
            failed += 1
            print(f"{path}:{line}: {str(e)[:400]}")
print(f"{checked} trajectories, {failed} invalid")
sys.exit(1 if failed else 0)
