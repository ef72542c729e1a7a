"""Clear messages for calls with a misspelt keyword or a value of the wrong type.

A public method's ``TypeError`` (Python's own for a bad keyword, or the native
core's for a value it cannot take) is explained again in terms of the method
the user called: ``Client.scan(): unexpected keyword 'visiblity'; did you mean
'visibility'?`` or ``Client.scan(): tags must be list[str] | None, got str
'triage'``. Nothing is checked on the way in, so a correct call costs one frame.
"""

from __future__ import annotations

import collections.abc as abc
import difflib
import functools
import inspect
import os
import types
import typing
from typing import Any, TypeVar, Union

from . import _native

_C = TypeVar("_C", bound=type)
_Coroutine = types.CoroutineType


def explained(cls: _C) -> _C:
    """Wrap the public methods of ``cls`` so their ``TypeError``s name the method and the fix."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            setattr(cls, name, _wrap(fn))
    return cls


def _wrap(fn: Any) -> Any:
    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            out = fn(self, *args, **kwargs)
        except TypeError as e:
            better = _explain(self, fn, args, kwargs)
            if better is None:
                raise
            raise better from e
        if type(out) is _Coroutine:
            return _awaited(out, self, fn, args, kwargs)
        return out

    return method


async def _awaited(coro: Any, owner: Any, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    # The async core converts its arguments when awaited, so its errors come here.
    try:
        return await coro
    except TypeError as e:
        better = _explain(owner, fn, args, kwargs)
        if better is None:
            raise
        raise better from e


def _public_name(owner: Any, fn: Any) -> str:
    return f"{type(owner).__name__}.{fn.__name__}"


def _explain(owner: Any, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError | None:
    """A clearer TypeError for this call, or None when the arguments look right."""
    where = _public_name(owner, fn)
    sig = inspect.signature(fn)
    forwarded = [p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    names = [p for p in sig.parameters if p != "self" and p not in forwarded]
    # Keywords passed on to the core as a scan's options are checked against its list of them.
    native_names = list(_native.NativeClient.SCAN_OPTIONS) if forwarded == ["scan_options"] else None
    try:
        bound = sig.bind(owner, *args, **kwargs)
    except TypeError as e:
        return TypeError(f"{where}(): {e}{_hint(str(e), kwargs, names)}")
    for key in kwargs:
        if key not in sig.parameters and native_names is not None and key not in native_names:
            known = names + [n for n in native_names if n not in names]
            return TypeError(f"{where}(): unexpected keyword {key!r}{_closest(key, known)}")
    hints = _hints(fn)
    for name, value in bound.arguments.items():
        if name == "self":
            continue
        param = sig.parameters[name]
        if param.kind is param.VAR_KEYWORD:
            continue
        hint = hints.get(name)
        if hint is not None and not _fits(value, hint):
            return TypeError(f"{where}(): {name} must be {_describe(hint)}, got {type(value).__name__} {_short(value)}")
    return None


def _hint(message: str, kwargs: dict[str, Any], names: list[str]) -> str:
    if "unexpected keyword" not in message:
        return ""
    wrong = [k for k in kwargs if k not in names]
    return _closest(wrong[0], names) if wrong else ""


def _closest(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else f" (keywords: {', '.join(names)})"


_HINTS: dict[Any, dict[str, Any]] = {}


def _hints(fn: Any) -> dict[str, Any]:
    if fn not in _HINTS:
        try:
            _HINTS[fn] = typing.get_type_hints(fn)
        except Exception:  # an annotation that cannot be evaluated: no type advice
            _HINTS[fn] = {}
    return _HINTS[fn]


def _fits(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            return False
        return not args or all(_fits(v, args[0]) for v in value)
    if origin in (abc.Iterable, abc.Sequence):
        # Not consumed here: a generator is taken on trust.
        if isinstance(value, (str, bytes)) or not isinstance(value, abc.Iterable):
            return False
        return not (args and isinstance(value, (list, tuple))) or all(_fits(v, args[0]) for v in value)
    if origin in (dict, abc.Mapping):
        return isinstance(value, abc.Mapping)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        return " | ".join(_describe(a) for a in args)
    if hint is type(None):
        return "None"
    if origin is not None:
        inner = ", ".join("..." if a is Ellipsis else _describe(a) for a in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]" if inner else getattr(origin, "__name__", str(origin))
    return getattr(hint, "__name__", str(hint))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def folder_arg(value: object, name: str) -> str | None:
    """A folder keyword (``record_to``, ``recordings``) as the native side takes it: its path as
    text (checked there), or None; another type is a TypeError naming the keyword."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a folder (str or os.PathLike) or None, got {type(value).__name__}")
    path = os.fspath(value)
    if not isinstance(path, str):
        raise TypeError(f"{name} must be a folder given as text, got {type(path).__name__}")
    return path
