"""The words of every finding, in English and Chinese: a title, the message (formatted from the
finding's value, threshold and context), why it matters, and the fix.

A :class:`~measurefirst.results.findings.Finding` is data only; this module is the one place that turns it
into sentences, for text, HTML, JSON-with-text, the CLI, doctor, step, the lecture and the pytest
report. The words are :data:`FINDING_WORDS`, a table of the one format of
:data:`measurefirst.render.words.Words`; a part may have variants (``message.cpu``), chosen by
:data:`_VARIANTS` from the finding's context.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..results.findings import Finding
from .words import Words, code_word, codes_words, text, word

PARTS = ("title", "message", "why", "fix")

#: Every finding's words: ``"code.part"`` (a part of :data:`PARTS`), or ``"code.part.variant"`` for a variant
#: of a part chosen by :data:`_VARIANTS` from the finding's context (an empty text: the part has none).
FINDING_WORDS: Words = {
    # ---- a measurement --------------------------------------------------------------------------
    "incomplete.title": ("interrupted", "被中断"),
    "incomplete.message": ("interrupted after {value:.0f} samples; statistics cover those only",
                           "采集 {value:.0f} 个样本后被中断；统计只覆盖这些样本"),
    "incomplete.why": ("The run stopped before its stopping rule was met, so the interval is wider than planned.",
                       "运行在满足停止规则之前就结束了，所以区间比计划的宽。"),
    "incomplete.fix": ("let the benchmark finish, or give it a smaller budget", "让测量完整运行，或给它更小的预算"),
    "noise_floor.title": ("the noise floor of this machine", "本机的噪声下限"),
    "noise_floor.message": ("stopped after {seconds:.2f} s of sampling: the 95% CI settled at ±{value:.2%}, and the "
                            "±{threshold:.2%} target was out of reach within the budget; this machine gives "
                            "±{value:.1%} here",
                            "采样 {seconds:.2f} 秒后停止：95% 置信区间稳定在 ±{value:.2%}，预算内达不到 ±{threshold:.2%} 的目标；本机在此处只能给出 "
                            "±{value:.1%}"),
    "noise_floor.why": ("More samples stopped narrowing the interval: the machine's own noise, not the sample count, "
                        "limits the precision.",
                        "再多的样本也不再收窄区间：限制精度的是机器本身的噪声，而不是样本数。"),
    "noise_floor.fix": ("to compare two versions, use measurefirst compare (interleaved) rather than two separate "
                        "runs; a quieter machine, pinned cores (taskset) or more work per call narrow it; "
                        "stop_early=False (--no-stop-early) spends the whole budget",
                        "比较两个版本请用 measurefirst compare（交错测量），不要比较两次独立运行；更安静的机器、绑定 CPU 核（taskset）或每次调用做更多工作可收窄区间；"
                        "stop_early=False（--no-stop-early）会用完全部预算"),
    "precision_not_met.title": ("precision target not met", "未达到精度目标"),
    "precision_not_met.message": ("the 95% CI of the median is ±{value:.2%}, wider than the ±{threshold:.2%} target",
                                  "中位数的 95% 置信区间为 ±{value:.2%}，宽于 ±{threshold:.2%} 的目标"),
    "precision_not_met.message.undefined": ("the 95% CI of the median is undefined (too few samples); the target is "
                                            "±{threshold:.2%}",
                                            "中位数的 95% 置信区间无法确定（样本太少）；目标为 ±{threshold:.2%}"),
    "precision_not_met.why": ("The budget ran out before the interval reached the precision asked for.",
                              "区间还没收窄到要求的精度，预算就用完了。"),
    "precision_not_met.fix": ("give it more time (budget=... / --budget) or accept a looser precision (precision=... "
                              "/ --precision); a quieter machine also helps",
                              "给更多时间（budget=... / --budget），或放宽精度（precision=... / --precision）；更安静的机器也有帮助"),
    "few_samples.title": ("few samples", "样本太少"),
    "few_samples.message": ("only {value:.0f} samples were used (minimum {threshold:.0f})",
                            "只用了 {value:.0f} 个样本（最少 {threshold:.0f} 个）"),
    "few_samples.why": ("With few samples the interval rests on little evidence and one disturbed sample moves it.",
                        "样本少时区间依据不足，一个受干扰的样本就能让它移动。"),
    "few_samples.fix": ("raise the budget so that more samples fit", "加大预算以容纳更多样本"),
    "unstable.title": ("unstable samples", "样本不稳定"),
    "unstable.message": ("the samples' IQR is {value:.1%} of the median", "样本的四分位距是中位数的 {value:.1%}"),
    "unstable.why": ("Widely spread samples mean the machine, not only the code, is being measured; differences "
                     "below the spread are guesses.",
                     "样本离散度大说明测到的不只是代码，还有机器本身；小于离散度的差异只是猜测。"),
    "unstable.fix": ("close other programs, check power/thermal settings, pin the process to cores (taskset), or "
                     "make the inputs larger so each call does more work",
                     "关闭其他程序，检查电源/散热设置，把进程绑定到核（taskset），或加大输入让每次调用做更多工作"),
    "drift.title": ("drift during the run", "运行期间发生漂移"),
    "drift.message": ("per-call time moved from {first_ns:ns} (first half) to {second_ns:ns} (second half)",
                      "每次调用耗时从 {first_ns:ns}（前一半）变为 {second_ns:ns}（后一半）"),
    "drift.why": ("The machine's speed changed while measuring; a number taken at another moment would differ.",
                  "测量期间机器速度发生了变化；换个时刻测得的数字会不同。"),
    "drift.fix": ("the machine's speed changed during the run (other load, another tenant, frequency or thermal "
                  "changes): repeat the measurement, and compare candidates interleaved rather than one after the "
                  "other",
                  "机器速度在运行中变化（其他负载、其他租户、频率或温度变化）：重复测量，比较候选时请交错测量而不是先后测量"),
    "speed_modes.title": ("two speeds", "两种速度"),
    "speed_modes.message.stretches": ("{fast_ns:ns} for {fast_fraction:.0%} of samples, {slow_ns:ns} for "
                                      "{slow_fraction:.0%}: the machine changed speed during the run, in stretches",
                                      "{fast_fraction:.0%} 的样本为 {fast_ns:ns}，{slow_fraction:.0%} 为 {slow_ns:ns}："
                                      "机器在运行中成段地改变了速度"),
    "speed_modes.message.alternating": ("{fast_ns:ns} for {fast_fraction:.0%} of samples, {slow_ns:ns} for "
                                        "{slow_fraction:.0%}: two modes, alternating sample to sample",
                                        "{fast_fraction:.0%} 的样本为 {fast_ns:ns}，{slow_fraction:.0%} 为 {slow_ns:ns}："
                                        "两种模式，样本间交替出现"),
    "speed_modes.why": ("Two distinct speeds make one median describe neither; the interval was widened for it.",
                        "存在两种明显不同的速度时，一个中位数哪种都描述不了；区间已相应放宽。"),
    "speed_modes.fix.stretches": ("the interval was widened for it; pin the process (taskset), stop other load, "
                                  "check CPU frequency scaling or GPU clocks; compare versions interleaved "
                                  "(measurefirst compare), never across runs",
                                  "区间已相应放宽；绑定进程（taskset）、停止其他负载、检查 CPU 调频或 GPU 时钟；用交错测量（measurefirst compare）比较版本，"
                                  "不要跨运行比较"),
    "speed_modes.fix.alternating": ("two code paths or cache states alternate: look at what differs between calls",
                                    "两条代码路径或两种缓存状态在交替：看看各次调用之间有什么不同"),
    "outliers.title": ("many outliers", "离群值过多"),
    "outliers.message": ("{outliers} of {n} samples ({value:.1%}) are outliers",
                         "{n} 个样本中有 {outliers} 个（{value:.1%}）是离群值"),
    "outliers.why": ("Many far-off samples mean frequent interruptions; the mean is pulled by them.",
                     "大量远离中心的样本说明测量频繁被打断；均值会被它们拉偏。"),
    "outliers.fix": ("look for other load on the machine; the median is robust to them, the mean is not",
                     "检查机器上的其他负载；中位数对离群值稳健，均值不是"),
    "preempted.title": ("preempted by the OS", "被操作系统抢占"),
    "preempted.message.kept": ("the operating system preempted the process during {value:.0%} of the samples; too "
                               "many to set aside, so all were kept and the times are likely inflated",
                               "操作系统在 {value:.0%} 的样本期间抢占了进程；太多而无法剔除，因此全部保留，耗时很可能偏高"),
    "preempted.message.set_aside": ("the operating system preempted the process during {value:.0%} of the samples; "
                                    "those samples were set aside",
                                    "操作系统在 {value:.0%} 的样本期间抢占了进程；这些样本已剔除"),
    "preempted.why": ("A sample during which the process was not running measures the other process too.",
                      "进程没有运行期间的样本把别的进程也测了进去。"),
    "preempted.fix": ("other processes compete for the CPU: stop them, or use fewer torch threads "
                      "(torch.set_num_threads) than free cores",
                      "有其他进程争用 CPU：停止它们，或让 torch 线程数（torch.set_num_threads）少于空闲核数"),
    "warmup_not_steady.title": ("warm-up not steady", "预热未稳定"),
    "warmup_not_steady.message": ("warm-up stopped at its time cap after {value:.0f} calls while per-call time could "
                                  "still be falling",
                                  "预热在 {value:.0f} 次调用后达到时间上限，而每次调用耗时可能仍在下降"),
    "warmup_not_steady.why": ("Samples taken before the function is warm read slower than the steady state.",
                              "函数热起来之前采的样本比稳态慢。"),
    "warmup_not_steady.fix": ("raise warmup_max_time (--warmup-time), or warm up the function yourself first",
                              "调大 warmup_max_time（--warmup-time），或先自行预热函数"),
    "call_exceeds_budget.title": ("one call outlasts the budget", "一次调用超出预算"),
    "call_exceeds_budget.message": ("one call took {value:.3g} s, longer than the whole {threshold:g} s budget: it "
                                    "was timed once, without a full warm-up, and the run ended there",
                                    "一次调用耗时 {value:.3g} 秒，超过全部 {threshold:g} 秒的预算：只计时了一次，没有完整预热，测量就此结束"),
    "call_exceeds_budget.why": ("A time budget cannot hold even one call, so there is no warm-up, no calibration and "
                                "no interval: the number is one reading, likely slower than the steady state.",
                                "时间预算连一次调用都容纳不下，因此没有预热、没有校准、也没有区间：这个数字只是一次读数，很可能比稳态慢。"),
    "call_exceeds_budget.fix": ("give a budget of at least ten calls (budget=... / --budget), or time less work per "
                                "call",
                                "给至少容纳十次调用的预算（budget=... / --budget），或让每次调用做更少的工作"),
    "fixed_count_cut.title": ("fixed count cut at the budget", "固定次数在预算处被截断"),
    "fixed_count_cut.message.trials": ("{value:.0f} of the {threshold:.0f} trials asked for fit in the {budget:g} s "
                                       "budget; the run stopped there",
                                       "要求的 {threshold:.0f} 次试验中只有 {value:.0f} 次在 {budget:g} 秒预算内完成；测量就此结束"),
    "fixed_count_cut.message.warmup": ("{value:.0f} of the {threshold:.0f} warm-up calls asked for fit in the "
                                       "{budget:g} s budget; the run stopped there",
                                       "要求的 {threshold:.0f} 次预热调用中只有 {value:.0f} 次在 {budget:g} 秒预算内完成；测量就此结束"),
    "fixed_count_cut.why": ("The budget bounds every run, fixed counts included: a count that cannot fit is cut, "
                            "never run past the budget.",
                            "预算约束每一次运行，固定次数也不例外：装不下的次数会被截断，绝不会超出预算运行。"),
    "fixed_count_cut.fix": ("give a larger budget (budget=... / --budget) or a smaller count (trials=... / --trials, "
                            "warmup=... / --warmup)",
                            "给更大的预算（budget=... / --budget），或更小的次数（trials=... / --trials，warmup=... / --warmup）"),
    "compiled.title": ("compiled first", "先编译"),
    "compiled.message.cold": ("torch.compile compiled {graphs} graph(s) in {value:.2f} s before sampling, with "
                              "inductor's cache cold (a first compile); the calls that compiled are apart from the "
                              "samples and the budget",
                              "采样前 torch.compile 编译了 {graphs} 个图，用时 {value:.2f} 秒，inductor 缓存为冷"
                              "（首次编译）；编译所在的调用不计入样本和预算"),
    "compiled.message.warm": ("torch.compile compiled {graphs} graph(s) in {value:.2f} s before sampling, from "
                              "inductor's warm cache (a cold compile takes longer); the calls that compiled are apart "
                              "from the samples and the budget",
                              "采样前 torch.compile 编译了 {graphs} 个图，用时 {value:.2f} 秒，命中 inductor 的缓存"
                              "（冷编译更久）；编译所在的调用不计入样本和预算"),
    "compiled.message.processes": ("torch.compile compiled {graphs} graph(s) before sampling in each of {processes} "
                                   "fresh processes: {value:.2f} s in the first (inductor's cache {cache}), {next_s:.2f} "
                                   "s in the next (cache {next_cache}); the calls that compiled are apart from the "
                                   "samples and the budget",
                                   "在 {processes} 个全新进程中，采样前 torch.compile 各编译了 {graphs} 个图：第一个进程用时 "
                                   "{value:.2f} 秒（inductor 缓存：{cache}），之后的进程 {next_s:.2f} 秒（缓存：{next_cache}）；"
                                   "编译所在的调用不计入样本和预算"),
    "compiled.message": ("torch.compile compiled {graphs} graph(s) in {value:.2f} s before sampling; the calls that "
                         "compiled are apart from the samples and the budget",
                         "采样前 torch.compile 编译了 {graphs} 个图，用时 {value:.2f} 秒；编译所在的调用不计入样本和预算"),
    "compiled.why": ("The first call of a compiled function is the compiler (tracing, code generation, a C++ or Triton "
                     "build): counted as a call, it would be the whole measurement.",
                     "编译后函数的第一次调用就是编译器本身（追踪、代码生成、C++ 或 Triton 构建）：把它算作一次调用，"
                     "它就会成为整个测量结果。"),
    "compiled.fix": ("", ""),
    "recompiled.title": ("recompiled while sampling", "采样期间重编译"),
    "recompiled.message": ("torch.compile compiled again {value:.0f} time(s) while the function was timed "
                           "({seconds:.2f} s; those samples were taken again): {reason}",
                           "计时期间 torch.compile 又编译了 {value:.0f} 次（{seconds:.2f} 秒；这些样本已重新采集）："
                           "{reason}"),
    "recompiled.why": ("A guard of the compiled code failed (a new shape, dtype or Python value), so each new case "
                       "pays a compile; in real use that cost recurs wherever inputs vary.",
                       "编译代码的守卫条件失败（新的形状、dtype 或 Python 值），每遇到一种新情况都要付一次编译；"
                       "在实际使用中，只要输入变化，这个开销就会反复出现。"),
    "recompiled.fix": ("compile with dynamic=True, mark the varying dimension with torch._dynamo.mark_dynamic, or pad "
                       "inputs to a few fixed shapes",
                       "用 dynamic=True 编译、用 torch._dynamo.mark_dynamic 标记变化的维度，或把输入填充到少数固定形状"),
    "cold_start.title": ("cold start", "冷启动"),
    "cold_start.message": ("the first call took {cold_ns:ns}, {value:.1f}x the steady {median_ns:ns}; per-call time "
                           "settled after {warmup_calls} warm-up calls",
                           "首次调用耗时 {cold_ns:ns}，是稳态 {median_ns:ns} 的 {value:.1f} 倍；预热 {warmup_calls} 次后每次调用耗时稳定"),
    "cold_start.why": ("The first call pays one-time costs (lazy initialisation, allocation, kernel compilation, "
                       "algorithm selection). A timing loop that includes it reports a number no later call sees.",
                       "首次调用要付出一次性开销（惰性初始化、内存分配、内核编译、算法选择）。把它计入计时循环，得到的数字以后任何一次调用都不会再出现。"),
    "cold_start.fix": ("warm up before starting the clock (measurefirst.benchmark does); time only steady-state calls",
                       "计时前先预热（measurefirst.benchmark 会自动预热）；只对稳态调用计时"),
    "near_resolution.title": ("near the timer's resolution", "接近计时器分辨率"),
    "near_resolution.message": ("a sample lasts {sample_ns:ns}, only {inverse:.0f}x the timer's resolution "
                                "({resolution_ns:ns})",
                                "一个样本只有 {sample_ns:ns}，仅为计时器分辨率（{resolution_ns:ns}）的 {inverse:.0f} 倍"),
    "near_resolution.why": ("A sample only a few clock ticks long is mostly rounding.", "只有几个时钟刻度长的样本主要是舍入误差。"),
    "near_resolution.fix": ("let measurefirst choose the loop count (drop number=...), or time more work per call",
                            "让 measurefirst 自动选择循环次数（去掉 number=...），或每次调用计时更多工作"),
    "overhead_bias.title": ("timer overhead biases the sample", "计时开销使样本偏高"),
    "overhead_bias.message": ("timer overhead ({overhead_ns:ns}) is {value:.2%} of a sample",
                              "计时器开销（{overhead_ns:ns}）占一个样本的 {value:.2%}"),
    "overhead_bias.why": ("The clock's own cost is added to every sample, so the time reads high.",
                          "时钟自身的开销加到了每个样本上，因此耗时读数偏高。"),
    "overhead_bias.fix": ("let measurefirst choose the loop count (drop number=...); with cold_cache each call is "
                          "timed alone, so time more work per call",
                          "让 measurefirst 自动选择循环次数（去掉 number=...）；cold_cache 时每次调用单独计时，请让每次调用做更多工作"),
    "no_noise_profile.title": ("no noise profile of this machine", "本机没有噪声画像"),
    "no_noise_profile.message.repeats": (
        "this machine has no noise profile, so the run-to-run spread is measurefirst's prior: the repetitions' "
        "spread widened {inflation:g}x, and at least ±{floor:.2%} for a call this long: ±{value:.2%} per run",
        "本机没有噪声画像，因此运行间离散度取 measurefirst 的先验：重复运行的离散度放宽 {inflation:g} 倍，"
        "且这么长的调用至少 ±{floor:.2%}：每次运行 ±{value:.2%}"),
    "no_noise_profile.message.processes": (
        "this machine has no noise profile: the fresh processes' spread holds at least measurefirst's prior for a "
        "call this long (±{floor:.2%}): ±{value:.2%} per run",
        "本机没有噪声画像：新进程的离散度至少取 measurefirst 对这么长调用的先验（±{floor:.2%}）：每次运行 ±{value:.2%}"),
    "no_noise_profile.message.prior": (
        "this machine has no noise profile and the run measured no spread (one repetition): the run-to-run spread "
        "is measurefirst's prior for a call this long, ±{value:.2%} per run",
        "本机没有噪声画像，且本次运行未测离散度（只有一次重复）：运行间离散度取 measurefirst 对这么长调用的先验，"
        "每次运行 ±{value:.2%}"),
    "no_noise_profile.why": (
        "Repetitions inside one process share its address layout, allocator state and thread placement; the next "
        "run, a fresh process, draws them anew and lands further away than they show. Nothing measured that on "
        "this machine, so the interval holds a prior measured on a noisy reference machine: likely wider than this "
        "machine needs, and the run says so rather than claim more than it knows.",
        "同一进程内的重复共享其地址布局、分配器状态和线程放置；下一次运行是新进程，这些都会重新抽取，结果偏离得比重复显示的更远。"
        "本机没有测过这一点，所以区间采用在一台嘈杂的参考机器上测得的先验：很可能比本机需要的更宽，而本次运行如实说明，"
        "不声称超出所知。"),
    "no_noise_profile.fix": (
        "run `measurefirst selfcheck --noise` once on this machine (about a minute; --threads N for the torch "
        "threads you benchmark with), or measure fresh processes: processes=3 (--processes 3)",
        "在本机运行一次 `measurefirst selfcheck --noise`（约一分钟；基准测试使用的 torch 线程数用 --threads N），"
        "或在新进程中测量：processes=3（--processes 3）"),
    "auto_device_cpu.title": ("auto chose the CPU", "auto 选择了 CPU"),
    "auto_device_cpu.message": ("device='auto' chose the CPU: the observed first call touched no GPU tensor",
                                "device='auto' 选择了 CPU：观察到的首次调用没有触及 GPU 张量"),
    "auto_device_cpu.why": ("The function's tensors are on the CPU, so the CPU is what was timed.",
                            "函数的张量在 CPU 上，所以计时的是 CPU。"),
    "auto_device_cpu.fix": ("pass device='cuda' (and move the inputs there) if the GPU was meant",
                            "若本意是 GPU，请传 device='cuda'（并把输入移到 GPU）"),
    "no_device_work.title": ("no tensor work seen", "未见张量运算"),
    "no_device_work.message": ("the observed first call ran no tensor op, yet it is timed on {device}",
                               "观察到的首次调用没有运行任何张量运算，却在 {device} 上计时"),
    "no_device_work.why": ("A function that returns a lazy object or a generator does no work when called, and its "
                           "time is only the call.",
                           "返回惰性对象或生成器的函数在调用时并不做事，测到的只是调用本身。"),
    "no_device_work.fix": ("check that the function does the work (returns a lazy object? a generator?), or pass "
                           "device='cpu' for plain Python",
                           "确认函数真的在做事（是否返回了惰性对象或生成器？），纯 Python 代码请传 device='cpu'"),
    "graph_setup.title": ("setup with a CUDA graph", "CUDA 图与 setup"),
    "graph_setup.message": ("setup runs before every replay of a CUDA graph, which replays the tensors it captured",
                            "setup 在每次重放 CUDA 图之前运行，而图重放的是它捕获的张量"),
    "graph_setup.why": ("A graph replays the memory it captured; inputs that setup rebinds are not the ones it reads.",
                        "图重放的是捕获时的内存；setup 重新绑定的输入不是它读取的那些。"),
    "graph_setup.fix": ("write new inputs into the captured tensors (x.copy_(...)); tensors that setup rebinds are "
                        "not seen by the graph",
                        "把新输入写入被捕获的张量（x.copy_(...)）；setup 重新绑定的张量图看不到"),
    "unjoined_stream.title": ("unjoined side stream", "未汇合的旁路流"),
    "unjoined_stream.message": ("the device stayed busy {value:.1f}x longer than the timed events saw: work ran on a "
                                "stream the current stream never waited for, and is missing from the time",
                                "设备忙碌的时间是计时事件看到的 {value:.1f} 倍：有工作运行在当前流从未等待的流上，没有计入耗时"),
    "unjoined_stream.why": ("Events on the current stream do not see work on other streams unless the current stream "
                            "waits for them.",
                            "当前流上的事件看不到其他流上的工作，除非当前流等待它们。"),
    "unjoined_stream.fix": ("join side streams before returning (torch.cuda.current_stream().wait_stream(side)), or "
                            "time with timer='wall', which synchronizes the whole device",
                            "返回前汇合旁路流（torch.cuda.current_stream().wait_stream(side)），或用 timer='wall' 计时，它会同步整个设备"),
    "launch_bound.title": ("launch-bound", "受启动开销限制"),
    "launch_bound.message": ("launching takes {host_ns:ns} per call, {value:.0%} of the {device_ns:ns} the GPU "
                             "works: the GPU waits on the host",
                             "每次调用启动耗时 {host_ns:ns}，是 GPU 工作时间 {device_ns:ns} 的 {value:.0%}：GPU 在等主机"),
    "launch_bound.why": ("When the host needs about as long to launch the kernels as the GPU needs to run them, a "
                         "faster GPU would not help; the launch path is the bottleneck.",
                         "当主机启动内核所需时间与 GPU 运行它们的时间相当时，更快的 GPU 也无济于事：瓶颈在启动路径。"),
    "launch_bound.fix": ("fuse ops (torch.compile), capture the step in a CUDA graph (cuda_graph=True shows the "
                         "gain), or give each kernel more work (larger batches)",
                         "融合算子（torch.compile），把整步捕获为 CUDA 图（cuda_graph=True 可显示收益），或让每个内核做更多工作（更大的批）"),
    # ---- doctor ---------------------------------------------------------------------------------
    "unsynchronized_timing.title": ("timing without synchronization", "未同步的计时"),
    "unsynchronized_timing.message": ("a timer without synchronization reads {unsynced_ns:ns}; the synchronized time "
                                      "is {synced_ns:ns} ({value:.1f}x longer)",
                                      "不同步的计时器读数为 {unsynced_ns:ns}；同步后的耗时为 {synced_ns:ns}（长 {value:.1f} 倍）"),
    "unsynchronized_timing.message.cpu": ("does not apply on the CPU: CPU ops run synchronously, so the clock stops "
                                          "after the work",
                                          "在 CPU 上不适用：CPU 运算是同步的，时钟在工作完成后才停止"),
    "unsynchronized_timing.why": ("GPU work is asynchronous: the call returns once its kernels are queued. Stopping "
                                  "the clock then times only the launch.",
                                  "GPU 运算是异步的：调用在内核排入队列后就返回。此时停止计时，只测到了启动开销，而不是实际工作。"),
    "unsynchronized_timing.why.cpu": ("On a GPU, ops only queue work and return at once; a timer that stops without "
                                      "torch.cuda.synchronize() measures the launch, not the work. Run doctor with "
                                      "--device cuda to see the ratio for this function.",
                                      "在 GPU 上，运算只是把工作排入队列并立即返回；不调用 torch.cuda.synchronize() 就停止的计时器测到的是启动，而不是工作。用 "
                                      "--device cuda 运行 doctor 可看到此函数的倍数。"),
    "unsynchronized_timing.fix": ("call torch.cuda.synchronize() before every clock read, or use CUDA events "
                                  "(measurefirst.benchmark does both)",
                                  "每次读取时钟前调用 torch.cuda.synchronize()，或使用 CUDA 事件（measurefirst.benchmark 两者都做）"),
    "unsynchronized_timing.fix.cpu": ("", ""),
    "implicit_syncs.title": ("implicit synchronizations", "隐式同步"),
    "implicit_syncs.message": ("{value:.0f} host-device synchronization(s) per call: {sites}",
                               "每次调用有 {value:.0f} 次主机-设备同步：{sites}"),
    "implicit_syncs.message.cpu": ("per call: {ops}; free on the CPU, but each is a host-device synchronization on a "
                                   "GPU",
                                   "每次调用：{ops}；在 CPU 上不花额外时间，但在 GPU 上每个都是一次主机-设备同步"),
    "implicit_syncs.why": ("Each .item(), .cpu(), print(tensor), nonzero() or data-dependent shape makes the CPU "
                           "wait for the GPU to drain its queue, so the GPU idles while Python catches up.",
                           "每个 .item()、.cpu()、print(tensor)、nonzero() 或依赖数据的形状都会让 CPU 等待 GPU 清空队列，于是 GPU 空等 Python。"),
    "implicit_syncs.why.cpu": ("On a GPU these ops make the CPU wait for all queued work. On the CPU they cost "
                               "nothing extra, which is why the habit goes unnoticed until the code moves to a GPU.",
                               "在 GPU 上这些运算让 CPU 等待所有排队的工作。在 CPU 上它们不花额外时间，所以这个习惯直到代码迁到 GPU 才被注意到。"),
    "implicit_syncs.fix": ("keep values on the device (accumulate losses as tensors, log every N steps), avoid "
                           "data-dependent shapes in the hot loop",
                           "把值留在设备上（损失累加为张量，每 N 步记录一次），热循环中避免依赖数据的形状"),
    "implicit_syncs.fix.cpu": ("keep values as tensors in the hot loop; read them out every N steps",
                               "热循环中把值保留为张量；每 N 步读出一次"),
    "many_tiny_ops.title": ("many tiny ops", "大量细小算子"),
    "many_tiny_ops.message": ("{value:.0f} ops per call, {per_op_ns:ns} each on average",
                              "每次调用 {value:.0f} 个算子，平均每个 {per_op_ns:ns}"),
    "many_tiny_ops.message.kernels": ("{value:.0f} kernels per call, {per_op_ns:ns} each on average",
                                      "每次调用 {value:.0f} 个内核，平均每个 {per_op_ns:ns}"),
    "many_tiny_ops.why": ("Every op pays a fixed dispatch (and on a GPU, launch) cost of several microseconds; with "
                          "many tiny ops that overhead, not the arithmetic, sets the time.",
                          "每个算子都有几微秒的固定分派（在 GPU 上还有启动）开销；算子又多又小时，决定耗时的是这些开销而不是计算本身。"),
    "many_tiny_ops.fix": ("fuse them: torch.compile, a fused op (F.gelu, F.scaled_dot_product_attention...), "
                          "vectorise Python loops into one tensor op, or CUDA graphs on a GPU",
                          "融合它们：torch.compile、融合算子（F.gelu、F.scaled_dot_product_attention……）、把 Python 循环向量化为一个张量运算，"
                          "或在 GPU 上用 CUDA 图"),
    "other_load.title": ("other load on the machine", "机器上有其他负载"),
    "other_load.message": ("other processes used {value:.1f} of {cores} cores while measuring",
                           "测量期间其他进程占用了 {cores} 个核中的 {value:.1f} 个"),
    "other_load.why": ("Other work competes for cores, caches and memory bandwidth, and preempts the measurement.",
                       "其他任务争用 CPU 核、缓存和内存带宽，并会抢占测量过程。"),
    "other_load.fix": ("stop other jobs, or pin them and this process to separate cores (taskset)",
                       "停止其他任务，或把它们和本进程绑定到不同的核（taskset）"),
    "cpu_frequency.title": ("CPU frequency governor", "CPU 调频策略"),
    "cpu_frequency.message": ("CPU frequency governor is '{governor}'", "CPU 调频策略为 '{governor}'"),
    "cpu_frequency.why": ("With a power-saving governor the clock speed changes with load, so the first samples and "
                          "short runs can be slower.",
                          "使用省电调频策略时，时钟频率随负载变化，最初的样本和短时运行可能更慢。"),
    "cpu_frequency.fix": ("for benchmarking, set the governor to 'performance' (cpupower frequency-set -g "
                          "performance)",
                          "测量时把调频策略设为 performance（cpupower frequency-set -g performance）"),
    "threads.title": ("thread count", "线程数"),
    "threads.message": ("torch uses {value:.0f} threads on {threshold:.0f} available cores",
                        "torch 在 {threshold:.0f} 个可用核上使用 {value:.0f} 个线程"),
    "threads.why": ("More compute threads than cores makes threads wait for each other and inflates times.",
                    "计算线程多于 CPU 核时，线程互相等待，耗时被拉长。"),
    "threads.fix": ("torch.set_num_threads({threshold:.0f}) or fewer", "torch.set_num_threads({threshold:.0f}) 或更少"),
    "tf32_off.title": ("TF32 off", "TF32 未开启"),
    "tf32_off.message": ("float32 matrix products on {gpu} (tensor cores, sm{sm}) run with TF32 off",
                         "{gpu}（张量核，sm{sm}）上的 float32 矩阵乘在 TF32 关闭的情况下运行"),
    "tf32_off.why": ("TF32 runs float32 matmuls on tensor cores, several times faster, with a 10-bit mantissa (about "
                     "1e-3 relative error per product) instead of 23 bits. PyTorch leaves it off by default.",
                     "TF32 让 float32 矩阵乘在张量核上运行，快数倍，尾数 10 位（每次乘积约 1e-3 相对误差）而非 23 位。PyTorch 默认关闭。"),
    "tf32_off.fix": ("if that precision is acceptable: torch.set_float32_matmul_precision('high'); otherwise keep it "
                     "off and consider bf16 autocast for the speed",
                     "若精度允许：torch.set_float32_matmul_precision('high')；否则保持关闭，并考虑用 bf16 autocast 提速"),
    "memory.title": ("memory", "内存"),
    "memory.message": ("peak device memory during one call: {peak_bytes:mib} above the {base_bytes:mib} already "
                       "allocated",
                       "一次调用期间的设备内存峰值：在已分配的 {base_bytes:mib} 之上再多 {peak_bytes:mib}"),
    "memory.message.cpu": ("about {alloc_bytes:mib} allocated per call on the CPU (profiler)",
                           "CPU 上每次调用约分配 {alloc_bytes:mib}（剖析器）"),
    "memory.why": ("Measured with torch.cuda.max_memory_allocated after resetting the peak.",
                   "重置峰值后用 torch.cuda.max_memory_allocated 测得。"),
    "memory.why.cpu": ("The CPU has no peak counter per call; this is the sum of allocations the profiler saw.",
                       "CPU 上没有按调用的峰值计数，这是剖析器看到的分配总和。"),
    "memory.fix": ("", ""),
    "graph_breaks.title": ("graph breaks", "图中断"),
    "graph_breaks.message": ("the compiled function runs in {graphs} pieces: {value:.0f} graph break(s), the first "
                             "at {where}: {reason}",
                             "编译后的函数分成 {graphs} 段运行：{value:.0f} 处图中断，第一处在 {where}：{reason}"),
    "graph_breaks.why": ("At a graph break dynamo stops tracing and runs Python eagerly between compiled graphs: "
                         "no fusion across the break, and a launch and a guard check per piece.",
                         "在图中断处 dynamo 停止追踪，在编译好的图之间以 eager 方式运行 Python：中断两侧无法融合，"
                         "每段都要一次启动和守卫检查。"),
    "graph_breaks.fix": ("move print(), .item(), data-dependent Python control flow and unsupported calls out of "
                         "the compiled function (torch._dynamo.explain shows each break)",
                         "把 print()、.item()、依赖数据的 Python 控制流和不支持的调用移出编译的函数"
                         "（torch._dynamo.explain 会列出每处中断）"),
    "function_failed.title": ("the function failed", "函数运行失败"),
    "function_failed.message": ("{error}", "{error}"),
    "function_failed.why": ("The function raised, so the checks after this point could not run.", "函数抛出了异常，此后的检查无法运行。"),
    "function_failed.fix": ("fix the error, or doctor a smaller piece of the code", "先修复这个错误，或对更小的一段代码运行 doctor"),
    # ---- a training step ------------------------------------------------------------------------
    "data_starvation.title": ("data starvation", "数据供给不足"),
    "data_starvation.message": ("the data phase takes {value:.0%} of the step", "数据阶段占一步的 {value:.0%}"),
    "data_starvation.why": ("While the batch is being produced, the device has nothing to do.", "在准备批数据期间，设备无事可做。"),
    "data_starvation.fix": ("use DataLoader workers (num_workers), pin_memory=True and non_blocking copies, or "
                            "prefetch the next batch during compute",
                            "使用 DataLoader 的 num_workers、pin_memory=True 和 non_blocking 拷贝，或在计算时预取下一批"),
    "recompile_during_timing.title": ("recompiles while timed", "计时期间重编译"),
    "recompile_during_timing.message": ("{value:.0f} graph(s) compiled after warm-up", "预热后又编译了 {value:.0f} 个图"),
    "recompile_during_timing.message.reason": ("{value:.0f} graph(s) compiled after warm-up, the first because a guard "
                                               "failed: {reason}",
                                               "预热后又编译了 {value:.0f} 个图，第一次是因为守卫条件失败：{reason}"),
    "recompile_during_timing.why": ("A recompilation inside the timed steps adds seconds to a step that normally "
                                    "takes milliseconds, and the average no longer describes the step.",
                                    "计时步内的重编译会给原本只要几毫秒的一步增加数秒，平均值不再描述这一步。"),
    "recompile_during_timing.fix": ("mark dynamic dimensions (torch._dynamo.mark_dynamic), pad inputs to fixed "
                                    "shapes, or warm up on every shape first",
                                    "标记动态维度（torch._dynamo.mark_dynamic）、把输入填充到固定形状，或先在每种形状上预热"),
    "compile_time.title": ("compile time", "编译耗时"),
    "compile_time.message": ("compilation took about {value:.2f} s in warm-up (excluded from the step time)",
                             "预热中编译约用了 {value:.2f} 秒（不计入每步耗时）"),
    "compile_time.why": ("The first call of a compiled model compiles it; counting that call as a step makes a "
                         "compiled model look many times slower than eager.",
                         "编译后模型的第一次调用会进行编译；把这次调用算作一步，会让编译后的模型看起来比 eager 慢很多倍。"),
    "compile_time.fix": ("", ""),
    "cudnn_benchmark_varying_shapes.title": ("cudnn.benchmark with varying shapes", "cudnn.benchmark 遇到变化的形状"),
    "cudnn_benchmark_varying_shapes.message": ("cudnn.benchmark is on and the batches had {value:.0f} different "
                                               "shapes",
                                               "cudnn.benchmark 已开启，而批数据有 {value:.0f} 种不同的形状"),
    "cudnn_benchmark_varying_shapes.why": ("cuDNN re-runs its algorithm search for every new shape.",
                                           "cuDNN 会为每种新形状重新搜索算法。"),
    "cudnn_benchmark_varying_shapes.fix": ("turn cudnn.benchmark off, or bucket/pad inputs to a few shapes",
                                           "关闭 cudnn.benchmark，或把输入分桶/填充到少数几种形状"),
    "peak_memory_phase.title": ("peak memory phase", "内存峰值所在阶段"),
    "peak_memory_phase.message": ("the step's peak memory ({peak_bytes:mib} allocated) happens in the {phase} phase",
                                  "一步的内存峰值（已分配 {peak_bytes:mib}）出现在 {phase} 阶段"),
    "peak_memory_phase.why": ("Memory plans should size for the phase where the peak is, often the optimizer step "
                              "(states and gradients alive together), not the forward.",
                              "内存规划应以峰值所在的阶段为准，这通常是优化器步（状态与梯度同时存在），而不是前向。"),
    "peak_memory_phase.fix": ("", ""),
    "mfu_above_100.title": ("MFU above 100%", "MFU 超过 100%"),
    "mfu_above_100.message.table": ("MFU against the table peak is {value:.0%}: impossible",
                                    "相对峰值表的 MFU 为 {value:.0%}：不可能"),
    "mfu_above_100.message.measured": ("MFU against the measured peak is {value:.0%}: above 100%, so the measured "
                                       "peak ({peak_flops:si}FLOP/s, {dtype}, {threads} threads, measured "
                                       "{measured_at} at load {load:.2f} on {cpus} CPUs) is the wrong ceiling, not "
                                       "the step",
                                       "相对实测峰值的 MFU 为 {value:.0%}：超过 100%，所以错的是实测峰值（{peak_flops:si}FLOP/s，{dtype}，"
                                       "{threads} 线程，测于 {measured_at}，当时负载 {load:.2f}，共 {cpus} 个 CPU），而不是这一步"),
    "mfu_above_100.why": ("Utilisation above 100% means an input is wrong, not that the model is fast.",
                          "利用率超过 100% 说明某个输入有误，而不是模型真有这么快。"),
    "mfu_above_100.fix": ("check the FLOPs per step (double-counted backward? all ranks' tokens on one device?), the "
                          "step time (synchronized?) and the peak (dense, right GPU and dtype)",
                          "检查每步 FLOPs（反向算了两次？把所有进程的 token 算在一个设备上？）、每步耗时（是否同步？）和峰值（稠密、GPU 与数据类型是否正确）"),
    "mfu_above_100.fix.measured": ("measure the peak again on a quiet machine, with the step's dtype and threads "
                                   "(measurefirst peaks --refresh --dtype ...); check the FLOPs per step too",
                                   "在安静的机器上按这一步的数据类型和线程数重测峰值（measurefirst peaks --refresh --dtype ...）；也检查每步 FLOPs"),
    "mfu_above_100.message.measured_untold": ("MFU against the measured peak ({peak_flops:si}FLOP/s, how it was "
                                              "measured not recorded) is {value:.0%}: above 100%, so that peak is "
                                              "the wrong ceiling, not the step",
                                              "相对实测峰值（{peak_flops:si}FLOP/s，未记录测量条件）的 MFU 为 {value:.0%}：超过 100%，"
                                              "所以错的是这个峰值，而不是这一步"),
    "mfu_above_100.fix.measured_untold": ("measure the peak again on a quiet machine, with the step's dtype and "
                                          "threads (measurefirst peaks --refresh --dtype ...); check the FLOPs per "
                                          "step too",
                                          "在安静的机器上按这一步的数据类型和线程数重测峰值（measurefirst peaks --refresh --dtype ...）；"
                                          "也检查每步 FLOPs"),
    "batch_mismatch.title": ("batch size mismatch", "批大小不一致"),
    "batch_mismatch.message": ("micro_batch={threshold:.0f} but the batches have {value:.0f} samples",
                               "micro_batch={threshold:.0f}，但批数据有 {value:.0f} 个样本"),
    "batch_mismatch.why": ("Throughput is samples (or tokens) per second; a wrong batch size makes every derived "
                           "number wrong by the same factor.",
                           "吞吐是每秒样本（或 token）数；批大小错了，所有导出的数字都按同一倍数出错。"),
    "batch_mismatch.fix": ("pass the per-device micro-batch the loader actually yields", "传入数据加载器实际给出的每设备微批大小"),
    "table_contradicts_verdict.title": ("table contradicts the verdict", "表格与结论不一致"),
    "table_contradicts_verdict.message": ("the phase table puts this step at {value:.2f}x {baseline}'s, far from the "
                                          "interleaved verdict ({ci_low:.2f}x–{ci_high:.2f}x): the machine's speed "
                                          "changed between the tables; trust the verdict",
                                          "阶段表给出的这一步是 {baseline} 的 {value:.2f} 倍，"
                                          "远离交错测量的结论（{ci_low:.2f}x–{ci_high:.2f}x）：机器速度在两张表之间变了；以结论为准"),
    "table_contradicts_verdict.message.undecided": ("the phase table puts this step at {value:.2f}x {baseline}'s; "
                                                    "the interleaved verdict is undecided ({rounds} rounds, too few "
                                                    "for a 95% CI; its estimate is {verdict_ratio:.2f}x): neither "
                                                    "settles the difference",
                                                    "阶段表给出的这一步是 {baseline} 的 {value:.2f} 倍；交错测量的结论尚无定论（{rounds} 轮，"
                                                    "不足以给出 95% 置信区间；其估计为 {verdict_ratio:.2f}x）：两者都不能确定差异"),
    "table_contradicts_verdict.fix.undecided": ("give the interleaved comparison more steps (compare_budget=...) "
                                                "until its verdict has a 95% CI; until then neither the table nor "
                                                "the verdict tells which is faster",
                                                "给交错比较更多的步数（compare_budget=...），直到结论有 95% 置信区间；在此之前，表格与结论都不能说明哪个更快"),
    "table_contradicts_verdict.why": ("Tables are measured one variant after another, so a change in the machine's "
                                      "load between them moves one table and not the other; the verdict alternates "
                                      "the variants round by round.",
                                      "各表是一个变体接一个变体测的，机器负载在其间的变化只影响其中一张；结论则逐轮交替各变体。"),
    "table_contradicts_verdict.fix": ("read speed differences from the interleaved verdict; read the table for where "
                                      "the time goes within one step",
                                      "速度差异看交错测量的结论；一步之内时间花在哪里看表格"),
    "rank_straggler.title": ("a straggling rank", "掉队的进程"),
    "rank_straggler.message": ("rank {rank} ({host}, local rank {local_rank}) computes its {phase} phase {value:.0%} "
                               "slower than the median rank (compute: the phase's time net of waiting in collectives); "
                               "the others wait {cost_ns:ns} per step for it",
                               "进程 {rank}（{host}，本地进程 {local_rank}）的 {phase} 阶段计算比中位进程慢 {value:.0%}"
                               "（计算：该阶段时间扣除在集合通信中的等待）；其他进程每步要等它 {cost_ns:ns}"),
    "rank_straggler.why": ("Every collective waits for the last rank to arrive, so one slow rank sets the pace of "
                           "the whole group: the time the others spend waiting is lost on every one of them.",
                           "每个集合通信都要等最后一个进程到达，所以一个慢进程决定了整个组的节奏：其他进程等待的时间在每个进程上都被浪费掉。"),
    "rank_straggler.fix": ("look at that rank's node: other jobs, a throttled or degraded GPU, slower data loading, "
                           "an uneven share of the data (sequence lengths); rerun to see whether it follows the node "
                           "or the rank",
                           "检查该进程所在的节点：其他作业、降频或故障的 GPU、更慢的数据加载、不均匀的数据分配（序列长度）；重跑一次，看问题跟着节点走还是跟着进程号走"),
    # ---- selfcheck ------------------------------------------------------------------------------
    "selfcheck_failed.title": ("a known duration measured wrong", "已知时长测量有误"),
    "selfcheck_failed.message": ("{row}: error {value:+.2%}, tolerance {threshold:+.2%}",
                                 "{row}：误差 {value:+.2%}，容差 {threshold:+.2%}"),
    "selfcheck_failed.why": ("measurefirst timed a workload of known duration and missed it by more than the "
                             "tolerance.",
                             "measurefirst 测量一个已知时长的负载，偏差超出了容差。"),
    "selfcheck_failed.fix": ("check the timer and the device's synchronization; rerun measurefirst selfcheck on a "
                             "quiet machine",
                             "检查计时器与设备同步；在安静的机器上重跑 measurefirst selfcheck"),
    "selfcheck_trap_missed.title": ("a trap went undetected", "陷阱未被发现"),
    "selfcheck_trap_missed.message": ("trap {trap} not detected", "陷阱 {trap} 未被发现"),
    "selfcheck_trap_missed.why": ("The check meant to catch this classic mistake did not report it.",
                                  "本应发现这一经典错误的检查没有报出它。"),
    "selfcheck_trap_missed.fix": ("the matching check did not report a known trap: please report this",
                                  "对应的检查没有报出已知陷阱：请报告此问题"),
    "selfcheck_noisy.title": ("error within the machine's noise", "误差在机器噪声之内"),
    "selfcheck_noisy.message": ("{row}: error {value:+.2%} within the noise {noise:+.2%}",
                                "{row}：误差 {value:+.2%}，在噪声 {noise:+.2%} 之内"),
    "selfcheck_noisy.why": ("The machine was too noisy to tell a measuring error from its own noise.",
                            "机器噪声太大，分不清测量误差和噪声。"),
    "selfcheck_noisy.fix": ("stop other load and rerun measurefirst selfcheck",
                            "机器太忙，无法判定：停止其他负载后重跑 measurefirst selfcheck"),
    "selfcheck_busy.title": ("the machine was too busy to judge", "机器太忙，无法判定"),
    "selfcheck_busy.message": ("the check's own thread got {value:.0%} of a core (a quiet core gives it "
                               "{threshold:.0%} or more)",
                               "自检线程只得到一个核的 {value:.0%}（安静的核至少给 {threshold:.0%}）"),
    "selfcheck_busy.why": ("Other work took the CPU while the known durations were timed: a reading that is too "
                           "long there is a fact about the machine, not a fault of the tool, so it is not judged.",
                           "计时已知时长期间，CPU 被其他任务占用：此时读数偏长说明的是机器，而不是工具的故障，因此不作判定。"),
    "selfcheck_busy.fix": ("close other work, or give the check a core of its own (taskset -c 1 measurefirst "
                           "selfcheck --quick), and run it again",
                           "关掉其他任务，或给自检一个独占的核（taskset -c 1 measurefirst selfcheck --quick），然后重跑"),
    # ---- an instruction count -------------------------------------------------------------------
    "count_spread.title": ("repeated counts disagree", "重复计数不一致"),
    "count_spread.message": ("repeated counts differ by ±{value:.2%} (per call: {min:,.0f} to {max:,.0f})",
                             "重复计数相差 ±{value:.2%}（每次调用：{min:,.0f} 至 {max:,.0f}）"),
    "count_spread.why": ("Counting the same calls again should give the same count; a spread means the work itself "
                         "varies.",
                         "重复计数同样的调用应得到同样的数；有离散说明工作本身在变。"),
    "count_spread.fix": ("the work differs between calls (random inputs, caches that fill, memory that grows): make "
                         "the calls identical, or count more calls per repeat (number=...)",
                         "各次调用的工作量不同（随机输入、逐渐填满的缓存、增长的内存）：让各次调用完全相同，或每次重复计数更多调用（number=...）"),
    # ---- ceilings and fits: a sweep, collectives ------------------------------------------------
    "roof_exceeded.title": ("a rate above its roof", "速率超过屋顶"),
    "roof_exceeded.message.compute": ("{label} at n={n} reaches {rate:si}{unit}, {value:.0%} of the compute roof "
                                      "({points} point(s) above it): the roof is wrong, not the point; it reads "
                                      "{peak:si}{unit}, measured for {dtype} with {threads} threads at "
                                      "{measured_at}, load {load:.2f} on {cpus} CPUs",
                                      "{label} 在 n={n} 达到 {rate:si}{unit}，为算力屋顶的 {value:.0%}（{points} 个点超过它）：错的是屋顶，"
                                      "不是这个点；屋顶为 {peak:si}{unit}，按 {dtype}、{threads} 线程测于 {measured_at}，当时负载 "
                                      "{load:.2f}，共 {cpus} 个 CPU"),
    "roof_exceeded.message.memory": ("{label} at n={n} reaches {rate:si}{unit}, {value:.0%} of the memory roof "
                                     "({points} point(s) above it): the roof is wrong, not the point; it reads "
                                     "{peak:si}{unit}, measured with {threads} threads at {measured_at}, load "
                                     "{load:.2f} on {cpus} CPUs",
                                     "{label} 在 n={n} 达到 {rate:si}{unit}，为内存带宽屋顶的 {value:.0%}（{points} 个点超过它）："
                                     "错的是屋顶，不是这个点；屋顶为 {peak:si}{unit}，以 {threads} 线程测于 {measured_at}，当时负载 "
                                     "{load:.2f}，共 {cpus} 个 CPU"),
    "roof_exceeded.why": ("Nothing runs faster than the machine can; a rate above the measured peak means the peak "
                          "was measured low: under other load, with fewer threads, another dtype or a cold clock. "
                          "Every 'of roof' figure divides by it.",
                          "没有什么能比机器更快；速率超过实测峰值说明峰值测低了：有其他负载、线程更少、数据类型不同或时钟未升频。每个“达屋顶”的数字都以它为分母。"),
    "roof_exceeded.fix": ("measure the peak again on a quiet machine, the way the sweep runs (measurefirst peaks "
                          "--refresh --dtype DTYPE, same thread count), then read the 'of roof' column",
                          "在安静的机器上按扫描的方式重测峰值（measurefirst peaks --refresh --dtype DTYPE，线程数相同），再看“达屋顶”一列"),
    "poor_fit.title": ("a poor fit", "拟合不佳"),
    "poor_fit.message.rms": ("{label}: the points stray from t0 + c·n^k by {value:.1%} rms (threshold "
                             "{threshold:.0%}): not one power law, so its exponent is no law of these data",
                             "{label}：各点偏离 t0 + c·n^k 的均方根为 {value:.1%}（阈值 {threshold:.0%}）：不是一条幂律，其指数不是这些数据的规律"),
    "poor_fit.message.residual": ("{label}: one point lies {value:.0%} from the fitted curve (threshold "
                                  "{threshold:.0%}): the fit passes it by, so its exponent is no law of these data",
                                  "{label}：有一个点离拟合曲线 {value:.0%}（阈值 {threshold:.0%}）：拟合绕过了它，其指数不是这些数据的规律"),
    "poor_fit.why": ("A robust fit down-weights the points that contradict it; a curve drawn past them describes the "
                     "other points only (a disturbed run, cache regimes, a change of algorithm).",
                     "稳健拟合会降低与之矛盾的点的权重；绕过它们画出的曲线只描述其余的点（受干扰的运行、缓存区间、算法切换）。"),
    "poor_fit.fix": ("measure again on a quiet machine, or fit a narrower range of sizes", "在安静的机器上重测，或只拟合较窄的规模范围"),
    "fit_slope_points.title": ("too few points on the slope", "斜坡上的点太少"),
    "fit_slope_points.message": ("{label}: only {value:.0f} point(s) lie where the work term c·n^k is at least the "
                                 "overhead t0 (at least {threshold:.0f} are needed): the exponent is drawn through "
                                 "too few points to be a law",
                                 "{label}：只有 {value:.0f} 个点落在工作项 c·n^k 不小于开销 t0 的区间（至少需要 {threshold:.0f} 个）："
                                 "指数只穿过太少的点，算不上规律"),
    "fit_slope_points.why": ("Two points always lie on some power law; the exponent says something only when several "
                             "sizes past the overhead follow it.",
                             "两个点总落在某条幂律上；只有开销之后的若干规模都符合时，指数才有意义。"),
    "fit_slope_points.fix": ("add larger sizes, so that several points lie past the overhead", "加入更大的规模，让开销之后有多个点"),
    "nonmonotone_sizes.title": ("a larger size ran faster", "更大的规模反而更快"),
    "nonmonotone_sizes.message": ("{label}: a larger size ran {value:.0%} faster than a smaller one (threshold "
                                  "{threshold:.0%}): the times do not grow with the size",
                                  "{label}：较大的规模比较小的快了 {value:.0%}（阈值 {threshold:.0%}）：时间没有随规模增长"),
    "nonmonotone_sizes.why": ("More work taking less time means a disturbed run (the smaller size measured under "
                              "load) or a change of algorithm between sizes; a model of time growing with size "
                              "cannot follow it.",
                              "工作更多却用时更少，说明运行受了干扰（较小的规模在负载下测得）或不同规模之间换了算法；时间随规模增长的模型无法跟上它。"),
    "nonmonotone_sizes.fix": ("measure those sizes again on a quiet machine; if it holds, the implementation changes "
                              "algorithm between them",
                              "在安静的机器上重测这些规模；若仍如此，说明实现在它们之间换了算法"),
    "ranks_disagree.title": ("the ranks disagree", "各进程的结论不一致"),
    "ranks_disagree.message": ("{label}: the ranks reach {value:.0f} different verdicts ({split}): no single verdict "
                               "holds for the group",
                               "{label}：各进程得出 {value:.0f} 种不同的结论（{split}）：整个进程组没有统一的结论"),
    "ranks_disagree.why": ("Each rank interleaves the candidates on its own device; when one rank sees a difference "
                           "and another does not (or sees the opposite), the difference depends on the rank: its "
                           "device, its node, its load.",
                           "每个进程在自己的设备上交错运行各候选；一个进程看到差异而另一个没有（或看到相反的差异）时，差异取决于进程：它的设备、节点和负载。"),
    "ranks_disagree.fix": ("look at the rank that differs (its node and device), run the comparison again, or give "
                           "it a longer --budget so that every rank decides",
                           "查看结论不同的那个进程（它的节点和设备），重新比较，或给更长的 --budget 让每个进程都能得出结论"),
    "busbw_drop.title": ("bus bandwidth dropped", "总线带宽下降"),
    "busbw_drop.message": ("{label} at {size}: bus bandwidth fell {value:.0%} ({base} → {new} GB/s; threshold "
                           "{threshold:.0%})",
                           "{label} 在 {size}：总线带宽下降 {value:.0%}（{base} → {new} GB/s；阈值 {threshold:.0%}）"),
    "busbw_drop.why": ("The same collective at the same size on the same number of ranks now moves fewer bytes per "
                       "second: a slower link or topology, another library version, or contention on the fabric.",
                       "同样的集合操作、同样的大小、同样的进程数，现在每秒传输的字节更少：链路或拓扑变慢、库版本不同，或网络上有争用。"),
    "busbw_drop.fix": ("compare the two runs' nodes and library versions (runs show), check the interconnect, and "
                       "run measurefirst collectives again to confirm",
                       "比较两次运行的节点和库版本（runs show），检查互连，再运行一次 measurefirst collectives 确认"),
    "new_straggler.title": ("a new straggler", "新的掉队者"),
    "new_straggler.message": ("{label}: rank {rank} ({node}) is a straggler, {value:.2f}x the median rank (threshold "
                              "{threshold:.2f}x); the run before had none",
                              "{label}：进程 {rank}（{node}）成了掉队者，是中位进程的 {value:.2f} 倍（阈值 {threshold:.2f} 倍）；上一次运行没有掉队者"),
    "new_straggler.message.moved": ("{label}: rank {rank} ({node}) is a straggler, {value:.2f}x the median rank "
                                    "(threshold {threshold:.2f}x); the run before had rank {before_rank} as its "
                                    "straggler",
                                    "{label}：进程 {rank}（{node}）成了掉队者，是中位进程的 {value:.2f} 倍（阈值 {threshold:.2f} 倍）；"
                                    "上一次运行的掉队者是进程 {before_rank}"),
    "new_straggler.message.phase": ("{label}: rank {rank} ({node}) is a straggler in its {phase} phase, computing it "
                                    "{value:.2f}x as long as the median rank (threshold {threshold:.2f}x; the others "
                                    "wait {cost_ns:ns} per step for it); the run before had no straggler there",
                                    "{label}：进程 {rank}（{node}）在 {phase} 阶段成了掉队者，计算用时是中位进程的 {value:.2f} 倍（阈值 "
                                    "{threshold:.2f} 倍；其他进程每步要等它 {cost_ns:ns}）；上一次运行在该阶段没有掉队者"),
    "new_straggler.message.phase_moved": ("{label}: rank {rank} ({node}) is a straggler in its {phase} phase, "
                                          "computing it {value:.2f}x as long as the median rank (threshold "
                                          "{threshold:.2f}x; the others wait {cost_ns:ns} per step for it); the run "
                                          "before had rank {before_rank} there",
                                          "{label}：进程 {rank}（{node}）在 {phase} 阶段成了掉队者，计算用时是中位进程的 {value:.2f} 倍（阈值 "
                                          "{threshold:.2f} 倍；其他进程每步要等它 {cost_ns:ns}）；上一次运行在该阶段的掉队者是进程 {before_rank}"),
    "new_straggler.why": ("The group waits for its slowest rank at every collective, so one rank slower than the "
                          "others costs the whole group that difference.",
                          "进程组在每次集合通信时都要等最慢的进程，所以一个比其他进程慢的进程会让整个组付出这段差距。"),
    "new_straggler.fix": ("look at that rank's node and device: its clocks, its load, its placement; pin the process "
                          "or move the rank, then measure again",
                          "查看该进程的节点和设备：时钟、负载、绑定位置；固定进程或换个位置，然后重新测量"),
    "group_throughput.title": ("the group's throughput", "进程组的吞吐量"),
    "group_throughput.message": ("{label}: the group's throughput went from {base:.4g} to {new:.4g} tokens/s "
                                 "({value:+.1%})",
                                 "{label}：进程组的吞吐量从 {base:.4g} 变为 {new:.4g} tokens/s（{value:+.1%}）"),
    "group_throughput.message.samples": ("{label}: the group's throughput went from {base:.4g} to {new:.4g} "
                                         "samples/s ({value:+.1%})",
                                         "{label}：进程组的吞吐量从 {base:.4g} 变为 {new:.4g} 样本/s（{value:+.1%}）"),
    "group_throughput.why": ("The sum over the ranks of what each processes per second: the figure the job's wall "
                             "time follows. It is a ratio of medians with no interval of its own; the step changes "
                             "above carry the intervals.",
                             "各进程每秒处理量之和：作业的墙钟时间跟着它走。它是中位数之比，本身没有区间；区间见上面各步的变化。"),
    "group_throughput.fix": ("read which rank and phase moved in the changes above; a new straggler there says where "
                             "to look",
                             "在上面的变化中看是哪个进程、哪个阶段变了；那里若有新的掉队者，就说明该查哪里"),
}

#: Which variant of a part a finding reads (a key suffix such as ``.cpu``), from its context.
_VARIANTS: dict[str, Callable[[Finding], str]] = {
    "precision_not_met": lambda f: "undefined" if f.value is None else "",
    "recompile_during_timing": lambda f: "reason" if f.context.get("reason") else "",
    "compiled": lambda f: ("processes" if f.context.get("processes") else
                           str(f.context.get("cache")) if f.context.get("cache") in ("cold", "warm") else ""),
    "fixed_count_cut": lambda f: str(f.context.get("count")),
    "no_noise_profile": lambda f: str(f.context.get("source")),
    "speed_modes": lambda f: "stretches" if f.context.get("stretches") else "alternating",
    "preempted": lambda f: "kept" if f.context.get("kept_all") else "set_aside",
    "unsynchronized_timing": lambda f: "cpu" if f.value is None else "",
    "implicit_syncs": lambda f: "cpu" if "ops" in f.context else "",
    "many_tiny_ops": lambda f: "kernels" if f.context.get("kernels") else "",
    "memory": lambda f: "cpu" if "alloc_bytes" in f.context else "",
    "mfu_above_100": lambda f: ("measured_untold" if f.context.get("peak") == "measured" and not f.context.get("measured_at")
                                else str(f.context.get("peak", "table"))),
    "table_contradicts_verdict": lambda f: "undecided" if "ci_low" not in f.context else "",
    "poor_fit": lambda f: "residual" if f.context.get("reason") == "residual" else "rms",
    "new_straggler": lambda f: ("phase" + ("_moved" if "before_rank" in f.context else "") if "phase" in f.context
                                else "moved" if "before_rank" in f.context else ""),
    "group_throughput": lambda f: "samples" if f.context.get("unit") == "samples" else "",
    "roof_exceeded": lambda f: "memory" if f.context.get("roof") == "memory" else "compute",
}

#: The Python habits behind each synchronizing op (the ``ops`` of a CPU ``implicit_syncs`` finding).
SYNC_OP_HABITS = {"aten::_local_scalar_dense": ".item() / float(tensor) / int(tensor) / if tensor:",
                  "aten::item": ".item()", "aten::nonzero": "nonzero() / boolean-mask indexing",
                  "aten::masked_select": "masked_select / boolean-mask indexing", "aten::unique": "unique()",
                  "aten::_unique2": "unique()", "aten::is_nonzero": "if tensor: / bool(tensor)",
                  "aten::equal": "torch.equal", "aten::allclose": "torch.allclose"}



def _time_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _si(x: float) -> str:
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}"
    return f"{x:.3g} "


@dataclass(frozen=True)
class _Value:
    """A finding's value with its threshold, for formatting: a value that differs from its threshold never
    reads as the threshold (``10.0%`` of a 10% threshold): it gains decimals until it reads apart."""

    value: float
    threshold: float | None

    def format(self, spec: str) -> str:
        shown = format(self.value, spec)
        match = re.fullmatch(r"([+ ]?)\.(\d+)([f%])", spec)
        if match is None or self.threshold is None or self.value == self.threshold or not math.isfinite(self.threshold):
            return shown
        sign, digits, kind = match[1], int(match[2]), match[3]
        for more in range(digits, digits + 7):
            shown = format(self.value, f"{sign}.{more}{kind}")
            if shown != format(self.threshold, f"{sign}.{more}{kind}"):
                break
        return shown


class _Formatter(string.Formatter):
    """``str.format`` plus ``{x:ns}`` (nanoseconds as a readable time) and ``{x:mib}`` (bytes in MiB);
    a missing or non-finite number reads ``n/a``."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, _Value):
            if not math.isfinite(value.value):
                return "n/a"
            if format_spec in ("ns", "mib", "si"):
                value = value.value
            else:
                return value.format(format_spec)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return "n/a"
        numeric = format_spec in ("ns", "mib", "si") or format_spec[-1:] in ("e", "E", "f", "F", "g", "G", "%", "d")
        if numeric and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return "n/a"  # a finding read from a file whose context holds text or a list where a number goes
        if format_spec == "ns":
            return _time_ns(float(value))
        if format_spec == "mib":
            return f"{float(value) / 2**20:.1f} MiB"
        if format_spec == "si":  # a rate with its SI prefix, three significant digits: "44.8 G"
            return _si(float(value))
        return str(super().format_field(value, format_spec))

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        return kwargs.get(key) if isinstance(key, str) else super().get_value(key, args, kwargs)


_FORMAT = _Formatter()


@dataclass(frozen=True)
class FindingText:
    """A finding in words, in one language."""

    code: str
    severity: str  # the severity's word: "warning", "note", "警告"...
    title: str
    message: str
    why: str
    fix: str


def _fields(f: Finding) -> dict[str, Any]:
    fields: dict[str, Any] = dict(f.context)
    fields.update(value=None if f.value is None else _Value(f.value, f.threshold), threshold=f.threshold,
                  inverse=None if not f.value else 1 / f.value)
    sites = f.context.get("sites")
    if isinstance(sites, dict):
        fields["sites"] = "; ".join(f"{k} x{v}" for k, v in sites.items())
    ops = f.context.get("ops")
    if isinstance(ops, dict):
        fields["ops"] = ", ".join(f"{SYNC_OP_HABITS.get(k, k)} ({k}) x{v}" for k, v in ops.items())
    return fields


def finding_words(f: Finding, lang: str = "en") -> FindingText:
    """``f`` in words in ``lang`` (``en`` or ``zh``; English for any other). A code the catalogue does
    not know (from a newer or older file) reads its code as the title and the words the file carried."""
    sev = code_word("sev_", f.severity, lang)
    if f"{f.code}.title" not in FINDING_WORDS:
        ctx = f.context
        return FindingText(f.code, sev, f.code, str(ctx.get("message", "")), str(ctx.get("explanation", "")),
                           str(ctx.get("fix", "")))
    pick = _VARIANTS.get(f.code)
    variant = pick(f) if pick is not None else ""
    fields = _fields(f)
    parts = {}
    for part in PARTS:
        key = next((k for k in (f"{f.code}.{part}.{variant}" if variant else "", f"{f.code}.{part}")
                    if k in FINDING_WORDS), None)
        parts[part] = "" if key is None else _FORMAT.vformat(text(FINDING_WORDS, key, lang), (), fields)
    return FindingText(f.code, sev, parts["title"], parts["message"], parts["why"], parts["fix"])


def finding_text(f: Finding, lang: str = "en") -> dict[str, str]:
    """``f`` in words as a JSON-able dict: ``title``, ``message``, ``why``, ``fix`` (and ``lang``)."""
    w = finding_words(f, lang)
    return {"lang": lang, "title": w.title, "message": w.message, "why": w.why, "fix": w.fix}


def title(code: str, lang: str = "en") -> str:
    """A code's short title (the code itself when the catalogue lacks it)."""
    key = f"{code}.title"
    return text(FINDING_WORDS, key, lang) if key in FINDING_WORDS else code


def finding_line(f: Finding, lang: str = "en", *, fix: bool = True) -> str:
    """``warning [unstable]: the samples' IQR is 50.0% of the median. Fix: close other programs.``; a
    note's fix is left out (and every fix with ``fix=False``). The context may hold user text (a source
    line, an error): show the line through :func:`measurefirst.render.text.plain`."""
    w = finding_words(f, lang)
    zh = lang == "zh"
    stop = "。" if zh else "."
    colon = "：" if zh else ": "
    line = f"{w.severity} [{f.code}]{colon}{w.message}{stop}"
    if fix and w.fix and f.severity != "info":
        line += f"{'' if zh else ' '}{word('fix_label', lang)}{colon}{w.fix}{stop}"
    return line


def finding_lines(findings: Iterable[Finding], lang: str = "en", *, fix: bool = True) -> list[str]:
    """One :func:`finding_line` per finding."""
    return [finding_line(f, lang, fix=fix) for f in findings]


#: The coded fields of a measurement's parts, in :func:`with_words`: part -> (field, prefix of its words).
_CODED = {"warmup": ("rule", "warmup_rule_"), "calibration": ("reason", "cal_reason_")}


def with_words(data: Any, lang: str = "en") -> Any:
    """A result's ``to_dict()`` with words: every finding (an object with a ``code`` in a
    ``findings`` list) gains ``text``, :func:`finding_text` in ``lang``; a measurement's warm-up gains
    ``rule_text`` and its calibration ``reason_text``. For JSON that carries both the data and the words."""
    if isinstance(data, (list, tuple)):
        return [with_words(x, lang) for x in data]
    if not isinstance(data, dict):
        return data
    out: dict[Any, Any] = {}
    for key, value in data.items():
        if key == "findings" and isinstance(value, (list, tuple)):
            out[key] = [{**x, "text": finding_text(Finding.from_dict(x), lang)}
                        if isinstance(x, dict) and isinstance(x.get("code"), str) else with_words(x, lang)
                        for x in value]
        elif key in _CODED and isinstance(value, dict) and isinstance(value.get(_CODED[key][0]), str):
            name, prefix = _CODED[key]
            out[key] = {**with_words(value, lang),
                        f"{name}_text": codes_words(prefix, value[name], lang, share=value.get("overhead_share"))}
        else:
            out[key] = with_words(value, lang)
    return out
