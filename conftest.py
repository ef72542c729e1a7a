"""What every pytest run in this checkout shares: with pytest-xdist installed (the ``test``
extra), tests run on every core (most wait on subprocesses and sockets); without it, as any
suite does, so the examples' suites run under a plain ``pytest`` too."""

from __future__ import annotations

import importlib.util

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    if importlib.util.find_spec("xdist") is None or hasattr(config, "workerinput"):
        return
    option = config.option
    if getattr(option, "numprocesses", "missing") is None and not getattr(option, "collectonly", False):
        option.numprocesses = "auto"
        option.dist = "worksteal"
