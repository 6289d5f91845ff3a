"""Does the map's page stay responsive? The map's interactive page in headless Chromium: load time,
a full draw, a frame while the view moves and a hover, at 10^4, 10^5 and 10^6 points; and the
picture of the page in the docs.

Each page is written by :func:`graphdr.maps.page.write_map_page` (30 classes of Gaussian blobs
on a ring) and opened by playwright with Debian's chromium (``--executable`` to choose
another). Times come from the page itself (``performance.now``): the full draw is timed to the
first read-back of the drawn pixels; the moving frames are 30 frames of wheel zoom (median and
worst); a hover is one mouse move to a point until a tooltip shows. The WebGL renderer the
browser reports is written beside the figures: without a GPU, Chromium draws with SwiftShader
on the CPU, the slowest case a user meets.

    .venv/bin/python benchmarks/map_page.py          # benchmarks/results/map_page.md
    .venv/bin/python benchmarks/map_page.py --shot   # also docs/map_page.png (digits, hovered)
    python -m benchmarks run map_page -- --quick     # a smoke run: 2,000 points, nothing written
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from graphdr.maps.page import write_map_page  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)

_FRAMES = """() => new Promise(res => { const t = []; let k = 0; let last = performance.now();
  const o = document.getElementById('overlay'), r = o.getBoundingClientRect();
  function f(now) { t.push(now - last); last = now;
    if (++k < 31) { o.dispatchEvent(new WheelEvent('wheel', {deltaY: k % 2 ? -40 : 40,
      clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, cancelable: true}));
      requestAnimationFrame(f); } else res(t.slice(1)); }
  requestAnimationFrame(f); })"""

_RENDERER = """() => { const gl = document.createElement('canvas').getContext('webgl');
  if (!gl) return 'no WebGL';
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER); }"""


def _page(n, folder):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 30, n)
    angle = 2 * np.pi * y / 30
    Y = rng.normal(size=(n, 2)) + 12 * np.column_stack([np.cos(angle), np.sin(angle)])
    path = Path(folder) / f"page_{n}.html"
    t = time.perf_counter()
    write_map_page(path, Y, np.array([f"class {c:02d}" for c in range(30)])[y],
                   ids=[f"s{i}" for i in range(n)], title=f"{n} points")
    return path, time.perf_counter() - t


def measure(executable, sizes=SIZES):
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        version = browser.version
        for n in sizes:
            path, write_s = _page(n, folder)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            t = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_function("window.graphdrMap && window.graphdrMap.ready",
                                   timeout=300_000)
            load = time.perf_counter() - t
            renderer = page.evaluate(_RENDERER)
            full = page.evaluate("graphdrMap.fullDrawMs()")
            frames = page.evaluate(_FRAMES)
            page.wait_for_timeout(400 + 2 * full)  # the full draw after the view rests
            i = page.evaluate("graphdrMap.indexOf('s7')")
            x, y = page.evaluate(f"graphdrMap.screenPosition({i})")
            t = time.perf_counter()
            page.mouse.move(x, y)
            # the nearest sample to the pointer's whole pixel: s7 or a neighbour of it
            page.wait_for_function("graphdrMap.tipText().indexOf('id') >= 0")
            hover = time.perf_counter() - t
            rows.append(dict(n=n, mb=path.stat().st_size / 1e6, write=write_s, load=load,
                             full=full, median=float(np.median(frames)),
                             worst=float(np.max(frames)), hover=hover))
            page.close()
        browser.close()
    return rows, version, renderer


def shot(executable, out):
    """docs/map_page.png: the page of `graphdr map digits`, one sample hovered."""
    from playwright.sync_api import sync_playwright
    from sklearn.datasets import load_digits

    from graphdr import map2d

    X, y = load_digits(return_X_y=True)
    names = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                      "nine"])[y]
    with tempfile.TemporaryDirectory() as folder:
        map2d(X, names, out=Path(folder) / "digits", title="DEEMap of the 1797 digits",
              ids=[f"digit-{i}" for i in range(len(y))], label_name="digit", png=False,
              hover={"ink": [f"{v:.0f}" for v in X.sum(axis=1)]})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1150, "height": 760})
            page.goto((Path(folder) / "digits.html").as_uri())
            page.wait_for_function("window.graphdrMap && window.graphdrMap.ready")
            i = page.evaluate("graphdrMap.indexOf('digit-5')")
            x, yy = page.evaluate(f"graphdrMap.screenPosition({i})")
            page.mouse.move(x, yy)
            page.wait_for_timeout(300)
            page.screenshot(path=str(out))
            browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executable", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--shot", action="store_true", help="also write docs/map_page.png")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: one page of 2,000 points, nothing written")
    args = parser.parse_args()
    rows, version, renderer = measure(args.executable, (2000,) if args.quick else SIZES)
    lines = [
        "# The map's page in a browser",
        "",
        f"Command: `.venv/bin/python benchmarks/map_page.py` ({common.threads_label()}; "
        f"headless Chromium {version} through playwright, WebGL renderer: {renderer}; "
        f"viewport 1280 x 900).",
        common.machine(),
        "",
        "| points | page MB | write s | load s (to first picture) | full draw ms | frame while "
        "moving, median ms | worst ms | hover s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['n']:,} | {r['mb']:.1f} | {r['write']:.2f} | {r['load']:.2f} | "
                     f"{r['full']:.0f} | {r['median']:.0f} | {r['worst']:.0f} | "
                     f"{r['hover']:.2f} |")
    big = rows[-1]
    lines += [
        "",
        f"Headline: {big['n']:,} points: frames of {big['median']:.0f} ms (median) while the "
        f"view moves, a hover in {big['hover']:.2f} s, every point drawn in "
        f"{big['full']:.0f} ms once it rests, on {renderer}.",
        "",
        "While the view moves the page draws as many points as it drew in about 30 ms "
        "(at least 20,000, a uniform subsample: the points are stored in a fixed shuffled "
        "order), then every point once the view has rested 200 ms. This machine has no GPU: "
        "Chromium drew WebGL with SwiftShader on the CPU, the slowest renderer a user meets "
        "(not measured here: a GPU, where a frame draws all points as soon as a full draw "
        "takes under 30 ms).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.quick:
        return
    (common.RESULTS / "map_page.md").write_text(text)
    if args.shot:
        shot(args.executable, common.REPO / "docs" / "map_page.png")
        print("wrote docs/map_page.png")


if __name__ == "__main__":
    main()
