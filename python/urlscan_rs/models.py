"""Typed, frozen models of the service's answers.

Every model wraps the JSON the service sent (``raw``) and reads attributes from
it lazily, in snake_case (the wire ``_id`` is ``id``): a declared field is read
natively from the answer's bytes on first access (a nested object becomes a
model over the same bytes). Nothing is dropped: fields this package does not
know are still reachable as attributes (by their snake_case or wire name), in
``raw`` and in ``to_dict()``. Models compare by value, pickle (as their JSON
bytes), and print a short ``repr``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import inspect
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar, cast

from . import _native
from ._native import LazyDoc
from .errors import DecodeError

if TYPE_CHECKING:
    from .playbook import Indicators, VerdictSummary

__all__ = [
    "Model",
    "Submission",
    "ScanResult",
    "Task",
    "Page",
    "Verdicts",
    "Verdict",
    "EngineVerdicts",
    "CommunityVerdict",
    "VerdictBrand",
    "Visible",
    "Stats",
    "Lists",
    "Submitter",
    "SearchHit",
    "HitStats",
    "Quotas",
    "User",
    "Team",
    "VisibilityChange",
    "UserAgentGroup",
    "ScanOutcome",
    "Screenshot",
    "SavedSearch",
    "Subscription",
    "Channel",
    "Incident",
    "IncidentState",
    "IncidentObservation",
    "HostnameRecord",
    "Brand",
    "BrandSummary",
    "LiveScanner",
    "DataDumpFile",
    "Notification",
    "HostnameHit",
    "IncidentHit",
    "NotificationHit",
    "CertificateHit",
    "DomainHit",
]

_MISSING = object()
_CAMEL_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(name: str) -> str:
    return _CAMEL_SPLIT.sub("_", name.lstrip("_")).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


# ---------------------------------------------------------------- converters
#
# A converter turns a JSON value of the field's documented type into what the
# attribute gives. Wrong types never reach it: the reading rules below check
# each value against its field's declaration first (see `_Expect`).


def _datetime(v: Any) -> datetime | None:
    """ISO 8601 (``...Z``) or epoch milliseconds -> aware datetime in UTC."""
    if isinstance(v, str) and v:
        try:
            d = datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            return None
        return d.replace(tzinfo=timezone.utc) if d.tzinfo is None else d.astimezone(timezone.utc)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return datetime.fromtimestamp(v / 1000.0, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _int(v: Any) -> int | None:
    """Numbers may come as null, floats or numeric strings."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v == v and v not in (float("inf"), float("-inf")) else None
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return int(f) if f == f and f not in (float("inf"), float("-inf")) else None
    return None


def _float(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def _flag(v: Any) -> bool | None:
    """A boolean; older results send 0 or 1 (``hasVerdicts``)."""
    if type(v) is bool:
        return v
    if type(v) in (int, float) and v in (0, 1):
        return bool(v)
    return None


def _list(v: Any) -> list[Any]:
    """``{}`` or null where a list is expected reads as an empty list."""
    return list(v) if isinstance(v, list) else []


def _model(cls: type[Model]) -> Callable[[Any], Any]:
    # A missing part reads as an empty one, so `result.page.domain` is None
    # rather than an AttributeError on None.
    def conv(v: Any) -> Any:
        return cls(v if isinstance(v, dict) else {})

    _MODEL_OF[conv] = cls
    return conv


def _models(cls: type[Model]) -> Callable[[Any], list[Any]]:
    def conv(v: Any) -> list[Any]:
        return [cls(x) if isinstance(x, dict) else x for x in _list(v)]

    _MODELS_OF[conv] = cls
    return conv


class _Field(NamedTuple):
    """A field's declaration: where it is on the wire and what converts it."""

    wire: str
    conv: Callable[[Any], Any] | None


# ---------------------------------------------------------------- reading rules
#
# Lenient on unknown or missing, strict on wrong. Each documented field
# expects the JSON types its annotation names (`str` a string, `int` and
# `float` a number, `bool` a boolean, `datetime` a date-time string or epoch
# milliseconds, `date` a date string, `list[...]` a list, `dict[...]` or a
# model class an object, `Any` anything; unannotated fields take the type of
# their converter). Missing and null read as None, `[]` for a list or an empty
# model for an object part; `{}` where a list is expected reads as `[]`. The
# lenient converters add the forms the service is known to send (`_int` and
# `_float` numeric strings, `_flag` 0 and 1). Any other value is a
# DecodeError naming the JSON path and what was found, raised when the field
# is read; a field that reads once is cached.

_MODEL_OF: dict[Callable[[Any], Any], type[Model]] = {}
_MODELS_OF: dict[Callable[[Any], Any], type[Model]] = {}
_NUMBER = frozenset({int, float})
_JSON_KIND = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
# Converters that read more than their type (numeric strings, 0/1 booleans),
# and whose None for a present value means it could not be read.
_WIDENS: dict[Callable[[Any], Any], frozenset[type]] = {
    _int: frozenset({str}),
    _float: frozenset({str}),
    _flag: frozenset({int, float}),
}


def _found(v: Any) -> str:
    """What a wrong value is, shortly: ``a string ("many")``."""
    try:
        text = json.dumps(v, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(v)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{_JSON_KIND.get(type(v), type(v).__name__)} ({text})"


def _wrong(path: str, what: str, v: Any) -> DecodeError:
    return DecodeError(f"{path or '(document)'}: expected {what}, found {_found(v)}")


class _Expect:
    """What one documented field (or list element) holds."""

    __slots__ = ("types", "what", "model", "item", "is_list")

    def __init__(
        self,
        types: frozenset[type] | None,
        what: str,
        model: type[Model] | None = None,
        item: _Expect | None = None,
        is_list: bool = False,
    ) -> None:
        # types None: anything (Any, or a field declared without a type)
        self.types, self.what, self.model, self.item, self.is_list = types, what, model, item, is_list

    def __repr__(self) -> str:
        return f"_Expect({self.what})"


_ANY = _Expect(None, "anything")
_SCALARS = {
    "str": _Expect(frozenset({str}), "a string"),
    "int": _Expect(_NUMBER, "a number"),
    "float": _Expect(_NUMBER, "a number"),
    "bool": _Expect(frozenset({bool}), "a boolean"),
    "datetime": _Expect(frozenset({str, int, float}), "a date-time"),
    "date": _Expect(frozenset({str}), "a date"),
    "dict": _Expect(frozenset({dict}), "an object"),
}


def _split_top(text: str, sep: str) -> list[str]:
    """Split at `sep` outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


def _parse_annotation(ann: str) -> _Expect:
    alts = [a for a in _split_top(ann, "|") if a not in ("None", "")]
    expects = [_parse_one(a) for a in alts]
    if not expects or any(e.types is None for e in expects):
        return _ANY
    if len(expects) == 1:
        return expects[0]
    types: frozenset[type] = frozenset().union(*(e.types or () for e in expects))
    model = next((e.model for e in expects if e.model is not None), None)
    item = next((e.item for e in expects if e.is_list), None)
    whats = list(dict.fromkeys(e.what for e in expects))
    return _Expect(types, " or ".join(whats), model, item, any(e.is_list for e in expects))


def _parse_one(a: str) -> _Expect:
    base, _, inner = a.partition("[")
    base = base.strip().rsplit(".", 1)[-1]
    inner = inner[:-1] if inner.endswith("]") else inner
    if base in _SCALARS:
        return _SCALARS[base]
    if base == "list":
        item = _parse_annotation(inner) if inner else _ANY
        return _Expect(frozenset({list}), "a list", item=None if item.types is None else item, is_list=True)
    if base == "Literal":
        kinds = {type(ast.literal_eval(x)) for x in _split_top(inner, ",") if x}
        return _Expect(frozenset(kinds), " or ".join(_JSON_KIND.get(k, k.__name__) for k in sorted(kinds, key=str)))
    cls = globals().get(base)
    if isinstance(cls, type) and issubclass(cls, Model):
        return _Expect(frozenset({dict}), "an object", model=cls)
    return _ANY  # a type this module does not know: not checked


def _from_converter(conv: Callable[[Any], Any] | None) -> _Expect:
    if conv is None:
        return _ANY
    if conv in (_int, _float):
        return _SCALARS["int"]
    if conv is _flag:
        return _SCALARS["bool"]
    if conv is _datetime:
        return _SCALARS["datetime"]
    if conv is _list:
        return _Expect(frozenset({list}), "a list", is_list=True)
    if conv is _brands:
        return _parse_annotation("list[VerdictBrand | str]")
    if conv in _MODEL_OF:
        return _Expect(frozenset({dict}), "an object", model=_MODEL_OF[conv])
    if conv in _MODELS_OF:
        return _Expect(
            frozenset({list}), "a list", item=_Expect(frozenset({dict}), "an object", model=_MODELS_OF[conv]), is_list=True
        )
    return _ANY


def _annotation(cls: type, name: str) -> str | None:
    for k in cls.__mro__:
        ann = k.__dict__.get("__annotations__", {}).get(name)
        if ann is not None:
            return ann if isinstance(ann, str) else getattr(ann, "__name__", None) or repr(ann)
    return None


def _expect(cls: type[Model], name: str) -> _Expect:
    """What the documented field `name` of `cls` expects (its annotation, else its converter)."""
    ann = _annotation(cls, name)
    if ann is not None:
        return _parse_annotation(ann)
    return _from_converter(cls._fields[name][1])


def _join(obj: Any, wire: str) -> str:
    base = getattr(obj, "_path", "")
    return f"{base}.{wire}" if base else wire


# A reader turns a field's JSON value (None when missing or null) into the
# attribute's value, or raises DecodeError; `obj` and `wire` name the path.
_Reader = Callable[[Any, Any, str], Any]
_READERS: dict[tuple[type, str], _Reader] = {}


def _reader(cls: type[Model], name: str) -> _Reader:
    r = _READERS.get((cls, name))
    if r is None:
        r = _READERS[(cls, name)] = _compile(_expect(cls, name), cls._fields[name][1])
    return r


def _compile(e: _Expect, conv: Callable[[Any], Any] | None) -> _Reader:
    types, what = e.types, e.what
    known = conv is None or conv is _list or conv is _brands or conv in _MODEL_OF or conv in _MODELS_OF
    widen = _WIDENS.get(conv) if conv is not None else None
    if types is not None and widen is not None:
        types = types | widen
    strict_conv = widen is not None or conv is _datetime or conv is _date

    if e.model is not None and not e.is_list and known:
        model = e.model

        def read_model(v: Any, obj: Any, wire: str) -> Any:
            if v is None:
                return model._at({}, _join(obj, wire))
            if type(v) is not dict:
                raise _wrong(_join(obj, wire), what, v)
            return model._at(v, _join(obj, wire))

        return read_model

    if e.is_list and known:
        item = e.item
        only_list = types == frozenset({list})
        # null reads as [] for a list, as None for a list or something else
        empty: list[Any] | None = [] if only_list else None

        def read_list(v: Any, obj: Any, wire: str) -> Any:
            if v is None:
                return [] if empty is not None else None
            t = type(v)
            if t is not list:
                if t is dict and not v:
                    return []  # `{}` where a list is expected
                if only_list or types is None or t not in types:
                    raise _wrong(_join(obj, wire), what, v)
                return v
            return _items(v, item, obj, wire) if item is not None else list(v)

        return read_list

    def read(v: Any, obj: Any, wire: str) -> Any:
        if v is None:
            return conv(None) if conv is not None else None
        t = type(v)
        if types is not None and t not in types:
            if t is dict and e.is_list and not v:
                v = []
            else:
                raise _wrong(_join(obj, wire), what, v)
        if conv is None:
            return v
        out = conv(v)
        if out is None and strict_conv and v != "":
            raise _wrong(_join(obj, wire), what, v)
        return out

    return read


def _items(v: list[Any], item: _Expect, obj: Any, wire: str) -> list[Any]:
    """The elements of a list, each of the element type (null elements stay None)."""
    types, model = item.types, item.model
    seen = set(map(type, v))  # one pass in C: lists hold hundreds of strings
    seen.discard(type(None))
    if types is not None and not seen <= types:
        i, x = next((i, x) for i, x in enumerate(v) if x is not None and type(x) not in types)
        raise _wrong(f"{_join(obj, wire)}[{i}]", item.what, x)
    if model is None or dict not in seen:
        return list(v)
    base = _join(obj, wire)
    return [model._at(x, f"{base}[{i}]") if type(x) is dict else x for i, x in enumerate(v)]


def _walk(cur: Any, parts: tuple[str, ...], obj: Any, head: str) -> Any:
    """Follow the rest of a dotted path below a top-level value; each step must be an object."""
    path = head
    for part in parts:
        if cur is None:
            return None
        if type(cur) is not dict:
            raise _wrong(_join(obj, path), "an object", cur)
        cur = cur.get(part)
        path = f"{path}.{part}"
    return cur


def _frozen(obj: Any, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field: {type(obj).__name__} is frozen")


@functools.cache
def _attribute_docs(module: str) -> dict[tuple[str, str], str]:
    """The attribute docstrings of a module's classes, by ``(class qualname, attribute)``.

    Python keeps no attribute docstring at runtime (the compiler drops the
    bare string), so they are read from the module's source: once, when the
    first field's doc is asked for (``help()``), never at import.
    """
    path = getattr(sys.modules.get(module), "__file__", None)
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):  # no source (a frozen or .pyc-only install)
        return {}
    docs: dict[tuple[str, str], str] = {}

    def visit(body: list[ast.stmt], scope: str, in_class: bool) -> None:
        for node, after in zip(body, [*body[1:], None], strict=True):
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{scope}{node.name}.", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, f"{scope}{node.name}.<locals>.", False)  # a class made in a function
            elif (
                in_class
                and isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[(scope[:-1], node.target.id)] = inspect.cleandoc(after.value.value)

    visit(tree.body, "", False)
    return docs


class _FieldDoc:
    """``_FieldView.__doc__``: on the class its docstring, on a field the field's own (see `_FieldView._docstring`)."""

    __slots__ = ("text",)

    def __init__(self, text: str | None) -> None:
        self.text = text

    def __get__(self, view: _FieldView | None, owner: type | None = None) -> str | None:
        return self.text if view is None else view._docstring()

    def __set__(self, view: _FieldView, value: object) -> None:
        # property.__init__ gives each instance of a subclass a doc (its
        # getter's: None), which leaves the field's own to be looked up.
        if value is not None:
            view._doc_text = str(value)


class _FieldView(property):
    """A declared field, read on first access and cached per instance.

    A class attribute, so reading a field neither raises nor catches an
    AttributeError (which ``__getattr__`` would: that costs more than the read).
    A property, so type checkers see the annotated field; the class holds its
    native `descriptor` (`_native.FieldReader`), which reads the common values
    straight from the bytes of a lazy document, hands the rest to
    `_read_slow` (it checks the value against the field's declaration, see
    `_reader`) and gives this property when read on the class. Assignment
    raises as on any frozen model. Its ``__doc__`` is the field's attribute
    docstring (what ``help(Task.apex_domain)`` shows).
    """

    # The field's text is in its class's source, not in the class: looked up when asked for.
    __doc__ = _FieldDoc(__doc__)

    def __init__(self, owner: type[Model], name: str, wire: str) -> None:
        wire, _, alt = wire.partition("|")
        head, _, rest = wire.partition(".")
        self.owner, self.name, self.wire, self.head = owner, name, wire, head
        self.rest = tuple(rest.split(".")) if rest else ()
        self.read: _Reader | None = None
        self.alt = alt or None
        self._doc_text: str | None = None
        super().__init__(fget=self._read_slow, fset=_frozen)

    def _docstring(self) -> str:
        """The field's attribute docstring (the one written under its declaration), else its wire name.

        Read from the source of its class's module on first use: import reads no source.
        """
        text = self._doc_text
        if text is None:
            owner = self.owner
            text = _attribute_docs(owner.__module__).get((owner.__qualname__, self.name))
            if text is None:
                text = f"The field {self.wire!r}{f' (else {self.alt!r})' if self.alt else ''}."
            self._doc_text = text
        return text

    def descriptor(self) -> Any:
        """What the class holds: the native reader (this property for a dotted or alternative path)."""
        if self.rest or self.alt:
            return self
        return _native.FieldReader(self.name, self.wire, self._read_slow, functools.partial(_plan, self.owner, self.name), self)

    def _read_slow(self, obj: Any) -> Any:
        cache = obj._cache
        name = self.name
        if name in cache:
            return cache[name]
        value = obj._json.get(self.head)
        if self.rest:
            value = _walk(value, self.rest, obj, self.head)
        wire = self.wire
        if value is None and self.alt is not None:
            value, wire = obj._at_path(self.alt), self.alt
        read = self.read
        if read is None:
            read = self.read = _reader(self.owner, name)
        value = read(value, obj, wire)
        cache[name] = value
        return value


def _plan(cls: type[Model], name: str) -> tuple[str, type[Model] | None]:
    """What the native getter of a field reads itself: ``(kind, model class)``.

    Only values that read the same with or without the field's converter and
    rules; "other" leaves every value to the Python reader.
    """
    e, conv = _expect(cls, name), cls._fields[name].conv
    types = e.types
    if e.model is not None and not e.is_list and (conv is None or conv in _MODEL_OF):
        return ("model", e.model)
    if conv is None:
        kind = {frozenset({str}): "str", _NUMBER: "number", frozenset({bool}): "bool"}.get(types or frozenset())
        return (kind or "other", None)
    if types == _NUMBER and conv in (_int, _float):
        return ("int" if conv is _int else "float", None)
    if types == frozenset({bool}) and conv is _flag:
        return ("bool", None)
    if types == _SCALARS["datetime"].types and conv is _datetime:
        return ("datetime", None)
    return ("other", None)


_ReprFunction = TypeVar("_ReprFunction", bound=Callable[..., str])


def _safe_repr(fn: _ReprFunction) -> _ReprFunction:
    # A model whose parts are of the wrong type still prints (tracebacks,
    # notebooks); reading the part raises.
    @functools.wraps(fn)
    def __repr__(self: Any) -> str:
        try:
            return fn(self)
        except DecodeError as e:
            return f"{type(self).__name__}(<not decodable: {e}>)"

    return cast(_ReprFunction, __repr__)


class Model(_native.ModelBase):
    """Base class: a frozen, lazily decoded view of one JSON object.

    Its native base holds the JSON object (``_json``: a dict, or a
    ``LazyDoc`` still in bytes), the values read so far (natively read ones in
    a cache of its own, the rest in ``_cache``) and the object's JSON path in
    its answer (``_path``, "" for the whole answer).
    """

    __slots__ = ()
    # attribute -> (wire path, converter): the fields the class and its bases
    # declare (see `_field`), in order; a path may be dotted ("task.uuid") and
    # name an alternative tried when the first is absent ("id|_id").
    _fields: ClassVar[dict[str, _Field]] = {}
    # attributes shown by repr (default: the first few fields)
    _repr_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__repr__" in cls.__dict__:
            cls.__repr__ = _safe_repr(cls.__dict__["__repr__"])  # type: ignore[method-assign]
        # The bases' fields, then this class's in the order written (one
        # declared again keeps its place).
        fields: dict[str, _Field] = {}
        for base in reversed(cls.__bases__):
            fields.update(getattr(base, "_fields", {}))
        own: dict[str, _Field] = {}
        for name, value in cls.__dict__.items():
            declared = _declared(value)
            if declared is not None:
                own[name] = declared
        cls._fields = fields | own
        # Each declaration gives way to a view of the field, but for the
        # fields __getattr__ reads: all of a class that reads some its own
        # way (its own __getattr__), and unannotated ones (no typed surface).
        reads_own_way = any("__getattr__" in k.__dict__ for k in cls.__mro__[: cls.__mro__.index(Model)])
        annotated = cls.__dict__.get("__annotations__", {})
        for name, (wire, _conv) in own.items():
            if not isinstance(cls.__dict__[name], _Field):
                continue  # a property: its own code reads it
            delattr(cls, name)
            if reads_own_way or name not in annotated:
                continue
            # Names a base defines itself, e.g. a property, win.
            defined = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
            if defined is None or isinstance(defined, (_FieldView, _native.FieldReader)):
                setattr(cls, name, _FieldView(cls, name, wire).descriptor())

    def __init__(self, raw: dict[str, Any] | None = None) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise TypeError(f"{type(self).__name__} wraps a JSON object (dict), got {type(raw).__name__}")
        self._set_json(raw)

    @classmethod
    def _lazy(cls, doc: LazyDoc, path: str = "") -> Any:
        """A model over a JSON object still in bytes, decoded part by part as it is read."""
        return _native.make_model(cls, doc, path)

    @classmethod
    def _at(cls, raw: dict[str, Any], path: str) -> Any:
        """A model of the object found at `path` of an answer (named in its errors)."""
        return _native.make_model(cls, raw, path)

    @property
    def _raw(self) -> dict[str, Any]:
        r = self._json
        if type(r) is LazyDoc:
            r = r.full()
            self._set_json(r, True)  # the same object, read whole
        return r

    def _top(self, key: str) -> Any:
        return self._json.get(key, _MISSING)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_json", "_cache", "_raw", "_path"):
            raise AttributeError(name)
        cache = self._cache
        if name in cache:
            return cache[name]
        spec = type(self)._fields.get(name)
        if spec is not None:
            value = self._read(name, spec[0])
        else:
            value = self._unknown(name)
        cache[name] = value
        return value

    def _at_path(self, wire: str) -> Any:
        """The raw value at a dotted wire path (None when absent)."""
        head, _, rest = wire.partition(".")
        value = self._json.get(head)
        if rest:
            value = _walk(value, tuple(rest.split(".")), self, head)
        return value

    def _read(self, name: str, wire: str) -> Any:
        """The documented field `name`, read from the wire path `wire` by its rules."""
        wire, _, alt = wire.partition("|")
        value = self._at_path(wire)
        if value is None and alt:
            value, wire = self._at_path(alt), alt
        return _reader(type(self), name)(value, self, wire)

    def _unknown(self, name: str) -> Any:
        r = self._json
        keys = r.keys() if type(r) is LazyDoc else r
        for key in (name, _camel(name), "_" + name):
            if key in keys:
                return self._top(key)
        for key in keys:
            if _snake(key) == name:
                return self._top(key)
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    @property
    def raw(self) -> dict[str, Any]:
        """The wire JSON as the service sent it: a copy (changing it changes no model), as
        ``to_dict()`` gives."""
        return self.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the wire JSON (camelCase keys, unknown fields included)."""
        return copy.deepcopy(self._raw)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._raw == other._raw

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(self._raw, sort_keys=True, default=str)))

    def __reduce__(self) -> tuple[Any, ...]:
        r = self._json
        if type(r) is LazyDoc:
            return (_unpickle, (type(self), r.json(), self._path))  # the bytes, not a dict
        return (type(self), (r,))

    def __copy__(self) -> Model:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Model:
        return type(self)(copy.deepcopy(self._raw, memo))

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) | set(type(self)._fields)
        names.update(_snake(k) for k in self._raw)
        return sorted(names)

    @_safe_repr
    def __repr__(self) -> str:
        fields = self._repr_fields or tuple(type(self)._fields)[:4]
        parts = []
        for f in fields:
            v = getattr(self, f)
            if isinstance(v, Model):
                continue
            r = repr(v)
            parts.append(f"{f}={r if len(r) <= 80 else r[:77] + '...'}")
        return f"{type(self).__name__}({', '.join(parts)})"

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The documented fields of this model (others are reachable too)."""
        return tuple(cls._fields)


def _unpickle(cls: type[Model], data: bytes, path: str) -> Any:
    """A model pickled over its JSON bytes, lazy again."""
    return cls._lazy(LazyDoc(data), path)


def _field(wire: str, conv: Callable[[Any], Any] | None = None) -> Any:
    """Declare a model field: ``score: int | None = _field("score", _int)``.

    The annotation is the attribute's type and what the JSON must hold (see
    the reading rules); ``wire`` is the JSON key, or a dotted path
    ("task.uuid"), or two tried in turn ("id|_id"). Typed ``Any`` so that
    the annotation alone types the attribute. `Model.__init_subclass__`
    collects the declarations into ``_fields`` and puts the reader of a
    `_FieldView` in their place (none where the class reads them with
    ``__getattr__``).
    """
    return _Field(wire, conv)


_FieldMethod = TypeVar("_FieldMethod", bound=Callable[..., Any])
_FIELD_METHODS: set[Callable[..., Any]] = set()


def _field_method(fget: _FieldMethod) -> _FieldMethod:
    """Declare a property (``@property`` above) as a field that its own code reads.

    Listed by ``fields()`` in its place among the declared fields, its wire
    name its own; it declares no JSON type.
    """
    _FIELD_METHODS.add(fget)
    return fget


def _declared(value: Any) -> _Field | None:
    """The field a class attribute declares, or None."""
    if isinstance(value, _Field):
        return value
    if type(value) is property and value.fget in _FIELD_METHODS:
        return _Field(value.fget.__name__, None)
    return None


# ---------------------------------------------------------------- scanning


class Submission(Model):
    """The answer to a scan submission (``scan()``).

    ``uuid`` names the scan; ``result`` is the address of its report page and
    ``api`` that of its result document.
    """

    __slots__ = ()
    uuid: str = _field("uuid")
    """The scan's UUID (the API's ``scanId``). Wire: ``uuid``."""
    visibility: str | None = _field("visibility")
    """The visibility determined: ``public``, ``unlisted`` or ``private`` (maybe not the one asked for). Wire: ``visibility``."""
    url: str | None = _field("url")
    """The URL the service determined to scan. Wire: ``url``."""
    country: str | None = _field("country")
    """The country the scan runs from, a two-letter code (lowercase in recorded answers, e.g. ``jp``). Wire: ``country``."""
    message: str | None = _field("message")
    """The service's message, e.g. ``Submission successful``. Wire: ``message``."""
    result: str | None = _field("result")
    """The address of the scan's report page (``https://urlscan.io/result/{uuid}/``). Wire: ``result``."""
    api: str | None = _field("api")
    """The address of the scan's result document in the API (``/api/v1/result/{uuid}/``). Wire: ``api``."""
    options: dict[str, Any] | None = _field("options")
    """The options the scan runs with (older answers: ``useragent``). Wire: ``options``."""
    _repr_fields = ("uuid", "url", "visibility", "country")


class VisibilityChange(Model):
    """The answer to ``set_visibility`` and ``reset_visibility``: the scan and its visibility now."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    """The scan's UUID. Wire: ``uuid``."""
    message: str | None = _field("message")
    """The service's message, e.g. ``Visibility updated``. Wire: ``message``."""
    visibility: str | None = _field("visibility")
    """The visibility now: ``public``, ``unlisted``, ``private`` or ``deleted`` (a reset's answer may omit it).
    Wire: ``visibility``."""


class UserAgentGroup(Model):
    """A group of user agents a scan may use (``user_agents()``); ``user_agents`` is ``useragents``."""

    __slots__ = ()
    group: str | None = _field("group")
    """The group's name, e.g. ``Chrome`` or ``iOS``. Wire: ``group``."""
    useragents: list[str] = _field("useragents", _list)
    """The group's User-Agent strings. Wire: ``useragents``."""
    user_agents: list[str] = _field("useragents", _list)
    """The group's User-Agent strings (the same as ``useragents``). Wire: ``useragents``."""
    _repr_fields = ("group", "useragents")


class VerdictBrand(Model):
    """A brand a verdict names (the page impersonates it)."""

    __slots__ = ()
    key: str | None = _field("key")
    """The brand's identifier, e.g. ``facebook``. Wire: ``key``."""
    name: str | None = _field("name")
    """The brand's name, e.g. ``Facebook``. Wire: ``name``."""
    country: list[str] = _field("country", _list)
    """The brand's countries, ISO 3166 codes (lowercase in recorded answers, e.g. ``us``). Wire: ``country``."""
    vertical: list[str] = _field("vertical", _list)
    """The brand's verticals (sectors), e.g. ``Social Network``. Wire: ``vertical``."""


def _brands(v: Any) -> list[Any]:
    # Brands come as objects (schema) or as flat identifiers (older docs).
    return [VerdictBrand(b) if isinstance(b, dict) else b for b in _list(v)]


class _VerdictFields(Model):
    """The fields every verdict has."""

    __slots__ = ()
    score: int | None = _field("score", _int)
    """The score, from -100 (legitimate) to 100 (malicious); results before April 2022 use 0 to 100. Wire: ``score``."""
    malicious: bool | None = _field("malicious")
    """Whether the verdict is malicious; the service sometimes leaves it out rather than send false. Wire: ``malicious``."""
    has_verdicts: bool | None = _field("hasVerdicts", _flag)
    """Whether there is a verdict at all (older results send 0 or 1). Wire: ``hasVerdicts``."""
    categories: list[str] = _field("categories", _list)
    """The verdict's categories. Wire: ``categories``."""
    brands: list[VerdictBrand | str] = _field("brands", _brands)
    """Brands named (impersonated), in two shapes: ``verdicts.overall.brands`` (and ``community``) is a flat
    list of brand keys (``["paypal"]``), ``verdicts.urlscan.brands`` a list of :class:`VerdictBrand` objects
    (key, name, country, vertical); either is read as sent. ``result.verdict.brands`` gives the keys of all
    of them. Wire: ``brands``."""
    tags: list[str] = _field("tags", _list)
    """The verdict's tags. Wire: ``tags``."""


class Verdict(_VerdictFields):
    """A verdict (overall or urlscan): score from -100 (legitimate) to 100 (malicious)."""

    __slots__ = ()
    _repr_fields = ("score", "malicious", "categories")


class EngineVerdicts(_VerdictFields):
    """The verdicts of third-party engines (``verdicts.engines``): counts and each engine's verdict."""

    __slots__ = ()
    # Older results list the engines that flagged the page (wider than a verdict's).
    malicious: bool | list[str] | None = _field("malicious")  # type: ignore[assignment]
    """Whether the engines found the page malicious; older results send a list here instead. Wire: ``malicious``."""
    engines_total: int | None = _field("enginesTotal", _int)
    """How many engines there are. Wire: ``enginesTotal``."""
    malicious_total: int | None = _field("maliciousTotal", _int)
    """How many engines found the page malicious. Wire: ``maliciousTotal``."""
    benign_total: int | None = _field("benignTotal", _int)
    """How many engines found the page benign. Wire: ``benignTotal``."""
    malicious_verdicts: list[Any] = _field("maliciousVerdicts", _list)
    """The engines' malicious verdicts. Wire: ``maliciousVerdicts``."""
    benign_verdicts: list[Any] = _field("benignVerdicts", _list)
    """The engines' benign verdicts. Wire: ``benignVerdicts``."""
    verdicts: list[dict[str, Any]] = _field("verdicts", _list)
    """Each engine's verdict: objects with ``engine`` and ``classification``. Wire: ``verdicts``."""
    _repr_fields = ("score", "malicious", "engines_total")


class CommunityVerdict(_VerdictFields):
    """The verdict of the community's votes (``verdicts.community``)."""

    __slots__ = ()
    votes_total: int | None = _field("votesTotal", _int)
    """How many community votes were cast. Wire: ``votesTotal``."""
    votes_malicious: int | None = _field("votesMalicious", _int)
    """How many votes say malicious. Wire: ``votesMalicious``."""
    votes_benign: int | None = _field("votesBenign", _int)
    """How many votes say benign. Wire: ``votesBenign``."""
    _repr_fields = ("score", "malicious", "votes_total")


class Verdicts(Model):
    """The verdicts of a result: ``overall``, ``urlscan``, ``engines`` and ``community``."""

    __slots__ = ()
    overall: Verdict = _field("overall", _model(Verdict))
    """The overall verdict. Wire: ``overall``."""
    urlscan: Verdict = _field("urlscan", _model(Verdict))
    """The service's own verdict. Wire: ``urlscan``."""
    engines: EngineVerdicts = _field("engines", _model(EngineVerdicts))
    """The third-party engines' verdicts (which the service documents as no longer used). Wire: ``engines``."""
    community: CommunityVerdict = _field("community", _model(CommunityVerdict))
    """The verdict of the community's votes. Wire: ``community``."""

    def __repr__(self) -> str:
        o = self.overall
        return f"Verdicts(overall={o!r})"


class Task(Model):
    """What was asked for (``result.task``, ``hit.task``): URL, time, visibility, options and links."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    """The scan's UUID. Wire: ``uuid``."""
    time: datetime | None = _field("time", _datetime)
    """The time of the scan task, aware in UTC (ISO 8601 on the wire); search hits sort by it. Wire: ``time``."""
    url: str | None = _field("url")
    """The URL submitted for scanning. Wire: ``url``."""
    domain: str | None = _field("domain")
    """The domain (host name) of the submitted URL. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain")
    """The registered domain of the submitted URL (eTLD+1). Wire: ``apexDomain``."""
    visibility: str | None = _field("visibility")
    """The scan's visibility: ``public``, ``unlisted`` or ``private``. Wire: ``visibility``."""
    method: str | None = _field("method")
    """How the scan was submitted: ``api``, ``manual``, ``automatic`` or ``urlscan-observe``. Wire: ``method``."""
    source: str | None = _field("source")
    """What submitted the scan, as the service labels it: a feed (``certstream-suspicious``) or a short hex id.
    Wire: ``source``."""
    tags: list[str] = _field("tags", _list)
    """The tags given with the submission. Wire: ``tags``."""
    report_url: str | None = _field("reportURL")
    """The address of the scan's report page (``https://urlscan.io/result/{uuid}/``). Wire: ``reportURL``."""
    screenshot_url: str | None = _field("screenshotURL")
    """The address of the scan's PNG screenshot (``https://urlscan.io/screenshots/{uuid}.png``). Wire: ``screenshotURL``."""
    dom_url: str | None = _field("domURL")
    """The address of the scan's DOM snapshot (``https://urlscan.io/dom/{uuid}/``). Wire: ``domURL``."""
    user_agent: str | None = _field("userAgent")
    """The User-Agent the scan's browser sent. Wire: ``userAgent``."""
    options: dict[str, Any] | None = _field("options")
    """The options the scan was submitted with (older results: ``useragent``). Wire: ``options``."""
    _repr_fields = ("uuid", "url", "time", "visibility")


class Page(Model):
    """The page reached after redirects (``result.page``, ``hit.page``): URL, domain, IP, server, TLS."""

    __slots__ = ()
    url: str | None = _field("url")
    """The URL of the page reached, after redirects. Wire: ``url``."""
    domain: str | None = _field("domain")
    """The page's domain (host name). Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain")
    """The registered domain of the page (eTLD+1). Wire: ``apexDomain``."""
    ip: str | None = _field("ip")
    """The IP address (IPv4 or IPv6) the page was loaded from. Wire: ``ip``."""
    asn: str | None = _field("asn")
    """The autonomous system of the page's IP, with its ``AS`` prefix (e.g. ``AS15169``). Wire: ``asn``."""
    asnname: str | None = _field("asnname")
    """The name of that autonomous system, e.g. ``GOOGLE - Google LLC, US``. Wire: ``asnname``."""
    country: str | None = _field("country")
    """The country of the page's IP, a two-letter code (uppercase, e.g. ``DE``). Wire: ``country``."""
    city: str | None = _field("city")
    """The city of the page's IP (may be empty). Wire: ``city``."""
    server: str | None = _field("server")
    """The web server of the page, e.g. ``nginx``. Wire: ``server``."""
    title: str | None = _field("title")
    """The page's title. Wire: ``title``."""
    status: str | None = _field("status")
    """The page's HTTP status, as a string (e.g. ``200``). Wire: ``status``."""
    mime_type: str | None = _field("mimeType")
    """The page's MIME type, e.g. ``text/html``. Wire: ``mimeType``."""
    redirected: str | None = _field("redirected")
    """How the scan was redirected to the page: a label such as ``off-domain`` or ``same-domain``. Wire: ``redirected``."""
    ptr: str | None = _field("ptr")
    """The reverse-DNS (PTR) name of the page's IP. Wire: ``ptr``."""
    tls_issuer: str | None = _field("tlsIssuer")
    """The issuer of the page's TLS certificate. Wire: ``tlsIssuer``."""
    tls_valid_days: int | None = _field("tlsValidDays", _int)
    """How many days the page's TLS certificate is valid for. Wire: ``tlsValidDays``."""
    tls_age_days: int | None = _field("tlsAgeDays", _int)
    """The age of the page's TLS certificate, in days. Wire: ``tlsAgeDays``."""
    tls_valid_from: datetime | None = _field("tlsValidFrom", _datetime)
    """The start of the page's TLS certificate's validity, aware in UTC. Wire: ``tlsValidFrom``."""
    umbrella_rank: int | None = _field("umbrellaRank", _int)
    """The page's Umbrella rank (as in ``meta.processors.umbrella``); absent on about half the results. Wire: ``umbrellaRank``."""
    _repr_fields = ("url", "domain", "ip", "country")


class Stats(Model):
    """Statistics of a result (the result API's ``stats``)."""

    __slots__ = ()
    malicious: int | None = _field("malicious", _int)
    """The statistics' malicious count (what it counts is not documented). Wire: ``malicious``."""
    secure_percentage: float | None = _field("securePercentage", _float)
    """The share of secure requests, in percent (0 to 100). Wire: ``securePercentage``."""
    secure_requests: int | None = _field("secureRequests", _int)
    """How many of the scan's requests were secure. Wire: ``secureRequests``."""
    ipv6_percentage: float | None = _field("IPv6Percentage", _float)
    """The IPv6 share, in percent (0 to 100); null in some results. Wire: ``IPv6Percentage``."""
    ad_blocked: int | None = _field("adBlocked", _int)
    """How many of the scan's requests matched an ad-block list (see ``meta.processors.abp``). Wire: ``adBlocked``."""
    total_links: int | None = _field("totalLinks", _int)
    """How many links the page has (``data.links``). Wire: ``totalLinks``."""
    uniq_countries: int | None = _field("uniqCountries", _int)
    """How many distinct countries the scan's requests went to. Wire: ``uniqCountries``."""
    domain_stats: list[Any] = _field("domainStats", _list)
    """Per-domain statistics: objects with ``domain``, ``count``, ``size``, ``encodedSize``, ``ips``, ...
    Wire: ``domainStats``."""
    ip_stats: list[Any] = _field("ipStats", _list)
    """Per-IP statistics: objects with ``ip``, ``requests``, ``asn``, ``geoip``, ``rdns``, ``ipv6``, ... Wire: ``ipStats``."""
    protocol_stats: list[Any] = _field("protocolStats", _list)
    """Per-protocol statistics: objects with ``protocol``, ``count``, ``size``, ``securityState``, ... Wire: ``protocolStats``."""
    reg_domain_stats: list[Any] = _field("regDomainStats", _list)
    """Per-registered-domain statistics: objects with ``regDomain``, ``count``, ``size``, ``subDomains``, ...
    Wire: ``regDomainStats``."""
    resource_stats: list[Any] = _field("resourceStats", _list)
    """Per-resource-type statistics: objects with ``type``, ``count``, ``size``, ``latency``, ... Wire: ``resourceStats``."""
    server_stats: list[Any] = _field("serverStats", _list)
    """Per-server statistics: objects with ``server``, ``count``, ``size``, ... Wire: ``serverStats``."""
    tls_stats: list[Any] = _field("tlsStats", _list)
    """Per-TLS-setup statistics: objects with ``protocols``, ``securityState``, ``count``, ``size``, ... Wire: ``tlsStats``."""
    _repr_fields = ("malicious", "secure_percentage", "uniq_countries", "total_links")


class HitStats(Model):
    """Statistics of a search hit."""

    __slots__ = ()
    requests: int | None = _field("requests", _int)
    """How many requests the scan made. Wire: ``requests``."""
    uniq_ips: int | None = _field("uniqIPs", _int)
    """How many distinct IPs the scan contacted. Wire: ``uniqIPs``."""
    uniq_countries: int | None = _field("uniqCountries", _int)
    """How many distinct countries the scan contacted. Wire: ``uniqCountries``."""
    data_length: int | None = _field("dataLength", _int)
    """The size of the scan's response data, in bytes (decoded). Wire: ``dataLength``."""
    encoded_data_length: int | None = _field("encodedDataLength", _int)
    """The size of the scan's responses as transferred (encoded), in bytes. Wire: ``encodedDataLength``."""
    console_msgs: int | None = _field("consoleMsgs", _int)
    """How many console messages the page logged. Wire: ``consoleMsgs``."""


class Lists(Model):
    """The lists of a result (``result.lists``): IPs, countries, ASNs, domains, URLs, certificates, hashes."""

    __slots__ = ()
    ips: list[str] = _field("ips", _list)
    """The IP addresses the scan contacted. Wire: ``ips``."""
    countries: list[str] = _field("countries", _list)
    """The countries of those IPs, two-letter codes (e.g. ``IE``). Wire: ``countries``."""
    asns: list[str] = _field("asns", _list)
    """The autonomous systems of those IPs, as numbers without the ``AS`` prefix (e.g. ``15169``). Wire: ``asns``."""
    domains: list[str] = _field("domains", _list)
    """The domains the scan contacted. Wire: ``domains``."""
    servers: list[str] = _field("servers", _list)
    """The web servers that answered, e.g. ``nginx``. Wire: ``servers``."""
    urls: list[str] = _field("urls", _list)
    """The URLs the scan requested. Wire: ``urls``."""
    link_domains: list[str] = _field("linkDomains", _list)
    """The domains the page links to. Wire: ``linkDomains``."""
    certificates: list[dict[str, Any]] = _field("certificates", _list)
    """TLS certificates seen: objects with ``subjectName``, ``issuer``, ``validFrom``, ``validTo`` (epoch seconds).
    Wire: ``certificates``."""
    hashes: list[str] = _field("hashes", _list)
    """The SHA-256 hashes (hex) of the response bodies. Wire: ``hashes``."""

    def __repr__(self) -> str:
        return f"Lists(domains={len(self.domains)}, ips={len(self.ips)}, urls={len(self.urls)}, hashes={len(self.hashes)})"


class Submitter(Model):
    """Who submitted the scan (``result.submitter``): their country."""

    __slots__ = ()
    country: str | None = _field("country")
    """The submitter's country, a two-letter code (e.g. ``JP``); often empty on results. Wire: ``country``."""


class Visible(Model):
    """What urlscan Brand AI read on the page's screenshot (``result.visible``, ``hit.visible``)."""

    __slots__ = ()
    brandname: str | None = _field("brandname")
    """The brand the page shows, as Brand AI saw it; set when the scan has the label ``visual.brandai``
    (searchable as ``visible.brandname``). Wire: ``brandname``."""


class _Tabled:
    """A model tables are made of: its row of the table schema (``urlscan_rs.schema.of``) as a dict."""

    __slots__ = ()

    def to_record(self) -> dict[str, Any]:
        """A flat dict of this model's table columns (``urlscan_rs.schema.of(self)``): the row
        ``to_arrow()`` makes of it, decoded by the same code (missing is None)."""
        from . import schema

        return _native.records(schema.of(self).name, [self])[0]


class _ScanRecord(_Tabled):
    """What a scan's result and a search hit of it share: a flat record and a notebook table."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        from ._display import table

        return table([self])

    # -- playbooks (see urlscan_rs.playbook)

    def indicators(self) -> Indicators:
        """The scan's :class:`~urlscan_rs.playbook.Indicators` (URLs, domains, IPs,
        ASNs, hashes, certificates, redirects, links), read natively from its bytes."""
        from .playbook import indicators

        return indicators(self)

    @property
    def verdict(self) -> VerdictSummary:
        """The verdicts taken together (:class:`~urlscan_rs.playbook.VerdictSummary`):
        ``malicious`` (None when unknown), ``score``, ``categories``, ``brands``, ``tags``."""
        from .playbook import verdict

        return verdict(self)

    def is_malicious(self, threshold: int = 50) -> bool | None:
        """True when a verdict says malicious or the score reaches ``threshold``
        (-100 to 100); False when the verdicts say otherwise; None when unknown."""
        from .playbook import is_malicious

        return is_malicious(self, threshold)

    def summary(self, max_bytes: int = 4096) -> dict[str, Any]:
        """What an assistant or a ticket needs of the scan, as a dict whose JSON
        is at most ``max_bytes`` bytes (UTF-8), whatever the result's size.

        It keeps the verdict (``malicious``, ``score``, categories, brands, tags),
        the page's identity (URL, domain, IP, country, ASN, server, title), the
        indicators (redirect chain first, then domains, IPs, ASNs, hashes,
        links and URLs), their ``counts``, and the report and screenshot links.
        When that is too large, long strings are shortened first, then the
        widest list is halved until it fits; ``"omitted"`` then says what was
        left out (path -> ``{"kept": n, "of": total}``, items or characters).

        Raises:
            ValueError: ``max_bytes`` is below 2048.
        """
        from ._summary import summary

        return summary(self, max_bytes)

    def to_stix(self, threshold: int = 50) -> dict[str, Any]:
        """A STIX 2.1 bundle of the scan (see :func:`urlscan_rs.playbook.to_stix`)."""
        from .playbook import to_stix

        return to_stix(self, threshold)

    def to_misp(self, threshold: int = 50) -> dict[str, Any]:
        """A MISP event of the scan (see :func:`urlscan_rs.playbook.to_misp`)."""
        from .playbook import to_misp

        return to_misp(self, threshold)


class ScanResult(_ScanRecord, Model):
    """A finished scan's result document (GET /api/v1/result/{uuid}/)."""

    __slots__ = ()
    uuid: str = _field("task.uuid")
    """The scan's UUID. Wire: ``task.uuid``."""
    url: str | None = _field("task.url")
    """The URL submitted for scanning. Wire: ``task.url``."""
    time: datetime | None = _field("task.time", _datetime)
    """The time of the scan task, aware in UTC (ISO 8601 on the wire). Wire: ``task.time``."""
    task: Task = _field("task", _model(Task))
    """What was asked for: URL, time, visibility, options and links. Wire: ``task``."""
    page: Page = _field("page", _model(Page))
    """The page reached after redirects. Wire: ``page``."""
    verdicts: Verdicts = _field("verdicts", _model(Verdicts))
    """The verdicts: overall, urlscan, engines and community. Wire: ``verdicts``."""
    stats: Stats = _field("stats", _model(Stats))
    """Statistics of the scan's requests. Wire: ``stats``."""
    lists: Lists = _field("lists", _model(Lists))
    """The IPs, countries, ASNs, domains, servers, URLs, certificates and hashes seen. Wire: ``lists``."""
    submitter: Submitter = _field("submitter", _model(Submitter))
    """Who submitted the scan (its country, often empty). Wire: ``submitter``."""
    meta: dict[str, Any] | None = _field("meta")
    """The processors' output under ``processors`` (``asn``, ``geoip``, ``rdns``, ``umbrella``, ``wappa``, ...).
    Wire: ``meta``."""
    data: dict[str, Any] | None = _field("data")
    """Every request and response, with ``cookies``, ``console``, ``links``, ``globals``, ``timing``, ... Wire: ``data``."""
    scanner: dict[str, Any] | None = _field("scanner")
    """The scanner: its ``country`` (filled in where ``submitter`` often is not). Wire: ``scanner``."""
    labels: list[str] = _field("labels", _list)
    """System labels urlscan set on the scan, e.g. ``visual.brandai`` (Brand AI examined it); searchable as
    ``labels:``. Wire: ``labels``."""
    usertags: list[str] = _field("usertags", _list)
    """Tags your saved searches applied to the scan, with their scope (``private.``, ``team.``, ``pro.``,
    ``public.``). Wire: ``usertags``."""
    metatags: list[str] = _field("metatags", _list)
    """What the service recorded of the scan's matches: your saved searches it matched, as
    ``searchhit.search.<id>`` (the Search API calls this ``meta``). Wire: ``metatags``."""
    visible: Visible = _field("visible", _model(Visible))
    """What Brand AI read on the page (``brandname``); empty unless the scan has the label ``visual.brandai``.
    Wire: ``visible``."""
    _repr_fields = ("uuid", "url", "time")

    @property
    def malicious(self) -> bool | None:
        """The overall verdict: True (malicious), False (not), None when the service gave none.

        None is "not known", never "clean": results without verdicts exist (older scans).
        """
        m = self.verdicts.overall.malicious
        return m if isinstance(m, bool) else None

    def __repr__(self) -> str:
        dom = self.page.domain
        return f"ScanResult(uuid={self.uuid!r}, url={self.url!r}, domain={dom!r}, malicious={self.malicious})"


class SearchHit(_ScanRecord, Model):
    """One search hit of scans (``search()``, ``similar()``, ``phishfeed()``, saved-search results).

    A summary of the scan; read the full document with ``client.result(hit.uuid)``.
    """

    __slots__ = ()
    id: str = _field("_id")
    """The scan's UUID. Wire: ``_id``."""
    score: float | None = _field("_score")
    """The hit's search score; search does not score (it sorts by date), so it is usually null. Wire: ``_score``."""
    sort: list[Any] = _field("sort", _list)
    """``[epoch ms of task.time, uuid]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    task: Task = _field("task", _model(Task))
    """What was asked for: URL, time, visibility, method and source. Wire: ``task``."""
    page: Page = _field("page", _model(Page))
    """The page reached after redirects. Wire: ``page``."""
    stats: HitStats = _field("stats", _model(HitStats))
    """The scan's statistics: requests, IPs, countries, sizes. Wire: ``stats``."""
    verdicts: Verdict = _field("verdicts", _model(Verdict))
    """The scan's verdict (``score``, ``malicious``, ...); sent to premium accounts only. Wire: ``verdicts``."""
    brand: list[VerdictBrand | str] = _field("brand", _brands)
    """The brands the page impersonates; sent to premium accounts only. Wire: ``brand``."""
    result: str | None = _field("result")
    """The address of the scan's result document in the API. Wire: ``result``."""
    screenshot: str | None = _field("screenshot")
    """The address of the scan's PNG screenshot. Wire: ``screenshot``."""
    indexed_at: datetime | None = _field("indexedAt", _datetime)
    """When the scan was indexed for search, aware in UTC. Wire: ``indexedAt``."""
    labels: list[str] = _field("labels", _list)
    """System labels urlscan set on the scan, e.g. ``visual.brandai`` (Brand AI examined it); searchable as
    ``labels:``. Wire: ``labels``."""
    usertags: list[str] = _field("usertags", _list)
    """Tags your saved searches applied to the scan, with their scope (``private.``, ``team.``, ``pro.``,
    ``public.``). Wire: ``usertags``."""
    meta: list[str] = _field("meta", _list)
    """What the service says about the hit: your saved searches it matched, as ``searchhit.search.<id>``
    (searchable as ``meta:searchhit.search.<id>``; the Result API calls this ``metatags``). Wire: ``meta``."""
    visible: Visible = _field("visible", _model(Visible))
    """What Brand AI read on the page (``brandname``); empty unless the scan has the label ``visual.brandai``.
    Wire: ``visible``."""

    @property
    def uuid(self) -> str | None:
        """The scan's uuid (the hit's ``id``, else ``task.uuid``)."""
        return self.id or self.task.uuid

    def __repr__(self) -> str:
        t = self.task
        when = t.time.isoformat() if t.time else None
        return f"SearchHit(id={self.id!r}, url={t.url!r}, domain={self.page.domain!r}, time={when!r})"


# ---------------------------------------------------------------- account


class Quotas(Model):
    """Quotas: ``limits[action][window]`` with limit, used, remaining and percent."""

    __slots__ = ()
    scope: str | None = _field("scope")
    """Whose quotas these are: ``user``, ``team``, or ``ip-address`` without a key. Wire: ``scope``."""
    source: str | None = _field("source")
    """The source of the quota limits, e.g. ``user``. Wire: ``source``."""
    limits: dict[str, Any] | None = _field("limits")
    """The limits, ``limits[action][window]`` with ``limit``, ``used``, ``remaining`` and ``percent``; actions such as ``public``,
    ``private``, ``search``, windows ``minute``, ``hour`` and ``day``. Wire: ``limits``."""
    _repr_fields = ("scope",)

    @_safe_repr
    def __repr__(self) -> str:
        # What is left of each action's day, the figure a user looks for first.
        lim = self._raw.get("limits")
        left = []
        for action, windows in (lim or {}).items() if isinstance(lim, dict) else ():
            day = windows.get("day") if isinstance(windows, dict) else None
            if isinstance(day, dict):
                left.append(f"{action}={day.get('remaining')}/{day.get('limit')}")
        return f"Quotas(scope={self.scope!r}, left today: {', '.join(left) or 'unknown'})"

    def remaining(self, action: str, window: str = "day") -> int | None:
        """Requests left for an action in a window, or None when unknown."""
        lim = self._raw.get("limits")
        w = lim.get(action, {}).get(window) if isinstance(lim, dict) else None
        return _int(w.get("remaining")) if isinstance(w, dict) else None


class Team(Model):
    """The team of a user (``user().team``)."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The team's id. Wire: ``_id``."""
    name: str | None = _field("name")
    """The team's name. Wire: ``name``."""
    slug: str | None = _field("slug")
    """The team's slug, e.g. ``example-team``. Wire: ``slug``."""


class User(Model):
    """The user (or team) an API key belongs to (``user()``): products, features and limits."""

    __slots__ = ()
    username: str | None = _field("username")
    """The user's name. Wire: ``username``."""
    email: str | None = _field("email")
    """The user's e-mail address. Wire: ``email``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When the user was created, aware in UTC. Wire: ``createdAt``."""
    team: Team = _field("team", _model(Team))
    """The user's team. Wire: ``team``."""
    limits: dict[str, Any] | None = _field("limits")
    """The user's limits, ``limits[action][window]`` as in :class:`Quotas`. Wire: ``limits``."""
    products: list[str] = _field("products", _list)
    """The products the user has, e.g. ``pro``, ``livescan``. Wire: ``products``."""
    features: list[str] = _field("features", _list)
    """The features the user has, e.g. ``country-select``. Wire: ``features``."""
    _repr_fields = ("username", "email", "products")


class Screenshot(bytes):
    """A PNG screenshot: plain ``bytes`` that also display as an image in notebooks."""

    def _repr_png_(self) -> bytes:
        return bytes(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the PNG to a file, whole (a temporary file beside it, then renamed)."""
        from . import _native

        _native.write_whole(path, bytes(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Screenshot, (bytes(self),))


# ---------------------------------------------------------------- batch


@dataclasses.dataclass(frozen=True)
class ScanOutcome:
    """One URL of a bulk scan: its submission and result, or the error."""

    url: str
    """The URL, as given."""
    submission: Submission | None
    """The submission's answer (None when the submission failed)."""
    result: ScanResult | None
    """The result (None without ``wait``, or when something failed)."""
    error: BaseException | None
    """What failed (a :class:`~urlscan_rs.errors.UrlscanError`), or None."""

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.error is None


# ---------------------------------------------------------------- premium


def _date(v: Any) -> date | None:
    """YYYY-MM-DD -> date."""
    if isinstance(v, str) and len(v) >= 10:
        try:
            return date.fromisoformat(v[:10])
        except ValueError:
            return None
    return None


class SavedSearch(Model):
    """A saved search (``client.saved_searches``)."""

    __slots__ = ()
    id: str = _field("_id")
    """The saved search's id. Wire: ``_id``."""
    datasource: str | None = _field("datasource")
    """What it searches: ``scans`` or ``hostnames``. Wire: ``datasource``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    query: str | None = _field("query")
    """Its search query. Wire: ``query``."""
    description: str | None = _field("description")
    """A short description. Wire: ``description``."""
    long_description: str | None = _field("longDescription")
    """A long description. Wire: ``longDescription``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC (read-only). Wire: ``createdAt``."""
    owner_description: str | None = _field("ownerDescription")
    """A description of its owner (read-only). Wire: ``ownerDescription``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``public:read``, ``team:read``, ``team:write``. Wire: ``permissions``."""
    tlp: str | None = _field("tlp")
    """Its TLP: ``red``, ``amber+strict``, ``amber``, ``green`` or ``clear``. Wire: ``tlp``."""
    user_tags: list[str] = _field("userTags", _list)
    """Tags for matching items, prefixed by scope: ``pro.``, ``public.``, ``private.``, ``team.`` (schema: ``usertags``).
    Wire: ``userTags``."""
    _repr_fields = ("id", "name", "datasource", "query")

    def __getattr__(self, name: str) -> Any:
        # The schema says "usertags", sample payloads "userTags": read both.
        if name == "user_tags" and "userTags" not in self._raw and "usertags" in self._raw:
            return self._read(name, "usertags")
        return super().__getattr__(name)


class Subscription(Model):
    """A subscription to saved searches."""

    __slots__ = ()
    id: str = _field("_id")
    """The subscription's id. Wire: ``_id``."""
    search_ids: list[str] = _field("searchIds", _list)
    """The ids of the saved searches it follows. Wire: ``searchIds``."""
    frequency: str | None = _field("frequency")
    """How often it notifies: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    email_addresses: list[str] = _field("emailAddresses", _list)
    """The e-mail recipients. Wire: ``emailAddresses``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    description: str | None = _field("description")
    """Its description. Wire: ``description``."""
    is_active: bool | None = _field("isActive")
    """Whether it is active. Wire: ``isActive``."""
    ignore_time: bool | None = _field("ignoreTime")
    """Whether to ignore time constraints (``week_days``). Wire: ``ignoreTime``."""
    week_days: list[str] = _field("weekDays", _list)
    """The days alerts are generated on: ``Monday`` to ``Sunday``. Wire: ``weekDays``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``team:read``, ``team:write``. Wire: ``permissions``."""
    channel_ids: list[str] = _field("channelIds", _list)
    """The ids of the channels it notifies. Wire: ``channelIds``."""
    incident_channel_ids: list[str] = _field("incidentChannelIds", _list)
    """The ids of the incident channels. Wire: ``incidentChannelIds``."""
    incident_profile_id: str | None = _field("incidentProfileId")
    """The id of the incident profile. Wire: ``incidentProfileId``."""
    incident_visibility: str | None = _field("incidentVisibility")
    """The visibility of the incidents it creates: ``unlisted`` or ``private``. Wire: ``incidentVisibility``."""
    incident_creation_mode: str | None = _field("incidentCreationMode")
    """When it creates incidents: ``none``, ``default``, ``always`` or ``ignore-if-exists``. Wire: ``incidentCreationMode``."""
    incident_watch_keys: Any = _field("incidentWatchKeys")
    """What incidents watch: ``scans/page.url``, ``scans/page.domain``, ``scans/page.ip``, ``scans/page.apexDomain``,
    ``hostnames/hostname`` or ``hostnames/domain``. Wire: ``incidentWatchKeys``."""
    _repr_fields = ("id", "name", "frequency", "is_active")


class Channel(Model):
    """A notification channel (webhook or e-mail)."""

    __slots__ = ()
    id: str = _field("_id")
    """The channel's id. Wire: ``_id``."""
    type: str | None = _field("type")
    """``webhook`` (the default) or ``email``. Wire: ``type``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    webhook_url: str | None = _field("webhookURL")
    """The address that receives the notifications of a webhook channel. Wire: ``webhookURL``."""
    frequency: str | None = _field("frequency")
    """How often it notifies: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    email_addresses: list[str] = _field("emailAddresses", _list)
    """The e-mail recipients. Wire: ``emailAddresses``."""
    utc_time: str | None = _field("utcTime")
    """When daily e-mails go out, ``HH:MM`` (24-hour, UTC). Wire: ``utcTime``."""
    is_active: bool | None = _field("isActive")
    """Whether it is active. Wire: ``isActive``."""
    is_default: bool | None = _field("isDefault")
    """Whether it is the default channel (default false). Wire: ``isDefault``."""
    ignore_time: bool | None = _field("ignoreTime")
    """Whether to ignore time constraints (``week_days``; default false). Wire: ``ignoreTime``."""
    week_days: list[str] = _field("weekDays", _list)
    """The days alerts are generated on: ``Monday`` to ``Sunday``. Wire: ``weekDays``."""
    permissions: list[str] = _field("permissions", _list)
    """Who else may use it: ``team:read``, ``team:write``. Wire: ``permissions``."""
    description: str | None = _field("description")
    """Its description. Wire: ``description``."""
    _repr_fields = ("id", "type", "name", "is_active")


class Incident(_Tabled, Model):
    """An incident: an observable tracked and scanned repeatedly."""

    __slots__ = ()
    id: str = _field("_id")
    """The incident's id. Wire: ``_id``."""
    observable: str | None = _field("observable")
    """What it tracks: a hostname, domain, IP or URL. Wire: ``observable``."""
    visibility: str | None = _field("visibility")
    """Its visibility: ``unlisted`` or ``private``. Wire: ``visibility``."""
    channels: list[str] = _field("channels", _list)
    """The ids of the channels it notifies. Wire: ``channels``."""
    extra_path: str | None = _field("extraPath")
    """An optional path for hostname incidents (starts with ``/``, at most 2000 characters). Wire: ``extraPath``."""
    scan_interval: int | None = _field("scanInterval", _int)
    """Seconds between full scans. Wire: ``scanInterval``."""
    scan_interval_mode: str | None = _field("scanIntervalMode")
    """``manual`` or ``automatic`` (with ``manual``, the ``scan_interval_after_*`` fields do nothing).
    Wire: ``scanIntervalMode``."""
    watched_attributes: list[str] = _field("watchedAttributes", _list)
    """Watched attributes: ``detections``, ``tls``, ``dns``, ``labels``, ``page``, ``meta`` or ``ip``.
    Wire: ``watchedAttributes``."""
    user_agents: list[str] = _field("userAgents", _list)
    """The browser User-Agents used in scanning. Wire: ``userAgents``."""
    user_agents_per_interval: int | None = _field("userAgentsPerInterval", _int)
    """How many of the user agents are used per scan interval. Wire: ``userAgentsPerInterval``."""
    countries: list[str] = _field("countries", _list)
    """The countries to scan from, ISO 3166-1 codes. Wire: ``countries``."""
    countries_per_interval: int | None = _field("countriesPerInterval", _int)
    """How many countries are used per scan interval. Wire: ``countriesPerInterval``."""
    stop_delay_suspended: int | None = _field("stopDelaySuspended", _int)
    """Delay before closing automatically once the observable is suspended (unit not documented). Wire: ``stopDelaySuspended``."""
    stop_delay_inactive: int | None = _field("stopDelayInactive", _int)
    """Delay before closing automatically once the observable is inactive (unit not documented). Wire: ``stopDelayInactive``."""
    stop_delay_malicious: int | None = _field("stopDelayMalicious", _int)
    """Delay before closing automatically once the observable is malicious (unit not documented). Wire: ``stopDelayMalicious``."""
    scan_interval_after_suspended: int | None = _field("scanIntervalAfterSuspended", _int)
    """The scan interval change once the observable is suspended (unit not documented). Wire: ``scanIntervalAfterSuspended``."""
    scan_interval_after_malicious: int | None = _field("scanIntervalAfterMalicious", _int)
    """The scan interval change once the observable is malicious (unit not documented). Wire: ``scanIntervalAfterMalicious``."""
    incident_profile: str | None = _field("incidentProfile")
    """The id of the incident profile used on creation. Wire: ``incidentProfile``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    scanned_at: datetime | None = _field("scannedAt", _datetime)
    """When it was last scanned, aware in UTC. Wire: ``scannedAt``."""
    expire_at: datetime | None = _field("expireAt", _datetime)
    """When it closes automatically, aware in UTC. Wire: ``expireAt``."""
    source_type: str | None = _field("sourceType")
    """What created it: ``manual``, ``api``, ``subscription``, ``fork`` or ``copy``. Wire: ``sourceType``."""
    source_id: str | None = _field("sourceId")
    """The id of the item that created it. Wire: ``sourceId``."""
    state: str | None = _field("state")
    """``active`` or ``closed``. Wire: ``state``."""
    state_size: int | None = _field("stateSize", _int)
    """The bytes of its stored incident states. Wire: ``stateSize``."""
    state_count: int | None = _field("stateCount", _int)
    """How many incident states are stored. Wire: ``stateCount``."""
    owner: str | None = _field("owner")
    """Its owner. Wire: ``owner``."""
    type: str | None = _field("type")
    """What the observable is: ``url``, ``ip`` or ``hostname``. Wire: ``type``."""
    labels: list[str] = _field("labels", _list)
    """Its labels. Wire: ``labels``."""
    _repr_fields = ("id", "observable", "state", "state_count")


class IncidentObservation(Model):
    """What one incident state saw (``state.state``). The service documents only
    ``status``; the rest is what the emulator records (and None where absent).
    It also reads as a dict of wire keys: ``state.state["scanId"]``, ``"ip" in``,
    ``.get()``, ``.keys()``, ``dict(...)``."""

    __slots__ = ()
    status: str | None = _field("status")
    """The observable's status: ``active``, ``inactive`` or ``suspended``. Wire: ``status``."""
    malicious: bool | None = _field("malicious")
    """Whether the observable was found malicious. Wire: ``malicious``."""
    observable: str | None = _field("observable")
    """The incident's observable. Wire: ``observable``."""
    url: str | None = _field("url")
    """The URL scanned. Wire: ``url``."""
    user_agent: str | None = _field("userAgent")
    """The User-Agent the scan used. Wire: ``userAgent``."""
    country: str | None = _field("country")
    """The country the scan ran from. Wire: ``country``."""
    ip: str | None = _field("ip")
    """The IP the page was loaded from. Wire: ``ip``."""
    title: str | None = _field("title")
    """The page's title. Wire: ``title``."""
    scan_id: str | None = _field("scanId")
    """The UUID of the scan this observation made (``client.result(scan_id)``). Wire: ``scanId``."""
    attributes: dict[str, Any] | None = _field("attributes")
    """The watched attributes' values, by attribute (``ip``, ``page``, ``tls``, ...). Wire: ``attributes``."""
    _repr_fields = ("status", "scan_id", "ip", "title")

    # Read as a dict of wire keys too, as it was before it was typed.
    def __getitem__(self, key: str) -> Any:
        """The wire value of ``key`` (``KeyError`` when absent)."""
        return self._raw[key]

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def get(self, key: str, default: Any = None) -> Any:
        """The wire value of ``key``, or ``default``."""
        return self._raw.get(key, default)

    def keys(self) -> Any:
        """The wire keys."""
        return self._raw.keys()


class IncidentState(Model):
    """One observation of an incident's observable: ``state`` is what was seen
    (:class:`IncidentObservation`); ``scan_id``, ``status`` and ``malicious``
    read from it directly."""

    __slots__ = ()
    id: str = _field("_id")
    """The state's id. Wire: ``_id``."""
    incident: str | None = _field("incident")
    """The incident's id. Wire: ``incident``."""
    state: IncidentObservation = _field("state", _model(IncidentObservation))
    """What was seen (:class:`IncidentObservation`). Wire: ``state``."""
    time_start: datetime | None = _field("timeStart", _datetime)
    """When the observation started, aware in UTC. Wire: ``timeStart``."""
    time_end: datetime | None = _field("timeEnd", _datetime)
    """When the observation ended, aware in UTC. Wire: ``timeEnd``."""
    _repr_fields = ("id", "incident", "time_start", "scan_id")

    @property
    def scan_id(self) -> str | None:
        """The scan this observation made (read it with ``client.result(scan_id)``)."""
        return self.state.scan_id

    @property
    def status(self) -> str | None:
        """The observable's status then (``active``, ``inactive``, ``suspended``)."""
        return self.state.status

    @property
    def malicious(self) -> bool | None:
        """Whether the scan then was found malicious (None when not said)."""
        return self.state.malicious


class HostnameRecord(_Tabled, Model):
    """One hostname-history observation."""

    __slots__ = ()
    seen_on: date | None = _field("seen_on", _date)
    """The day of the observation (``YYYY-MM-DD`` on the wire). Wire: ``seen_on``."""
    source: str | None = _field("source")
    """What saw it: ``ct``, ``scan``, ``pdns``, ``zonefile``, ``scan-link`` or ``scan-cert-subject``. Wire: ``source``."""
    sub_id: str | None = _field("sub_id")
    """The observation value, maybe empty; for ``pdns`` a record type, or a type and value joined by ``#``. Wire: ``sub_id``."""
    first_seen: datetime | None = _field("first_seen", _datetime)
    """When it was first seen, aware in UTC (ISO 8601 on the wire). Wire: ``first_seen``."""
    last_seen: datetime | None = _field("last_seen", _datetime)
    """When it was last seen, aware in UTC (ISO 8601 on the wire); may be null. Wire: ``last_seen``."""
    data_type: str | None = _field("data_type")
    """``json`` when ``data`` holds extra content. Wire: ``data_type``."""
    data: dict[str, Any] | None = _field("data")
    """Extra JSON content of the record. Wire: ``data``."""
    _repr_fields = ("seen_on", "source", "sub_id")


class Brand(Model):
    """A brand tracked for phishing detection."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The brand's id. Wire: ``_id``."""
    key: str | None = _field("key")
    """Its identifier, e.g. ``facebook``. Wire: ``key``."""
    name: str | None = _field("name")
    """Its name, e.g. ``Facebook``. Wire: ``name``."""
    vertical: list[str] = _field("vertical", _list)
    """Its verticals (sectors), e.g. ``Social Network``. Wire: ``vertical``."""
    country: list[str] = _field("country", _list)
    """Its countries, ISO 3166 codes (lowercase in recorded answers, e.g. ``us``). Wire: ``country``."""
    terms: dict[str, Any] | None = _field("terms")
    """Its terms: lists such as ``domains`` (e.g. ``facebook.com``) and ``asns``. Wire: ``terms``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    _repr_fields = ("key", "name", "vertical")


class BrandSummary(Model):
    """A brand with detected phishing pages: total and latest hits."""

    __slots__ = ()
    brand: Brand = _field("brand", _model(Brand))
    """The brand. Wire: ``brand``."""
    total: int | None = _field("total", _int)
    """How many phishing pages were detected for it. Wire: ``total``."""
    hits: list[SearchHit] = _field("hits", _models(SearchHit))
    """Its latest hits. Wire: ``hits``."""

    def __repr__(self) -> str:
        return f"BrandSummary(brand={self.brand.key!r}, total={self.total})"


class LiveScanner(Model):
    """A live scanning node."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The scanner's id, e.g. ``de01``. Wire: ``_id``."""
    name: str | None = _field("name")
    """Its name. Wire: ``name``."""
    country: str | None = _field("country")
    """The country it scans from. Wire: ``country``."""
    city: str | None = _field("city")
    """The city it scans from. Wire: ``city``."""
    online: bool | None = _field("online")
    """Whether it is online. Wire: ``online``."""
    _repr_fields = ("id", "country", "city", "online")

    def __getattr__(self, name: str) -> Any:
        if name == "id" and "_id" not in self._raw:
            return self._read(name, "id")
        return super().__getattr__(name)


class DataDumpFile(Model):
    """A data-dump file listed for a time window, file type and day."""

    __slots__ = ()
    path: str = _field("path")
    """The file's path, e.g. ``hours/search/20260101/20260101-00.gz`` (what the link endpoint takes). Wire: ``path``."""
    size: int | None = _field("size", _int)
    """The file's size (the unit is not documented). Wire: ``size``."""
    timestamp: datetime | None = _field("timestamp", _datetime)
    """The file's timestamp, aware in UTC. Wire: ``timestamp``."""


# ---------------------------------------------------------------- data sources and events


def _opt_list(v: Any) -> list[Any] | None:
    """A list; ``{}`` reads as an empty list; absent or anything else is unknown (None)."""
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return []
    return None


class HostnameHit(_Tabled, Model):
    """A hit of ``search(datasource="hostnames")``: a hostname and when it was seen."""

    __slots__ = ()
    # BEGIN GENERATED HOSTNAME_HITS by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id. Wire: ``_id``."""
    hostname: str | None = _field("hostname")
    """The hostname. Wire: ``hostname``."""
    domain: str | None = _field("domain")
    """Its domain. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain|apex_domain")
    """Its registered domain (eTLD+1). Wire: ``apexDomain`` (else ``apex_domain``)."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date, aware in UTC. Wire: ``date``."""
    first_seen: datetime | None = _field("first_seen|firstSeen", _datetime)
    """When it was first seen, aware in UTC. Wire: ``first_seen`` (else ``firstSeen``)."""
    last_seen: datetime | None = _field("last_seen|lastSeen", _datetime)
    """When it was last seen, aware in UTC. Wire: ``last_seen`` (else ``lastSeen``)."""
    sources: list[str] | None = _field("sources", _opt_list)
    """What saw it, e.g. ``pdns`` or ``scan``. Wire: ``sources``."""
    # END GENERATED HOSTNAME_HITS
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("hostname", "domain", "first_seen", "last_seen")


class IncidentHit(Incident):
    """A hit of ``search(datasource="incidents")``: an incident (every
    :class:`Incident` field) with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    date: datetime | None = _field("date", _datetime)
    """When the incident was created, aware in UTC. Wire: ``date``."""
    _repr_fields = ("id", "observable", "state", "source_type")


class CertificateHit(_Tabled, Model):
    """A hit of ``search(datasource="certificates")``: a TLS certificate seen by scans."""

    __slots__ = ()
    # BEGIN GENERATED CERTIFICATES by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id. Wire: ``_id``."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date, aware in UTC. Wire: ``date``."""
    domain: str | None = _field("domain")
    """The certificate's domain. Wire: ``domain``."""
    subject_name: str | None = _field("subjectName")
    """The certificate's subject name. Wire: ``subjectName``."""
    issuer: str | None = _field("issuer")
    """The certificate's issuer. Wire: ``issuer``."""
    valid_from: datetime | None = _field("validFrom", _datetime)
    """The start of its validity, aware in UTC. Wire: ``validFrom``."""
    valid_to: datetime | None = _field("validTo", _datetime)
    """The end of its validity, aware in UTC. Wire: ``validTo``."""
    hostnames: list[str] | None = _field("hostnames", _opt_list)
    """Its hostnames. Wire: ``hostnames``."""
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    """When it was first seen, aware in UTC. Wire: ``firstSeen`` (else ``first_seen``)."""
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    """When it was last seen, aware in UTC. Wire: ``lastSeen`` (else ``last_seen``)."""
    # END GENERATED CERTIFICATES
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("domain", "issuer", "valid_to")


class DomainHit(_Tabled, Model):
    """A hit of ``search(datasource="domains")``: a domain that scans loaded as
    their page, how often and when it was scanned, and where its newest scan
    found it (``ip``, ``asn``, ``asnname``, ``country``; ``last_scan_id`` is
    that scan's uuid: ``client.result(hit.last_scan_id)``).

    The service's documents show no domain hit: these are the emulator's
    fields (see the README's data sources), read leniently like every model.
    """

    __slots__ = ()
    # BEGIN GENERATED DOMAINS by `python -m urlscan_rs._generate`: do not edit
    id: str = _field("_id")
    """The hit's id (24 hex characters of the domain's SHA-256). Wire: ``_id``."""
    date: datetime | None = _field("date", _datetime)
    """The hit's date: the time of the newest scan, aware in UTC. Wire: ``date``."""
    domain: str | None = _field("domain")
    """The domain scans loaded as their page. Wire: ``domain``."""
    apex_domain: str | None = _field("apexDomain|apex_domain")
    """Its registered domain (eTLD+1). Wire: ``apexDomain`` (else ``apex_domain``)."""
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    """The time of the first of those scans, aware in UTC. Wire: ``firstSeen`` (else ``first_seen``)."""
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    """The time of the newest of those scans, aware in UTC. Wire: ``lastSeen`` (else ``last_seen``)."""
    scan_count: int | None = _field("scanCount|scan_count", _int)
    """How many of the scans the caller may search loaded it. Wire: ``scanCount`` (else ``scan_count``)."""
    last_scan_id: str | None = _field("lastScanId|last_scan_id")
    """The UUID of the newest of those scans. Wire: ``lastScanId`` (else ``last_scan_id``)."""
    ip: str | None = _field("ip")
    """Its IP in the newest scan. Wire: ``ip``."""
    asn: str | None = _field("asn")
    """Its autonomous system in the newest scan, e.g. ``AS64496``. Wire: ``asn``."""
    asnname: str | None = _field("asnname")
    """The name of that autonomous system. Wire: ``asnname``."""
    country: str | None = _field("country")
    """Its country in the newest scan, a two-letter code (e.g. ``DE``). Wire: ``country``."""
    # END GENERATED DOMAINS
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    _repr_fields = ("domain", "scan_count", "last_seen")


def _notified_hits(obj: Model, datasource: Any, items: Any) -> list[Any] | None:
    # Notifications carry scan hits or hostname hits.
    if not isinstance(items, list):
        if items is None:
            return None
        if isinstance(items, dict):
            return []
        raise _wrong(_join(obj, "results"), "a list", items)
    cls: type[Model] = HostnameHit if datasource == "hostnames" else SearchHit
    return [cls(x) if isinstance(x, dict) else x for x in items]


class Notification(_Tabled, Model):
    """A notification: what a webhook receives, an e-mail carries and
    ``search(datasource="notifications")`` finds (see
    :func:`urlscan_rs.parse_notification`).

    ``type`` is "subscription" (new items matched a subscription's saved
    searches) or "incident" (a watched attribute of an incident changed).
    ``id`` stays the same on every delivery attempt, so a receiver can
    de-duplicate. ``results`` are typed like the hits of ``search()`` for
    ``datasource``: :class:`SearchHit` for scans (or no datasource),
    :class:`HostnameHit` for hostnames.
    """

    __slots__ = ()
    id: str = _field("id|_id")
    """The id, 24 lowercase hex characters, the same on every delivery attempt (de-duplicate on it).
    Wire: ``id`` (else ``_id``)."""
    type: str | None = _field("type")
    """What made it: ``subscription`` or ``incident``. Wire: ``type``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When it was created, aware in UTC. Wire: ``createdAt``."""
    frequency: str | None = _field("frequency")
    """The schedule that sent it: ``live``, ``hourly`` or ``daily``. Wire: ``frequency``."""
    subscription_id: str | None = _field("subscriptionId")
    """The subscription's id; null for incident notifications. Wire: ``subscriptionId``."""
    subscription_name: str | None = _field("subscriptionName")
    """The subscription's name; null for incident notifications. Wire: ``subscriptionName``."""
    search_ids: list[str] | None = _field("searchIds", _opt_list)
    """The subscription's saved searches (ids); ``[]`` for incident notifications. Wire: ``searchIds``."""
    incident_id: str | None = _field("incidentId")
    """The incident's id; null for subscription notifications. Wire: ``incidentId``."""
    observable: str | None = _field("observable")
    """What the incident observes; null for subscription notifications. Wire: ``observable``."""
    changes: list[dict[str, Any]] | None = _field("changes", _opt_list)
    """For an incident, ``{attribute, before, after}`` per watched attribute that changed; ``[]`` otherwise. Wire: ``changes``."""
    channel_id: str | None = _field("channelId")
    """The channel it went through; null for a subscription's own e-mail addresses. Wire: ``channelId``."""
    datasource: str | None = _field("datasource")
    """What ``results`` hold: ``scans`` or ``hostnames``. Wire: ``datasource``."""

    @property
    @_field_method
    def results(self) -> list[SearchHit | HostnameHit] | None:
        """The matched items: :class:`HostnameHit` for datasource hostnames,
        :class:`SearchHit` otherwise (None when absent)."""
        cache = self._cache
        if "results" not in cache:
            cache["results"] = _notified_hits(self, self._json.get("datasource"), self._json.get("results"))
        return cache["results"]  # type: ignore[no-any-return]

    total: int | None = _field("total", _int)
    """How many ``results`` it carries. Wire: ``total``."""
    _repr_fields = ("id", "type", "created_at", "total")


class NotificationHit(Notification):
    """A hit of ``search(datasource="notifications")``: a :class:`Notification`
    with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    """The hit's ``[epoch ms, id]``; the last hit's, comma-joined, is the next page's ``search_after``. Wire: ``sort``."""
    date: datetime | None = _field("date", _datetime)
    """When the notification was created, aware in UTC. Wire: ``date``."""
