//! Hostile `bash` calls, as a scripted model would send them, against the wiring of the tool to
//! its sandbox: the environment allowlist, what the command can read and write, processes that
//! try to outlive the call, parallel calls, the network, signals, and the settings of
//! [`Sandbox`] each reaching the sandbox. (The sandbox's own attack tests, one per kernel
//! attack, are in `skills-sandbox/tests/sandbox/`; the same attacks through the example agent
//! are in the root `tests/all/attacks_example.rs`.)

use std::path::Path;
use std::time::{Duration, Instant};

use libtest_mimic::Trial;
use serde_json::json;
use skills_runtime::agent::sandbox::{Guarantee, Limits, SandboxError};
use skills_runtime::agent::{Bash, BashOptions, Sandbox, Tool, ToolErrorKind, WriteFile};

use crate::support::{
    Outcome, block_on, marker, namespaces, namespaces_refused_here, passed, run, running_with,
    skipped, trial, wait_until_gone, without,
};
use skills_test_support::skip_if;
use skills_test_support::{SECRET, hostile_site as site, logs, process_alive};

pub fn tests() -> Vec<Trial> {
    vec![
        trial("the_environment_is_cleared_to_the_allowlist", environment),
        trial("the_host_is_out_of_sight", host_out_of_sight),
        trial(
            "writes_outside_the_workdir_fail_and_tmp_is_private",
            writes_outside,
        ),
        trial(
            "background_processes_do_not_outlive_a_call",
            background_processes,
        ),
        trial("a_cancelled_call_leaves_no_process_behind", cancelled_call),
        trial(
            "three_parallel_half_second_calls_take_well_under_a_second",
            parallel_calls,
        ),
        trial("tcp_connections_are_refused_unless_allowed", tcp),
        trial("processes_outside_the_sandbox_cannot_be_signalled", signals),
        trial(
            "the_sandbox_can_be_switched_off_with_a_warning_per_call",
            switched_off,
        ),
        trial(
            "read_only_and_read_write_paths_reach_the_sandbox",
            extra_paths,
        ),
        trial("git_metadata_is_read_only_unless_opened", vcs_metadata),
        trial(
            "one_policy_what_bash_cannot_keep_read_only_is_said_and_refused_to_the_file_tools",
            one_policy,
        ),
        trial("limits_reach_the_sandbox", limits),
        trial(
            "required_refuses_to_run_where_namespaces_are_refused",
            required,
        ),
        trial(
            "the_fallback_warns_per_call_with_what_it_loses",
            fallback_warns,
        ),
    ]
}

fn environment() -> Outcome {
    // What bash itself adds (PWD, SHLVL, _), the allowlist, and TMPDIR: nothing else.
    const ALLOWED: &[&str] = &[
        "HOME", "LANG", "OLDPWD", "PATH", "PWD", "SHLVL", "TERM", "TMPDIR", "_",
    ];
    let others: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| !ALLOWED.contains(&name.as_str()))
        .collect();
    if others.is_empty() {
        return skipped("this process has no variable outside the allowlist to leak");
    }
    block_on(async {
        let site = site();
        for bash in [Bash::default(), Bash::new(BashOptions::unconfined())] {
            let out = run(&bash, &site.context, "env | cut -d= -f1 | sort").await;
            for name in out.lines() {
                assert!(
                    ALLOWED.contains(&name),
                    "`{name}` reached the command:\n{out}"
                );
            }
            assert!(out.lines().any(|n| n == "PATH"), "{out}");
        }
        passed()
    })
}

fn host_out_of_sight() -> Outcome {
    skip_if!(without(Guarantee::FilesConfined));
    block_on(async {
        let site = site();
        let bash = Bash::default();
        let secret = site.outside.join("secret");
        let out = run(
            &bash,
            &site.context,
            &format!(
                "cat ../outside/secret {}; cd / && cut -d: -f1 /etc/passwd; \
                 setsid cat {0}; (bash -c 'cat {0}' &); sleep 0.1",
                secret.display()
            ),
        )
        .await;
        assert!(!out.contains(SECRET), "{out}");
        // The host's other accounts: none shows (a passwd of its own with namespaces, none to
        // read in the fallback).
        let me = rustix::process::getuid().as_raw();
        let host = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        for line in host.lines() {
            let fields: Vec<&str> = line.split(':').collect();
            let (Some(name), Some(uid)) = (fields.first(), fields.get(2)) else {
                continue;
            };
            if !["0", "65534", &me.to_string()].contains(uid) {
                assert!(
                    !out.lines().any(|l| l == *name),
                    "the host's {name} shows:\n{out}"
                );
            }
        }
        // Nor does the home folder.
        if let Some(home) = std::env::var_os("HOME").filter(|h| Path::new(h).is_dir()) {
            let listing = run(
                &bash,
                &site.context,
                &format!("ls {}", Path::new(&home).display()),
            )
            .await;
            assert!(listing.ends_with("[exit code 2]"), "{listing}");
        }
        // And the working directory works as usual.
        let inside = run(&bash, &site.context, "echo hi > a.txt && cat a.txt && ls").await;
        assert_eq!(inside, "hi\na.txt");
        passed()
    })
}

fn writes_outside() -> Outcome {
    skip_if!(without(Guarantee::FilesConfined));
    block_on(async {
        let site = site();
        let bash = Bash::default();
        let outside = site.outside.display();
        let out = run(
            &bash,
            &site.context,
            &format!(
                "echo x > ../outside/planted; echo y > {outside}/secret; mkdir {outside}/d; \
                 echo done"
            ),
        )
        .await;
        assert!(out.contains("done"), "{out}");
        assert!(!site.outside.join("planted").exists());
        assert!(!site.outside.join("d").exists());
        assert_eq!(
            std::fs::read_to_string(site.outside.join("secret")).unwrap(),
            SECRET
        );
        // The host's /tmp is not the command's; its own TMPDIR works and goes with the call.
        let name = format!("skills-attack-probe-{}", marker());
        let out = run(
            &bash,
            &site.context,
            &format!(
                "echo z > /tmp/{name}; echo ok > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && \
                 echo \"dir=$TMPDIR\""
            ),
        )
        .await;
        assert!(!Path::new("/tmp").join(&name).exists(), "{out}");
        assert!(out.contains("ok\n"), "{out}");
        let private = out
            .lines()
            .find_map(|l| l.strip_prefix("dir="))
            .expect("TMPDIR printed");
        if namespaces() {
            assert_eq!(private, "/tmp", "{out}");
        } else {
            assert!(!Path::new(private).exists(), "{private} left behind");
        }
        passed()
    })
}

fn background_processes() -> Outcome {
    block_on(async {
        let site = site();
        for bash in [Bash::default(), Bash::new(BashOptions::unconfined())] {
            let markers = [marker(), marker(), marker(), marker(), marker()];
            let [a, b, c, d, e] = &markers;
            let started = Instant::now();
            let out = run(
                &bash,
                &site.context,
                &format!(
                    "sleep {a} & (sleep {b} &); setsid sleep {c} & \
                     (setsid bash -c 'sleep {d} & wait' &); nohup sleep {e} >/dev/null 2>&1 & \
                     sleep 0.2; echo launched"
                ),
            )
            .await;
            assert_eq!(out, "launched");
            assert!(started.elapsed() < Duration::from_secs(5), "{out}");
            // Gone when the call returns, not later.
            for marker in &markers {
                let left = running_with(marker);
                assert!(
                    left.is_empty(),
                    "sleep {marker} outlived the call: {left:?}"
                );
            }
        }
        passed()
    })
}

fn cancelled_call() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::default();
        let (session, foreground) = (marker(), marker());
        // The caller gives up (drops the call's future) long before the command's own timeout.
        let input = json!({"command": format!("setsid sleep {session} & sleep {foreground}")});
        let call = bash.call(&input, &site.context);
        let gave_up = tokio::time::timeout(Duration::from_millis(500), call).await;
        assert!(gave_up.is_err(), "the call should still have been running");
        for marker in [session, foreground] {
            let left = wait_until_gone(&marker, Duration::from_secs(5));
            assert!(
                left.is_empty(),
                "sleep {marker} survived the cancelled call"
            );
        }
        passed()
    })
}

fn parallel_calls() -> Outcome {
    skip_if!(without(Guarantee::ProcessCleanup));
    block_on(async {
        let site = site();
        let bash = Bash::default();
        // Once, so that the timing below is of the calls themselves.
        run(&bash, &site.context, "true").await;
        let started = Instant::now();
        let (a, b, c) = tokio::join!(
            run(&bash, &site.context, "sleep 0.5; echo a"),
            run(&bash, &site.context, "sleep 0.5; echo b"),
            run(&bash, &site.context, "sleep 0.5; echo c"),
        );
        let took = started.elapsed();
        assert_eq!([a, b, c], ["a", "b", "c"]);
        // One after the other they take 1.5 s.
        assert!(
            took < Duration::from_secs(1),
            "three 0.5 s calls took {took:?}"
        );
        passed()
    })
}

fn tcp() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    block_on(async {
        let site = site();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let command = format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo sent");
        let denied = run(&Bash::default(), &site.context, &command).await;
        assert!(!denied.contains("sent"), "{denied}");
        assert!(listener.accept().is_err(), "a connection got through");

        let open = Bash::new(BashOptions {
            sandbox: Sandbox {
                allow_network: true,
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        let sent = run(&open, &site.context, &command).await;
        assert_eq!(sent, "sent");
        listener.set_nonblocking(false).unwrap();
        assert!(listener.accept().is_ok());
        passed()
    })
}

fn signals() -> Outcome {
    skip_if!(without(Guarantee::NoSignalsOut));
    block_on(async {
        let site = site();
        let mut victim = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let out = run(
            &Bash::default(),
            &site.context,
            &format!("kill -9 {} $PPID; echo after", victim.id()),
        )
        .await;
        assert!(out.contains("after"), "{out}");
        assert!(process_alive(victim.id()), "the victim was killed");
        victim.kill().unwrap();
        victim.wait().unwrap();
        passed()
    })
}

fn switched_off() -> Outcome {
    block_on(async {
        let site = site();
        let (captured, _guard) = logs::capture();
        let bash = Bash::new(BashOptions::unconfined());
        assert_eq!(
            run(&bash, &site.context, "cat ../outside/secret").await,
            SECRET
        );
        run(&bash, &site.context, "true").await;
        let warnings: Vec<String> = captured
            .at("WARN")
            .into_iter()
            .filter(|w| w.contains("UNCONFINED"))
            .collect();
        assert_eq!(warnings.len(), 2, "{:?}", captured.events());
        assert_eq!(Sandbox::off().probe().unwrap(), None);
        passed()
    })
}

fn extra_paths() -> Outcome {
    skip_if!(without(Guarantee::FilesConfined));
    block_on(async {
        let site = site();
        let outside = site.outside.display();
        let command = format!("cat {outside}/secret; echo; echo w > {outside}/written; echo rc=$?");
        let read_only = Bash::new(BashOptions {
            sandbox: Sandbox {
                read_only: vec![site.outside.clone()],
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        let out = run(&read_only, &site.context, &command).await;
        assert!(out.starts_with(&format!("{SECRET}\n")), "{out}");
        assert!(out.ends_with("rc=1"), "{out}");
        assert!(!site.outside.join("written").exists());
        let read_write = Bash::new(BashOptions {
            sandbox: Sandbox {
                read_write: vec![site.outside.clone()],
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        let out = run(&read_write, &site.context, &command).await;
        assert!(out.ends_with("rc=0"), "{out}");
        assert_eq!(
            std::fs::read_to_string(site.outside.join("written")).unwrap(),
            "w\n"
        );
        passed()
    })
}

fn vcs_metadata() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    block_on(async {
        let site = site();
        let git = site.work.join(".git");
        std::fs::create_dir_all(git.join("hooks")).unwrap();
        std::fs::write(git.join("config"), "[core]\n").unwrap();
        let command = "printf '\\tfsmonitor = ./evil\\n' >> .git/config; echo rc=$?; \
                       echo evil > .git/hooks/pre-commit; echo rc=$?";
        let out = run(&Bash::default(), &site.context, command).await;
        assert_eq!(out.matches("Read-only file system").count(), 2, "{out}");
        assert_eq!(out.lines().filter(|l| *l == "rc=1").count(), 2, "{out}");
        assert_eq!(
            std::fs::read_to_string(git.join("config")).unwrap(),
            "[core]\n"
        );
        assert!(!git.join("hooks/pre-commit").exists());
        let opened = Bash::new(BashOptions {
            sandbox: Sandbox {
                writable_vcs: true,
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        let out = run(&opened, &site.context, command).await;
        assert_eq!(out, "rc=0\nrc=0");
        assert!(git.join("hooks/pre-commit").exists());
        passed()
    })
}

/// `core.hooksPath` names a folder that does not exist: the sandbox cannot mount it
/// read-only, so the call's result says a command could create it, and the file tools, under
/// the same policy, refuse to.
fn one_policy() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    block_on(async {
        let site = site();
        std::fs::create_dir_all(site.work.join(".git")).unwrap();
        std::fs::write(
            site.work.join(".git/config"),
            "[core]\n\thooksPath = .githooks\n",
        )
        .unwrap();
        let out = run(&Bash::default(), &site.context, "echo ran").await;
        assert!(
            out.starts_with("ran\n[not kept read-only in this call: "),
            "{out}"
        );
        assert!(out.contains(".githooks"), "{out}");
        let written = WriteFile
            .call(
                &json!({"path": ".githooks/pre-commit", "content": "touch pwned"}),
                &site.context,
            )
            .await
            .unwrap_err();
        assert_eq!(written.kind, ToolErrorKind::Denied, "{written}");
        // Both follow `Sandbox::writable_vcs`.
        let opened = Bash::new(BashOptions {
            sandbox: Sandbox {
                writable_vcs: true,
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        assert_eq!(run(&opened, &site.context, "echo ran").await, "ran");
        let open = site.context.clone().writable_vcs(true);
        WriteFile
            .call(
                &json!({"path": ".githooks/pre-commit", "content": "echo ok"}),
                &open,
            )
            .await
            .unwrap();
        passed()
    })
}

fn limits() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::new(BashOptions {
            sandbox: Sandbox {
                limits: Limits {
                    open_files: Some(123),
                    cpu_seconds: Some(77),
                    tmp_size: 1 << 20,
                    ..Limits::default()
                },
                ..Sandbox::default()
            },
            ..BashOptions::default()
        });
        let out = run(
            &bash,
            &site.context,
            "ulimit -n; ulimit -t; head -c 2000000 /dev/zero > \"$TMPDIR/big\"; echo rc=$?",
        )
        .await;
        assert!(out.starts_with("123\n77\n"), "{out}");
        // The private /tmp's size is the namespaces' (the fallback's TMPDIR is a host folder).
        if namespaces() {
            assert!(out.contains("No space left on device"), "{out}");
            assert!(out.ends_with("rc=1"), "{out}");
        }
        passed()
    })
}

fn required() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::new(BashOptions {
            sandbox: Sandbox::required(),
            ..BashOptions::default()
        });
        let result = bash
            .call(&json!({"command": "echo ran"}), &site.context)
            .await;
        if namespaces() {
            assert_eq!(result.unwrap(), "ran");
            assert!(Sandbox::required().probe().unwrap().is_some());
        } else {
            let error = result.unwrap_err();
            assert_eq!(error.kind, ToolErrorKind::Denied, "{error}");
            assert!(error.message.contains("refuses its namespaces"), "{error}");
            assert!(matches!(
                Sandbox::required().probe(),
                Err(SandboxError::Unavailable { .. })
            ));
        }
        passed()
    })
}

fn fallback_warns() -> Outcome {
    if namespaces() {
        let reason = if namespaces_refused_here() {
            "namespaces work even here"
        } else {
            "namespaces work here; the run where they are refused tests the fallback"
        };
        return skipped(reason);
    }
    block_on(async {
        let site = site();
        let (captured, _guard) = logs::capture();
        let bash = Bash::default();
        assert_eq!(run(&bash, &site.context, "echo one").await, "one");
        assert_eq!(run(&bash, &site.context, "echo two").await, "two");
        let warnings: Vec<String> = captured
            .at("WARN")
            .into_iter()
            .filter(|w| w.contains("without some of the sandbox's guarantees"))
            .collect();
        assert_eq!(warnings.len(), 2, "{:?}", captured.events());
        // It names what the fallback loses.
        assert!(
            warnings[0].contains(Guarantee::ProcessCleanup.describe()),
            "{}",
            warnings[0]
        );
        passed()
    })
}
