"""The "Testing your playbook" page runs as written (its example suite, examples/test_scenarios.py,
runs with the other examples in test_cli.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "testing-your-playbook.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


def test_the_guide_has_its_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("n", range(len(BLOCKS)))
def test_each_example_of_the_guide_runs_as_written(n: int) -> None:
    exec(compile(BLOCKS[n], f"{GUIDE.name} (example {n + 1})", "exec"), {"__name__": "guide"})
