"""The documentation site in headless Chromium: every page of the built site loads without a console
error, no internal link or anchor is broken (every page crawled), and the site's search finds "cold
cache". The site is served over HTTP on 127.0.0.1 (the search index is fetched by a web worker, which a
file:// page may not do). Marked ``browser``; skipped without Chromium or MkDocs, saying why."""

from __future__ import annotations

import functools
import http.server
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from cdp import Browser, CDPError, find_chromium
from docs_blocks import build_site

pytestmark = pytest.mark.browser


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "link", "script", "img"):
                self.links.append(str(a[key]))


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _target(site: Path, page: Path, link: str) -> tuple[Path, str] | None:
    """The file an internal link lands on and its fragment; None for an external link."""
    base = "http://site/" + page.relative_to(site).as_posix()
    url = urlsplit(urljoin(base, link))
    if url.scheme not in ("http", "https") or url.netloc != "site":
        return None
    path = site / unquote(url.path).lstrip("/")
    if path.is_dir() or url.path.endswith("/"):
        path = path / "index.html"
    return path, url.fragment


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="the site needs mkdocs (pip install -r requirements-dev.txt)")
    pytest.importorskip("material", reason="the site needs mkdocs-material (pip install -r requirements-dev.txt)")
    return build_site(tmp_path_factory.mktemp("docs") / "site")


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser():
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium found (install the Debian package `chromium`, or set MEASUREFIRST_CHROMIUM)")
    try:
        b = Browser(binary, timeout=60.0)
        b.page()
    except (OSError, TimeoutError, CDPError) as exc:
        pytest.skip(f"Chromium at {binary} did not start: {exc}")
    with b:
        yield b


def _html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.name != "404.html")


def test_no_internal_link_is_broken(site):
    """Every page, every internal link and asset: the file exists, and the anchor is on it."""
    broken = []
    parsed: dict[Path, _Links] = {}
    pages = _html_pages(site)
    assert len(pages) >= 25
    for page in pages:
        for link in _parse(page).links:
            target = _target(site, page, link)
            if target is None:
                continue
            path, fragment = target
            if not path.exists():
                broken.append(f"{page.relative_to(site)}: {link} (no {path.relative_to(site)})")
            elif fragment and path.suffix == ".html":
                if path not in parsed:
                    parsed[path] = _parse(path)
                ids = parsed[path].ids
                if fragment not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no #{fragment})")
    assert broken == []


def test_every_page_loads_without_a_console_error(site, served, browser):
    page = browser.page()
    errors = []
    for path in _html_pages(site):
        url = served + path.relative_to(site).as_posix().removesuffix("index.html")
        before = len(page.console_errors())
        page.goto(url)
        assert page.js("document.querySelector('article.md-content__inner') !== null"), url
        errors += [f"{url}: {e}" for e in page.console_errors()[before:]]
        assert not [r for r in page.requests() if not r.startswith(served) and not r.startswith("data:")], url
    assert errors == []


def test_the_search_finds_cold_cache(served, browser):
    page = browser.page()
    page.goto(served)
    page.click("label.md-header__button[for='__search']")
    page.type_text("input.md-search__input", "cold cache")
    page.js("document.querySelector('input.md-search__input').dispatchEvent(new Event('input', {bubbles: true}))")
    titles = page.js("""new Promise(resolve => {  // the results, once the search worker has answered (30 s at most)
        const started = Date.now();
        const poll = setInterval(() => {
            const items = Array.from(document.querySelectorAll('.md-search-result__item')).map(e => e.textContent);
            if (items.length || Date.now() - started > 30000) { clearInterval(poll); resolve(items); }
        }, 100);
    })""") or []
    assert titles, "the search found nothing for 'cold cache'"
    assert any("cold cache" in t.lower() for t in titles), titles[:5]
    assert page.console_errors() == []


@pytest.mark.parametrize("page_path, zh_words, en_words", [
    ("tutorial/", "讲座：一步一步", "The lecture, step by step"),
    ("how-to/doctor/", "给一个函数做典型陷阱体检", "audit a function for the classic pitfalls"),
    ("reference/findings/", "发现项", "Findings are data on the result"),
])
def test_the_language_switch_goes_between_the_english_and_the_chinese_page(served, browser, page_path, zh_words,
                                                                            en_words):
    """Issue 37: a page in English links to the same page in Chinese, and back, from the header's switch."""
    page = browser.page()
    page.goto(served + page_path)
    assert en_words in page.js("document.querySelector('article').textContent")
    to_zh = page.js("(document.querySelector('a[hreflang=\"zh\"]') || {}).href || ''")
    assert to_zh.rstrip("/").endswith("zh/" + page_path.rstrip("/")), to_zh
    page.goto(to_zh)  # followed by its href: a click's navigation would race the next read under load
    assert zh_words in page.js("document.querySelector('article').textContent")
    assert page.js("document.documentElement.lang") == "zh"
    to_en = page.js("(document.querySelector('a[hreflang=\"en\"]') || {}).href || ''")
    assert to_en.rstrip("/").endswith(page_path.rstrip("/")) and "/zh/" not in to_en, to_en
    page.goto(to_en)
    assert en_words in page.js("document.querySelector('article').textContent")
    assert page.console_errors() == []
