//! Files the call leaves behind: a folder made `chmod 000` in `TMPDIR` (which filled the shared
//! `/tmp` before), and a delayed escape planted in `.git` (`core.fsmonitor`, a hook) that would
//! run unconfined, with the person's environment, the next time they use the repository.

use std::process::Command;

use crate::attacks_example::support::{Caller, Site, bash, run, skip};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_a_locked_folder_in_tmpdir_leaves_nothing_behind() {
    let test = "files_a_locked_folder_in_tmpdir_leaves_nothing_behind";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let command = "mkdir -p \"$TMPDIR/trap/inner\" && \
                       head -c 4194304 /dev/urandom > \"$TMPDIR/trap/inner/blob\" && \
                       chmod 000 \"$TMPDIR/trap/inner\" \"$TMPDIR/trap\" && echo locked";
        let calls = vec![bash("tmp", command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        assert_eq!(run.result("tmp"), "locked", "{}", caller.label());
        // Nothing of the sandbox's call folders once the example is done: with the namespaces
        // the command's /tmp was a tmpfs that went with the call; in the fallback the call's
        // folder in the example's TMPDIR is removed, locked folders and all.
        let left = site.left_behind(&run);
        assert!(left.is_empty(), "{}: left behind: {left:?}", caller.label());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_core_fsmonitor_and_hooks_cannot_be_planted_in_git() {
    let test = "files_core_fsmonitor_and_hooks_cannot_be_planted_in_git";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let init = Command::new("git")
            .args(["init", "-q"])
            .arg(&site.work)
            .output()
            .unwrap();
        assert!(init.status.success());
        if caller == Caller::Nobody {
            let chown = Command::new("chown")
                .args(["-R", "65534:65534"])
                .arg(&site.work)
                .status()
                .unwrap();
            assert!(chown.success());
        }
        let git = site.work.join(".git");
        let config = std::fs::read_to_string(git.join("config")).unwrap();
        let hooks: Vec<_> = std::fs::read_dir(git.join("hooks")).unwrap().collect();
        let command = "git config core.fsmonitor 'touch planted'; echo rc=$?; \
                       git config core.hooksPath ../hooks; echo rc=$?; \
                       printf '#!/bin/sh\\ntouch planted\\n' > .git/hooks/pre-commit; echo rc=$?; \
                       chmod +x .git/hooks/pre-commit; echo rc=$?";
        let calls = vec![bash("git", command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let after = std::fs::read_to_string(git.join("config")).unwrap();
        let hooks_after: Vec<_> = std::fs::read_dir(git.join("hooks")).unwrap().collect();
        if let Some(reason) = run.without_namespaces() {
            skip(test, caller, &reason);
            continue;
        }
        let out = run.result("git");
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("rc=") && *l != "rc=0")
                .count(),
            4,
            "{}: {out}",
            caller.label()
        );
        assert_eq!(after, config, "{}: .git/config changed", caller.label());
        assert_eq!(
            hooks_after.len(),
            hooks.len(),
            "{}: a hook was planted",
            caller.label()
        );
        assert!(!git.join("hooks/pre-commit").exists());
    }
}
