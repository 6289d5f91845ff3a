"""How heavy and how smooth are the peers' map pages? datamapplot's and embedding-atlas's pages
in headless Chromium on the map page's data (``map_page.py``: 30 classes of Gaussian blobs on a
ring, ids as hover text): page size, load time and frames while the view moves, at 10^5 and 10^6
points; playwright with Debian's chromium, 1280 x 900, a fresh browser page each.

* datamapplot: ``create_interactive_plot(Y, labels, hover_text=ids, offline_mode=True)`` saved to
  an HTML file, opened as ``file://``; size: the file. Its default page loads its scripts (deck.gl,
  Arrow) from a content-delivery network (opened at the first size to show whether it draws);
  offline mode inlines them from datamapplot's cache (``dmp_offline_cache`` fills it, with
  network; ``--dmp-cache DIR`` names one), else from their npm packages (``npm pack``).
* embedding-atlas: what its command serves, ``embedding-atlas data.parquet --x x --y y --duckdb
  wasm``, on a free localhost port; size: the bytes the browser received. Its default ``--duckdb
  server`` fails its first query with duckdb 2 (``no attribute 'arrow'``; ``--atlas-duckdb
  server`` tries it); its export (``--export-application``), the same application, needs a server.

Load time: from navigation start (the page's ``performance.now``) until every point is drawn: a
script run before the page's own counts the points of its WebGL and WebGPU draw calls (instanced
draws their instances, point-list draws their vertices), and the page is ready two animation
frames after the first task whose draws cover every point. Frames: 30 frames of wheel zoom as in
``map_page.py``, dispatched on the element under the centre of the largest canvas (median and
worst ms), with the page's redraws (tasks drawing points) in them. Requests to hosts other than
localhost are counted.

The two tools are not among graphdr's extras (they pin pandas below 3 and bring torch):
``.venv/bin/pip install datamapplot embedding-atlas`` first; a tool that is missing is said so
in its row.

    .venv/bin/python benchmarks/map_page_peers.py                  # results/map_page_peers.md
    .venv/bin/python benchmarks/map_page_peers.py --sizes 20000    # other sizes
    python -m benchmarks run map_page_peers -- --quick             # 2,000 points, nothing written
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from unittest import mock
from urllib.parse import urlparse

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from map_page import _RENDERER  # noqa: E402

SIZES = (100_000, 1_000_000)
#: seconds a page is given to draw every point (the default datamapplot page: DEFAULT_PAGE_S)
TIMEOUT_S, DEFAULT_PAGE_S = 900, 10
LOCAL = ("localhost", "127.0.0.1", "::1")
FAILED = (ImportError, OSError, RuntimeError, subprocess.SubprocessError)

_HOOK = """(() => { const need = NEED, P = window.__peers = {ready: 0, most: 0, redraws: 0};
  let sum = 0, open = false;
  const seen = k => { if (!(k > 0)) return;
    if (!open) { open = true; P.redraws++; queueMicrotask(() => { open = false; sum = 0; }); }
    sum += k; P.most = Math.max(P.most, sum);
    if (sum >= need && !P.seen) { P.seen = true;  // two frames on: the points are shown
      requestAnimationFrame(() => requestAnimationFrame(() => { P.ready = performance.now(); }));
    } };
  const wrap = (C, name, points) => { const f = C && C.prototype[name]; if (!f) return;
    C.prototype[name] = function (...a) { seen(points(a)); return f.apply(this, a); }; };
  for (const C of [self.WebGLRenderingContext, self.WebGL2RenderingContext]) {
    wrap(C, 'drawArrays', a => a[0] === 0 ? a[2] : 0);  // mode 0: POINTS
    wrap(C, 'drawElements', a => a[0] === 0 ? a[1] : 0);
    wrap(C, 'drawArraysInstanced', a => a[3]); wrap(C, 'drawElementsInstanced', a => a[4]); }
  for (const name of ['draw', 'drawIndexed'])
    wrap(self.GPURenderPassEncoder, name, a => Math.max(a[0], a[1] || 1)); })();"""

_FRAMES = """() => new Promise(res => { const t = []; let k = 0; let last = performance.now();
  const r = [...document.querySelectorAll('canvas')].map(c => c.getBoundingClientRect())
    .reduce((a, b) => a.width * a.height >= b.width * b.height ? a : b);
  const x = (Math.max(r.left, 0) + Math.min(r.right, innerWidth)) / 2;
  const y = (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2;
  const o = document.elementFromPoint(x, y);
  function f(now) { t.push(now - last); last = now;
    if (++k < 31) { o.dispatchEvent(new WheelEvent('wheel', {deltaY: k % 2 ? -40 : 40,
      clientX: x, clientY: y, bubbles: true, cancelable: true}));
      requestAnimationFrame(f); } else res(t.slice(1)); }
  requestAnimationFrame(f); })"""


def _data(n):
    """The data of ``map_page._page``: coordinates, class names, ids."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 30, n)
    angle = 2 * np.pi * y / 30
    Y = rng.normal(size=(n, 2)) + 12 * np.column_stack([np.cos(angle), np.sin(angle)])
    return Y, np.array([f"class {c:02d}" for c in range(30)])[y], [f"s{i}" for i in range(n)]


def _npm_cache(folder, urls):
    """datamapplot's cache of the scripts ``urls`` (``.../PACKAGE@VERSION/FILE``), base64 texts
    keyed by address, each taken from its npm package."""
    js = {}
    for url in urls:
        address = urlparse(url)
        spec, member = address.path.lstrip("/").split("/", 1)
        out = subprocess.run(["npm", "pack", spec, "--json", "--pack-destination", str(folder)],
                             capture_output=True, text=True, check=True, timeout=600)
        packed = json.loads(out.stdout)[0]
        with tarfile.open(Path(folder) / packed["filename"]) as archive:
            text = archive.extractfile(f"package/{member}").read()
        name = address.netloc.replace(".", "_") + "_" + member.split("/")[-1].replace(".", "_")
        js[url] = {"encoded_content": base64.b64encode(text).decode(), "name": name,
                   "source": f"npm package {packed['name']} {packed['version']}"}
    return js


@contextlib.contextmanager
def _datamapplot(folder, cache=None):
    """``(page, scripts)``: ``page(n, offline) -> (url, write s, bytes)``, ``scripts`` where the
    inlined scripts come from; datamapplot's configuration and cache in
    ``folder`` (a copy of ``cache``, or of datamapplot's own, else :func:`_npm_cache`'s)."""
    import platformdirs

    mine = Path(folder) / "datamapplot"
    mine.mkdir()
    cache = Path(cache or platformdirs.user_data_dir("datamapplot"))
    for kind in ("js", "css", "fonts"):
        found = cache / f"datamapplot_{kind}_encoded.json"
        (mine / found.name).write_text(found.read_text() if found.is_file() else "{}")
    with mock.patch.dict(os.environ, XDG_DATA_HOME=str(folder), XDG_CONFIG_HOME=str(folder)):
        import datamapplot
        from datamapplot.interactive_helpers import get_js_dependency_urls

        urls = get_js_dependency_urls(False, False, False)
        js = mine / "datamapplot_js_encoded.json"
        if not set(urls) <= set(json.loads(js.read_text())):
            js.write_text(json.dumps(_npm_cache(mine, urls)))
        scripts = ", ".join(sorted({v.get("source", f"datamapplot's cache {cache}")
                                    for v in json.loads(js.read_text()).values()}))

        def page(n, offline):
            Y, labels, ids = _data(n)
            path = Path(folder) / f"datamapplot_{n}_{'offline' if offline else 'default'}.html"
            t = time.perf_counter()
            datamapplot.create_interactive_plot(Y, labels, hover_text=ids,
                                                offline_mode=offline).save(path)
            return path.as_uri(), time.perf_counter() - t, path.stat().st_size

        yield page, scripts


@contextlib.contextmanager
def _atlas(n, folder, duckdb):
    """``(url, start s)``: ``embedding-atlas`` serving the data (a parquet file) on a free port."""
    import pandas as pd

    Y, labels, ids = _data(n)
    data, log = Path(folder) / f"atlas_{n}.parquet", Path(folder) / f"atlas_{n}.log"
    pd.DataFrame({"x": Y[:, 0], "y": Y[:, 1], "label": labels, "id": ids}).to_parquet(data)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = shutil.which("embedding-atlas", path=str(Path(sys.executable).parent))
    url, direct = f"http://localhost:{port}/", urllib.request.build_opener(
        urllib.request.ProxyHandler({}))
    t = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen([exe or "embedding-atlas", str(data), "--x", "x", "--y", "y",
                                 "--duckdb", duckdb, "--port", str(port), "--no-auto-port"],
                                cwd=folder, stdout=out, stderr=subprocess.STDOUT,
                                env=dict(os.environ, XDG_CACHE_HOME=str(Path(folder) / "cache")))
    try:
        while True:
            with contextlib.suppress(OSError):
                if direct.open(url + "data/metadata.json", timeout=5).read():
                    break
            if proc.poll() is not None or time.perf_counter() - t > TIMEOUT_S:
                raise RuntimeError("did not start: " + " ".join(log.read_text().split()[-30:]))
            time.sleep(0.2)
        yield url, time.perf_counter() - t
    finally:
        proc.terminate()
        proc.wait(30)


def _measure(browser, url, n, timeout_s=TIMEOUT_S):
    """Load time, frames while moving, bytes received and requests to other hosts of a page."""
    from playwright.sync_api import Error

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(_HOOK.replace("NEED", str(n)))
    outside, done = [], []
    page.on("request", lambda r: outside.append(r.url) if urlparse(r.url).scheme in (
        "http", "https", "ws", "wss") and urlparse(r.url).hostname not in LOCAL else None)
    page.on("requestfinished", lambda r: done.append(r))
    row = {}
    try:
        page.goto(url, timeout=timeout_s * 1000)
        page.wait_for_function("window.__peers.ready > 0", timeout=timeout_s * 1000)
    except Error:
        most = page.evaluate("window.__peers ? __peers.most : 0")
        row["error"] = f"no picture of all points in {timeout_s} s (most drawn at once: {most:,})"
    else:
        row.update(load=page.evaluate("__peers.ready") / 1000, renderer=page.evaluate(_RENDERER))
        page.wait_for_timeout(1000)
        before = page.evaluate("__peers.redraws")
        frames = page.evaluate(_FRAMES)
        row.update(median=float(np.median(frames)), worst=float(np.max(frames)),
                   redraws=page.evaluate("__peers.redraws") - before)
    sizes = [(r.url, r.sizes()["responseBodySize"]) for r in done if r.url.startswith("http")]
    row.update(received=sum(s for _, s in sizes), wasm=sum(s for u, s in sizes if ".wasm" in u),
               outside=len(outside), hosts=sorted({urlparse(u).hostname for u in outside}))
    page.close()
    return row


def measure(executable, sizes=SIZES, dmp_cache=None, duckdb="wasm"):
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        version = browser.version
        try:
            with _datamapplot(Path(folder), dmp_cache) as (page, scripts):
                for n, offline in [(sizes[0], False)] + [(n, True) for n in sizes]:
                    url, write, size = page(n, offline)
                    row = _measure(browser, url, n, TIMEOUT_S if offline else DEFAULT_PAGE_S)
                    rows.append(dict(row, n=n, mb=size / 1e6, prepare=write, scripts=scripts,
                                     tool="datamapplot, "
                                     + ("offline_mode" if offline else "default page")))
        except FAILED as exc:
            rows.append(dict(tool="datamapplot", n=sizes[0], error=f"not measured: {exc}"))
        for n in sizes:
            try:
                with _atlas(n, folder, duckdb) as (url, start):
                    row = _measure(browser, url, n)
                rows.append(dict(row, tool=f"embedding-atlas, --duckdb {duckdb}", n=n,
                                 mb=row["received"] / 1e6, prepare=start))
            except FAILED as exc:
                rows.append(dict(tool="embedding-atlas", n=n, error=f"not measured: {exc}"))
        browser.close()
    return rows, version


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executable", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--sizes", type=lambda s: tuple(int(v) for v in s.split(",")),
                        default=SIZES, help="numbers of points, comma-separated")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: pages of 2,000 points, nothing written")
    parser.add_argument("--dmp-cache", help="a folder holding datamapplot's offline cache")
    parser.add_argument("--atlas-duckdb", default="wasm", help="embedding-atlas's --duckdb")
    args = parser.parse_args()
    sizes = (2000,) if args.quick else args.sizes
    rows, version = measure(args.executable, sizes, args.dmp_cache, args.atlas_duckdb)
    renderer = next((r["renderer"] for r in rows if "renderer" in r), "unknown")
    scripts = next((r["scripts"] for r in rows if "scripts" in r), "none")
    versions = (f"datamapplot {_version('datamapplot')} (offline scripts: {scripts}), "
                f"embedding-atlas {_version('embedding-atlas')}, duckdb {_version('duckdb')}")
    options = (f" --sizes {','.join(map(str, sizes))}" if sizes != SIZES else "") + (
        f" --atlas-duckdb {args.atlas_duckdb}" if args.atlas_duckdb != "wasm" else "")
    lines = ["# The peers' map pages in a browser", "",
             f"Command: `.venv/bin/python benchmarks/map_page_peers.py{options}` "
             f"({common.threads_label()}; headless Chromium {version} through playwright, WebGL "
             f"renderer: {renderer}; viewport 1280 x 900; {versions}).", common.machine(),
             "",
             "| page | points | page MB | write or start s | load s (to every point drawn) | "
             "frame while moving, median ms | worst ms | redraws in 30 frames | requests to "
             "other hosts |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for r in rows:
        cells = [r["tool"], f"{r['n']:,}", f"{r.get('mb', np.nan):.1f}",
                 f"{r.get('prepare', np.nan):.2f}", f"{r['load']:.2f}" if "load" in r else "never",
                 f"{r.get('median', np.nan):.0f}", f"{r.get('worst', np.nan):.0f}",
                 str(r.get("redraws", "")), str(r.get("outside", ""))]
        lines.append("| " + " | ".join(cells).replace("nan", "") + " |")
        notes += [f"- {r['tool']}, {r['n']:,} points: {r['error']}."] if "error" in r else []
        notes += [f"- {r['tool']}, {r['n']:,} points: {r['wasm'] / 1e6:.1f} MB of the page are "
                  "WebAssembly."] if r.get("wasm") else []
        if r.get("hosts"):
            print(f"{r['tool']}, {r['n']:,}: requests to {', '.join(r['hosts'])}")
    big = "; ".join(f"{r['tool']}: {r['mb']:.1f} MB, every point drawn {r['load']:.1f} s after "
                    f"navigation, frames of {r['median']:.0f} ms (median) while the view moves"
                    for r in rows if r["n"] == max(sizes) and "load" in r)
    lines += ["", f"Headline: at {max(sizes):,} points, {big or 'no page drew its points'}.", "",
              *notes, "", "Page MB: the HTML file for datamapplot (its data and, in offline "
              "mode, its scripts inlined), the bytes the browser received from the local server "
              "for embedding-atlas. Write or start: datamapplot writing the file, embedding-atlas "
              "from its command's start to its first answer. Requests to other hosts: while "
              "loading and moving (none succeeds on a machine without network; datamapplot's "
              "offline page still links two stylesheets). embedding-atlas shows its default view: "
              "points not coloured by class, its table and column summaries. Without a GPU, "
              "Chromium draws WebGL with SwiftShader on the CPU."]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.quick:
        (common.RESULTS / "map_page_peers.md").write_text(text)


if __name__ == "__main__":
    main()
