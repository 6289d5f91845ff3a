"""Every benchmark's smoke run (``python -m benchmarks run NAME -- --quick``): tiny data, the
optional baselines skipped when they are not installed, nothing written in the repository.
Runs in ``make test-slow``; that every benchmark has one is checked in ``make test``."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks import registry  # noqa: E402

QUICK = [b.name for b in registry.benchmarks()]
#: the smoke runs together stay within this many seconds (``make test-slow`` on 2 cores)
BUDGET = 180.0


def test_every_benchmark_has_a_smoke_run():
    assert len(QUICK) >= 10
    lacking = sorted(b.name for b in registry.benchmarks() if not b.has_quick)
    assert not lacking, f"these take no --quick: {lacking}"


def _status():
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO,
                         capture_output=True, text=True, check=False)
    return out.stdout if out.returncode == 0 else None


@pytest.mark.slow
@pytest.mark.bench_smoke
def test_every_smoke_run_passes_within_the_budget_and_writes_nothing():
    """One after the other (their total time is the budget's), each named when it fails."""
    failures, spent = [], {}
    for name in QUICK:
        before = _status()
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "benchmarks", "run", name, "--", "--quick"],
                             cwd=REPO, capture_output=True, text=True, check=False, timeout=600)
        spent[name] = time.perf_counter() - start
        if out.returncode != 0:
            failures.append(f"{name}: exit {out.returncode}\n{out.stderr[-3000:]}")
        elif _status() != before:
            failures.append(f"{name}: --quick changed the repository")
    print("smoke runs, seconds:", {k: round(v, 1) for k, v in spent.items()},
          f"total {sum(spent.values()):.0f}")
    assert not failures, "\n\n".join(failures)
    assert sum(spent.values()) <= BUDGET, f"smoke runs took {sum(spent.values()):.0f} s: {spent}"
