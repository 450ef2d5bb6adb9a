#!/usr/bin/env python3
"""The `bash` tool end to end, this tree against an older commit, in one run.

Builds (release) the `bash` benchmark harness (`benches/bash.rs`: `true` through the tool
sandboxed and with `BashOptions::unconfined()`, the `--no-sandbox` of the example agent, and three
parallel `sleep 0.5` calls), and with `--baseline-rev REV` the same harness at REV: in a scratch
git worktree (removed afterwards), with the harness copied in and its entry line taken out (REV may
predate it), sharing this tree's target directory so that no dependency is built twice. Then runs
the binaries in alternating rounds and prints Markdown tables of medians, 90th percentiles and CPU
per call, as ratios against this tree's unconfined call measured in the same run.

With `--fallback` this tree's binary also runs in a user namespace whose
`user.max_user_namespaces` is 0, where the kernel refuses the sandbox its namespaces and `bash`
runs in the fallback (Landlock, seccomp, limits), as on a distribution that restricts them.

    python3 bench/bash.py --baseline-rev ca8ff18 --fallback
    python3 bench/bash.py --baseline /path/to/an/old/harness --runs 100 --rounds 2

Python 3 standard library only; CARGO_TARGET_DIR is honoured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
BASELINE = TARGET / "release" / "bash-bench-baseline"
HARNESS = "benches/bash.rs"
# Where commits before the harness was a benchmark target have it: an example of that name.
OLD_HARNESS = "examples/bash_bench.rs"
ENTRY_LINE = "    skills_runtime::agent::sandbox::enter();\n"
TICKS = os.sysconf("SC_CLK_TCK")
# The fallback candidate: a user namespace that allows no further one.
REFUSING = ["unshare", "--user", "--map-root-user", "sh", "-c",
            'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"']


def cargo_build(manifest: Path) -> Path:
    """Builds the harness of the tree at `manifest` in release; returns the executable."""
    tree = manifest.parent
    target = ["--bench", "bash"] if (tree / HARNESS).exists() else ["--example", "bash_bench"]
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    out = subprocess.run(["cargo", "build", "--release", *target, "--message-format=json",
                          "--manifest-path", str(manifest)], check=True, env=env,
                         stdout=subprocess.PIPE, text=True)
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            return Path(message["executable"])
    sys.exit(f"cargo built no executable for {' '.join(target)}")


def build_baseline(rev: str) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="bash-bench-baseline-"))
    tree = scratch / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), rev],
                   check=True)
    try:
        harness = (REPO / HARNESS).read_text()
        if ENTRY_LINE not in harness:
            sys.exit(f"{HARNESS} no longer has the line {ENTRY_LINE.strip()!r}")
        into = HARNESS if (tree / HARNESS).exists() else OLD_HARNESS
        (tree / into).write_text(harness.replace(ENTRY_LINE, ""))
        shutil.copy2(cargo_build(tree / "Cargo.toml"), BASELINE)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                       check=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return BASELINE


def run(command: list[str], runs: int) -> dict:
    out = subprocess.run([*command, "--runs", str(runs), "--json"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def merge(into: dict, sample: dict) -> None:
    for row, data in sample.items():
        slot = into.setdefault(row, {"ms": [], "cpu_ticks": 0})
        slot["ms"].extend(data["ms"])
        slot["cpu_ticks"] += data["cpu_ticks"]


def stats(slot: dict) -> tuple[float, float, float]:
    times = sorted(slot["ms"])
    p90 = times[min(len(times) - 1, len(times) * 9 // 10)]
    cpu = slot["cpu_ticks"] * 1000.0 / TICKS / len(times)
    return statistics.median(times), p90, cpu


def table(title: str, rows: list[tuple[str, dict]], base: dict) -> None:
    base_median = stats(base)[0]
    print(f"| {title} | median | p90 | median / unconfined | overhead (median) | CPU per call |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, slot in rows:
        median, p90, cpu = stats(slot)
        print(f"| {label} | {median:.2f} ms | {p90:.2f} ms | {median / base_median:.2f}x | "
              f"{median - base_median:+.2f} ms | {cpu:.2f} ms |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-rev", help="build the harness at this commit as the baseline")
    parser.add_argument("--baseline", help="an already built baseline harness binary")
    parser.add_argument("--fallback", action="store_true",
                        help="also run this tree where the kernel refuses user namespaces")
    parser.add_argument("--runs", type=int, default=100, help="`true` calls per row and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per binary")
    args = parser.parse_args()

    baseline = None
    if args.baseline_rev:
        baseline = build_baseline(args.baseline_rev)
    elif args.baseline:
        baseline = Path(args.baseline)
    binary = cargo_build(REPO / "Cargo.toml")

    candidates = {"new": [str(binary)]}
    if baseline:
        candidates["old"] = [str(baseline)]
    if args.fallback:
        candidates["fallback"] = [*REFUSING, str(binary)]
    samples: dict[str, dict] = {name: {} for name in candidates}
    for round_ in range(args.rounds):
        for name, command in candidates.items():
            print(f"round {round_ + 1}/{args.rounds}: {name}", file=sys.stderr)
            merge(samples[name], run(command, args.runs))

    new, old, fallback = samples["new"], samples.get("old"), samples.get("fallback")
    base = new["true_unconfined"]
    rows = [("`--no-sandbox` (unconfined), this tree: the baseline", base),
            ("sandboxed, this tree", new["true_sandboxed"])]
    if fallback:
        rows.append(("sandboxed where namespaces are refused (fallback), this tree",
                     fallback["true_sandboxed"]))
    if old:
        rows.append(("sandboxed, baseline commit", old["true_sandboxed"]))
        rows.append(("`--no-sandbox`, baseline commit", old["true_unconfined"]))
    table("`true` through `bash`", rows, base)

    base = new["parallel_unconfined"]
    rows = [("`--no-sandbox`, this tree: the baseline", base),
            ("sandboxed, this tree", new["parallel_sandboxed"])]
    if fallback:
        rows.append(("fallback, this tree", fallback["parallel_sandboxed"]))
    if old:
        rows.append(("sandboxed, baseline commit", old["parallel_sandboxed"]))
        rows.append(("`--no-sandbox`, baseline commit", old["parallel_unconfined"]))
    table("three parallel `sleep 0.5`", rows, base)


if __name__ == "__main__":
    main()
