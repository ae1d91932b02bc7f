"""MkDocs hooks for the documentation site (named in mkdocs.yml; run by ``mkdocs build``).

- README.md is the landing page: it goes in as ``index.md`` (README.zh.md as ``index.zh.md``, the Chinese
  site's), its ``docs/`` links made relative to the site.
- Every page under docs/ that the nav does not name is listed under "More", so a new page always builds
  into the site and can be found.
- ``<!-- generated: NAME -->`` in a page is replaced by a table generated from the code at build time:
  ``cli`` (every command and option, from the argparse parser), ``findings`` (the findings catalogue
  with its English words), ``kinds`` (every result kind of ``measurefirst.results.protocol.KINDS``) and ``api``
  (mkdocstrings' directive for every name the package exports), so the reference cannot fall behind
  the code.
"""

from __future__ import annotations

import argparse
import importlib
import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- generated: (\w+) -->")


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _nav_pages(nav: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(nav, str):
        found.add(nav)
    elif isinstance(nav, dict):
        for value in nav.values():
            found |= _nav_pages(value)
    elif isinstance(nav, list):
        for item in nav:
            found |= _nav_pages(item)
    return found


def on_config(config: Any) -> Any:
    docs = Path(config["docs_dir"])
    write_landing_pages(docs)
    named = _nav_pages(config["nav"])
    more = [{p.stem.replace("-", " ").capitalize(): p.relative_to(docs).as_posix()}
            for p in sorted(docs.rglob("*.md")) if p.relative_to(docs).as_posix() not in named
            and not p.name.endswith(".zh.md")]  # a translation is the same page in the other language
    if more:
        config["nav"].append({"More": more})
    return config


def write_landing_pages(docs: Path) -> None:
    """The landing page in each language, ``docs/index.md`` from README.md and ``docs/index.zh.md`` from
    README.zh.md (their ``docs/`` links made relative to the site), written as files before MkDocs collects
    the pages, so that the i18n plugin pairs them like any other page (both are ignored by git; a file is
    rewritten only when its text changes, so ``mkdocs serve`` does not loop)."""
    for source, target, other in (("README.md", "index.md", "index.zh.md"), ("README.zh.md", "index.zh.md", "index.md")):
        if not (ROOT / source).exists():
            continue
        text = (ROOT / source).read_text(encoding="utf-8").replace("](docs/", "](")
        text = text.replace("](README.md)", f"]({other})").replace("](README.zh.md)", f"]({other})")
        path = docs / target
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def page_lang(page: Any) -> str:
    """``zh`` for a page of the Chinese site (``page.zh.md``, or a page the i18n plugin serves under ``zh/``),
    else ``en``."""
    src = str(getattr(page.file, "src_uri", "") or "")
    url = str(getattr(page.file, "url", "") or "")
    return "zh" if src.endswith(".zh.md") or url.startswith("zh/") else "en"


ZH_LINK = re.compile(r"\]\((?P<target>[^()\s#]+)\.zh\.md(?P<anchor>#[^()\s]*)?\)")


def zh_links(markdown: str, page: Any) -> str:
    """On an English page, a link to a Chinese page (``index.zh.md``) as the URL of that page on the Chinese
    site, relative to this page (the i18n plugin localizes links between pages of one language only)."""
    src_dir = posixpath.dirname(str(page.file.src_uri))
    here = posixpath.dirname(str(page.file.url).rstrip("/") + "/x") if page.file.url else ""

    def url(m: "re.Match[str]") -> str:
        target = posixpath.normpath(posixpath.join(src_dir, m.group("target")))
        folder = "zh/" + (posixpath.dirname(target) if posixpath.basename(target) == "index" else target)
        rel = posixpath.relpath(folder.rstrip("/") or ".", here or ".")
        return f"]({rel}/{m.group('anchor') or ''})"

    return ZH_LINK.sub(url, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    lang = page_lang(page)
    if lang == "en":
        markdown = zh_links(markdown, page)
    if lang == "zh" and not str(page.file.src_uri).endswith(".zh.md"):
        # a page not translated yet, shown on the Chinese site in English: it says so first
        markdown = "!!! note \"本页尚未翻译\"\n    本页暂时只有英文版，下面是英文原文。\n\n" + markdown
    return MARKER.sub(lambda m: GENERATORS[m.group(1)](lang) if m.group(1) in ("findings", "cli")
                      else GENERATORS[m.group(1)](), markdown)


HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[a-z-]+">')


def on_post_page(output: str, page: Any, config: Any) -> str:
    """The head's ``<link rel="alternate" hreflang>`` tags taken out: Material's script fetches
    ``sitemap.xml`` beside each one, and with a link per page (the i18n plugin's) that is a 404 on every
    page (``zh/tutorial/sitemap.xml``); the header's language switch links each page to its translation."""
    return HEAD_ALTERNATE.sub("", output)


# ---- the generated reference ---------------------------------------------------------------------
def cli_reference(lang: str = "en") -> str:
    """Every command with its description, usage, options (default, help) and examples, in ``lang`` (the
    parser's help in that language: ``measurefirst --lang zh COMMAND --help``)."""
    from measurefirst.cli.commands import build_parser

    parser = build_parser(lang)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    head = "| 选项 | 默认值 | 作用 |" if lang == "zh" else "| option | default | what it does |"
    out: list[str] = []
    for name, command in sub.choices.items():
        out += [f"## `measurefirst {name}`", "", _cell(command.description or ""), "", "```text",
                command.format_usage().strip(), "```", "", head, "| --- | --- | --- |"]
        for action in command._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            flags = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.metavar or action.dest}`"
            default = action.default
            shown = "" if default in (None, False, [], argparse.SUPPRESS) or not action.option_strings \
                else f"`{default}`"
            if action.choices:
                flags += " (" + " \\| ".join(f"`{c}`" for c in action.choices) + ")"
            out.append(f"| {flags} | {shown} | {_cell((action.help or '').replace('%%', '%'))} |")
        if command.epilog:
            out += ["", "示例：" if lang == "zh" else "Examples:", "", "```text", command.epilog.strip(), "```"]
        out.append("")
    return "\n".join(out)


def _part(code: str, part: str, lang: str = "en") -> str:
    """A finding's part in ``lang``, or nothing where the catalogue has none."""
    from measurefirst.render.findings import FINDING_WORDS
    from measurefirst.render.words import text

    key = f"{code}.{part}"
    return text(FINDING_WORDS, key, lang) if key in FINDING_WORDS else ""


def findings_reference(lang: str = "en") -> str:
    """The catalogue: code, severity, what produces it, threshold, and the words in ``lang``."""
    from measurefirst.results.findings import CATALOGUE

    head = ("| 代码 | 严重程度 | 来源 | 阈值 | 标题 | 为什么重要 | 修复方法 |" if lang == "zh"
            else "| code | severity | from | threshold | title | why it matters | fix |")
    out = [head, "| --- | --- | --- | --- | --- | --- | --- |"]
    for code, entry in CATALOGUE.items():
        if entry.threshold is not None:
            threshold = f"`{entry.threshold_name}` = {entry.threshold:g} ({entry.unit})"
        else:
            threshold = f"`{entry.threshold_name}`" if entry.threshold_name else ""
        out.append(f"| `{code}` | {entry.severity} | {entry.source} | {threshold} | {_cell(_part(code, 'title', lang))} "
                   f"| {_cell(_part(code, 'why', lang))} | {_cell(_part(code, 'fix', lang))} |")
    return "\n".join(out)


def kinds_reference() -> str:
    """Every result kind, the class that holds it, its schema version and its docstring's first line."""
    from measurefirst.results import protocol

    out = ["| kind | class | what it holds |", "| --- | --- | --- |"]
    for kind, where in protocol.KINDS.items():
        module, name = where.split(":")
        cls = getattr(importlib.import_module(f"measurefirst.{module}"), name)
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        out.append(f"| `{kind}` | `measurefirst.{module}.{name}` | {_cell(doc)} |")
    return "\n".join(out)


#: The public API by task, each name under the task users reach for it with (every name the package exports,
#: once: tests/test_docs.py checks it); the last group holds what tests and tools use, not measuring code.
API_TASKS: dict[str, tuple[str, list[str]]] = {
    "Measure": ("Time one function correctly, and what the result holds.",
                ["benchmark", "Measurement", "Options", "BenchmarkError", "Interrupted", "Count", "CountError",
                 "Finding", "finding_text"]),
    "Compare": ("Two or more functions interleaved, with a verdict; two saved results, with a regression check.",
                ["compare", "Comparison", "Verdict", "change", "check_regression", "Change", "Regression",
                 "COUNT_THRESHOLD"]),
    "Sweep": ("Time against size: the fitted cost model, FLOP/s and bytes/s, the machine's peaks, the plots.",
              ["sweep", "SweepResult", "peaks", "Peaks", "plot_all", "plot_time", "plot_throughput", "plot_roofline",
               "grid_table"]),
    "Profile": ("Where the time goes, op by op and kernel by kernel.",
                ["profile", "profile_compare", "Profile", "ProfileDiff", "ProfileError", "range", "decode_kernel"]),
    "Training steps and ranks": ("A model's step by phase, several variants compared, and audits of a benchmark.",
                                 ["benchmark_step", "compare_steps", "benchmark_ranged_step", "StepResult",
                                  "StepComparison", "RangedStepResult", "doctor", "Diagnosis"]),
    "History and results": ("Saved runs, their series and change points, results read back and reported.",
                            ["Store", "StoreError", "load_history", "History", "find_changes", "ChangeAnalysis",
                             "load", "load_result", "LoadError", "Result", "report", "SCHEMA_VERSION"]),
    "The machine": ("Devices, noise profiles and the checks of a machine.",
                    ["available_devices", "resolve_device", "DeviceError", "dtype_name", "noise_profile",
                     "load_profile", "NoiseProfile", "selfcheck", "SelfCheck"]),
    "Notebooks": ("`%load_ext measurefirst` (the `%mf` magics).", ["load_ipython_extension"]),
    "Clocks and simulators (for tests and tools)": (
        "The timers the engine reads, and the seeded simulated clock and GPU that tests inject.",
        ["Timer", "Reading", "WallTimer", "CudaEventTimer", "MpsEventTimer", "SimWorld", "SimGPU", "FaultyTimer"]),
}


def api_reference() -> str:
    """mkdocstrings' directive for every name ``measurefirst`` exports, under the task it serves
    (:data:`API_TASKS`), each shown by the name users import (``measurefirst.benchmark``)."""
    import measurefirst

    out: list[str] = []
    for task, (what, names) in API_TASKS.items():
        out += [f"## {task}", "", what, ""]
        for name in names:
            module = measurefirst._EXPORTS[name]
            out += [f"### `measurefirst.{name}`", "", f"`from measurefirst import {name}`", "",
                    f"::: measurefirst.{module}.{name}", "    options:", "      show_root_heading: false",
                    "      heading_level: 4", *(["      inherited_members: true"] if name in MIXED_IN else []), ""]
    return "\n".join(out)


#: Classes whose methods live in mixins by concept (the store: its queries, its SQLite file; issue 39): the
#: reference shows their inherited methods too.
MIXED_IN = {"Store"}


#: Sphinx roles in docstrings (``:class:`Store` ``, ``:func:`~measurefirst.tools.compare.compare` ``), which the
#: site shows as the code they name (``~``: the last part alone, as Sphinx shows it).
ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj|const):<code>(~?)([^<]*)</code>")


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Docstrings' Sphinx roles read as code, not as ``:class:`` before it; on the API reference, a role
    that names something the package exports (``:class:`~measurefirst.results.kinds.Measurement` ``,
    ``:meth:`Store.save` ``) is a link to that name's entry on the page."""
    import measurefirst

    on_api = str(page.file.src_uri).removesuffix(".zh.md").removesuffix(".md") == "reference/api"

    def shown(m: "re.Match[str]") -> str:
        target = m.group(2)
        code = f"<code>{target.rsplit('.', 1)[-1] if m.group(1) else target}</code>"
        exported = next((part for part in target.split(".") if part in measurefirst._EXPORTS), None)
        if not on_api or exported is None:
            return code
        return f'<a href="#measurefirst{exported.lower()}">{code}</a>'

    return ROLE.sub(shown, html)


GENERATORS = {"cli": cli_reference, "findings": findings_reference, "kinds": kinds_reference, "api": api_reference}
