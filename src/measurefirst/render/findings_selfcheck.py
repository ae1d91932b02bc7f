"""The words of the findings of ``measurefirst selfcheck``, in English and Chinese: each code's title, message,
why and fix. A table of the one format of :data:`measurefirst.render.words.Words`, merged into
:data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

SELFCHECK_FINDING_WORDS: Words = {
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
}
