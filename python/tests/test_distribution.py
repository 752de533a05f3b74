"""The package is distributed as ``ctxc-compact`` (``ctxc`` on PyPI is an unrelated project)
and imported as ``ctxc``."""

import importlib.metadata

import ctxc


def test_the_distribution_is_ctxc_compact_and_imports_as_ctxc():
    dist = importlib.metadata.distribution("ctxc-compact")
    assert dist.version == ctxc.__version__
