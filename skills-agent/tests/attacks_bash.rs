//! Hostile `bash` calls, as a scripted model would send them, against the kernel confinement,
//! the environment allowlist and the process cleanup. Each test reproduces one attack and
//! asserts it now fails safely.
//!
//! The Landlock tests need a kernel with Landlock; elsewhere they print why they are skipped
//! and return (they never pass silently on an unconfined run).
#![cfg(target_os = "linux")]

mod agent_support;

use std::path::Path;
use std::time::{Duration, Instant};

use agent_support::{HostileSite as Site, SECRET, hostile_site as site, process_alive as alive};
use serde_json::json;
use skills_runtime::agent::{Bash, BashOptions, Sandbox, Tool, ToolErrorKind};

/// Whether this kernel enforces every rule; prints the reason to skip when not.
fn landlock_or_skip(test: &str) -> bool {
    let confinement = Sandbox::default().probe(Path::new("."));
    if confinement.is_full() {
        true
    } else {
        eprintln!("SKIPPED {test}: bash would run {confinement}");
        false
    }
}

async fn run(bash: &Bash, site: &Site, command: &str) -> String {
    match bash
        .call(&json!({ "command": command }), &site.context)
        .await
    {
        Ok(out) => out,
        Err(error) => error.to_result_text(),
    }
}

fn pids(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("pid="))
        .map(|pid| pid.parse().unwrap())
        .collect()
}

#[tokio::test]
async fn system_files_and_siblings_of_the_workdir_cannot_be_read() {
    if !landlock_or_skip("system_files_and_siblings_of_the_workdir_cannot_be_read") {
        return;
    }
    let site = site();
    let bash = Bash::default();
    let passwd = run(&bash, &site, "cd / && cat /etc/passwd").await;
    assert!(!passwd.contains("root:"), "{passwd}");
    assert!(passwd.contains("Permission denied"), "{passwd}");
    let sibling = run(&bash, &site, "cat ../outside/secret").await;
    assert!(!sibling.contains("TOP-SECRET"), "{sibling}");
    let absolute = run(
        &bash,
        &site,
        &format!("cat {}", site.outside.join("secret").display()),
    )
    .await;
    assert!(!absolute.contains("TOP-SECRET"), "{absolute}");
    // A new session or a double fork keeps the restriction.
    let escaped = run(
        &bash,
        &site,
        "setsid cat ../outside/secret; (bash -c 'cat ../outside/secret' &); sleep 0.1",
    )
    .await;
    assert!(!escaped.contains("TOP-SECRET"), "{escaped}");
    // The user's home is not readable.
    if let Some(home) = std::env::var_os("HOME").filter(|h| Path::new(h).is_dir()) {
        let listing = run(&bash, &site, &format!("ls {}", Path::new(&home).display())).await;
        assert!(listing.contains("Permission denied"), "{listing}");
    }
    // The agent's own environment through /proc: not readable either.
    let environ = run(&bash, &site, "cat /proc/$PPID/environ /proc/1/environ").await;
    assert!(environ.contains("Permission denied"), "{environ}");
    // And the workdir itself works as usual.
    let inside = run(&bash, &site, "echo hi > a.txt && cat a.txt && ls").await;
    assert!(inside.starts_with("hi\na.txt"), "{inside}");
}

#[tokio::test]
async fn writes_outside_the_workdir_and_private_tmp_fail() {
    if !landlock_or_skip("writes_outside_the_workdir_and_private_tmp_fail") {
        return;
    }
    let site = site();
    let bash = Bash::default();
    let out = run(
        &bash,
        &site,
        "echo x > ../outside/planted; echo y > ../outside/secret; mkdir ../outside/d; echo done",
    )
    .await;
    assert!(out.contains("done"), "{out}");
    assert!(!site.outside.join("planted").exists());
    assert!(!site.outside.join("d").exists());
    assert_eq!(
        std::fs::read_to_string(site.outside.join("secret")).unwrap(),
        SECRET
    );
    // The shared /tmp is off limits; the call's own TMPDIR is not, and it is gone afterwards.
    let tmp = run(
        &bash,
        &site,
        "echo z > /tmp/skills-attack-probe; echo ok > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && echo \"dir=$TMPDIR\"",
    )
    .await;
    assert!(!Path::new("/tmp/skills-attack-probe").exists(), "{tmp}");
    assert!(tmp.contains("ok\n"), "{tmp}");
    let private = tmp
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .expect("TMPDIR printed");
    assert!(!Path::new(private).exists(), "{private} left behind");
}

#[tokio::test]
async fn the_environment_is_cleared_to_the_allowlist() {
    // No Landlock needed: the allowlist holds in every mode.
    let site = site();
    for bash in [Bash::default(), Bash::new(BashOptions::unconfined())] {
        let out = run(&bash, &site, "env | cut -d= -f1 | sort").await;
        // What bash itself adds (PWD, SHLVL, _), the allowlist, and TMPDIR: nothing else, so no
        // API key or token of the agent's environment can be there.
        let allowed = [
            "HOME", "LANG", "OLDPWD", "PATH", "PWD", "SHLVL", "TERM", "TMPDIR", "_",
        ];
        for name in out.lines() {
            assert!(
                allowed.contains(&name),
                "`{name}` reached the command:\n{out}"
            );
        }
        assert!(out.lines().any(|n| n == "PATH"), "{out}");
    }
}

#[tokio::test]
async fn background_processes_do_not_outlive_a_successful_call() {
    let site = site();
    for bash in [Bash::default(), Bash::new(BashOptions::unconfined())] {
        let started = Instant::now();
        let out = run(
            &bash,
            &site,
            "sleep 1000 & echo pid=$!; (sleep 1001 & echo pid=$!) ; setsid sleep 1002 & echo pid=$!; \
             (setsid bash -c 'sleep 1003 & echo pid=$!; wait' &); sleep 0.2; echo launched",
        )
        .await;
        assert!(out.contains("launched"), "{out}");
        assert!(started.elapsed() < Duration::from_secs(5), "{out}");
        let found = pids(&out);
        assert_eq!(found.len(), 4, "{out}");
        for pid in found {
            assert!(!alive(pid), "process {pid} outlived the call:\n{out}");
        }
    }
}

#[tokio::test]
async fn setsid_does_not_escape_the_kill_on_timeout() {
    let site = site();
    let bash = Bash::new(BashOptions {
        timeout: Duration::from_millis(500),
        ..BashOptions::default()
    });
    let error = bash
        .call(
            &json!({"command": "setsid sleep 1000 & echo pid=$!; set -m; sleep 1001 & echo pid=$!; sleep 30"}),
            &site.context,
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Timeout);
    let found = pids(&error.message);
    assert_eq!(found.len(), 2, "{error}");
    for pid in found {
        assert!(!alive(pid), "process {pid} survived the timeout");
    }
}

#[tokio::test]
async fn a_writer_in_the_background_ends_with_the_call() {
    let site = site();
    let bash = Bash::default();
    let started = Instant::now();
    let out = run(&bash, &site, "yes & echo $! > yes.pid; sleep 0.2").await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: u32 = std::fs::read_to_string(site.work.join("yes.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(pid), "yes ({pid}) still running after the call");
    assert!(out.contains("output cut"), "capped output expected");
}

#[tokio::test]
async fn tcp_connections_are_refused_unless_allowed() {
    if !landlock_or_skip("tcp_connections_are_refused_unless_allowed") {
        return;
    }
    let site = site();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo sent");
    let denied = run(&Bash::default(), &site, &command).await;
    assert!(!denied.contains("sent"), "{denied}");
    assert!(denied.contains("Permission denied"), "{denied}");
    assert!(listener.accept().is_err(), "a connection got through");

    let open = Bash::new(BashOptions {
        sandbox: Sandbox {
            allow_network: true,
            ..Sandbox::default()
        },
        ..BashOptions::default()
    });
    let sent = run(&open, &site, &command).await;
    assert!(sent.contains("sent"), "{sent}");
}

#[tokio::test]
async fn processes_outside_the_sandbox_cannot_be_signalled() {
    if !landlock_or_skip("processes_outside_the_sandbox_cannot_be_signalled") {
        return;
    }
    let site = site();
    let mut victim = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let out = run(
        &Bash::default(),
        &site,
        &format!("kill -9 {} $PPID; echo after", victim.id()),
    )
    .await;
    assert!(out.contains("after"), "{out}");
    assert!(out.contains("Operation not permitted"), "{out}");
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the victim was killed"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
}

#[tokio::test]
async fn the_sandbox_can_be_switched_off_explicitly() {
    let site = site();
    let out = run(
        &Bash::new(BashOptions::unconfined()),
        &site,
        "cat ../outside/secret",
    )
    .await;
    assert_eq!(out, SECRET);
}

#[tokio::test]
async fn a_cancelled_call_leaves_no_process_behind() {
    let site = site();
    let bash = Bash::default();
    let pid_file = site.work.join("bg.pid");
    // The caller gives up (drops the call's future) long before the command's own timeout.
    let input = json!({"command": "setsid sleep 1000 & echo $! > bg.pid; sleep 1000"});
    let call = bash.call(&input, &site.context);
    let gave_up = tokio::time::timeout(Duration::from_millis(500), call).await;
    assert!(gave_up.is_err(), "the call should still have been running");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The cleanup runs on the call's own thread once the command is killed: give it a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pid), "{pid} survived the cancelled call");
}
