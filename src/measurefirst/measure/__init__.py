"""The timing core: the machine seam (devices), the timers, the engine, statistics, counting, the
reference, the simulated machine, defaults, dtypes and progress. Only the timers and the machine seam
read a clock."""
