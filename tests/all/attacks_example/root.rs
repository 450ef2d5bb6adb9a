//! What root could do before, when the agent runs as root (containers, CI): set the set-user-ID
//! bit and file capabilities on a file under `/usr`, make device nodes in the working
//! directory, and read root's files through root's uid. Refused: the command holds no
//! capability, the system folders are read-only mounts, and a root agent's command is nobody to
//! the host's files. And for every caller: a set-user-ID copy of a program made in the working
//! directory grants nothing to whoever runs it later, and the host's `/proc` tables and TLS
//! private keys are out of reach. Attacks only root can try are reported skipped otherwise.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use crate::attacks_example::support::{
    Caller, Site, bash, host_python, is_root, python, run, skip,
};

/// A file of the host's under `/usr` for the attack to change (made by the test, so that a
/// failure harms no real program).
struct SystemFile(std::path::PathBuf);

impl SystemFile {
    fn new() -> Option<SystemFile> {
        let dir = std::path::Path::new("/usr/local/lib");
        let path = dir.join(format!(
            "skills-attack-target-{}-{}",
            std::process::id(),
            crate::attacks_example::support::marker()
        ));
        std::fs::write(&path, "#!/bin/sh\n").ok()?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).ok()?;
        Some(SystemFile(path))
    }
}

impl Drop for SystemFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_set_user_id_and_file_capabilities_under_usr_are_refused() {
    let test = "root_set_user_id_and_file_capabilities_under_usr_are_refused";
    for caller in Caller::ALL {
        if !is_root() || caller == Caller::Nobody {
            skip(test, caller, "the attack needs root");
            continue;
        }
        let site = Site::new(caller);
        let Some(target) = SystemFile::new() else {
            skip(test, caller, "cannot make a file under /usr/local/lib");
            continue;
        };
        let path = target.0.display();
        let script = format!(
            "import os\n\
             attempts = [\n    \
             ('chmod', lambda: os.chmod('{path}', 0o4755)),\n    \
             ('chown', lambda: os.chown('{path}', 1, 1)),\n    \
             ('setcap', lambda: os.setxattr('{path}', 'security.capability', \
             bytes.fromhex('0100000200000000000000000000000000000000'))),\n    \
             ('write', lambda: open('{path}', 'ab')),\n]\n\
             for name, attempt in attempts:\n    \
             try:\n        attempt(); print(name, 'done')\n    \
             except OSError as e: print(name, 'refused', e.errno)"
        );
        let before = std::fs::metadata(&target.0).unwrap();
        let calls = vec![python("usr", &script)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let after = std::fs::metadata(&target.0).unwrap();
        let capability = host_python(
            Caller::Me,
            &format!(
                "import os\ntry: os.getxattr('{path}', 'security.capability'); print('set')\n\
                 except OSError: print('none')"
            ),
        );
        if let Some(reason) = run.without_namespaces() {
            // Landlock does not cover metadata; what refuses it here is the user namespace the
            // test made (its root has no capability over the host's files).
            skip(test, caller, &reason);
            continue;
        }
        // EROFS: /usr is a read-only mount, which no capability gets past; before that, the
        // filter refuses a set-user-ID mode (EPERM) and every extended attribute (EOPNOTSUPP),
        // and the command, nobody to the host's files, may not open root's (EACCES).
        assert_eq!(
            run.result("usr"),
            "chmod refused 1\nchown refused 30\nsetcap refused 95\nwrite refused 13",
            "{}",
            caller.label()
        );
        assert_eq!(before.permissions().mode(), after.permissions().mode());
        assert_eq!((before.uid(), before.gid()), (after.uid(), after.gid()));
        assert_eq!(capability, "none", "a file capability was set");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_mknod_makes_no_device() {
    let test = "root_mknod_makes_no_device";
    for caller in Caller::ALL {
        if !is_root() || caller == Caller::Nobody {
            skip(test, caller, "the attack needs root");
            continue;
        }
        let site = Site::new(caller);
        // `c 1 11` is /dev/kmsg: reading and writing the kernel log.
        let command = "mknod kmsg c 1 11; echo rc=$?; \
                       python3 -c \"import os; os.mknod('null', 0o20666, os.makedev(1, 3))\"; \
                       echo rc=$?";
        let calls = vec![bash("mknod", command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let out = run.result("mknod");
        assert!(out.contains("Operation not permitted"), "{out}");
        assert_eq!(
            out.lines().filter(|l| *l == "rc=1").count(),
            2,
            "{}: {out}",
            caller.label()
        );
        assert!(!site.work.join("kmsg").exists(), "{out}");
        assert!(!site.work.join("null").exists(), "{out}");
    }
}

/// A copy of a program, made set-user-ID, set-group-ID and given a file capability by the
/// command, by every means a shell and Python have.
const SET_ID: &str = "import os, shutil\n\
    shutil.copy('/usr/bin/id', 'id-copy')\n\
    cap = bytes.fromhex('0100000200000000000000000000000000000000')\n\
    attempts = [\n    \
    ('suid', lambda: os.chmod('id-copy', 0o4755)),\n    \
    ('sgid', lambda: os.chmod('id-copy', 0o2755)),\n    \
    ('created', lambda: os.open('made', os.O_CREAT | os.O_WRONLY, 0o4755)),\n    \
    ('setcap', lambda: os.setxattr('id-copy', 'security.capability', cap)),\n]\n\
    for name, attempt in attempts:\n    \
    try:\n        attempt(); print(name, 'done')\n    \
    except OSError as e: print(name, 'refused', e.errno)";

/// What `program` says run by a user no process of the host runs as.
fn id_as_another_user(program: &std::path::Path) -> String {
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65533", "--regid=65533", "--clear-groups"])
        .arg(program)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_a_set_user_id_copy_made_by_the_command_grants_nothing() {
    let test = "root_a_set_user_id_copy_made_by_the_command_grants_nothing";
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = vec![python("setid", SET_ID)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // The system call filter, at either level: EPERM for a set-id mode, EOPNOTSUPP for any
        // extended attribute.
        assert_eq!(
            run.result("setid"),
            "suid refused 1\nsgid refused 1\ncreated refused 1\nsetcap refused 95",
            "{}",
            caller.label()
        );
        // From the host: no set-id bit, no capability; run by another user, it grants nothing.
        let copy = site.work.join("id-copy");
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
        assert_eq!(mode & 0o6000, 0, "{}: mode {mode:o}", caller.label());
        let capability = host_python(
            Caller::Me,
            &format!(
                "import os\ntry: os.getxattr('{}', 'security.capability'); print('set')\n\
                 except OSError: print('none')",
                copy.display()
            ),
        );
        assert_eq!(capability, "none", "{}", caller.label());
        if is_root() {
            let said = id_as_another_user(&copy);
            assert!(
                said.contains("uid=65533") && !said.contains("euid="),
                "{}: {said}",
                caller.label()
            );
            // The control: a set-user-ID copy the host makes beside it grants its owner's id.
            let control = site.work.join("id-host");
            std::fs::copy("/usr/bin/id", &control).unwrap();
            std::fs::set_permissions(&control, std::fs::Permissions::from_mode(0o4755)).unwrap();
            let granted = id_as_another_user(&control);
            assert!(granted.contains("euid="), "the control: {granted}");
        } else {
            skip(test, caller, "running the copy as another user needs root");
        }
    }
}

/// Files planted under every system folder the sandbox mounts, only root may read, removed when
/// dropped.
struct RootOnly(Vec<std::path::PathBuf>);

impl RootOnly {
    fn plant(secret: &str) -> RootOnly {
        let name = format!(
            "skills-root-only-{}-{}",
            std::process::id(),
            crate::attacks_example::support::marker()
        );
        let mut planted = Vec::new();
        for folder in skills_runtime::agent::sandbox::SYSTEM_READ_ONLY {
            let is_folder = std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir());
            let path = std::path::Path::new(folder).join(&name);
            if is_folder && std::fs::write(&path, secret).is_ok() {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
                planted.push(path);
            }
        }
        RootOnly(planted)
    }
}

impl Drop for RootOnly {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_root_only_files_under_every_system_folder_are_unreadable() {
    let test = "root_root_only_files_under_every_system_folder_are_unreadable";
    if !is_root() {
        skip(test, Caller::Me, "planting root's files needs root");
        return;
    }
    let secret = "ROOT-ONLY-SECRET-61";
    let planted = RootOnly::plant(secret);
    assert!(planted.0.len() >= 3, "{:?}", planted.0);
    let files: Vec<String> = planted.0.iter().map(|p| p.display().to_string()).collect();
    let command = format!("for f in {}; do cat \"$f\"; done; id -u", files.join(" "));
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = vec![bash("read", &command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        let out = run.result("read");
        if let Some(reason) = run.without_namespaces() {
            // Root's command without namespaces is root to root's files: the example says so
            // at start-up, before any call.
            if caller == Caller::NamespacesRefused {
                assert!(
                    run.confinement_line().contains("WARNING")
                        && run
                            .stderr
                            .contains("does not hold: nobody to the host's files"),
                    "{}",
                    run.stderr
                );
            }
            skip(test, caller, &reason);
            continue;
        }
        assert!(!out.contains(secret), "{}: {out}", caller.label());
        assert_eq!(
            out.matches("Permission denied").count(),
            planted.0.len(),
            "{}: {out}",
            caller.label()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_host_proc_tables_and_tls_private_keys_are_out_of_reach() {
    let test = "root_host_proc_tables_and_tls_private_keys_are_out_of_reach";
    let tables = [
        "keys",
        "key-users",
        "kallsyms",
        "timer_list",
        "slabinfo",
        "interrupts",
    ];
    let command: String = tables
        .iter()
        .map(|t| format!("echo {t}=$(cat /proc/{t} 2>/dev/null | wc -c); "))
        .chain(["ls /etc/ssl/private 2>/dev/null | wc -l".to_owned()])
        .collect();
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let calls = vec![bash("tables", &command)];
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // Empty with the namespaces (masked), unreadable in the fallback (Landlock).
        let expected: String = tables.iter().map(|t| format!("{t}=0\n")).collect();
        assert_eq!(
            run.result("tables"),
            format!("{expected}0"),
            "{}",
            caller.label()
        );
    }
}
