"""Does the map's page stay responsive? The map's interactive page in headless Chromium: load
time, a full draw, a frame while the view moves, a hover; and the workbench (a lasso selection
listed, a filter, a sample's neighbours) at 10^4, 10^5 and 10^6 points; and the picture of the
page in the docs.

Each page is written by :func:`graphdr.maps.views.page.write_map_page` (:func:`_data`: 30
classes of Gaussian blobs on a ring) as the *viewer*, *+ neighbours* and the *workbench*
(:func:`_pages`). Times come from the page itself (``performance.now``; :func:`measure`).
Without a GPU Chromium draws WebGL with SwiftShader on the CPU, a user's slowest case.

    .venv/bin/python benchmarks/map_page.py          # benchmarks/results/map_page.md
    .venv/bin/python benchmarks/map_page.py --baseline /path/to/older/checkout
    .venv/bin/python benchmarks/map_page.py --shot   # also docs/map_page.png, map_workbench.png
    python -m benchmarks run map_page -- --quick     # a smoke run: 2,000 points, nothing written
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
import numpy as np

from graphdr.maps.views.page import write_map_page

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

_FILTER = """([a, b]) => { const t = performance.now(); const kept = graphdrMap.filter('score', a, b);
  return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(
    () => r([performance.now() - t, kept])))); }"""


def _data(n):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 30, n)
    angle = 2 * np.pi * y / 30
    X = rng.normal(size=(n, 8))
    X[:, :2] += 12 * np.column_stack([np.cos(angle), np.sin(angle)])
    Y = X[:, :2] + 0.3 * rng.normal(size=(n, 2))
    return X, Y, np.array([f"class {c:02d}" for c in range(30)])[y]


def _pages(n, folder, baseline=None):
    """``{form: (path, write seconds)}`` of the viewer, the workbench and the baseline's viewer."""
    from sklearn.neighbors import NearestNeighbors

    X, Y, labels = _data(n)
    ids = [f"s{i}" for i in range(n)]
    out = {}
    t = time.perf_counter()
    write_map_page(Path(folder) / "viewer.html", Y, labels, ids=ids, title=f"{n} points")
    out["viewer"] = (Path(folder) / "viewer.html", time.perf_counter() - t)
    dist, ind = NearestNeighbors(n_neighbors=6, n_jobs=-1).fit(X).kneighbors(X)
    near = (ind[:, 1:], dist[:, 1:], "8 features; Euclidean")
    t = time.perf_counter()
    write_map_page(Path(folder) / "neighbours.html", Y, labels, ids=ids, title=f"{n} points",
                   neighbours=near)
    out["+ neighbours"] = (Path(folder) / "neighbours.html", time.perf_counter() - t)
    rng = np.random.default_rng(1)
    suspect = rng.random(n) < 0.02
    t = time.perf_counter()
    write_map_page(Path(folder) / "workbench.html", Y, labels, ids=ids, title=f"{n} points",
                   hover={"score": [f"{v:.3f}" for v in rng.random(n)]}, suspect=suspect,
                   suspect_places=Y + rng.normal(size=(n, 2)),
                   neighbours=near)
    out["workbench"] = (Path(folder) / "workbench.html", time.perf_counter() - t)
    if baseline:  # the same viewer page by an earlier graphdr, in a process of its own
        np.savez(Path(folder) / "data.npz", Y=Y, labels=labels)
        code = ("import sys, time, numpy as np; from graphdr.maps.views.page import write_map_page; "
                "d = np.load(sys.argv[1]); t = time.perf_counter(); "
                "write_map_page(sys.argv[2], d['Y'], d['labels'], "
                "ids=[f's{i}' for i in range(len(d['Y']))], title=sys.argv[3]); "
                "print(time.perf_counter() - t)")
        path = Path(folder) / "baseline.html"
        done = subprocess.run([sys.executable, "-c", code, str(Path(folder) / "data.npz"),
                               str(path), f"{n} points"], capture_output=True, text=True,
                              check=True, cwd=folder,  # (not this checkout's graphdr)
                              env={**os.environ, "PYTHONPATH": str(Path(baseline).resolve())})
        out["before"] = (path, float(done.stdout.split()[-1]))
    return out, Y


def _lasso(page, Y):
    """A lasso round classes 00-02 (a wedge of the ring) drawn with the mouse: ``(selected,
    seconds from the release to the rows listed, and to every point redrawn)``."""
    angles = np.linspace(-0.12, 2 * np.pi * 2 / 30 + 0.12, 12)
    wedge = [(r * np.cos(a), r * np.sin(a)) for r in (7.5,) for a in angles] + \
        [(r * np.cos(a), r * np.sin(a)) for r in (16.5,) for a in angles[::-1]]
    corners = [page.evaluate("([x, y]) => graphdrMap.toScreen(x, y)", [float(a), float(b)])
               for a, b in wedge]
    page.keyboard.press("l")
    page.mouse.move(*corners[0])
    page.mouse.down()
    for c in corners[1:] + corners[:1]:
        page.mouse.move(*c, steps=3)
    draws = page.evaluate("graphdrMap.fullDraws()")
    t = time.perf_counter()
    page.mouse.up()
    page.wait_for_function("document.querySelectorAll('#rows-body tr').length > 0",
                           timeout=60_000)
    listed = time.perf_counter() - t
    page.wait_for_function(f"graphdrMap.fullDraws() > {draws}", timeout=60_000)
    return page.evaluate("graphdrMap.selectedCount()"), listed, time.perf_counter() - t


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    t = time.perf_counter()
    page.goto(path.as_uri())
    page.wait_for_function("window.graphdrMap && window.graphdrMap.ready", timeout=300_000)
    return page, time.perf_counter() - t


def measure(executable, sizes=SIZES, baseline=None):
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        version = browser.version
        for n in sizes:
            with tempfile.TemporaryDirectory() as folder:
                pages, Y = _pages(n, folder, baseline)
                for form in ("before", "viewer", "+ neighbours", "workbench"):
                    if form not in pages:
                        continue
                    path, write_s = pages[form]
                    page, load = _open(browser, path)
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
                    row = dict(n=n, form=form, mb=path.stat().st_size / 1e6, write=write_s,
                               load=load, full=full, median=float(np.median(frames)),
                               worst=float(np.max(frames)), hover=time.perf_counter() - t)
                    if form == "workbench":
                        t = time.perf_counter()
                        page.mouse.click(x, y)
                        page.wait_for_function(
                            "document.querySelectorAll('#neighbours tr').length > 1")
                        row["neighbours"] = time.perf_counter() - t
                        page.keyboard.press("Escape")
                        row["selected"], row["listed"], row["redrawn"] = _lasso(page, Y)
                        page.keyboard.press("Escape")
                        row["filter"], row["kept"] = page.evaluate(_FILTER, [0.25, 0.5])
                        row["filter"] /= 1000
                    rows.append(row)
                    page.close()
        browser.close()
    return rows, version, renderer


def shot(executable, out, workbench):
    """docs/map_page.png: the page of `graphdr map digits`, one sample hovered; and
    ``workbench``: the same digits with 3 % of the labels flipped, checked (``labels='flag'``),
    the density contours on, a lasso round the suspects of one class, one clicked."""
    from playwright.sync_api import sync_playwright
    from sklearn.datasets import load_digits

    from graphdr import map2d

    X, y = load_digits(return_X_y=True)
    words = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                      "nine"])
    rng = np.random.default_rng(0)
    flipped = y.copy()
    some = rng.choice(len(y), 54, replace=False)
    flipped[some] = (y[some] + rng.integers(1, 10, len(some))) % 10
    with tempfile.TemporaryDirectory() as folder:
        common_args = dict(ids=[f"digit-{i}" for i in range(len(y))], label_name="digit",
                           png=False, hover={"ink": [f"{v:.0f}" for v in X.sum(axis=1)]})
        map2d(X, words[y], out=Path(folder) / "digits", title="DEEMap of the 1797 digits",
              **common_args)
        model = map2d(X, words[flipped], out=Path(folder) / "flipped", labels="flag",
                      title="The digits, 54 labels flipped", **common_args)
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
            page = browser.new_page(viewport={"width": 1150, "height": 900})
            page.goto((Path(folder) / "flipped.html").as_uri())
            page.wait_for_function("window.graphdrMap && window.graphdrMap.ready")
            page.keyboard.press("d")
            # a box round the region of "three" (its middle 90 % along each axis)
            three = model.embedding_[flipped == 3]
            lo, hi = np.quantile(three, [0.05, 0.95], axis=0)
            corners = [page.evaluate("([a, b]) => graphdrMap.toScreen(a, b)",
                                     [float(a), float(b)]) for a, b in (lo, hi)]
            page.keyboard.press("b")
            page.mouse.move(*corners[0])
            page.mouse.down()
            page.mouse.move(*corners[1], steps=5)
            page.mouse.up()
            page.click("#rows-head th:has-text('label quality')")  # the least likely first
            page.locator("#rows-body tr").first.click()
            page.wait_for_timeout(600)
            page.screenshot(path=str(workbench))
            browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executable", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--shot", action="store_true",
                        help="also write docs/map_page.png and docs/map_workbench.png")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="also measure the viewer page of the graphdr checked out in DIR")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: one page of 2,000 points, nothing written")
    args = parser.parse_args()
    rows, version, renderer = measure(args.executable, (2000,) if args.quick else SIZES,
                                      args.baseline)
    before = (f" `before`: the viewer page of graphdr at "
              f"{common.commit(args.baseline) or args.baseline}." if args.baseline else "")
    lines = [
        "# The map's page in a browser",
        "",
        f"Command: `.venv/bin/python benchmarks/map_page.py"
        f"{' --baseline DIR' if args.baseline else ''}` ({common.threads_label()}; "
        f"headless Chromium {version} through playwright, WebGL renderer: {renderer}; "
        f"viewport 1280 x 900).{before}",
        common.machine(),
        "",
        *common.table(("points", "page", "MB", "write s", "load s (to first picture)",
                       "full draw ms", "frame while moving, median ms", "worst ms", "hover s"),
                      [(f"{r['n']:,}", r["form"], f"{r['mb']:.1f}", f"{r['write']:.2f}",
                        f"{r['load']:.2f}", f"{r['full']:.0f}", f"{r['median']:.0f}",
                        f"{r['worst']:.0f}", f"{r['hover']:.2f}") for r in rows], "rlrrrrrrr"),
        "", "The workbench (the same pages):", "",
        *common.table(("points", "lasso selects", "listed in s", "every point redrawn in s",
                       "filter applied in s (kept)", "neighbours shown in s"),
                      [(f"{r['n']:,}", f"{r['selected']:,}", f"{r['listed']:.2f}",
                        f"{r['redrawn']:.2f}", f"{r['filter']:.2f} ({r['kept']:,})",
                        f"{r['neighbours']:.2f}") for r in rows if r["form"] == "workbench"],
                      "rrrrrr")]
    big = [r for r in rows if r["n"] == rows[-1]["n"]]
    size = {r["form"]: r["mb"] for r in big}
    work = next(r for r in big if r["form"] == "workbench")
    ratio = (f"; with the neighbours stored (ids, no other column) the page is "
             f"{size['+ neighbours'] / size['before']:.2f} x the size of the page before"
             if "before" in size else "")
    lines += [
        "",
        f"Headline: {work['n']:,} points: frames of {work['median']:.0f} ms (median) while "
        f"the view moves, a hover in {work['hover']:.2f} s, a lasso of "
        f"{work['selected']:,} samples listed in {work['listed']:.2f} s (every point redrawn "
        f"in {work['redrawn']:.2f} s), a filter in "
        f"{work['filter']:.2f} s, a sample's neighbours in {work['neighbours']:.2f} s, "
        f"{size['+ neighbours']:.1f} MB with the neighbours stored{ratio}; on {renderer}.",
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
        shot(args.executable, common.REPO / "docs" / "map_page.png",
             common.REPO / "docs" / "map_workbench.png")
        print("wrote docs/map_page.png and docs/map_workbench.png")


if __name__ == "__main__":
    main()
