"""Model fields are documented where they are declared.

Every ``name: T = _field("wire")`` in the ``models`` package has an attribute docstring
on the next line (what the API reference shows) naming its wire field, and
the field's property has that text as its ``__doc__`` (what ``help()`` shows),
read from the source only when asked for.
"""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from urlscan_rs import _native, models

SOURCES = sorted(Path(models.__file__).parent.glob("*.py"))


def _declarations() -> list[tuple[str, str, str, str | None]]:
    """``(class, attribute, wire path, docstring or None)`` of every ``_field(...)`` declaration, in source order."""
    out = []
    for cls in [n for source in SOURCES for n in ast.parse(source.read_text(encoding="utf-8")).body]:
        if not isinstance(cls, ast.ClassDef):
            continue
        for i, node in enumerate(cls.body):
            if not (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "_field"
            ):
                continue
            wire = node.value.args[0]
            assert isinstance(wire, ast.Constant) and isinstance(wire.value, str), f"{cls.name}.{node.target.id}"
            after = cls.body[i + 1] if i + 1 < len(cls.body) else None
            doc = None
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str):
                doc = inspect.cleandoc(after.value.value)
            out.append((cls.name, node.target.id, wire.value, doc))
    return out


DECLARATIONS = _declarations()


def _model_classes() -> list[type[models.Model]]:
    return [v for v in vars(models).values() if isinstance(v, type) and issubclass(v, models.Model) and v is not models.Model]


def test_every_declaration_has_a_docstring_naming_its_wire_field() -> None:
    assert len(DECLARATIONS) > 250  # the parse found the declarations
    problems = []
    for cls, name, wire, doc in DECLARATIONS:
        if doc is None:
            problems.append(f"{cls}.{name}: no attribute docstring")
            continue
        # Each wire path of the declaration ("id|_id" has two), as code.
        for part in wire.split("|"):
            if f"``{part}``" not in doc:
                problems.append(f"{cls}.{name}: the docstring does not name ``{part}``")
        if not doc.split("Wire:")[0].strip():
            problems.append(f"{cls}.{name}: the docstring says nothing but the wire name")
    assert not problems, "\n".join(problems)


def test_the_declarations_parsed_are_the_fields_the_classes_have() -> None:
    # What the test above checks is every field the models declare.
    declared = {(cls, name) for cls, name, _, _ in DECLARATIONS}
    for cls in _model_classes():
        for name in cls.__dict__.get("_fields", {}):
            if any((k.__name__, name) in declared for k in cls.__mro__):
                continue
            prop = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
            # A field its own code reads (`_field_method`) is documented by its docstring.
            assert isinstance(prop, property) and prop.__doc__, f"{cls.__name__}.{name}: not declared with _field"


def test_each_field_property_has_its_docstring_as_doc() -> None:
    docs = {(cls, name): doc for cls, name, _, doc in DECLARATIONS}
    checked = 0
    for cls in _model_classes():
        for name in cls._fields:
            held = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
            if not isinstance(held, (models._base._FieldView, _native.FieldReader)):
                continue  # read by the class's own __getattr__ or a property of its own: no field property
            view = getattr(cls, name)  # on the class, the field's property
            assert isinstance(view, models._base._FieldView)
            declaring = view.owner.__name__
            assert view.__doc__ == docs[(declaring, name)], f"{cls.__name__}.{name}"
            checked += 1
    assert checked > 250
    assert models.Task.apex_domain.__doc__ == docs[("Task", "apex_domain")]
    assert models.Verdict.score.__doc__ == docs[("_VerdictFields", "score")]  # inherited from a private base
    assert models._base._FieldView.__doc__ is not None and models._base._FieldView.__doc__.startswith("A declared field")


def test_help_shows_the_field_docs() -> None:
    import pydoc

    text = pydoc.render_doc(models.Task, renderer=pydoc.plaintext)
    assert "The registered domain of the submitted URL (eTLD+1). Wire: ``apexDomain``." in text


def test_a_class_without_a_docstring_or_source_falls_back_to_the_wire_name() -> None:
    class Local(models.Model):
        __slots__ = ()
        documented: str | None = models._base._field("documented")
        """A documented field. Wire: ``documented``."""
        plain: str | None = models._base._field("plainWire")

    assert Local.documented.__doc__ == "A documented field. Wire: ``documented``."
    assert Local.plain.__doc__ == "The field 'plainWire'."
    assert Local({"documented": "x"}).documented == "x"  # the doc lookup changes no reading


def test_import_reads_no_source() -> None:
    # The docstrings are read on first use only: import time stays flat.
    code = "from urlscan_rs import models; print(models._base._attribute_docs.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"


@pytest.mark.parametrize("cls", ["SavedSearch", "LiveScanner"])
def test_fields_read_by_getattr_are_still_documented_for_the_reference(cls: str) -> None:
    # These classes read their fields with __getattr__ (no property to carry a
    # __doc__); their docstrings serve the API reference.
    assert any(c == cls and doc for c, _, _, doc in DECLARATIONS)
