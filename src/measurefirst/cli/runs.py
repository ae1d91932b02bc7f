"""``measurefirst runs``: list, show, export, delete, prune, vacuum, copy or import saved runs. Parse is done
(:mod:`measurefirst.cli.parser`); this is the one library call and its emission, kept out of ``cli.py``
so that it stays thin."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from typing import TYPE_CHECKING, Any, Callable

from .emit import say as _say
from .emit import show as _show
from ..results.errors import UsageError
from .guard import EXIT_OK
from .guard import lang_of as _lang

if TYPE_CHECKING:  # pragma: no cover
    from ..results.store import Store

_AGO = re.compile(r"^(\d+(?:\.\d+)?)\s*([dhm])$")
_UNIT_S = {"d": 86400, "h": 3600, "m": 60}
#: The actions that take no run ids (list takes a NAME; copy takes SRC and DST; import paths).
_NO_IDS = ("list", "prune", "vacuum", "copy", "import")
#: The options of ``runs`` (their ``dest``, their flag, and the actions that read them). The actions share
#: one parser, so an option given to an action that does not read it is refused by name, never ignored
#: (issue 38: ``runs delete 3 --name a`` deleted run 3 of name ``b``; ``runs copy A B --name a`` copied all).
_OPTION_ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "limit": ("-n", ("list",)), "all": ("--all", ("list",)), "name": ("--name", ("list", "prune")),
    "kind": ("--kind", ("list", "prune")), "machine": ("--machine", ("list", "prune")),
    "since": ("--since", ("list", "prune")), "keep_last": ("--keep-last", ("prune",)),
    "older_than": ("--older-than", ("prune",)), "format": ("--format", ("export",)),
    "import_as": ("--as", ("import",)),
}


def _check_options(args: argparse.Namespace) -> None:
    """Every option given belongs to the action (:data:`_OPTION_ACTIONS`); UsageError naming it otherwise
    (an option at its default counts as not given)."""
    from ..results import defaults

    unset: dict[str, Any] = {"limit": defaults.RUNS_SHOWN, "all": False, "format": "json"}
    for dest, (flag, actions) in _OPTION_ACTIONS.items():
        if args.action in actions or not hasattr(args, dest):
            continue
        if getattr(args, dest) != unset.get(dest):
            users = " and ".join(f"runs {a}" for a in actions)
            raise UsageError(f"runs {args.action} does not take {flag} (it is an option of {users}); nothing was "
                             f"changed")


def _kind(text: str | None) -> str | None:
    """A ``--kind`` as the store keeps it: a kind's code (``measurement``, ``comparison``...) or the name
    ``runs list`` shows for it (``benchmark``, in English or Chinese); UsageError listing them otherwise (a
    kind no run can have would select nothing and say nothing)."""
    if text is None:
        return None
    from ..render.words import WORDS, word
    from ..results.protocol import KINDS

    wanted = text.strip()
    for kind in KINDS:
        shown = {word(f"kind_{kind}", lang) for lang in ("en", "zh")} if f"kind_{kind}" in WORDS else set()
        if wanted == kind or wanted in shown:
            return kind
    raise UsageError(f"--kind {text!r} is no kind of run; give one of {', '.join(KINDS)} "
                     f"(`benchmark` is measurement)")


def cmd_runs(args: argparse.Namespace) -> int:
    """``runs [list|show|export|delete|prune|vacuum|copy|import]``: only copy (its DST) and import create a
    store; every file import names is read (and any bad one refused) before anything is saved."""
    from ..results.loading import import_runs, imported_name, imported_runs
    from ..render.tables import imported_line, runs_table
    from ..render.views import Options, view
    from ..render.words import word
    from ..results.store import Store, parse_run_ids

    _check_options(args)
    args.kind = _kind(args.kind)
    if args.action == "list" and len(args.ids) > 1:
        raise UsageError("runs list takes at most one NAME")
    if args.action in ("prune", "vacuum") and args.ids:
        raise UsageError(f"runs {args.action} takes no run ids")
    if args.action == "copy":
        return _copy(args)
    if args.action == "import" and not args.ids:
        raise UsageError("runs import needs one or more paths: pytest-benchmark's .benchmarks folder, or its or "
                         "pyperf's JSON files")
    ids = [] if args.action in _NO_IDS else list(dict.fromkeys(parse_run_ids(args.ids)))  # `delete 4 4`: once
    if args.action not in _NO_IDS and not ids:
        raise UsageError(f"runs {args.action} needs one or more run ids (see `measurefirst runs`)")
    prefix = getattr(args, "import_as", None)
    if prefix is not None and (args.action != "import" or not prefix or "/" in prefix or prefix.startswith("@")):
        raise UsageError(f"--as takes a NAME without '/' or '@' (such as base), with runs import; got {prefix!r}")
    found = imported_runs(args.ids) if args.action == "import" else []
    with Store(args.store, create=bool(found)) as store:
        if found:
            names = [imported_name(m, prefix) for m, _ in found]
            _say(imported_line(store.path, found, names, *import_runs(store, found, prefix), prefix, _lang(args)))
        elif args.action == "list":
            _list(args, store, runs_table)
        elif args.action == "show":  # each kind with its own renderer
            for row, result in (store.resolve(f"#{i}") for i in ids):
                _show([word("run_header", _lang(args), id=row.id, name=row.name, kind=row.kind, created=row.created),
                       *view([result], Options(lang=_lang(args)))])
        elif args.action == "export":
            from ..render.export import export

            sys.stdout.write(export(store.iter_results(ids), args.format))
        elif args.action == "prune":
            older = None if args.older_than is None else cutoff(args.older_than, "--older-than")
            since = None if args.since is None else cutoff(args.since, "--since")
            n = store.prune(keep_last=args.keep_last, older_than=older, name=args.name,
                            kinds=None if args.kind is None else [args.kind], host=args.machine, since=since)
            store.vacuum()
            _say(word("pruned_runs", _lang(args), n=n, path=store.path))
            scope = [f"{flag} {value}" for flag, value in (("--name", args.name), ("--kind", args.kind),
                                                            ("--machine", args.machine), ("--since", args.since))
                     if value is not None]
            _say(word("pruned_scope" if scope else "pruned_all_names", _lang(args), filters=" ".join(scope)))
        elif args.action == "vacuum":
            store.vacuum()
            _say(word("store_vacuumed", _lang(args), path=store.path))
        else:
            for i in ids:  # every id checked before any is deleted: `delete 3 99` deletes nothing
                store.row(i)
            for i in ids:
                store.delete(i, must_exist=True)
                _say(word("deleted_run", _lang(args), id=i))
    return EXIT_OK


def cutoff(text: str, option: str, now: dt.datetime | None = None) -> str:
    """A point in time as the runs' ``created`` is written (ISO, UTC): an age such as ``30d``, ``12h`` or
    ``90m`` before ``now``, or an ISO date or time (``2026-11-01``, ``2026-11-01T12:00``, UTC unless it
    says otherwise). UsageError naming the forms otherwise."""
    now = now or dt.datetime.now(dt.timezone.utc)
    m = _AGO.match(text.strip().lower())
    if m:
        try:
            when = now - dt.timedelta(seconds=float(m.group(1)) * _UNIT_S[m.group(2)])
        except (OverflowError, ValueError):
            raise UsageError(f"{option} {text!r} reaches before the year 1; give a shorter age or a date") from None
    else:
        try:
            when = dt.datetime.fromisoformat(text.strip())
        except ValueError:
            raise UsageError(f"{option} takes an age such as 30d, 12h or 90m, or a date such as 2026-11-01; "
                             f"got {text!r}") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def _list(args: argparse.Namespace, store: "Store", runs_table: Callable[..., Any]) -> None:
    """The latest ``-n`` runs (or ``--all``) that match the filters, and whether there are more."""
    from ..render.words import word

    if args.ids and args.name and args.ids[0] != args.name:
        raise UsageError(f"give the name once: as NAME ({args.ids[0]!r}) or --name ({args.name!r})")
    name = args.ids[0] if args.ids else args.name
    kinds = None if args.kind is None else [args.kind]
    since = None if args.since is None else cutoff(args.since, "--since")
    limit = None if args.all else args.limit
    # one row more than shown tells whether there are more, without counting them all
    rows = store.list(name, kinds=kinds, host=args.machine, since=since, limit=None if limit is None else limit + 1)
    more = limit is not None and len(rows) > limit
    rows = rows[1:] if more else rows
    _show([runs_table(store.path, rows, _lang(args))])
    if more:
        _say(word("runs_shown", _lang(args), shown=len(rows)))


def _copy(args: argparse.Namespace) -> int:
    """Every run of SRC saved into DST (created when missing), each exactly as it is."""
    from ..render.words import word
    from ..results.store import Store

    if len(args.ids) != 2:
        raise UsageError("runs copy takes SRC and DST: two stores (files or postgresql:// URLs)")
    src, dst = args.ids
    with Store(src, create=False) as source:
        if source.same_as(dst):
            raise UsageError(f"runs copy: SRC and DST are the same store ({source.path}); give two stores")
        with Store(dst) as target:
            ids, held = source.copy_to(target)
            if ids:
                _say(word("copied_runs", _lang(args), n=len(ids), src=source.path, dst=target.path, first=ids[0],
                          last=ids[-1]))
            elif not held:
                _say(word("copied_none", _lang(args), src=source.path))
            if held:
                _say(word("copied_held", _lang(args), n=held, dst=target.path))
    return EXIT_OK
