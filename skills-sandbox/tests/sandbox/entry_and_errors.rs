//! The entry program and the errors: another executable named as the entry, a program that is
//! not a stage, and setup failures that come back typed; the policy stays the sandbox's.

use std::io::ErrorKind;
use std::path::PathBuf;

use libtest_mimic::Trial;
use skills_sandbox::{Entry, Guarantee, Policy, SandboxError};

use crate::support::{Outcome, bash, passed, run, site, trial, without};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial("entry_another_executable_can_be_the_entry", named_entry),
        trial(
            "entry_a_program_that_is_not_a_stage_is_reported",
            not_a_stage,
        ),
        trial(
            "entry_a_cleared_environment_starts_no_second_copy_of_the_program",
            cleared_environment,
        ),
        trial(
            "entry_a_missing_or_unexecutable_program_is_a_typed_error",
            command_not_started,
        ),
        trial(
            "entry_a_setup_failure_is_a_typed_error_naming_the_step",
            setup_failure,
        ),
        trial(
            "entry_unusable_paths_are_refused_before_anything_runs",
            invalid_paths,
        ),
        trial(
            "entry_the_command_cannot_read_the_policy_back",
            policy_hidden,
        ),
    ]
}

fn named_entry() -> Outcome {
    let site = site();
    let policy = Policy {
        entry: Entry::Program(std::env::current_exe().unwrap()),
        ..Policy::default()
    };
    assert_eq!(bash(&policy, &site.work, "echo named").ok(), "named\n");
    passed()
}

fn cleared_environment() -> Outcome {
    let site = site();
    // A caller that clears the prepared command's environment takes away what tells the copy
    // of this program that it is a stage: it must stop, not run these tests again.
    let run = run(
        &Policy::default(),
        &site.work,
        "bash",
        &["-c", "echo never"],
        |command| {
            command.env_clear().env("PATH", crate::support::PATH);
        },
    );
    assert_eq!(run.raw.code(), Some(125), "{}", run.output());
    assert!(run.stdout.is_empty(), "{}", run.output());
    assert!(
        run.stderr.contains("without its environment"),
        "{}",
        run.stderr
    );
    assert!(
        matches!(run.finished, Err(SandboxError::NotAStage { .. })),
        "{:?}",
        run.finished
    );
    passed()
}

fn not_a_stage() -> Outcome {
    let site = site();
    for program in ["/bin/true", "/bin/false"] {
        let policy = Policy {
            entry: Entry::Program(PathBuf::from(program)),
            ..Policy::fallback()
        };
        let run = bash(&policy, &site.work, "echo never");
        match &run.finished {
            Err(error @ SandboxError::NotAStage { entry, .. }) => {
                assert_eq!(entry, &PathBuf::from(program));
                assert!(
                    error.to_string().contains("skills_sandbox::enter()"),
                    "{error}"
                );
            }
            other => panic!("{program}: {other:?}"),
        }
        assert!(!run.output().contains("never"));
    }
    passed()
}

fn command_not_started() -> Outcome {
    let site = site();
    std::fs::write(site.work.join("script.sh"), "#!/bin/sh\necho hi\n").unwrap();
    for policy in [Policy::default(), Policy::fallback()] {
        for (program, kind) in [
            ("no-such-program-anywhere", ErrorKind::NotFound),
            ("./script.sh", ErrorKind::PermissionDenied),
        ] {
            let run = run(&policy, &site.work, program, &[], |_| {});
            match &run.finished {
                Err(
                    error @ SandboxError::CommandNotStarted {
                        program: got,
                        source,
                    },
                ) => {
                    assert_eq!(got, program);
                    assert_eq!(source.kind(), kind, "{error}");
                    assert!(error.is_command_not_started());
                }
                other => panic!("{program} in {:?}: {other:?}", policy.mode),
            }
        }
    }
    passed()
}

fn setup_failure() -> Outcome {
    skip_if!(without(Guarantee::HostHidden));
    let site = site();
    let doomed = site.work.join("doomed");
    std::fs::create_dir(&doomed).unwrap();
    let prepared = Policy::default().prepare(&doomed, "true", [""; 0]).unwrap();
    // The working directory goes away between preparing and spawning.
    std::fs::remove_dir(&doomed).unwrap();
    let mut command = prepared.command;
    let status = command.status().unwrap();
    match prepared.call.finish(status) {
        Err(SandboxError::Setup { step, source }) => {
            assert!(step.contains(&doomed.display().to_string()), "{step}");
            assert_eq!(source.kind(), ErrorKind::NotFound, "{step}: {source}");
        }
        other => panic!("{other:?}"),
    }
    passed()
}

fn invalid_paths() -> Outcome {
    let site = site();
    let cases = [
        Policy {
            read_only: vec![PathBuf::from("/no/such/toolchain")],
            ..Policy::default()
        },
        Policy {
            read_write: vec![PathBuf::from("/")],
            ..Policy::default()
        },
        Policy {
            read_only: vec![PathBuf::from("relative/path")],
            ..Policy::default()
        },
    ];
    for policy in cases {
        match policy.prepare(&site.work, "true", [""; 0]) {
            Err(SandboxError::InvalidPath { .. }) => {}
            other => panic!("{policy:?}: {other:?}"),
        }
    }
    match Policy::default().prepare(&site.work.join("missing"), "true", [""; 0]) {
        Err(SandboxError::InvalidPath { reason, .. }) => {
            assert_eq!(reason, "the working directory does not exist")
        }
        other => panic!("{other:?}"),
    }
    passed()
}

fn policy_hidden() -> Outcome {
    skip_if!(without(Guarantee::HostHidden));
    let site = site();
    // Where call folders go: a memory file system with the namespaces, the temporary folder in
    // the fallback.
    let bases = [std::env::temp_dir(), std::path::PathBuf::from("/dev/shm")];
    let bases: Vec<String> = bases.iter().map(|b| b.display().to_string()).collect();
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "env | grep -c SKILLS_SANDBOX; cat /proc/1/environ > /dev/null 2>&1 || echo environ-closed; \
             ls {} 2>/dev/null | grep -c 'skills-sandbox-[0-9]'",
            bases.join(" ")
        ),
    );
    // No variable of the sandbox's, init's environment closed, no call folder in sight.
    assert_eq!(run.stdout, "0\nenviron-closed\n0\n", "{}", run.output());
    passed()
}
