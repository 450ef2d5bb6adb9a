//! Processes: nothing a call starts outlives it (a 1,200-deep chain of sessions included),
//! whether the command exits or the caller kills it; calls run in parallel; exit codes and
//! signals come back; the command sees its own `/proc` and cannot signal out; no terminal.

use std::io::Read;
use std::time::{Duration, Instant};

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Policy, Prepared};

use crate::support::{
    Outcome, PATH, alive, bash, passed, processes_in, sandbox_pid_namespace, site, skipped, spawn,
    trial, wait_until_empty, without,
};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "processes_a_chain_of_1200_sessions_ends_when_the_command_exits",
            chain_exits,
        ),
        trial(
            "processes_a_chain_of_1200_sessions_ends_when_the_call_is_killed",
            chain_killed,
        ),
        trial(
            "processes_background_processes_do_not_outlive_the_call",
            background,
        ),
        trial(
            "processes_three_parallel_half_second_calls_take_well_under_a_second",
            parallel,
        ),
        trial("processes_a_cancelled_async_call_leaves_nothing", cancelled),
        trial("processes_exit_codes_and_signals_come_back", statuses),
        trial("processes_the_command_sees_its_own_proc_only", own_proc),
        trial("processes_no_signal_reaches_a_process_outside", signals_out),
        trial(
            "processes_the_command_has_no_controlling_terminal",
            no_terminal,
        ),
    ]
}

/// Depth of the chain the attack built.
const DEPTH: usize = 1200;

/// Python forking a linear chain of `DEPTH` processes, each in its own session; every link
/// but the first becomes a `sleep` once it has forked the next. The deepest prints `deep`; the
/// first waits for the file `release` (or forever) and exits.
fn chain_script() -> String {
    format!(
        "import os, time\n\
         depth = 0\n\
         while depth < {DEPTH}:\n    \
         if os.fork():\n        break\n    \
         os.setsid(); depth += 1\n\
         if depth == {DEPTH}: print('deep', flush=True)\n\
         if depth == 0:\n    \
         while not os.path.exists('release'): time.sleep(0.05)\n\
         else: os.execv('/bin/sleep', ['sleep', '1000'])"
    )
}

/// The chain, built: the sandbox running it, its PID namespace, and how many processes are in it
/// (checked to be the whole chain).
fn build_chain(site: &crate::support::Site) -> (crate::support::Running, String, usize) {
    let mut running = spawn(
        &Policy::default(),
        &site.work,
        "python3",
        &["-c", &chain_script()],
        |_| {},
    );
    let (line, _rest) = running.first_line();
    assert_eq!(line, "deep");
    let namespace = running
        .pid_namespace()
        .expect("the sandbox's PID namespace");
    let alive = processes_in(&namespace).len();
    assert!(alive > DEPTH, "only {alive} processes in the chain");
    (running, namespace, alive)
}

fn chain_exits() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let (mut running, namespace, alive) = build_chain(&site);
    std::fs::write(site.work.join("release"), "").unwrap();
    let status = running.wait_or_kill(Duration::from_secs(60));
    let finished = running.call.finish(status).unwrap();
    assert!(finished.status.success(), "{finished:?}");
    // The spawned process ends only once the namespace is empty: nothing to wait for.
    let left = processes_in(&namespace);
    assert!(
        left.is_empty(),
        "{} of {alive} processes left: {left:?}",
        left.len()
    );
    passed()
}

fn chain_killed() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let (mut running, namespace, alive) = build_chain(&site);
    // A timeout or a cancelled call: the caller kills the process it spawned.
    running.child.kill().unwrap();
    let status = running.child.wait().unwrap();
    let finished = running.call.finish(status).unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&finished.status),
        Some(9)
    );
    // The kernel kills the whole namespace at once and finishes within moments.
    let left = wait_until_empty(&namespace, Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "{} of {alive} processes left: {left:?}",
        left.len()
    );
    passed()
}

fn background() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let mut running = spawn(
        &Policy::default(),
        &site.work,
        "bash",
        &[
            "-c",
            "sleep 1000 & (sleep 1001 &); setsid sleep 1002 & (setsid bash -c 'sleep 1003 &' &); \
             nohup sleep 1004 >/dev/null 2>&1 & echo started; sleep 0.2",
        ],
        |_| {},
    );
    let (line, _rest) = running.first_line();
    assert_eq!(line, "started");
    let namespace = running
        .pid_namespace()
        .expect("the sandbox's PID namespace");
    assert!(processes_in(&namespace).len() >= 5);
    let started = Instant::now();
    let status = running.wait_or_kill(Duration::from_secs(30));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the call waited for its children"
    );
    running
        .call
        .finish(status)
        .unwrap()
        .status
        .success()
        .then_some(())
        .expect("exit 0");
    let left = processes_in(&namespace);
    assert!(left.is_empty(), "left: {left:?}");
    passed()
}

fn parallel() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let policy = Policy::default();
    // Once, so that the timing below is of the calls themselves.
    bash(&policy, &site.work, "true").ok();
    let started = Instant::now();
    std::thread::scope(|scope| {
        let calls: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| bash(&policy, &site.work, "sleep 0.5")))
            .collect();
        for call in calls {
            call.join().unwrap().ok();
        }
    });
    let took = started.elapsed();
    // One after the other they would take 1.5 s.
    assert!(
        took < Duration::from_secs(1),
        "three 0.5 s calls took {took:?}"
    );
    passed()
}

fn cancelled() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let Prepared { command, call } = Policy::default()
        .prepare(&site.work, "bash", ["-c", "setsid sleep 1000 & sleep 1000"])
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let namespace = runtime.block_on(async {
        let mut command = tokio::process::Command::from(command);
        command.env("PATH", PATH).kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let pid = child.id().unwrap();
        let mut namespace = None;
        while namespace.is_none() {
            tokio::time::sleep(Duration::from_millis(20)).await;
            namespace = sandbox_pid_namespace(pid).filter(|ns| processes_in(ns).len() >= 3);
        }
        // The caller gives up: the future holding the child is dropped.
        let gave_up = tokio::time::timeout(Duration::from_millis(200), child.wait()).await;
        assert!(gave_up.is_err(), "the call should still have been running");
        namespace.unwrap()
    });
    drop(runtime);
    drop(call);
    let left = wait_until_empty(&namespace, Duration::from_secs(10));
    assert!(left.is_empty(), "left after the cancelled call: {left:?}");
    passed()
}

fn statuses() -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    let site = site();
    let policy = Policy::default();
    let exited = bash(&policy, &site.work, "exit 3");
    assert_eq!(exited.status().code(), Some(3));
    assert_eq!(exited.raw.code(), Some(3));
    for (signal, script) in [
        (15, "kill -TERM $$"),
        (11, "kill -SEGV $$"),
        (9, "kill -KILL $$"),
        (6, "exec python3 -c 'import os; os.abort()'"),
    ] {
        let run = bash(&policy, &site.work, script);
        assert_eq!(
            run.status().signal(),
            Some(signal),
            "{script}: {:?}",
            run.status()
        );
        // The spawned process ends the same way, for a caller that reads only its status.
        assert_eq!(
            run.raw.signal(),
            Some(signal),
            "{script}: raw {:?}",
            run.raw
        );
    }
    passed()
}

fn own_proc() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "ls /proc | grep -c '^[0-9]'; tr '\\0' ' ' < /proc/1/cmdline; echo; \
         cat /proc/1/environ >/dev/null 2>&1; echo environ=$?; kill -KILL 1; echo kill=$?; \
         ps -e -o pid= | wc -l",
    );
    let out = run.ok();
    let lines: Vec<&str> = out.lines().collect();
    let processes: usize = lines[0].trim().parse().unwrap();
    // init, bash, and the commands of the pipeline: not the host's hundreds.
    assert!(processes < 10, "{out}");
    // The init stage: a fork of the first stage, named so.
    assert!(lines[1].starts_with("skills-sandbox"), "{out}");
    assert_eq!(
        lines[2], "environ=1",
        "the init stage's environment is readable:\n{out}"
    );
    assert_eq!(lines[3], "kill=1", "{out}");
    passed()
}

fn signals_out() -> Outcome {
    skip_if!(without(Guarantee::NoSignalsOut));
    let site = site();
    let mut victim = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!("kill -9 {} $PPID; echo after", victim.id()),
    );
    assert!(run.ok().contains("after"), "{}", run.output());
    assert!(alive(victim.id()), "the victim was killed");
    victim.kill().unwrap();
    victim.wait().unwrap();
    passed()
}

/// Set while the test runs again inside `script`, which gives it a controlling terminal.
const WITH_TERMINAL: &str = "SKILLS_SANDBOX_TEST_TERMINAL";

fn no_terminal() -> Outcome {
    if std::env::var_os(WITH_TERMINAL).is_none() {
        return rerun_with_a_terminal();
    }
    // Inside `script`: the test process has a controlling terminal...
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/tty")
        .expect("script gives this process a terminal");
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "echo planted > /dev/tty; echo rc=$?",
    );
    // ...the sandboxed command has none.
    assert!(
        run.output().contains("No such device or address"),
        "{}",
        run.output()
    );
    assert!(run.stdout.starts_with("rc=1\n"), "{}", run.output());
    passed()
}

/// Runs this test again under `script`, and passes if it passes there.
fn rerun_with_a_terminal() -> Outcome {
    let Ok(script) = which("script") else {
        return skipped("needs `script` (util-linux) to give the test a terminal");
    };
    let exe = std::env::current_exe().unwrap();
    let line = format!(
        "{} --exact processes_the_command_has_no_controlling_terminal --test-threads=1",
        exe.display()
    );
    let mut child = std::process::Command::new(script)
        .args(["-qec", &line, "/dev/null"])
        .env(WITH_TERMINAL, "1")
        // `script` runs the line with $SHELL, which is nologin for `nobody`.
        .env("SHELL", "/bin/sh")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success() && out.contains("1 passed"),
        "under script: {status}\n{out}"
    );
    passed()
}

fn which(program: &str) -> Result<std::path::PathBuf, ()> {
    PATH.split(':')
        .map(|dir| std::path::Path::new(dir).join(program))
        .find(|path| path.is_file())
        .ok_or(())
}
