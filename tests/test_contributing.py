"""CONTRIBUTING.md's recipes against the code. Each recipe ends with a **By hand** line (files,
each with the table or item edited there) and a **Generated** line (files, each with the
regions the generator writes): the files and items exist, the regions are written by
``python -m urlscan_rs._generate`` from the core alone (so ``--check`` holds them), the search
option's row file has the shape the recipe tells, and the places a data source is written by
hand are those where the code names every data source."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import _generate

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
# The recipes, by their headings (the text after "Adding a ...").
RECIPES = ("scan option", "endpoint", "search option", "search data source", "field to a hit")
# Where code and documentation live (tests, benchmarks and the recipes' own examples aside).
SOURCES = ("crates", "src", "python", "docs", "README.md")


@dataclasses.dataclass(frozen=True)
class Place:
    """A file a recipe names (maybe with a ``<placeholder>``) and what it names in it."""

    path: str
    names: tuple[str, ...]

    def files(self) -> list[Path]:
        return sorted(ROOT.glob(re.sub(r"<[^>]+>", "*", self.path)))


def _places(text: str) -> list[Place]:
    # `path` then, maybe, "(`name`, `name`, words)": the backticked names are what it names.
    found = re.finditer(r"`([\w.<>-]+(?:/[\w.<>-]+)+)`(?:\s*\(([^)]*)\))?", text)
    return [Place(m[1], tuple(re.findall(r"`([^`]+)`", m[2] or ""))) for m in found]


def recipes(text: str = TEXT) -> dict[str, dict[str, list[Place]]]:
    """Each recipe (by what it adds) and its places: ``{"By hand": [...], "Generated": [...]}``."""
    out = {}
    for section in re.split(r"\n(?=#+ )", text):
        heading = re.match(r"#+ Adding an? ([^:\n]+)", section)
        lines = re.finditer(r"^\*\*(By hand|Generated):\*\* (.*?)(?=\n\*\*|\n\n|\Z)", section, re.MULTILINE | re.DOTALL)
        places = {m[1]: _places(m[2]) for m in lines}
        if heading and places:
            out[heading[1].strip()] = places
    return out


def _every(kind: str) -> Iterator[tuple[str, Place]]:
    for recipe, places in recipes().items():
        for place in places.get(kind, []):
            yield recipe, place


def test_every_recipe_names_the_files_it_touches() -> None:
    found = recipes()
    assert set(found) == set(RECIPES)
    for recipe, places in found.items():
        assert places.get("By hand") and places.get("Generated"), recipe


def test_the_reading_of_the_recipes_finds_places_and_names() -> None:
    text = "## Adding a thing: two edits\n\nWords.\n\n**By hand:** `a/b.rs` (`ROWS`, for a flat one), `c/<x>.py`.\n"
    text += "**Generated:** `d/e.py` (`one`, `<name>`).\n"
    by_hand, generated = [Place("a/b.rs", ("ROWS",)), Place("c/<x>.py", ())], [Place("d/e.py", ("one", "<name>"))]
    assert recipes(text) == {"thing": {"By hand": by_hand, "Generated": generated}}


@pytest.mark.parametrize(("recipe", "place"), list(_every("By hand")), ids=lambda v: getattr(v, "path", v))
def test_what_a_recipe_edits_by_hand_exists(recipe: str, place: Place) -> None:
    files = place.files()
    assert files, f"{recipe}: no file {place.path}"
    for name in place.names:
        word = re.compile(rf"\b{re.escape(name)}\b")
        assert any(word.search(f.read_text(encoding="utf-8")) for f in files), f"{recipe}: {place.path} has no {name}"


def test_every_file_the_recipes_name_exists() -> None:
    # Prose included: a path anywhere in CONTRIBUTING.md leads to a file (or, with <area>, to some).
    paths = {p.rstrip("/") for p in re.findall(r"`((?:crates|src|python|tests|docs)/[\w./<>-]+)`", TEXT)}
    assert len(paths) > 15
    assert sorted(p for p in paths if not Place(p, ()).files()) == []


def _claimed() -> dict[Path, set[str]]:
    """Each generated file the recipes name, with the regions they claim (``<name>``: every region
    of the file the place does not name)."""
    out: dict[Path, set[str]] = {}
    for recipe, place in _every("Generated"):
        path = (ROOT / place.path).resolve()
        present = set(_generate.regions(path.read_text(encoding="utf-8")))
        named = {n for n in place.names if not n.startswith("<")}
        assert named <= present, f"{recipe}: {place.path} has no region {sorted(named - present)}"
        out.setdefault(path, set()).update(named | (present - named if len(named) < len(place.names) else set()))
    return out


def test_the_generated_places_are_written_by_the_generator_from_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every region a recipe says is generated, emptied, comes back from the generator as it is:
    it is written from the core's tables (not kept from the file), and ``--check`` compares it."""
    claimed = _claimed()
    texts = {path: path.read_text(encoding="utf-8") for path in claimed}
    emptied = {p: _generate._fill(p, texts[p], dict.fromkeys(names, ""), keep_others=True) for p, names in claimed.items()}
    read_text = Path.read_text

    def reading(self: Path, *args: Any, **kwargs: Any) -> str:
        return emptied.get(self.resolve()) or read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", reading)
    rendered = {path.resolve(): text for path, text in _generate.render().items()}
    monkeypatch.undo()
    assert sorted(str(p) for p in set(claimed) - set(rendered)) == []  # what --check compares
    for path, names in claimed.items():
        now, made = _generate.regions(texts[path]), _generate.regions(rendered[path])
        for name in sorted(names):
            assert made[name].strip(), f"{path.name}: the generator leaves {name} empty"
            assert made[name] == now[name], f"{path.name}: {name} is not what the generator writes (run {_generate.COMMAND})"


def test_a_search_option_is_one_field_of_opts_listed_in_its_rows() -> None:
    """The row file's shape: every option of the search rows is a ``Field`` of ``opts``, and
    every field of ``opts`` is listed in a row (``.params`` or ``.walk``)."""
    (place,) = [p for p in recipes()["search option"]["By hand"] if p.path.endswith("api/search.rs")]
    text = (ROOT / place.path).read_text(encoding="utf-8")
    body = re.search(r"^mod opts \{\n(.*?)^\}", text, re.MULTILINE | re.DOTALL)
    assert body, f"{place.path} has no opts module"
    fields = dict(re.findall(r'pub const (\w+): Field = f\("(\w+)"', body[1]))
    rows = text[text.index("pub const ENDPOINTS") :]
    rows = rows[: rows.index("\n];")]
    assert fields and set(re.findall(r"opts::(\w+)", rows)) == set(fields)
    options = set(fields.values())
    for ep in _generate.table():
        if ep["name"] in _generate.SEARCH_ROWS:
            taken = {f["name"] for f in [*ep["params"], *ep["walk"]]}
            assert taken <= options, (ep["name"], sorted(taken - options))


_GENERATED_REGION = re.compile(r"^([ ]*)(#|<!--) BEGIN GENERATED .*?^\1\2 END GENERATED [^\n]*\n", re.MULTILINE | re.DOTALL)


def _written_by_hand(source: dict[str, Any]) -> set[str]:
    """The files of the code and documentation that name a data source outside generated regions:
    its hit model or schema as a word, or (in Rust) its name as a string; tests aside."""
    names = re.compile(rf"\b({source['model']}|{source['schema']})\b")
    quoted = f'"{source["name"]}"'
    out = set()
    for top in SOURCES:
        for path in [ROOT / top] if top.endswith(".md") else (ROOT / top).rglob("*"):
            if path.suffix not in (".rs", ".py", ".pyi", ".md") or "__pycache__" in path.parts:
                continue
            if path.name == "tests.rs" or path.name.endswith("_tests.rs") or "tests" in path.relative_to(ROOT).parts:
                continue
            text = _GENERATED_REGION.sub("", path.read_text(encoding="utf-8"))
            if names.search(text) or (path.suffix == ".rs" and quoted in text):
                out.add(str(path.relative_to(ROOT)))
    return out


def test_a_data_source_is_written_by_hand_where_the_recipe_says() -> None:
    """The data source recipe's **By hand** files are where the code names every data source (but
    the default, scans, named everywhere), with those of a flat hit; and its **Generated** files
    are the generator's regions that name every data source."""
    sources = _generate.data_sources()[1:]
    every = set.intersection(*[_written_by_hand(d) for d in sources])
    flat = set.intersection(*[_written_by_hand(d) for d in sources if d["schema"] in _generate.FLAT_MODELS])
    recipe = recipes()["search data source"]
    assert {p.path for p in recipe["By hand"]} == every | flat

    def names_every_source(body: str) -> bool:
        return all(re.search(rf"\b({d['model']}|{d['schema']})\b|\"{d['name']}\"", body) for d in sources)

    generated = {
        f"{path.relative_to(ROOT)}:{name}"
        for path, text in ((p, p.read_text(encoding="utf-8")) for p in _generate.render())
        for name, body in _generate.regions(text).items()
        if names_every_source(body)
    }
    claimed = {f"{p.path}:{name}" for p in recipe["Generated"] for name in p.names if not name.startswith("<")}
    assert claimed == generated
