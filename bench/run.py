#!/usr/bin/env python3
"""Reproducible benchmarks for `embed_skills!`: rebuild time, binary growth, lookup and start-up.

Everything is generated under `target/bench/` (never committed): the skill bundles, small
throw-away crates that depend on `skills-runtime` by absolute path, and one shared
CARGO_TARGET_DIR so dependencies compile once. Each measurement runs the candidate and its
baseline interleaved in the same run and prints a Markdown table with medians and the ratio.

    python3 bench/run.py                      # everything (~4 min + first dependency build)
    python3 bench/run.py --quick              # smaller bundles, fewer rounds (a smoke test)
    python3 bench/run.py --only rebuild,size  # a subset: rebuild, size, get, startup, clean

Measurements
  rebuild  `cargo build` wall and CPU time after editing one skill of a 1,000 x ~2 KB bundle:
           embed_skills! against include_str! of the same files (dev, then release); in the
           dev profile also both at 10,000 skills, the candidate against its own 1,000 time.
  size     release binary growth (strip, opt-level 3) per byte of SKILL.md text and catalog,
           1,000 skills against an empty bundle; same for include_str!. With a breakdown.
  get      Registry::get at 10,000 skills (divan) against HashMap<&str, &Skill>::get.
  startup  process start to printed catalog: embed_skills! binary against a program that scans
           the same folder at start-up and parses the frontmatter with serde-saphyr.
  clean    clean `cargo build` (dependencies included) of a crate embedding the demo bundle
           `skills/` against the same crate written with include_dir + serde-saphyr.

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "target" / "bench"
TARGET = BENCH / "target"
# The workspace under test: this checkout, or a `git archive` of `--rev` (set in main()).
SOURCE = REPO
RUNTIME = SOURCE / "skills-runtime"

# ---------------------------------------------------------------------------------------------
# Skill generator: deterministic, realistic Markdown (headings, lists, steps, a code block).
# ---------------------------------------------------------------------------------------------

ACTIONS = ["review", "migrate", "debug", "document", "optimize", "audit", "deploy", "test",
           "refactor", "profile", "scaffold", "upgrade", "monitor", "secure", "benchmark"]
TOPICS = ["rust", "python", "postgres", "kubernetes", "terraform", "react", "graphql", "kafka",
          "redis", "docker", "grpc", "oauth", "spark", "django", "nginx", "webpack", "android",
          "swift", "golang", "elastic"]
OBJECTS = ["schema", "pipeline", "endpoint", "dashboard", "release", "config", "queries",
           "service", "cluster", "module", "workflow", "tests", "logging", "cache", "api"]
NOUNS = ["the change", "the diff", "each module", "the public API", "the configuration",
         "the test suite", "the build", "the deployment", "the dependency tree", "the error path",
         "the data model", "the migration", "the hot loop", "the request handler", "the logs"]
VERBS = ["Check", "Read", "List", "Compare", "Measure", "Record", "Verify", "Trace", "Inspect",
         "Summarize", "Confirm", "Flag", "Rewrite", "Split", "Name"]
CLAUSES = ["before you change anything", "and note every assumption you make",
           "so that the user can reproduce the result", "with the exact file and line",
           "and keep the output short", "without touching unrelated files",
           "and stop if the build is already broken", "against the previous release",
           "and explain the trade-off in one sentence", "using the project's own conventions"]
TOOLS = ["bash", "read_file", "write_file", "edit_file", "glob"]
AUTHORS = ["platform-team", "data-team", "sre", "mobile", "security"]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)} {rng.choice(NOUNS)} {rng.choice(CLAUSES)}."


def skill_names(count: int, seed: int) -> list[str]:
    combos = [f"{a}-{t}-{o}" for a in ACTIONS for t in TOPICS for o in OBJECTS]
    random.Random(seed).shuffle(combos)
    return [combos[i % len(combos)] + ("" if i < len(combos) else f"-{i // len(combos) + 1}")
            for i in range(count)]


def description(rng: random.Random, name: str, lo: int, hi: int) -> str:
    action, topic, obj = name.split("-")[:3]
    text = (f"{action.capitalize()}s {topic} {obj} end to end. "
            f"Use when the user asks to {action} {topic} {obj} or {rng.choice(NOUNS)}.")
    goal = rng.randint(lo, hi)
    while len(text) < goal:
        text += " " + sentence(rng)
    if len(text) > hi:
        text = text[: hi - 1].rsplit(" ", 1)[0].rstrip(".,;") + "."
    return text


def optional_fields(rng: random.Random, name: str) -> list[str]:
    lines = []
    if rng.random() < 0.15:
        lines.append(f'when-not-to-use: "a one-off question about {name.split("-")[1]} that needs no files."')
    if rng.random() < 0.25:
        lines.append(f'version: "1.{rng.randint(0, 9)}.{rng.randint(0, 20)}"')
    if rng.random() < 0.2:
        lines.append("license: MIT OR Apache-2.0")
    if rng.random() < 0.2:
        lines.append(f"tags: [{', '.join(name.split('-')[:3])}]")
    if rng.random() < 0.1:
        lines.append(f"allowed-tools: {' '.join(rng.sample(TOOLS, 3))}")
    if rng.random() < 0.1:
        lines.append(f"metadata:\n  author: {rng.choice(AUTHORS)}\n  category: {name.split('-')[0]}")
    return lines


EDIT_MARK = re.compile(r"_Last reviewed: round \d+\._")


def big_skill(rng: random.Random, name: str) -> str:
    """A ~2 KB SKILL.md (sizes spread 1.7-2.3 KB)."""
    action, topic, obj = name.split("-")[:3]
    front = [f"name: {name}", f"description: {description(rng, name, 100, 200)}"]
    front += optional_fields(rng, name)
    target = rng.randint(1700, 2300)
    head = "---\n" + "\n".join(front) + "\n---\n\n"
    parts = [f"# {action.capitalize()} {topic} {obj}", "",
             " ".join(sentence(rng) for _ in range(3)), "", "## When to use", ""]
    parts += [f"- {sentence(rng)}" for _ in range(3)]
    parts += ["", "## Steps", ""]
    parts += [f"{i}. {sentence(rng)} {sentence(rng)}" for i in range(1, 6)]
    parts += ["", "## Example", "", "```bash",
              f"cargo run -- {action} --topic {topic} --target {obj}",
              f"grep -rn '{obj}' src/ | head -20", "```", "", "## Pitfalls", ""]
    tail = ["", "## Output", "",
            f"Report what you did to the {obj}, what you did not do, and why.", "",
            "_Last reviewed: round 0._"]
    text = head + "\n".join(parts + tail) + "\n"
    while len(text.encode()) < target:
        parts.append(f"- {sentence(rng)} {sentence(rng)}")
        text = head + "\n".join(parts + tail) + "\n"
    return text


def small_skill(rng: random.Random, name: str) -> str:
    """A ~200 byte SKILL.md for the 10,000-skill lookup bench."""
    return (f"---\nname: {name}\ndescription: {description(rng, name, 60, 100)}\n---\n\n"
            f"{sentence(rng)}\n")


def write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_bundle(root: Path, count: int, small: bool) -> int:
    """Writes `count` skills under `root` (removing stale ones); returns the total bytes."""
    rng = random.Random(2)
    names = skill_names(count, seed=1)
    root.mkdir(parents=True, exist_ok=True)
    wanted = set(names)
    for stale in root.iterdir():
        if stale.name not in wanted:
            shutil.rmtree(stale)
    total = 0
    for name in names:
        text = small_skill(rng, name) if small else big_skill(rng, name)
        write_if_changed(root / name / "SKILL.md", text)
        total += len(text.encode())
    return total


# ---------------------------------------------------------------------------------------------
# Generated crates
# ---------------------------------------------------------------------------------------------

PROFILE = """
[profile.release]
opt-level = 3
strip = true
"""


def manifest(name: str, deps: str, dev_deps: str = "", build_deps: str = "",
             extra: str = "") -> str:
    out = (f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2024"\n'
           f"publish = false\n\n[dependencies]\n{deps}\n")
    if dev_deps:
        out += f"\n[dev-dependencies]\n{dev_deps}\n"
    if build_deps:
        out += f"\n[build-dependencies]\n{build_deps}\n"
    return out + "\n" + extra + PROFILE + "\n[workspace]\n"


def runtime_dep(runtime: Path | None = None) -> str:
    path = (runtime or RUNTIME).as_posix()
    return f'skills-runtime = {{ path = "{path}", default-features = false }}'


def new_crate(dirname: str, cargo_toml: str, files: dict[str, str]) -> Path:
    crate = BENCH / dirname
    write_if_changed(crate / "Cargo.toml", cargo_toml)
    lock = SOURCE / "Cargo.lock"
    dest = crate / "Cargo.lock"
    # Copied to avoid a fresh resolution; again when the source lock is newer (cargo then only
    # adds what the generated crate needs on top, e.g. divan or serde-saphyr).
    if lock.exists() and (not dest.exists() or lock.stat().st_mtime > dest.stat().st_mtime):
        shutil.copy(lock, dest)
    for rel, text in files.items():
        write_if_changed(crate / rel, text)
    return crate


EMBED_MAIN = r"""// Generated by bench/run.py. The candidate: the bundle compiled in by embed_skills!.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(@ARGS@);

fn main() {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        // What the size breakdown needs; the same code is in the empty-bundle build.
        Some("--stats") => {
            let (mut content, mut path, mut extra) = (0, 0, 0);
            for s in SKILLS.iter() {
                content += s.content().len();
                path += s.source_path().len();
                let has_extra = s.version().is_some() || s.license().is_some()
                    || !s.tags().is_empty() || s.when_not_to_use().is_some()
                    || !s.metadata().is_empty() || !s.allowed_tools().is_empty();
                extra += has_extra as usize;
            }
            println!("skills {}", SKILLS.len());
            println!("size_of_skill {}", std::mem::size_of::<skills_runtime::Skill>());
            println!("skills_with_extra {extra}");
            println!("content {content}");
            println!("path {path}");
            println!("catalog {}", SKILLS.catalog().len());
            println!("tool_anthropic {}", SKILLS.load_skill_tool_anthropic().map_or(0, str::len));
            println!("tool_openai {}", SKILLS.load_skill_tool_openai().map_or(0, str::len));
        }
        // A lookup by a name known only at run time keeps every skill reachable, as in an agent.
        Some(name) => match SKILLS.get(name) {
            Some(skill) => println!("{}", skill.body()),
            None => std::process::exit(1),
        },
        None => println!("{}", SKILLS.catalog()),
    }
}
"""

DEFAULT_ARGS = '"skills"'
# The cross-skill lint `similar_descriptions` compares every pair of descriptions (O(n^2)); the
# diagnostic variants switch it off with the macro's own option to show what the rest costs.
NOLINT_ARGS = '"skills", similar_descriptions = "allow"'
# Proc macros and their dependencies are built at opt-level 0 by default, in release too.
OPT_MACRO_PROFILE = """[profile.dev.build-override]
opt-level = 3

[profile.release.build-override]
opt-level = 3
"""

EMBED_BUILD = 'fn main() {\n    skills_runtime::build::watch(&["skills"]);\n}\n'


def include_main(names: list[str]) -> str:
    entries = "".join(f'    include_str!("../skills/{n}/SKILL.md"),\n' for n in names)
    return (
        "// Generated by bench/run.py. The floor: the same files with plain include_str!, no checks.\n"
        f"static FILES: &[&str] = &[\n{entries}];\n\n"
        "fn main() {\n"
        "    // black_box keeps every file in the binary, as a real lookup would.\n"
        "    let files = std::hint::black_box(FILES);\n"
        "    match std::env::args().nth(1).and_then(|a| a.parse::<usize>().ok()) {\n"
        "        Some(i) => println!(\"{}\", files.get(i).copied().unwrap_or(\"\")),\n"
        "        None => println!(\"{} files, {} bytes\", files.len(),\n"
        "            files.iter().map(|f| f.len()).sum::<usize>()),\n"
        "    }\n"
        "}\n")


# The frontmatter as the serde-based baselines declare it (start-up and clean-build baselines).
FRONTMATTER_TYPES = r"""#[derive(serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
struct Front {
    name: String,
    description: String,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: Option<BTreeMap<String, String>>,
    allowed_tools: Option<Tools>,
    version: Option<String>,
    tags: Option<Vec<String>>,
    when_not_to_use: Option<String>,
    requires: Option<Vec<String>>,
    conflicts_with: Option<Vec<String>>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Tools {
    Line(String),
    List(Vec<String>),
}
"""

# How both baselines split a SKILL.md into frontmatter and body, and fold a description.
FRONTMATTER_HELPERS = r"""fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some((&rest[..end + 1], rest[end + 5..].trim()))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
"""

SCAN_MAIN = r"""// Generated by bench/run.py. The start-up baseline: what a user of a YAML crate writes when
// skills are loaded at run time: walk the folder, read each SKILL.md, parse the frontmatter with
// serde-saphyr (serde derive), keep the skills, render the same Markdown catalog.
use std::collections::BTreeMap;
use std::time::Instant;

""" + FRONTMATTER_TYPES + r"""
#[allow(dead_code)]
struct Skill {
    front: Front,
    body: String,
}

""" + FRONTMATTER_HELPERS + r"""
fn main() {
    let mut args = std::env::args().skip(1);
    let mut root = args.next().expect("usage: bench-scan [--breakdown] DIR");
    let breakdown = root == "--breakdown";
    if breakdown {
        root = args.next().expect("DIR");
    }
    let t0 = Instant::now();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).expect("read_dir") {
        let path = entry.expect("entry").path().join("SKILL.md");
        if let Ok(text) = std::fs::read_to_string(&path) {
            files.push(text);
        }
    }
    let t1 = Instant::now();
    let mut skills: Vec<Skill> = files
        .iter()
        .map(|text| {
            let (yaml, body) = split(text).expect("frontmatter");
            let front: Front = serde_saphyr::from_str(yaml).expect("yaml");
            Skill { front, body: body.to_owned() }
        })
        .collect();
    skills.sort_by(|a, b| a.front.name.cmp(&b.front.name));
    let t2 = Instant::now();
    let mut catalog = String::new();
    for (i, s) in skills.iter().enumerate() {
        if i > 0 {
            catalog.push('\n');
        }
        catalog.push_str("- ");
        catalog.push_str(&s.front.name);
        catalog.push_str(": ");
        catalog.push_str(&collapse(&s.front.description));
        if let Some(not_for) = &s.front.when_not_to_use {
            catalog.push_str(" Not for: ");
            catalog.push_str(&collapse(not_for));
        }
    }
    if skills.is_empty() {
        catalog.push_str("(no skills found)");
    }
    let t3 = Instant::now();
    println!("{catalog}");
    if breakdown {
        let us = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e6;
        eprintln!("read_us {:.0} parse_us {:.0} render_us {:.0}", us(t0, t1), us(t1, t2), us(t2, t3));
    }
}
"""

DEMO_EMBED_MAIN = r"""// Generated by bench/run.py. The demo bundle compiled in by embed_skills! (checked at build
// time), printing its catalog.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

fn main() {
    println!("{}", SKILLS.catalog());
}
"""

DEMO_INCLUDE_DIR_MAIN = r"""// Generated by bench/run.py. The clean-build baseline: the demo bundle embedded with
// include_dir, its frontmatter parsed with serde-saphyr (serde derive) at start-up, the same
// catalog rendered and printed.
use std::collections::BTreeMap;

static SKILLS: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/skills");

""" + FRONTMATTER_TYPES + r"""
""" + FRONTMATTER_HELPERS + r"""
fn main() {
    let mut skills: Vec<(Front, &str)> = Vec::new();
    for dir in SKILLS.dirs() {
        let Some(file) = dir.get_file(dir.path().join("SKILL.md")) else { continue };
        let text = file.contents_utf8().expect("UTF-8");
        let (yaml, body) = split(text).expect("frontmatter");
        skills.push((serde_saphyr::from_str(yaml).expect("yaml"), body));
    }
    skills.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let mut catalog = String::new();
    for (i, (front, _)) in skills.iter().enumerate() {
        if i > 0 {
            catalog.push('\n');
        }
        catalog.push_str(&format!("- {}: {}", front.name, collapse(&front.description)));
        if let Some(not_for) = &front.when_not_to_use {
            catalog.push_str(&format!(" Not for: {}", collapse(not_for)));
        }
    }
    println!("{catalog}");
}
"""

GET_BENCH = r"""// Generated by bench/run.py. Registry::get against HashMap<&str, &Skill>::get, same names.
use std::collections::HashMap;

use skills_runtime::{Registry, Skill};

// `similar_descriptions = "allow"`: that build-time lint compares every pair of descriptions,
// which at 10,000 skills would dominate the build; it does not change the generated registry.
static SKILLS: Registry = skills_runtime::embed_skills!("skills", similar_descriptions = "allow");

fn main() {
    divan::main();
}

/// Every 10th name (hits spread across the whole registry), owned (as if parsed from a model's
/// tool call), in a fixed pseudo-random order.
fn names() -> Vec<String> {
    let mut names: Vec<String> = SKILLS.names().step_by(10).map(str::to_owned).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in (1..names.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        names.swap(i, (state % (i as u64 + 1)) as usize);
    }
    names
}

#[divan::bench]
fn registry_get(bencher: divan::Bencher) {
    let names = names();
    let mut i = 0;
    bencher
        .with_inputs(|| {
            i = (i + 1) % names.len();
            names[i].as_str()
        })
        .bench_local_values(|name| SKILLS.get(divan::black_box(name)));
}

/// Reference: the same binary search over a contiguous copy of the sorted names (16 B each),
/// to separate the cost of the algorithm from that of the registry's layout.
#[divan::bench]
fn names_slice_binary_search(bencher: divan::Bencher) {
    let sorted: Vec<&'static str> = SKILLS.names().collect();
    let names = names();
    let mut i = 0;
    bencher
        .with_inputs(|| {
            i = (i + 1) % names.len();
            names[i].as_str()
        })
        .bench_local_values(|name| sorted.binary_search(&divan::black_box(name)).ok());
}

#[divan::bench]
fn hashmap_get(bencher: divan::Bencher) {
    let map: HashMap<&'static str, &'static Skill> = SKILLS.iter().map(|s| (s.name(), s)).collect();
    let names = names();
    let mut i = 0;
    bencher
        .with_inputs(|| {
            i = (i + 1) % names.len();
            names[i].as_str()
        })
        .bench_local_values(|name| map.get(divan::black_box(name)).copied());
}
"""


# ---------------------------------------------------------------------------------------------
# Running things
# ---------------------------------------------------------------------------------------------

def cargo_env(target: Path = TARGET) -> dict[str, str]:
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(target)
    env.pop("SKILLS_MANIFEST_DIR_OVERRIDE", None)
    env.pop("RUSTFLAGS", None)
    env["CARGO_TERM_COLOR"] = "never"
    return env


def cargo(crate: Path, *args: str, check: bool = True,
          target: Path = TARGET) -> tuple[float, subprocess.CompletedProcess]:
    elapsed, _, proc = cargo_timed(crate, *args, check=check, target=target)
    return elapsed, proc


def cargo_timed(crate: Path, *args: str, check: bool = True,
                target: Path = TARGET) -> tuple[float, float, subprocess.CompletedProcess]:
    """`cargo ARGS` in `crate`: wall time, CPU time (user + system of cargo and everything it
    ran, which moves less than the wall time when other builds share the cores) and the run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(["cargo", *args], cwd=crate, env=cargo_env(target),
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if check and proc.returncode != 0:
        sys.exit(f"cargo {' '.join(args)} failed in {crate}:\n{proc.stderr[-4000:]}")
    return elapsed, cpu, proc


def binary(name: str, profile: str = "release") -> Path:
    return TARGET / profile / name


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def machine_note() -> str:
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True,
                           cwd=REPO).stdout.strip()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{rustc}; {os.cpu_count()} cores shared with other builds (load average {load:.1f} at start)"


class Setup:
    def __init__(self, quick: bool):
        self.quick = quick
        self.n_big = 200 if quick else 1000
        # The scaling check of the rebuild: ten times the bundle.
        self.n_huge = 10 * self.n_big
        self.n_small = 2000 if quick else 10000
        self.names = skill_names(self.n_big, seed=1)
        self.embed = self.include = self.embed_empty = self.include_empty = None
        self.embed_nolint = self.embed_nolint_opt = self.embed_cold = None
        self.embed_nobuild = None
        # `--baseline-rev`: the candidate, and the same without a build script, of that commit.
        self.baseline_runtime: Path | None = None
        self.baseline_label = ""
        self.base = self.base_nobuild = None
        self.scan = self.get = None
        self.embed_huge = self.include_huge = None
        self.demo_embed = self.demo_include_dir = None
        self.bundle_bytes = self.huge_bytes = 0

    def big_crates(self) -> None:
        if self.embed:
            return
        log(f"generating {self.n_big} skills x ~2 KB")
        self.embed = self.embed_crate("embed", DEFAULT_ARGS)
        self.bundle_bytes = write_bundle(self.embed / "skills", self.n_big, small=False)
        self.embed_empty = self.embed_crate("embed-empty", DEFAULT_ARGS)
        (self.embed_empty / "skills").mkdir(exist_ok=True)
        self.include = new_crate("include", manifest("bench-include", ""),
                                 {"src/main.rs": include_main(sorted(self.names))})
        write_bundle(self.include / "skills", self.n_big, small=False)
        self.include_empty = new_crate("include-empty", manifest("bench-include-empty", ""),
                                       {"src/main.rs": include_main([])})

    def rebuild_variants(self) -> None:
        """Four diagnostic variants of the candidate for the rebuild measurement."""
        if self.embed_nolint:
            return
        self.embed_cold = self.embed_crate("embed-cold", DEFAULT_ARGS)
        write_bundle(self.embed_cold / "skills", self.n_big, small=False)
        self.embed_nolint = self.embed_crate("embed-nolint", NOLINT_ARGS)
        write_bundle(self.embed_nolint / "skills", self.n_big, small=False)
        self.embed_nolint_opt = self.embed_crate("embed-nolint-opt", NOLINT_ARGS,
                                                 extra=OPT_MACRO_PROFILE)
        write_bundle(self.embed_nolint_opt / "skills", self.n_big, small=False)
        self.embed_nobuild = self.embed_crate("embed-nobuild", DEFAULT_ARGS, build_script=False)
        write_bundle(self.embed_nobuild / "skills", self.n_big, small=False)

    def baseline_crates(self) -> None:
        """The candidate and its no-build-script variant built from `--baseline-rev`."""
        if self.base or not self.baseline_runtime:
            return
        self.base = self.embed_crate("base", DEFAULT_ARGS, runtime=self.baseline_runtime)
        write_bundle(self.base / "skills", self.n_big, small=False)
        self.base_nobuild = self.embed_crate("base-nobuild", DEFAULT_ARGS, build_script=False,
                                             runtime=self.baseline_runtime)
        write_bundle(self.base_nobuild / "skills", self.n_big, small=False)

    def huge_crates(self) -> None:
        """The same candidate and floor with ten times the skills, for the scaling check."""
        if self.embed_huge:
            return
        log(f"generating {self.n_huge} skills x ~2 KB")
        self.huge_names = skill_names(self.n_huge, seed=1)
        self.embed_huge = self.embed_crate("embed-huge", DEFAULT_ARGS)
        self.huge_bytes = write_bundle(self.embed_huge / "skills", self.n_huge, small=False)
        self.include_huge = new_crate("include-huge", manifest("bench-include-huge", ""),
                                      {"src/main.rs": include_main(sorted(self.huge_names))})
        write_bundle(self.include_huge / "skills", self.n_huge, small=False)

    def demo_crates(self) -> None:
        """A small crate embedding the demo bundle, and the same written with include_dir and
        serde-saphyr parsing at start-up."""
        if self.demo_embed:
            return
        self.demo_embed = new_crate("demo-embed", manifest("bench-demo-embed", runtime_dep(),
                                                           build_deps=runtime_dep()),
                                    {"src/main.rs": DEMO_EMBED_MAIN, "build.rs": EMBED_BUILD})
        deps = ('include_dir = "0.7"\nserde = { version = "1", features = ["derive"] }\n'
                'serde-saphyr = { version = "2", default-features = false, features = ["deserialize"] }\n')
        self.demo_include_dir = new_crate("demo-include-dir", manifest("bench-demo-include-dir", deps),
                                          {"src/main.rs": DEMO_INCLUDE_DIR_MAIN})
        for crate in (self.demo_embed, self.demo_include_dir):
            if (crate / "skills").exists():
                shutil.rmtree(crate / "skills")
            shutil.copytree(SOURCE / "skills", crate / "skills")

    @staticmethod
    def embed_crate(dirname: str, macro_args: str, extra: str = "", build_script: bool = True,
                    runtime: Path | None = None) -> Path:
        """A crate embedding `skills/`; with the README's `build.rs` line unless `build_script`
        is false (then no `OUT_DIR`, no cache, and every file tracked by `include_bytes!`)."""
        files = {"src/main.rs": EMBED_MAIN.replace("@ARGS@", macro_args)}
        if build_script:
            files["build.rs"] = EMBED_BUILD
        else:
            stale = BENCH / dirname / "build.rs"
            if stale.exists():
                stale.unlink()
        dep = runtime_dep(runtime)
        return new_crate(dirname, manifest(f"bench-{dirname}", dep,
                                           build_deps=dep if build_script else "", extra=extra),
                         files)

    def scan_crate(self) -> None:
        if self.scan:
            return
        deps = ('serde = { version = "1", features = ["derive"] }\n'
                'serde-saphyr = { version = "2", default-features = false, features = ["deserialize"] }\n')
        self.scan = new_crate("scan", manifest("bench-scan", deps), {"src/main.rs": SCAN_MAIN})

    def get_crate(self) -> None:
        if self.get:
            return
        log(f"generating {self.n_small} skills x ~200 B")
        self.get = new_crate(
            "get",
            manifest("bench-get", runtime_dep(), dev_deps='divan = "0.1"',
                     extra='[[bench]]\nname = "get"\nharness = false\n'),
            {"src/main.rs": "fn main() {}\n", "benches/get.rs": GET_BENCH})
        write_bundle(self.get / "skills", self.n_small, small=True)


# ---------------------------------------------------------------------------------------------
# 1. Rebuild after editing one skill
# ---------------------------------------------------------------------------------------------

_edit_counter = [int(time.time())]


def edit_one_skill(crate: Path, name: str) -> None:
    path = crate / "skills" / name / "SKILL.md"
    text = path.read_text()
    _edit_counter[0] += 1
    new = EDIT_MARK.sub(f"_Last reviewed: round {_edit_counter[0]}._", text)
    assert new != text, "edit marker not found"
    path.write_text(new)


def empty_build_cache(crate: Path, profile_dir: str) -> None:
    """Deletes the cache `embed_skills!` keeps in the crate's OUT_DIR."""
    name = f"bench-{crate.name}"
    for cache in (TARGET / profile_dir / "build").glob(f"{name}-*/out/skills-cache-*"):
        cache.unlink()


def bench_rebuild(s: Setup, rounds: int, release: bool, variants: bool, scaling: bool) -> str:
    s.big_crates()
    if scaling:
        s.huge_crates()
    crates = [("embed", s.embed, "`embed_skills!(\"skills\")` (candidate, defaults)")]
    if variants:
        s.rebuild_variants()
        crates += [
            ("cold", s.embed_cold,
             "diagnostic: same, build cache emptied before each build (every file re-read)"),
            ("nolint", s.embed_nolint,
             "diagnostic: same, `similar_descriptions = \"allow\"`"),
            ("nolint-opt", s.embed_nolint_opt,
             "diagnostic: same, lint off + macro built at `opt-level = 3` (`build-override`)"),
            ("nobuild", s.embed_nobuild,
             "diagnostic: same, no build script (no cache, every file tracked by `include_bytes!`)"),
        ]
    if s.baseline_runtime:
        s.baseline_crates()
        crates += [
            ("base", s.base, f"baseline: the candidate at {s.baseline_label}"),
            ("base-nobuild", s.base_nobuild,
             f"baseline: the candidate at {s.baseline_label}, no build script"),
        ]
    crates.append(("include", s.include, "`include_str!` x N, no checks (floor)"))
    target = s.names[len(s.names) // 2]
    profiles = [("dev", [])] + ([("release", ["--release"])] if release else [])
    # The scaling check: the candidate and the floor with ten times the skills, dev profile only
    # (interleaved with the others).
    huge = []
    if scaling:
        huge = [("embed-huge", s.embed_huge,
                 f"`embed_skills!(\"skills\")`, {s.n_huge:,} skills (scaling check)"),
                ("include-huge", s.include_huge,
                 f"`include_str!` x {s.n_huge:,}, no checks (floor of the scaling check)")]
    targets = {key: target for key, _, _ in crates}
    targets.update({key: s.huge_names[len(s.huge_names) // 2] for key, _, _ in huge})
    sections = []
    for profile, flags in profiles:
        measured = crates + (huge if profile == "dev" else [])
        for key, crate, _ in measured:
            log(f"rebuild/{profile}: initial build of {crate.name}")
            cargo(crate, "build", *flags)
            edit_one_skill(crate, targets[key])  # one untimed incremental build to warm caches
            cargo(crate, "build", *flags)
        times: dict[str, list[float]] = {key: [] for key, _, _ in measured}
        cpu: dict[str, list[float]] = {key: [] for key, _, _ in measured}
        n = rounds if profile == "dev" else max(3, rounds - 2)
        for r in range(n):
            # Interleaved, each round starting one crate later (A B C, B C A, C A B, ...): a build
            # right after a large one finds the caches cold, and no crate should always be it.
            shift = r % len(measured)
            for key, crate, _ in measured[shift:] + measured[:shift]:
                edit_one_skill(crate, targets[key])
                if key == "cold":
                    empty_build_cache(crate, "release" if flags else "debug")
                time.sleep(0.05)
                elapsed, used, proc = cargo_timed(crate, "build", *flags)
                if "Compiling" not in proc.stderr:
                    sys.exit(f"{crate.name} did not rebuild after an edit:\n{proc.stderr}")
                times[key].append(elapsed)
                cpu[key].append(used)
            log(f"rebuild/{profile} round {r + 1}/{n}: "
                + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()))
        floor = median(times["include"])
        cpu_floor = median(cpu["include"])
        rows = []
        for key, _, label in crates:
            m, c = median(times[key]), median(cpu[key])
            rows.append([label, f"{m:.2f}", f"{m / floor:.2f}x", f"{c:.2f}",
                         f"{c / cpu_floor:.2f}x", " ".join(f"{t:.2f}" for t in times[key])])
        for key, _, label in measured[len(crates):]:
            m, c = median(times[key]), median(cpu[key])
            base = key.removesuffix('-huge')
            rows.append([label, f"{m:.2f}", f"{m / median(times[base]):.2f}x its {s.n_big:,}",
                         f"{c:.2f}", f"{c / median(cpu[base]):.2f}x its {s.n_big:,}",
                         " ".join(f"{t:.2f}" for t in times[key])])
        ratio = median(times["embed"]) / floor
        verdict = "met" if ratio <= 1.3 else "NOT met"
        section = (
            f"Rebuild after editing one skill, `cargo build` ({profile} profile), "
            f"{s.n_big} skills, {s.bundle_bytes:,} bytes of SKILL.md, {n} rounds\n\n"
            + table(["crate", "median s", "/ floor", "median CPU s", "CPU / floor",
                     "runs (s, interleaved)"], rows)
            + f"\n\nRatio candidate/floor: **{ratio:.2f}x** (target <= 1.3x: {verdict}); "
            f"in CPU time {median(cpu['embed']) / cpu_floor:.2f}x\n")
        if "base" in times:
            section += (
                f"\nAgainst the baseline ({s.baseline_label}), same rounds: wall "
                f"{median(times['embed']) / median(times['base']):.2f}x, CPU "
                f"{median(cpu['embed']) / median(cpu['base']):.2f}x; without a build script, wall "
                f"{median(times['nobuild']) / median(times['base-nobuild']):.2f}x, CPU "
                f"{median(cpu['nobuild']) / median(cpu['base-nobuild']):.2f}x\n")
        if profile == "dev" and huge:
            scale = median(times["embed-huge"]) / median(times["embed"])
            floor_scale = median(times["include-huge"]) / floor
            section += (
                f"\nScaling, {s.n_huge:,} skills ({s.huge_bytes:,} bytes) against {s.n_big:,}: "
                f"candidate **{scale:.2f}x** its own time (target <= 11x: "
                f"{'met' if scale <= 11 else 'NOT met'}); floor {floor_scale:.2f}x\n")
        sections.append(section)
    return "\n".join(sections)


# ---------------------------------------------------------------------------------------------
# 2. Release binary growth per byte of skill text
# ---------------------------------------------------------------------------------------------

def sections_of(path: Path) -> dict[str, int]:
    out = subprocess.run(["size", "-A", str(path)], capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            result[parts[0]] = int(parts[1])
    return result


def bench_size(s: Setup) -> str:
    s.big_crates()
    for crate in (s.embed, s.embed_empty, s.include, s.include_empty):
        log(f"size: release build of {crate.name}")
        cargo(crate, "build", "--release")
    files = {k: binary(f"bench-{k}") for k in ("embed", "embed-empty", "include", "include-empty")}
    size = {k: p.stat().st_size for k, p in files.items()}
    stats = {}
    for line in subprocess.run([str(files["embed"]), "--stats"], capture_output=True,
                               text=True).stdout.splitlines():
        k, v = line.split()
        stats[k] = int(v)
    total = s.bundle_bytes
    # The target counts the catalog as payload: it is the one string the registry keeps beside
    # the files on purpose (rendered at build time).
    payload = total + stats["catalog"]
    g_embed = size["embed"] - size["embed-empty"]
    g_inc = size["include"] - size["include-empty"]
    rows = [
        ["`embed_skills!` (candidate)", f"{size['embed-empty']:,}", f"{size['embed']:,}",
         f"{g_embed:,}", f"{g_embed / total:.3f}", f"**{g_embed / payload:.3f}**"],
        ["`include_str!` (floor)", f"{size['include-empty']:,}", f"{size['include']:,}",
         f"{g_inc:,}", f"{g_inc / total:.3f}", ""],
    ]
    out = (f"Release binary (`opt-level = 3`, `strip = true`), {s.n_big} skills, "
           f"{total:,} bytes of SKILL.md ({total / s.n_big:.0f} B/skill), catalog "
           f"{stats['catalog']:,} bytes\n\n"
           + table(["crate", "empty bundle (B)", f"{s.n_big} skills (B)", "growth (B)",
                    "growth / file byte", "growth / (files + catalog) byte"], rows))
    ratio = g_embed / payload
    out += (f"\n\nGrowth per byte of files + catalog: **{ratio:.3f}** (target <= 1.05: "
            f"{'met' if ratio <= 1.05 else 'NOT met'}); per file byte {g_embed / total:.3f}, "
            f"floor {g_inc / total:.3f}; candidate/floor growth {g_embed / g_inc:.3f}x\n")

    # Section breakdown: which sections grew, candidate against floor.
    sec = {k: sections_of(p) for k, p in files.items()}
    names = sorted(set().union(*[set(v) for v in sec.values()]))
    rows = []
    for name in names:
        de = sec["embed"].get(name, 0) - sec["embed-empty"].get(name, 0)
        di = sec["include"].get(name, 0) - sec["include-empty"].get(name, 0)
        if de or di:
            rows.append([f"`{name}`", f"{de:,}", f"{di:,}", f"{de / s.n_big:.0f}",
                         f"{(de - di) / s.n_big:+.0f}"])
    out += ("\nWhere the growth goes (`size -A`, full bundle minus empty bundle):\n\n"
            + table(["section", "candidate growth (B)", "floor growth (B)",
                     "candidate B/skill", "candidate - floor B/skill"], rows))

    # Estimate from the registry itself: what is known exactly, then the rest.
    n = stats["skills"]
    relocs = sec["embed"].get(".rela.dyn", 0) - sec["embed-empty"].get(".rela.dyn", 0)
    est = [
        ["file text (`content`, once; every string of a skill is a range of it)",
         stats["content"]],
        ["Markdown catalog (name + description again)", stats["catalog"]],
        [f"`Skill` views ({stats['size_of_skill']} B each: bundle reference, index, record)",
         stats["size_of_skill"] * n],
        [f"dynamic relocations (measured `.rela.dyn` growth: {relocs // 24:,} x 24 B, "
         f"{relocs / 24 / n:.1f} per skill)", relocs],
        ["SHA-256, 32 raw bytes each (hex on first use)", 32 * n],
        ["names table (start, length and offset of each name, 6 B)", 6 * n],
        ["name index (2 B a slot, at least 2 slots a skill)",
         2 * (1 << max(1, (2 * n - 1).bit_length()))],
    ]
    known = sum(v for _, v in est)
    est.append(["the rest: records (LEB128 offsets of description, body and the "
                f"optional fields; {stats['skills_with_extra']} skills set one), the decoding "
                "code an empty bundle drops (`.text`), padding", g_embed - known])
    out += ("\n\nEstimate from the registry (`bench-embed --stats`); hex digests, source paths "
            f"({stats['path']:,} B), lists and the `load_skill` tool JSON "
            f"({stats['tool_anthropic'] + stats['tool_openai']:,} B) are computed on first use "
            "and not in the binary:\n\n"
            + table(["item", "bytes", "B/skill", "% of skill text"],
                    [[k, f"{v:,}", f"{v / n:.0f}", f"{100 * v / total:.1f}"] for k, v in est]
                    + [["measured growth", f"{g_embed:,}", f"{g_embed / n:.0f}",
                        f"{100 * g_embed / total:.1f}"]])
            + "\n")
    return out


# ---------------------------------------------------------------------------------------------
# 3. Registry::get at 10,000 skills
# ---------------------------------------------------------------------------------------------

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
GET_BENCHES = ("registry_get", "hashmap_get", "names_slice_binary_search")
# divan's default sample size (a few iterations) lets the cold first lookups of each sample
# dominate; 200 samples of 1,000 lookups each are stable.
DIVAN_ARGS = ["--sample-size", "1000", "--sample-count", "200"]
DIVAN_ROW = re.compile(r"(registry_get|hashmap_get|names_slice_binary_search)\s+([\d.]+)\s*(\S+)\s*│\s*([\d.]+)\s*(\S+)\s*│"
                       r"\s*([\d.]+)\s*(\S+)\s*│\s*([\d.]+)\s*(\S+)")


def bench_get(s: Setup, runs: int) -> str:
    s.get_crate()
    log(f"get: building the divan bench ({s.n_small} skills)")
    cargo(s.get, "bench", "--bench", "get", "--no-run")
    med: dict[str, list[float]] = {k: [] for k in GET_BENCHES}
    fastest: dict[str, list[float]] = {k: [] for k in GET_BENCHES}
    for r in range(runs):
        _, proc = cargo(s.get, "bench", "--bench", "get", "--", *DIVAN_ARGS)
        found = 0
        for m in DIVAN_ROW.finditer(proc.stdout):
            name = m.group(1)
            fastest[name].append(float(m.group(2)) * UNITS[m.group(3)])
            med[name].append(float(m.group(6)) * UNITS[m.group(7)])
            found += 1
        if found != len(GET_BENCHES):
            sys.exit(f"could not parse divan output:\n{proc.stdout}")
        log(f"get run {r + 1}/{runs}: registry {med['registry_get'][-1]:.1f} ns, "
            f"hashmap {med['hashmap_get'][-1]:.1f} ns")
    rows = []
    for key, label in (("registry_get", "`Registry::get` (compile-time hash index, candidate)"),
                       ("hashmap_get", "`HashMap<&str, &Skill>::get` (SipHash, baseline)"),
                       ("names_slice_binary_search",
                        "reference: `<[&str]>::binary_search` on a contiguous copy of the names")):
        rows.append([label, f"{median(med[key]):.1f}", f"{median(fastest[key]):.1f}",
                     " ".join(f"{x:.1f}" for x in med[key])])
    m = median(med["registry_get"])
    return (f"`get` of a name that exists, {s.n_small} skills, 1/10 of the names in a shuffled "
            f"order, divan `{' '.join(DIVAN_ARGS)}`, {runs} runs of the bench binary\n\n"
            + table(["lookup", "median ns", "fastest ns", "per-run medians (ns)"], rows)
            + f"\n\n`Registry::get` median **{m:.1f} ns** (target < 30 ns: "
            f"{'met' if m < 30 else 'NOT met'}); ratio to HashMap "
            f"{m / median(med['hashmap_get']):.2f}x\n")


# ---------------------------------------------------------------------------------------------
# 4. Start-up to printed catalog
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# 5. Clean build of a small crate embedding the demo bundle
# ---------------------------------------------------------------------------------------------

def bench_clean(s: Setup, rounds: int) -> str:
    s.demo_crates()
    crates = [("embed", s.demo_embed, "`embed_skills!(\"skills\")` of the demo bundle, default "
               "features (candidate)"),
              ("include_dir", s.demo_include_dir, "`include_dir!` + `serde-saphyr` parsing at "
               "start-up (baseline)")]
    # Each crate builds from nothing into a target directory of its own, removed before every
    # round; the downloads are done first and not timed.
    targets = {key: BENCH / f"clean-target-{key}" for key, _, _ in crates}
    outputs = {}
    for key, crate, _ in crates:
        log(f"clean: fetching the dependencies of {crate.name}")
        cargo(crate, "fetch", target=targets[key])
    times: dict[str, list[float]] = {key: [] for key, _, _ in crates}
    for r in range(rounds):
        for key, crate, _ in crates:
            shutil.rmtree(targets[key], ignore_errors=True)
            elapsed, _ = cargo(crate, "build", "--offline", target=targets[key])
            times[key].append(elapsed)
            exe = targets[key] / "debug" / crate_binary_name(crate)
            outputs[key] = subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout
        log(f"clean round {r + 1}/{rounds}: "
            + ", ".join(f"{k} {v[-1]:.1f}s" for k, v in times.items()))
    for target in targets.values():
        shutil.rmtree(target, ignore_errors=True)
    if outputs["embed"] != outputs["include_dir"]:
        sys.exit("the include_dir baseline does not print the same catalog as embed_skills!:\n"
                 f"{outputs['embed']}\n---\n{outputs['include_dir']}")
    base = median(times["include_dir"])
    rows = [[label, f"{median(times[key]):.1f}", f"{median(times[key]) / base:.2f}x",
             " ".join(f"{t:.1f}" for t in times[key])] for key, _, label in crates]
    ratio = median(times["embed"]) / base
    files = sum(1 for p in (SOURCE / "skills").rglob("*") if p.is_file())
    return (f"Clean `cargo build` (dev profile, dependencies included) of a crate printing the "
            f"catalog of the demo bundle `skills/` ({files} files), {rounds} round(s) interleaved, "
            "each from an empty target directory\n\n"
            + table(["crate", "median s", "/ baseline", "runs (s)"], rows)
            + f"\n\nRatio candidate/baseline: **{ratio:.2f}x** (target: no slower, <= 1.0x: "
            f"{'met' if ratio <= 1.0 else 'NOT met'})\n")


def crate_binary_name(crate: Path) -> str:
    match = re.search(r'^name = "([^"]+)"', (crate / "Cargo.toml").read_text(), re.M)
    return match.group(1) if match else crate.name


def run_once(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def bench_startup(s: Setup, runs: int) -> str:
    s.big_crates()
    s.scan_crate()
    for crate in (s.embed, s.include, s.scan):
        log(f"startup: release build of {crate.name}")
        cargo(crate, "build", "--release")
    skills_dir = str(s.embed / "skills")
    embed = [str(binary("bench-embed"))]
    scan = [str(binary("bench-scan")), skills_dir]
    floor = [str(binary("bench-include"))]
    a = subprocess.run(embed, capture_output=True, text=True, check=True).stdout
    b = subprocess.run(scan, capture_output=True, text=True, check=True).stdout
    if a != b:
        sys.exit("the scanning baseline does not print the same catalog as embed_skills!")
    times: dict[str, list[float]] = {"embed": [], "scan": [], "floor": []}
    for cmd in (embed, scan, floor):  # warm the page cache
        run_once(cmd)
    for _ in range(runs):
        times["embed"].append(run_once(embed))
        times["scan"].append(run_once(scan))
        times["floor"].append(run_once(floor))
    parts: dict[str, list[float]] = {"read_us": [], "parse_us": [], "render_us": []}
    for _ in range(max(5, runs // 3)):
        err = subprocess.run([scan[0], "--breakdown", skills_dir], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, check=True).stderr.split()
        for k, v in zip(err[::2], err[1::2]):
            parts[k].append(float(v))
    ms = {k: median(v) * 1e3 for k, v in times.items()}
    rows = [
        ["`embed_skills!` binary prints `SKILLS.catalog()` (candidate)", f"{ms['embed']:.2f}",
         f"{min(times['embed']) * 1e3:.2f}"],
        ["scan folder + read + serde-saphyr + render at start-up (baseline)", f"{ms['scan']:.2f}",
         f"{min(times['scan']) * 1e3:.2f}"],
        ["reference: process spawn (`include_str!` binary printing one line)",
         f"{ms['floor']:.2f}", f"{min(times['floor']) * 1e3:.2f}"],
    ]
    pr = {k: median(v) / 1e3 for k, v in parts.items()}
    return (f"Start-up to printed catalog ({len(a):,} bytes), {s.n_big} skills, {runs} runs each "
            "interleaved, wall time from Python `subprocess.run` (stdout to /dev/null)\n\n"
            + table(["program", "median ms", "min ms"], rows)
            + f"\n\nRatio baseline/candidate: **{ms['scan'] / ms['embed']:.1f}x** "
            f"(candidate minus spawn reference: {ms['embed'] - ms['floor']:.2f} ms; "
            f"baseline minus spawn reference: {ms['scan'] - ms['floor']:.2f} ms). "
            f"Inside the baseline (its own timers, median of {len(parts['read_us'])}): "
            f"read {pr['read_us']:.2f} ms, YAML parse {pr['parse_us']:.2f} ms, "
            f"render {pr['render_us']:.2f} ms.\n")


# ---------------------------------------------------------------------------------------------

def export(rev: str) -> tuple[Path, str]:
    """A clean export of `rev` (reused while the commit is) and its short hash."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout.strip()
    dest = BENCH / f"src-{sha[:12]}"
    if not (dest / "Cargo.toml").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest, sha[:12]


def export_rev(rev: str) -> None:
    """Points the generated crates at a clean export of `rev`."""
    global SOURCE, RUNTIME
    dest, sha = export(rev)
    SOURCE, RUNTIME = dest, dest / "skills-runtime"
    log(f"benchmarking {rev} = {sha} from {dest}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default="rebuild,size,get,startup,clean",
                   help="comma-separated subset of: rebuild, size, get, startup, clean")
    p.add_argument("--quick", action="store_true",
                   help="200 skills (2,000 for get), fewer rounds and runs")
    p.add_argument("--rounds", type=int, help="rebuild rounds per crate (default 5, quick 3)")
    p.add_argument("--no-release-rebuild", action="store_true",
                   help="measure the rebuild in the dev profile only")
    p.add_argument("--no-variants", action="store_true",
                   help="rebuild: only the candidate and the floor, not the two diagnostic variants")
    p.add_argument("--startup-runs", type=int, help="runs per binary (default 30, quick 10)")
    p.add_argument("--rev", help="benchmark this git revision (exported under target/bench/src-REV) "
                   "instead of the working tree, e.g. --rev HEAD while others have edits in flight")
    p.add_argument("--get-runs", type=int, help="runs of the divan bench (default 5, quick 2)")
    p.add_argument("--baseline-rev",
                   help="rebuild: also build the candidate (and the same without a build script) "
                   "of this git revision, interleaved in the same rounds, e.g. --baseline-rev main")
    p.add_argument("--no-scaling", action="store_true",
                   help="rebuild: leave out the check at ten times the skills")
    p.add_argument("--clean-rounds", type=int,
                   help="clean builds per crate (default 3, quick 1)")
    args = p.parse_args()
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = set(only) - {"rebuild", "size", "get", "startup", "clean"}
    if unknown:
        p.error(f"unknown measurement(s): {', '.join(sorted(unknown))}")
    BENCH.mkdir(parents=True, exist_ok=True)
    if args.rev:
        export_rev(args.rev)
    s = Setup(args.quick)
    if args.baseline_rev:
        dest, sha = export(args.baseline_rev)
        s.baseline_runtime, s.baseline_label = dest / "skills-runtime", f"`{sha}`"
    started = time.perf_counter()
    rev = subprocess.run(["git", "rev-parse", "--short=12", args.rev or "HEAD"], cwd=REPO,
                         capture_output=True, text=True).stdout.strip()
    what = f"commit {rev}" if args.rev else f"working tree (HEAD {rev}, uncommitted edits included)"
    print(f"# skills-rs benchmarks\n\nMachine: {machine_note()}.\nSource: {what}.\n"
          f"Command: `python3 bench/run.py {' '.join(sys.argv[1:])}`\n", flush=True)
    if "rebuild" in only:
        rounds = args.rounds or (3 if args.quick else 5)
        print("## Rebuild after editing one skill\n")
        print(bench_rebuild(s, rounds, release=not args.no_release_rebuild,
                            variants=not args.no_variants, scaling=not args.no_scaling),
              flush=True)
    if "size" in only:
        print("## Release binary growth per byte of skill text\n")
        print(bench_size(s), flush=True)
    if "get" in only:
        print("## `Registry::get` at 10,000 skills\n" if not args.quick else
              f"## `Registry::get` at {s.n_small} skills (--quick)\n")
        print(bench_get(s, args.get_runs or (2 if args.quick else 5)), flush=True)
    if "startup" in only:
        print("## Start-up to printed catalog\n")
        print(bench_startup(s, args.startup_runs or (10 if args.quick else 30)), flush=True)
    if "clean" in only:
        print("## Clean build of a crate embedding the demo bundle\n")
        print(bench_clean(s, args.clean_rounds or (1 if args.quick else 3)), flush=True)
    log(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
