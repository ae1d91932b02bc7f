"""``measurefirst publish -o FOLDER``: the dashboard of a results store written as a static site
(:mod:`measurefirst.render.publish`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..results.errors import UsageError
from .emit import say
from .guard import EXIT_OK


def check_template(template: str | None) -> None:
    """A commit URL template: an http(s) URL with ``{commit}`` in it."""
    if template is None:
        return
    if "{commit}" not in template or not template.startswith(("https://", "http://")):
        raise UsageError(f"--commit-url takes an http(s) URL with {{commit}} where the commit id goes, e.g. "
                         f"https://github.com/org/repo/commit/{{commit}}; got {template!r}")


def run(args: argparse.Namespace) -> int:
    from ..render.publish import site
    from ..render.words import word
    from ..results.history import load_series
    from ..results.safeio import write_atomic
    from ..results.store import Store

    check_template(args.commit_url)
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"-o {folder}: is a file; publish writes a site into a folder (give a folder's path)")
    with Store(args.store, create=False) as store:
        series = load_series(store, args.name)
        where = store.path
    if not series:
        raise UsageError(f"nothing to publish: no benchmark with runs{f' named {args.name!r}' if args.name else ''} "
                         f"in {where}")
    pages = site(series, commit_url=args.commit_url, title=args.title)
    for rel, html in pages.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, html, "page")
    say(word("published", args.lang or "en", pages=len(pages), n=len(series), folder=folder, index=folder / "index.html"))
    return EXIT_OK
