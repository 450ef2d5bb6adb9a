//! What must keep working in the sandbox: the usual tools in the working directory, the
//! standard streams, the environment the caller sets, shell idioms that go through `/dev/fd`,
//! Python's process pools, and the async wiring a caller like the agent uses.

use std::io::Write;
use std::process::Stdio;

use libtest_mimic::Trial;
use skills_sandbox::{Policy, Prepared};

use crate::support::{Outcome, PATH, bash, passed, python, run, site, trial};

pub fn tests() -> Vec<Trial> {
    vec![
        trial("works_common_tools_in_the_workdir", common_tools),
        trial("works_standard_streams_pass_through", streams),
        trial(
            "works_the_environment_is_the_callers_and_nothing_else",
            environment,
        ),
        trial("works_shell_idioms_and_process_pools", idioms),
        trial("works_through_tokio_process", through_tokio),
        trial(
            "works_when_the_caller_makes_it_a_process_group_leader",
            group_leader,
        ),
    ]
}

fn common_tools() -> Outcome {
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "printf 'b\\na\\nb\\n' > in.txt && sort in.txt | uniq -c | awk '{print $2\"=\"$1}' | \
         sed 's/=/:/' | tr a-z A-Z; grep -c b in.txt; find . -name in.txt; \
         tar czf t.tgz in.txt && tar tzf t.tgz; python3 -c 'print(6 * 7)'; \
         git --version | cut -d' ' -f1-2; ls /usr/bin | wc -l | awk '$1 > 50 {print \"tools\"}'",
    );
    assert_eq!(
        run.ok(),
        "A:1\nB:2\n2\n./in.txt\nin.txt\n42\ngit version\ntools\n",
        "{}",
        run.output()
    );
    assert!(site.work.join("t.tgz").exists());
    passed()
}

fn streams() -> Outcome {
    let site = site();
    let mut running = crate::support::spawn(
        &Policy::default(),
        &site.work,
        "bash",
        &[
            "-c",
            "tr a-z A-Z; echo to-stderr >&2; head -c 4000000 /dev/zero | tr '\\0' x",
        ],
        |command| {
            command.stdin(Stdio::piped());
        },
    );
    let mut stdin = running.child.stdin.take().unwrap();
    stdin.write_all(b"from stdin\n").unwrap();
    drop(stdin);
    let output = running.child.wait_with_output().unwrap();
    let finished = running.call.finish(output.status).unwrap();
    assert!(finished.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("FROM STDIN\nxxx"),
        "{}",
        &stdout[..40.min(stdout.len())]
    );
    assert_eq!(stdout.len(), "FROM STDIN\n".len() + 4_000_000);
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "to-stderr\n");
    passed()
}

fn environment() -> Outcome {
    let site = site();
    // The test process's own environment (HOME, CARGO_*, ...) must not get in.
    let run = run(
        &Policy::default(),
        &site.work,
        "bash",
        &[
            "-c",
            "env | cut -d= -f1 | sort | tr '\\n' ' '; echo; echo $TMPDIR $GIVEN",
        ],
        |command| {
            command.env("GIVEN", "by the caller");
        },
    );
    let out = run.ok();
    let names: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    // What the caller set, TMPDIR, and what bash sets itself: nothing else.
    let allowed = [
        "GIVEN", "LANG", "OLDPWD", "PATH", "PWD", "SHLVL", "TMPDIR", "_",
    ];
    for name in &names {
        assert!(
            allowed.contains(name),
            "`{name}` reached the command: {out}"
        );
    }
    for name in ["GIVEN", "PATH", "TMPDIR"] {
        assert!(names.contains(&name), "{name} is missing: {out}");
    }
    assert!(out.ends_with(" by the caller\n"), "{out}");
    passed()
}

fn idioms() -> Outcome {
    // The fallback gives the command no /proc (so no /dev/fd) and no /dev/shm.
    skills_test_support::skip_if!(crate::support::without_namespaces());
    let site = site();
    let shell = bash(
        &Policy::default(),
        &site.work,
        "diff <(echo same) <(echo same) && echo substituted; echo err > /dev/stderr; \
         cat /dev/null; head -c 4 /dev/urandom | wc -c",
    );
    assert_eq!(shell.ok(), "substituted\n4\n", "{}", shell.output());
    assert_eq!(shell.stderr, "err\n");
    let pool = python(
        &Policy::default(),
        &site.work,
        "import multiprocessing\n\
         if __name__ == '__main__':\n    \
         with multiprocessing.Pool(2) as pool: print(pool.map(abs, [-1, -2, -3]))",
    );
    assert_eq!(pool.ok(), "[1, 2, 3]\n", "{}", pool.output());
    passed()
}

fn through_tokio() -> Outcome {
    use tokio::io::AsyncReadExt;
    let site = site();
    let Prepared { command, call } = Policy::default()
        .prepare(&site.work, "bash", ["-c", "echo async; exit 4"])
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, output) = runtime.block_on(async {
        let mut command = tokio::process::Command::from(command);
        command
            .env("PATH", PATH)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let mut output = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut output)
            .await
            .unwrap();
        let status = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait())
            .await
            .unwrap()
            .unwrap();
        (status, output)
    });
    assert_eq!(output, "async\n");
    assert_eq!(call.finish(status).unwrap().status.code(), Some(4));
    passed()
}

fn group_leader() -> Outcome {
    use std::os::unix::process::CommandExt;
    let site = site();
    // A caller that kills process groups spawns the sandbox as a group leader, which cannot
    // start a session itself.
    for policy in [Policy::default(), Policy::fallback()] {
        let run = run(
            &policy,
            &site.work,
            "python3",
            &[
                "-c",
                "import os; print(os.getsid(0) == os.getpid() or os.getsid(0))",
            ],
            |command| {
                command.process_group(0);
            },
        );
        let out = run.ok();
        // In the namespaces the session is the init stage's (PID 1); in the fallback the
        // command leads its own.
        assert!(out == "True\n" || out == "1\n", "{:?}: {out}", policy.mode);
    }
    passed()
}
