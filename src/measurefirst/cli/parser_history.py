"""The arguments of the commands over saved results: ``runs`` (list, show, delete, export, prune, copy,
import), ``history`` (one benchmark's series), ``report`` (an HTML page or Markdown tables) and
``publish`` (a static dashboard of the whole history)."""

from __future__ import annotations

from typing import Any

from ..results import defaults as D
from ..render.words import LANGS, THEMES
from .parser_common import _common, _h, _sub
from .parser_types import Once, _at_least, _history_name, _path


def _add_runs(sub: Any, lang: str) -> None:
    """``measurefirst runs``."""
    r = _sub(sub, "runs", lang)
    r.add_argument("action", nargs="?", choices=("list", "show", "delete", "export", "prune", "vacuum", "copy",
                                                    "import"),
                   default="list", help=_h(lang, "runs.action"))
    r.add_argument("ids", nargs="*", help=_h(lang, "runs.ids"))
    r.add_argument("-n", dest="limit", type=_at_least(1), default=D.RUNS_SHOWN, metavar="N",
                   help=_h(lang, "runs.limit", default=D.RUNS_SHOWN))
    r.add_argument("--all", action="store_true", help=_h(lang, "runs.all"))
    r.add_argument("--name", default=None, action=Once, help=_h(lang, "runs.name"))
    r.add_argument("--kind", default=None, action=Once, help=_h(lang, "runs.kind"))
    r.add_argument("--machine", default=None, action=Once, help=_h(lang, "runs.machine"))
    r.add_argument("--since", default=None, action=Once, metavar="WHEN", help=_h(lang, "runs.since"))
    r.add_argument("--keep-last", type=_at_least(0), default=None, action=Once, metavar="K",
                   help=_h(lang, "runs.keep_last"))
    r.add_argument("--older-than", default=None, action=Once, metavar="AGE", help=_h(lang, "runs.older_than"))
    r.add_argument("--format", choices=("json", "csv", "markdown"), default="json", help=_h(lang, "runs.format"))
    r.add_argument("--as", dest="import_as", default=None, metavar="NAME", help=_h(lang, "runs.as"))
    _common(r, device=False, json=False, lang=True)


def _add_history(sub: Any, lang: str) -> None:
    """``measurefirst history``."""
    h = _sub(sub, "history", lang)
    h.add_argument("name", type=_history_name)
    h.add_argument("-n", dest="limit", type=_at_least(2), default=None, metavar="N",
                   help=_h(lang, "history.limit", default=D.RUNS_SHOWN))
    h.add_argument("--all", action="store_true", help=_h(lang, "history.all"))
    h.add_argument("--changes", action="store_true", help=_h(lang, "history.changes"))
    _common(h, device=False, output=True, lang=True)


def _add_publish(sub: Any, lang: str) -> None:
    """``measurefirst publish``."""
    p = _sub(sub, "publish", lang)
    p.add_argument("-o", "--output", type=_path, required=True, metavar="FOLDER", help=_h(lang, "publish.output"))
    p.add_argument("--name", default=None, help=_h(lang, "publish.name"))
    p.add_argument("--commit-url", default=None, metavar="TEMPLATE",
                   help=_h(lang, "publish.commit_url", commit="{commit}"))
    p.add_argument("--title", default=None, help=_h(lang, "publish.title"))
    _common(p, device=False, json=False, lang=True)


def _add_report(sub: Any, lang: str) -> None:
    """``measurefirst report``."""
    rp = _sub(sub, "report", lang)
    rp.add_argument("targets", nargs="+", metavar="TARGET")
    rp.add_argument("-o", "--output", type=_path, required=True, help=_h(lang, "report.output"))
    rp.add_argument("--format", choices=("html", "markdown"), default=None, help=_h(lang, "report.format"))
    rp.add_argument("--lang", choices=LANGS, default=LANGS[0], help=_h(lang, "report.lang"))
    rp.add_argument("--theme", choices=THEMES, default=THEMES[0], help=_h(lang, "report.theme"))
    rp.add_argument("--title", default=None, help=_h(lang, "report.title"))
    _common(rp, device=False, json=False)
