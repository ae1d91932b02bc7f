#!/usr/bin/env bash
# Headless Chromium for the HTML report's browser tests (tests/test_report_browser.py). Sourced by
# test.sh after env.sh. Tried once per environment (a stamp in .venv), only where apt-get can install
# it (as root); it never fails the run: without a browser those tests skip and say why.
# MEASUREFIRST_NO_BROWSER=1 skips the attempt.
if [ -z "${MEASUREFIRST_NO_BROWSER:-}" ] && [ ! -e "$VENV/.chromium-tried" ] \
   && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the report's browser tests (once; MEASUREFIRST_NO_BROWSER=1 skips) ..." >&2
    if ! (export DEBIAN_FRONTEND=noninteractive
          timeout 900 apt-get install -y -q chromium >/dev/null 2>&1 \
            || { timeout 300 apt-get update -q >/dev/null 2>&1 \
                 && timeout 900 apt-get install -y -q chromium >/dev/null 2>&1; }); then
      echo "could not install chromium: the browser tests will be skipped" >&2
    fi
  fi
  touch "$VENV/.chromium-tried" 2>/dev/null || true
fi
