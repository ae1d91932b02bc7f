"""The tools built on the timing core: compare, sweep, fit, roofline, step, doctor, selfcheck and
regression."""
