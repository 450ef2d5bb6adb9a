//! The tool itself, sandboxed as by default: the working directory, exit codes and the deny
//! list, the timeout, the output cap, and a background process holding the output open.

use std::time::{Duration, Instant};

use libtest_mimic::Trial;
use serde_json::json;
use skills_runtime::agent::{Bash, BashOptions, Tool, ToolErrorKind};

use crate::support::{Outcome, block_on, marker, passed, trial, wait_until_gone};
use skills_test_support::hostile_site as site;

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "bash_runs_in_the_workdir_and_reports_exit_codes",
            workdir_and_exit_codes,
        ),
        trial(
            "bash_timeout_kills_every_process_of_the_call",
            timeout_kills_everything,
        ),
        trial("bash_output_is_capped", output_is_capped),
        trial(
            "bash_returns_when_a_background_process_holds_the_pipe",
            background_holds_the_pipe,
        ),
    ]
}

fn workdir_and_exit_codes() -> Outcome {
    block_on(async {
        let site = site();
        std::fs::create_dir(site.work.join("src")).unwrap();
        std::fs::write(site.work.join("src/lib.rs"), "").unwrap();
        let bash = Bash::default();
        let out = bash
            .call(
                &json!({"command": "pwd; echo err >&2; ls src"}),
                &site.context,
            )
            .await
            .unwrap();
        let workdir = site.context.workdir().to_str().unwrap();
        assert_eq!(out, format!("{workdir}\nerr\nlib.rs"));
        let failed = bash
            .call(&json!({"command": "echo before; exit 3"}), &site.context)
            .await
            .unwrap();
        assert_eq!(failed, "before\n[exit code 3]");
        let killed = bash
            .call(&json!({"command": "kill -KILL $$"}), &site.context)
            .await
            .unwrap();
        assert_eq!(killed, "(no output)\n[terminated by a signal]");
        let denied = bash
            .call(&json!({"command": "sudo rm -rf /"}), &site.context)
            .await
            .unwrap_err();
        assert_eq!(denied.kind, ToolErrorKind::Denied);
        let missing = bash
            .call(&json!({"command": "no-such-program-here"}), &site.context)
            .await
            .unwrap();
        assert!(missing.ends_with("[exit code 127]"), "{missing}");
        passed()
    })
}

fn timeout_kills_everything() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::new(BashOptions {
            timeout: Duration::from_millis(400),
            ..BashOptions::default()
        });
        let (child, grandchild, session) = (marker(), marker(), marker());
        let started = Instant::now();
        // A child in the background, a grandchild and one in a session of its own; then
        // everything waits.
        let command = format!(
            "sleep {child} & (sleep {grandchild} & wait) & setsid sleep {session} & \
             echo started; wait"
        );
        let err = bash
            .call(&json!({ "command": command }), &site.context)
            .await
            .unwrap_err();
        let elapsed = started.elapsed();
        assert_eq!(err.kind, ToolErrorKind::Timeout);
        assert!(err.message.contains("started"), "{err}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        for marker in [child, grandchild, session] {
            let left = wait_until_gone(&marker, Duration::from_secs(3));
            assert!(left.is_empty(), "sleep {marker} survived: {left:?}");
        }
        // The per-call timeout works too.
        let err = Bash::default()
            .call(
                &json!({"command": "sleep 20", "timeout_ms": 200}),
                &site.context,
            )
            .await
            .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::Timeout);
        passed()
    })
}

fn output_is_capped() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::default();
        // About 1.1 MB of output: numbered lines, so head and tail are recognisable.
        let out = bash
            .call(&json!({"command": "seq 1 150000"}), &site.context)
            .await
            .unwrap();
        let chars = out.chars().count();
        assert!(chars <= 50_000 + 200, "{chars}");
        assert!(chars >= 49_000, "{chars}");
        assert!(out.starts_with("1\n2\n3\n"));
        assert!(
            out.trim_end().ends_with("149999\n150000"),
            "{}",
            &out[out.len() - 50..]
        );
        assert!(out.contains("output cut"), "no truncation note");
        // A small cap applies exactly.
        let small = Bash::new(BashOptions {
            max_output_chars: 1000,
            ..BashOptions::default()
        });
        let out = small
            .call(
                &json!({"command": "yes abcdefgh | head -c 2000000"}),
                &site.context,
            )
            .await
            .unwrap();
        assert!(out.chars().count() < 1200, "{}", out.chars().count());
        assert!(out.contains("2000000 bytes in total"));
        passed()
    })
}

fn background_holds_the_pipe() -> Outcome {
    block_on(async {
        let site = site();
        let bash = Bash::new(BashOptions {
            drain_grace: Duration::from_millis(200),
            ..BashOptions::default()
        });
        let started = Instant::now();
        let out = bash
            .call(
                &json!({"command": "sleep 5 & echo launched"}),
                &site.context,
            )
            .await
            .unwrap();
        assert_eq!(out, "launched");
        assert!(started.elapsed() < Duration::from_secs(3));
        passed()
    })
}
