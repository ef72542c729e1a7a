"""A Griffe extension for the API reference (mkdocs.yml loads it; not part of the package).

The docstrings are written once, in the ``.py`` modules, while the typed
signatures come from the ``.pyi`` stubs. Griffe merges the two, but a few
public names exist only in the stubs, or are inherited in the modules:

* ``Client`` and ``AsyncClient`` inherit their methods from ``_BaseClient``:
  their (stub) methods get ``_BaseClient``'s docstrings, and ``search``, which
  the stubs declare only as overloads, gets its most general signature.
* The ``Async*`` namespaces of ``AsyncClient`` exist only in the stubs: they get
  the docstrings of the namespaces of ``Client``.
* The fields of the models are read lazily from the wire JSON: each gets a
  docstring naming its wire field (from its declaration, ``_field("wire")``).
  A model shows the fields it inherits from a private base (which has no
  page of its own) as its own.

Then every docstring is made Markdown: Sphinx roles (``:class:`X```) become
cross-references (or code when the target is not documented), and doctest
blocks (``>>>``) become code blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|attr|exc|mod|data|obj):`(~?)([\w.]+)`")
_FIELD = re.compile(r"_field\('([^']*)'")
# The parser mkdocstrings gave the package's docstrings (read from the package's own).
_PARSER: dict[str, Any] = {}
# Modules where a bare name in a role is looked for, after the docstring's own scopes.
_SCOPES = ("urlscan_rs", "urlscan_rs.models", "urlscan_rs.errors", "urlscan_rs.testing", "urlscan_rs._namespaces")


def _set_doc(obj: griffe.Object, text: str, like: griffe.Docstring | None = None) -> None:
    """Give ``obj`` a docstring, parsed like ``like`` (or like the other docstrings of the package)."""
    parser = like.parser if like is not None else _PARSER.get("parser")
    options = like.parser_options if like is not None else _PARSER.get("options")
    obj.docstring = griffe.Docstring(
        text, lineno=obj.lineno, endlineno=obj.lineno, parent=obj, parser=parser, parser_options=options
    )


class UrlscanDocs(griffe.Extension):
    """Fills the stub-only and inherited members' docstrings, and makes docstrings Markdown."""

    def __init__(self) -> None:
        super().__init__()
        # stub class path -> method name -> its overloads (the stubs of Client and AsyncClient)
        self._overloads: dict[str, dict[str, list[griffe.Function]]] = {}
        # stub class path -> its members' names in source order, overloaded methods included
        self._order: dict[str, list[str]] = {}
        # stub method path -> the stub's parameters
        self._parameters: dict[str, griffe.Parameters] = {}

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        filepath = cls.filepath
        if isinstance(filepath, list) or filepath.suffix != ".pyi":
            return
        overloads = {name: list(fns) for name, fns in cls.overloads.items() if fns}
        self._overloads[cls.path] = overloads
        lines = {name: member.lineno or 0 for name, member in cls.members.items()}
        lines.update({name: fns[0].lineno or 0 for name, fns in overloads.items()})
        self._order[cls.path] = sorted(lines, key=lines.__getitem__)
        for name, member in cls.members.items():
            if isinstance(member, griffe.Function):
                self._parameters[f"{cls.path}.{name}"] = member.parameters

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "urlscan_rs":
            return
        if pkg.docstring is not None:
            _PARSER.update(parser=pkg.docstring.parser, options=pkg.docstring.parser_options)
        self._stub_parameters(pkg)
        self._clients(pkg)
        self._async_namespaces(pkg)
        self._model_fields(pkg)
        for obj in list(_walk(pkg)):
            if isinstance(obj, griffe.Class):
                _hide_private_bases(obj)
                _fold_attributes(obj)
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _markdown(obj.docstring.value, obj, pkg)

    # -- signatures: the stubs' parameters

    def _stub_parameters(self, pkg: griffe.Module) -> None:
        """Give each method the parameters of its stub.

        Griffe keeps a module's parameters and only takes their annotations from
        the stub, so ``create(**fields)`` would hide the keywords the stub lists.
        """
        for obj in _walk(pkg):
            if isinstance(obj, griffe.Function) and obj.path in self._parameters:
                obj.parameters = self._parameters[obj.path]

    # -- Client and AsyncClient: the methods of _BaseClient

    def _clients(self, pkg: griffe.Module) -> None:
        mod = pkg["_client"]
        base = mod["_BaseClient"]
        for name in ("Client", "AsyncClient"):
            cls = mod[name]
            for member_name, member in base.members.items():
                if member_name.startswith("_") and member_name != "__init__":
                    continue
                target = cls.members.get(member_name)
                if target is None:
                    overloads = self._overloads.get(cls.path, {}).get(member_name)
                    if not overloads:
                        continue
                    general = overloads[-1]  # the last overload takes every argument
                    target = griffe.Function(
                        member_name,
                        lineno=overloads[0].lineno,
                        endlineno=general.endlineno,
                        parameters=general.parameters,
                        returns=general.returns,
                        runtime=False,
                    )
                    cls.set_member(member_name, target)
                if not target.docstring and member.docstring:
                    _set_doc(target, member.docstring.value, member.docstring)
            # The members in the stub's order (the rendering keeps this order for an alias's members).
            order = {name: i for i, name in enumerate(self._order.get(cls.path, []))}
            members = sorted(cls.members.items(), key=lambda item: order.get(item[0], len(order)))
            cls.members.clear()
            cls.members.update(members)

    # -- the namespaces of AsyncClient, stub-only

    def _async_namespaces(self, pkg: griffe.Module) -> None:
        mod = pkg["_namespaces"]
        for name, cls in list(mod.members.items()):
            if not name.startswith("Async") or cls.is_alias or not cls.is_class:
                continue
            sync = mod.members.get(name[len("Async") :])
            if sync is None or sync.is_alias:
                continue
            if not cls.docstring:
                attr = _snake(sync.name)
                _set_doc(
                    cls,
                    f"``AsyncClient.{attr}``: the methods of :class:`{sync.name}`, each awaited"
                    + (" (``history`` is walked with ``async for``)." if sync.name == "Hostnames" else "."),
                )
            for member_name, member in cls.members.items():
                origin = sync.members.get(member_name)
                if origin is not None and not member.docstring and origin.docstring:
                    _set_doc(member, origin.docstring.value, origin.docstring)

    # -- model fields: the wire field each reads

    def _model_fields(self, pkg: griffe.Module) -> None:
        mod = pkg["models"]
        for cls in mod.classes.values():
            _inherit_private_fields(mod, cls)
            for attr in cls.members.values():
                wire = _wire(attr)
                if wire is None or attr.docstring:
                    continue
                first, _, alt = wire.partition("|")
                text = f"The wire field ``{first}``" + (f" (or ``{alt}``)." if alt else ".")
                _set_doc(attr, text)


def _hide_private_bases(cls: griffe.Class) -> None:
    """``Bases: _BaseClient`` says nothing to a reader: show public bases only."""
    cls.bases = _public_bases(cls)


def _public_bases(cls: griffe.Class) -> list[griffe.Expr | str]:
    """The class's public bases, a private base of its module standing for its own (``Model`` for ``_VerdictFields``)."""
    out: list[griffe.Expr | str] = []
    for base in cls.bases:
        if not str(base).rsplit(".", 1)[-1].startswith("_"):
            out.append(base)
            continue
        private = cls.module.members.get(str(base))
        if isinstance(private, griffe.Class):
            out.extend(_public_bases(private))
    return out


def _fold_attributes(cls: griffe.Class) -> None:
    """Document a class's plain attributes (fields) in one "Attributes:" table of its docstring.

    Each would otherwise get a heading of its own; properties keep theirs. A
    dataclass keeps its fields (its signature is built from them).
    """
    if "dataclass" in cls.labels:
        return
    fields = [
        m
        for name, m in cls.members.items()
        if not name.startswith("_") and isinstance(m, griffe.Attribute) and "property" not in m.labels and m.docstring
    ]
    if not fields or cls.docstring is None:
        return
    lines = ["", "Attributes:"]
    for m in fields:
        text = " ".join(m.docstring.value.split()) if m.docstring else ""
        kind = f" ({m.annotation})" if m.annotation is not None else ""
        lines.append(f"    {m.name}{kind}: {text}")
        del cls.members[m.name]
    cls.docstring.value = cls.docstring.value.rstrip() + "\n" + "\n".join(lines)


def _snake(name: str) -> str:
    return {"LiveScan": "livescan", "DataDumps": "datadumps"}.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _wire(attr: griffe.Object | griffe.Alias) -> str | None:
    """The wire path a model field is declared with (``x: T = _field("wire", ...)``), or None."""
    if not isinstance(attr, griffe.Attribute):
        return None
    m = _FIELD.match(str(attr.value))
    return m.group(1) if m else None


def _inherit_private_fields(mod: griffe.Module, cls: griffe.Class) -> None:
    """Give a model the fields of its private bases, first and in their order (its own replace them in place)."""
    fields: dict[str, griffe.Object | griffe.Alias] = {}
    for base in cls.bases:
        name = str(base)
        if name.startswith("_") and name in mod.members:
            for field_name, attr in mod[name].members.items():
                if isinstance(attr, griffe.Attribute) and _wire(attr) is not None:
                    fields[field_name] = _copy_attribute(attr)
    if not fields:
        return
    members = dict(cls.members)
    fields.update((name, members.pop(name)) for name in list(fields) if name in members)
    cls.members.clear()
    for name, member in {**fields, **members}.items():
        cls.set_member(name, member)


def _copy_attribute(attr: griffe.Attribute) -> griffe.Attribute:
    copy = griffe.Attribute(
        attr.name,
        value=attr.value,
        annotation=attr.annotation,
        lineno=attr.lineno,
        endlineno=attr.endlineno,
    )
    # An inherited field keeps the documentation declared with it.
    if attr.docstring:
        _set_doc(copy, attr.docstring.value, attr.docstring)
    return copy


def _walk(obj: griffe.Object) -> Iterator[griffe.Object]:
    """The object and its members, recursively (not what they import)."""
    yield obj
    for member in obj.members.values():
        if isinstance(member, griffe.Object):
            yield from _walk(member)


def _markdown(text: str, obj: griffe.Object, pkg: griffe.Module) -> str:
    text = _ROLE.sub(lambda m: _crossref(m.group(2), bool(m.group(1)), obj, pkg), text)
    text = re.sub(r"(?<=\S)::$", ":", text, flags=re.MULTILINE)  # reST "Example::" before a literal block
    return _fence_doctests(text)


def _crossref(name: str, short: bool, obj: griffe.Object, pkg: griffe.Module) -> str:
    shown = name.rsplit(".", 1)[-1] if short else name
    target = _resolve(name, obj, pkg)
    if target is None:
        return f"`{shown}`"
    return f"[`{shown}`][{target}]"


def _resolve(name: str, obj: griffe.Object, pkg: griffe.Module) -> str | None:
    """The documented path of ``name`` as seen from ``obj``'s docstring, or None."""
    candidates = []
    if name.startswith("urlscan_rs."):
        candidates.append(name)
    else:
        scope: griffe.Object | None = obj
        while scope is not None:
            candidates.append(f"{scope.path}.{name}")
            scope = scope.parent
        candidates.extend(f"{module}.{name}" for module in _SCOPES)
    for path in candidates:
        if not path.startswith("urlscan_rs."):
            continue
        try:
            found = pkg[path[len("urlscan_rs.") :]]
        except (KeyError, ValueError):
            continue
        if found.is_alias:
            try:
                return str(found.final_target.path)
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
        return str(found.path)
    return None


def _fence_doctests(text: str) -> str:
    """Put each doctest block (``>>>`` lines and what follows, up to a blank line) in a code fence."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)
