"""The words of the findings on ceilings and fits (a sweep's roofline and power law, the collectives' fit), in
English and Chinese: each code's title, message, why and fix. A table of the one format of
:data:`measurefirst.render.words.Words`, merged into :data:`measurefirst.render.findings.FINDING_WORDS`."""

from .words import Words

FIT_FINDING_WORDS: Words = {
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
}
