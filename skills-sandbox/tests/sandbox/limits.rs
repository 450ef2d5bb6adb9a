//! Resource limits: a fork bomb and a memory hog end bounded; CPU time, file size and open
//! files are capped.

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Limits, Policy};

use crate::support::{Outcome, bash, passed, processes_in, python, site, spawn, trial, without};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial("limits_forks_stop_at_the_process_limit", forks_counted),
        trial("limits_a_fork_bomb_ends_bounded", fork_bomb),
        trial("limits_a_memory_hog_ends_bounded", memory_hog),
        trial("limits_cpu_time_is_capped", cpu_time),
        trial("limits_file_size_is_capped", file_size),
        trial("limits_open_files_are_capped", open_files),
        trial(
            "limits_four_parallel_calls_filling_tmp_and_shm_hold_one_cap_each",
            memory_files,
        ),
    ]
}

/// The process limit of these tests (the kernel's smallest `pid_max` is 301, so a root
/// caller's cap is at least that).
const PROCESSES: u64 = 300;

fn limited(limits: Limits) -> Policy {
    Policy {
        limits,
        ..Policy::default()
    }
}

fn forks_counted() -> Outcome {
    skip_if!(without(Guarantee::ProcessLimit));
    let site = site();
    let policy = limited(Limits {
        processes: Some(PROCESSES),
        ..Limits::default()
    });
    let run = python(
        &policy,
        &site.work,
        "import os, time\n\
         count = 0\n\
         while count < 5000:\n    \
         try: pid = os.fork()\n    \
         except OSError as e: print(count, e.errno); break\n    \
         if pid == 0: time.sleep(30); os._exit(0)\n    \
         count += 1",
    );
    let out = run.ok();
    let (count, errno) = out.trim().split_once(' ').expect("count and errno");
    let count: u64 = count.parse().unwrap();
    // EAGAIN once the limit is reached: near it, not before.
    assert_eq!(errno, "11", "{out}");
    assert!(
        (PROCESSES - 10..=PROCESSES).contains(&count),
        "{count} forks"
    );
    passed()
}

fn fork_bomb() -> Outcome {
    skip_if!(without(Guarantee::ProcessLimit));
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let policy = limited(Limits {
        processes: Some(PROCESSES),
        ..Limits::default()
    });
    let mut running = spawn(
        &policy,
        &site.work,
        "bash",
        &["-c", ":(){ :|:& };:; sleep 100"],
        |_| {},
    );
    let started = Instant::now();
    let mut namespace = None;
    let mut most = 0;
    // The caller's timeout: three seconds of the bomb, sampled.
    while started.elapsed() < Duration::from_secs(3) {
        namespace = namespace.or_else(|| running.pid_namespace());
        if let Some(namespace) = &namespace {
            most = most.max(processes_in(namespace).len());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    running.child.kill().unwrap();
    let status = running.child.wait().unwrap();
    running.call.finish(status).unwrap();
    let namespace = namespace.expect("the sandbox's PID namespace");
    assert!(most > 10, "the bomb did not go off ({most} processes)");
    // The limit, and the init stage beside it.
    assert!(most as u64 <= PROCESSES + 2, "{most} processes at once");
    let left = crate::support::wait_until_empty(&namespace, Duration::from_secs(10));
    assert!(left.is_empty(), "{} processes left", left.len());
    passed()
}

fn memory_hog() -> Outcome {
    let site = site();
    let policy = limited(Limits {
        address_space: Some(512 << 20),
        ..Limits::default()
    });
    let started = Instant::now();
    let run = python(
        &policy,
        &site.work,
        "small = bytearray(64 << 20); print('small ok')\n\
         try:\n    hog = bytearray(2 << 30); print('hog allocated')\n\
         except MemoryError: print('refused')",
    );
    assert_eq!(run.ok(), "small ok\nrefused\n", "{}", run.output());
    assert!(started.elapsed() < Duration::from_secs(20));
    // The default limit refuses more than 8 GiB at once.
    let default = python(
        &Policy::default(),
        &site.work,
        "try:\n    hog = bytearray(16 << 30); print('hog allocated')\nexcept MemoryError: print('refused')",
    );
    assert_eq!(default.ok(), "refused\n", "{}", default.output());
    passed()
}

fn cpu_time() -> Outcome {
    let site = site();
    let policy = limited(Limits {
        cpu_seconds: Some(1),
        ..Limits::default()
    });
    let started = Instant::now();
    let run = bash(&policy, &site.work, "exec python3 -c 'while True: pass'");
    let took = started.elapsed();
    let signal = run.status().signal();
    // SIGKILL at the hard limit (or SIGXCPU on the way there).
    assert!(matches!(signal, Some(9) | Some(24)), "{:?}", run.status());
    assert!(took < Duration::from_secs(15), "took {took:?}");
    passed()
}

fn file_size() -> Outcome {
    let site = site();
    let policy = limited(Limits {
        file_size: Some(1 << 20),
        ..Limits::default()
    });
    let run = bash(
        &policy,
        &site.work,
        "exec dd if=/dev/zero of=big bs=65536 count=64 status=none",
    );
    // SIGXFSZ at the limit.
    assert_eq!(
        run.status().signal(),
        Some(25),
        "{:?} {}",
        run.status(),
        run.output()
    );
    assert!(std::fs::metadata(site.work.join("big")).unwrap().len() <= 1 << 20);
    passed()
}

fn open_files() -> Outcome {
    let site = site();
    let policy = limited(Limits {
        open_files: Some(64),
        ..Limits::default()
    });
    let run = python(
        &policy,
        &site.work,
        "files = []\n\
         try:\n    for i in range(200): files.append(open('/dev/null'))\n\
         except OSError as e: print(len(files), e.errno)",
    );
    let out = run.ok();
    let (count, errno) = out.trim().split_once(' ').expect("count and errno");
    assert_eq!(errno, "24", "{out}");
    assert!(count.parse::<u32>().unwrap() < 64, "{out}");
    passed()
}

/// The memory files of the test calls.
const MEMORY_CAP: u64 = 16 << 20;

fn memory_files() -> Outcome {
    skip_if!(without(Guarantee::PrivateTmp));
    let site = site();
    let policy = limited(Limits {
        tmp_size: MEMORY_CAP,
        ..Limits::default()
    });
    // Each call writes twice the cap to /tmp, then twice the cap to /dev/shm, and says how
    // much it holds and what its two file systems are.
    let fill = "head -c 33554432 /dev/zero > /tmp/fill 2>/dev/null; \
                head -c 33554432 /dev/zero > /dev/shm/fill 2>/dev/null; \
                echo $(( $(stat -c %s /tmp/fill) + $(stat -c %s /dev/shm/fill) )); \
                stat -f -c '%i %b %S' /tmp /dev/shm";
    let outputs: Vec<String> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| bash(&policy, &site.work, fill).ok().to_owned()))
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    for out in &outputs {
        let mut lines = out.lines();
        let held: u64 = lines
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(u64::MAX);
        assert!(held <= MEMORY_CAP, "a call holds {held} bytes:\n{out}");
        assert!(held >= MEMORY_CAP / 2, "the files were not written:\n{out}");
        // One file system for both, of the cap's size.
        let (tmp, shm) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
        assert_eq!(tmp, shm, "{out}");
        let size: u64 = tmp
            .split(' ')
            .skip(1)
            .map(|n| n.parse::<u64>().unwrap_or(0))
            .product();
        assert_eq!(size, MEMORY_CAP, "{out}");
    }
    // Four calls, four file systems of their own.
    let ids: std::collections::BTreeSet<&str> = outputs
        .iter()
        .filter_map(|out| out.lines().nth(1)?.split(' ').next())
        .collect();
    assert_eq!(ids.len(), 4, "{outputs:?}");
    // A call allowed less memory per process than the files' default gets no more in files.
    let small = limited(Limits {
        address_space: Some(256 << 20),
        ..Limits::default()
    });
    let run = bash(&small, &site.work, "stat -f -c '%b %S' /tmp");
    let size: u64 = run
        .ok()
        .split_whitespace()
        .map(|n| n.parse::<u64>().unwrap_or(0))
        .product();
    assert_eq!(size, 256 << 20, "{}", run.output());
    passed()
}
