//! The filesystem: system folders read-only, the working directory read-write but `nodev` and
//! `nosuid` with its version control metadata read-only, a private `/tmp` that leaves nothing
//! behind, and nothing of the host beside.

use std::os::unix::fs::MetadataExt;
use std::process::Command;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Limits, Policy};

use crate::support::{Outcome, SECRET, bash, passed, site, skipped, trial, unique, without};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial("files_system_folders_are_read_only", system_read_only),
        trial("files_the_workdir_is_read_write_nodev_nosuid", workdir),
        trial("files_siblings_of_the_workdir_are_not_there", siblings),
        trial("files_dev_holds_only_the_usual_devices", dev),
        trial(
            "files_a_chmod_000_folder_in_tmp_leaves_nothing_behind",
            locked_tmp,
        ),
        trial("files_tmp_is_size_capped", tmp_cap),
        trial("files_git_hooks_and_fsmonitor_cannot_be_planted", git),
        trial(
            "files_a_git_file_and_hg_cannot_be_rewritten",
            git_file_and_hg,
        ),
        trial(
            "files_a_submodule_gitfile_cannot_be_repointed",
            submodule_repointed,
        ),
        trial(
            "files_nested_repositories_hooks_path_and_files_git_runs_stay_read_only",
            what_git_runs,
        ),
        trial(
            "files_what_git_settings_name_but_does_not_exist_is_said",
            missing_named,
        ),
    ]
}

fn system_read_only() -> Outcome {
    skip_if!(without(Guarantee::NoMetadataChanges));
    let site = site();
    let hosts = std::fs::read("/etc/hosts").unwrap_or_default();
    let name = unique("skills-planted");
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "touch /usr/{name}; echo $?; echo x >> /etc/hosts; echo $?; mkdir /{name}; echo $?; \
             rm -f /bin/true; echo $?; ln -s x /etc/{name}; echo $?"
        ),
    );
    assert_eq!(run.stdout, "1\n1\n1\n1\n1\n", "{}", run.output());
    assert!(
        run.stderr.contains("Read-only file system"),
        "{}",
        run.output()
    );
    assert!(!std::path::Path::new("/usr").join(&name).exists());
    assert!(std::path::Path::new("/bin/true").exists());
    assert_eq!(std::fs::read("/etc/hosts").unwrap_or_default(), hosts);
    passed()
}

fn workdir() -> Outcome {
    let site = site();
    std::fs::write(site.work.join("old.txt"), "old").unwrap();
    let run = bash(
        &Policy::default(),
        &site.work,
        "echo new > new.txt && mkdir -p d/e && echo deep > d/e/f && rm old.txt && \
         mv new.txt renamed.txt && cat renamed.txt",
    );
    assert_eq!(run.ok(), "new\n");
    assert!(!site.work.join("old.txt").exists());
    assert_eq!(
        std::fs::read_to_string(site.work.join("d/e/f")).unwrap(),
        "deep\n"
    );
    // Files belong to the caller, as they would without a sandbox.
    let owner = std::fs::metadata(site.work.join("renamed.txt"))
        .unwrap()
        .uid();
    assert_eq!(owner, rustix::process::geteuid().as_raw());
    if crate::support::default_confinement().holds(Guarantee::NoMetadataChanges) {
        let options = bash(
            &Policy::default(),
            &site.work,
            &format!("grep ' {} ' /proc/self/mountinfo", site.work.display()),
        );
        let line = options.ok();
        assert!(line.contains("nosuid") && line.contains("nodev"), "{line}");
    }
    passed()
}

fn siblings() -> Outcome {
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "cat ../outside/secret {}/secret; ls ..; echo x > ../outside/planted; echo done",
            site.outside.display()
        ),
    );
    assert!(run.ok().ends_with("done\n"));
    assert!(!run.output().contains(SECRET), "{}", run.output());
    assert!(!site.outside.join("planted").exists());
    passed()
}

fn dev() -> Outcome {
    skip_if!(without(Guarantee::HostHidden));
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "ls -A /dev | tr '\\n' ' '; echo; ls / | tr '\\n' ' '; echo; echo x > /dev/new; \
         head -c 3 /dev/zero | wc -c; echo x > /dev/null && echo null-ok",
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.first().map(|l| l.trim()),
        Some("fd full null random shm stderr stdin stdout tty urandom zero"),
        "{}",
        run.output()
    );
    // The root lists, and holds the system folders, no home and no /run.
    let root = lines.get(1).copied().unwrap_or_default();
    assert!(
        root.contains("usr") && root.contains("tmp") && root.contains("proc"),
        "{root}"
    );
    assert!(
        !root.contains("home") && !root.contains("run") && !root.contains("var"),
        "{root}"
    );
    // Nothing new can be made in /dev, and the devices work.
    assert!(
        run.stderr.contains("Read-only file system"),
        "{}",
        run.output()
    );
    assert_eq!(&lines[2..], ["3", "null-ok"], "{}", run.output());
    passed()
}

fn locked_tmp() -> Outcome {
    skip_if!(without(Guarantee::PrivateTmp));
    let site = site();
    let name = unique("skills-locked");
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "mkdir -p /tmp/{name}/inner && head -c 67108864 /dev/zero > /tmp/{name}/inner/fill && \
             chmod 000 /tmp/{name}/inner /tmp/{name} && stat -f -c %T /tmp && echo $TMPDIR"
        ),
    );
    assert_eq!(run.ok(), "tmpfs\n/tmp\n", "{}", run.output());
    // Nothing of it on the host: the sandbox's /tmp was a tmpfs of its own mount namespace.
    for base in [std::env::temp_dir(), std::path::PathBuf::from("/tmp")] {
        assert!(
            !base.join(&name).exists(),
            "{} left in {}",
            name,
            base.display()
        );
    }
    passed()
}

fn tmp_cap() -> Outcome {
    skip_if!(without(Guarantee::PrivateTmp));
    let site = site();
    let policy = Policy {
        limits: Limits {
            tmp_size: 8 << 20,
            ..Limits::default()
        },
        ..Policy::default()
    };
    let run = bash(
        &policy,
        &site.work,
        "head -c 16777216 /dev/zero > /tmp/fill; echo rc=$?; du -m /tmp/fill",
    );
    assert!(
        run.output().contains("No space left on device"),
        "{}",
        run.output()
    );
    assert!(run.stdout.starts_with("rc=1\n8\t"), "{}", run.output());
    passed()
}

/// `git` on the host, in `dir`, as the person would run it (with a home of its own, so that
/// no setting of the machine's user joins in).
fn git_host(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args([
            "-c",
            "user.email=person@example.com",
            "-c",
            "user.name=Person",
        ])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_CONFIG_GLOBAL")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// A file anywhere under `dir` named `name`.
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

fn git() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    let site = site();
    if !git_host(&site.work, &["init", "-q"]) {
        return skipped("needs git on the host");
    }
    std::fs::write(site.work.join("tracked.txt"), "x").unwrap();
    let config = std::fs::read(site.work.join(".git/config")).unwrap();
    let attack = "git config core.fsmonitor 'touch /tmp/pwned'; echo config=$?; \
                  echo 'touch pwned' > .git/hooks/pre-commit; echo hook=$?; \
                  git status --short; echo status=$?";
    let run = bash(&Policy::default(), &site.work, attack);
    let out = run.ok();
    assert!(out.contains("config=255\n"), "{}", run.output());
    assert!(out.contains("hook=1\n"), "{}", run.output());
    // Reading the repository still works.
    assert!(out.contains("?? tracked.txt\nstatus=0"), "{}", run.output());
    assert_eq!(
        std::fs::read(site.work.join(".git/config")).unwrap(),
        config
    );
    assert!(!site.work.join(".git/hooks/pre-commit").exists());
    // The control: with version control metadata opened, the same attack plants both.
    let open = Policy {
        writable_vcs: true,
        ..Policy::default()
    };
    let planted = bash(&open, &site.work, attack);
    assert!(
        planted.ok().contains("config=0\nhook=0\n"),
        "{}",
        planted.output()
    );
    assert!(site.work.join(".git/hooks/pre-commit").exists());
    passed()
}

fn git_file_and_hg() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    let site = site();
    // A worktree's `.git` is a file naming the repository elsewhere.
    std::fs::write(
        site.work.join(".git"),
        "gitdir: /elsewhere/.git/worktrees/w\n",
    )
    .unwrap();
    std::fs::create_dir(site.work.join(".hg")).unwrap();
    std::fs::write(site.work.join(".hg/hgrc"), "[ui]\n").unwrap();
    let run = bash(
        &Policy::default(),
        &site.work,
        "echo 'gitdir: /tmp/planted' > .git; echo git=$?; \
         printf '[hooks]\\nupdate = touch pwned\\n' >> .hg/hgrc; echo hg=$?; echo fine > other; echo other=$?",
    );
    assert_eq!(run.stdout, "git=1\nhg=1\nother=0\n", "{}", run.output());
    assert_eq!(
        std::fs::read_to_string(site.work.join(".git")).unwrap(),
        "gitdir: /elsewhere/.git/worktrees/w\n"
    );
    assert_eq!(
        std::fs::read_to_string(site.work.join(".hg/hgrc")).unwrap(),
        "[ui]\n"
    );
    passed()
}

/// A repository in `site.work` with the submodule `sub` (a clone of a repository outside).
fn with_submodule(site: &crate::support::Site) -> bool {
    let lib = site.outside.join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(lib.join("a"), "a").unwrap();
    git_host(&lib, &["init", "-q"])
        && git_host(&lib, &["add", "a"])
        && git_host(&lib, &["commit", "-qm", "a"])
        && git_host(&site.work, &["init", "-q"])
        && git_host(
            &site.work,
            &["submodule", "add", "-q", &lib.display().to_string(), "sub"],
        )
        && git_host(&site.work, &["commit", "-qm", "sub"])
}

/// A repository the command makes, whose `core.fsmonitor` plants `pwned` wherever git runs it,
/// and the top repository's submodule pointed at it.
const REPOINT: &str = "git init -q evil && git -C evil config core.fsmonitor 'touch pwned'; \
    printf 'gitdir: ../evil/.git\\n' > sub/.git; echo gitfile=$?";

fn submodule_repointed() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    let site = site();
    if !with_submodule(&site) {
        return skipped("needs git on the host");
    }
    let gitfile = std::fs::read_to_string(site.work.join("sub/.git")).unwrap();
    // Or the folder moved away, to put a writable one in its place.
    let attack = format!("{REPOINT}; mv sub sub-moved; echo moved=$?");
    let run = bash(&Policy::default(), &site.work, &attack);
    let out = run.ok();
    assert!(out.contains("gitfile=1\n"), "{}", run.output());
    assert!(out.contains("moved=1\n"), "{}", run.output());
    assert_eq!(
        std::fs::read_to_string(site.work.join("sub/.git")).unwrap(),
        gitfile
    );
    // The person's next `git status` runs nothing of the command's.
    assert!(git_host(&site.work, &["status", "--short"]));
    assert!(!found_under(&site.work, "pwned"));
    // The control: opened, the same attack gets its fsmonitor run by the person's git.
    let open = Policy {
        writable_vcs: true,
        ..Policy::default()
    };
    let planted = bash(&open, &site.work, REPOINT);
    assert!(planted.ok().contains("gitfile=0\n"), "{}", planted.output());
    git_host(&site.work, &["status", "--short"]);
    assert!(found_under(&site.work, "pwned"), "the control did not run");
    passed()
}

/// Each write the attack tries, as `name=status` lines; all but `regular` must fail.
const PLANT: &str = "echo 'touch pwned' > .husky/pre-commit; echo hook=$?; \
    echo 'touch pwned' > .husky/post-checkout; echo new_hook=$?; \
    mv .husky .husky-moved; echo move_hooks=$?; \
    echo 'touch pwned' >> tools/pager.sh; echo pager=$?; \
    mv tools tools-moved; echo move_tools=$?; \
    git -C nested config core.fsmonitor 'touch pwned'; echo nested_config=$?; \
    echo 'touch pwned' > nested/.git/hooks/pre-commit; echo nested_hook=$?; \
    mv nested nested-moved; echo move_nested=$?; \
    echo fine > regular; echo regular=$?";

fn what_git_runs() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    let site = site();
    let nested = site.work.join("nested");
    std::fs::create_dir_all(site.work.join(".husky")).unwrap();
    std::fs::create_dir_all(site.work.join("tools")).unwrap();
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(site.work.join(".husky/pre-commit"), "#!/bin/sh\n").unwrap();
    std::fs::write(site.work.join("tools/pager.sh"), "#!/bin/sh\ncat\n").unwrap();
    if !(git_host(&site.work, &["init", "-q"])
        && git_host(&site.work, &["config", "core.hooksPath", ".husky"])
        && git_host(&site.work, &["config", "core.pager", "./tools/pager.sh"])
        && git_host(&nested, &["init", "-q"]))
    {
        return skipped("needs git on the host");
    }
    let run = bash(&Policy::default(), &site.work, PLANT);
    let out = run.ok();
    for line in out.lines() {
        let (name, status) = line.split_once('=').unwrap();
        assert_eq!(
            status == "0",
            name == "regular",
            "{name}:\n{}",
            run.output()
        );
    }
    assert_eq!(
        std::fs::read_to_string(site.work.join(".husky/pre-commit")).unwrap(),
        "#!/bin/sh\n"
    );
    assert!(!site.work.join(".husky/post-checkout").exists());
    assert!(!found_under(&site.work, "pwned"));
    let hooks = nested.join(".git/hooks/pre-commit");
    assert!(!hooks.exists());
    // The control: opened, every write lands.
    let open = Policy {
        writable_vcs: true,
        ..Policy::default()
    };
    let planted = bash(&open, &site.work, PLANT);
    assert!(
        planted
            .ok()
            .starts_with("hook=0\nnew_hook=0\nmove_hooks=0\n"),
        "{}",
        planted.output()
    );
    passed()
}

fn missing_named() -> Outcome {
    skip_if!(without(Guarantee::VcsReadOnly));
    let site = site();
    if !(git_host(&site.work, &["init", "-q"])
        && git_host(&site.work, &["config", "core.hooksPath", ".githooks"]))
    {
        return skipped("needs git on the host");
    }
    let run = bash(&Policy::default(), &site.work, "echo ran");
    assert_eq!(run.ok(), "ran\n");
    let confinement = &run.finished.as_ref().unwrap().confinement;
    let said = confinement
        .unprotected()
        .expect("the missing folder is said");
    assert!(said.contains(".githooks"), "{said}");
    assert!(!confinement.holds(Guarantee::VcsReadOnly));
    assert!(confinement.to_string().contains("not kept read-only"));
    passed()
}
