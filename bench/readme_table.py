"""The README's performance table, made from bench/RESULTS.md (its one source).

    python3 bench/readme_table.py           # print the table
    python3 bench/readme_table.py --write   # put it into README.md, between its markers
    python3 bench/readme_table.py --check   # exit 1 if README.md differs or a figure is not traceable

RESULTS.md's section "The README's table" holds one row a workload: the figure, when and at which
commit it was measured, and the sections of RESULTS.md that record the measurement. A figure is
kept honest by a check, not by hand: every number it shows, and the date, time and commit beside
it, must be found in the sections it cites (``problems``). ``tests/test_readme.py`` runs both.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
README = HERE.parent / "README.md"
SECTION = "The README's table"
BEGIN = "<!-- performance table: made by bench/readme_table.py from bench/RESULTS.md; do not edit by hand -->"
END = "<!-- end of the performance table -->"
HEADER = ("workload", "urlscan-rs (against the official client unless the row says)", "measured (UTC, commit)")
# A number as the figures write it: 1,234.5 or 0.81 (thousands separators dropped to compare).
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
# "2026-11-28 21:54 UTC, 904e16d": the run's date (and time) and the commit built; "with uncommitted
# changes" after it when the build held more than that commit (bench/run.py says so in its header).
MEASURED = re.compile(r"^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}) UTC)?, ([0-9a-f]{7,40})( with uncommitted changes)?$")


class Row(NamedTuple):
    workload: str
    figure: str
    measured: str
    sections: tuple[str, ...]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def sections(text: str) -> dict[str, str]:
    """Each heading's text (without its leading #s) -> the heading and what follows, up to the next heading."""
    out: dict[str, str] = {}
    title, body = "", []
    for line in text.splitlines():
        if line.startswith("#"):
            if title:
                out[title] = "\n".join(body)
            title, body = line.lstrip("#").strip(), [line]
        else:
            body.append(line)
    if title:
        out[title] = "\n".join(body)
    return out


def _section(all_sections: dict[str, str], name: str) -> str | None:
    """The one section whose heading starts with `name` (headings carry their run's command and date)."""
    found = [t for h, t in all_sections.items() if h.startswith(name)]
    return found[0] if len(found) == 1 else None


def rows(text: str) -> list[Row]:
    """The rows of RESULTS.md's section "The README's table", in order."""
    body = _section(sections(text), SECTION)
    if body is None:
        raise ValueError(f"bench/RESULTS.md has no single section {SECTION!r}")
    out = []
    for line in body.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = _cells(line)
        if len(cells) != 4:
            raise ValueError(f"a row of {SECTION!r} needs 4 cells: {line}")
        if cells[0] == "workload":
            continue
        out.append(Row(cells[0], cells[1], cells[2], tuple(s.strip() for s in cells[3].split(" + "))))
    if not out:
        raise ValueError(f"the section {SECTION!r} of bench/RESULTS.md has no rows")
    return out


def _has(text: str, number: str) -> bool:
    plain = text.replace(",", "")
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", plain) is not None


def problems(text: str) -> list[str]:
    """What of the figures cannot be found where they say they were measured (empty when all can)."""
    found = sections(text)
    out = []
    for row in rows(text):
        where = []
        for name in row.sections:
            body = _section(found, name)
            if body is None:
                out.append(f"{row.workload}: no single section of RESULTS.md starts with {name!r}")
            else:
                where.append(body)
        cited = "\n".join(where)
        m = MEASURED.match(row.measured)
        if m is None:
            want = "'YYYY-MM-DD[ HH:MM UTC], commit[ with uncommitted changes]'"
            out.append(f"{row.workload}: 'measured' must read {want}: {row.measured!r}")
            continue
        for part in m.groups()[:3]:
            if part and part not in cited:
                out.append(f"{row.workload}: {part!r} is not in the sections it cites")
        if m.group(4) and "uncommitted changes" not in cited:
            out.append(f"{row.workload}: the sections it cites do not say the build had uncommitted changes")
        for number in NUMBER.findall(row.figure):
            if not _has(cited, number.replace(",", "")):
                out.append(f"{row.workload}: the figure's {number} is not in the sections it cites")
    return out


def table(text: str) -> str:
    """The README's table, as markdown."""
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|---|"]
    lines += [f"| {r.workload} | {r.figure} | {r.measured} |" for r in rows(text)]
    return "\n".join(lines) + "\n"


def in_readme(readme: str) -> str:
    """The table the README shows now, between its markers."""
    start = readme.index(BEGIN) + len(BEGIN) + 1
    return readme[start : readme.index(END, start)]


def write(readme: str, made: str) -> str:
    start = readme.index(BEGIN) + len(BEGIN) + 1
    return readme[:start] + made + readme[readme.index(END, start) :]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="put the table into README.md")
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md's table differs or a figure is not traceable")
    a = ap.parse_args()
    text = RESULTS.read_text(encoding="utf-8")
    made = table(text)
    found = problems(text)
    for p in found:
        print(f"bench/RESULTS.md: {p}", file=sys.stderr)
    readme = README.read_text(encoding="utf-8")
    if a.write:
        README.write_text(write(readme, made), encoding="utf-8")
    elif a.check:
        if in_readme(readme) != made:
            print("README.md's performance table differs: run python3 bench/readme_table.py --write", file=sys.stderr)
            return 1
    else:
        print(made, end="")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
