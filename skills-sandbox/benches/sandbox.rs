//! The price of the sandbox: `bash -c true` run directly (the baseline), in the namespace
//! sandbox, in the fallback (Landlock and seccomp only) and in bubblewrap (the anchor: `bwrap`
//! with user, network, PID, IPC and UTS namespaces, the same system folders read-only, `/proc`,
//! `/dev`, a `tmpfs` at `/tmp` and the working directory bound), each spawned and waited on as a
//! caller does; then three parallel `sleep 0.5` calls, directly and sandboxed.
//!
//! The `bash -c true` rows are measured interleaved: each round runs every row once, in an order
//! that rotates from round to round, so that a busy machine (other builds on the same cores)
//! weighs on every row alike. Prints a table of medians and 90th percentiles, each row's overhead
//! over the direct call, the ratio of our overhead to bubblewrap's, and the CPU time each call
//! costs (this process and everything it started), which a busy machine changes less than the
//! wall time.
//!
//! ```text
//! cargo bench -p skills-sandbox --bench sandbox              # optionally -- --runs N
//! ```
//!
//! bubblewrap is the baseline's only dependency (the benchmark's, not the crate's): install it
//! with `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora) or
//! `pacman -S bubblewrap` (Arch). Without it the row is left out and the benchmark says so.
//!
//! Like a program using the crate, its `main` calls `skills_sandbox::enter()` first.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skills_sandbox::{Policy, Prepared, SYSTEM_READ_ONLY};

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
    let workdir = std::fs::canonicalize(workdir.path()).expect("a canonical working directory");
    let workdir = workdir.as_path();
    let namespaces = Policy::default();
    let fallback = Policy::fallback();
    let started = Instant::now();
    let confinement = namespaces
        .probe()
        .expect("the sandbox works here")
        .expect("the sandbox is on");
    let probe = started.elapsed();
    println!("confinement: {confinement}");
    println!("probe (once per process): {:.2} ms", ms(probe));
    println!(
        "rounds: {runs}, each running every row once; kernel {}; load average {}",
        kernel(),
        load_average()
    );
    let bwrap = bwrap_command(workdir);
    if bwrap.is_none() {
        println!(
            "bubblewrap is not installed: its row is left out (apt-get install bubblewrap, \
             dnf install bubblewrap or pacman -S bubblewrap)"
        );
    }
    println!();

    let mut rows: Vec<Row<'_>> = vec![
        ("direct (baseline)", Box::new(|| direct(&["-c", "true"]))),
        (
            "namespace sandbox",
            Box::new(|| sandboxed(&namespaces, workdir, &["-c", "true"])),
        ),
        (
            "fallback (Landlock + seccomp)",
            Box::new(|| sandboxed(&fallback, workdir, &["-c", "true"])),
        ),
    ];
    if let Some(bwrap) = &bwrap {
        rows.push(("bubblewrap (`bwrap`)", Box::new(move || run(bwrap))));
    }
    let samples = interleaved(runs, &rows);
    println!(
        "| `bash -c true` | median | p90 | median / direct | overhead (median) | overhead / \
         bubblewrap's | CPU per call |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let plain = &samples[0];
    let bwrap_overhead = bwrap.as_ref().map(|_| overhead(&samples[3], plain));
    for ((name, _), sample) in rows.iter().zip(&samples) {
        row(name, sample, plain, bwrap_overhead);
    }
    println!();

    let rounds = (runs / 30).max(3);
    let parallel_direct = sample(rounds, || parallel(|| direct(&["-c", "sleep 0.5"])));
    let parallel_sandboxed = sample(rounds, || {
        parallel(|| sandboxed(&namespaces, workdir, &["-c", "sleep 0.5"]))
    });
    println!(
        "| three parallel `sleep 0.5` | median | p90 | median / direct | overhead (median) | | \
         CPU per round |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    row(
        "direct (baseline)",
        &parallel_direct,
        &parallel_direct,
        None,
    );
    row(
        "namespace sandbox",
        &parallel_sandboxed,
        &parallel_direct,
        None,
    );
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

fn run(command: &[String]) {
    let status = Command::new(&command[0])
        .args(&command[1..])
        .env_clear()
        .env("PATH", PATH)
        .stdin(Stdio::null())
        .status()
        .expect("the command runs");
    assert!(status.success(), "{command:?}: {status}");
}

/// `bwrap` with what our sandbox has that bubblewrap can express without a helper: user,
/// network, PID, IPC and UTS namespaces, a new session, death with its parent, the system
/// folders of [`SYSTEM_READ_ONLY`] read-only (a symbolic link among them recreated, as ours
/// does), `/proc`, `/dev`, a `tmpfs` at `/tmp`, and the working directory read-write. `None`
/// without `bwrap`, or when it cannot build this sandbox here.
fn bwrap_command(workdir: &Path) -> Option<Vec<String>> {
    let mut command: Vec<String> = [
        "bwrap",
        "--unshare-user",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--new-session",
        "--die-with-parent",
    ]
    .map(str::to_owned)
    .to_vec();
    for path in SYSTEM_READ_ONLY {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if meta.is_symlink() {
            let target = std::fs::read_link(path).ok()?;
            command.extend([
                "--symlink".to_owned(),
                target.to_string_lossy().into_owned(),
            ]);
        } else {
            command.extend(["--ro-bind".to_owned(), (*path).to_owned()]);
        }
        command.push((*path).to_owned());
    }
    let workdir = workdir.to_string_lossy().into_owned();
    command.extend(
        [
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", &workdir, &workdir,
            "--chdir", &workdir, "bash", "-c", "true",
        ]
        .map(str::to_owned),
    );
    let works = Command::new(&command[0])
        .args(&command[1..])
        .env_clear()
        .env("PATH", PATH)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    works.then_some(command)
}

/// A row of the interleaved table: its name, and one run of it.
type Row<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// What the runs of one row took.
struct Sample {
    /// Wall times, sorted.
    times: Vec<Duration>,
    /// CPU time per run, of this process and of every process it started.
    cpu: Duration,
}

/// `runs` rounds, each running every row once (after a few unmeasured rounds), the order
/// rotating from round to round.
fn interleaved(runs: usize, rows: &[Row<'_>]) -> Vec<Sample> {
    for _ in 0..3 {
        for (_, call) in rows {
            call();
        }
    }
    let mut times = vec![Vec::with_capacity(runs); rows.len()];
    let mut cpu = vec![Duration::ZERO; rows.len()];
    for round in 0..runs {
        for offset in 0..rows.len() {
            let index = (round + offset) % rows.len();
            let cpu_before = cpu_time();
            let started = Instant::now();
            (rows[index].1)();
            times[index].push(started.elapsed());
            cpu[index] += cpu_time().saturating_sub(cpu_before);
        }
    }
    times
        .into_iter()
        .zip(cpu)
        .map(|(mut times, cpu)| {
            times.sort();
            Sample {
                times,
                cpu: cpu / runs as u32,
            }
        })
        .collect()
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

/// The median's overhead over the baseline's median, in milliseconds.
fn overhead(sample: &Sample, baseline: &Sample) -> f64 {
    ms(percentile(&sample.times, 50)) - ms(percentile(&baseline.times, 50))
}

fn row(name: &str, sample: &Sample, baseline: &Sample, bwrap_overhead: Option<f64>) {
    let median = percentile(&sample.times, 50);
    let base = percentile(&baseline.times, 50);
    let own = overhead(sample, baseline);
    let against_bwrap = match bwrap_overhead {
        Some(bwrap) if bwrap > 0.0 && own > 0.0 => format!("{:.2}x", own / bwrap),
        _ => String::new(),
    };
    println!(
        "| {name} | {:.2} ms | {:.2} ms | {:.2}x | {own:+.2} ms | {against_bwrap} | {:.2} ms |",
        ms(median),
        ms(percentile(&sample.times, 90)),
        median.as_secs_f64() / base.as_secs_f64(),
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

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
