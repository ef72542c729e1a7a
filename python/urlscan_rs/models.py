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
import json
import re
from collections.abc import Callable, Iterable, Iterator
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


class _FieldView(property):
    """A declared field, read on first access and cached per instance.

    A class attribute, so reading a field neither raises nor catches an
    AttributeError (which ``__getattr__`` would: that costs more than the read).
    A property, so type checkers see the annotated field; the class holds its
    native `descriptor` (`_native.FieldReader`), which reads the common values
    straight from the bytes of a lazy document, hands the rest to
    `_read_slow` (it checks the value against the field's declaration, see
    `_reader`) and gives this property when read on the class. Assignment
    raises as on any frozen model.
    """

    # No __slots__: a property subclass keeps its own __doc__ in its __dict__.

    def __init__(self, owner: type[Model], name: str, wire: str) -> None:
        wire, _, alt = wire.partition("|")
        head, _, rest = wire.partition(".")
        self.owner, self.name, self.wire, self.head = owner, name, wire, head
        self.rest = tuple(rest.split(".")) if rest else ()
        self.read: _Reader | None = None
        self.alt = alt or None
        super().__init__(fget=self._read_slow, fset=_frozen, doc=f"The field {wire!r}{f' (else {alt!r})' if alt else ''}.")

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
        """The wire JSON as the service sent it."""
        return self._raw

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
    visibility: str | None = _field("visibility")
    url: str | None = _field("url")
    country: str | None = _field("country")
    message: str | None = _field("message")
    result: str | None = _field("result")
    api: str | None = _field("api")
    options: dict[str, Any] | None = _field("options")
    _repr_fields = ("uuid", "url", "visibility", "country")


class VisibilityChange(Model):
    """The answer to ``set_visibility`` and ``reset_visibility``: the scan and its visibility now."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    message: str | None = _field("message")
    visibility: str | None = _field("visibility")


class UserAgentGroup(Model):
    """A group of user agents a scan may use (``user_agents()``); ``user_agents`` is ``useragents``."""

    __slots__ = ()
    group: str | None = _field("group")
    useragents: list[str] = _field("useragents", _list)
    user_agents: list[str] = _field("useragents", _list)
    _repr_fields = ("group", "useragents")


class VerdictBrand(Model):
    """A brand a verdict names (the page impersonates it)."""

    __slots__ = ()
    key: str | None = _field("key")
    name: str | None = _field("name")
    country: list[str] = _field("country", _list)
    vertical: list[str] = _field("vertical", _list)


def _brands(v: Any) -> list[Any]:
    # Brands come as objects (schema) or as flat identifiers (older docs).
    return [VerdictBrand(b) if isinstance(b, dict) else b for b in _list(v)]


class _VerdictFields(Model):
    """The fields every verdict has."""

    __slots__ = ()
    score: int | None = _field("score", _int)
    malicious: bool | None = _field("malicious")
    has_verdicts: bool | None = _field("hasVerdicts", _flag)
    categories: list[str] = _field("categories", _list)
    brands: list[VerdictBrand | str] = _field("brands", _brands)
    tags: list[str] = _field("tags", _list)


class Verdict(_VerdictFields):
    """A verdict (overall or urlscan): score from -100 (legitimate) to 100 (malicious)."""

    __slots__ = ()
    _repr_fields = ("score", "malicious", "categories")


class EngineVerdicts(_VerdictFields):
    """The verdicts of third-party engines (``verdicts.engines``): counts and each engine's verdict."""

    __slots__ = ()
    # Older results list the engines that flagged the page (wider than a verdict's).
    malicious: bool | list[str] | None = _field("malicious")  # type: ignore[assignment]
    engines_total: int | None = _field("enginesTotal", _int)
    malicious_total: int | None = _field("maliciousTotal", _int)
    benign_total: int | None = _field("benignTotal", _int)
    malicious_verdicts: list[Any] = _field("maliciousVerdicts", _list)
    benign_verdicts: list[Any] = _field("benignVerdicts", _list)
    verdicts: list[dict[str, Any]] = _field("verdicts", _list)
    _repr_fields = ("score", "malicious", "engines_total")


class CommunityVerdict(_VerdictFields):
    """The verdict of the community's votes (``verdicts.community``)."""

    __slots__ = ()
    votes_total: int | None = _field("votesTotal", _int)
    votes_malicious: int | None = _field("votesMalicious", _int)
    votes_benign: int | None = _field("votesBenign", _int)
    _repr_fields = ("score", "malicious", "votes_total")


class Verdicts(Model):
    """The verdicts of a result: ``overall``, ``urlscan``, ``engines`` and ``community``."""

    __slots__ = ()
    overall: Verdict = _field("overall", _model(Verdict))
    urlscan: Verdict = _field("urlscan", _model(Verdict))
    engines: EngineVerdicts = _field("engines", _model(EngineVerdicts))
    community: CommunityVerdict = _field("community", _model(CommunityVerdict))

    def __repr__(self) -> str:
        o = self.overall
        return f"Verdicts(overall={o!r})"


class Task(Model):
    """What was asked for (``result.task``, ``hit.task``): URL, time, visibility, options and links."""

    __slots__ = ()
    uuid: str | None = _field("uuid")
    time: datetime | None = _field("time", _datetime)
    url: str | None = _field("url")
    domain: str | None = _field("domain")
    apex_domain: str | None = _field("apexDomain")
    visibility: str | None = _field("visibility")
    method: str | None = _field("method")
    source: str | None = _field("source")
    tags: list[str] = _field("tags", _list)
    report_url: str | None = _field("reportURL")
    screenshot_url: str | None = _field("screenshotURL")
    dom_url: str | None = _field("domURL")
    user_agent: str | None = _field("userAgent")
    options: dict[str, Any] | None = _field("options")
    _repr_fields = ("uuid", "url", "time", "visibility")


class Page(Model):
    """The page reached after redirects (``result.page``, ``hit.page``): URL, domain, IP, server, TLS."""

    __slots__ = ()
    url: str | None = _field("url")
    domain: str | None = _field("domain")
    apex_domain: str | None = _field("apexDomain")
    ip: str | None = _field("ip")
    asn: str | None = _field("asn")
    asnname: str | None = _field("asnname")
    country: str | None = _field("country")
    city: str | None = _field("city")
    server: str | None = _field("server")
    title: str | None = _field("title")
    status: str | None = _field("status")
    mime_type: str | None = _field("mimeType")
    redirected: str | None = _field("redirected")
    ptr: str | None = _field("ptr")
    tls_issuer: str | None = _field("tlsIssuer")
    tls_valid_days: int | None = _field("tlsValidDays", _int)
    tls_age_days: int | None = _field("tlsAgeDays", _int)
    tls_valid_from: datetime | None = _field("tlsValidFrom", _datetime)
    umbrella_rank: int | None = _field("umbrellaRank", _int)
    _repr_fields = ("url", "domain", "ip", "country")


class Stats(Model):
    """Statistics of a result (the result API's ``stats``)."""

    __slots__ = ()
    malicious: int | None = _field("malicious", _int)
    secure_percentage: float | None = _field("securePercentage", _float)
    secure_requests: int | None = _field("secureRequests", _int)
    ipv6_percentage: float | None = _field("IPv6Percentage", _float)
    ad_blocked: int | None = _field("adBlocked", _int)
    total_links: int | None = _field("totalLinks", _int)
    uniq_countries: int | None = _field("uniqCountries", _int)
    domain_stats: list[Any] = _field("domainStats", _list)
    ip_stats: list[Any] = _field("ipStats", _list)
    protocol_stats: list[Any] = _field("protocolStats", _list)
    reg_domain_stats: list[Any] = _field("regDomainStats", _list)
    resource_stats: list[Any] = _field("resourceStats", _list)
    server_stats: list[Any] = _field("serverStats", _list)
    tls_stats: list[Any] = _field("tlsStats", _list)
    _repr_fields = ("malicious", "secure_percentage", "uniq_countries", "total_links")


class HitStats(Model):
    """Statistics of a search hit."""

    __slots__ = ()
    requests: int | None = _field("requests", _int)
    uniq_ips: int | None = _field("uniqIPs", _int)
    uniq_countries: int | None = _field("uniqCountries", _int)
    data_length: int | None = _field("dataLength", _int)
    encoded_data_length: int | None = _field("encodedDataLength", _int)
    console_msgs: int | None = _field("consoleMsgs", _int)


class Lists(Model):
    """The lists of a result (``result.lists``): IPs, countries, ASNs, domains, URLs, certificates, hashes."""

    __slots__ = ()
    ips: list[str] = _field("ips", _list)
    countries: list[str] = _field("countries", _list)
    asns: list[str] = _field("asns", _list)
    domains: list[str] = _field("domains", _list)
    servers: list[str] = _field("servers", _list)
    urls: list[str] = _field("urls", _list)
    link_domains: list[str] = _field("linkDomains", _list)
    certificates: list[dict[str, Any]] = _field("certificates", _list)
    hashes: list[str] = _field("hashes", _list)

    def __repr__(self) -> str:
        return f"Lists(domains={len(self.domains)}, ips={len(self.ips)}, urls={len(self.urls)}, hashes={len(self.hashes)})"


class Submitter(Model):
    """Who submitted the scan (``result.submitter``): their country."""

    __slots__ = ()
    country: str | None = _field("country")


class _ScanRecord:
    """What a scan's result and a search hit of it share: a flat record and a notebook table."""

    __slots__ = ()

    def to_record(self) -> dict[str, Any]:
        """A flat dict: uuid, time, url, domain, ip, country, asn, server, title, score, malicious, links."""
        from ._display import record

        return record(self)

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
    url: str | None = _field("task.url")
    time: datetime | None = _field("task.time", _datetime)
    task: Task = _field("task", _model(Task))
    page: Page = _field("page", _model(Page))
    verdicts: Verdicts = _field("verdicts", _model(Verdicts))
    stats: Stats = _field("stats", _model(Stats))
    lists: Lists = _field("lists", _model(Lists))
    submitter: Submitter = _field("submitter", _model(Submitter))
    meta: dict[str, Any] | None = _field("meta")
    data: dict[str, Any] | None = _field("data")
    scanner: dict[str, Any] | None = _field("scanner")
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
    score: float | None = _field("_score")
    sort: list[Any] = _field("sort", _list)
    task: Task = _field("task", _model(Task))
    page: Page = _field("page", _model(Page))
    stats: HitStats = _field("stats", _model(HitStats))
    verdicts: Verdict = _field("verdicts", _model(Verdict))
    brand: list[VerdictBrand | str] = _field("brand", _brands)
    result: str | None = _field("result")
    screenshot: str | None = _field("screenshot")
    indexed_at: datetime | None = _field("indexedAt", _datetime)

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
    source: str | None = _field("source")
    limits: dict[str, Any] | None = _field("limits")
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
    name: str | None = _field("name")
    slug: str | None = _field("slug")


class User(Model):
    """The user (or team) an API key belongs to (``user()``): products, features and limits."""

    __slots__ = ()
    username: str | None = _field("username")
    email: str | None = _field("email")
    created_at: datetime | None = _field("createdAt", _datetime)
    team: Team = _field("team", _model(Team))
    limits: dict[str, Any] | None = _field("limits")
    products: list[str] = _field("products", _list)
    features: list[str] = _field("features", _list)
    _repr_fields = ("username", "email", "products")


class Screenshot(bytes):
    """A PNG screenshot: plain ``bytes`` that also display as an image in notebooks."""

    def _repr_png_(self) -> bytes:
        return bytes(self)

    def save(self, path: str) -> None:
        """Write the PNG to a file."""
        with open(path, "wb") as f:
            f.write(self)

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
    datasource: str | None = _field("datasource")
    name: str | None = _field("name")
    query: str | None = _field("query")
    description: str | None = _field("description")
    long_description: str | None = _field("longDescription")
    created_at: datetime | None = _field("createdAt", _datetime)
    owner_description: str | None = _field("ownerDescription")
    permissions: list[str] = _field("permissions", _list)
    tlp: str | None = _field("tlp")
    user_tags: list[str] = _field("userTags", _list)
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
    search_ids: list[str] = _field("searchIds", _list)
    frequency: str | None = _field("frequency")
    email_addresses: list[str] = _field("emailAddresses", _list)
    name: str | None = _field("name")
    description: str | None = _field("description")
    is_active: bool | None = _field("isActive")
    ignore_time: bool | None = _field("ignoreTime")
    week_days: list[str] = _field("weekDays", _list)
    permissions: list[str] = _field("permissions", _list)
    channel_ids: list[str] = _field("channelIds", _list)
    incident_channel_ids: list[str] = _field("incidentChannelIds", _list)
    incident_profile_id: str | None = _field("incidentProfileId")
    incident_visibility: str | None = _field("incidentVisibility")
    incident_creation_mode: str | None = _field("incidentCreationMode")
    incident_watch_keys: Any = _field("incidentWatchKeys")
    _repr_fields = ("id", "name", "frequency", "is_active")


class Channel(Model):
    """A notification channel (webhook or e-mail)."""

    __slots__ = ()
    id: str = _field("_id")
    type: str | None = _field("type")
    name: str | None = _field("name")
    webhook_url: str | None = _field("webhookURL")
    frequency: str | None = _field("frequency")
    email_addresses: list[str] = _field("emailAddresses", _list)
    utc_time: str | None = _field("utcTime")
    is_active: bool | None = _field("isActive")
    is_default: bool | None = _field("isDefault")
    ignore_time: bool | None = _field("ignoreTime")
    week_days: list[str] = _field("weekDays", _list)
    permissions: list[str] = _field("permissions", _list)
    description: str | None = _field("description")
    _repr_fields = ("id", "type", "name", "is_active")


class Incident(Model):
    """An incident: an observable tracked and scanned repeatedly."""

    __slots__ = ()
    id: str = _field("_id")
    observable: str | None = _field("observable")
    visibility: str | None = _field("visibility")
    channels: list[str] = _field("channels", _list)
    extra_path: str | None = _field("extraPath")
    scan_interval: int | None = _field("scanInterval", _int)
    scan_interval_mode: str | None = _field("scanIntervalMode")
    watched_attributes: list[str] = _field("watchedAttributes", _list)
    user_agents: list[str] = _field("userAgents", _list)
    user_agents_per_interval: int | None = _field("userAgentsPerInterval", _int)
    countries: list[str] = _field("countries", _list)
    countries_per_interval: int | None = _field("countriesPerInterval", _int)
    stop_delay_suspended: int | None = _field("stopDelaySuspended", _int)
    stop_delay_inactive: int | None = _field("stopDelayInactive", _int)
    stop_delay_malicious: int | None = _field("stopDelayMalicious", _int)
    scan_interval_after_suspended: int | None = _field("scanIntervalAfterSuspended", _int)
    scan_interval_after_malicious: int | None = _field("scanIntervalAfterMalicious", _int)
    incident_profile: str | None = _field("incidentProfile")
    created_at: datetime | None = _field("createdAt", _datetime)
    scanned_at: datetime | None = _field("scannedAt", _datetime)
    expire_at: datetime | None = _field("expireAt", _datetime)
    source_type: str | None = _field("sourceType")
    source_id: str | None = _field("sourceId")
    state: str | None = _field("state")
    state_size: int | None = _field("stateSize", _int)
    state_count: int | None = _field("stateCount", _int)
    owner: str | None = _field("owner")
    type: str | None = _field("type")
    labels: list[str] = _field("labels", _list)
    _repr_fields = ("id", "observable", "state", "state_count")


class IncidentObservation(Model):
    """What one incident state saw (``state.state``). The service documents only
    ``status``; the rest is what the emulator records (and None where absent).
    It also reads as a dict of wire keys: ``state.state["scanId"]``, ``"ip" in``,
    ``.get()``, ``.keys()``, ``dict(...)``."""

    __slots__ = ()
    status: str | None = _field("status")
    malicious: bool | None = _field("malicious")
    observable: str | None = _field("observable")
    url: str | None = _field("url")
    user_agent: str | None = _field("userAgent")
    country: str | None = _field("country")
    ip: str | None = _field("ip")
    title: str | None = _field("title")
    scan_id: str | None = _field("scanId")
    attributes: dict[str, Any] | None = _field("attributes")
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
    incident: str | None = _field("incident")
    state: IncidentObservation = _field("state", _model(IncidentObservation))
    time_start: datetime | None = _field("timeStart", _datetime)
    time_end: datetime | None = _field("timeEnd", _datetime)
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


class HostnameRecord(Model):
    """One hostname-history observation."""

    __slots__ = ()
    seen_on: date | None = _field("seen_on", _date)
    source: str | None = _field("source")
    sub_id: str | None = _field("sub_id")
    first_seen: datetime | None = _field("first_seen", _datetime)
    last_seen: datetime | None = _field("last_seen", _datetime)
    data_type: str | None = _field("data_type")
    data: dict[str, Any] | None = _field("data")
    _repr_fields = ("seen_on", "source", "sub_id")


class Brand(Model):
    """A brand tracked for phishing detection."""

    __slots__ = ()
    id: str | None = _field("_id")
    key: str | None = _field("key")
    name: str | None = _field("name")
    vertical: list[str] = _field("vertical", _list)
    country: list[str] = _field("country", _list)
    terms: dict[str, Any] | None = _field("terms")
    created_at: datetime | None = _field("createdAt", _datetime)
    _repr_fields = ("key", "name", "vertical")


class BrandSummary(Model):
    """A brand with detected phishing pages: total and latest hits."""

    __slots__ = ()
    brand: Brand = _field("brand", _model(Brand))
    total: int | None = _field("total", _int)
    hits: list[SearchHit] = _field("hits", _models(SearchHit))

    def __repr__(self) -> str:
        return f"BrandSummary(brand={self.brand.key!r}, total={self.total})"


class LiveScanner(Model):
    """A live scanning node."""

    __slots__ = ()
    id: str | None = _field("_id")
    name: str | None = _field("name")
    country: str | None = _field("country")
    city: str | None = _field("city")
    online: bool | None = _field("online")
    _repr_fields = ("id", "country", "city", "online")

    def __getattr__(self, name: str) -> Any:
        if name == "id" and "_id" not in self._raw:
            return self._read(name, "id")
        return super().__getattr__(name)


class DataDumpFile(Model):
    """A data-dump file listed for a time window, file type and day."""

    __slots__ = ()
    path: str = _field("path")
    size: int | None = _field("size", _int)
    timestamp: datetime | None = _field("timestamp", _datetime)


# ---------------------------------------------------------------- data sources and events


def _opt_list(v: Any) -> list[Any] | None:
    """A list; ``{}`` reads as an empty list; absent or anything else is unknown (None)."""
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return []
    return None


def _flat(obj: Model, names: Iterable[str]) -> dict[str, Any]:
    return {n: getattr(obj, n) for n in names}


class HostnameHit(Model):
    """A hit of ``search(datasource="hostnames")``: a hostname and when it was seen."""

    __slots__ = ()
    id: str = _field("_id")
    sort: list[Any] = _field("sort", _list)
    hostname: str | None = _field("hostname")
    domain: str | None = _field("domain")
    apex_domain: str | None = _field("apexDomain|apex_domain")
    date: datetime | None = _field("date", _datetime)
    first_seen: datetime | None = _field("first_seen|firstSeen", _datetime)
    last_seen: datetime | None = _field("last_seen|lastSeen", _datetime)
    sources: list[str] | None = _field("sources", _opt_list)
    _repr_fields = ("hostname", "domain", "first_seen", "last_seen")

    def to_record(self) -> dict[str, Any]:
        """A flat dict of the documented fields (no ``sort``)."""
        return _flat(self, ("id", "hostname", "domain", "apex_domain", "date", "first_seen", "last_seen", "sources"))


class IncidentHit(Incident):
    """A hit of ``search(datasource="incidents")``: an incident (every
    :class:`Incident` field) with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    date: datetime | None = _field("date", _datetime)
    _repr_fields = ("id", "observable", "state", "source_type")

    def to_record(self) -> dict[str, Any]:
        """A flat dict of the main fields (no ``sort``)."""
        return _flat(
            self,
            ("id", "date", "observable", "state", "source_type", "source_id", "visibility", "owner", "scanned_at", "expire_at"),
        )


class CertificateHit(Model):
    """A hit of ``search(datasource="certificates")``: a TLS certificate seen by scans."""

    __slots__ = ()
    id: str = _field("_id")
    sort: list[Any] = _field("sort", _list)
    date: datetime | None = _field("date", _datetime)
    domain: str | None = _field("domain")
    subject_name: str | None = _field("subjectName")
    issuer: str | None = _field("issuer")
    valid_from: datetime | None = _field("validFrom", _datetime)
    valid_to: datetime | None = _field("validTo", _datetime)
    hostnames: list[str] | None = _field("hostnames", _opt_list)
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    _repr_fields = ("domain", "issuer", "valid_to")

    def to_record(self) -> dict[str, Any]:
        """A flat dict of the documented fields (no ``sort``)."""
        names = ("id", "domain", "subject_name", "issuer", "valid_from", "valid_to", "hostnames", "first_seen", "last_seen")
        return _flat(self, names)


class DomainHit(Model):
    """A hit of ``search(datasource="domains")``: a domain that scans loaded as
    their page, how often and when it was scanned, and where its newest scan
    found it (``ip``, ``asn``, ``asnname``, ``country``; ``last_scan_id`` is
    that scan's uuid: ``client.result(hit.last_scan_id)``).

    The service's documents show no domain hit: these are the emulator's
    fields (see the README's data sources), read leniently like every model.
    """

    __slots__ = ()
    id: str = _field("_id")
    sort: list[Any] = _field("sort", _list)
    date: datetime | None = _field("date", _datetime)
    domain: str | None = _field("domain")
    apex_domain: str | None = _field("apexDomain|apex_domain")
    first_seen: datetime | None = _field("firstSeen|first_seen", _datetime)
    last_seen: datetime | None = _field("lastSeen|last_seen", _datetime)
    scan_count: int | None = _field("scanCount|scan_count", _int)
    last_scan_id: str | None = _field("lastScanId|last_scan_id")
    ip: str | None = _field("ip")
    asn: str | None = _field("asn")
    asnname: str | None = _field("asnname")
    country: str | None = _field("country")
    _repr_fields = ("domain", "scan_count", "last_seen")

    def to_record(self) -> dict[str, Any]:
        """A flat dict of the documented fields (no ``sort``)."""
        names = (
            "id",
            "domain",
            "apex_domain",
            "first_seen",
            "last_seen",
            "scan_count",
            "last_scan_id",
            "ip",
            "asn",
            "asnname",
            "country",
        )
        return _flat(self, names)


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


class Notification(Model):
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
    type: str | None = _field("type")
    created_at: datetime | None = _field("createdAt", _datetime)
    frequency: str | None = _field("frequency")
    subscription_id: str | None = _field("subscriptionId")
    subscription_name: str | None = _field("subscriptionName")
    search_ids: list[str] | None = _field("searchIds", _opt_list)
    incident_id: str | None = _field("incidentId")
    observable: str | None = _field("observable")
    changes: list[dict[str, Any]] | None = _field("changes", _opt_list)
    channel_id: str | None = _field("channelId")
    datasource: str | None = _field("datasource")

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
    _repr_fields = ("id", "type", "created_at", "total")

    def to_record(self) -> dict[str, Any]:
        """A flat dict: the main fields and the number of results."""
        names = ("id", "type", "created_at", "frequency", "subscription_id", "incident_id", "channel_id", "datasource", "total")
        return _flat(self, names)


class NotificationHit(Notification):
    """A hit of ``search(datasource="notifications")``: a :class:`Notification`
    with its ``sort`` values and ``date`` (its creation)."""

    __slots__ = ()
    sort: list[Any] = _field("sort", _list)
    date: datetime | None = _field("date", _datetime)
