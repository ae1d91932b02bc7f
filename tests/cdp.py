"""A tiny Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (standard library only).

Chromium reads commands from file descriptor 3 and writes replies and events to file descriptor 4,
each message JSON ended by a NUL byte; no websocket, no port. Used by the browser tests of the HTML
report: load a page, collect console errors, exceptions and network requests, evaluate JavaScript,
click like a mouse, take screenshots.
"""

from __future__ import annotations

import base64
import collections
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    """The browser to drive: $MEASUREFIRST_CHROMIUM, else the first of :data:`CANDIDATES` on PATH."""
    env = os.environ.get("MEASUREFIRST_CHROMIUM")
    if env:
        return env if Path(env).exists() or shutil.which(env) else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; :meth:`page` opens a tab. Use as a context manager."""

    def __init__(self, binary: str, *, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="mf-chromium-")
        cmd_r, self._cmd_w = os.pipe()  # we write commands; the browser reads them on fd 3
        self._res_r, res_w = os.pipe()  # the browser writes on fd 4; we read

        def child_fds() -> None:  # runs in the child before exec: put the pipe ends on fds 3 and 4
            a, b = os.dup(cmd_r), os.dup(res_w)
            os.dup2(a, 100)
            os.dup2(b, 101)
            os.dup2(100, 3)
            os.dup2(101, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.stderr_path = Path(self.profile) / "stderr.log"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr, close_fds=False,
            preexec_fn=child_fds)
        os.close(cmd_r)
        os.close(res_w)
        self._buf = b""
        self._next = 0
        # events by session, and those no wait_event has taken yet by (method, session): a page's checks and
        # each wait read only their own (scanning every event each time made a crawl of 76 pages quadratic)
        self.events: dict[str | None, list[dict[str, Any]]] = {}
        self._unseen: dict[tuple[str | None, str | None], collections.deque[dict[str, Any]]] = {}

    def _record(self, event: dict[str, Any]) -> None:
        session, method = event.get("sessionId"), event.get("method")
        self.events.setdefault(session, []).append(event)
        self._unseen.setdefault((method, session), collections.deque()).append(event)

    # -- protocol --------------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read(self.timeout)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return dict(reply.get("result") or {})
            self._record(reply)

    def _read(self, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = end - time.monotonic()
            ready, _, _ = select.select([self._res_r], [], [], max(left, 0.0))
            if not ready:
                raise TimeoutError(f"no reply from the browser within {timeout:.0f} s; stderr: "
                                   + self.stderr_path.read_text(errors="replace")[-2000:])
            chunk = os.read(self._res_r, 1 << 20)
            if not chunk:
                raise CDPError("the browser closed the pipe; stderr: "
                               + self.stderr_path.read_text(errors="replace")[-2000:])
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return dict(json.loads(raw))

    def wait_event(self, method: str, session: str, timeout: float | None = None) -> dict[str, Any]:
        """The first event ``method`` of ``session`` not yet consumed (waits for it)."""
        end = time.monotonic() + (timeout or self.timeout)
        while True:
            waiting = self._unseen.get((method, session))
            if waiting:
                return waiting.popleft()
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {method} within the timeout")
            self._record(self._read(left))

    def page(self) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)

    def close(self) -> None:
        try:
            os.write(self._cmd_w, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._cmd_w, self._res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab: console errors, exceptions and requests are collected from the moment it opens."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.b, self.session = browser, session
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.b.send(method, params, self.session)

    def _events(self, method: str) -> list[dict[str, Any]]:
        return [e.get("params", {}) for e in self.b.events.get(self.session, []) if e.get("method") == method]

    def set_viewport(self, width: int, height: int, *, mobile: bool = False, scale: float = 1.0) -> None:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})

    def color_scheme(self, scheme: str) -> None:
        """Emulate ``prefers-color-scheme: light|dark``."""
        self.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session)

    def js(self, expression: str) -> Any:
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError(f"{expression!r} raised: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the centre of the element."""
        box = self.js(f"(function(){{var e=document.querySelector({json.dumps(selector)});"
                      f"if(!e){{return null;}}e.scrollIntoView({{block:'center'}});var r=e.getBoundingClientRect();"
                      f"return [r.left+r.width/2,r.top+r.height/2];}})()")
        if box is None:
            raise CDPError(f"no element matches {selector!r}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def type_text(self, selector: str, text: str) -> None:
        self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    # -- what went wrong -------------------------------------------------------------------------
    def console_errors(self) -> list[str]:
        out = []
        for p in self._events("Runtime.consoleAPICalled"):
            if p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        for p in self._events("Runtime.exceptionThrown"):
            d = p.get("exceptionDetails", {})
            out.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
        for p in self._events("Log.entryAdded"):
            entry = p.get("entry", {})
            if entry.get("level") == "error":
                out.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        return out

    def requests(self) -> list[str]:
        return [p.get("request", {}).get("url", "") for p in self._events("Network.requestWillBeSent")]
