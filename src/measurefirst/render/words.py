"""The words of the HTML report, in English and Chinese, and the findings' titles and fixes.

Results carry codes and numbers; the sentences a person reads are here. A finding's English fix
comes with the finding itself (``Finding.fix``); its Chinese title and fix are in :data:`FINDINGS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import defaults

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Verdict

LANGS = defaults.LANGS

# key: (English, Chinese). Values in braces are filled with str.format.
WORDS: dict[str, tuple[str, str]] = {
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
    "function_failed": ("The function failed:", "函数运行失败："),
    "checks_run": ("checks run", "已运行的检查"),
    "not_run": ("not run: {check}", "未运行：{check}"),
}


@dataclass(frozen=True)
class FindingWords:
    """A finding's title (per language) and, for Chinese, why it matters and the fix."""

    title: str
    why: str = ""
    fix: str = ""


# code: (English title, Chinese title, Chinese fix)
FINDINGS: dict[str, tuple[str, str, str]] = {
    "incomplete": ("interrupted", "被中断", "让测量完整运行，或给它更小的预算"),
    "noise_floor": ("the noise floor of this machine", "本机的噪声下限",
                    "比较两个版本请用 measurefirst compare（交错测量），不要比较两次独立运行；更安静的机器、绑定 CPU 核"
                    "（taskset）或每次调用做更多工作可收窄区间；stop_early=False（--no-stop-early）会用完全部预算"),
    "precision_not_met": ("precision target not met", "未达到精度目标",
                          "给更多时间（budget=... / --budget），或放宽精度（precision=... / --precision）；更安静的机器也有帮助"),
    "few_samples": ("few samples", "样本太少", "加大预算以容纳更多样本"),
    "unstable": ("unstable samples", "样本不稳定",
                 "关闭其他程序，检查电源/散热设置，把进程绑定到核（taskset），或加大输入让每次调用做更多工作"),
    "drift": ("drift during the run", "运行期间发生漂移",
              "机器速度在运行中变化（其他负载、其他租户、频率或温度变化）：重复测量，比较候选时请交错测量而不是先后测量"),
    "speed_modes": ("two speeds", "两种速度",
                    "区间已相应放宽；绑定进程（taskset）、停止其他负载、检查 CPU 调频或 GPU 时钟；用交错测量比较版本"),
    "outliers": ("many outliers", "离群值过多", "检查机器上的其他负载；中位数对离群值稳健，均值不是"),
    "preempted": ("preempted by the OS", "被操作系统抢占",
                  "有其他进程争用 CPU：停止它们，或让 torch 线程数（torch.set_num_threads）少于空闲核数"),
    "warmup_not_steady": ("warm-up not steady", "预热未稳定", "调大 warmup_max_time（--warmup-time），或先自行预热函数"),
    "cold_call": ("slow first call", "首次调用很慢", "在自己的计时循环里，启动计时前一定要先预热"),
    "near_resolution": ("near the timer's resolution", "接近计时器分辨率",
                        "让 measurefirst 自动选择循环次数（去掉 number=...），或每次调用计时更多工作"),
    "overhead_bias": ("timer overhead biases the sample", "计时开销使样本偏高",
                      "让 measurefirst 自动选择循环次数（去掉 number=...）；cold_cache 时每次调用单独计时，请让每次调用做更多工作"),
    "auto_device_cpu": ("auto chose the CPU", "auto 选择了 CPU", "若本意是 GPU，请传 device='cuda'（并把输入移到 GPU）"),
    "no_device_work": ("no tensor work seen", "未见张量运算",
                       "确认函数真的在做事（是否返回了惰性对象或生成器？），纯 Python 代码请传 device='cpu'"),
    "graph_setup": ("setup with a CUDA graph", "CUDA 图与 setup", "把新输入写入被捕获的张量（x.copy_(...)）；setup 重新绑定的张量图看不到"),
    "unjoined_stream": ("unjoined side stream", "未汇合的旁路流",
                        "返回前汇合旁路流（torch.cuda.current_stream().wait_stream(side)），或用 timer='wall' 计时，它会同步整个设备"),
    "launch_bound": ("launch-bound", "受启动开销限制",
                     "融合小算子，使用 torch.compile 或 CUDA 图（cuda_graph=True），或每次调用批量处理更多工作"),
    # doctor
    "cold_start": ("cold start", "冷启动", "计时前先预热；measurefirst.benchmark 会自动预热"),
    "unsynchronized_timing": ("timing without synchronization", "未同步的计时",
                              "停止计时前先同步设备（torch.cuda.synchronize()），或使用 CUDA 事件；measurefirst.benchmark 会自动处理"),
    "implicit_syncs": ("implicit synchronizations", "隐式同步",
                       "避免在热路径中调用 .item()、print(tensor)、.cpu() 或布尔掩码索引；把结果留在设备上"),
    "many_tiny_ops": ("many tiny ops", "大量细小算子", "融合算子（torch.compile）、批量处理，或用 CUDA 图减少启动次数"),
    "noise": ("noisy measurement", "测量噪声大", "关闭其他负载，绑定 CPU 核，或延长测量时间"),
    "other_load": ("other load on the machine", "机器上有其他负载", "停止其他进程，或在空闲的机器上测量"),
    "cpu_frequency": ("CPU frequency governor", "CPU 调频策略", "测量时把调频策略设为 performance"),
    "threads": ("thread count", "线程数", "让 torch 线程数不超过空闲核数（torch.set_num_threads）"),
    "tf32_off": ("TF32 off", "TF32 未开启", "若精度允许，开启 TF32（torch.backends.cuda.matmul.fp32_precision = 'tf32'）"),
    "memory": ("memory", "内存", ""),
    "function_failed": ("the function failed", "函数运行失败", "先修复函数本身的错误，再测量"),
    # steps
    "batch_mismatch": ("batch size mismatch", "批大小不一致", "让 micro_batch 与实际批次的首维一致"),
    "compile_time": ("compile time", "编译耗时", "编译只在预热时发生；对比时请把编译时间单独计算"),
    "cudnn_benchmark_varying_shapes": ("cudnn.benchmark with varying shapes", "cudnn.benchmark 遇到变化的形状",
                                       "固定输入形状（填充到固定长度），或关闭 torch.backends.cudnn.benchmark"),
    "data_starvation": ("data starvation", "数据供给不足",
                        "加快输入管线：DataLoader 的 num_workers、pin_memory、预取，或把数据预先放到设备上"),
    "mfu_above_100": ("MFU above 100%", "MFU 超过 100%", "检查每步 FLOPs 与峰值：FLOPs 可能多算了，或峰值表用错了数据类型"),
    "peak_memory_phase": ("peak memory phase", "内存峰值所在阶段", "降低该阶段的内存：激活检查点、更小的微批或混合精度"),
    "recompile_during_timing": ("recompiles while timed", "计时期间重编译",
                                "固定形状与数据类型，或给 torch.compile 传 dynamic=True，避免计时期间重编译"),
    "table_contradicts_verdict": ("table contradicts the verdict", "表格与结论不一致",
                                  "以交错测量的结论为准；各阶段表格来自分别的运行，易受机器漂移影响"),
    # selfcheck
    "selfcheck_failed": ("a known duration measured wrong", "已知时长测量有误",
                         "误差超出容差：检查计时器与设备同步；在安静的机器上重跑 measurefirst selfcheck"),
    "selfcheck_trap_missed": ("a trap went undetected", "陷阱未被发现", "对应的检查没有报出已知陷阱：请报告此问题"),
    "selfcheck_noisy": ("error within the machine's noise", "误差在机器噪声之内",
                        "机器太忙，无法判定：停止其他负载后重跑 measurefirst selfcheck"),
    # counts
    "count_spread": ("repeated counts disagree", "重复计数不一致",
                     "各次调用的工作量不同（随机输入、逐渐填满的缓存、增长的内存）：让各次调用完全相同，或每次重复计数更多调用（number=...）"),
}


def word(key: str, lang: str, **values: Any) -> str:
    """The words for ``key`` in ``lang`` (English when the key has no such language), formatted."""
    pair = WORDS.get(key)
    if pair is None:
        return key.format(**values) if values else key
    text = pair[1] if lang == "zh" and pair[1] else pair[0]
    return text.format(**values) if values else text


#: Why a finding matters, in Chinese, for the codes whose findings carry an explanation (the
#: English one comes with the finding).
WHY_ZH: dict[str, str] = {
    "cold_start": "首次调用要付出一次性开销（惰性初始化、内存分配、内核编译、算法选择）。把它计入计时循环，得到的数字以后任何一次调用都不会再出现。",
    "unsynchronized_timing": "GPU 运算是异步的：调用在内核排入队列后就返回。此时停止计时，只测到了启动开销，而不是实际工作。",
    "implicit_syncs": "每个 .item()、.cpu()、print(tensor)、nonzero() 或依赖数据的形状都会让 CPU 等待 GPU 清空队列，于是 GPU 空等 Python。",
    "launch_bound": "当主机启动内核所需时间与 GPU 运行它们的时间相当时，更快的 GPU 也无济于事：瓶颈在启动路径。",
    "many_tiny_ops": "每个算子都有几微秒的固定分派（在 GPU 上还有启动）开销；算子又多又小时，决定耗时的是这些开销而不是计算本身。",
    "noise": "样本不稳定意味着测到的不只是函数，还有机器本身；低于噪声水平的比较只是猜测。",
    "other_load": "其他任务争用 CPU 核、缓存和内存带宽，并会抢占测量过程。",
    "cpu_frequency": "使用省电调频策略时，时钟频率随负载变化，最初的样本和短时运行可能更慢。",
    "threads": "计算线程多于 CPU 核时，线程互相等待，耗时被拉长。",
    "tf32_off": "TF32 让 float32 矩阵乘在张量核上运行，快数倍，尾数 10 位（每次乘积约 1e-3 相对误差）而非 23 位。PyTorch 默认关闭。",
    "memory": "设备上用重置峰值后的 torch.cuda.max_memory_allocated 测得；CPU 上没有按调用的峰值计数，这是剖析器看到的分配总和。",
    "function_failed": "函数抛出了异常，此后的检查无法运行。",
    "data_starvation": "在准备批数据期间，设备无事可做。",
    "recompile_during_timing": "计时步内的重编译会给原本很快的一步增加数秒，使中位数与吞吐失真。",
    "compile_time": "编译后模型的第一次调用会进行编译；把这次调用算作一步会让结果严重失真。",
    "peak_memory_phase": "内存规划应以峰值所在的阶段为准，这通常是优化器步（状态与梯度同时存在），而不是前向。",
    "mfu_above_100": "利用率超过 100% 说明某个输入有误，而不是模型真有这么快。",
    "batch_mismatch": "吞吐是每秒样本（或 token）数；批大小错了，吞吐与 MFU 都会错。",
}


def finding_words(code: str, lang: str) -> FindingWords | None:
    """A finding's title and, in Chinese, why it matters and its fix; ``None`` for a code this
    catalogue lacks."""
    entry = FINDINGS.get(code)
    if entry is None:
        return None
    en, zh, zh_fix = entry
    if lang == "zh":
        return FindingWords(zh, WHY_ZH.get(code, ""), zh_fix)
    return FindingWords(en)


def verdict_words(v: "Verdict", lang: str) -> str:
    """A comparison verdict in words: ``2.3x faster``, ``1.8% slower``, ``no difference detected (±0.4%)``."""
    if v.verdict == "baseline":
        return word("baseline", lang)
    if v.verdict == "undecided":
        return word("v_undecided", lang, n=v.rounds)
    if v.verdict == "no difference":
        if v.detectable is None or not math.isfinite(v.detectable):
            return word("v_same", lang)
        return word("v_same_detect", lang, d=f"{v.detectable:.1%}")
    if v.verdict == "faster":
        s = v.speedup
        return word("v_faster_x", lang, x=f"{s:.2f}") if s >= 1.5 else word("v_faster_pct", lang, p=f"{(s - 1) * 100:.1f}")
    r = v.ratio
    return word("v_slower_x", lang, x=f"{r:.2f}") if r >= 1.5 else word("v_slower_pct", lang, p=f"{(r - 1) * 100:.1f}")
