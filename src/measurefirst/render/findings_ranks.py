"""The words of the findings across ranks (a comparison on many ranks, the history of a rank group), in
English and Chinese: each code's title, message, why and fix. A table of the one format of
:data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

RANK_FINDING_WORDS: Words = {
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
