//! The filesystem: system folders read-only, the working directory read-write but `nodev` and
//! `nosuid` with its version control metadata read-only, a private `/tmp` that leaves nothing
//! behind, and nothing of the host beside.

use std::os::unix::fs::MetadataExt;
use std::process::Command;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Limits, Policy};

use crate::skip_if;
use crate::support::{Outcome, SECRET, bash, passed, site, skipped, trial, unique, without};

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

/// `git` on the host, in `dir`.
fn git_host(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .is_ok_and(|out| out.status.success())
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
