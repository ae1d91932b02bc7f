"""Words and tables for a SelfCheck, in English and Chinese. Data in, text out; nothing is measured."""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

from .. import defaults
from .text import format_time

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..selfcheck import SelfCheck, Trap

LANGS = defaults.LANGS

_W: dict[str, dict[str, str]] = {
    # table
    "title": {"en": "measurefirst selfcheck: {device} ({name}){quick}, {seconds:.1f} s",
              "zh": "measurefirst 自检：{device}（{name}）{quick}，用时 {seconds:.1f} 秒"},
    "quick": {"en": ", quick", "zh": "，快速模式"},
    "simulated": {"en": " [simulated clock]", "zh": "［模拟时钟］"},
    "col.duration": {"en": "known duration", "zh": "已知时长"},
    "col.method": {"en": "measured by", "zh": "测量方式"},
    "col.truth": {"en": "truth", "zh": "真值"},
    "col.estimate": {"en": "estimate", "zh": "估计值"},
    "col.error": {"en": "rel. error", "zh": "相对误差"},
    "col.tolerance": {"en": "tolerance", "zh": "容差"},
    "col.noise": {"en": "noise", "zh": "噪声"},
    "col.verdict": {"en": "verdict", "zh": "结论"},
    # statuses
    "status.pass": {"en": "PASS", "zh": "通过"},
    "status.fail": {"en": "FAIL", "zh": "失败"},
    "status.noisy": {"en": "NOISY", "zh": "噪声过大"},
    "status.info": {"en": "shown", "zh": "仅显示"},
    "status.skip": {"en": "n/a", "zh": "不适用"},
    # methods
    "method.adaptive": {"en": "benchmark() adaptive", "zh": "benchmark() 自适应"},
    "method.fixed": {"en": "benchmark() warmup=3, trials=10", "zh": "benchmark() warmup=3, trials=10"},
    "method.events": {"en": "benchmark() CUDA events", "zh": "benchmark() CUDA 事件"},
    "method.wall": {"en": "benchmark() synchronized wall clock", "zh": "benchmark() 同步后的挂钟"},
    "method.cuda_graph": {"en": "benchmark() cuda_graph=True", "zh": "benchmark() cuda_graph=True"},
    "method.cold_cache": {"en": "benchmark() cold_cache=True", "zh": "benchmark() cold_cache=True"},
    "method.timeit": {"en": "timeit (best of repeats)", "zh": "timeit（多次重复取最小）"},
    "method.blocked_autorange": {"en": "torch.utils.benchmark blocked_autorange",
                                 "zh": "torch.utils.benchmark blocked_autorange"},
    "method.do_bench": {"en": "triton do_bench", "zh": "triton do_bench"},
    "method.do_bench_cudagraph": {"en": "triton do_bench_cudagraph", "zh": "triton do_bench_cudagraph"},
    "method.profiler": {"en": "profiler kernel time", "zh": "分析器的内核时间"},
    "method.graph_vs_do_bench_cudagraph": {"en": "cuda_graph vs do_bench_cudagraph",
                                           "zh": "cuda_graph 对比 do_bench_cudagraph"},
    # truth sources
    "source.self": {"en": "busy-wait's own clock", "zh": "忙等自身的时钟"},
    "source.stream": {"en": "wall clock, stream of kernels", "zh": "挂钟，连续内核流"},
    "source.profiler": {"en": "profiler kernel time", "zh": "分析器的内核时间"},
    "source.sleep": {"en": "cycles / calibrated rate", "zh": "周期数 / 校准频率"},
    "source.do_bench_cudagraph": {"en": "do_bench_cudagraph", "zh": "do_bench_cudagraph"},
    # notes
    "note.not_installed": {"en": "not installed", "zh": "未安装"},
    "note.not_applicable": {"en": "does not apply here", "zh": "此处不适用"},
    "note.simulated": {"en": "skipped on the simulated clock", "zh": "模拟时钟下跳过"},
    "note.launch_bound": {"en": "launch-bound: the host sets the time", "zh": "受启动开销限制：时间由主机决定"},
    "note.error": {"en": "raised an error", "zh": "出错"},
    "note.overhead_bound": {"en": "timer overhead above the tolerance", "zh": "计时器开销超过容差"},
    "note.fallback_truth": {"en": "truth: cycles / rate", "zh": "真值：周期数 / 频率"},
    # traps
    "skipped": {"en": "not run ({why}): {what}", "zh": "未运行（{why}）：{what}"},
    "traps": {"en": "traps (each must be detected):", "zh": "陷阱（每一个都必须被发现）："},
    "trap.cold_start": {"en": "cold first call vs warm", "zh": "冷启动的第一次调用与预热后的对比"},
    "trap.implicit_sync": {"en": "one .item() per call", "zh": "每次调用一个 .item()"},
    "trap.unsynchronized_timer": {"en": "timer without synchronization", "zh": "不同步的计时器"},
    "trap.cold_start.pass": {"en": "detected: the first call took {value:.0f}x the steady state (flagged from {threshold:.0f}x)",
                             "zh": "已发现：第一次调用是稳态的 {value:.0f} 倍（从 {threshold:.0f} 倍起报警）"},
    "trap.cold_start.fail": {"en": "MISSED: doctor's cold-start check did not flag a function with a real one-time cost "
                                   "(ratio {value})",
                             "zh": "漏报：doctor 的冷启动检查没有标出一个确有一次性开销的函数（倍数 {value}）"},
    "trap.implicit_sync.pass": {"en": "found: {value:.0f} sync-prone op per call by doctor's implicit-sync check",
                                "zh": "已发现：doctor 的隐式同步检查在每次调用中找到 {value:.0f} 个会同步的运算"},
    "trap.implicit_sync.fail": {"en": "MISSED: doctor's implicit-sync check counted {value} per call, not 1",
                                "zh": "漏报：doctor 的隐式同步检查每次调用数到 {value} 个，而不是 1 个"},
    "trap.unsynchronized_timer.pass": {"en": "detected: the synchronized time is {value:.0f}x what a timer without "
                                             "synchronize reads (flagged from {threshold:.0f}x)",
                                       "zh": "已发现：同步后的时间是不同步计时器读数的 {value:.0f} 倍（从 {threshold:.0f} 倍起报警）"},
    "trap.unsynchronized_timer.fail": {"en": "MISSED: doctor did not flag the unsynchronized timer (ratio {value})",
                                       "zh": "漏报：doctor 没有标出不同步的计时器（倍数 {value}）"},
    "trap.unsynchronized_timer.not_applicable": {"en": "does not apply on the CPU: CPU work is synchronous",
                                                 "zh": "在 CPU 上不适用：CPU 上的运算是同步执行的"},
    "trap.skip": {"en": "not run ({why})", "zh": "未运行（{why}）"},
    "trap.error": {"en": "the check raised: {detail}", "zh": "检查出错：{detail}"},
    # machine
    "machine": {"en": "machine:", "zh": "机器："},
    "m.timer": {"en": "timer {kind}: resolution {res} stated, {seen} seen; a clock read costs {read}; "
                      "an empty sample (timer + sync) {overhead}",
                "zh": "计时器 {kind}：标称分辨率 {res}，实测 {seen}；读一次时钟 {read}；空样本（计时器 + 同步）{overhead}"},
    "m.cpu": {"en": "CPU: {mhz}; frequency governor {gov}; thermal throttling {thr}",
              "zh": "CPU：{mhz}；调频策略 {gov}；过热降频 {thr}"},
    "m.mhz": {"en": "{a:.0f} MHz before, {b:.0f} MHz after", "zh": "开始时 {a:.0f} MHz，结束时 {b:.0f} MHz"},
    "m.load": {"en": "other load during the check: {other} of {cores} cores used by other processes; hypervisor "
                     "steal {steal} cores",
               "zh": "自检期间的其他负载：其他进程占用 {other} 个核（共 {cores} 个）；虚拟机被抢占 {steal} 个核"},
    "m.gpu": {"en": "GPU {when}: SM clock {sm} of {max} MHz, throttle reasons {reasons}, {temp} °C, {power} W",
              "zh": "GPU（{when}）：SM 时钟 {sm} / {max} MHz，降频原因 {reasons}，{temp} °C，{power} W"},
    "m.before": {"en": "before", "zh": "开始时"},
    "m.after": {"en": "after", "zh": "结束时"},
    "m.sleep": {"en": "sleep kernel: {rate:.4g} GHz SM cycles, calibrated against the synchronized wall clock",
                "zh": "睡眠内核：SM 时钟 {rate:.4g} GHz，按同步后的挂钟校准"},
    "m.peaks": {"en": "measured peaks: matmul {flops:.1f} GFLOP/s ({dtype}, n={n}), copy {bw:.1f} GB/s",
                "zh": "实测峰值：矩阵乘 {flops:.1f} GFLOP/s（{dtype}，n={n}），拷贝 {bw:.1f} GB/s"},
    "m.note": {"en": "note: {note}", "zh": "注：{note}"},
    "mnote.nvidia_smi_missing": {"en": "nvidia-smi not found: no GPU clocks, power or throttle reasons",
                                 "zh": "未找到 nvidia-smi：没有 GPU 时钟、功耗和降频原因"},
    "mnote.peaks_failed": {"en": "the machine's peaks could not be measured: {error}", "zh": "无法测量机器峰值：{error}"},
    "not_visible": {"en": "not visible", "zh": "不可见"},
    "throttle.none": {"en": "none seen", "zh": "未发现"},
    "throttle.some": {"en": "{n} events during the check", "zh": "自检期间 {n} 次"},
    # verdicts
    "verdict.pass": {"en": "verdict: PASS. Every judged estimate is within its stated tolerance of the truth, and every "
                           "trap was caught: measurefirst's figures can be trusted on this machine to those tolerances.",
                     "zh": "结论：通过。每个参与判定的估计值都在声明的容差之内，每个陷阱都被发现："
                           "在这台机器上，measurefirst 的数字在这些容差内可信。"},
    "verdict.pass_rows": {"en": "verdict: PASS. Every judged estimate is within its stated tolerance of the truth "
                                "(no traps were run).",
                          "zh": "结论：通过。每个参与判定的估计值都在声明的容差之内（未运行陷阱检查）。"},
    "verdict.fail": {"en": "verdict: FAIL. {n} check(s) failed:", "zh": "结论：失败。{n} 项检查未通过："},
    "verdict.noisy": {"en": "verdict: NOISY, the machine was too noisy to judge. {n} estimate(s) missed the tolerance by "
                            "less than the noise measured at the same time, so neither a pass nor a fault can be "
                            "claimed. Rerun on a quieter machine (stop other jobs; pin with taskset).",
                      "zh": "结论：噪声过大，无法判定。{n} 个估计值超出容差的部分小于同时测得的噪声，"
                            "既不能判为通过，也不能判为故障。请在更安静的机器上重跑（停掉其他任务；用 taskset 绑定核心）。"},
    "failed.row": {"en": "  FAIL {duration} {method}: {estimate} against a truth of {truth} ({error}, tolerance ±{tol}). {why}",
                   "zh": "  失败 {duration} {method}：估计 {estimate}，真值 {truth}（{error}，容差 ±{tol}）。{why}"},
    "noisy.row": {"en": "  NOISY {duration} {method}: {error} against ±{tol}, noise {noise}",
                  "zh": "  噪声过大 {duration} {method}：{error}，容差 ±{tol}，噪声 {noise}"},
    "failed.trap": {"en": "  FAIL trap {trap}: {why}", "zh": "  失败 陷阱 {trap}：{why}"},
    # what a failure tells you
    "why.adaptive": {"en": "The adaptive estimate disagrees with the clock itself: the timer, the loop-count "
                           "calibration or the statistics are wrong here. Do not trust benchmark() on this machine "
                           "until this passes.",
                     "zh": "自适应估计与时钟本身不一致：计时器、循环次数校准或统计有误。在此项通过之前，"
                           "不要信任这台机器上的 benchmark()。"},
    "why.fixed": {"en": "The classic loop is off by more than the measured timer overhead explains: the clock "
                        "reads wrong, or each sample carries a cost the overhead measurement missed.",
                  "zh": "经典循环的偏差超出了实测计时器开销能解释的范围：时钟读数有误，或者每个样本都带有开销测量没有发现的成本。"},
    "why.events": {"en": "CUDA events disagree with the kernel's duration: check the driver, the GPU clocks "
                         "(throttling) and that nothing else runs on this GPU.",
                   "zh": "CUDA 事件与内核的实际时长不一致：检查驱动、GPU 时钟（是否降频），以及这块 GPU 上是否有其他任务。"},
    "why.wall": {"en": "The synchronized wall clock disagrees with the stream of kernels: synchronization is "
                       "incomplete or costs more than the calibration saw.",
                 "zh": "同步后的挂钟与连续内核流不一致：同步不完整，或同步的开销大于校准所见。"},
    "why.cuda_graph": {"en": "Graph replays disagree with the kernel time: capture or replay is wrong (or the "
                             "graph holds a different number of calls than assumed).",
                       "zh": "CUDA 图重放与内核时间不一致：捕获或重放有误（或图里的调用次数与假设不同）。"},
    "why.cold_cache": {"en": "Cold-cache samples are off beyond the flush's own overhead: the flush leaks into "
                             "the timed window.",
                       "zh": "冷缓存样本的偏差超出了清缓存本身的开销：清缓存的工作漏进了计时窗口。"},
    "why.graph_vs_do_bench_cudagraph": {"en": "measurefirst's graph mode and triton's do_bench_cudagraph disagree "
                                              "by more than 3%: one of them is wrong; the kernel-time rows say which.",
                                        "zh": "measurefirst 的图模式与 triton 的 do_bench_cudagraph 相差超过 3%："
                                              "其中一个有误，内核时间那几行可以说明是哪一个。"},
    "why.other": {"en": "The estimate is off by more than the tolerance and more than the noise.",
                  "zh": "估计值的偏差既超过容差，也超过噪声。"},
    "why.error": {"en": "It raised: {detail}", "zh": "出错：{detail}"},
    "progress": {"en": "selfcheck: {what}", "zh": "自检：{what}"},
    "progress.calibrate": {"en": "calibrating the sleep kernel", "zh": "校准睡眠内核"},
    "progress.machine.timer": {"en": "timer resolution and overhead", "zh": "计时器分辨率与开销"},
    "progress.machine.peaks": {"en": "machine peaks", "zh": "机器峰值"},
    "progress.trap": {"en": "trap: {trap}", "zh": "陷阱：{trap}"},
}


def say(key: str, lang: str = "en", **values: Any) -> str:
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}; got {lang!r}")
    return _W[key][lang].format(**values)


def duration_text(seconds: float) -> str:
    """``2e-06`` → ``"2 µs"``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale * 0.999:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds * 1e9:g} ns"


def _rel(x: float | None, signed: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.2%}" if signed else f"{x:.2%}"


def _time(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return format_time(x, x * 1e-4)


def method_text(method: str, lang: str = "en") -> str:
    key = f"method.{method}"
    return say(key, lang) if key in _W else method


def status_text(status: str, lang: str = "en") -> str:
    return say(f"status.{status}", lang)


_STYLE = {"pass": "green", "fail": "bold red", "noisy": "yellow", "info": "dim", "skip": "dim"}


#: The columns of the selfcheck table, by their word keys (``col.KEY``).
COLUMNS = ("duration", "method", "truth", "estimate", "error", "tolerance", "noise", "verdict")


def selfcheck_title(sc: "SelfCheck", lang: str = "en") -> str:
    name = sc.env.get("device_name") or sc.device
    return say("title", lang, device=sc.device, name=name, quick=say("quick", lang) if sc.quick else "",
               seconds=sc.seconds) + (say("simulated", lang) if sc.simulated else "")


def selfcheck_rows(sc: "SelfCheck", lang: str = "en") -> list[tuple[str, list[str]]]:
    """(status, cells in :data:`COLUMNS` order) per estimate that ran; a known duration is written
    once, on the first of its rows (skipped rows are listed by :func:`skipped_lines`)."""
    out: list[tuple[str, list[str]]] = []
    last = None
    for r in sc.rows:
        if r.status == "skip":
            continue
        dur = duration_text(r.duration_s)
        method = method_text(r.method, lang)
        if r.note:
            method += f" ({say('note.' + r.note, lang) if 'note.' + r.note in _W else r.note})"
        out.append((r.status, [dur if dur != last else "", method, _time(r.truth_s), _time(r.estimate_s),
                                _rel(r.rel_error), "" if r.tolerance is None or not r.judged else f"±{r.tolerance:.2%}",
                                _rel(r.noise, signed=False) if r.noise is not None else "",
                                status_text(r.status, lang)]))
        last = dur
    return out


def selfcheck_table(sc: "SelfCheck", lang: str = "en") -> "Table":
    """One row per estimate: known duration, method, truth, estimate, relative error, tolerance, noise,
    PASS/FAIL/NOISY (references: ref; not applicable: n/a)."""
    from rich.table import Table

    t = Table(title=selfcheck_title(sc, lang))
    for key in COLUMNS:
        t.add_column(say(f"col.{key}", lang), justify="left" if key in ("duration", "method", "verdict") else "right")
    for status, cells in selfcheck_rows(sc, lang):
        t.add_row(*cells[:-1], f"[{_STYLE.get(status, '')}]{cells[-1]}[/]")
    return t


def _trap_detail(t: "Trap", lang: str) -> str:
    if t.note == "error":
        return say("trap.error", lang, detail=t.detail)
    if t.status == "skip":
        key = f"trap.{t.code}.{t.note}"
        if key in _W:
            return say(key, lang)
        why = say("note." + t.note, lang) if "note." + t.note in _W else t.note
        return say("trap.skip", lang, why=why)
    if t.status == "fail":
        return say(f"trap.{t.code}.fail", lang, value="n/a" if t.value is None else f"{t.value:.3g}")
    return say(f"trap.{t.code}.pass", lang, value=t.value or 0.0, threshold=t.threshold or 0.0)


def _trap_line(t: "Trap", lang: str) -> str:
    return f"  {status_text(t.status, lang)}  {say('trap.' + t.code, lang)}: {_trap_detail(t, lang)}"


def _ns(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.0f} ns"


def machine_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    m = sc.machine
    nv = say("not_visible", lang)
    lines = [say("machine", lang)]
    lines.append("  " + say("m.timer", lang, kind=m.timer, res=_ns(m.timer_resolution_ns),
                            seen=_ns(m.timer_resolution_measured_ns), read=_ns(m.clock_read_ns),
                            overhead=_ns(m.timer_overhead_ns)))
    if not sc.simulated:
        mhz = (say("m.mhz", lang, a=m.cpu_mhz_before, b=m.cpu_mhz_after)
               if m.cpu_mhz_before is not None and m.cpu_mhz_after is not None else nv)
        thr = nv if m.throttle_events is None else (say("throttle.none", lang) if m.throttle_events == 0
                                                    else say("throttle.some", lang, n=m.throttle_events))
        lines.append("  " + say("m.cpu", lang, mhz=mhz, gov=m.cpu_governor or nv, thr=thr))
        lines.append("  " + say("m.load", lang, other="n/a" if m.other_load_cores is None else f"{m.other_load_cores:.1f}",
                                cores=m.cores if m.cores is not None else "?",
                                steal="n/a" if m.steal_cores is None else f"{m.steal_cores:.2f}"))
    for when, g in (("before", m.gpu_before), ("after", m.gpu_after)):
        if g:
            lines.append("  " + say("m.gpu", lang, when=say("m." + when, lang), sm=g.get("clocks.sm", "?"),
                                    max=g.get("clocks.max.sm", "?"), reasons=g.get("clocks_throttle_reasons.active", "?"),
                                    temp=g.get("temperature.gpu", "?"), power=g.get("power.draw", "?")))
    if m.sleep_cycles_per_s:
        lines.append("  " + say("m.sleep", lang, rate=m.sleep_cycles_per_s / 1e9))
    if m.peaks:
        p = m.peaks
        lines.append("  " + say("m.peaks", lang, flops=p["flops_per_s"] / 1e9, dtype=p["dtype"], n=p["matmul_size"],
                                bw=p["bytes_per_s"] / 1e9))
    for note in m.notes:
        lines.append("  " + say("m.note", lang, note=machine_note(note, lang)))
    return lines


def machine_note(note: str, lang: str = "en") -> str:
    """A note about the machine in words: its code, then after ``": "`` an error's own message if any
    (``"peaks_failed: RuntimeError: ..."``); a code this version has no words for, as it is."""
    code, _, error = note.partition(": ")
    return say("mnote." + code, lang, error=error) if "mnote." + code in _W else note


def verdict_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    status = sc.status
    if status == "pass":
        return [say("verdict.pass" if any(t.status == "pass" for t in sc.traps) else "verdict.pass_rows", lang)]
    if status == "noisy":
        lines = [say("verdict.noisy", lang, n=len(sc.noisy_rows))]
        for r in sc.noisy_rows:
            lines.append(say("noisy.row", lang, duration=duration_text(r.duration_s), method=method_text(r.method, lang),
                             error=_rel(r.rel_error), tol=_rel(r.tolerance, signed=False),
                             noise=_rel(r.noise, signed=False)))
        return lines
    lines = [say("verdict.fail", lang, n=len(sc.failed_rows) + len(sc.failed_traps))]
    for r in sc.failed_rows:
        if r.note == "error":
            why = say("why.error", lang, detail=r.detail)
        else:
            why = say(f"why.{r.method}", lang) if f"why.{r.method}" in _W else say("why.other", lang)
        lines.append(say("failed.row", lang, duration=duration_text(r.duration_s), method=method_text(r.method, lang),
                         estimate=_time(r.estimate_s), truth=_time(r.truth_s), error=_rel(r.rel_error),
                         tol=_rel(r.tolerance, signed=False), why=why))
    for t in sc.failed_traps:
        lines.append(say("failed.trap", lang, trap=say("trap." + t.code, lang), why=_trap_detail(t, lang)))
    return lines


def skipped_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    """The rows that did not run, one line per reason: ``not run (not installed): triton do_bench, ...``."""
    by_reason: dict[str, list[str]] = {}
    for r in sc.rows:
        if r.status != "skip":
            continue
        reason = say("note." + r.note, lang) if "note." + r.note in _W else r.note
        if r.detail and r.note == "error":
            reason += f": {r.detail}"
        name = method_text(r.method, lang)
        names = by_reason.setdefault(reason, [])
        if name not in names:
            names.append(name)
    return [say("skipped", lang, why=why, what=", ".join(names)) for why, names in by_reason.items()]


def selfcheck_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    """Everything after the table: rows not run, traps, the machine, the verdict (and what each failure
    tells you)."""
    lines = skipped_lines(sc, lang)
    if sc.traps:
        lines += [say("traps", lang)] + [_trap_line(t, lang) for t in sc.traps]
    return lines + machine_lines(sc, lang) + verdict_lines(sc, lang)


def selfcheck_text(sc: "SelfCheck", lang: str = "en", width: int = 150) -> str:
    """The table and the lines as plain text (for ``str(selfcheck)``)."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, highlight=False, soft_wrap=False, color_system=None)
    console.print(selfcheck_table(sc, lang))
    for line in selfcheck_lines(sc, lang):
        console.print(line, markup=False, soft_wrap=True)
    return buf.getvalue().rstrip("\n")


def progress_line(stage: str, duration_s: float | None, method: str, lang: str = "en") -> str:
    """What the selfcheck is doing now, for a progress line on stderr."""
    if stage == "row" and duration_s is not None:
        what = f"{duration_text(duration_s)} {method_text(method, lang)}"
    elif stage == "calibrate":
        what = say("progress.calibrate", lang)
    elif stage == "trap":
        what = say("progress.trap", lang, trap=say("trap." + method, lang) if "trap." + method in _W else method)
    else:
        key = f"progress.{stage}.{method}"
        what = say(key, lang) if key in _W else f"{stage} {method}"
    return say("progress", lang, what=what)
