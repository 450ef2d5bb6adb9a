//! What root could do before, when the agent runs as root (containers, CI): set the set-user-ID
//! bit and file capabilities on a file under `/usr`, and make device nodes in the working
//! directory. Refused: the command holds no capability, and the system folders are read-only
//! mounts. Only root can try them; as anyone else they are reported skipped.

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
        // EROFS: /usr is a read-only mount, which no capability gets past.
        assert_eq!(
            run.result("usr"),
            "chmod refused 30\nchown refused 30\nsetcap refused 30\nwrite refused 30",
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
