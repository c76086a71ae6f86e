#!/usr/bin/env python3
"""Drive an opreport --flame page in headless Chromium over the DevTools
protocol (--remote-debugging-pipe: JSON messages ending in NUL on fds 3
and 4, no network, no websocket module) and check what a user sees.

  flame_cdp.py PAGE.html SCREENSHOT.png [--click NAME] [--search RE]
               [--matches N] [--share TEXT] [--red NAME] [--blue NAME]

Prints one line per check, "ok WHAT" or "not ok WHAT: DETAIL" (the shell
test turns them into its TAP lines); exit 0 when all pass, 1 when one
fails, 77 when Chromium cannot start.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

results = []


def tap(ok, what, detail=""):
    results.append(ok)
    print("%s %s%s" % ("ok" if ok else "not ok", what,
                       "" if ok or not detail else ": " + detail))
    sys.stdout.flush()


class Browser:
    def __init__(self, url, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def fds():
            # our pipe ends may be 3 or 4 themselves, and close on exec:
            # copy them away first, then down to 3 and 4 (inherited)
            a, b = os.dup(cmd_r), os.dup(resp_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise OSError("no chromium in PATH")
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "--window-size=1200,800", url],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        return self.wait(self.next_id)

    def wait(self, want, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                msg = json.loads(raw)
                if msg.get("id") == want:
                    if "error" in msg:
                        raise RuntimeError("%s" % msg["error"])
                    return msg.get("result", {})
            chunk = os.read(self.resp_r, 65536)
            if not chunk:
                raise OSError("chromium closed the pipe")
            self.buf += chunk
        raise TimeoutError("no answer from chromium")

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left",
                       "clickCount": 1 if kind != "mouseMoved" else 0})

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def attach(b, url):
    for _ in range(100):
        targets = b.send("Target.getTargets", session=False)["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        if pages:
            r = b.send("Target.attachToTarget",
                       {"targetId": pages[0]["targetId"], "flatten": True},
                       session=False)
            b.session = r["sessionId"]
            return
        time.sleep(0.1)
    raise TimeoutError("no page target")


RECT = """(function (name, above) {
  var els = Array.prototype.filter.call(document.querySelectorAll('.frame'),
    function (e) { return e.dataset.name === name &&
                          e.classList.contains('above') === above; });
  if (!els.length) return null;
  var r = els[0].getBoundingClientRect(), g = document.getElementById('graph');
  return {x: r.left, y: r.top, w: r.width, h: r.height,
          gw: g.getBoundingClientRect().width, bg: els[0].style.background};
})(%s, %s)"""


def rect(b, name, above=False):
    return b.js(RECT % (json.dumps(name), "true" if above else "false"))


def colour(text):
    import re
    m = re.match(r"rgb\((\d+), ?(\d+), ?(\d+)\)", text or "")
    return tuple(int(v) for v in m.groups()) if m else None


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    page, shot, opts = os.path.abspath(args[0]), args[1], {}
    rest = args[2:]
    while rest:
        opts[rest[0].lstrip("-")] = rest[1]
        rest = rest[2:]
    profile = tempfile.mkdtemp(prefix="flame-chromium.")
    url = "file://" + page
    try:
        b = Browser(url, profile)
        attach(b, url)
    except Exception as e:
        print("# chromium cannot start: %s" % e)
        shutil.rmtree(profile, ignore_errors=True)
        return 77
    try:
        b.send("Runtime.enable")
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1200, "height": 800, "deviceScaleFactor": 1,
                "mobile": False})
        for _ in range(100):
            if b.js("document.readyState") == "complete" and \
               b.js("!!window.flame") and \
               b.js("document.querySelectorAll('.frame').length") > 0:
                break
            time.sleep(0.1)
        b.js("flame.zoom(flame.zoomed())")      # drawn at the set width
        n = b.js("document.querySelectorAll('.frame').length")
        tap(n > 0, "the flame graph renders (%d frames)" % n)
        tap(b.js("document.querySelectorAll('script[src],link[href]').length") == 0,
            "the page loads nothing from outside")
        # a line taller than its frame is cut at the bottom: "leaf_a"
        # read "leaf a" (the underscore below the frame's edge)
        tall = b.js("Array.from(document.querySelectorAll('.frame'))"
                    ".filter(f => f.scrollHeight > f.clientHeight).length")
        tap(tall == 0, "every frame's text fits its height (%s taller)" % tall)
        if "click" in opts:
            name = opts["click"]
            r = rect(b, name)
            tap(r is not None and r["w"] < r["gw"] - 2,
                "frame '%s' is narrower than the graph before the click" % name,
                "%s" % r)
            if r:
                b.click(r["x"] + min(r["w"] / 2, 20), r["y"] + r["h"] / 2)
                time.sleep(0.2)
                z = rect(b, name)
                tap(z is not None and abs(z["w"] - z["gw"]) < 2,
                    "a mouse click on '%s' zooms: it spans the width" % name,
                    "%s" % z)
                tip = b.js("document.getElementById('tip').textContent")
                tap(name in (tip or "") and "samples" in tip,
                    "the tooltip names the frame and its samples", repr(tip))
                b.js("document.getElementById('reset').click()")
                z = rect(b, name)
                tap(z is not None and z["w"] < z["gw"] - 2,
                    "reset zooms back out", "%s" % z)
        if "search" in opts:
            b.js("document.getElementById('search').value = %s;"
                 "document.getElementById('go').click()" %
                 json.dumps(opts["search"]))
            m = b.js("document.querySelectorAll('.frame.match').length")
            tap(m == int(opts.get("matches", m)),
                "search '%s' highlights %s frames" % (opts["search"],
                                                       opts.get("matches", m)),
                "got %d" % m)
            text = b.js("document.getElementById('matched').textContent")
            if "share" in opts:
                tap(opts["share"] in text, "the matched share is shown",
                    repr(text))
        for key, want in (("red", "grew"), ("blue", "shrank")):
            if key in opts:
                r = rect(b, opts[key])
                c = colour(r and r["bg"])
                ok = c is not None and (c[0] > c[2] + 40 if key == "red"
                                        else c[2] > c[0] + 40)
                tap(ok, "'%s' %s: coloured %s" % (opts[key], want, key),
                    "%s" % (r and r["bg"]))
        png = b.send("Page.captureScreenshot", {"format": "png"})
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png["data"]))
        tap(os.path.getsize(shot) > 1000, "screenshot kept in %s" % shot)
    except Exception as e:
        tap(False, "driving chromium", "%s" % e)
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
