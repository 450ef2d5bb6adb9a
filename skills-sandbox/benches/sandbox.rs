//! The price of the sandbox: `bash -c true` run directly (the baseline), in the namespace
//! sandbox and in the fallback (Landlock and seccomp only), each spawned and waited on as a
//! caller does; then three parallel `sleep 0.5` calls, directly and sandboxed. Prints a table
//! of medians and 90th percentiles, as ratios of the baseline measured in the same run, and the
//! CPU time each call costs (this process and everything it started), which a busy machine
//! changes less than the wall time.
//!
//! `cargo bench -p skills-sandbox` (optionally `-- --runs N`, default 300). Like a program
//! using the crate, its `main` calls `skills_sandbox::enter()` first.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skills_sandbox::{Policy, Prepared};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn main() {
    skills_sandbox::enter();
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let workdir = tempfile::tempdir().expect("a working directory");
    let workdir = workdir.path();
    let namespaces = Policy::default();
    let fallback = Policy::fallback();
    let started = Instant::now();
    let confinement = namespaces.probe().expect("the sandbox works here");
    let probe = started.elapsed();
    println!("confinement: {confinement}");
    println!("probe (once per process): {:.2} ms", ms(probe));
    println!("runs per row: {runs}; kernel {}", kernel());
    println!();

    let plain = sample(runs, || direct(&["-c", "true"]));
    let in_namespaces = sample(runs, || sandboxed(&namespaces, workdir, &["-c", "true"]));
    let in_fallback = sample(runs, || sandboxed(&fallback, workdir, &["-c", "true"]));
    println!(
        "| `bash -c true` | median | p90 | median / direct | overhead (median) | CPU per call |"
    );
    println!("|---|---|---|---|---|---|");
    row("direct (baseline)", &plain, &plain);
    row("namespace sandbox", &in_namespaces, &plain);
    row("fallback (Landlock + seccomp)", &in_fallback, &plain);
    println!();

    let rounds = (runs / 30).max(3);
    let parallel_direct = sample(rounds, || parallel(|| direct(&["-c", "sleep 0.5"])));
    let parallel_sandboxed = sample(rounds, || {
        parallel(|| sandboxed(&namespaces, workdir, &["-c", "sleep 0.5"]))
    });
    println!(
        "| three parallel `sleep 0.5` | median | p90 | median / direct | overhead (median) | CPU per round |"
    );
    println!("|---|---|---|---|---|---|");
    row("direct (baseline)", &parallel_direct, &parallel_direct);
    row("namespace sandbox", &parallel_sandboxed, &parallel_direct);
}

fn direct(args: &[&str]) {
    let status = Command::new("bash")
        .args(args)
        .env_clear()
        .env("PATH", PATH)
        .stdin(Stdio::null())
        .status()
        .expect("bash runs");
    assert!(status.success());
}

fn sandboxed(policy: &Policy, workdir: &Path, args: &[&str]) {
    let Prepared { mut command, call } = policy.prepare(workdir, "bash", args).expect("prepared");
    let status = command
        .env("PATH", PATH)
        .stdin(Stdio::null())
        .status()
        .expect("the sandbox starts");
    let finished = call.finish(status).expect("the sandbox works");
    assert!(finished.status.success());
}

/// Three runs of `call` at once; the wall time is the sample.
fn parallel(call: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        let calls: Vec<_> = (0..3).map(|_| scope.spawn(&call)).collect();
        for handle in calls {
            handle.join().expect("a call");
        }
    });
}

/// What `runs` runs of `call` took, after a few unmeasured ones.
struct Sample {
    /// Wall times, sorted.
    times: Vec<Duration>,
    /// CPU time per run, of this process and of every process it started.
    cpu: Duration,
}

fn sample(runs: usize, mut call: impl FnMut()) -> Sample {
    for _ in 0..3 {
        call();
    }
    let cpu_before = cpu_time();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            call();
            started.elapsed()
        })
        .collect();
    let cpu = cpu_time().saturating_sub(cpu_before) / runs as u32;
    times.sort();
    Sample { times, cpu }
}

/// User and system time of this process and of its waited-for descendants, from
/// `/proc/self/stat` (fields 14 to 17, in clock ticks).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("a command name") + 1..];
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|field| field.parse::<u64>().expect("a tick count"))
        .sum();
    let per_second = rustix::param::clock_ticks_per_second();
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

fn row(name: &str, sample: &Sample, baseline: &Sample) {
    let median = percentile(&sample.times, 50);
    let base = percentile(&baseline.times, 50);
    println!(
        "| {name} | {:.2} ms | {:.2} ms | {:.2}x | {:+.2} ms | {:.2} ms |",
        ms(median),
        ms(percentile(&sample.times, 90)),
        median.as_secs_f64() / base.as_secs_f64(),
        ms(median) - ms(base),
        ms(sample.cpu),
    );
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() - 1) * p / 100]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|r| r.trim().to_owned())
        .unwrap_or_default()
}
