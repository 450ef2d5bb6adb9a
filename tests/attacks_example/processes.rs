//! Processes: a linear chain of 1,200 processes, each in its own session, does not outlive the
//! call (nor the agent); and three `bash` calls of one turn run at once.

use std::time::Duration;

use crate::attacks_example::support::{
    Caller, Site, bash, marker, python, run, running_with, skip,
};

/// Depth of the chain the attack built.
const DEPTH: usize = 1200;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_a_chain_of_1200_sessions_does_not_outlive_the_call() {
    let test = "processes_a_chain_of_1200_sessions_does_not_outlive_the_call";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let marker = marker();
        // Each link forks the next in a session of its own and becomes `sleep MARKER`; the
        // deepest says so in a file, and the first then returns: the command is done, its
        // 1,200 descendants are not.
        let script = format!(
            "import os, time\n\
             depth = 0\n\
             while depth < {DEPTH}:\n    \
             if os.fork():\n        break\n    \
             os.setsid(); depth += 1\n\
             if depth == {DEPTH}: open('deep', 'w').close()\n\
             if depth == 0:\n    \
             while not os.path.exists('deep'): time.sleep(0.05)\n    \
             print('built')\n\
             else: os.execv('/bin/sleep', ['sleep', '{marker}'])"
        );
        let calls = vec![python("chain", &script)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let left = running_with(&marker);
        // The fallback's sweep stops after a bounded time: make sure nothing stays around
        // after the test, whatever it reports.
        for pid in &left {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .output();
        }
        assert_eq!(run.result("chain"), "built", "{}", caller.label());
        if let Some(reason) = run.without_namespaces() {
            skip(
                test,
                caller,
                &format!("{reason} ({} links left)", left.len()),
            );
            continue;
        }
        // Nothing left when the call returned, and so none after the agent exited.
        assert!(
            left.is_empty(),
            "{}: {} of {DEPTH} links outlived the call",
            caller.label(),
            left.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_three_parallel_half_second_calls_take_well_under_a_second() {
    let test = "processes_three_parallel_half_second_calls_take_well_under_a_second";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = ["a", "b", "c"]
            .map(|id| bash(id, &format!("sleep 0.5; echo {id}")))
            .to_vec();
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        for id in ["a", "b", "c"] {
            assert_eq!(run.result(id), id, "{}", caller.label());
        }
        // From the model's tool calls to the request with their results: the three calls,
        // sandbox and all. One after the other they take 1.5 s.
        let took = run.arrivals[1] - run.arrivals[0];
        if let Some(reason) = run.without_namespaces() {
            // The fallback runs them one at a time.
            assert!(took >= Duration::from_millis(1500), "{took:?}");
            skip(test, caller, &reason);
            continue;
        }
        assert!(
            took < Duration::from_secs(1),
            "{}: three 0.5 s calls took {took:?}",
            caller.label()
        );
    }
}
