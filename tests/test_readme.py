"""README recipes run verbatim: the text a newcomer copies is the text tested."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _block_after(marker: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("```python\n", text.index(marker)) + len("```python\n")
    return text[start : text.index("```", start)]


def test_the_emulator_recipe_outside_pytest_runs_as_written() -> None:
    code = _block_after("Outside pytest (a notebook")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (emulator outside pytest)", "exec"), {"__name__": "readme"})
    lines = out.getvalue().splitlines()
    assert lines == ["team", "[(1, 503), (2, 503), (3, 200)]"], lines
