"""The words of the findings on a measurement (of time, or an instruction count), in English and Chinese: each
code's title, message, why and fix. A table of the one format of :data:`measurefirst.render.words.Words`, merged
into :data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

MEASUREMENT_FINDING_WORDS: Words = {
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
    "starved.title": ("starved: waited for a core", "饥饿：等待 CPU 核心"),
    "starved.message.wait": ("in {value:.0%} of the samples the process waited for a core: one of its threads waited "
                             "{waited:.0%} of the time, so with the cores free a call may take {low_ns:ns} or less, "
                             "{factor:.1f}x below the {median_ns:ns} measured",
                             "在 {value:.0%} 的样本中进程在等待 CPU 核心：它的一个线程有 {waited:.0%} 的时间在等待，"
                             "因此核心空闲时一次调用可能只需 {low_ns:ns} 或更少，测得的 {median_ns:ns} 是它的 {factor:.1f} 倍"),
    "starved.message.wait_widened": ("in {value:.0%} of the samples the process waited for a core: one of its threads "
                                     "waited {waited:.0%} of the time, so with the cores free a call may take "
                                     "{low_ns:ns} or less, {factor:.1f}x below the {median_ns:ns} measured; the interval "
                                     "reaches down to it",
                                     "在 {value:.0%} 的样本中进程在等待 CPU 核心：它的一个线程有 {waited:.0%} 的时间在"
                                     "等待，因此核心空闲时一次调用可能只需 {low_ns:ns} 或更少，测得的 {median_ns:ns} 是它的 "
                                     "{factor:.1f} 倍；区间已向下延伸到这里"),
    "starved.message.cpu": ("in {value:.0%} of the samples the process waited for a core: its CPU time, {cpu_ns:ns} per "
                            "call over {threads} thread(s), says with the cores free a call may take {low_ns:ns} or "
                            "less, {factor:.1f}x below the {median_ns:ns} measured",
                            "在 {value:.0%} 的样本中进程在等待 CPU 核心：它的 CPU 时间（{threads} 个线程合计每次调用 "
                            "{cpu_ns:ns}）表明，核心空闲时一次调用可能只需 {low_ns:ns} 或更少，测得的 {median_ns:ns} 是它的 "
                            "{factor:.1f} 倍"),
    "starved.message.cpu_widened": ("in {value:.0%} of the samples the process waited for a core: its CPU time, "
                                    "{cpu_ns:ns} per call over {threads} thread(s), says with the cores free a call "
                                    "may take {low_ns:ns} or less, {factor:.1f}x below the {median_ns:ns} measured; the "
                                    "interval reaches down to it",
                                    "在 {value:.0%} 的样本中进程在等待 CPU 核心：它的 CPU 时间（{threads} 个线程合计"
                                    "每次调用 {cpu_ns:ns}）表明，核心空闲时一次调用可能只需 {low_ns:ns} 或更少，测得的 "
                                    "{median_ns:ns} 是它的 {factor:.1f} 倍；区间已向下延伸到这里"),
    "oversubscribed.title": ("oversubscribed: threads waited for a core", "超额订阅：线程在等待 CPU 核心"),
    "oversubscribed.message": ("one of the process's {threads} torch threads waited for a core {value:.0%} of the time: "
                               "the machine has fewer free cores than threads, and a fresh run here can land in a "
                               "starved mode, a scheduler quantum a call",
                               "进程的 {threads} 个 torch 线程中有一个在 {value:.0%} 的时间里等待 CPU 核心：机器的空闲核心"
                               "少于线程数，在这里新启动的运行可能落入饥饿模式，每次调用耗费一个调度量子"),
    "oversubscribed.message.widened": ("one of the process's {threads} torch threads waited for a core {value:.0%} of the "
                                       "time: the machine has fewer free cores than threads, and a fresh run here can "
                                       "land in a starved mode, a scheduler quantum a call; the interval reaches "
                                       "{factor:g}x either way",
                                       "进程的 {threads} 个 torch 线程中有一个在 {value:.0%} 的时间里等待 CPU 核心：机器的"
                                       "空闲核心少于线程数，在这里新启动的运行可能落入饥饿模式，每次调用耗费一个调度量子；"
                                       "区间向两侧各延伸到 {factor:g} 倍"),
    "oversubscribed.why": ("This run was not starved, but the next one cannot be told apart: measured with both cores busy "
                           "and torch's two threads, fresh runs read a 256x256 product at 183 µs or, starved, at 16 ms.",
                           "这次运行没有饥饿，但无法预知下一次：在两个核心都忙、torch 用两个线程时实测，新启动的运行读到"
                           "256x256 乘积为 183 µs，或者在饥饿时为 16 ms。"),
    "oversubscribed.fix": ("run torch on fewer threads than free cores (torch.set_num_threads(1) on a busy machine), or "
                           "free cores",
                           "让 torch 线程数少于空闲核数（繁忙的机器上用 torch.set_num_threads(1)），或空出核心"),
    "starved.why": ("With every core busy, the process's threads wait for a core in every call (a thread of torch's pool, "
                    "or the caller itself): the samples agree on the scheduler's time, not the work's, and the next run on "
                    "a freer machine lands far below; how far, nothing in this run can tell.",
                    "所有核心都忙时，进程的线程在每次调用中都要等待核心（torch 线程池中的某个线程，或调用者自己）：样本一致"
                    "反映的是调度器的时间而不是计算本身的时间，下一次在较空闲的机器上运行会落在低得多的地方；低多少，"
                    "这次运行本身无从得知。"),
    "starved.fix": ("free a core, or run torch on fewer threads than free cores (torch.set_num_threads(1) on a busy "
                    "machine)",
                    "空出一个核心，或让 torch 线程数少于空闲核数（繁忙的机器上用 torch.set_num_threads(1)）"),
    "cold_repetition.title": ("a cold first repetition", "第一次重复是冷的"),
    "cold_repetition.message": ("the first of {repeats} repetitions ran {value:.2f}x the others' median, slower than "
                                "each of them: with the warm-up fixed at {warmup} calls its samples were likely taken "
                                "before the function was warm, and they widen the interval",
                                "{repeats} 次重复中的第一次是其余重复中位数的 {value:.2f} 倍，比每一次都慢：预热固定为 {warmup} "
                                "次调用，它的样本很可能是在函数热起来之前取的，因而放宽了区间"),
    "cold_repetition.why": ("A fixed warm-up lets the first calls, slower while caches, the allocator and torch's dispatch "
                            "warm up, into the samples (pytest-benchmark's pedantic runs have no warm-up rounds unless "
                            "asked). The samples stay: the counts asked for are exact.",
                            "固定的预热会让最初的调用（缓存、分配器和 torch 的分发仍在预热，因而较慢）进入样本（pytest-benchmark 的 "
                            "pedantic 运行除非指定，否则没有预热轮）。样本予以保留：所要求的次数是精确的。"),
    "cold_repetition.fix": ("warm up before the samples: warmup_rounds=N in benchmark.pedantic (warmup=N in benchmark(), "
                            "--warmup N), or leave the warm-up unset and measurefirst warms up until the calls are steady",
                            "在取样前预热：在 benchmark.pedantic 中设 warmup_rounds=N（benchmark() 中 warmup=N，命令行 "
                            "--warmup N），或不设预热，让 measurefirst 一直预热到调用稳定"),
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
    "fixed_count_cut.message.repeats": ("{value:.0f} of the {threshold:.0f} repetitions asked for fit in the "
                                        "{budget:g} s budget; the run stopped there",
                                        "要求的 {threshold:.0f} 次重复中只有 {value:.0f} 次在 {budget:g} 秒预算内完成；测量就此结束"),
    "fixed_count_cut.why": ("The budget bounds every run, fixed counts included: a count that cannot fit is cut, "
                            "never run past the budget.",
                            "预算约束每一次运行，固定次数也不例外：装不下的次数会被截断，绝不会超出预算运行。"),
    "fixed_count_cut.fix": ("give a larger budget (budget=... / --budget) or a smaller count (trials=... / --trials, "
                            "warmup=... / --warmup, repeats=... / --repeats)",
                            "给更大的预算（budget=... / --budget），或更小的次数（trials=... / --trials，warmup=... / --warmup，"
                            "repeats=... / --repeats）"),
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
        "spread widened {inflation:g}x, and at least ±{floor:rel} for a call this long: ±{value:rel} per run",
        "本机没有噪声画像，因此运行间离散度取 measurefirst 的先验：重复运行的离散度放宽 {inflation:g} 倍，"
        "且这么长的调用至少 ±{floor:rel}：每次运行 ±{value:rel}"),
    "no_noise_profile.message.processes": (
        "this machine has no noise profile: the fresh processes' spread holds at least measurefirst's prior for a "
        "call this long (±{floor:rel}): ±{value:rel} per run",
        "本机没有噪声画像：新进程的离散度至少取 measurefirst 对这么长调用的先验（±{floor:rel}）：每次运行 ±{value:rel}"),
    "no_noise_profile.message.prior": (
        "this machine has no noise profile and the run measured no spread (one repetition): the run-to-run spread "
        "is measurefirst's prior for a call this long, ±{value:rel} per run",
        "本机没有噪声画像，且本次运行未测离散度（只有一次重复）：运行间离散度取 measurefirst 对这么长调用的先验，"
        "每次运行 ±{value:rel}"),
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
    "noise_profile_disagrees.title": ("repetitions wider than the noise profile's work",
                                      "重复之间的离散度超出噪声画像中同类工作"),
    "noise_profile_disagrees.message": (
        "this run's repetitions spread ±{cv:.2%}, {value:.1f}x the ±{within:.2%} the noise profile's work of this "
        "length spread inside one process: the profile says little about this call now, so its spread is widened "
        "{inflation:g}x as without a profile",
        "本次运行的重复之间离散度为 ±{cv:.2%}，是噪声画像中同样时长的工作在单个进程内离散度（±{within:.2%}）的 "
        "{value:.1f} 倍：画像对这次调用几乎说明不了什么，因此离散度像没有画像时那样放宽 {inflation:g} 倍"),
    "noise_profile_disagrees.why": (
        "The profile measured how much more fresh processes spread than repetitions inside one, for its own work at "
        "each length. Repetitions far wider than that work's come from other work, or from a machine that changed "
        "since the profile was measured; either way the profile's ratio is not this call's, and the run does not "
        "borrow its certainty.",
        "画像测的是：对每种时长的自身工作，新进程之间比单个进程内的重复多离散多少。重复远比该工作更分散，说明要么是别的工作，"
        "要么机器在测画像之后变了；无论哪种，画像的比例都不属于这次调用，本次运行不借用它的确定性。"),
    "noise_profile_disagrees.fix": (
        "if the machine changed (other load, another power mode), measure the profile again: measurefirst selfcheck "
        "--noise; to see this call's own fresh-process spread, measure fresh processes: processes=3 (--processes 3)",
        "若机器变了（其他负载、另一种电源模式），请重新测量画像：measurefirst selfcheck --noise；要看这次调用自身的"
        "新进程离散度，请在新进程中测量：processes=3（--processes 3）"),
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
}
