"""The HTML report, validated structurally (no browser): balanced tags, no external URL, every SVG with a
viewBox and a size, unique ids, in-page links that land, the words in both languages; per result kind,
for the CLI verb, the loaders and the notebook fragments."""

from __future__ import annotations

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import report_kinds as rk
from measurefirst import report
from measurefirst.cli.commands import main
from measurefirst.results.loading import LoadError, from_data, load_target, load_targets
from measurefirst.render import words
from measurefirst.render.report import fragment, kind_of

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "data", "srcset"}


class Checker(HTMLParser):
    """Collects what the structural checks need while parsing."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int]] = []
        self.errors: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.svgs: list[dict[str, str | None]] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))
        if tag in ("script", "style"):
            self._skip += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append(f"</{tag}> with nothing open (line {self.getpos()[0]})")
            return
        top, line = self.stack.pop()
        if top != tag:
            self.errors.append(f"</{tag}> closes <{top}> opened on line {line} (line {self.getpos()[0]})")
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        d = dict(attrs)
        if d.get("id"):
            self.ids.append(str(d["id"]))
        for k, v in attrs:
            if k in URL_ATTRS and v is not None:
                self.links.append(v)
        if tag == "svg":
            self.svgs.append(d)


def check(html: str) -> Checker:
    """Parse ``html`` and assert every structural rule; returns the parser for more checks."""
    c = Checker()
    c.feed(html)
    c.close()
    assert not c.errors, c.errors[:5]
    assert not c.stack, f"left open: {c.stack[:5]}"
    # no network: no external URL in any attribute, no stylesheet or image to fetch, nothing anywhere
    for link in c.links:
        assert not re.match(r"^\s*(https?:|ftp:|//)", link, re.I), link
    assert "link" not in c.tags and "img" not in c.tags and "iframe" not in c.tags
    assert "http:" not in html and "https:" not in html and "url(" not in html and "@import" not in html
    # ids unique, in-page links land
    dupes = {i for i in c.ids if c.ids.count(i) > 1}
    assert not dupes, sorted(dupes)[:5]
    for link in c.links:
        if link.startswith("#"):
            assert link[1:] in c.ids, f"link {link} has no target"
    # every SVG: a viewBox of 4 numbers with a positive size, and a positive width and height
    assert c.svgs or "<svg" not in html
    for s in c.svgs:
        box = [float(x) for x in str(s.get("viewbox") or "").split()]
        assert len(box) == 4 and box[2] > 0 and box[3] > 0, s
        assert float(str(s.get("width"))) > 0 and float(str(s.get("height"))) > 0, s
    return c


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    return rk.every_kind(tmp_path_factory.mktemp("report-kinds"))


#: Words each kind's section must show, per language (besides the results' own labels).
EXPECTED = {
    "measurement": (["benchmark", "95% CI", "Samples in order", "matmul", "add"],
                    ["基准测试", "置信区间", "按顺序的样本", "matmul"]),
    "comparison": (["comparison", "faster", "no difference detected", "fused", "time ratio"],
                   ["对比", "速度为", "未检出差异", "fused", "耗时比"]),
    "sweep": (["sweep", "crossover", "overhead floor", "Roofline", "compute-bound", "failed", "out of memory"],
              ["规模扫描", "交叉点", "开销下限", "屋顶线", "算力受限", "失败"]),
    "profile": (["profile", "aten::mul", "Ops per step", "working ops"], ["性能剖析", "aten::mul", "每步算子"]),
    "profile_diff": (["profile diff", "aten::gelu", "only in manual"], ["剖析对比", "aten::gelu", "仅 manual 有"]),
    "step": (["training step", "forward", "backward", "MFU", "Peak memory per phase", "H100"],
             ["训练步", "前向", "反向", "MFU", "各阶段内存峰值", "H100"]),
    "diagnosis": (["doctor", "cold start", "Why:", "Fix:"], ["体检", "冷启动", "原因：", "首次调用要付出一次性开销", "解决："]),
    "history": (["history", "step change", "▲ slower", "#4"], ["历史", "阶跃变化", "▲ 变慢", "#4"]),
    "saved_run": (["saved run", "git commit"], ["已保存的运行", "git 提交"]),
    "count": (["instruction count", "444,360", "instructions per call", "repeated counts disagree"],
              ["指令计数", "444,360", "每次调用的 instructions", "重复计数不一致"]),
    "count_history": (["history", "step change", "▲ slower", "instructions per call", "range"],
                      ["历史", "阶跃变化", "▲ 变慢", "范围"]),
    "regression": (["regression check", "a.json → @matmul", "regression", "no difference beyond noise",
                    "fails when slower beyond the CI and 5.0%", "1 regression(s)"],
                   ["回归检查", "性能回退", "无超出噪声的差异", "慢于置信区间且超过 5.0% 时判为失败", "1 处性能回退"]),
    "selfcheck": (["selfcheck", "known duration", "PASS", "machine:", "verdict: PASS"],
                  ["自检", "已知时长", "通过", "机器：", "结论：通过"]),
    "collectives": (["collectives", "all_reduce", "busbw GB/s", "timed out", "2 ranks, gloo", "1.02 kB"],
                    ["集合通信", "all_reduce", "总线带宽 GB/s", "timed out", "2 个进程，gloo"]),
    "pytest_run": (["pytest run", "test_add[1024]", "3 benchmark(s), 1 comparison(s)", "@base", "regression",
                    "1 regression(s)", "comparison", "small"],
                   ["pytest 运行", "test_add[1024]", "3 个基准测试，1 个对比", "性能回退", "对比", "分组"]),
    "ranged_step": (["step by ranges", "train_step", "forward", "outside any range", "share of the step", "30.0%"],
                    ["按区间计时的训练步", "train_step", "forward", "不在任何区间内", "占整步", "30.0%"]),
    "rank_group": (["ranks", "allreduce", "Straggler: rank 1", "vs median rank", "spread across ranks"],
                   ["多进程", "allreduce", "掉队者：进程 1", "相对中位进程", "进程间差异"]),
    "rank_comparison": (["compare on many ranks", "group verdict", "node-b/0", "the ranks disagree", "fused"],
                        ["多进程比较", "进程组结论", "node-b/0", "各进程结论不一致", "fused"]),
    "group_history": (["history of many ranks", "coll", "node-a×1, node-b×1", "all_reduce 1K", "bus bandwidth dropped"],
                      ["多进程历史", "coll", "node-a×1, node-b×1", "all_reduce 1K", "总线带宽下降"]),
    "group_step": (["training step across ranks", "node-b #1", "exposed comm", "the others wait 30 ms per step",
                    "42.6k tok/s"],
                   ["多进程训练步", "node-b #1", "暴露的通信", "其他进程每步要等它 30 ms", "42.6k tok/s"]),
}


#: The kinds whose sections came last (issue 15): checks, runs, steps by ranges, distributed results (and,
#: issue 28, comparisons, histories and a training step across ranks).
NEW_KINDS = ("regression", "selfcheck", "collectives", "pytest_run", "ranged_step", "rank_group", "rank_comparison",
             "group_history", "group_step")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("kind", list(EXPECTED))
def test_each_kind_renders_a_valid_self_contained_page(kinds, kind, lang):
    html = report(kinds[kind], lang=lang, generated="2026-01-01T00:00:00+00:00")
    c = check(html)
    text = " ".join(c.text)
    for w in EXPECTED[kind][0 if lang == "en" else 1]:
        assert w in text, f"{kind}/{lang}: {w!r} missing"
    assert html.startswith("<!DOCTYPE html>") and f'lang="{"zh-CN" if lang == "zh" else "en"}"' in html
    assert 'name="viewport"' in html and "prefers-color-scheme: dark" in html and "mf-theme" in html
    # the summary: what, where, when, which version
    for key in ("what", "device", "when", "version"):
        assert words.word(key, lang) in text
    assert "measurefirst 0.1.0" in text or "0.1.0" in text


def test_every_kind_in_one_report_and_the_plots_each_kind_owes(kinds):
    html = report(list(kinds.values()), lang="en", theme="dark")
    c = check(html)
    plot_ids = {str(s.get("id")) for s in c.svgs}
    for suffix in ("dots", "samples-0", "forest", "time", "throughput", "roofline", "bars", "phases", "memory",
                   "plot"):
        assert any(i.endswith(suffix) for i in plot_ids), suffix
    assert 'data-theme="dark"' in html and 'data-theme-fixed="1"' in html
    # the table of contents links every section
    sections = re.findall(r'<section class="mf-section" id="([^"]+)"', html)
    assert len(sections) == 21  # the summary and twenty sections
    for ident in sections[1:]:
        assert f'href="#{ident}"' in html


def test_the_forest_plot_and_the_verdicts_follow_the_comparison(kinds):
    c = kinds["comparison"]
    assert c.verdict("fused").verdict == "faster" and c.verdict("same").verdict == "no difference"
    html = report(c)
    assert "3.23x faster" in html or re.search(r"\d\.\d\dx faster", html)
    forest = html.split('id="mf-comparison-forest"', 1)[1].split("</svg>", 1)[0]
    assert forest.count('class="mf-dot') == 2 and "mf-faster" in forest and "mf-slower" in forest
    assert "baseline: manual" in forest


def test_the_sweep_plot_holds_fit_floor_and_crossover(kinds):
    s = kinds["sweep"]
    f = s.fit("matmul")
    html = report(s)
    time_svg = html.split('id="mf-sweep-time"', 1)[1].split("</svg>", 1)[0]
    assert "mf-line" in time_svg and "overhead floor" in time_svg and "crossover n≈" in time_svg
    assert f"{f.crossover:.3g}" in time_svg
    roof = html.split('id="mf-sweep-roofline"', 1)[1].split("</svg>", 1)[0]
    assert "ridge 10 FLOP/B" in roof


def test_a_history_of_counts_marks_its_step(kinds, tmp_path, capsys):
    h = kinds["count_history"]
    assert h.steps() == [3] and all(type(r.measurement).__name__ == "Count" for r in h.runs)
    html = report(h)
    check(html)
    plot = html.split('id="mf-history-plot"', 1)[1].split("</svg>", 1)[0]
    assert "instructions per call" in plot and "▲ slower" in plot
    store = tmp_path / "counts.db"
    rk.count_history(tmp_path)
    out = tmp_path / "c.html"
    assert main(["report", "@loop", "loop", "-o", str(out), "--store", str(store)]) == 0
    text = " ".join(check(out.read_text()).text)
    assert "saved run: #5 loop" in text and "488,796" in text and "repeats × calls" in text  # 10% more


def test_history_marks_the_step_and_links_every_run(kinds):
    h = kinds["history"]
    assert h.steps() == [3]
    html = report(h)
    c = check(html)
    for r in h.runs:
        assert f'href="#mf-history-run-{r.id}"' in html and f"mf-history-run-{r.id}" in c.ids
    plot = html.split('id="mf-history-plot"', 1)[1].split("</svg>", 1)[0]
    assert plot.count("<a href=") == len(h.runs) + 1  # every run, and the step marker
    assert 'class="mf-step"' in html


def test_profile_tables_are_sortable_and_filterable(kinds):
    html = report(kinds["profile"])
    table = html.split('id="mf-profile-ops"', 1)[1].split("</table>", 1)[0]
    assert table.count('data-sort="num"') >= 5 and 'data-sort="text"' in table
    assert 'data-filter="mf-profile-ops"' in html and 'data-view-for="mf-profile-ops"' in html
    work_rows = re.findall(r'<tr data-view="work">', table)
    assert len(work_rows) == 3  # mul, add, tanh, shown first; the other views start hidden
    assert re.search(r'<tr data-view="all" hidden="">', table)


def test_options_are_checked():
    m = rk.measurements()[0]
    with pytest.raises(ValueError, match="lang"):
        report(m, lang="fr")
    with pytest.raises(ValueError, match="theme"):
        report(m, theme="blue")
    with pytest.raises(ValueError, match="nothing to report"):
        report([])
    with pytest.raises(TypeError, match="cannot report a str"):
        report("matmul")


def test_labels_are_escaped():
    m = rk.sim_measurement("<script>alert(1)</script> & co", 5_000.0)
    html = report(m)
    check(html)
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html


# ---- notebooks -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["comparison", "sweep", "profile", "profile_diff", "diagnosis", "history",
                                  "saved_run", "count", "count_history", *NEW_KINDS])
def test_every_kind_has_the_same_renderer_behind_repr_html(kinds, kind):
    r = kinds[kind]
    r = r[0] if isinstance(r, list) else r
    a, b = r._repr_html_(), r._repr_html_()
    assert a.startswith('<div class="mf-report mf-fragment"') and "<style>" in a and "<script>" in a
    page = f"<!DOCTYPE html><html><head><title>t</title></head><body>{a}{b}</body></html>"
    check(page)  # two fragments on one page: ids stay unique


def test_measurement_and_step_fragments():
    m = rk.measurements()[0]
    html = m._repr_html_()
    assert "<table" in html and "matmul" in html and "-measurements" in html
    step = rk.step_results()[0]
    assert "-step" in step._repr_html_()
    assert fragment(list(rk.step_results()), lang="zh").count("<section") == 1


# ---- loading and the CLI -------------------------------------------------------------------------
def _dump(obj, path: Path) -> Path:
    path.write_text(json.dumps(obj.to_dict() if hasattr(obj, "to_dict") else obj, default=str))
    return path


@pytest.mark.parametrize("kind", ["comparison", "sweep", "profile", "profile_diff", "diagnosis", "history",
                                  "saved_run", "count", "count_history", *NEW_KINDS])
def test_results_files_load_back_as_their_kind(kinds, kind, tmp_path):
    r = kinds[kind]
    r = r[0] if isinstance(r, list) else r
    back = load_target(str(_dump(r, tmp_path / f"{kind}.json")))
    assert len(back) == 1 and kind_of(back[0]) == kind_of(r)
    if kind in ("comparison", "sweep", "diagnosis", "history", "saved_run", "count", "count_history", "regression",
                "ranged_step"):
        assert back[0] == r
    if kind in NEW_KINDS:  # exact through JSON (NaN as null)
        assert json.loads(back[0].to_json()) == json.loads(r.to_json())


def test_step_json_loads_back(kinds, tmp_path):
    steps = kinds["step"]
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"steps": [s.to_dict() for s in steps], "comparison": None}, default=str))
    [back] = load_target(str(path))  # a step comparison, as `measurefirst step --json` wrote it before it had a kind
    assert back.kind == "step_comparison" and back.steps == tuple(steps) and back.comparison is None
    assert load_targets([str(path)]) == list(steps)  # the report shows its parts


def test_bad_files_say_what_is_wrong(tmp_path):
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(LoadError, match="invalid JSON"):
        load_target(str(tmp_path / "x.json"))
    with pytest.raises(LoadError, match="no \"kind\""):
        from_data({"kind": "pizza"})
    with pytest.raises(LoadError, match="not a valid comparison"):
        from_data({"kind": "comparison", "schema_version": 1})


def test_cli_report_of_saved_runs_histories_and_files(kinds, tmp_path, capsys):
    store = tmp_path / "results.db"
    rk.history(tmp_path)  # six runs of "matmul" in tmp_path/results.db
    cmp_file = _dump(kinds["comparison"], tmp_path / "cmp.json")
    sweep_file = _dump(kinds["sweep"], tmp_path / "sweep.json")
    out = tmp_path / "r.html"
    assert main(["report", "@matmul", "-o", str(out), "--store", str(store)]) == 0
    assert "wrote" in capsys.readouterr().err
    c = check(out.read_text())
    assert "saved run" in " ".join(c.text) and "#6 matmul" in " ".join(c.text)
    assert main(["report", "matmul", "#2", "@matmul~1", str(cmp_file), str(sweep_file), "-o", str(out),
                 "--lang", "zh", "--theme", "light", "--store", str(store)]) == 0
    html = out.read_text()
    check(html)
    assert "历史" in html and "对比" in html and "规模扫描" in html and "#2 matmul" in html and "#5 matmul" in html
    assert not list(tmp_path.glob(".*.tmp"))


def test_cli_report_refuses_unknown_targets(tmp_path, capsys):
    store = tmp_path / "results.db"
    rk.history(tmp_path)
    out = tmp_path / "r.html"
    assert main(["report", "nosuchname", "-o", str(out), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 'nosuchname' is not a file") and "saved names: matmul" in err
    assert not out.exists()
    assert main(["report", "#999", "-o", str(out), "--store", str(store)]) == 2
    assert "no run #999" in capsys.readouterr().err
    assert main(["report", "@matmul", "-o", str(tmp_path / "no" / "dir.html"), "--store", str(store)]) == 2
    assert "does not exist" in capsys.readouterr().err


# ---- words ---------------------------------------------------------------------------------------
RENDER = Path(words.__file__).parent


def _keys_used() -> set[str]:
    keys: set[str] = set()
    for path in RENDER.glob("report*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("t", "e")
                    and node.args):
                keys |= _key_constants(node.args[0])
    return keys


def _key_constants(node: ast.AST) -> set[str]:
    """The strings a key expression can be: a constant, either branch of ``a if c else b``, or the
    prefix of ``"phase_" + name``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _key_constants(node.body) | _key_constants(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _key_constants(node.left)
    return set()


def test_every_word_exists_in_both_languages():
    used = _keys_used()
    prefixes = {k for k in used if k.endswith("_")}
    missing = sorted(k for k in used - prefixes if k not in words.WORDS)
    assert not missing, missing
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in words.WORDS), prefix
    # every key's languages and placeholders: tests/test_words.py
    for reason in ("precision", "budget", "noise", "trials", "max_samples", "interrupted", "error"):
        assert f"stop_{reason}" in words.WORDS


def test_kernel_tables_and_a_kernel_diff():
    """GPU profiles carry kernels: the kernel table (decoded names) and a diff kernel by kernel."""
    from dataclasses import replace

    from measurefirst.profiling import KernelRow, decode_kernel, diff

    def k(name, launched_by, calls, total):
        return KernelRow(name, launched_by, calls, total, total / calls, decode_kernel(name).to_dict())

    manual, fused = rk.profiles()
    sgemm = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel"
    elementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda>"
    gelu = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>"
    a = replace(manual, device="cuda:0", kernels=(k(sgemm, "aten::mm", 1, 40e-6), k(elementwise, "aten::tanh", 1, 3e-6)))
    b = replace(fused, device="cuda:0", kernels=(k(sgemm, "aten::mm", 1, 40e-6), k(gelu, "aten::gelu", 1, 4e-6)))
    html = report([a, diff({"manual": a, "fused": b})])
    c = check(html)
    text = " ".join(c.text)
    assert "Kernels per step" in text and "where the time goes: kernels by device time" in text.lower()
    table = html.split('id="mf-profile-kernels"', 1)[1].split("</table>", 1)[0]
    assert table.split("<tbody>")[1].count("<tr>") == 2 and "tanh_kernel_cuda" in table and 'data-sort="num"' in table
    assert 'data-filter="mf-profile-kernels"' in html
    diff_table = html.split('id="mf-diff-table"', 1)[1].split("</table>", 1)[0]
    assert "GeluCUDAKernelImpl" in diff_table and "kernel" in html.split('id="mf-diff-table"', 1)[1][:400]
    assert "only in fused:" in text and "only in manual:" in text


def test_long_plot_words_wrap_within_their_margin_and_read_as_the_text():
    """The forest plot's verdict was cut at the picture's edge ("could have detecte"): words wider than the
    margin wrap, at spaces or between wide characters, and the lines joined are the words."""
    from measurefirst.render.svg import text_px, wrap

    for text in ("no difference detected (could have detected ±0.4%)", "未检出差异（可检出 ±0.4%）", "short", ""):
        for width in (60.0, 120.0, 300.0):
            lines = wrap(text, width, 12.0)
            assert "".join(lines) == text
            assert all(text_px(line.rstrip(), 12.0) <= width or " " not in line.strip() for line in lines)
    assert len(wrap("no difference detected (could have detected ±0.4%)", 276.0, 12.0)) == 2
