"""The words shown to people, in English and Chinese: the languages (:data:`LANGS`), the one format of a
word table (:data:`Words`: a key and its text in each language), and the table of the HTML report, the text
renderers, the command line's status lines, the selfcheck and the pytest plugin (:data:`WORDS`).

Results carry codes and numbers; the sentences a person reads are in tables of this one format: here, a
finding's in :mod:`measurefirst.render.findings`, the lecture's in :mod:`measurefirst.lecture.narration`.
Numbers, units, labels and user text are never translated; a value read from a file is data, filled into
a text, never used as one.
"""

from __future__ import annotations

import locale
import math
import os
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..results.comparison import Verdict
    from ..results.regression import Change

#: The languages every word is written in; the first is the default and the fallback.
LANGS = ("en", "zh")
#: The report's colour themes (``measurefirst report --theme``); the first is the default: the system's choice.
THEMES = ("auto", "light", "dark")

#: A table of words: key -> its text in each language, in the order of :data:`LANGS`. Values in braces are
#: filled with ``str.format`` (a finding's words, with the findings' own formatter).
Words = dict[str, tuple[str, str]]

WORDS: Words = {
    # the page
    "report_title": ("measurefirst report", "measurefirst 测量报告"),
    "contents": ("contents", "目录"),
    "footer": ("Made by measurefirst {version} on {when}. Self-contained: no network needed to view it.",
               "由 measurefirst {version} 于 {when} 生成。本页自包含，无需联网即可查看。"),
    "theme_auto": ("theme: auto", "主题：自动"),
    "theme_light": ("theme: light", "主题：浅色"),
    "theme_dark": ("theme: dark", "主题：深色"),
    "theme_toggle": ("switch between automatic, light and dark", "在自动、浅色、深色之间切换"),
    "filter": ("filter", "筛选"),
    "filter_hint": ("name contains…", "名称包含…"),
    "view": ("view", "视图"),
    "incomplete": ("incomplete", "未完成"),
    "has_incomplete": ("{n} result(s) are incomplete (interrupted): their statistics cover what was measured only.",
                       "{n} 个结果未完成（被中断）：统计只覆盖已测部分。"),
    # kinds
    "kind_summary": ("summary", "概要"),
    "kind_measurement": ("benchmark", "基准测试"),
    "kind_saved_run": ("saved run", "已保存的运行"),
    "kind_comparison": ("comparison", "对比"),
    "kind_sweep": ("sweep", "规模扫描"),
    "kind_profile": ("profile", "性能剖析"),
    "kind_profile_diff": ("profile diff", "剖析对比"),
    "kind_step": ("training step", "训练步"),
    "kind_diagnosis": ("doctor", "体检"),
    "kind_history": ("history", "历史"),
    "kind_regression": ("regression check", "回归检查"),
    "kind_selfcheck": ("selfcheck", "自检"),
    "kind_pytest_run": ("pytest run", "pytest 运行"),
    "kind_ranged_step": ("step by ranges", "按区间计时的训练步"),
    "kind_collectives": ("collectives", "集合通信"),
    "kind_rank_group": ("ranks", "多进程"),
    "kind_rank_comparison": ("compare on many ranks", "多进程比较"),
    "kind_group_history": ("history of many ranks", "多进程历史"),
    "kind_group_step": ("training step across ranks", "多进程训练步"),
    # summary
    "what": ("what", "测了什么"),
    "device": ("device", "设备"),
    "host": ("host", "主机"),
    "cpu": ("CPU", "CPU"),
    "threads": ("torch threads", "torch 线程数"),
    "torch": ("torch", "torch"),
    "platform": ("platform", "平台"),
    "when": ("when", "时间"),
    "version": ("version", "版本"),
    "version_words": ("measured with measurefirst {recorded}; report by {now}",
                      "测量所用 measurefirst {recorded}；报告由 {now} 生成"),
    "not_recorded": ("(not recorded)", "（未记录）"),
    "simulated": ("simulated clock/device (a test run)", "模拟的时钟/设备（测试运行）"),
    "n_sizes": ("{n} sizes", "{n} 个规模"),
    "n_runs": ("{n} runs", "{n} 次运行"),
    # findings
    "sev_error": ("error", "错误"),
    "sev_warning": ("warning", "警告"),
    "sev_info": ("note", "提示"),
    "why": ("Why:", "原因："),
    "fix": ("Fix:", "解决："),
    "fix_label": ("Fix", "解决"),
    "value_vs_threshold": ("measured {value}, threshold {threshold}", "测得 {value}，阈值 {threshold}"),
    "findings_of": ("Findings: {label}", "发现：{label}"),
    "no_findings": ("No findings.", "没有发现问题。"),
    # measurements
    "ci95": ("95% CI", "95% 置信区间"),
    "median": ("median", "中位数"),
    "mean": ("mean", "均值"),
    "min": ("min", "最小"),
    "time_per_call": ("time per call", "每次调用耗时"),
    "median_per_call": ("median time per call", "每次调用耗时中位数"),
    "ci_dots_title": ("Median per call with its 95% confidence interval", "每次调用耗时中位数及其 95% 置信区间"),
    "cap_ci_dots": ("Dot: the median; whisker: its 95% confidence interval.", "圆点：中位数；须线：95% 置信区间。"),
    "col_benchmark": ("benchmark", "基准"),
    "col_samples": ("samples × calls", "样本 × 调用"),
    "col_warmup": ("warm-up", "预热"),
    "col_device_timer": ("device · timer", "设备 · 计时器"),
    "col_stopped": ("stopped by", "停止原因"),
    "warmup_calls": ("{calls} calls", "{calls} 次调用"),
    "no_samples": ("no samples", "没有样本"),
    "preempted": ("preempted, set aside", "被抢占，已剔除"),
    "target_met": ("target met", "达到精度目标"),
    "target_not_met": ("target not met", "未达精度目标"),
    "stop_precision": ("precision reached", "达到精度"),
    "stop_budget": ("budget spent", "预算用尽"),
    "stop_noise": ("noise floor", "噪声下限"),
    "stop_trials": ("fixed trials", "固定次数"),
    "stop_max_samples": ("max samples", "样本数上限"),
    "stop_interrupted": ("interrupted", "被中断"),
    "stop_error": ("error", "出错"),
    "stop_settled": ("every verdict settled", "所有结论已确定"),
    # how a measurement was taken: the warm-up's rule, the calibration's reason, the CI's method (codes)
    "warmup_rule_fixed": ("a fixed count of warm-up calls", "固定次数的预热调用"),
    "warmup_rule_steady": ("until steady: until per-call time stopped falling, within a time cap",
                           "直到稳定：每次调用耗时不再下降为止，并有时间上限"),
    "warmup_rule_cut": ("cut at the budget", "在预算处截断"),
    "cal_reason_caller": ("fixed by the caller", "由调用者指定"),
    "cal_reason_cold_cache": ("cold cache: each call timed alone after a flush", "冷缓存：每次清缓存后单独计时一次调用"),
    "cal_reason_fixed_mode": ("fixed mode: one call per trial", "固定模式：每次试验一次调用"),
    "cal_reason_adaptive": ("smallest count with overhead and resolution each under {share:.2%} of a sample",
                            "使开销与分辨率各自低于样本 {share:.2%} 的最小次数"),
    "cal_reason_capped": ("capped so that one sample lasts a small share of the budget",
                          "设了上限，使一个样本只占预算的一小部分"),
    "cal_reason_graph": ("recalibrated on a timed graph replay", "在计时的 CUDA 图重放上重新校准"),
    "ci_method_order_statistics": ("order statistics", "顺序统计量"),
    "ci_method_batch_ranks": ("batch ranks (correlated samples)", "分批秩（样本相关）"),
    "ci_method_unbounded": ("not bounded by the samples: its ends are the quartiles",
                            "样本无法界定：区间两端取四分位数"),
    "ci_method_notch": ("notch of the reported quartiles", "所报告四分位数的凹口"),
    "ci_method_none": ("none", "无"),
    "samples_heading": ("Samples in order", "按顺序的样本"),
    "samples_note": ("Each sample's time per call in the order taken, with the median and its CI band: "
                     "drift or two speeds show here.",
                     "每个样本按采集顺序的单次耗时，附中位数与置信区间带：漂移或双速模式在此可见。"),
    "samples_title": ("{label}: samples in order", "{label}：按顺序的样本"),
    "sample_index": ("sample", "样本序号"),
    "saved_run": ("saved run", "已保存的运行"),
    "created": ("created", "创建时间"),
    "git_commit": ("git commit", "git 提交"),
    # instruction counts
    "kind_count": ("instruction count", "指令计数"),
    "counts_title": ("{event} per call: median over the repeats, and their range",
                     "每次调用的 {event}：各次重复的中位数及其范围"),
    "cap_counts": ("Dot: the median per call over the repeats; whisker: the lowest and highest repeat. Counts do "
                   "not drift with the machine's load, so they make tight CI gates.",
                   "圆点：各次重复的每次调用中位数；须线：最低与最高的重复。计数不随机器负载漂移，适合做严格的 CI 门槛。"),
    "per_call_of": ("{event} per call", "每次调用的 {event}"),
    "per_call": ("per call", "每次调用"),
    "event": ("event", "事件"),
    "max": ("max", "最大"),
    "repeats_calls": ("repeats × calls", "重复 × 调用"),
    "backend": ("counter", "计数器"),
    "range": ("range", "范围"),
    "cap_history_counts": ("Each dot links to its run below; whiskers: the range of the repeats; triangles and "
                           "dashed lines mark step changes.",
                           "每个点链接到下方对应的运行；须线：各次重复的范围；三角与虚线标出阶跃变化。"),
    # comparisons
    "baseline": ("baseline", "基线"),
    "baseline_is": ("baseline: {label}", "基线：{label}"),
    "against": ("against {baseline}", "（相对 {baseline}）"),
    "ratio_ci_words": ("time ratio {ratio} (95% CI {lo}–{hi}), ", "耗时比 {ratio}（95% 置信区间 {lo}–{hi}），"),
    "rounds": ("{n} interleaved rounds", "{n} 轮交错测量"),
    "rounds_label": ("rounds", "轮数"),
    "order": ("order", "顺序"),
    "precision": ("precision target", "精度目标"),
    "all_settled": ("every verdict settled", "所有结论已确定"),
    "not_all_settled": ("not every verdict settled", "并非所有结论都已确定"),
    "time_ratio": ("time ratio", "耗时比"),
    "ratio_ci": ("ratio 95% CI", "比值 95% 置信区间"),
    "speedup": ("speed-up", "加速比"),
    "verdict": ("verdict", "结论"),
    "col_candidate": ("candidate", "候选"),
    "col_compile": ("compile", "编译"),
    "col_break_even": ("pays off after (calls)", "回本所需调用次数"),
    "cache_cold": ("cold cache", "冷缓存"),
    "cache_warm": ("warm cache", "热缓存"),
    "never_pays": ("never (not faster)", "永不（并不更快）"),
    "forest_title": ("Time against {baseline}: ratio and 95% CI", "相对 {baseline} 的耗时：比值与 95% 置信区间"),
    "time_ratio_axis": ("time ratio (candidate / baseline), log scale", "耗时比（候选 / 基线），对数坐标"),
    "faster_side": ("← faster", "← 更快"),
    "slower_side": ("slower →", "更慢 →"),
    "cap_forest": ("Left of the line: faster than the baseline; a whisker crossing the line: no difference "
                   "detected.", "竖线左侧：比基线快；须线跨过竖线：未检出差异。"),
    "v_faster_x": ("{x}x faster", "速度为 {x} 倍"),
    "v_faster_pct": ("{p}% faster", "快 {p}%"),
    "v_slower_x": ("{x}x slower", "耗时为 {x} 倍"),
    "v_slower_pct": ("{p}% slower", "慢 {p}%"),
    "v_same": ("no difference detected", "未检出差异"),
    "v_same_detect": ("no difference detected (could have detected ±{d})", "未检出差异（可检出 ±{d}）"),
    "v_undecided": ("undecided: {n} round(s), too few for a 95% CI (give it a larger budget)",
                    "无定论：仅 {n} 轮，不足以给出 95% 置信区间（请加大预算）"),
    "v_undecided_drift": ("undecided: the ratio moved with the machine's load over {n} round(s) (parts of the run "
                          "point opposite ways; measure on a quieter machine or give it a larger budget)",
                          "无定论：{n} 轮中比值随机器负载变化（运行的不同部分指向相反方向；请在更安静的机器上测量或加大预算）"),
    # histories
    "history_title": ("History of {name}", "{name} 的历史"),
    "history_empty": ("No runs with samples under this name.", "此名称下没有含样本的运行。"),
    "run": ("run", "运行"),
    "vs_previous": ("vs previous", "较上次"),
    "step_change": ("step change", "阶跃变化"),
    "step_slower": ("▲ slower", "▲ 变慢"),
    "step_faster": ("▼ faster", "▼ 变快"),
    "cap_history": ("Each dot links to its run below; triangles and dashed lines mark step changes (beyond both "
                    "runs' CIs and 2%).", "每个点链接到下方对应的运行；三角与虚线标出阶跃变化（超出两次运行的置信区间且超过 2%）。"),
    "runs_heading": ("Runs", "各次运行"),
    # sweeps
    "size_n": ("size n", "规模 n"),
    "sweep_time_title": ("Time vs size ({device}), log-log, with the fitted t0 + c·n^k",
                         "耗时随规模变化（{device}），双对数坐标，附拟合 t0 + c·n^k"),
    "cap_sweep_time": ("Dots with whiskers: medians and 95% CIs; line: the fitted model; dotted: the overhead floor "
                       "t0; dashed vertical: the crossover, where the work term equals the overhead.",
                       "带须线的点：中位数与 95% 置信区间；实线：拟合模型；水平虚线：固定开销下限 t0；"
                       "竖直虚线：交叉点，即计算量项等于固定开销之处。"),
    "overhead_floor": ("{label}: overhead floor {t0}", "{label}：开销下限 {t0}"),
    "crossover_at": ("crossover n≈{n}", "交叉点 n≈{n}"),
    "fit_legend": ("{label}: t0 + c·n^{k}", "{label}：t0 + c·n^{k}"),
    "fit_words": ("t(n) = {t0} + {c}·n^{k} (k 95% CI {klo}–{khi}); the work dominates from {cross}; rms error {rms} "
                  "over {n} sizes", "t(n) = {t0} + {c}·n^{k}（k 的 95% 置信区间 {klo}–{khi}）；计算量从 {cross} "
                  "起占主导；均方根误差 {rms}，共 {n} 个规模"),
    "none_in_range": ("no size in range", "范围内无"),
    "no_fit": ("no fit", "无法拟合"),
    "poor_fit": ("a poor fit: the points do not follow one power law (cache regimes?); fit a narrower range",
                 "拟合较差：数据点不服从单一幂律（缓存层级？）；请缩小规模范围再拟合"),
    "complexity": ("best complexity class: {best}", "最佳复杂度类：{best}"),
    "throughput_title": ("Throughput vs size, log-log", "吞吐随规模变化，双对数坐标"),
    "measured_peak": ("measured peak {value}", "实测峰值 {value}"),
    "roofline_title": ("Roofline: {device} {dtype} (measured peaks)", "屋顶线：{device} {dtype}（实测峰值）"),
    "roofline_measured": ("roofline (measured)", "屋顶线（实测）"),
    "ridge_at": ("ridge {x} FLOP/B", "脊点 {x} FLOP/B"),
    "intensity_axis": ("arithmetic intensity (FLOP/byte)", "算术强度（FLOP/字节）"),
    "cap_roofline": ("Under the slope: memory-bound; under the flat roof: compute-bound. Labels are sizes n.",
                     "斜线下方：受内存带宽限制；平顶下方：受算力限制。标注为规模 n。"),
    "peaks": ("peaks", "峰值"),
    "peak_matmul": ("matmul peak", "矩阵乘峰值"),
    "peak_copy": ("copy bandwidth", "拷贝带宽"),
    "ridge": ("ridge", "脊点"),
    "no_peaks": ("No measured peaks in this sweep, so no roofline (run it without --no-peaks).",
                 "此次扫描没有实测峰值，因此没有屋顶线（不加 --no-peaks 重新运行）。"),
    "impl": ("implementation", "实现"),
    "time": ("time", "耗时"),
    "vs_reference": ("vs n={n}", "相对 n={n}"),
    "work_ratio": ("work ratio", "计算量比"),
    "bound": ("bound", "瓶颈"),
    "bound_overhead": ("overhead-bound", "开销受限"),
    "bound_memory": ("memory-bound", "内存受限"),
    "bound_compute": ("compute-bound", "算力受限"),
    "of_roof": ("of roof", "达屋顶"),
    "failed": ("failed", "失败"),
    "failed_sizes": ("{n} size(s) failed; the reason is in the table.", "{n} 个规模失败；原因见表格。"),
    "more_findings": ("… and {n} more measurements with findings.", "……另有 {n} 个测量含发现。"),
    "peaks_measured": ("how the peaks were measured", "峰值的测量条件"),
    # profiles
    "op": ("op", "算子"),
    "input_shapes": ("input shapes", "输入形状"),
    "calls": ("calls", "调用次数"),
    "self_time": ("self", "自身耗时"),
    "total_time": ("total", "总耗时"),
    "pct_self": ("% self", "自身占比"),
    "device_time": ("device", "设备耗时"),
    "bytes_est": ("bytes (est.)", "字节（估计）"),
    "memory": ("memory", "内存"),
    "kernel": ("kernel", "内核"),
    "launched_by": ("launched by", "发起算子"),
    "mean_time": ("mean", "平均"),
    "library": ("library", "库"),
    "fused": ("fused", "融合"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "view_work": ("work: ops that do the work", "工作算子：真正干活的算子"),
    "view_top": ("top-level ops", "顶层算子"),
    "view_all": ("all ops", "全部算子"),
    "ops_heading": ("Ops per step", "每步算子"),
    "ops_note": ("Click a column to sort; type to filter; the view shows the working ops, the top-level ops or "
                 "all of them.", "点击列标题排序；输入文字筛选；视图可选工作算子、顶层算子或全部算子。"),
    "kernels_heading": ("Kernels per step", "每步内核"),
    "top_ops": ("Where the time goes: working ops by self time", "时间花在哪里：按自身耗时排列的工作算子"),
    "top_kernels": ("Where the time goes: kernels by device time", "时间花在哪里：按设备耗时排列的内核"),
    "time_per_step": ("time per step", "每步耗时"),
    "kernels_unit": ("kernels", "个内核"),
    "ops_unit": ("working ops", "个工作算子"),
    "profiled_steps": ("profiled steps", "剖析步数"),
    "work_per_step": ("launched per step", "每步发起"),
    "step_under_profiler": ("one step under the profiler", "剖析器下的单步耗时"),
    "peak_device_memory": ("peak device memory", "设备内存峰值"),
    "trace_file": ("trace", "追踪文件"),
    "flops_by_module": ("FLOPs by module", "各模块 FLOPs"),
    "module": ("module", "模块"),
    "diff_counts": ("Per step: {items}.", "每步：{items}。"),
    "only_in": ("only in {label}:", "仅 {label} 有："),
    "only_in_col": ("only in", "仅出现于"),
    "diff_bars": ("Time per step of the top {unit}, side by side", "耗时最多的{unit}，逐项并列"),
    "diff_heading": ("{unit} side by side", "{unit}逐项对比"),
    "calls_of": ("{label} calls", "{label} 次数"),
    "time_of": ("{label} time", "{label} 耗时"),
    "bytes_of": ("{label} bytes", "{label} 字节"),
    "profile_of": ("ops of {label}", "{label} 的算子"),
    # steps
    "phase_data": ("data", "数据"),
    "phase_forward": ("forward", "前向"),
    "phase_backward": ("backward", "反向"),
    "phase_optimizer": ("optimizer", "优化器"),
    "phases_title": ("The step, phase by phase (median of the timed steps)", "训练步的各阶段（计时步的中位数）"),
    "cap_phases": ("Each bar is one variant's step; its segments are the phases.", "每条横条是一个变体的一步，分段为各阶段。"),
    "memory_title": ("Peak memory per phase", "各阶段内存峰值"),
    "cap_memory": ("Peak allocated memory during each phase (the peak counter is reset between phases).",
                   "各阶段内分配内存的峰值（阶段之间重置峰值计数）。"),
    "memory_cuda_only": ("Memory per phase is recorded on CUDA devices only.", "各阶段内存仅在 CUDA 设备上记录。"),
    "peak_allocated": ("peak allocated", "分配峰值"),
    "reserved": ("reserved", "保留"),
    "variant": ("variant", "变体"),
    "step": ("step", "整步"),
    "tokens_s": ("tokens/s (device)", "tokens/s（单卡）"),
    "samples_s": ("samples/s (device)", "样本/s（单卡）"),
    "mfu_table": ("MFU (datasheet)", "MFU（规格表）"),
    "mfu_measured": ("MFU (measured peak)", "MFU（实测峰值）"),
    "compile": ("compile", "编译"),
    "peak_memory": ("peak memory", "内存峰值"),
    "recompiles": ("recompiles", "重编译"),
    "steps_timed": ("steps", "步数"),
    "steps_words": ("median of {steps} timed steps; {warmup} warm-up steps excluded ({times})",
                    "{steps} 个计时步的中位数；{warmup} 个预热步不计（{times}）"),
    "flops_step": ("FLOPs per step", "每步 FLOPs"),
    "batch": ("batch", "批次"),
    "batch_words": ("micro-batch {mb}, seq {seq}, accumulation {accum}, world {world}",
                    "微批 {mb}，序列长 {seq}，梯度累积 {accum}，进程数 {world}"),
    "throughput": ("throughput", "吞吐"),
    "global_rate": ("{rate} global", "全局 {rate}"),
    "note": ("note", "说明"),
    "alloc_retries": ("allocator retries", "分配器重试"),
    # doctor
    "doctor_ok": ("no warnings", "没有警告"),
    "doctor_warnings": ("{n} warning(s)", "{n} 个警告"),
    "doctor_stopped": ("{verdict} in the checks run before Ctrl-C; the others did not run",
                       "Ctrl-C 之前运行的检查中{verdict}；其余检查未运行"),
    "doctor_time": ("measured time", "测得的用时"),
    "function_failed": ("The function failed:", "函数运行失败："),
    "checks_run": ("checks run", "已运行的检查"),
    "not_run": ("not run: {check}", "未运行：{check}"),
    # ---- the text renderers and the command line ------------------------------------------------------
    # a measurement in lines
    "m_head": ("{label}: {time}", "{label}：{time}"),
    "m_ci": (" ±{rel} ({ci})", " ±{rel}（{ci}）"),
    "m_imported_recomputed": ("; imported from {tool}, statistics recomputed from its raw times",
                              "；导入自 {tool}，统计量由其原始时间重新计算"),
    "m_imported_as_given": ("; imported from {tool} without raw times: its statistics as given, the interval from "
                            "its quartiles (none with under {n} rounds)",
                            "；导入自 {tool}，无原始时间：统计量照录，区间由其四分位数给出（少于 {n} 轮则无）"),
    "m_median_of": (", median of {used} samples × {calls} [{where}]", "，{used} 个样本（每个 {calls}）的中位数 [{where}]"),
    "m_preempted": ("; {n} preempted samples set aside", "；{n} 个被抢占的样本已剔除"),
    "m_host": ("; host launch {time} per call", "；主机端每次调用的发起耗时 {time}"),
    "m_incomplete": (" — INCOMPLETE (interrupted)", " — 未完成（被中断）"),
    "m_no_samples": ("{label}: no samples{state} [{where}]", "{label}：没有样本{state} [{where}]"),
    "interrupted_paren": (" (interrupted)", "（被中断）"),
    "incomplete_paren": (" (incomplete)", "（未完成）"),
    "ci_text": ("95% CI {range}", "95% 置信区间 {range}"),
    # the two uncertainties of a measurement: where the next run may land, and this run's precision
    "m_ci_next": (" {rel} run to run ({ci}, where the next run may land; spread ±{spread} per run from {source}; "
                  "this run's precision ±{prec})",
                  " {rel} 运行间（{ci}，下一次运行可能落在的范围；每次运行的离散度 ±{spread}，来自{source}；本次运行的精度 ±{prec}）"),
    "m_ci_prec": (" {rel} this run's precision ({ci}; run to run: not measured: {how})",
                  " {rel} 本次运行的精度（{ci}；运行间离散度：未测量：{how}）"),
    "prec_unbounded": ("not bounded: the machine changed speed in stretches as long as the run; a longer budget "
                       "bounds it", "无界：机器的速度变化持续时间与运行一样长；更长的预算可以界定它"),
    "col_run_to_run": ("run to run", "运行间"),
    "ci95_precision": ("precision (95% CI)", "精度（95% 置信区间）"),
    "pm_run_to_run": ("± run to run", "± 运行间"),
    "rtr_short_repeats": ("{n} reps", "{n} 次重复"),
    "rtr_short_processes": ("{n} procs", "{n} 个进程"),
    "rtr_short_history": ("{n} runs", "{n} 次运行"),
    "rtr_short_profile": ("profile", "画像"),
    "rtr_short_prior": ("prior", "先验"),
    "rtr_short_given": ("given", "指定"),
    "col_precision": ("precision", "精度"),
    "rtr_not_measured": ("not measured", "未测量"),
    "rtr_how": ("keep repeats >= 2 (the default), or pass processes=K / --processes K",
                "保留 repeats >= 2（默认），或传入 processes=K / --processes K"),
    "rtr_how_imported": ("one run of another tool holds no spread; import or save several runs and compare @NAME",
                         "另一工具的单次运行不含运行间散布；导入或保存多次运行后用 compare @NAME"),
    "rtr_src_repeats": ("{n} repetitions in this process", "本进程内的 {n} 次重复"),
    "rtr_src_processes": ("{n} fresh processes", "{n} 个新进程"),
    "rtr_src_history": ("{n} saved runs", "{n} 次已保存的运行"),
    "rtr_src_profile": ("this machine's noise profile", "本机的噪声画像"),
    "rtr_src_prior": ("measurefirst's prior (no noise profile of this machine)", "measurefirst 的先验（本机没有噪声画像）"),
    "rtr_src_given": ("a given figure", "指定值"),
    "rtr_floor": (", at least ±{floor} for a call this long by this machine's noise profile",
                  "，按本机噪声画像，这么长的调用至少 ±{floor}"),
    "rtr_floor_prior": (", at least ±{floor} for a call this long by measurefirst's prior (no noise profile of "
                        "this machine)", "，按 measurefirst 的先验（本机没有噪声画像），这么长的调用至少 ±{floor}"),
    "rtr_widened_prior": (", widened {factor}x by measurefirst's prior (no noise profile of this machine)",
                          "，按 measurefirst 的先验（本机没有噪声画像）放宽 {factor} 倍"),
    "rtr_in_process_only": ("; fresh processes may spread further: run `measurefirst selfcheck --noise` once",
                            "；新进程间的离散可能更大：运行一次 `measurefirst selfcheck --noise`"),
    "ci_na_few": ("CI n/a (too few samples)", "置信区间不可用（样本太少）"),
    "ci_na": ("CI n/a, ", "置信区间不可用，"),
    "call_one": ("{calls} call", "{calls} 次调用"),
    "calls_range": ("{lo}-{hi} calls", "{lo}-{hi} 次调用"),
    "ref_none": ("  speed reference ({label}, experimental): no usable reference samples",
                 "  速度参照（{label}，实验性）：没有可用的参照样本"),
    "ref_line": ("  speed reference ({label}, experimental): {time} normalized to the machine's fast state; median "
                 "speed factor {factor} ({state}; raw median {raw})",
                 "  速度参照（{label}，实验性）：按机器的快速状态归一后为 {time}；速度因子中位数 {factor}"
                 "（{state}；原始中位数 {raw}）"),
    "two_speeds_seen": ("two speeds seen", "出现两种速度"),
    "one_speed_seen": ("one speed seen", "只有一种速度"),
    # counts
    "count_none": ("{label}: no counts [{where}]", "{label}：没有计数 [{where}]"),
    "count_line": ("{label}: {value} {event} per call (±{spread} over {repeats} repeats × {calls} calls) [{where}]",
                   "{label}：每次调用 {value} {event}（±{spread}，{repeats} 次重复 × 每次 {calls} 次调用）[{where}]"),
    "repeats": ("repeats", "重复次数"),
    "calls_per_repeat": ("calls/repeat", "每次重复的调用数"),
    "col_backend": ("backend", "计数后端"),
    # the measurement table
    "samples_col": ("samples", "样本数"),
    "samples_calls": ("samples × calls", "样本数 × 调用数"),
    "calls_per_sample": ("calls/sample", "每样本调用数"),
    "device_timer": ("device/timer", "设备/计时器"),
    "preempted_paren": (" (+{n} preempted)", "（另 {n} 个被抢占）"),
    # comparisons in lines and tables
    "cmp_than": ("{label}: {words} than {baseline} — {ci}{rounds}", "{label}：相对 {baseline}，{words} — {ci}{rounds}"),
    "cmp_against": ("{label}: {words} against {baseline} — {ci}{rounds}",
                    "{label}：相对 {baseline}，{words} — {ci}{rounds}"),
    "stopped_line": ("stopped by {reason} after {seconds} s ({settled}){state}",
                     "停止原因：{reason}，用时 {seconds} 秒（{settled}）{state}"),
    "reason_precision": ("precision", "达到精度"),
    "reason_budget": ("budget", "预算用尽"),
    "reason_noise": ("noise", "触及噪声下限"),
    "reason_trials": ("trials", "固定次数"),
    "reason_max_samples": ("max_samples", "样本数上限"),
    "reason_interrupted": ("interrupted", "被中断"),
    "reason_error": ("error", "出错"),
    "reason_settled": ("settled", "结论已确定"),
    "vs_baseline": ("vs {baseline}", "相对 {baseline}"),
    "speedup_ci": ("speed-up 95% CI", "加速比 95% 置信区间"),
    "mark_caption": ("! = read with care: warnings, preempted samples set aside or the precision target not met "
                     "(listed below)", "标“!”者请谨慎解读：有警告、剔除了被抢占的样本或未达到精度目标（详见下方）"),
    "issue_line": ("! {label}: {issue}", "! {label}：{issue}"),
    "issue_finding": ("{code}: {message}", "{code}：{message}"),
    "issue_preempted": ("{k} of {n} samples preempted by the OS and set aside",
                        "{n} 个样本中有 {k} 个被操作系统抢占，已剔除"),
    "issue_precision": ("precision target ±{target} not met (±{got}, stopped by {reason})",
                        "未达到 ±{target} 的精度目标（实为 ±{got}，停止原因：{reason}）"),
    "issue_incomplete": ("incomplete (interrupted or failed)", "未完成（被中断或失败）"),
    "list_sep": ("; ", "；"),
    # sweeps in lines and tables
    "on_device": ("{name} on {device}", "{name}（{device}）"),
    "peaks_line": ("peaks: {peaks}", "峰值：{peaks}"),
    "peaks_text": ("{name} ({device}, {dtype}, {threads} threads): matmul {flops} GFLOP/s (n={n}), copy {bw} GB/s "
                   "({mib} MiB), ridge {ridge} FLOP/byte",
                   "{name}（{device}，{dtype}，{threads} 线程）：矩阵乘 {flops} GFLOP/s（n={n}），拷贝 {bw} GB/s"
                   "（{mib} MiB），脊点 {ridge} FLOP/字节"),
    "series_head": ("{label}:", "{label}："),
    "point_failed": ("  n={n}: failed — {error}", "  n={n}：失败 — {error}"),
    "sweep_error_out_of_memory": ("out of memory: {error}", "内存不足：{error}"),
    "sweep_error_exit": ("the code called sys.exit({error})", "代码调用了 sys.exit({error})"),
    "point_line": ("  n={n}: {time}{extra}", "  n={n}：{time}{extra}"),
    "point_rel": (", {rel}x the n={ref} time", "，为 n={ref} 耗时的 {rel}x"),
    "point_work": (" (work {work}x)", "（计算量 {work}x）"),
    "fit_line": ("  fit: {fit}", "  拟合：{fit}"),
    "fit_none": ("  fit: none — {error}", "  拟合：无 — {error}"),
    "fit_text": ("t(n) = {t0} + {c}·n^{k} (k 95% CI {klo}–{khi}); work dominates from {cross}; rms error {rms} over "
                 "{n} sizes", "t(n) = {t0} + {c}·n^{k}（k 的 95% 置信区间 {klo}–{khi}）；计算量从 {cross} 起占主导；"
                 "均方根误差 {rms}，共 {n} 个规模"),
    "fit_at_edge": (" — warning: the exponent sits at the edge of the searched range (k <= {k}): time grows faster "
                    "than any exponent tried, so this is no power law; check the largest sizes (memory, swapping, "
                    "throttling) or fit a narrower range",
                    " — 警告：指数落在搜索范围的边界（k <= {k}）：耗时增长快于所试的任何指数，这不是幂律；"
                    "请检查最大的几个规模（内存、换页、降频）或缩小拟合范围"),
    "fit_poor": (" — a poor fit: the points do not follow one power law (cache regimes?); fit a narrower range of "
                 "sizes", " — 拟合较差：数据点不服从单一幂律（缓存层级？）；请缩小规模范围再拟合"),
    "complexity_line": ("  complexity: {cx}", "  复杂度：{cx}"),
    "complexity_text": ("{best} + overhead: t(n) ≈ {t0} + {c}·g(n) (rms error {rms})",
                        "{best} + 固定开销：t(n) ≈ {t0} + {c}·g(n)（均方根误差 {rms}）"),
    "sweep_incomplete": ("INCOMPLETE (interrupted): the sizes above are the ones that finished",
                         "未完成（被中断）：以上只是已完成的规模"),
    "peaks_how": ("; measured {when} at load {load} on {cpus} CPUs", "；测于 {when}，当时负载 {load}，共 {cpus} 个 CPU"),
    # regression checks of saved results
    "reg_regression": ("REGRESSION", "性能回退"),
    "reg_slower": ("slower", "变慢"),
    "reg_faster": ("faster", "变快"),
    "reg_same": ("same", "无变化"),
    "reg_undecided": ("undecided", "无法判定"),
    "md_pytest_run": ("measurefirst: {n} benchmark(s)", "measurefirst：{n} 个基准"),
    "md_pytest_gate": ("measurefirst: {n} benchmark(s) against {baseline}, failing beyond {threshold} slower",
                       "measurefirst：{n} 个基准，对比 {baseline}，变慢超过 {threshold} 即失败"),
    "md_regressions": ("**{n} regression(s)**: {names}", "**{n} 项性能回退**：{names}"),
    "md_regression": ("measurefirst: {new} against {base}", "measurefirst：{new} 对比 {base}"),
    "md_others": ("{n} other result(s): see the HTML report (measurefirst report ... -o report.html)",
                  "另有 {n} 个结果：请看 HTML 报告（measurefirst report ... -o report.html）"),
    "more_unit": ("more {unit}", "{unit} 增加"),
    "fewer_unit": ("fewer {unit}", "{unit} 减少"),
    "within_noise": (" (within noise)", "（在噪声范围内）"),
    "no_interval": ("no interval", "无区间"),
    "change_words_unbounded": ("{pct}% {direction} by the medians (ratio {ratio}; no interval bounds it)",
                               "按中位数{direction} {pct}%（比值 {ratio}；没有区间能界定它）"),
    "ratio_cell_unbounded": ("{ratio}x (no interval)", "{ratio}x（无区间）"),
    "change_words": ("{pct}% {direction}{sig} (ratio {ratio}, 95% CI {lo}–{hi})",
                     "{direction} {pct}%{sig}（比值 {ratio}，95% 置信区间 {lo}–{hi}）"),
    "col_base": ("base", "旧结果"),
    "col_new": ("new", "新结果"),
    "col_change": ("change", "变化"),
    "note_flag": ("note: {label}: {flag}", "说明：{label}：{flag}"),
    "flag_devices": ("different devices: {base} vs {new}", "设备不同：{base} 与 {new}"),
    "flag_machines": ("different machines: {base} vs {new}", "机器不同：{base} 与 {new}"),
    "flag_counters": ("different counters: {base} vs {new} (counts differ between them)",
                      "计数器不同：{base} 与 {new}（两者的计数不可比）"),
    "flag_python": ("different python: {base} vs {new}", "Python 版本不同：{base} 与 {new}"),
    "flag_torch": ("different torch: {base} vs {new}", "torch 版本不同：{base} 与 {new}"),
    "flag_incomplete": ("incomplete run", "运行未完成"),
    "note_run_to_run": ("note: the intervals include a run-to-run spread of ±{cv} per run ({source}): two separate "
                        "runs differ by more than their own samples show; to tell versions apart within a few "
                        "percent, compare them interleaved (measurefirst compare A B)",
                        "说明：区间已计入每次运行 ±{cv} 的运行间波动（{source}）：两次独立运行之间的差异大于各自样本"
                        "所能显示的；要分辨几个百分点以内的差异，请交错比较（measurefirst compare A B）"),
    "rtr_assumed": ("assumed: not measured; measure it by re-running with repetitions (the default, repeats of 2 "
                    "or more), by saving 8 runs or more of the benchmark (compare @NAME), or give it (--run-to-run)",
                    "假定值：未实测；可用重复运行（默认，repeats 不少于 2）、为该基准测试保存 8 次以上运行（compare @NAME）"
                    "来实测，或直接给出（--run-to-run）"),
    "rtr_history": ("measured from the saved runs of the benchmark", "由该基准测试已保存的运行实测"),
    "rtr_given": ("given", "指定值"),
    "rtr_repeats": ("measured from its repetitions", "由其重复运行实测"),
    "rtr_processes": ("measured in fresh processes", "由新进程实测"),
    "rtr_profile": ("from the machine's noise profile", "来自本机的噪声画像"),
    "rtr_prior": ("from measurefirst's prior (no noise profile of the machine)", "来自 measurefirst 的先验（本机没有噪声画像）"),
    "note_applies": (" (for {labels})", "（适用于 {labels}）"),
    "and_more": (" and {n} more", " 等另外 {n} 项"),
    "note_run_to_run_sides": ("note: the intervals include each run's run-to-run spread: base ±{base} ({base_source}), "
                              "new ±{new} ({new_source})",
                              "说明：区间已计入每次运行的运行间波动：基线 ±{base}（{base_source}），新结果 ±{new}（{new_source}）"),
    "side_base": ("the baseline", "基线"),
    "side_new": ("the new run", "新结果"),
    "side_pair": ("the interleaved pair", "交错运行的两侧"),
    "undecided_interleaved": ("{side}: its interval ±{value} holds both no change and the threshold (it needs about "
                              "±{limit}: about {longer} as many worker pairs, --mf-against-pairs), or raise the "
                              "threshold to {suggest}",
                              "{side}：其区间 ±{value} 同时包含“无变化”与阈值（约需 ±{limit}：约 {longer} 倍的工作进程对数，"
                              "--mf-against-pairs），或把阈值提高到 {suggest}"),
    "undecided_processes": ("{side}: its worker pairs point opposite ways ({value} apart): fresh interpreters landed in "
                            "different speed modes; run more pairs (--mf-against-pairs) or on a quieter machine",
                            "{side}：各对工作进程的结论方向相反（相差 {value}）：全新进程落入了不同的速度模式；请增加进程对数"
                            "（--mf-against-pairs）或在更安静的机器上运行"),
    "undecided_line": ("undecided: {label}: too noisy to judge ({words}): {reasons}",
                       "无法判定：{label}：噪声过大，无法判断（{words}）：{reasons}"),
    "undecided_sep": ("; ", "；"),
    "undecided_preempted": ("{side}: {value} of its samples were preempted (more than {limit}): other processes "
                            "shared the cores, so its times are likely inflated; re-run on a quiet machine (stop other "
                            "jobs, or pin the benchmark to free cores with taskset)",
                            "{side}：{value} 的样本被抢占（超过 {limit}）：其他进程占用了 CPU 核，计时很可能偏高；请在空闲的"
                            "机器上重跑（停掉其他任务，或用 taskset 把基准测试绑定到空闲核）"),
    "undecided_two_speeds": ("{side}: its times fall in two speeds {value} apart (more than {limit}): the machine "
                             "changed speed during the run (another job, frequency scaling); re-run on a quiet "
                             "machine, or raise the threshold to {suggest}",
                             "{side}：其计时分成两档速度，相差 {value}（超过 {limit}）：运行中机器速度发生变化（其他任务、"
                             "频率调节）；请在空闲的机器上重跑，或把阈值提高到 {suggest}"),
    "undecided_noise_floor": ("{side}: sampling stopped at the machine's noise floor (±{value}, target ±{limit}); "
                              "re-run on a quieter machine, or give it more time (budget)",
                              "{side}：采样在机器的噪声下限处停止（±{value}，目标 ±{limit}）；请在更安静的机器上重跑，"
                              "或给它更多时间（budget）"),
    "undecided_imprecise": ("{side}: its precision ±{value} is wider than the check can judge with (±{limit}); give "
                            "it more time (budget, more rounds), re-run on a quieter machine, or raise the threshold "
                            "to {suggest}",
                            "{side}：其精度 ±{value} 宽于判定所能接受的（±{limit}）；请给它更多时间（budget、更多轮次）、"
                            "在更安静的机器上重跑，或把阈值提高到 {suggest}"),
    "undecided_on_line": ("{side}: its estimate sits on 1 or on the threshold (interval ±{value}): no number of worker "
                          "pairs would decide it",
                          "{side}：其估计值恰好落在 1 或阈值上（区间 ±{value}）：增加多少工作进程对都无法判定"),
    "undecided_unbounded": ("{side}: too few samples for an interval; give it more time (budget, more rounds) or "
                            "re-run on a quieter machine",
                            "{side}：样本太少，无法给出区间；请给它更多时间（budget、更多轮次）或在更安静的机器上重跑"),
    "undecided_spread": ("{side}: its run-to-run spread ±{value} is larger than {limit}: its repetitions disagree; "
                         "re-run on a quieter machine, or raise the threshold to {suggest}",
                         "{side}：其运行间波动 ±{value} 大于 {limit}：各次重复结果不一致；请在更安静的机器上重跑，"
                         "或把阈值提高到 {suggest}"),
    "pt_undecided_line": ("{label}: too noisy to judge against {baseline} ({words}): {reasons}",
                          "{label}：与 {baseline} 相比噪声过大，无法判断（{words}）：{reasons}"),
    "pt_undecided_brief": ("{line} (-v: the fixes)", "{line}（-v 显示修正办法）"),
    "pt_undecided_fails": ("measurefirst: too noisy to judge against the baseline (--mf-undecided fail)",
                           "measurefirst：与基线相比噪声过大，无法判断（--mf-undecided fail）"),
    "pt_undecided_tail": ("; {n} undecided: too noisy to judge ({policy})",
                          "；{n} 项无法判定：噪声过大（{policy}）"),
    "pt_undecided_pass": ("they pass; --mf-undecided fail makes them fail", "视为通过；--mf-undecided fail 会使其失败"),
    "pt_undecided_fail": ("they fail: --mf-undecided fail", "视为失败：--mf-undecided fail"),
    # the pytest plugin's lines (pytest/report.py)
    "pt_skip_only": ("not a measuring test (--mf-only)", "不是测量测试（--mf-only）"),
    "pt_skip_skip": ("a measuring test (--mf-skip)", "测量测试（--mf-skip）"),
    "pt_head_disabled": ("nothing timed (--mf-disable): each measured function runs once",
                         "不计时（--mf-disable）：每个被测函数只运行一次"),
    "pt_head_device": ("device {device}, budget {budget} s per measurement", "设备 {device}，每次测量预算 {budget} 秒"),
    "pt_head_simulated": (", simulated clock", "，模拟时钟"),
    "pt_head_compare": ("comparing with {baseline}", "与 {baseline} 比较"),
    "pt_head_gate": ("; a test fails when slower beyond its CI and {threshold}",
                     "；慢于置信区间且超过 {threshold} 时测试失败"),
    "pt_head_save": ("saving as @{name}", "保存为 @{name}"),
    "pt_head_compat": ("providing pytest-benchmark's `benchmark` fixture (--mf)",
                       "提供 pytest-benchmark 的 `benchmark` fixture（--mf）"),
    "pt_head_compat_off": ("; turned off for this run: {plugins}", "；本次运行已关闭：{plugins}"),
    "pt_head_ignored": ("{flag} is not supported under --mf and is ignored; use {instead}",
                        "{flag} 在 --mf 下不受支持，已忽略；请改用 {instead}"),
    "pt_xdist_worker": ("measurefirst refuses to measure under pytest-xdist (worker {worker}): timings taken while "
                        "other workers run in parallel are meaningless. Each measured function ran once and nothing "
                        "was timed. Run the measuring tests in one process: pytest -p no:xdist --mf-only (or -n 0)",
                        "measurefirst 拒绝在 pytest-xdist 下测量（工作进程 {worker}）：其他工作进程并行运行时测得的时间"
                        "没有意义。每个被测函数只运行了一次，没有计时。请在单个进程中运行测量测试：pytest -p no:xdist "
                        "--mf-only（或 -n 0）"),
    "pt_xdist_summary": ("refused to measure under pytest-xdist: {n} measuring test(s) ran on workers {workers} in "
                         "parallel, so nothing was timed (each measured function ran once). Timings taken while "
                         "other workers run are meaningless: run the measuring tests in one process, e.g. pytest -p "
                         "no:xdist --mf-only (or -n 0)",
                         "拒绝在 pytest-xdist 下测量：{n} 个测量测试在工作进程 {workers} 上并行运行，因此没有计时（每个"
                         "被测函数只运行了一次）。其他工作进程运行时测得的时间没有意义：请在单个进程中运行测量测试，"
                         "例如 pytest -p no:xdist --mf-only（或 -n 0）"),
    "pt_none_yet": ("none yet", "尚无"),
    "pt_no_saved": ("--mf-compare: no runs saved with --mf-save in {store}; save a baseline first, e.g. pytest "
                    "--mf-save base (or give the store with --mf-store PATH)",
                    "--mf-compare：{store} 中没有用 --mf-save 保存的运行；请先保存基线，例如 pytest --mf-save base"
                    "（或用 --mf-store PATH 指定存储）"),
    "pt_no_saved_named": ("--mf-compare {ref}: no runs saved under that name in {store} (saved: {known}); save them "
                          "first with --mf-save {name}",
                          "--mf-compare {ref}：{store} 中没有以此名保存的运行（已保存：{known}）；请先用 "
                          "--mf-save {name} 保存"),
    "pt_without_mf": ("{given} without --mf: {n} test(s) use pytest-benchmark's `benchmark` fixture (e.g. {example}), "
                      "which pytest-benchmark times, so these options would not apply to them; add --mf "
                      "(measurefirst then measures them), or leave the --mf-* options out to run pytest-benchmark "
                      "alone",
                      "{given} 未配合 --mf：{n} 个测试使用 pytest-benchmark 的 `benchmark` fixture（例如 {example}），"
                      "由 pytest-benchmark 计时，这些选项对它们不起作用；请加上 --mf（由 measurefirst 测量），"
                      "或去掉 --mf-* 选项，单独运行 pytest-benchmark"),
    "pt_weave": ("benchmark.weave is not supported under --mf (it patches functions with aspectlib while the test "
                 "runs); call benchmark(fn, *args) on the function instead",
                 "--mf 下不支持 benchmark.weave（它在测试运行时用 aspectlib 修补函数）；请改为对函数调用 "
                 "benchmark(fn, *args)"),
    "pt_regression_line": ("{label}: {words} than {baseline}, beyond the {threshold} threshold and the noise",
                           "{label}：比 {baseline} {words}，超出 {threshold} 的阈值和噪声"),
    "pt_regression_fails": ("measurefirst: slower than the baseline beyond the noise and the threshold "
                            "(--mf-fail-if-slower)",
                            "measurefirst：比基线慢，超出噪声和阈值（--mf-fail-if-slower）"),
    "pt_want_faster": ("at least {by}x faster than", "至少快 {by} 倍于"),
    "pt_want_slower": ("at least {by}x slower than", "至少慢 {by} 倍于"),
    "pt_want_not_slower": ("not slower than", "不慢于"),
    "pt_want_not_slower_by": ("not more than {by}x slower than", "慢不超过 {by} 倍于"),
    "pt_expected": ("expected {label} to be {want} {than}", "期望 {label} {want} {than}"),
    "pt_measured_than": ("measured: {words} than {than}", "实测：比 {than} {words}"),
    "pt_measured_against": ("measured: {words} against {than}", "实测：与 {than} 相比{words}"),
    "pt_measured_ratio": ("{measured} ({ratio}x)", "{measured}（{ratio} 倍）"),
    "pt_rounds": ("{ci}{rounds} interleaved rounds", "{ci}{rounds} 轮交错测量"),
    "pt_medians": ("; medians: {medians}", "；中位数：{medians}"),
    "pt_verdict_needs": ("(a verdict needs the ratio's 95% CI to exclude 1; a larger budget narrows it)",
                         "（要下结论，比值的 95% 置信区间必须不含 1；更大的预算可收窄它）"),
    "pt_preempted_cell": ("{cell} (+{n} preempted)", "{cell}（+{n} 被抢占）"),
    "pt_not_comparable": ("not comparable", "不可比较"),
    "pt_na": ("n/a", "不可用"),
    "pt_no_baseline_row": ("no baseline", "无基线"),
    "pt_new": ("new", "新增"),
    "pt_col_test": ("test", "测试"),
    "pt_col_median": ("median", "中位数"),
    "pt_col_ci": ("95% CI", "95% 置信区间"),
    "pt_col_samples": ("samples", "样本"),
    "pt_col_device": ("device/timer", "设备/计时器"),
    "pt_col_vs": ("vs {baseline}", "对比 {baseline}"),
    "pt_col_verdict": ("verdict", "结论"),
    "pt_group_title": ("group {group}", "分组 {group}"),
    "pt_interleaved_title": ("{name} (interleaved)", "{name}（交错）"),
    "pt_caption_run_to_run": ("±, 95% CI: where the next run may land (run to run)",
                              "±、95% 置信区间：下一次运行可能落在的范围（运行间）"),
    "pt_caption_precision": ("±, 95% CI: this run's precision (run to run not measured)",
                             "±、95% 置信区间：本次运行的精度（未测量运行间离散）"),
    "pt_caption_mixed": ("±, 95% CI: where the next run may land (run to run); * this run's precision only",
                         "±、95% 置信区间：下一次运行可能落在的范围（运行间）；* 仅本次运行的精度"),
    "pt_disabled_calls": ("nothing timed (--mf-disable): {n} measured function(s) ran once each",
                          "不计时（--mf-disable）：{n} 个被测函数各运行了一次"),
    "pt_title": ("{n} measurement(s) in {tests} test(s)", "{tests} 个测试中的 {n} 次测量"),
    "pt_title_compared": (", compared with {baseline} (time ratio new/baseline, 95% CI{spread})",
                          "，与 {baseline} 比较（时间比 新/基线，95% 置信区间{spread}）"),
    "pt_title_spread": ("; with both runs' run-to-run spreads", "；含两次运行各自的运行间离散"),
    "pt_title_simulated": ("; simulated clock", "；模拟时钟"),
    "pt_verdict_line": ("{prefix}: {label}: {measured} — {ci}{rounds} interleaved rounds",
                        "{prefix}：{label}：{measured} —— {ci}{rounds} 轮交错测量"),
    "pt_relation_than": ("{words} than {baseline}", "比 {baseline} {words}"),
    "pt_relation_against": ("{words} against {baseline}", "与 {baseline} 相比{words}"),
    "pt_findings": ("findings (! in the tables; -v shows how to fix each):", "发现（表中的 !；-v 显示各自的解决办法）："),
    "pt_findings_verbose": ("findings (! in the tables):", "发现（表中的 !）："),
    "pt_finding_line": ("  {label}: {line}", "  {label}：{line}"),
    "pt_flag_line": ("{label}: note: {flag}", "{label}：说明：{flag}"),
    "pt_not_compared": ("{label}: not compared with {baseline}: {error}", "{label}：未与 {baseline} 比较：{error}"),
    "pt_regression": ("REGRESSION {line}", "性能退化 {line}"),
    "pt_undecided": ("UNDECIDED {line}", "无法判定 {line}"),
    "pt_no_regression": ("no regression beyond {threshold} and the noise against {baseline}{tail}",
                         "与 {baseline} 相比没有超出 {threshold} 和噪声的性能退化{tail}"),
    "pt_saved": ("saved {n} measurement(s) as @{name} in {path} (compare with: --mf-compare {name})",
                 "已将 {n} 次测量保存为 @{name}，位于 {path}（比较：--mf-compare {name}）"),
    "pt_wrote": ("wrote {path}", "已写入 {path}"),
    "pt_error": ("error: {error}", "错误：{error}"),
    "bisect_step": ("{base} → {head}: median ratio of {n} worker pairs {ratio} ({ci})",
                    "{base} → {head}：{n} 对工作进程的比值中位数 {ratio}（{ci}）"),
    "bisect_ci": ("95% CI {lo}–{hi}", "95% 置信区间 {lo}–{hi}"),
    "bisect_no_ci": ("no interval from {n} pairs: 6 give one", "{n} 对不足以给出区间：需要 6 对"),
    "bisect_none": ("{bad} is faster than {good} by the ranks of its {n} worker pairs (median ratio {ratio}, "
                    "{ci}): nothing to bisect",
                    "按 {n} 对工作进程的秩，{bad} 比 {good} 更快（比值中位数 {ratio}，{ci}）：无需二分"),
    "bisect_ends_undecided": ("{bad} against {good}: the ranks of its {n} worker pairs cannot tell them apart (median "
                              "ratio {ratio}, {ci}); nothing bisected: a longer --budget or a quieter machine would "
                              "decide",
                              "{bad} 对比 {good}：{n} 对工作进程的秩无法区分两者（比值中位数 {ratio}，{ci}）；未做二分："
                              "更长的 --budget 或更安静的机器可以判定"),
    "bisect_found": ("first slow commit ({searched} searched): {commit}: median ratio {ratio} of {n} worker pairs "
                     "against the commit before it ({ci}); the last step's slower half measured {shift}x the other "
                     "(95% CI {slo}–{shi})",
                     "第一个变慢的提交（共搜索 {searched} 个）：{commit}：相对前一个提交，{n} 对工作进程的比值中位数 "
                     "{ratio}（{ci}）；最后一步中较慢的一半是另一半的 {shift} 倍（95% 置信区间 {slo}–{shi}）"),
    "bisect_found_undecided": ("first slow commit ({searched} searched), by the larger estimate where a step's pairs "
                               "could not decide (more --against-pairs or --budget would): {commit}: median ratio "
                               "{ratio} of {n} worker pairs against the commit before it ({ci}); the last step's slower "
                               "half measured {shift}x the other (95% CI {slo}–{shi})",
                               "第一个变慢的提交（共搜索 {searched} 个；有的步骤无法判定，按较大的估计选择，增加 "
                               "--against-pairs 或 --budget 可判定）：{commit}：相对前一个提交，{n} 对工作进程的比值中位数 "
                               "{ratio}（{ci}）；最后一步中较慢的一半是另一半的 {shift} 倍（95% 置信区间 {slo}–{shi}）"),
    "pt_try_against": ("a saved number is judged against another moment of the machine; --mf-against REF compares "
                       "code against code (the base commit and this tree interleaved in one job), which decides on a "
                       "busy machine",
                       "保存的数字是与机器另一时刻的状态比较；--mf-against REF 则是代码对代码（基线提交与当前代码树在同一"
                       "作业中交错运行），在繁忙的机器上也能判定"),
    "pt_against_done": ("code against code: {n} benchmark(s) compared with {base}, each in {pairs} pair(s) of fresh "
                        "worker interpreters, rounds interleaved",
                        "代码对代码：{n} 个基准与 {base} 比较，每个在 {pairs} 对全新的工作进程中运行，各轮交错"),
    "pt_against_only_head": ("{n} new test(s), not in {base} (not compared): {tests}",
                             "{n} 个新测试不在 {base} 中（未比较）：{tests}"),
    "pt_against_only_base": ("{n} test(s) of {base} not in this tree (not compared): {tests}",
                             "{base} 中的 {n} 个测试不在当前代码树中（未比较）：{tests}"),
    "pt_against_skipped": ("{n} test(s) skipped on both sides: {tests}", "{n} 个测试在两侧都被跳过：{tests}"),
    "pt_against_mismatched": ("{n} test(s) measure differently on the two sides (not compared): {tests}",
                              "{n} 个测试在两侧的测量方式不同（未比较）：{tests}"),
    "pt_against_failed": ("{test} failed on {side} (not compared): {text}", "{test} 在{side}上失败（未比较）：{text}"),
    "pt_against_side_base": ("the base", "基线"),
    "pt_against_side_head": ("this tree", "当前代码树"),
    "undecided_count": ("{n} change(s) undecided: too noisy to judge (exit code 3); nothing failed",
                        "{n} 项变化无法判定：噪声过大（退出码 3）；没有失败项"),
    "note_unmatched": ("note: {label} is in only one of the two", "说明：{label} 只出现在其中一方"),
    "regression_line": ("regression: {label} is {words}, beyond the {threshold} threshold",
                        "性能回退：{label} {words}，超出 {threshold} 的阈值"),
    "slower_line": ("regression: {label} is {words} than {baseline}", "性能回退：相对 {baseline}，{label} {words}"),
    "flag_other": ("{flag}: {base} vs {new}", "{flag}：{base} 与 {new}"),  # a flag from a newer file, as data
    # saved runs, histories, decoded kernel names
    "col_id": ("id", "编号"),
    "col_kind": ("kind", "类型"),
    "name": ("name", "名称"),
    "commit": ("commit", "提交"),
    "history_of": ("history of {name}", "{name} 的历史"),
    "step_col": ("step", "阶跃"),
    "spread_over": ("±{spread} over {n} repeats", "±{spread}，共 {n} 次重复"),
    "arch": ("arch", "架构"),
    "dtype": ("dtype", "数据类型"),
    "tile": ("tile", "分块"),
    "layout": ("layout", "布局"),
    "tensor_cores": ("tensor cores", "张量核心"),
    "tc": ("TC", "张量核心"),
    "fused_ops": ("fused ops", "融合算子"),
    # profiles in lines and tables
    "op_title": ("{label}: {view} ops per step ({device}, {steps} steps)", "{label}：每步的{view}算子（{device}，{steps} 步）"),
    "vw_work": ("work", "工作"),
    "vw_top": ("top", "顶层"),
    "vw_all": ("all", "全部"),
    "kernel_title": ("{label}: kernels per step", "{label}：每步内核"),
    "unit_kernels": ("kernels", "内核"),
    "unit_work_ops": ("work ops", "工作算子"),
    "unit_ops": ("ops", "算子"),
    "profile_head": ("{label} on {device}: {n} {unit} per step, one step {time} under the profiler",
                     "{label}（{device}）：每步 {n} 个{unit}，剖析器下单步耗时 {time}"),
    "profile_op": ("  {calls} x {name} self {time}", "  {calls} x {name} 自身耗时 {time}"),
    "profile_kernel": ("  {calls} x kernel {name} ({library}, {op}) {time}", "  {calls} x 内核 {name}（{library}，{op}）{time}"),
    "peak_memory_line": ("  peak device memory {bytes}", "  设备内存峰值 {bytes}"),
    "trace_line": ("  trace: {path} (open in https://ui.perfetto.dev or chrome://tracing)",
                   "  追踪文件：{path}（用 https://ui.perfetto.dev 或 chrome://tracing 打开）"),
    "diff_title": ("{labels}: {unit} per step", "{labels}：每步{unit}"),
    "total_row": ("total", "合计"),
    "diff_count": ("{label}: {n} {unit}", "{label}：{n} 个{unit}"),
    "per_step_items": ("{items} per step", "每步：{items}"),
    "only_in_line": ("only in {label}: {items}", "仅 {label} 有：{items}"),
    "list_comma": (", ", "，"),
    "flops_module": ("FLOPs {module}: {flops}", "FLOPs {module}：{flops}"),
    # steps in lines and tables
    "step_title": ("training step, per phase (median of the timed steps)", "训练步各阶段耗时（计时步的中位数）"),
    "tokens_dev": ("tokens/s (dev)", "tokens/s（单卡）"),
    "samples_dev": ("samples/s (dev)", "样本/s（单卡）"),
    "mfu_table_short": ("MFU (table)", "MFU（规格表）"),
    "mfu_measured_short": ("MFU (measured)", "MFU（实测峰值）"),
    "peak_mem": ("peak mem", "内存峰值"),
    "peak_cell": ("{mib} MiB ({phase})", "{mib} MiB（{phase}）"),
    "step_head": ("{label} on {device}: step {time} (median of {steps}; {warmup} warm-up steps excluded: {times})",
                  "{label}（{device}）：每步 {time}（{steps} 步的中位数；不计 {warmup} 个预热步：{times}）"),
    "phases_line": ("  phases: {phases}", "  各阶段：{phases}"),
    "throughput_line": ("  throughput: {dev} per device, {glob} global{tokens} ({batch}){note}",
                        "  吞吐：单卡 {dev}，全局 {glob}{tokens}（{batch}）{note}"),
    "tokens_part": ("; {dev} per device, {glob} global", "；单卡 {dev}，全局 {glob}"),
    "batch_short": ("micro-batch {mb}, seq {seq}, accum {accum}, world {world}",
                    "微批 {mb}，序列长 {seq}，梯度累积 {accum}，进程数 {world}"),
    "mfu_line": ("  FLOPs/step {flops} ({source}); MFU vs {peak}: {table}; vs measured peak: {measured}",
                 "  每步 FLOPs {flops}（{source}）；相对 {peak} 的 MFU：{table}；相对实测峰值：{measured}"),
    "mfu_of_peak": ("{mfu} of {peak} GFLOP/s", "{peak} GFLOP/s 的 {mfu}"),
    "fix_tail": (" — fix: {fix}", " — 解决：{fix}"),
    "note_tail": (" — {note}", " — {note}"),
    "flops_src_not_given": ("not given", "未提供"),
    "flops_src_given": ("given", "用户给定"),
    "flops_src_6n": ("6·N·tokens (approximation)", "6·N·tokens（近似）"),
    "flops_src_6n_needs_tokens": ("6N needs micro_batch and seq_len", "6N 需要 micro_batch 和 seq_len"),
    "flops_src_no_batch": ("no batch seen", "没有见到批次"),
    "flops_src_counted": ("FlopCounterMode (forward + backward)", "FlopCounterMode（前向 + 反向）"),
    "tput_no_seq_len": ("tokens/s needs seq_len (the tokens per sample); samples/s shown instead",
                        "tokens/s 需要 seq_len（每个样本的 token 数）；改为显示 样本/s"),
    "table_peak_none_cpu": ("CPU: no datasheet peak", "CPU：没有规格表峰值"),
    "table_peak_not_in_table": ("{name}: not in the dense-peak table (no guess)", "{name}：不在稠密峰值表中（不作猜测）"),
    # steps timed by their ranges, in one line
    "ranged_line": ("{label} on {device}: step {time} (median of {steps}; {warmup} warm-up steps excluded); phases: "
                    "{phases}; outside any range {unmarked}",
                    "{label}（{device}）：每步 {time}（{steps} 步的中位数；不计 {warmup} 个预热步）；各阶段：{phases}；"
                    "不在任何区间内 {unmarked}"),
    # collectives in lines
    "co_head": ("collectives on {n} ranks, backend {backend}, device {device} (time: slowest rank's median per call; "
                "size: nccl-tests' total buffer)",
                "{n} 个进程上的集合通信，后端 {backend}，设备 {device}（时间：最慢进程每次调用的中位数；"
                "大小：nccl-tests 的总缓冲区）"),
    "co_latency": ("latency t0 {t0} us   ", "延迟 t0 {t0} us   "),
    "co_flat": ("(time does not grow with size)", "（时间不随大小增长）"),
    "co_bandwidth": ("asymptotic algbw {algbw} GB/s   busbw {busbw} GB/s", "渐近算法带宽 {algbw} GB/s   总线带宽 {busbw} GB/s"),
    "co_fit_head": ("fit t(size) = t0 + size/bw (least squares on relative error):",
                    "拟合 t(size) = t0 + size/bw（相对误差的最小二乘）："),
    "co_fit_poor": ("(a poor fit: no asymptotic bandwidth to read; see the findings)",
                    "（拟合不佳：读不出渐近带宽；见下方发现）"),
    # rank groups in lines
    "rank_median_line": ("rank {rank}: median {us} us", "进程 {rank}：中位数 {us} us"),
    "rank_spread_line": ("spread across ranks {spread}; slowest rank {rank} at {x}x the median rank",
                         "进程间差异 {spread}；最慢的是进程 {rank}，是中位进程的 {x} 倍"),
    "rank_straggler_line": ("straggler: rank {rank} (beyond {t})", "掉队者：进程 {rank}（超出 {t}）"),
    "rank_group_line": ("{label} on {n} ranks ({backend}): median rank {us} us, spread across ranks {spread} "
                        "(fastest rank {fast} {fast_us} us, slowest rank {slow} {slow_us} us)",
                        "{label} 在 {n} 个进程上（{backend}）：中位进程 {us} us，进程间差异 {spread}"
                        "（最快的进程 {fast} {fast_us} us，最慢的进程 {slow} {slow_us} us）"),
    "rank_node": (" on {node}", "，位于 {node}"),
    # compare on many ranks in lines
    "rc_head": ("compare on {n} ranks ({backend}): each rank interleaved the candidates; one verdict for the group",
                "在 {n} 个进程上比较（{backend}）：每个进程各自交错运行各候选；整个进程组给出一个结论"),
    "rc_line": ("{label} vs {baseline}: {verdict} (median of the ranks' ratios {ratio}{ci})",
                "{label} 对比 {baseline}：{verdict}（各进程比值的中位数 {ratio}{ci}）"),
    "rc_ci": (", every rank's 95% CI within {lo}–{hi}", "，各进程的 95% CI 都在 {lo}–{hi} 之内"),
    "rc_rank_line": ("  rank {rank}{node}: {words} (ratio {ratio})", "  进程 {rank}{node}：{words}（比值 {ratio}）"),
    "rc_disagree": ("the ranks disagree", "各进程结论不一致"),
    "rc_rank_findings": ("rank {rank}{node}:", "进程 {rank}{node}："),
    # histories of many ranks in lines
    "gh_head": ("{name}: {n} saved runs of {kind}", "{name}：{n} 次保存的{kind}运行"),
    "gh_busbw": ("busbw GB/s by run:", "各次运行的总线带宽 GB/s："),
    "gh_group_run": ("#{id} {created}: {n} ranks ({backend}) on {layout}, median rank {us} us, spread {spread}{straggler}",
                     "#{id} {created}：{n} 个进程（{backend}），分布 {layout}，中位进程 {us} us，差异 {spread}{straggler}"),
    "gh_coll_run": ("#{id} {created}: {n} ranks ({backend}) on {layout}", "#{id} {created}：{n} 个进程（{backend}），分布 {layout}"),
    "gh_step_run": ("#{id} {created}: {n} ranks ({backend}, {parallel}) on {layout}, step {step} (slowest rank), {rate}"
                    "{stragglers}",
                    "#{id} {created}：{n} 个进程（{backend}，{parallel}），分布 {layout}，每步 {step}（最慢的进程），{rate}"
                    "{stragglers}"),
    "gh_step_stragglers": (", stragglers: {which}", "，掉队者：{which}"),
    "gh_phase_straggler": ("rank {rank} in {phase}", "进程 {rank}（{phase} 阶段）"),
    "gh_phases": ("compute time by run (each rank's step, and each phase less its wait in collectives):",
                  "各次运行的计算时间（每个进程的一步，以及每个阶段减去集合通信等待）："),
    "gh_straggler": (", straggler rank {rank}", "，掉队者进程 {rank}"),
    "gh_compare_run": ("#{id} {created}: {n} ranks ({backend}) on {layout}, {verdicts}",
                       "#{id} {created}：{n} 个进程（{backend}），分布 {layout}，{verdicts}"),
    "gh_check": ("#{id} against #{before}:", "#{id} 对比 #{before}："),
    "gh_regressed": ("  {label}: {words}", "  {label}：{words}"),
    # a training step across ranks in lines (render/group_step.py)
    "gs_head": ("training step {label} across {n} ranks on {nodes} node(s): {parallel}, backend {backend}, {dtype}; "
                "medians of {steps} steps after {warmup} warm-up",
                "训练步 {label}，{n} 个进程分布在 {nodes} 个节点上：{parallel}，后端 {backend}，{dtype}；"
                "预热 {warmup} 步后 {steps} 步的中位数"),
    "gs_rank": ("rank", "进程"),
    "gs_node": ("node", "节点"),
    "gs_local": ("local", "本地"),
    "gs_step": ("step", "整步"),
    "gs_wait": ("wait", "等待"),
    "gs_compute": ("compute", "计算"),
    "gs_exposed": ("exposed comm", "暴露的通信"),
    "gs_peak_mem": ("peak mem", "内存峰值"),
    "gs_wait_ddp_comm_hook": ("wait: time blocked in collectives, timed by a DDP communication hook around each "
                              "bucket's all-reduce (waited on where issued, so nothing overlaps: exposed comm = step "
                              "- compute is an upper bound for a job that overlaps)",
                              "等待：阻塞在集合通信中的时间，由 DDP 通信钩子围绕每个桶的 all-reduce 计时（在发出处等待完成，"
                              "因而没有重叠：暴露的通信 = 整步 - 计算，是会重叠的作业的上界）"),
    "gs_wait_fsdp2_custom_comm": ("wait: time blocked in collectives, timed by FSDP2's custom all-gather and "
                                  "reduce-scatter (waited on where issued, so nothing overlaps: exposed comm = step "
                                  "- compute is an upper bound for a job that overlaps)",
                                  "等待：阻塞在集合通信中的时间，由 FSDP2 的自定义 all-gather 与 reduce-scatter 计时"
                                  "（在发出处等待完成，因而没有重叠：暴露的通信 = 整步 - 计算，是会重叠的作业的上界）"),
    "gs_global": ("group: {tokens}, {samples} (sums over the {n} ranks); MFU {mfu}",
                  "整组：{tokens}，{samples}（{n} 个进程之和）；MFU {mfu}"),
    "gs_mfu_why": ("n/a ({why})", "n/a（{why}）"),
    "gs_no_straggler": ("no straggler: in every phase each rank computes within {t} of the median rank",
                        "没有掉队者：每个阶段中每个进程的计算时间都在中位进程的 {t} 以内"),
    # doctor in lines
    "doctor_head": ("doctor: {label} on {device}", "体检：{label}（{device}）"),
    "doctor_failed": ("  the function failed: {error}", "  函数运行失败：{error}"),
    "doctor_time_line": ("  measured: {summary}", "  测得：{summary}"),
    "why_line": ("      why: {why}", "      原因：{why}"),
    "fix_line": ("      fix: {fix}", "      解决：{fix}"),
    "checks_line": ("  checks run: {checks}", "  已运行的检查：{checks}"),
    "none": ("none", "无"),
    "not_run_line": ("  not run: {check} ({why})", "  未运行：{check}（{why}）"),
    "skip_simulated": ("simulated clock", "模拟时钟"),
    "skip_function_failed": ("the function failed", "函数运行失败"),
    "skip_interrupted": ("stopped by Ctrl-C", "被 Ctrl-C 中止"),
    "skip_budget": ("one call outlasts the budget: give a larger --budget", "一次调用超出预算：请给更大的 --budget"),
    "verdict_line": ("  verdict: {verdict}", "  结论：{verdict}"),
    # the command line's status lines
    "who_benchmark": ("benchmark {label!r}", "基准测试 {label!r}"),
    "who_sweep": ("sweep {label!r}", "规模扫描 {label!r}"),
    "who_candidate": ("a candidate", "某个候选"),
    "who_profiled": ("the profiled code", "被剖析的代码"),
    "who_step": ("the step", "训练步"),
    "who_code": ("the code under test", "被测代码"),
    "interrupted_partial": ("interrupted: showing what was measured so far (marked incomplete)",
                            "已中断：显示目前已测得的部分（标记为未完成）"),
    "interrupted": ("interrupted", "已中断"),
    "raised_interrupt": ("error: {who} raised KeyboardInterrupt itself (no Ctrl-C was pressed); code under "
                         "measurement must not raise it",
                         "错误：{who} 自己抛出了 KeyboardInterrupt（并没有按 Ctrl-C）；被测代码不应抛出它"),
    "code_raised_interrupt": ("error: the code under test raised KeyboardInterrupt",
                              "错误：被测代码抛出了 KeyboardInterrupt"),
    "called_exit": ("error: {who} called sys.exit({code}); code under measurement must return, not exit",
                    "错误：{who} 调用了 sys.exit({code})；被测代码应当返回，而不是退出"),
    "failed_line": ("error: {error}{hint}", "错误：{error}{hint}"),
    "hint_unbound_local": (" (statements run inside a function, so a name the statement assigns, as in x += 1, is "
                           "local to it: assign it in -s setup and write `global x; x += 1`, or time a module:function)",
                           "（语句在函数内运行，所以语句赋值的名字（如 x += 1）是局部变量：请在 -s setup 中给它赋值并写 "
                           "`global x; x += 1`，或者改测 module:function）"),
    "saved_runs": ("saved {n} run(s) to {path}: {runs}", "已将 {n} 次运行保存到 {path}：{runs}"),
    "not_saved": ("not saved: {label} has no samples", "未保存：{label} 没有样本"),
    "error_line": ("error: {error}", "错误：{error}"),
    "save_failed": ("error: the results were not saved: {error}; {where}", "错误：结果未能保存：{error}；{where}"),
    "kept_in": ("they are kept in {path} (a results file: measurefirst compare reads it)",
                "它们已保存在 {path}（一个结果文件，measurefirst compare 可以读取）"),
    "kept_nowhere": ("and no fallback file could be written either; the results above are all there is",
                     "备用文件也无法写入；以上显示的就是全部结果"),
    "measuring_peaks": ("measuring machine peaks (cached afterwards; --no-peaks skips) ...",
                        "正在测量机器峰值（之后会缓存；--no-peaks 可跳过）……"),
    "plots_written": ("plots: {files}", "图表：{files}"),
    "plots_failed": ("error: plots not written: {error}", "错误：图表未写入：{error}"),
    "sizes_all_failed": ("error: every size failed: {errors}", "错误：所有规模都失败了：{errors}"),
    "sizes_failed": ("{n} size(s) failed: {errors}", "{n} 个规模失败：{errors}"),
    "size_error": ("n={n}: {error}", "n={n}：{error}"),
    "run_header": ("#{id} {name}: {kind}, {created}", "#{id} {name}：{kind}，{created}"),
    "saved_run_header": ("#{id} {name} ({created})", "#{id} {name}（{created}）"),
    "labelled_line": ("{label}: {line}", "{label}：{line}"),
    "saved_run_line": ("#{id} {name} ({created}): {line}", "#{id} {name}（{created}）：{line}"),
    "history_head": ("history of {name}: {n} run(s)", "{name} 的历史：{n} 次运行"),
    "history_run": ("  #{id} {created} {value}", "  #{id} {created} {value}"),
    "history_step_mark": ("  step", "  阶跃"),
    "changes_head": ("change points of {name}: {n} run(s), run-to-run spread {spread} (read from the series)",
                     "{name} 的变化点：{n} 次运行，运行间离散度 {spread}（由序列读出）"),
    "changes_too_short": ("  too few runs to look for a change ({n}; a change needs {need} runs around it)",
                          "  运行太少，无法寻找变化（{n} 次；一个变化前后共需 {need} 次运行）"),
    "changes_segment": ("  runs {first} to {last}: {level} (95% CI {ci}), {kept} run(s) weighed",
                        "  运行 {first} 至 {last}：{level}（95% CI {ci}），计入 {kept} 次运行"),
    "changes_point_slower": ("  ▲ change at {run} (commit {commit}): {ratio}x, slower (95% CI {low}–{high}), p {p}",
                             "  ▲ 变化于 {run}（提交 {commit}）：{ratio}x，变慢（95% CI {low}–{high}），p {p}"),
    "changes_point_faster": ("  ▼ change at {run} (commit {commit}): {ratio}x, faster (95% CI {low}–{high}), p {p}",
                             "  ▼ 变化于 {run}（提交 {commit}）：{ratio}x，变快（95% CI {low}–{high}），p {p}"),
    "changes_drift": ("  ~ drift over runs {first} to {last}: {per_run} per run (95% CI {low} to {high}), {total}x "
                      "over the stretch",
                      "  ~ 运行 {first} 至 {last} 间漂移：每次运行 {per_run}（95% CI {low} 至 {high}），整段 {total}x"),
    "changes_none": ("  no change point and no drift: one level over every run (a change needs {m} runs on each "
                     "side to be seen)",
                     "  没有变化点，也没有漂移：所有运行同一水平（一个变化两侧各需 {m} 次运行才能看到）"),
    "changes_left_out": ("  left out of the search: {runs}", "  未参与搜索：{runs}"),
    "changes_why_disturbed": ("disturbed", "受干扰"),
    "suite_of": ("suite {name}: {n} benchmark(s)", "套件 {name}：{n} 个基准"),
    "suite_runs": ("runs", "运行次数"),
    "suite_latest": ("latest", "最新"),
    "suite_last_change": ("latest change point (whole series)", "最近的变化点（整个序列）"),
    "suite_change_slower": ("▲ {ratio}x at {run} (commit {commit})", "▲ {ratio}x 于 {run}（提交 {commit}）"),
    "suite_change_faster": ("▼ {ratio}x at {run} (commit {commit})", "▼ {ratio}x 于 {run}（提交 {commit}）"),
    "suite_drift": ("~ drift {per_run} per run since {first}", "~ 自 {first} 起每次运行漂移 {per_run}"),
    "suite_no_change": ("none", "无"),
    "publish_title": ("Benchmarks over time", "基准随时间的变化"),
    "lang_name": ("English", "中文"),
    "publish_machine": ("machine", "机器"),
    "publish_latest_run": ("latest run", "最新运行"),
    "publish_index_head": ("{n} benchmark series (one per benchmark and machine); {changed} with a change point or a "
                           "drift over their whole series. A change point is a level that moved (one run off is never "
                           "one); click a name for its series.",
                           "{n} 个基准序列（每个基准、每台机器一个）；其中 {changed} 个在整个序列中有变化点或漂移。变化点是水平的移动"
                           "（单次运行偏离从不算）；点击名称查看其序列。"),
    "publish_caption": ("each run's median and 95% interval; the segments' levels (solid) and their 95% intervals "
                        "(dashed); a vertical line at each change point, with its ratio",
                        "每次运行的中位数与 95% 区间；各段的水平（实线）及其 95% 区间（虚线）；每个变化点一条竖线，标有其比值"),
    "publish_ratio": ("ratio", "比值"),
    "publish_p": ("p-value", "p 值"),
    "publish_changes_heading": ("Change points", "变化点"),
    "publish_runs_heading": ("The latest {shown} of {n} runs", "{n} 次运行中最新的 {shown} 次"),
    "publish_back": ("← every benchmark", "← 所有基准"),
    "published": ("wrote {pages} page(s) of {n} benchmark series to {folder} (open {index})",
                  "已将 {n} 个基准序列的 {pages} 个页面写入 {folder}（打开 {index}）"),
    "changes_why_wide": ("its own interval is wider than {wide}x the series' spread",
                         "其自身区间宽于序列离散度的 {wide} 倍"),
    "deleted_run": ("deleted run #{id}", "已删除运行 #{id}"),
    "imported_runs": ("imported {n} run(s) of {k} benchmark(s) from {files} {tool} file(s) into {store}: {names}",
                      "已从 {files} 个 {tool} 文件导入 {k} 个基准的 {n} 次运行到 {store}：{names}"),
    "imported_next": ("; next: measurefirst history {first}, measurefirst compare @{first}",
                      "；接着：measurefirst history {first}，measurefirst compare @{first}"),
    "imported_next_prefix": ("; next: pytest --mf --mf-compare {prefix} (or --mf-fail-if-slower 5%)",
                             "；接着：pytest --mf --mf-compare {prefix}（或加 --mf-fail-if-slower 5%）"),
    "imported_skipped": ("; {n} already imported, skipped", "；{n} 个已导入过，跳过"),
    "runs_shown": ("the latest {shown} runs; there are more: -n N or --all shows them",
                   "最近的 {shown} 次运行；还有更多：-n N 或 --all 可显示"),
    "history_shown": ("the latest {shown} runs of {name}; there are more: -n N or --all shows them",
                      "{name} 最近的 {shown} 次运行；还有更多：-n N 或 --all 可显示"),
    "pruned_runs": ("deleted {n} run(s) from {path} and gave their space back",
                    "已从 {path} 删除 {n} 次运行，并释放其空间"),
    "pruned_scope": ("only runs selected by {filters} were looked at; every other run was kept",
                     "只检查了 {filters} 选中的运行；其余运行全部保留"),
    "pruned_all_names": ("runs of every name, kind and machine were looked at (narrow with --name, --kind, "
                         "--machine or --since)",
                         "检查了所有名称、类型和机器的运行（可用 --name、--kind、--machine 或 --since 缩小范围）"),
    "store_vacuumed": ("gave the space of deleted runs in {path} back", "已释放 {path} 中已删除运行的空间"),
    "copied_runs": ("copied {n} run(s) from {src} to {dst} (as #{first}..#{last})",
                    "已将 {n} 次运行从 {src} 复制到 {dst}（编号 #{first}..#{last}）"),
    "copied_held": ("{n} run(s) were in {dst} already and were not copied again",
                    "{n} 次运行已在 {dst} 中，未再次复制"),
    "copied_none": ("{src} holds no runs; nothing copied", "{src} 没有运行；未复制任何内容"),
    "wrote_report": ("wrote {path} ({n} result(s), {kib} KiB, lang {language})", "已写入 {path}（{n} 个结果，{kib} KiB，语言 {language}）"),
    "remeasuring_peaks": ("a rate exceeded the measured peak: measuring the peaks again ...",
                          "有速率超过了实测峰值：正在重新测量峰值……"),
    # regression checks (and a pytest run's baseline changes)
    "chg_base": ("base", "基线"),
    "chg_new": ("new", "新结果"),
    "chg_change": ("change", "变化"),
    "chg_ratio": ("ratio new/base", "比值 新/基线"),
    "chg_gate": ("gate", "门限"),
    "chg_gate_on": ("fails when slower beyond the CI and {t}", "慢于置信区间且超过 {t} 时判为失败"),
    "chg_gate_off": ("none (report only)", "无（只报告）"),
    "chg_failed": ("{n} regression(s): slower beyond the noise and the threshold",
                   "{n} 处性能回退：变慢超出噪声和门限"),
    "chg_unmatched": ("in one side only (not compared): {labels}", "只在一侧出现（未比较）：{labels}"),
    "chg_regression": ("regression", "性能回退"),
    "chg_slower": ("slower", "变慢"),
    "chg_faster": ("faster", "变快"),
    "chg_same": ("no difference beyond noise", "无超出噪声的差异"),
    "chg_undecided": ("undecided: too noisy to judge", "无法判定：噪声过大"),
    "chg_undecided_n": ("{n} change(s) undecided: a run was too noisy to judge (never a failure)",
                        "{n} 项变化无法判定：有一次运行噪声过大（不算失败）"),
    # pytest runs
    "pt_tests": ("measured", "测量"),
    "pt_counts": ("{n} benchmark(s), {c} comparison(s)", "{n} 个基准测试，{c} 个对比"),
    "pt_no_baseline": ("none", "无"),
    "pt_not_measured": ("Nothing was timed in this run (--mf-disable or pytest-xdist workers): each function ran once.",
                        "本次运行没有计时（--mf-disable 或 pytest-xdist 工作进程）：每个函数只运行了一次。"),
    "pt_test": ("test", "测试"),
    "pt_group": ("group", "分组"),
    # steps timed by their ranges
    "phase": ("phase", "阶段"),
    "rs_share": ("share of the step", "占整步"),
    "rs_unmarked": ("outside any range", "不在任何区间内"),
    "rs_note": ("Each range is timed between its start and end marks; ranges of the same name add up. Nested "
                "ranges are counted twice, so the time outside any range is then a lower bound.",
                "每个区间按其起止标记计时；同名区间相加。嵌套的区间会被重复计算，此时“不在任何区间内”的时间只是下限。"),
    # collectives
    "co_op": ("collective", "集合操作"),
    "co_size": ("size", "大小"),
    "co_count": ("elements", "元素数"),
    "co_time": ("time (slowest rank)", "时间（最慢的进程）"),
    "co_algbw": ("algbw GB/s", "算法带宽 GB/s"),
    "co_busbw": ("busbw GB/s", "总线带宽 GB/s"),
    "co_error": ("error", "错误"),
    "co_group": ("group", "进程组"),
    "co_group_words": ("{n} ranks, {backend}", "{n} 个进程，{backend}"),
    "co_note": ("Each time is the slowest rank's median per call; busbw scales algbw by the collective's traffic "
                "factor, so it compares with the link's bandwidth.",
                "每个时间都是最慢进程每次调用的中位数；总线带宽按集合操作的通信系数换算算法带宽，可与链路带宽直接比较。"),
    # rank groups
    "rg_ranks": ("ranks", "进程数"),
    "rg_rank": ("rank", "进程"),
    "rg_spread": ("spread across ranks", "进程间差异"),
    "rg_slowest": ("slowest", "最慢"),
    "rg_slowest_words": ("rank {rank}, {x}× the median rank", "进程 {rank}，是中位进程的 {x} 倍"),
    "rg_vs_median": ("vs median rank", "相对中位进程"),
    "rg_straggler": ("Straggler: rank {rank} is more than {t} above the median rank.",
                     "掉队者：进程 {rank} 比中位进程慢 {t} 以上。"),
    "rg_no_straggler": ("No straggler: every rank is within {t} of the median rank.",
                        "没有掉队者：每个进程都在中位进程的 {t} 以内。"),
    "rg_node": ("node", "节点"),
    "rc_group": ("group", "进程组"),
    "rc_group_words": ("{n} ranks, {backend}", "{n} 个进程，{backend}"),
    "rc_verdict": ("group verdict", "进程组结论"),
    "rc_ratio": ("ratio", "比值"),
    "gh_run": ("run", "运行"),
    "gh_summary": ("summary", "概要"),
    "gh_compute": ("compute time (rank, phase)", "计算时间（进程，阶段）"),
    # ---- the machine's noise profile (selfcheck --noise; render/noise.py) ----------------------------------
    "noise.title": ("noise profile of {machine}: {processes} fresh processes, {created}",
                    "{machine} 的噪声画像：{processes} 个全新进程，{created}"),
    "noise.col.work": ("work", "负载"),
    "noise.col.time": ("call time", "单次调用耗时"),
    "noise.col.fresh": ("fresh-process CV", "跨新进程 CV"),
    "noise.col.within": ("in-process CV", "进程内 CV"),
    "noise.col.ratio": ("ratio", "比值"),
    "noise.kind.python": ("Python busy-wait", "Python 忙等"),
    "noise.kind.dispatch": ("torch.add, 1 element", "torch.add，1 个元素"),
    "noise.kind.compute": ("matmul 256x256", "矩阵乘 256x256"),
    "noise.kind.memory": ("copy of 32 MiB", "复制 32 MiB"),
    "noise.uses": ("benchmark() on this machine now widens its repetitions' spread by the kind of work a call that "
                   "long is ({i2}x at 2 µs, {i300}x at 300 µs, {i2m}x at 2 ms) and takes at least the busy-wait's "
                   "fresh-process spread for a call that long ({f2} at 2 µs, {f20} at 20 µs, {f2m} at 2 ms)",
                   "此后本机上的 benchmark() 会按同样时长调用的工作类型放大重复之间的波动（2 µs 时 {i2} 倍，300 µs 时 "
                   "{i300} 倍，2 ms 时 {i2m} 倍），并至少取同样时长忙等的跨进程波动（2 µs 时 {f2}，20 µs 时 {f20}，"
                   "2 ms 时 {f2m}）"),
    "noise.saved": ("saved to {path}", "已保存到 {path}"),
    "noise.progress": ("noise profile: fresh process {i} of {n}", "噪声画像：第 {i}/{n} 个全新进程"),
    "progress.tool.demo": ("lecture", "讲座"),
    "progress.tool.selfcheck": ("selfcheck", "自检"),
    "progress.tool.step": ("training step", "训练步"),
    "progress.tool.collectives": ("collectives", "集合通信"),
    "progress.tool.sweep": ("sweep", "规模扫描"),
    "progress.tool.compare": ("compare", "对比"),
    "progress.tool.profile": ("profile", "剖析"),
    "progress.tool.doctor": ("doctor", "诊断"),
    "progress.tool.bench": ("benchmark", "基准"),
    "progress.tool.first": ("first call", "第一次调用"),
    "progress.first": ("first call: {seconds} s so far (compiling, or another one-time cost)",
                       "第一次调用：已用 {seconds} 秒（正在编译，或其他一次性开销）"),
    "progress.count": ("{done} of {total}", "第 {done}/{total}"),
    "progress.left": ("{left} s of the budget left", "预算还剩 {left} 秒"),
    "noise.status.corrupt": ("the noise profile file is damaged and was ignored; measure it again: "
                             "measurefirst selfcheck --noise",
                             "噪声画像文件已损坏，已忽略；请重新测量：measurefirst selfcheck --noise"),
    "processes_over_repeats": ("--processes {processes} and --repeats {repeats}: the run-to-run spread is the {processes} "
                               "fresh processes'; --repeats only cuts each process's sampling into {repeats} "
                               "repetitions (its stopping rule)",
                               "--processes {processes} 与 --repeats {repeats}：运行间离散度取自 {processes} 个新进程；"
                               "--repeats 只把每个进程的采样切成 {repeats} 段重复（用于其停止规则）"),
    "noise.status.missing": ("MEASUREFIRST_PROFILE names a noise profile that does not exist, so measurefirst's prior "
                             "was used; write it there with measurefirst selfcheck --noise, or unset the variable",
                             "MEASUREFIRST_PROFILE 指向的噪声画像不存在，因此使用了 measurefirst 的先验；"
                             "用 measurefirst selfcheck --noise 在该路径写入画像，或取消该变量"),
    "noise.status.not_a_file": ("the noise profile's path is not a file (a folder, a FIFO or a device) and was not "
                                "read; point MEASUREFIRST_PROFILE at a file: measurefirst selfcheck --noise writes one",
                                "噪声画像的路径不是普通文件（是文件夹、FIFO 或设备），未读取；请让 MEASUREFIRST_PROFILE "
                                "指向一个文件：measurefirst selfcheck --noise 会写入一个"),
    "noise.status.other_threads": ("the noise profile was measured with other torch threads and was not used; "
                                   "measure it again: measurefirst selfcheck --noise",
                                   "噪声画像是在不同的 torch 线程数下测得的，未使用；请重新测量：measurefirst selfcheck --noise"),
    # ---- measurefirst selfcheck (render/selfcheck.py reads these as "sc." + its key) ----------------------
    "sc.title": ("measurefirst selfcheck: {device} ({name}){quick}, {seconds:.1f} s",
                 "measurefirst 自检：{device}（{name}）{quick}，用时 {seconds:.1f} 秒"),
    "sc.quick": (", quick", "，快速模式"),
    "sc.simulated": (" [simulated clock]", "［模拟时钟］"),
    "sc.col.duration": ("known duration", "已知时长"),
    "sc.col.method": ("measured by", "测量方式"),
    "sc.col.truth": ("truth", "真值"),
    "sc.col.estimate": ("estimate", "估计值"),
    "sc.col.error": ("rel. error", "相对误差"),
    "sc.col.tolerance": ("tolerance", "容差"),
    "sc.col.noise": ("noise", "噪声"),
    "sc.col.verdict": ("verdict", "结论"),
    "sc.status.pass": ("PASS", "通过"),
    "sc.status.fail": ("FAIL", "失败"),
    "sc.status.noisy": ("NOISY", "噪声过大"),
    "sc.status.info": ("shown", "仅显示"),
    "sc.status.skip": ("n/a", "不适用"),
    "sc.method.adaptive": ("benchmark() adaptive", "benchmark() 自适应"),
    "sc.method.fixed": ("benchmark() warmup=3, trials=10", "benchmark() warmup=3, trials=10"),
    "sc.method.events": ("benchmark() CUDA events", "benchmark() CUDA 事件"),
    "sc.method.wall": ("benchmark() synchronized wall clock", "benchmark() 同步后的挂钟"),
    "sc.method.cuda_graph": ("benchmark() cuda_graph=True", "benchmark() cuda_graph=True"),
    "sc.method.cold_cache": ("benchmark() cold_cache=True", "benchmark() cold_cache=True"),
    "sc.method.timeit": ("timeit (best of repeats)", "timeit（多次重复取最小）"),
    "sc.method.blocked_autorange": ("torch.utils.benchmark blocked_autorange",
                                    "torch.utils.benchmark blocked_autorange"),
    "sc.method.do_bench": ("triton do_bench", "triton do_bench"),
    "sc.method.do_bench_cudagraph": ("triton do_bench_cudagraph", "triton do_bench_cudagraph"),
    "sc.method.profiler": ("profiler kernel time", "分析器的内核时间"),
    "sc.method.graph_vs_do_bench_cudagraph": ("cuda_graph vs do_bench_cudagraph", "cuda_graph 对比 do_bench_cudagraph"),
    "sc.source.self": ("busy-wait's own clock", "忙等自身的时钟"),
    "sc.source.stream": ("wall clock, stream of kernels", "挂钟，连续内核流"),
    "sc.source.profiler": ("profiler kernel time", "分析器的内核时间"),
    "sc.source.sleep": ("cycles / calibrated rate", "周期数 / 校准频率"),
    "sc.source.do_bench_cudagraph": ("do_bench_cudagraph", "do_bench_cudagraph"),
    "sc.note.not_installed": ("not installed", "未安装"),
    "sc.note.not_applicable": ("does not apply here", "此处不适用"),
    "sc.note.simulated": ("skipped on the simulated clock", "模拟时钟下跳过"),
    "sc.note.launch_bound": ("launch-bound: the host sets the time", "受启动开销限制：时间由主机决定"),
    "sc.note.error": ("raised an error", "出错"),
    "sc.note.overhead_bound": ("timer overhead above the tolerance", "计时器开销超过容差"),
    "sc.note.fallback_truth": ("truth: cycles / rate", "真值：周期数 / 频率"),
    "sc.note.busy": ("machine too busy to judge", "机器太忙，无法判定"),
    "sc.skipped": ("not run ({why}): {what}", "未运行（{why}）：{what}"),
    "sc.traps": ("traps (each must be detected):", "陷阱（每一个都必须被发现）："),
    "sc.trap.cold_start": ("cold first call vs warm", "冷启动的第一次调用与预热后的对比"),
    "sc.trap.implicit_sync": ("one .item() per call", "每次调用一个 .item()"),
    "sc.trap.unsynchronized_timer": ("timer without synchronization", "不同步的计时器"),
    "sc.trap.cold_start.pass": ("detected: the first call took {value:.0f}x the steady state (flagged from "
                                "{threshold:.0f}x)",
                                "已发现：第一次调用是稳态的 {value:.0f} 倍（从 {threshold:.0f} 倍起报警）"),
    "sc.trap.cold_start.fail": ("MISSED: doctor's cold-start check did not flag a function with a real one-time "
                                "cost (ratio {value})",
                                "漏报：doctor 的冷启动检查没有标出一个确有一次性开销的函数（倍数 {value}）"),
    "sc.trap.implicit_sync.pass": ("found: {value:.0f} sync-prone op per call by doctor's implicit-sync check",
                                   "已发现：doctor 的隐式同步检查在每次调用中找到 {value:.0f} 个会同步的运算"),
    "sc.trap.implicit_sync.fail": ("MISSED: doctor's implicit-sync check counted {value} per call, not 1",
                                   "漏报：doctor 的隐式同步检查每次调用数到 {value} 个，而不是 1 个"),
    "sc.trap.unsynchronized_timer.pass": ("detected: the synchronized time is {value:.0f}x what a timer without "
                                          "synchronize reads (flagged from {threshold:.0f}x)",
                                          "已发现：同步后的时间是不同步计时器读数的 {value:.0f} 倍（从 {threshold:.0f} 倍起报警）"),
    "sc.trap.unsynchronized_timer.fail": ("MISSED: doctor did not flag the unsynchronized timer (ratio {value})",
                                          "漏报：doctor 没有标出不同步的计时器（倍数 {value}）"),
    "sc.trap.unsynchronized_timer.not_applicable": ("does not apply on the CPU: CPU work is synchronous",
                                                    "在 CPU 上不适用：CPU 上的运算是同步执行的"),
    "sc.trap.skip": ("not run ({why})", "未运行（{why}）"),
    "sc.trap.error": ("the check raised: {detail}", "检查出错：{detail}"),
    "sc.trap.busy": ("not judged: not detected (doctor's figure: {value}) while this check's thread got {share} "
                     "of a core: the machine was too busy to check it",
                     "不作判定：未发现（doctor 的数值：{value}），当时自检线程只得到一个核的 {share}：机器太忙，无法检查"),
    "sc.machine": ("machine:", "机器："),
    "sc.m.timer": ("timer {kind}: resolution {res} stated, {seen} seen; a clock read costs {read}; an empty sample "
                   "(timer + sync) {overhead}",
                   "计时器 {kind}：标称分辨率 {res}，实测 {seen}；读一次时钟 {read}；空样本（计时器 + 同步）{overhead}"),
    "sc.m.cpu": ("CPU: {mhz}; frequency governor {gov}; thermal throttling {thr}", "CPU：{mhz}；调频策略 {gov}；过热降频 {thr}"),
    "sc.m.mhz": ("{a:.0f} MHz before, {b:.0f} MHz after", "开始时 {a:.0f} MHz，结束时 {b:.0f} MHz"),
    "sc.m.load": ("other load during the check: {other} of {cores} cores used by other processes; hypervisor steal "
                  "{steal} cores",
                  "自检期间的其他负载：其他进程占用 {other} 个核（共 {cores} 个）；虚拟机被抢占 {steal} 个核"),
    "sc.m.share": ("this check's own thread got {share} of a core at the least, over a row or a trap ({state}: a quiet "
                   "core gives it {min} or more){runnable}",
                   "自检线程在各行与各陷阱中最少得到一个核的 {share}（{state}：安静的核至少给 {min}）{runnable}"),
    "sc.m.runnable": ("; at most {n} other tasks were ready to run at once on {cores} cores",
                      "；同一时刻最多有 {n} 个其他任务在 {cores} 个核上等待运行"),
    "sc.state.quiet": ("quiet", "安静"),
    "sc.state.busy": ("busy", "繁忙"),
    "sc.state.unknown": ("not measured", "未测量"),
    "sc.m.gpu": ("GPU {when}: SM clock {sm} of {max} MHz, throttle reasons {reasons}, {temp} °C, {power} W",
                 "GPU（{when}）：SM 时钟 {sm} / {max} MHz，降频原因 {reasons}，{temp} °C，{power} W"),
    "sc.m.before": ("before", "开始时"),
    "sc.m.after": ("after", "结束时"),
    "sc.m.sleep": ("sleep kernel: {rate:.4g} GHz SM cycles, calibrated against the synchronized wall clock",
                   "睡眠内核：SM 时钟 {rate:.4g} GHz，按同步后的挂钟校准"),
    "sc.m.peaks": ("measured peaks: matmul {flops:.1f} GFLOP/s ({dtype}, {threads} threads, n={n}), copy {bw:.1f} GB/s",
                   "实测峰值：矩阵乘 {flops:.1f} GFLOP/s（{dtype}，{threads} 线程，n={n}），拷贝 {bw:.1f} GB/s"),
    "sc.m.note": ("note: {note}", "注：{note}"),
    "sc.mnote.nvidia_smi_missing": ("nvidia-smi not found: no GPU clocks, power or throttle reasons",
                                    "未找到 nvidia-smi：没有 GPU 时钟、功耗和降频原因"),
    "sc.mnote.peaks_failed": ("the machine's peaks could not be measured: {error}", "无法测量机器峰值：{error}"),
    "sc.not_visible": ("not visible", "不可见"),
    "sc.throttle.none": ("none seen", "未发现"),
    "sc.throttle.some": ("{n} events during the check", "自检期间 {n} 次"),
    "sc.verdict.pass": ("verdict: PASS. Every judged estimate is within its stated tolerance of the truth, and "
                        "every trap was caught: measurefirst's figures can be trusted on this machine to those "
                        "tolerances.",
                        "结论：通过。每个参与判定的估计值都在声明的容差之内，每个陷阱都被发现：在这台机器上，measurefirst 的数字在这些容差内可信。"),
    "sc.verdict.pass_rows": ("verdict: PASS. Every judged estimate is within its stated tolerance of the truth (no "
                             "traps were run).",
                             "结论：通过。每个参与判定的估计值都在声明的容差之内（未运行陷阱检查）。"),
    "sc.verdict.fail": ("verdict: FAIL. {n} check(s) failed:", "结论：失败。{n} 项检查未通过："),
    "sc.verdict.noisy": ("verdict: NOISY, the machine was too noisy to judge. {n} estimate(s) missed the tolerance "
                         "by less than the noise measured at the same time, so neither a pass nor a fault can be "
                         "claimed. Rerun on a quieter machine (stop other jobs; pin with taskset).",
                         "结论：噪声过大，无法判定。{n} 个估计值超出容差的部分小于同时测得的噪声，既不能判为通过，也不能判为故障。请在更安静的机器上重跑（停掉其他任务；用 taskset 绑定核心）。"),
    "sc.failed.row": ("  FAIL {duration} {method}: {estimate} against a truth of {truth} ({error}, tolerance "
                      "±{tol}). {why}",
                      "  失败 {duration} {method}：估计 {estimate}，真值 {truth}（{error}，容差 ±{tol}）。{why}"),
    "sc.noisy.row": ("  NOISY {duration} {method}: {error} against ±{tol}, noise {noise}",
                     "  噪声过大 {duration} {method}：{error}，容差 ±{tol}，噪声 {noise}"),
    "sc.verdict.busy": ("verdict: NOISY, the machine was too busy to judge. Other work took the CPU from this "
                        "check's own thread (it got as little as {share} of a core), and {n} check(s) missed the "
                        "tolerance by no more than the noise and the time taken from them, so neither a pass nor a "
                        "fault can be claimed. "
                        "Close other work, or give the check a core of its own (taskset -c 1 measurefirst "
                        "selfcheck --quick), and run it again.",
                        "结论：噪声过大，机器太忙，无法判定。其他任务占用了自检线程的 CPU（它最少只得到一个核的 "
                        "{share}），有 {n} 项检查超出容差的部分不超过噪声与被占用的时间，既不能判为通过，也不能判为故障。"
                        "请关掉其他任务，或给自检一个独占的核（taskset -c 1 measurefirst selfcheck --quick），然后重跑。"),
    "sc.busy.row": ("  NOISY {duration} {method}: {error} against ±{tol}, noise {noise}; this thread got {share} of "
                    "a core, and its time off the CPU could lengthen the reading by up to {off}",
                    "  噪声过大 {duration} {method}：{error}，容差 ±{tol}，噪声 {noise}；该线程只得到一个核的 "
                    "{share}，离开 CPU 的时间最多可使读数偏长 {off}"),
    "sc.busy.trap": ("  NOISY trap {trap}: {why}", "  噪声过大 陷阱 {trap}：{why}"),
    "sc.failed.trap": ("  FAIL trap {trap}: {why}", "  失败 陷阱 {trap}：{why}"),
    "sc.why.adaptive": ("The adaptive estimate disagrees with the clock itself: the timer, the loop-count "
                        "calibration or the statistics are wrong here. Do not trust benchmark() on this machine "
                        "until this passes.",
                        "自适应估计与时钟本身不一致：计时器、循环次数校准或统计有误。在此项通过之前，不要信任这台机器上的 benchmark()。"),
    "sc.why.fixed": ("The classic loop is off by more than the measured timer overhead explains: the clock reads "
                     "wrong, or each sample carries a cost the overhead measurement missed.",
                     "经典循环的偏差超出了实测计时器开销能解释的范围：时钟读数有误，或者每个样本都带有开销测量没有发现的成本。"),
    "sc.why.events": ("CUDA events disagree with the kernel's duration: check the driver, the GPU clocks "
                      "(throttling) and that nothing else runs on this GPU.",
                      "CUDA 事件与内核的实际时长不一致：检查驱动、GPU 时钟（是否降频），以及这块 GPU 上是否有其他任务。"),
    "sc.why.wall": ("The synchronized wall clock disagrees with the stream of kernels: synchronization is "
                    "incomplete or costs more than the calibration saw.",
                    "同步后的挂钟与连续内核流不一致：同步不完整，或同步的开销大于校准所见。"),
    "sc.why.cuda_graph": ("Graph replays disagree with the kernel time: capture or replay is wrong (or the graph "
                          "holds a different number of calls than assumed).",
                          "CUDA 图重放与内核时间不一致：捕获或重放有误（或图里的调用次数与假设不同）。"),
    "sc.why.cold_cache": ("Cold-cache samples are off beyond the flush's own overhead: the flush leaks into the "
                          "timed window.",
                          "冷缓存样本的偏差超出了清缓存本身的开销：清缓存的工作漏进了计时窗口。"),
    "sc.why.graph_vs_do_bench_cudagraph": ("measurefirst's graph mode and triton's do_bench_cudagraph disagree by "
                                           "more than 3%: one of them is wrong; the kernel-time rows say which.",
                                           "measurefirst 的图模式与 triton 的 do_bench_cudagraph 相差超过 "
                                           "3%：其中一个有误，内核时间那几行可以说明是哪一个。"),
    "sc.why.other": ("The estimate is off by more than the tolerance and more than the noise.", "估计值的偏差既超过容差，也超过噪声。"),
    "sc.why.error": ("It raised: {detail}", "出错：{detail}"),
    "sc.progress": ("selfcheck: {what}", "自检：{what}"),
    "sc.progress.calibrate": ("calibrating the sleep kernel", "校准睡眠内核"),
    "sc.progress.machine.timer": ("timer resolution and overhead", "计时器分辨率与开销"),
    "sc.progress.machine.peaks": ("machine peaks", "机器峰值"),
    "sc.progress.trap": ("trap: {trap}", "陷阱：{trap}"),
}


def text(table: Words, key: str, lang: str) -> str:
    """``table[key]`` in ``lang`` (in the first language for one the table does not have), unformatted."""
    return table[key][LANGS.index(lang) if lang in LANGS else 0]


def word(key: str, lang: str, **values: Any) -> str:
    """The words for ``key`` in ``lang`` (English for another language), formatted."""
    if key not in WORDS:  # not ours (a code read from a file): data, never a format string; escaped where shown
        return key
    template = text(WORDS, key, lang)
    return template.format(**values) if values else template


def code_word(prefix: str, code: str, lang: str, **values: Any) -> str:
    """The word for a code (a stopping reason, a profile view...): ``WORDS[prefix + code]`` in ``lang``
    (formatted with ``values``), or the code itself when the vocabulary lacks it (a code from a newer file)."""
    return word(prefix + code, lang, **values) if prefix + code in WORDS else code


def codes_words(prefix: str, codes: str, lang: str, **values: Any) -> str:
    """Codes joined by ``+`` (a warm-up rule ``fixed+cut``, a calibration reason ``adaptive+capped``) in words,
    each ``WORDS[prefix + code]``; text that is not all codes of the vocabulary (the words an older file
    carried) as it is."""
    parts = codes.split("+")
    if not all(prefix + p in WORDS for p in parts):
        return codes
    return word("list_sep", lang).join(word(prefix + p, lang, **values) for p in parts)


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


def verdict_words(v: "Verdict", lang: str) -> str:
    """A comparison verdict in words: ``2.3x faster``, ``1.8% slower``, ``no difference detected (±0.4%)``."""
    if v.verdict == "baseline":
        return word("baseline", lang)
    if v.verdict == "undecided":
        return word("v_undecided_drift" if v.reason == "drift" else "v_undecided", lang, n=v.rounds)
    if v.verdict == "no difference":
        if v.detectable is None or not math.isfinite(v.detectable):
            return word("v_same", lang)
        return word("v_same_detect", lang, d=f"{v.detectable:.1%}")
    if v.verdict == "faster":
        s = v.speedup
        return word("v_faster_x", lang, x=f"{s:.2f}") if s >= 1.5 else word("v_faster_pct", lang, p=f"{(s - 1) * 100:.1f}")
    r = v.ratio
    return word("v_slower_x", lang, x=f"{r:.2f}") if r >= 1.5 else word("v_slower_pct", lang, p=f"{(r - 1) * 100:.1f}")


def flag_words(c: "Change", flag: str, lang: str) -> str:
    """What makes a change doubtful, in words: ``different machines: a vs b`` (a flag written as words by an
    older measurefirst, as it is)."""
    if flag in c.flag_values:
        base, new = c.flag_values[flag]
        if "flag_" + flag not in WORDS:
            return word("flag_other", lang, flag=flag, base=base, new=new)
        return word("flag_" + flag, lang, base=base, new=new)
    return code_word("flag_", flag, lang)


def ratio_ci_words(v: "Verdict", lang: str) -> str:
    """A verdict's time ratio with its 95% CI, then ``, ``: ``time ratio 0.4210 (95% CI 0.4100–0.4300), ``."""
    if v.ratio_ci is None:
        return word("ci_na", lang)
    return word("ratio_ci_words", lang, ratio=f"{v.ratio:.4f}", lo=f"{v.ratio_ci[0]:.4f}", hi=f"{v.ratio_ci[1]:.4f}")


def bounded(c: "Change") -> bool:
    """Whether a change's interval bounds the ratio on both sides (finite, above 0): else no interval is
    shown, and no sentence calls the change "within noise" by it."""
    return 0 < c.ci_low <= c.ci_high < math.inf


def change_words(c: "Change", lang: str) -> str:
    """A saved-result change in words: ``12.0% slower (ratio 1.120, 95% CI 1.110–1.130)``; without a
    bounded interval, ``12.0% slower by the medians (ratio 1.120; no interval bounds it)``."""
    pct = (c.ratio - 1) * 100
    if c.unit != "seconds":
        direction = word("more_unit" if pct > 0 else "fewer_unit", lang, unit=c.unit)
    else:
        direction = word("reg_slower" if pct > 0 else "reg_faster", lang)
    if not bounded(c):
        return word("change_words_unbounded", lang, pct=f"{abs(pct):.1f}", direction=direction, ratio=f"{c.ratio:.3f}")
    sig = "" if (c.ci_low > 1 or c.ci_high < 1) else word("within_noise", lang)
    return word("change_words", lang, pct=f"{abs(pct):.1f}", direction=direction, sig=sig, ratio=f"{c.ratio:.3f}",
                lo=f"{c.ci_low:.3f}", hi=f"{c.ci_high:.3f}")


def ratio_cell(c: "Change", lang: str) -> str:
    """Compact: ``1.200x (1.190–1.210)``, the ratio new/base and its 95% CI; ``1.200x (no interval)``
    when none bounds it."""
    if not bounded(c):
        return word("ratio_cell_unbounded", lang, ratio=f"{c.ratio:.3f}")
    return f"{c.ratio:.3f}x ({c.ci_low:.3f}–{c.ci_high:.3f})"


def undecided_words(c: "Change", lang: str, *, brief: bool = False) -> str:
    """Why a change is undecided, each disturbed side with its fix, in one line (empty when decided);
    ``brief``: each reason's fact without its fix (what follows the first semicolon)."""
    parts = _undecided_parts(c, lang)
    if brief:
        parts = [re.split("[;；]", part, maxsplit=1)[0] for part in parts]
    return word("undecided_sep", lang).join(parts)


def _undecided_parts(c: "Change", lang: str) -> list[str]:
    parts = []
    for d in c.disturbed:
        side = word(f"side_{d.side}", lang)
        if not (math.isfinite(d.value) and math.isfinite(d.limit)):  # nothing bounded it: no figure to show
            parts.append(word("undecided_unbounded", lang, side=side))
            continue
        high = max(d.value, c.threshold)
        value, limit = percents_apart(d.value, d.limit)
        if d.code == "interleaved" and d.limit <= 0:  # the estimate sits on a line: no length of run decides it
            parts.append(word("undecided_on_line", lang, side=side, value=value))
            continue
        parts.append(word(f"undecided_{d.code}", lang, side=side, value=value, limit=limit,
                          suggest=f"{math.ceil(high * 100 + 1) / 100:.0%}",
                          longer=f"{(d.value / d.limit) ** 2:.1f}x" if d.limit > 0 else ""))
    return parts


def percents_apart(value: float, limit: float) -> tuple[str, str]:
    """``value`` and ``limit`` as percentages with one decimal, or more (up to three) when one decimal would
    print two different numbers the same ("±5.0% ... (±5.0%)")."""
    for digits in (1, 2, 3):
        a, b = f"{value:.{digits}%}", f"{limit:.{digits}%}"
        if a != b or value == limit:
            return a, b
    return a, b
