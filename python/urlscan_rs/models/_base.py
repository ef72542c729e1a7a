"""The reading rules and the base of every model: converters, field declarations, ``Model``."""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import inspect
import json
import re
import sys
from collections.abc import Callable
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar, cast

from .. import _native
from .._native import LazyDoc
from ..errors import DecodeError, ValidationError

if TYPE_CHECKING:
    pass


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


def _date(v: Any) -> date | None:
    """YYYY-MM-DD -> date."""
    if isinstance(v, str) and len(v) >= 10:
        try:
            return date.fromisoformat(v[:10])
        except ValueError:
            return None
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
# Converters of their own that read an annotation's worth of types (``_brands``: "list[VerdictBrand | str]").
_CONVERTER_TYPES: dict[Callable[[Any], Any], str] = {}
# The package's model classes by name, for annotations that name one (``Model.__init_subclass__``).
_CLASSES: dict[str, type[Model]] = {}
_NUMBER = frozenset({int, float})
_JSON_KIND = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
# Converters that read more than their type (numeric strings, 0/1 booleans),
# and whose None for a present value means it could not be read.
_WIDENS: dict[Callable[[Any], Any], frozenset[type]] = {
    _int: frozenset({str}),
    _float: frozenset({str}),
    _flag: frozenset({int, float}),
}


MAX_NESTING = 200
"""The deepest a hand-built document may nest (objects and lists in one another), as the
native reader reads JSON text: what is deeper would meet Python's recursion limit wherever
it is copied, encoded or compared."""
# What nests (a dict given may hold tuples: JSON encoding reads them as lists).
_NESTS = frozenset({dict, list, tuple})


def _too_deep(obj: Any, limit: int = MAX_NESTING) -> bool:
    """Whether `obj` nests containers deeper than `limit` levels; read without recursion, so
    that any depth is answered."""
    stack = [(obj, 1)]
    pop, push, nests = stack.pop, stack.append, _NESTS
    while stack:
        o, depth = pop()
        for v in o.values() if isinstance(o, dict) else o:
            if type(v) in nests:
                if depth >= limit:
                    return True
                push((v, depth + 1))
    return False


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
    cls = _CLASSES.get(base)
    if cls is not None:
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
    if conv in _CONVERTER_TYPES:
        return _parse_annotation(_CONVERTER_TYPES[conv])
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
    known = conv is None or conv is _list or conv in _CONVERTER_TYPES or conv in _MODEL_OF or conv in _MODELS_OF
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
        if cls.__module__.startswith(__package__ + "."):
            _CLASSES.setdefault(cls.__name__, cls)
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
        if _too_deep(raw):
            raise ValidationError(
                f"{type(self).__name__}: the object is nested deeper than {MAX_NESTING} levels "
                "(JSON text is read to that depth too)"
            )
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


class _Tabled:
    """A model tables are made of: its row of the table schema (``urlscan_rs.schema.of``) as a dict."""

    __slots__ = ()

    def to_record(self) -> dict[str, Any]:
        """A flat dict of this model's table columns (``urlscan_rs.schema.of(self)``): the row
        ``to_arrow()`` makes of it, decoded by the same code (missing is None)."""
        from .. import schema

        return _native.records(schema.of(self).name, [self])[0]
