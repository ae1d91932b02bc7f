"""The words of a regression check of saved results, in English and Chinese: a change with its interval, what
makes it doubtful, the run-to-run notes, and why a change is undecided, with its fix. A table of the one format
of :data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.words.WORDS`."""

CHANGE_WORDS = {
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
    "change_words": ("{pct}% {direction}{sig} (ratio {ratio}, {level}% CI {lo}–{hi})",
                     "{direction} {pct}%{sig}（比值 {ratio}，{level}% 置信区间 {lo}–{hi}）"),
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
    "undecided_interleaved": ("{side}: its interval ±{value} holds both no change and the threshold; it needs about "
                              "±{limit}, about {longer} as many worker pairs (--mf-against-pairs), or a threshold of "
                              "{suggest}",
                              "{side}：其区间 ±{value} 同时包含“无变化”与阈值；约需 ±{limit}，即约 {longer} 倍的工作进程对数"
                              "（--mf-against-pairs），或把阈值提高到 {suggest}"),
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
}
