"""Every code block of the README and the documentation site runs as written (tests/docs_blocks.py says
how each kind of block is run, and how a block that cannot run here is marked); the site builds with
``mkdocs build --strict``."""

from __future__ import annotations

import os
import re

import pytest

from docs_blocks import RUN_PY, RUN_SHELL, SHOWN, ROOT, blocks, build_site, commands, pages, prepare, run_command


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs(page, tmp_path, capsys):
    prepare(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for b in blocks(page):
        assert b.lang, f"{b.where}: label the fence (python, bash, text, ...)"
        assert b.lang in RUN_PY + RUN_SHELL + SHOWN, f"{b.where}: unknown fence label {b.lang!r}"
        if b.norun is not None or b.lang in SHOWN:
            continue
        if b.lang in RUN_PY:
            previous = os.getcwd()
            os.chdir(tmp_path)
            try:
                exec(compile(b.body, b.where, "exec"), namespace)
            finally:
                os.chdir(previous)
        else:
            for command in commands(b.body):
                code, out = run_command(command, tmp_path)
                assert code == 0, f"{b.where}: `{command}` exited {code}:\n{out[-3000:]}"
        ran += 1
    capsys.readouterr()


def test_every_block_is_accounted_for():
    """Each fence is run, shown as output, or marked with why it cannot run here; the counts are printed."""
    counts = {"python": 0, "shell": 0, "shown": 0, "norun": 0}
    reasons = []
    for page in pages():
        for b in blocks(page):
            if b.norun is not None:
                counts["norun"] += 1
                reasons.append(f"{b.where}: {b.norun}")
                assert len(b.norun) >= 8, f"{b.where}: say why the block cannot run"
            elif b.lang in RUN_PY:
                counts["python"] += 1
            elif b.lang in RUN_SHELL:
                counts["shell"] += 1
                assert all(c.split()[0] in ("measurefirst", "pytest") or "=" in c.split()[0]
                           for c in commands(b.body)), f"{b.where}: a command that cannot run here needs norun"
            else:
                counts["shown"] += 1
    print(counts, *reasons, sep="\n")
    assert counts["python"] >= 15 and counts["shell"] >= 15
    assert counts["norun"] < counts["python"] + counts["shell"]  # most blocks run


def test_every_translation_has_its_english_page_and_the_same_code():
    """Issue 37: a page in Chinese (``page.zh.md``) is the English page's translation: the English page
    exists, and every code block is the same (its comments and a ``--lang`` flag may speak Chinese), so
    that the English page's blocks, which run, test the Chinese page's too."""
    from docs_blocks import blocks, code_of, pages, translations

    pairs = translations()
    english = {p for p in pages()}
    missing = sorted(str(p.relative_to(ROOT)) for p in english if p not in {en for en, _ in pairs})
    assert not missing, f"pages in English only: {missing}"  # issue 37: every page in both languages
    for en, zh in pairs:
        assert en.is_file(), f"{zh.relative_to(ROOT)} has no English page {en.name}"
        assert [code_of(b) for b in blocks(zh)] == [code_of(b) for b in blocks(en)], zh.relative_to(ROOT)
        assert re.search(r"[\u4e00-\u9fff]", zh.read_text(encoding="utf-8")), f"{zh.name} holds no Chinese"


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the site needs mkdocs (pip install -r requirements-dev.txt)")
    pytest.importorskip("material", reason="the site needs mkdocs-material (pip install -r requirements-dev.txt)")
    site = build_site(tmp_path / "site")
    for page in ("index.html", "reference/cli/index.html", "reference/findings/index.html",
                 "reference/results/index.html", "reference/api/index.html", "tutorial/index.html"):
        assert (site / page).is_file(), page
        assert (site / "zh" / page).is_file(), f"zh/{page}"  # issue 37: every page on the Chinese site too
    # a translated page in Chinese, with the switch to its English page; a page not translated yet says so
    tutorial = (site / "zh/tutorial/index.html").read_text()
    assert "讲座：一步一步" in tutorial and 'hreflang="en"' in tutorial and "本页尚未翻译" not in tutorial
    # every page in both languages: no Chinese page falls back to the English text
    assert not [p for p in (site / "zh").rglob("*.html") if "本页尚未翻译" in p.read_text()]
    findings_zh = (site / "zh/reference/findings/index.html").read_text()
    assert "样本不稳定" in findings_zh and "修复方法" in findings_zh  # the generated catalogue in the page's language
    cli = (site / "reference/cli/index.html").read_text()
    assert "measurefirst collectives" in cli and "--fail-if-slower" in cli  # generated from the parser
    cli_zh = (site / "zh/reference/cli/index.html").read_text()  # the parser's help in the page's language
    assert "中位数的 95% 置信区间" in cli_zh and "中位数的 95% 置信区间" not in cli and "stop when the 95% CI" in cli
    assert "precision_not_met" in (site / "reference/findings/index.html").read_text()
    assert "pytest_run" in (site / "reference/results/index.html").read_text()
    # issue 37: the API by task, under the names users import; no Sphinx role shown raw, no file path as a heading
    api = (site / "reference/api/index.html").read_text()
    assert ">Measure<" in api and ">History and results<" in api and "src/measurefirst/" not in api
    assert "measurefirst.benchmark</code>" in api and ":class:" not in api and ":func:" not in api
    # the store's methods by concept in mixins (issue 39) are still on its entry
    assert all(f'id="measurefirst.results.store.Store.{m}"' in api for m in ("list", "latest", "save", "prune")), "Store"
    assert api.index("Clocks and simulators") < api.index("measurefirst.SimGPU")  # internals last
    assert "<strong>Parameters:</strong>" in api or "Parameters:" in api  # Args: read as parameters
    # a docstring's reference to an exported name is a link to its entry (issue 37: cross-references as links)
    links = re.findall(r'<a href="#(measurefirst\w+)"><code>', api)
    assert len(links) >= 10 and all(f'id="{anchor}"' in api for anchor in links), links


def test_the_api_reference_shows_every_export_once_under_a_task():
    import sys

    import measurefirst

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from mkdocs_hooks import API_TASKS
    finally:
        sys.path.pop(0)
    listed = [name for _, names in API_TASKS.values() for name in names]
    assert sorted(listed) == sorted(measurefirst._EXPORTS), set(listed) ^ set(measurefirst._EXPORTS)


def test_no_page_calls_not_done_what_the_readme_lists():
    """A page that says a feature is "not done yet" contradicts a README that lists it (issue 35)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8").replace("\\|", "|")
    listed = re.findall(r"`([^`]+)`", readme)
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"[Nn]ot done yet[^\n]*(?:\n(?!\n)[^\n]*)*", text):
            named = {n.strip() for n in re.findall(r"`([^`]+)`", m.group(0)) if len(n.strip()) >= 6}
            both = sorted(n for n in named if any(n in span for span in listed))
            assert not both, f"{page.relative_to(ROOT)} calls {both} not done; the README lists it"
