"""The dashboard (issue 36): ``measurefirst publish -o site/`` on a store of runs of several benchmarks
and machines; the pages' structure, then in a real browser (headless Chromium, no console error, no
request but the page itself)."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import pytest

from measurefirst.cli.commands import main


def _store(tmp_path: Path) -> Path:
    """Two benchmarks; ``mm`` on two machines, 10% slower from its 20th run on machine a."""
    from measurefirst.results.importers import from_pytest_benchmark
    from measurefirst.results.store import Store

    rng = random.Random(3)
    path = tmp_path / "h.db"
    with Store(path) as st:
        for host in ("a", "b"):
            for name, base in (("mm", 1e-3), ("<script>alert(1)</script>", 5e-6)):
                if host == "b" and name != "mm":
                    continue
                for i in range(32):
                    v = base * math.exp(rng.gauss(0, 0.01)) * (1.1 if host == "a" and name == "mm" and i >= 20 else 1)
                    q = v * 0.005
                    data = {"machine_info": {"node": host}, "commit_info": {"id": f"{i:04d}" + "e" * 36, "dirty": False},
                            "datetime": f"2026-11-{1 + i % 28:02d}T00:00:00", "version": "4.0.0",
                            "benchmarks": [{"name": "t", "fullname": "t.py::t", "group": None, "params": None,
                                            "stats": {"min": v - 4 * q, "max": v + 4 * q, "mean": v, "stddev": q,
                                                      "rounds": 50, "median": v, "iqr": 2 * q, "q1": v - q, "q3": v + q,
                                                      "iqr_outliers": 0, "stddev_outliers": 0, "outliers": "0;0",
                                                      "ld15iqr": v - 3 * q, "hd15iqr": v + 3 * q, "ops": 1 / v,
                                                      "total": 50 * v, "iterations": 1}}]}
                    m = from_pytest_benchmark(data)[0]
                    st.save(m, name, commit=data["commit_info"]["id"])
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("publish")
    store = _store(d)
    out = d / "site"
    assert main(["publish", "-o", str(out), "--store", str(store), "--commit-url",
                 "https://github.com/org/repo/commit/{commit}"]) == 0
    return out


def test_the_site_holds_every_series_in_both_languages_and_links_them(site):
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert len(pages) == 2 * (1 + 3)  # an index and a page per series (mm on a, mm on b, the other on a), en + zh
    index = (site / "index.html").read_text()
    assert "3 benchmark series" in index
    links = re.findall(r'href="(b/[^"]+)"', index)
    assert len(links) == 3 and all((site / link).is_file() for link in links)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index and "<script>alert" not in index  # a name is data
    mm_a = next(link for link in links if "mm_a-" in link)
    page = (site / mm_a).read_text()
    assert "▲ change at" in page and "1.1" in page
    assert 'href="https://github.com/org/repo/commit/0020eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"' in page
    mm_b = (site / next(link for link in links if "mm_b-" in link)).read_text()
    assert "change at" not in mm_b  # machines apart: b never changed
    zh = (site / "zh" / "index.html").read_text()
    assert "3 个基准序列" in zh and 'href="../index.html"' in zh and 'href="zh/index.html"' in index
    assert 'href="../../' + mm_a + '"' in (site / "zh" / mm_a).read_text()  # the switch back to English
    for p in site.rglob("*.html"):  # self-contained: nothing fetched
        text = p.read_text()
        assert not re.search(r'(src|href)="(https?:)?//(?!github.com/org/repo/commit/)', text), p


def test_a_second_publish_replaces_its_own_pages_and_keeps_other_files(site, tmp_path):
    (site / "CNAME").write_text("perf.example.org\n")
    store = _store(tmp_path)
    assert main(["publish", "-o", str(site), "--store", str(store), "--name", "mm"]) == 0
    assert (site / "CNAME").read_text() == "perf.example.org\n"
    assert "2 benchmark series" in (site / "index.html").read_text()


@pytest.mark.browser
def test_the_pages_open_in_chromium_without_an_error(site, tmp_path):
    from cdp import Browser, CDPError, find_chromium

    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium found (apt-get install -y chromium, or MEASUREFIRST_CHROMIUM=/path/to/chrome)")
    try:
        browser = Browser(binary)
        browser.page()
    except (OSError, TimeoutError, CDPError) as exc:
        pytest.skip(f"Chromium at {binary} did not start: {exc}")
    from test_report_browser import LAYOUT  # the report's layout checks: marks inside their axes, nothing cut

    with browser:
        for rel in ("index.html", "zh/index.html", *(str(p.relative_to(site)) for p in (site / "b").glob("*.html"))):
            for width, mobile in ((1100, False), (390, True)):
                page = browser.page()
                page.set_viewport(width, 900, mobile=mobile)
                path = site / rel
                page.goto(path.as_uri())
                assert page.js("window.mfReport && window.mfReport.ready") is True
                assert page.console_errors() == [], rel
                assert page.requests() == [path.as_uri()], rel
                assert page.js(LAYOUT) == [], (rel, width)
        page = browser.page()
        page.goto((site / "index.html").as_uri())
        # the language switch leads to the Chinese index (followed with goto, which waits for the page: a click
        # returns before the navigation ends, and reading the page then raced it under load)
        target = page.js("document.querySelector('a.mf-lang').href")
        assert target == (site / "zh" / "index.html").as_uri()
        page.goto(target)
        assert "基准" in page.js("document.body.innerText")
