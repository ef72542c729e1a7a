"""The endpoint table as Python reads it: each row's parameters and what it returns, typed.

The generator writes the methods and stubs from these (``_generate``), and the command line
builds its commands from the same (``cli.endpoints``), so both agree with the stubs. Light on
purpose: the command line imports it at start.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

Endpoint = dict[str, Any]
Field = dict[str, Any]

# The Python type of what each field takes (``Takes`` in crates/urlscan-core/src/fields.rs, a
# closed set: an unknown one is an error); enums are typed by their values.
_TYPES = {
    "text": "str",
    "flag": "bool",
    "int": "int",
    "texts": "_List[str]",
    "headers": "dict[str, str]",
    "int_or_auto": 'int | Literal["auto"]',
}


def literal(field: Field) -> str:
    """The Literal type of an enum field's values."""
    return "Literal[" + ", ".join(json.dumps(c) for c in field["choices"]) + "]"


def field_type(field: Field, names: dict[str, str] | None = None) -> str:
    """The Python type of a field's values (``Kind`` -> annotation); ``names``: alias by Literal."""
    values = (names or {}).get(literal(field), literal(field))
    takes = field["takes"]
    if takes == "one":
        return values
    if takes == "many":
        return f"_List[{values}]"
    if takes == "one_or_many":
        return f"{values} | _List[{values}]"
    if takes not in _TYPES:
        raise ValueError(f"{field['name']}: no Python type for a field that takes {takes!r} (see _TYPES)")
    return _TYPES[takes]


@dataclasses.dataclass(frozen=True)
class Param:
    """A parameter of a table method, as the table documents it."""

    name: str
    annotation: str
    required: bool
    positional: bool
    # The default as Python source ("100"), for a field the row gives one; else None.
    default: str | None = None


def parameters(ep: Endpoint, names: dict[str, str] | None = None) -> list[Param]:
    """The ids (positional), the positional body fields, then the other fields, query options and a
    walk's options as keywords; a field with a default takes no None."""
    out = [Param(f["name"], field_type(f, names), True, True) for f in ep["ids"]]
    fields = list(ep["body"]) + list(ep["params"]) + list(ep["walk"])
    by_name = {f["name"]: f for f in fields}
    ordered = [(by_name[n], True) for n in ep["positional"]]
    ordered += [(f, False) for f in fields if f["name"] not in ep["positional"]]
    for f, positional in ordered:
        required = bool(f["required"] and ep["creating"])
        default = None if f["default"] is None else repr(json.loads(f["default"]))
        annotation = field_type(f, names) if required or default else f"{field_type(f, names)} | None"
        out.append(Param(f["name"], annotation, required, positional, default))
    return out


def returns(ep: Endpoint) -> str:
    kind, *rest = ep["returns"]
    if kind == "nothing":
        return "None"
    one = rest[-1]
    return f"_List[{one}]" if ep["list"] and kind in ("model", "json") else one
