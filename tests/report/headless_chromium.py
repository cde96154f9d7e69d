"""A headless Chromium driven over the DevTools protocol through a pipe: no websocket, no
port, no library, nothing but the browser Debian packages (`apt-get install chromium`).

    with Chromium.launch(tmp_path) as browser:      # None-safe: `find()` first
        page = browser.open(path.as_uri())           # waits for the load event
        page.evaluate("document.title")
        page.screenshot(tmp_path / "page.png")
        page.problems()                              # console errors, exceptions, requests

`--remote-debugging-pipe` makes Chromium read commands on its fd 3 and answer on fd 4,
each message JSON ended by a NUL byte; a shell puts our pipe ends there.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
         "--mute-audio", "--remote-debugging-pipe")
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT = 60.0


def find() -> str | None:
    """The browser to run: $NEEDS_MICROVERSION_CHROMIUM, else the first on PATH."""
    chosen = os.environ.get("NEEDS_MICROVERSION_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    return next((found for found in map(shutil.which, NAMES) if found), None)


class Chromium:
    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process = process
        self.log = log
        self.buffer = b""
        self.events: list[dict[str, Any]] = []
        self.next_id = 0

    @classmethod
    def launch(cls, program: str, folder: Path) -> Chromium:
        profile = folder / "profile"
        profile.mkdir(parents=True)
        log = folder / "chromium.log"
        # fd 3 <- our stdin pipe (commands), fd 4 -> our stdout pipe (answers).
        process = subprocess.Popen(
            ["sh", "-c", 'exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null', program, *FLAGS,
             f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log.open("wb"))
        return cls(process, log)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *_: object) -> None:
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """Send a command and wait for its answer; events meanwhile are kept."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method,
                                   "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\0")
        self.process.stdin.flush()
        answer = self.wait(lambda m: m.get("id") == self.next_id)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return dict(answer.get("result", {}))

    def wait(self, wanted: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first message `wanted(message)` accepts (events are kept as they pass)."""
        for event in self.events:
            if wanted(event):
                return event
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "method" in message:
                    self.events.append(message)
                if wanted(message):
                    return dict(message)
            left = deadline - time.monotonic()
            assert self.process.stdout is not None
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer in {timeout:g} s; its log: "
                                   f"{self.log.read_text(errors='replace')[-2000:]}")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium went away: "
                                   f"{self.log.read_text(errors='replace')[-2000:]}")
            self.buffer += chunk

    def open(self, url: str, width: int = 1280, height: int = 900) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait(lambda m: m.get("method") == "Page.loadEventFired"
                  and m.get("sessionId") == session)
        return Page(self, session)


class Page:
    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.send("Runtime.evaluate", {
            "expression": expression, "returnByValue": True}, session=self.session)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, path: Path, max_height: int = 4000) -> Path:
        """The whole page, down to `max_height` pixels, as a PNG."""
        size = self.browser.send("Page.getLayoutMetrics", session=self.session)
        content = size["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": content["width"],
                "height": min(content["height"], max_height), "scale": 1}
        data = self.browser.send("Page.captureScreenshot", {
            "format": "png", "clip": clip, "captureBeyondViewport": True},
            session=self.session)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries (a refused load is one)
        and any request for something that is not the page itself or inline data."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                               "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file:", "data:", "about:")):
                    found.append(f"request: {url}")
        return found
