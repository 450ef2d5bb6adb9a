//! Files the call leaves behind: a folder made `chmod 000` in `TMPDIR` (which filled the shared
//! `/tmp` before), and a delayed escape planted in `.git` (`core.fsmonitor`, a hook) that would
//! run unconfined, with the person's environment, the next time they use the repository:
//! through `bash`, at any depth (a submodule's `.git` file repointed, a nested repository, the
//! `core.hooksPath` folder), and through the agent's own file tools (straight, or by a link a
//! command planted).

use std::process::Command;

use serde_json::json;

use crate::attacks_example::support::{Caller, Site, bash, run, skip, tool_call};

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

/// Runs `git` on the host in `dir` as the person would (a home of its own, no system settings).
fn git(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args([
            "-c",
            "user.email=person@example.com",
            "-c",
            "user.name=Person",
        ])
        .args(["-c", "protocol.file.allow=always", "-c", "safe.directory=*"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_CONFIG_GLOBAL")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Gives the working directory to `nobody` when that is the caller.
fn hand_over(site: &Site, caller: Caller) {
    if caller == Caller::Nobody {
        let chown = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&site.work)
            .arg(&site.outside)
            .status()
            .unwrap();
        assert!(chown.success());
    }
}

/// A file named `name` anywhere under `dir`.
fn found_under(dir: &std::path::Path, name: &str) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|entry| {
            entry.file_name() == name
                || (entry
                    .file_type()
                    .is_ok_and(|t| t.is_dir() && !t.is_symlink())
                    && found_under(&entry.path(), name))
        })
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_the_file_tools_write_nothing_git_runs() {
    let test = "files_the_file_tools_write_nothing_git_runs";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        std::fs::create_dir_all(site.work.join(".husky")).unwrap();
        std::fs::write(site.work.join(".husky/pre-commit"), "#!/bin/sh\n").unwrap();
        assert!(git(&site.work, &["init", "-q"]));
        assert!(git(&site.work, &["config", "core.hooksPath", ".husky"]));
        // The link a command planted in an earlier call.
        std::os::unix::fs::symlink(".git/config", site.work.join("cfg")).unwrap();
        hand_over(&site, caller);
        let config = std::fs::read_to_string(site.work.join(".git/config")).unwrap();
        let fsmonitor = "[core]\n\tfsmonitor = touch pwned\n";
        let calls = vec![
            tool_call(
                "write",
                "write_file",
                json!({"path": ".git/config", "content": fsmonitor}),
            ),
            tool_call(
                "edit",
                "edit_file",
                json!({"path": ".git/config", "old_text": "[core]", "new_text": fsmonitor}),
            ),
            tool_call(
                "link",
                "write_file",
                json!({"path": "cfg", "content": fsmonitor}),
            ),
            tool_call(
                "hook",
                "write_file",
                json!({"path": ".husky/pre-commit", "content": "touch pwned"}),
            ),
            tool_call(
                "new-hook",
                "write_file",
                json!({"path": ".husky/post-checkout", "content": "touch pwned"}),
            ),
            tool_call("read", "read_file", json!({"path": "cfg"})),
        ];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // The file tools are the agent's own: the same policy with or without namespaces.
        for id in ["write", "edit", "link", "hook", "new-hook"] {
            assert!(
                run.result(id).contains("error (denied)"),
                "{} {id}: {}",
                caller.label(),
                run.result(id)
            );
        }
        assert!(
            run.result("read").contains("hooksPath"),
            "{}",
            run.result("read")
        );
        assert_eq!(
            std::fs::read_to_string(site.work.join(".git/config")).unwrap(),
            config
        );
        assert_eq!(
            std::fs::read_to_string(site.work.join(".husky/pre-commit")).unwrap(),
            "#!/bin/sh\n"
        );
        assert!(!site.work.join(".husky/post-checkout").exists());
    }
}

/// What the command plants for the person's next `git status` or `git commit`: the
/// submodule's `.git` file pointed at a repository of its own (whose `core.fsmonitor` plants
/// `pwned`), the submodule's folder moved away, a hook in the `core.hooksPath` folder, a
/// nested repository's settings; each prints `name=status`.
const PLANT: &str = "git init -q evil && git -C evil config core.fsmonitor 'touch pwned'; \
    printf 'gitdir: ../evil/.git\\n' > sub/.git; echo gitfile=$?; \
    mv sub sub-moved; echo move=$?; \
    printf '#!/bin/sh\\ntouch pwned\\n' > .husky/pre-commit; echo hook=$?; \
    git -C nested config core.fsmonitor 'touch pwned'; echo nested=$?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_submodules_nested_repositories_and_hooks_stay_read_only() {
    let test = "files_submodules_nested_repositories_and_hooks_stay_read_only";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let lib = site.outside.join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("a"), "a").unwrap();
        std::fs::create_dir_all(site.work.join(".husky")).unwrap();
        std::fs::write(site.work.join(".husky/pre-commit"), "#!/bin/sh\n").unwrap();
        std::fs::create_dir_all(site.work.join("nested")).unwrap();
        let made = git(&lib, &["init", "-q"])
            && git(&lib, &["add", "a"])
            && git(&lib, &["commit", "-qm", "a"])
            && git(&site.work, &["init", "-q"])
            && git(
                &site.work,
                &["submodule", "add", "-q", &lib.display().to_string(), "sub"],
            )
            && git(&site.work, &["config", "core.hooksPath", ".husky"])
            && git(&site.work, &["commit", "-qm", "sub"])
            && git(&site.work.join("nested"), &["init", "-q"]);
        assert!(made, "git on the host");
        hand_over(&site, caller);
        let gitfile = std::fs::read_to_string(site.work.join("sub/.git")).unwrap();
        let calls = vec![bash("plant", PLANT)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let out = run.result("plant");
        if let Some(reason) = run.without_namespaces() {
            // Said at start-up: the fallback does not keep version control metadata read-only.
            assert!(
                run.stderr
                    .contains("does not hold: version control metadata at any depth"),
                "{}",
                run.stderr
            );
            skip(test, caller, &reason);
            continue;
        }
        for line in ["gitfile=1", "move=1", "hook=1"] {
            assert!(out.lines().any(|l| l == line), "{}: {out}", caller.label());
        }
        assert!(!out.contains("nested=0"), "{}: {out}", caller.label());
        assert_eq!(
            std::fs::read_to_string(site.work.join("sub/.git")).unwrap(),
            gitfile
        );
        // The person's next `git status` and `git commit` run nothing of the command's.
        git(&site.work, &["status", "--short"]);
        git(&site.work.join("nested"), &["status", "--short"]);
        git(&site.work, &["commit", "-qm", "x", "--allow-empty"]);
        assert!(
            !found_under(&site.work, "pwned"),
            "{}: {out}",
            caller.label()
        );
    }
}
