"""``measurefirst runs``: list, show, export, delete or import saved runs. Parse is done
(:mod:`measurefirst.cli_parser`); this is the one library call and its emission, kept out of ``cli.py``
so that it stays thin."""

from __future__ import annotations

import argparse
import sys

from .emit import say as _say
from .emit import show as _show
from .errors import UsageError
from .guard import EXIT_OK
from .guard import lang_of as _lang


def cmd_runs(args: argparse.Namespace) -> int:
    """``runs [list|show|export|delete|import]``: only import creates a store; every file it names is read
    (and any bad one refused) before anything is saved."""
    from .loading import import_runs, imported_name, imported_runs
    from .render.tables import imported_line, runs_table
    from .render.views import Options, view
    from .render.words import word
    from .store import Store, parse_run_ids

    if args.action == "list" and len(args.ids) > 1:
        raise UsageError("runs list takes at most one NAME")
    if args.action == "import" and not args.ids:
        raise UsageError("runs import needs one or more paths: pytest-benchmark's .benchmarks folder, or its or "
                         "pyperf's JSON files")
    ids = [] if args.action in ("list", "import") else parse_run_ids(args.ids)
    if args.action not in ("list", "import") and not ids:
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
            _show([runs_table(store.path, store.list(args.ids[0] if args.ids else None), _lang(args))])
        elif args.action == "show":  # each kind with its own renderer
            for row, result in (store.resolve(f"#{i}") for i in ids):
                _show([word("run_header", _lang(args), id=row.id, name=row.name, kind=row.kind, created=row.created),
                       *view([result], Options(lang=_lang(args)))])
        elif args.action == "export":
            sys.stdout.write(store.export(ids, args.format))
        else:
            for i in ids:
                store.delete(i, must_exist=True)
                _say(word("deleted_run", _lang(args), id=i))
    return EXIT_OK
