"""The arguments of the commands over saved results: ``runs`` (list, show, delete, export, prune, copy,
import), ``history`` (one benchmark's series), ``report`` (an HTML page or Markdown tables) and
``publish`` (a static dashboard of the whole history)."""

from __future__ import annotations

from typing import Any

from ..results import defaults as D
from ..render.words import LANGS, THEMES
from .parser_common import _common, _sub
from .parser_types import _at_least, _path


def _add_runs(sub: Any) -> None:
    """``measurefirst runs``."""
    r = _sub(sub, "runs", "list, show, delete, export, prune, copy or import saved runs",
             "The results history: list the latest saved runs (of one NAME, kind, machine, or since a date), "
             "show or export some by id, delete them, prune old ones (runs matching every rule given are "
             "deleted, then their space is given back; vacuum gives it back alone), or copy every run of one "
             "store into another (SQLite file or PostgreSQL URL, either way). show displays each kind of result "
             "with its own renderer. import brings another tool's history in (pytest-benchmark's .benchmarks folder "
             "or JSON files, pyperf's JSON): each benchmark saved under its name with its run's time and commit. "
             "Only import and copy create a store: otherwise a missing one is an error.")
    r.add_argument("action", nargs="?", choices=("list", "show", "delete", "export", "prune", "vacuum", "copy",
                                                    "import"),
                   default="list", help="list (default), show, delete, export, prune, vacuum, copy or import")
    r.add_argument("ids", nargs="*", help="run ids such as 12 or #12 (show, delete, export), a NAME (list), "
                                          "SRC DST (copy), or files and folders (import)")
    r.add_argument("-n", dest="limit", type=_at_least(1), default=D.RUNS_SHOWN, metavar="N",
                   help=f"list the latest N runs (default {D.RUNS_SHOWN})")
    r.add_argument("--all", action="store_true", help="list every run")
    r.add_argument("--name", default=None, help="list (or prune) only the runs of this name")
    r.add_argument("--kind", default=None,
                   help="list (or prune) only the runs of this kind (measurement, count, regression, ...)")
    r.add_argument("--machine", default=None, help="list (or prune) only the runs saved on this host name")
    r.add_argument("--since", default=None, metavar="WHEN",
                   help="list (or prune) only the runs created since WHEN: an age (7d, 12h, 90m) or a date "
                        "(2026-11-01)")
    r.add_argument("--keep-last", type=_at_least(0), default=None, metavar="K",
                   help="prune: delete the runs beyond the latest K of each name")
    r.add_argument("--older-than", default=None, metavar="AGE",
                   help="prune: delete the runs created before AGE ago (30d, 12h) or before a date")
    r.add_argument("--format", choices=("json", "csv", "markdown"), default="json",
                   help="export format (default json, with raw samples)")
    r.add_argument("--as", dest="import_as", default=None, metavar="NAME",
                   help="import: save each benchmark as NAME/<test node id>, as `pytest --mf --mf-save NAME` does, "
                        "so that `pytest --mf --mf-compare NAME` compares with it (default: under its test name)")
    _common(r, device=False, json=False, lang=True)


def _add_history(sub: Any) -> None:
    """``measurefirst history``."""
    h = _sub(sub, "history", "the saved series of one benchmark, with step changes flagged",
             "The latest saved runs of NAME (-n, --all), oldest first, with the change against the run before "
             "and the steps (changes beyond both CIs and 2%) flagged.")
    h.add_argument("name")
    h.add_argument("-n", dest="limit", type=_at_least(2), default=None, metavar="N",
                   help=f"the latest N runs (default {D.RUNS_SHOWN}; with --changes, every run)")
    h.add_argument("--all", action="store_true", help="every run")
    h.add_argument("--changes", action="store_true",
                   help="read the series whole: its segments with their levels, the change points between them "
                        "(commit, ratio, interval, p-value) and drifts; one outlier or a disturbed run is not a change")
    _common(h, device=False, output=True, lang=True)


def _add_publish(sub: Any) -> None:
    """``measurefirst publish``."""
    p = _sub(sub, "publish", "a static dashboard of the whole history: every benchmark, its series, its change points",
             "Writes a self-contained site (no network needed to view it) to FOLDER: index.html lists every benchmark "
             "on every machine with its latest value and the latest change point or drift of its whole series; a "
             "page per benchmark and machine shows its series (each run's interval, the segments' levels, the "
             "change points), its changes in words and its latest runs; the same pages in Chinese under zh/. From "
             "SQLite or PostgreSQL; no sample is read.")
    p.add_argument("-o", "--output", type=_path, required=True, metavar="FOLDER",
                   help="the folder to write the site into (made if missing; only the site's own files are replaced)")
    p.add_argument("--name", default=None, help="only this benchmark and the suite under it (NAME/...)")
    p.add_argument("--commit-url", default=None, metavar="TEMPLATE",
                   help="link each commit: a URL with {commit} in it, e.g. https://github.com/org/repo/commit/{commit}")
    p.add_argument("--title", default=None, help="the site's title")
    _common(p, device=False, json=False, lang=True)


def _add_report(sub: Any) -> None:
    """``measurefirst report``."""
    rp = _sub(sub, "report", "one self-contained HTML page of any results: plots, tables, findings (en/zh)",
              "Each TARGET is a results file (the JSON of --json or -o: measurements, comparisons, sweeps, "
              "profiles, steps, doctor), a saved run (#ID, @NAME, @NAME~K) or the name of a history in the "
              "store. The page needs no network: styles, script and SVG plots are inline.")
    rp.add_argument("targets", nargs="+", metavar="TARGET")
    rp.add_argument("-o", "--output", type=_path, required=True,
                    help="the file to write, e.g. report.html (or summary.md with --format markdown)")
    rp.add_argument("--format", choices=("html", "markdown"), default="html",
                    help="html: the page (default); markdown: the tables of pytest runs (--mf-json) and regression "
                         "checks, e.g. for $GITHUB_STEP_SUMMARY")
    rp.add_argument("--lang", choices=LANGS, default=LANGS[0], help="language of the page (default en)")
    rp.add_argument("--theme", choices=THEMES, default=THEMES[0],
                    help="auto follows the system (the page has a toggle); default auto")
    rp.add_argument("--title", default=None, help="the page's title")
    _common(rp, device=False, json=False)
