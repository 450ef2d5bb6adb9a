#!/usr/bin/env python3
"""The MCP server of the `mcp` feature against rmcp's own servers, over Streamable HTTP.

Builds (release) the `mcp_server` example and the crate `bench/mcp/` (outside the workspace: rmcp's
`skills-fs` server of the same `skills/` folder read from disk, a bare rmcp server with no skills,
the load generator and the start-up timer), then measures in one run, servers interleaved:

  throughput  requests per second, p50/p99 latency and server CPU per request of fixed
              request bodies, the same for every server: `--rounds` rounds of `--requests` POSTs
              to each server in turn, at 1 and at 8 concurrent clients, every response checked
              to be a success. rmcp has no `load_skill` tool: its column for that row is the
              request its host makes to load a skill, `resources/read` of the SKILL.md (stated
              in the table).
  startup     process start to the first answered `skills/list` (wall time, and the server's
              CPU time by then): ours against the bare rmcp server (and the skills-fs one, for
              information).

Prints Markdown tables with the ratio ours / peer. With `--baseline PATH` (an `mcp_server` built
from another commit) that binary runs in the same rounds as a fourth server and a fourth start-up
candidate, and a table gives ours / baseline: a before-and-after in one run.

    python3 bench/mcp.py                 # ~15 s after the first build
    python3 bench/mcp.py --quick         # fewer requests and rounds: a smoke test
    python3 bench/mcp.py --baseline /path/to/old/release/examples/mcp_server

Everything runs on 127.0.0.1. Python 3 standard library only; CARGO_TARGET_DIR is honoured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
RELEASE = TARGET / "release"
OURS = [str(RELEASE / "examples" / "mcp_server"), "--http", "127.0.0.1:0"]
SKILLS_FS = [str(RELEASE / "skills_fs"), "--root", str(REPO / "skills"), "--http", "127.0.0.1:0"]
# The same peer built with serde_json's `preserve_order`, which skills-runtime's `mcp` feature turns
# on (frontmatter fields in the author's order) and which makes every JSON object rmcp parses or
# builds an `IndexMap`: the same JSON library as ours, to tell that cost from the rest.
SKILLS_FS_ORDERED = [str(RELEASE / "skills_fs_ordered"), *SKILLS_FS[1:]]
BARE = [str(RELEASE / "bare"), "--http", "127.0.0.1:0"]
LOAD = str(RELEASE / "load")
STARTUP = str(RELEASE / "startup")

SKILL = "debug-failing-test"
SKILL_MD = f"skill://{SKILL}/SKILL.md"
# A phrase of the SKILL.md body: every answer must hold the instructions, not just any success.
BODY_PHRASE = "Find out *why* the test fails"


def rpc(method: str, params: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                      separators=(",", ":"))


READ = rpc("resources/read", {"uri": SKILL_MD})
LOAD_SKILL = rpc("tools/call", {"name": "load_skill", "arguments": {"name": SKILL}})
GET = rpc("skills/get", {"uri": SKILL_MD})
LIST = rpc("skills/list", {})

# (row label, our body, the peer's body, the peer's label when it differs, expected phrase)
WORKLOADS = [
    ("`resources/read` SKILL.md", READ, READ, None, BODY_PHRASE),
    ("`tools/call load_skill`", LOAD_SKILL, READ, "no such tool: `resources/read` SKILL.md",
     BODY_PHRASE),
    ("`skills/get`", GET, GET, None, SKILL_MD),
    ("`skills/list`", LIST, LIST, None, SKILL_MD),
]


def build() -> None:
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    bench = ["cargo", "build", "--release", "--manifest-path",
             str(REPO / "bench" / "mcp" / "Cargo.toml")]
    for command in (
        ["cargo", "build", "--release", "--example", "mcp_server", "--features", "mcp"],
        [*bench, "--features", "preserve-order"],
        bench,
    ):
        print("+", " ".join(command), file=sys.stderr)
        subprocess.run(command, cwd=REPO, env=env, check=True)
        if "preserve-order" in command:
            # Cargo keeps both builds' artifacts; only the binary's name is shared.
            shutil.copy2(RELEASE / "skills_fs", SKILLS_FS_ORDERED[0])


def stage_servers(args: argparse.Namespace) -> None:
    """Copies every server binary into one folder and runs them from there. In an A/A run the
    very same binary took ~10% more CPU to start from where the linker wrote it than from a
    copy, so where a binary sits must not differ between the servers compared."""
    folder = TARGET / "mcp-bench-servers"
    folder.mkdir(parents=True, exist_ok=True)
    for command in (OURS, SKILLS_FS, SKILLS_FS_ORDERED, BARE):
        staged = folder / Path(command[0]).name
        shutil.copy2(command[0], staged)
        command[0] = str(staged)
    if args.baseline:
        staged = folder / "baseline_mcp_server"
        shutil.copy2(args.baseline, staged)
        args.baseline = str(staged)


def start(command: list[str]) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline().strip()
    if not line.startswith("listening on "):
        server.kill()
        sys.exit(f"{command[0]}: unexpected first line {line!r}")
    return server, line.removeprefix("listening on ")


def post(url: str, body: str) -> dict:
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def check_same_bytes(*urls: str) -> None:
    """Every server must serve the same SKILL.md, or the comparison means nothing."""
    on_disk = (REPO / "skills" / SKILL / "SKILL.md").read_text()
    for url in urls:
        if post(url, READ)["result"]["contents"][0]["text"] != on_disk:
            sys.exit(f"{url} does not serve {SKILL_MD} as it is on disk")


def load(targets: list[tuple[str, str]], args: argparse.Namespace, concurrency: int,
         expect: str) -> list[dict]:
    """One interleaved load against every (url, body): a JSON result per target, in order."""
    command = [LOAD, "--requests", str(args.requests), "--concurrency", str(concurrency),
               "--rounds", str(args.rounds), "--expect", expect]
    for url, body in targets:
        command += ["--target", url, body]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"load failed: {' '.join(command)}\n{run.stderr}{run.stdout}")
    return [json.loads(line) for line in run.stdout.splitlines()]


def cpu_ns(server: subprocess.Popen) -> int:
    """CPU time of every thread of `server` so far (Linux schedstat: ns on a CPU)."""
    total = 0
    for task in Path(f"/proc/{server.pid}/task").iterdir():
        total += int((task / "schedstat").read_text().split()[0])
    return total


def baseline_command(args: argparse.Namespace) -> list[str] | None:
    return [args.baseline, *OURS[1:]] if args.baseline else None


def throughput(args: argparse.Namespace) -> None:
    commands = [OURS, SKILLS_FS, SKILLS_FS_ORDERED]
    if args.baseline:
        commands.append(baseline_command(args))
    servers = [start(command) for command in commands]
    urls = [url for _, url in servers]
    rows = []
    total = 0
    try:
        check_same_bytes(*urls)
        for label, body, peer_body, peer_label, expect in WORKLOADS:
            for concurrency in (1, 8):
                before = [cpu_ns(server) for server, _ in servers]
                bodies = [body, peer_body, peer_body, body][:len(urls)]
                results = load(list(zip(urls, bodies)), args, concurrency, expect)
                # Per counted request; the warm-up chunk's CPU is charged too, alike for all.
                for (server, _), start_ns, result in zip(servers, before, results):
                    result["cpu_us"] = (cpu_ns(server) - start_ns) / 1e3 / result["requests"]
                    total += result["requests"]
                rows.append((label, peer_label, concurrency, *results))
                print(f"{label} x{concurrency} done", file=sys.stderr)
    finally:
        for server, _ in servers:
            server.kill()

    print(f"\n{args.rounds} interleaved rounds of {args.requests} requests per server and row "
          f"(req/s: median of the rounds; p50, p99: over all {args.rounds * args.requests} "
          f"requests; server CPU: all its threads' CPU time over the requests counted); "
          f"{total} requests in all, every one a checked success.\n")
    print("| request | clients | ours req/s | rmcp skills-fs req/s | ratio | ours p50 µs | "
          "peer p50 µs | ratio | ours p99 µs | peer p99 µs | ratio | ours CPU µs/req | "
          "peer CPU µs/req | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, peer_label, concurrency, mine, theirs, *_ in rows:
        cells = []
        for key in ("rps", "p50_us", "p99_us", "cpu_us"):
            a, b = mine[key], theirs[key]
            digits = 1 if key == "cpu_us" else 0
            cells += [f"{a:,.{digits}f}", f"{b:,.{digits}f}", f"{a / b:.2f}"]
        row = label if peer_label is None else f"{label} (peer: {peer_label})"
        print(f"| {row} | {concurrency} | " + " | ".join(cells) + " |")

    print("\nThe same peer built with serde_json `preserve_order` (as ours is), same run:\n")
    print("| request | clients | req/s ratio | p50 µs | ratio | p99 ratio | CPU µs/req | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, peer_label, concurrency, mine, _, ordered, *_ in rows:
        row = label if peer_label is None else f"{label} (peer: {peer_label})"
        print(ratio_row(row, concurrency, mine, ordered))
    if args.baseline:
        print(f"\nOurs against the baseline `{args.baseline}`, same run:\n")
        print("| request | clients | req/s ratio | baseline p50 µs | ratio | p99 ratio | "
              "baseline CPU µs/req | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, _, concurrency, mine, _, _, baseline in rows:
            print(ratio_row(label, concurrency, mine, baseline))


def ratio_row(label: str, concurrency: int, mine: dict, other: dict) -> str:
    """A row of ours / `other`: req/s, p50 (with other's), p99, CPU (with other's)."""
    return (f"| {label} | {concurrency} | {mine['rps'] / other['rps']:.2f} | "
            f"{other['p50_us']:,.0f} | {mine['p50_us'] / other['p50_us']:.2f} | "
            f"{mine['p99_us'] / other['p99_us']:.2f} | {other['cpu_us']:.1f} | "
            f"{mine['cpu_us'] / other['cpu_us']:.2f} |")


def startup(args: argparse.Namespace) -> None:
    candidates = {
        "ours (`mcp_server --http`)": (OURS, SKILL_MD),
        "bare rmcp server, no skills": (BARE, None),
        "rmcp skills-fs, same folder": (SKILLS_FS, SKILL_MD),
    }
    if args.baseline:
        candidates["baseline (`--baseline`)"] = (baseline_command(args), SKILL_MD)
    times: dict = {name: [] for name in candidates}
    cpu: dict = {name: [] for name in candidates}
    names = list(candidates)
    for round_ in range(args.startup_rounds):
        order = names if round_ % 2 == 0 else names[::-1]
        for name in order:
            command, expect = candidates[name]
            extra = ["--expect", expect] if expect else []
            run = subprocess.run([STARTUP, *extra, "--", *command], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"startup failed for {name}:\n{run.stderr}{run.stdout}")
            wall, cpu_us = run.stdout.split()
            times[name].append(float(wall))
            cpu[name].append(float(cpu_us))
    bare = statistics.median(times["bare rmcp server, no skills"])
    bare_cpu = statistics.median(cpu["bare rmcp server, no skills"])
    print(f"\n{args.startup_rounds} interleaved rounds, µs from spawn to the first answered "
          "`skills/list` (wall), and the server's CPU time by then (all its threads):\n")
    print("| server | median | p25 | p75 | min | ratio to bare | CPU median | CPU ratio to bare |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        ts = sorted(times[name])
        q = statistics.quantiles(ts, n=4)
        median = statistics.median(ts)
        cpu_median = statistics.median(cpu[name])
        print(f"| {name} | {median:,.0f} | {q[0]:,.0f} | {q[2]:,.0f} | {ts[0]:,.0f} | "
              f"{median / bare:.2f} | {cpu_median:,.0f} | {cpu_median / bare_cpu:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests and rounds")
    parser.add_argument("--requests", type=int, help="requests per server per round (default 500)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds, odd (default 21)")
    parser.add_argument("--startup-rounds", type=int, help="start-up rounds (default 201)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries as built")
    parser.add_argument("--only", choices=["throughput", "startup"], help="one of the two")
    parser.add_argument("--baseline", help="an mcp_server binary of another commit, measured too")
    args = parser.parse_args()
    args.requests = args.requests or (200 if args.quick else 500)
    args.rounds = args.rounds or (3 if args.quick else 21)
    args.startup_rounds = args.startup_rounds or (7 if args.quick else 201)
    if not args.no_build:
        build()
    stage_servers(args)
    if args.only in (None, "throughput"):
        throughput(args)
    if args.only in (None, "startup"):
        startup(args)


if __name__ == "__main__":
    main()
