"""The argument parser class, the argument types, and the option groups several commands share."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from .. import _native
from ._output import EXIT_USAGE

_KEYLIKE = re.compile(r"[A-Za-z0-9_-]+")


class _Parser(argparse.ArgumentParser):
    """Unknown options are reported by the (sub)command they were given to, with its usage and
    the closest known option; an invalid choice names the closest valid one. An unknown option
    before the command (``urlscan-rs --api-kye KEY scan``) is reported as such, with the closest
    option of this parser or of the command, not as the next word being no command."""

    _given: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        self._check_before_command()
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, extras

    def _check_before_command(self) -> None:
        """An unknown ``--option`` given before this parser's command: its error, with the
        closest option of this parser, else of the command named after it."""
        commands = _commands(self)
        if not commands:
            return
        known = [s for action in self._actions for s in action.option_strings]
        valued = {s for action in self._actions if action.nargs != 0 for s in action.option_strings}
        unknown: str | None = None
        i = 0
        while i < len(self._given):
            arg = self._given[i]
            if arg == "--" or arg in commands:
                break
            flag, eq, _ = arg.partition("=")
            if flag.startswith("--") and len(flag) > 2:
                owned = [k for k in known if k.startswith(flag)]
                if not owned:
                    unknown = unknown or flag
                elif not eq and len(owned) == 1 and owned[0] in valued:
                    i += 1  # its value, whatever it looks like
            i += 1
        if unknown is None:
            return
        hint = _closest(unknown, known)
        if i < len(self._given) and self._given[i] in commands:
            # The closest of this parser's options and the command's: the command's when closer.
            leaf = _leaf(commands, self._given[i:])
            theirs = [s for action in leaf._actions for s in action.option_strings if s not in known]
            close = _closest(unknown, [*known, *theirs])
            if close is not None and close in theirs:
                hint = f"{close} (an option of `{leaf.prog}`: give it after the command)"
        self.error(f"unrecognized arguments: {unknown}" + (f"; did you mean {hint}?" if hint else ""))

    def _typo_hint(self) -> str:
        """'; did you mean --x?' for the first unknown option given to this parser."""
        known = [s for action in self._actions for s in action.option_strings]
        for arg in self._given:
            if arg == "--":
                break
            flag = arg.split("=", 1)[0]
            if flag.startswith("--") and not any(k.startswith(flag) for k in known):
                close = _closest(flag, known)
                if close:
                    return f"; did you mean {close}?"
        return ""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as e:
            choices = [str(c) for c in action.choices or ()]
            close = difflib.get_close_matches(str(value), choices, n=1)
            if close and "did you mean" not in str(e):
                raise argparse.ArgumentError(action, f"{e.message}; did you mean {close[0]!r}?") from None
            raise

    def _hidden(self, message: str) -> str:
        """`message` without any value given that could be an API key: the value of an option
        whose name starts like --api-key (misspelt ones too), and any long token of key
        characters that is not an option (a key given where argparse expected something else)."""
        secret: set[str] = set()
        given = list(self._given)
        for i, arg in enumerate(given):
            flag, eq, value = arg.partition("=")
            if flag.lower().lstrip("-").startswith(("api", "key")) and flag.startswith("--"):
                if eq:
                    secret.add(value)
                elif i + 1 < len(given):
                    secret.add(given[i + 1])
            # Not an option's name: those are the parser's, never a key.
            if len(arg) >= 16 and not arg.startswith("-") and _KEYLIKE.fullmatch(arg):
                secret.add(arg)
        values = sorted((v for v in secret if v), key=len, reverse=True)
        if not values:
            return message
        # Whole words only: a short value ("k") must not be cut out of the option names shown.
        words = "|".join(re.escape(v) for v in values)
        return re.sub(rf"(?<![A-Za-z0-9_-])(?:{words})(?![A-Za-z0-9_-])", "<hidden: could be an API key>", message)

    def error(self, message: str) -> NoReturn:
        if message.startswith(("unrecognized arguments", "the following arguments are required")) and (
            "did you mean" not in message
        ):
            message += self._typo_hint()
        message = self._hidden(message)
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _commands(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands of a parser (its sub-parsers by name), or none."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _leaf(commands: dict[str, argparse.ArgumentParser], words: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the command the words name (``incident create``), as deep as they go."""
    leaf = commands[words[0]]
    for word in words[1:]:
        below = _commands(leaf)
        if word not in below:
            break
        leaf = below[word]
    return leaf


def _closest(flag: str, known: Sequence[str]) -> str | None:
    """The long option closest to `flag`, compared without their dashes (which every one shares)."""
    names = {k[2:]: k for k in known if k.startswith("--")}
    close = difflib.get_close_matches(flag.lstrip("-"), list(names), n=1, cutoff=0.6)
    return names[close[0]] if close else None


_N = TypeVar("_N", int, float)


def _number(text: str, kind: Callable[[str], _N], expected: str) -> _N:
    """`text` read by `kind` (int or float), or an argparse error saying what was expected."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def _int_or_auto(text: str) -> int | str:
    return "auto" if text == "auto" else _positive_int(text)


def _positive_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = _number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {value}")
    return value


def _http_url(text: str) -> str:
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"must be an http:// or https:// URL, got {text!r}")
    return text


def _seconds(text: str) -> float:
    value = _number(text, float, "seconds")
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _add_global_options(p: argparse.ArgumentParser, *, suppress: bool) -> None:
    """The connection and output options; on sub-commands they only override when given."""
    group = p.add_argument_group("global options" + (" (also accepted before the command)" if suppress else ""))

    def d(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    group.add_argument(
        "--api-key", metavar="KEY", default=d(None), help="API key (default: $URLSCAN_API_KEY, else the system keyring)"
    )
    group.add_argument(
        "--base-url", metavar="URL", default=d(None), help="service address (default: $URLSCAN_BASE_URL or https://urlscan.io)"
    )
    group.add_argument("--json", action="store_true", default=d(False), help="print one JSON object per line")
    group.add_argument(
        "--timeout", metavar="SECONDS", type=_positive_seconds, default=d(30.0), help="timeout of each request (default: 30)"
    )


def _add_wait_options(p: argparse.ArgumentParser) -> None:
    # The defaults are the core's, as the client's are.
    waits = _native.WAIT_DEFAULTS
    for flag, default, kind, what in (
        ("--wait-timeout", waits["timeout"], _positive_seconds, "give up waiting after"),
        ("--initial-wait", waits["initial_wait"], _seconds, "wait before the first poll"),
        ("--interval", waits["interval"], _positive_seconds, "between polls"),
    ):
        p.add_argument(flag, metavar="SECONDS", type=kind, default=default, help=f"{what} (default: {default:g})")


def _add_paging_options(p: argparse.ArgumentParser, *, cursor: bool = True) -> None:
    how_many = p.add_mutually_exclusive_group()
    how_many.add_argument("--limit", type=_positive_int, default=100, metavar="N", help="at most N hits (default: 100)")
    how_many.add_argument("--all", action="store_true", help="every hit (no limit)")
    how_many.add_argument("--count", action="store_true", help="print only the number of hits (one request of size 0)")
    p.add_argument("--size", type=_positive_int, metavar="N", help="hits per request (default: up to the key's most)")
    p.add_argument(
        "--format",
        choices=("jsonl", "csv", "parquet"),
        help="write the hits as JSON lines (as the service sent them), CSV or Parquet (the flat schema's columns; "
        "see urlscan_rs.schema), streamed as pages come",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (Parquet needs one)")
    if cursor:
        p.add_argument(
            "--search-after",
            metavar="CURSOR",
            help="resume after this cursor (an earlier search prints it on stderr when it stops at --limit)",
        )
