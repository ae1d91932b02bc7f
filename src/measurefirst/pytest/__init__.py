"""The pytest plugin's machinery (its entry point is the light ``pytest_measurefirst`` package): the
session and fixtures, the run's result and its report."""
