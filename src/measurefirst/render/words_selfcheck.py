"""``measurefirst selfcheck``'s words, in English and Chinese. A table of the one format of
:data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.words.WORDS`."""

SELFCHECK_WORDS = {
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
