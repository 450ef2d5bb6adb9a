//! The price of the `bash` tool's sandbox, end to end through the tool's own API
//! ([`Tool::call`], as the agent loop calls it: deny list, environment, sandbox, output
//! capture, timeout): `true` sandboxed (the default [`BashOptions`]) and unconfined
//! ([`BashOptions::unconfined`], what `--no-sandbox` runs), and three `sleep 0.5` calls at once,
//! as the tool calls of one turn run.
//!
//! ```text
//! cargo bench --bench bash -- [--runs N] [--json]
//! python3 bench/bash.py --baseline-rev REV   # the same harness built at REV, in one table
//! ```
//!
//! Prints the medians and 90th percentiles, and the CPU time per call of this process and the
//! processes it waited for; `--json` prints every sample instead, for `bench/bash.py`, which
//! runs this binary and one built from an older commit in alternating rounds.

use std::time::{Duration, Instant};

use serde_json::json;
use skills_runtime::agent::{Bash, BashOptions, Tool, ToolContext};

fn main() {
    // The sandbox's stages are this binary started again: the entry line comes first.
    skills_runtime::agent::sandbox::enter();
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let json = args.iter().any(|a| a == "--json");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(measure(runs, json));
}

/// Wall times of one row, in call order, and the CPU time of the whole row.
struct Sample {
    times: Vec<Duration>,
    cpu_ticks: u64,
}

async fn measure(runs: usize, json: bool) {
    let workdir = std::env::temp_dir().join(format!("bash-bench-{}", std::process::id()));
    std::fs::create_dir_all(&workdir).expect("a working directory");
    let context = ToolContext::new(&workdir).expect("the working directory opens");
    let sandboxed = Bash::new(BashOptions::default());
    let unconfined = Bash::new(BashOptions::unconfined());
    let rounds = (runs / 20).max(3);

    let true_sandboxed = sample(runs, || call(&sandboxed, &context, "true")).await;
    let true_unconfined = sample(runs, || call(&unconfined, &context, "true")).await;
    let parallel_sandboxed = sample(rounds, || three(&sandboxed, &context)).await;
    let parallel_unconfined = sample(rounds, || three(&unconfined, &context)).await;
    let _ = std::fs::remove_dir_all(&workdir);

    let rows = [
        ("true_sandboxed", &true_sandboxed),
        ("true_unconfined", &true_unconfined),
        ("parallel_sandboxed", &parallel_sandboxed),
        ("parallel_unconfined", &parallel_unconfined),
    ];
    if json {
        let mut out = serde_json::Map::new();
        for (name, sample) in rows {
            let ms: Vec<f64> = sample.times.iter().map(|t| ms(*t)).collect();
            out.insert(
                name.to_owned(),
                json!({"ms": ms, "cpu_ticks": sample.cpu_ticks}),
            );
        }
        println!("{}", serde_json::Value::Object(out));
        return;
    }
    println!("runs per `true` row: {runs}; rounds per parallel row: {rounds}");
    println!("| row | median | p90 | CPU per call |");
    println!("|---|---:|---:|---:|");
    let ticks = clock_ticks_per_second();
    for (name, sample) in rows {
        let mut sorted = sample.times.clone();
        sorted.sort();
        let cpu = sample.cpu_ticks as f64 * 1000.0 / ticks / sorted.len() as f64;
        println!(
            "| {name} | {:.2} ms | {:.2} ms | {cpu:.2} ms |",
            ms(sorted[sorted.len() / 2]),
            ms(sorted[sorted.len() * 9 / 10]),
        );
    }
}

/// `command` through the tool; it must succeed.
async fn call(bash: &Bash, context: &ToolContext, command: &str) {
    let input = json!({ "command": command });
    match bash.call(&input, context).await {
        Ok(output) => assert_eq!(output, "(no output)", "{command}"),
        Err(error) => panic!("{command}: {error}"),
    }
}

/// Three `sleep 0.5` calls at once, as the tool calls of one turn run.
async fn three(bash: &Bash, context: &ToolContext) {
    tokio::join!(
        call(bash, context, "sleep 0.5"),
        call(bash, context, "sleep 0.5"),
        call(bash, context, "sleep 0.5"),
    );
}

/// `runs` timed runs of `run`, after three untimed ones.
async fn sample<F: Future<Output = ()>>(runs: usize, mut run: impl FnMut() -> F) -> Sample {
    for _ in 0..3 {
        run().await;
    }
    let cpu_before = cpu_ticks();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        run().await;
        times.push(started.elapsed());
    }
    Sample {
        times,
        cpu_ticks: cpu_ticks().saturating_sub(cpu_before),
    }
}

/// User and system time of this process and of its waited-for descendants, in clock ticks
/// (`/proc/self/stat`, fields 14 to 17).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("a command name") + 1..];
    after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|field| field.parse::<u64>().expect("a tick count"))
        .sum()
}

/// Linux's `USER_HZ`, which `/proc` counts in: 100 on every architecture it supports.
fn clock_ticks_per_second() -> f64 {
    100.0
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
