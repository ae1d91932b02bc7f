"""The pytest plugin's words (pytest/report.py), in English and Chinese: its header, tables, verdicts and
findings, code against code (``--mf-against``) and bisecting. A table of the one format of
:data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.words.WORDS`."""

PYTEST_WORDS = {
    # the pytest plugin's lines (pytest/report.py)
    "pt_start_interrupted": ("measurefirst: interrupted while it started (importing torch and its plugin); nothing was "
                             "measured", "measurefirst：在启动时（导入 torch 和插件）被中断；没有进行任何测量"),
    "pt_summary_interrupted": ("interrupted while the end-of-run summary was written (it may be cut short): this run's "
                               "saves and files were done before it",
                               "在写运行结束时的摘要时被中断（摘要可能不完整）：本次运行的保存和文件在此之前已完成"),
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
    "pt_title_compared": (", compared with {baseline} (time ratio new/baseline, {level}% CI{spread})",
                          "，与 {baseline} 比较（时间比 新/基线，{level}% 置信区间{spread}）"),
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
    "against_suite_level": ("intervals at {level}% each: the {n} comparisons share one {err}% chance that a "
                            "run calls any unchanged benchmark slower or faster (Bonferroni), so that a larger "
                            "suite does not fail more often on noise",
                            "每个区间取 {level}%：{n} 个比较共享 {err}% 的概率（Bonferroni），即一次运行把任何未改变的"
                            "基准判为变慢或变快的概率至多为此，套件越大也不会因噪声更常失败"),
    "pt_suite_level": ("intervals at {level}% each: the run's measuring tests share one {err}% chance "
                       "that it calls any unchanged benchmark slower or faster than {baseline} (Bonferroni), so that a "
                       "larger suite does not fail more often on noise",
                       "每个区间取 {level}%：本次运行的各个测量测试共享 {err}% 的概率（Bonferroni），即把任何未改变的"
                       "基准判为比 {baseline} 变慢或变快的概率至多为此，套件越大也不会因噪声更常失败"),
    "pt_against_second_look": ("{n} of them, undecided after {pairs} pair(s), got more pairs at a second look (their "
                               "intervals at {level}%, so that the two looks together err at most {err}% of the run's "
                               "time): "
                               "{tests}",
                               "其中 {n} 个在 {pairs} 对后仍未判定，第二轮追加了工作进程对（区间取 {level}%，两轮合计出错"
                               "概率至多 {err}%）：{tests}"),
    "pt_against_pairs_of": ("{test} ({pairs} pairs)", "{test}（{pairs} 对）"),
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
}
