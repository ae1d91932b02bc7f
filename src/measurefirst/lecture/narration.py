"""The lecture's words, in Chinese (the lecture's language) and English. Numbers are filled in live."""

from __future__ import annotations

import locale
import os

LANGS = ("zh", "en")

TEXT: dict[str, dict[str, str]] = {
    "title": {
        "en": "measurefirst: measure first, then optimize — the lecture, live on {device}",
        "zh": "measurefirst：先测量，再优化 —— 讲座演示，实时运行于 {device}",
    },
    "pitfalls.title": {"en": "Part 1. The two timing traps", "zh": "第一部分：两个计时陷阱"},
    "pitfalls.trap1": {
        "en": "Trap 1 — no warm-up. The first call of a {n}x{n} matrix product pays one-time costs "
              "(allocation, thread start-up, library initialisation, algorithm selection).",
        "zh": "陷阱一：没有预热。{n}x{n} 矩阵乘法的第一次调用要付出一次性开销（内存分配、线程启动、库初始化、算法选择）。",
    },
    "pitfalls.trap1.result": {
        "en": "cold first call: {cold}; warm steady state: {warm} (median, 95% CI ±{ci}); the first call was "
              "{ratio:.1f}x slower, and per-call time settled after {calls} warm-up calls.",
        "zh": "冷启动第一次调用：{cold}；预热后的稳定时间：{warm}（中位数，95% 置信区间 ±{ci}）；第一次调用慢了 "
              "{ratio:.1f} 倍，预热 {calls} 次后每次调用的时间才稳定下来。",
    },
    "pitfalls.trap1.lesson": {
        "en": "Lesson: always warm up before you start the clock. measurefirst.benchmark warms up until the time "
              "stops falling.",
        "zh": "结论：开始计时之前一定要先预热。measurefirst.benchmark 会一直预热，直到每次调用的时间不再下降。",
    },
    "pitfalls.trap2.gpu": {
        "en": "Trap 2 — no synchronization. GPU calls return as soon as the kernels are queued. A timer without "
              "torch.cuda.synchronize() read {naive}; the synchronized truth is {truth}: {ratio:.1f}x longer.",
        "zh": "陷阱二：没有同步。GPU 调用在内核排队后立即返回。不调用 torch.cuda.synchronize() 的计时器读到 {naive}；"
              "同步后的真实时间是 {truth}，长了 {ratio:.1f} 倍。",
    },
    "pitfalls.trap2.cpu": {
        "en": "Trap 2 — no synchronization — does not apply on {device}: CPU ops run synchronously, so the clock "
              "stops after the work. On a GPU it does: run `measurefirst demo pitfalls --device cuda` there to see "
              "an unsynchronized timer read the launch time only, often hundreds of times too short.",
        "zh": "陷阱二（没有同步）在 {device} 上不存在：CPU 上的运算是同步执行的，计时器停止时计算已经完成。"
              "但在 GPU 上会出现：请在 GPU 机器上运行 `measurefirst demo pitfalls --device cuda`，"
              "你会看到不同步的计时器只测到了启动时间，常常短了几百倍。",
    },
    "pitfalls.implicit": {
        "en": "Note — implicit synchronizations: .item(), print(tensor), .cpu() and data-dependent shapes "
              "(nonzero, boolean masks) make the CPU wait for the GPU. One per training step can idle the GPU; "
              "`measurefirst doctor` finds them and names the source line.",
        "zh": "注意：隐式同步。.item()、print(tensor)、.cpu() 以及依赖数据的形状（nonzero、布尔掩码）都会让 CPU "
              "等待 GPU。每个训练步一次，就可能让 GPU 空转；`measurefirst doctor` 能找到它们并指出源代码行。",
    },
    "scaling.title": {"en": "Part 2. How time scales with size", "zh": "第二部分：时间如何随规模增长"},
    "scaling.intro": {
        "en": "A matrix product of n x n matrices does 2n³ FLOPs. Measured, with the time relative to n={ref} "
              "and the ratio that n³ predicts:",
        "zh": "n x n 矩阵乘法需要 2n³ 次浮点运算。下面是实测结果，以及相对于 n={ref} 的时间比和 n³ 预测的比值：",
    },
    "scaling.columns": {
        "en": "n|time|± CI|time / t(n={ref})|n³ ratio|GFLOP/s",
        "zh": "n|时间|± 置信区间|时间 / t(n={ref})|n³ 比值|GFLOP/s",
    },
    "scaling.fit": {
        "en": "Fitted cost model t(n) = t0 + c·n^k: fixed overhead t0 = {t0}, exponent k = {k:.2f} "
              "(95% CI {klo:.2f}–{khi:.2f}); the work term overtakes the overhead from n ≈ {cross}.",
        "zh": "拟合的代价模型 t(n) = t0 + c·n^k：固定开销 t0 = {t0}，指数 k = {k:.2f}"
              "（95% 置信区间 {klo:.2f}–{khi:.2f}）；从 n ≈ {cross} 开始，计算量超过固定开销。",
    },
    "scaling.nofit": {"en": "No cost-model fit: {why}", "zh": "无法拟合代价模型：{why}"},
    "scaling.marked": {
        "en": "! n={n}: read with care — {why}",
        "zh": "! n={n}：此点需谨慎看待 —— {why}",
    },
    "scaling.edge": {
        "en": "Warning: the exponent sits at the edge of the searched range (k = {k:.3f}); the times do not follow one "
              "power law (memory, swapping or a throttled machine at the largest sizes?). Fit a narrower range.",
        "zh": "警告：指数落在搜索范围的边界上（k = {k:.3f}）；这些时间不服从单一幂律（最大规模时内存、换页或机器降频？）。"
              "请缩小规模范围再拟合。",
    },
    "scaling.lesson": {
        "en": "Lesson: at small sizes a fixed overhead (Python dispatch, kernel launch) dominates and time barely "
              "moves; at large sizes time follows the work (n³ here). Optimize the part that dominates at your size.",
        "zh": "结论：规模小时，固定开销（Python 调度、内核启动）占主导，时间几乎不变；规模大时，时间随计算量增长"
              "（这里是 n³）。请针对你的规模下占主导的部分做优化。",
    },
    "profiler.title": {"en": "Part 3. What a profiler reveals", "zh": "第三部分：性能分析器揭示了什么"},
    "profiler.intro": {
        "en": "A hand-written tanh-GeLU against the fused F.gelu, on {numel} elements:",
        "zh": "手写的 tanh-GeLU 与融合的 F.gelu 对比，{numel} 个元素：",
    },
    "profiler.counts": {
        "en": "manual: {manual} {unit} per call ({detail}); fused: {fused} {unit} ({fdetail}).",
        "zh": "手写版：每次调用 {manual} 个{unit}（{detail}）；融合版：{fused} 个{unit}（{fdetail}）。",
    },
    "profiler.time": {
        "en": "time: manual {mt}, fused {ft} — {verdict} (interleaved comparison, 95% CI {lo:.3f}–{hi:.3f} on the "
              "time ratio).",
        "zh": "时间：手写版 {mt}，融合版 {ft} —— {verdict}（交错对比，时间比的 95% 置信区间 {lo:.3f}–{hi:.3f}）。",
    },
    "profiler.bytes": {
        "en": "Each of the manual ops reads and writes the whole tensor: about {mb} MB of memory traffic per call "
              "against {fmb} MB for the fused op.",
        "zh": "手写版的每个运算都要读写整个张量：每次调用约 {mb} MB 内存流量，融合版约 {fmb} MB。",
    },
    "profiler.kernels": {"en": "Kernels launched on the GPU, decoded:", "zh": "GPU 上启动的内核（已解码）："},
    "profiler.nsight": {
        "en": "For a timeline of a whole program use Nsight Systems (nsys profile -t cuda,nvtx python train.py); "
              "wrap phases in `with measurefirst.range(\"forward\"):` and they appear there as NVTX ranges, and in "
              "measurefirst's own profiles as record_function ranges.",
        "zh": "要看整个程序的时间线，请使用 Nsight Systems（nsys profile -t cuda,nvtx python train.py）；"
              "用 `with measurefirst.range(\"forward\"):` 包住各个阶段，它们会在 Nsight 中显示为 NVTX 区间，"
              "也会作为 record_function 区间出现在 measurefirst 的分析结果中。",
    },
    "profiler.lesson": {
        "en": "Lesson: benchmarking says how long; profiling says where. Fusing nine memory-bound ops into one is "
              "where this speed-up comes from.",
        "zh": "结论：基准测试告诉你花了多久，性能分析告诉你时间花在哪里。把九个受内存带宽限制的运算融合成一个，"
              "正是这次加速的来源。",
    },
    "ops": {"en": "ops", "zh": "运算"},
    "kernels": {"en": "kernels", "zh": "内核"},
    "faster": {"en": "fused is {x} than manual", "zh": "融合版比手写版{x}"},
    "done": {"en": "Measure first, then optimize.", "zh": "先测量，再优化。"},
}


def default_lang() -> str:
    """Chinese when the locale says so (LC_ALL, LC_MESSAGES, LANG, or the system locale), else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        loc = locale.getlocale()[0] or ""
    except ValueError:
        loc = ""
    return "zh" if loc.lower().startswith("zh") else "en"


def say(key: str, lang: str, **values: object) -> str:
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}; got {lang!r}")
    return TEXT[key][lang].format(**values)
