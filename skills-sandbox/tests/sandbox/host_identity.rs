//! Who the command is to the host: no set-user-ID or set-group-ID bit and no file capability on
//! anything it makes (checked from the host, by another user running it), nobody to root's
//! files when the caller is root (a 0600 file planted under each mounted system folder), no
//! host-wide `/proc` table, and of `/etc/ssl` only what TLS clients read.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Policy, SYSTEM_READ_ONLY};

use crate::local_services::SYSCALL;
use crate::support::{
    Outcome, SECRET, bash, namespaces_refused_here, passed, python, site, skipped, trial, unique,
    without, without_root,
};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "identity_set_id_bits_and_file_capabilities_cannot_be_set",
            set_id_bits,
        ),
        trial(
            "identity_a_file_the_command_made_grants_nothing_to_another_user",
            run_by_another_user,
        ),
        trial(
            "identity_root_only_files_under_every_system_folder_are_unreadable",
            root_only_files,
        ),
        trial("identity_host_proc_tables_are_masked", proc_tables),
        trial(
            "identity_tls_private_keys_are_not_there_certificates_are",
            tls_keys,
        ),
    ]
}

/// Each way of giving a file a set-id bit or a capability, as `name result` lines (the result
/// of the call: 0, or minus the error number), then the controls that must work.
fn set_id_script() -> String {
    format!(
        "{SYSCALL}import shutil, stat\n\
         shutil.copy('/usr/bin/id', 'id-copy')\n\
         def attempt(name, f):\n    \
         try: f(); print(name, 0)\n    \
         except OSError as e: print(name, -e.errno)\n\
         attempt('chmod_suid', lambda: os.chmod('id-copy', 0o4755))\n\
         attempt('chmod_sgid', lambda: os.chmod('id-copy', 0o2755))\n\
         fd = os.open('id-copy', os.O_RDONLY)\n\
         attempt('fchmod', lambda: os.fchmod(fd, 0o4755))\n\
         print('fchmodat2', call(452, -100, b'id-copy', 0o4755, 0))\n\
         attempt('open_creat', lambda: os.open('made-suid', os.O_CREAT | os.O_WRONLY, 0o4755))\n\
         attempt('open_tmpfile', lambda: os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o6755))\n\
         attempt('mknod', lambda: os.mknod('node-suid', stat.S_IFREG | 0o4755))\n\
         attempt('mkdir_sgid', lambda: os.mkdir('dir-sgid', 0o2755))\n\
         print('openat2', call(437, -100, b'made-openat2', 0, 0))\n\
         cap = bytes.fromhex('0100000200000000000000000000000000000000')\n\
         attempt('setcap', lambda: os.setxattr('id-copy', 'security.capability', cap))\n\
         attempt('xattr', lambda: os.setxattr('id-copy', 'user.planted', b'x'))\n\
         attempt('chmod_plain', lambda: os.chmod('id-copy', 0o755))\n\
         attempt('chmod_sticky', lambda: os.chmod('.', 0o1777))\n\
         attempt('open_plain', lambda: os.close(os.open('plain', os.O_CREAT | os.O_WRONLY, 0o644)))\n\
         attempt('mkdir_plain', lambda: os.mkdir('dir', 0o755))\n"
    )
}

fn set_id_bits() -> Outcome {
    let site = site();
    let run = python(&Policy::default(), &site.work, &set_id_script());
    let out = run.ok();
    let result = |name: &str| -> i64 {
        out.lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ")))
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("no result for {name}:\n{}", run.output()))
    };
    for refused in [
        "chmod_suid",
        "chmod_sgid",
        "fchmod",
        "fchmodat2",
        "open_creat",
        "open_tmpfile",
        "mknod",
        "mkdir_sgid",
    ] {
        assert_eq!(result(refused), -libc::EPERM as i64, "{refused}:\n{out}");
    }
    // No way around the filter's view of the mode: `openat2` answers "no such call", and the
    // C library's `open` goes through `openat`.
    assert_eq!(result("openat2"), -libc::ENOSYS as i64, "{out}");
    for refused in ["setcap", "xattr"] {
        assert_eq!(
            result(refused),
            -libc::EOPNOTSUPP as i64,
            "{refused}:\n{out}"
        );
    }
    for control in ["chmod_plain", "chmod_sticky", "open_plain", "mkdir_plain"] {
        assert_eq!(result(control), 0, "{control} should work:\n{out}");
    }
    // From the host: nothing the command left has a set-id bit or a capability.
    for entry in std::fs::read_dir(&site.work).unwrap() {
        let path = entry.unwrap().path();
        let mode = std::fs::symlink_metadata(&path).unwrap().mode();
        assert_eq!(mode & 0o6000, 0, "{} has mode {mode:o}", path.display());
        assert!(
            !has_xattr(&path, "security.capability"),
            "{} has a file capability",
            path.display()
        );
    }
    passed()
}

/// Whether the host sees the extended attribute `name` on `path`.
fn has_xattr(path: &Path, name: &str) -> bool {
    let script = format!(
        "import os\ntry: os.getxattr({path:?}, {name:?}); print('set')\nexcept OSError: print('none')"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "set"
}

/// A user no process of the host runs as.
const OTHER_USER: &str = "65533";

/// What `program` says running as [`OTHER_USER`] on the host.
fn id_as_other_user(program: &Path) -> String {
    let out = Command::new("setpriv")
        .args([
            &format!("--reuid={OTHER_USER}"),
            &format!("--regid={OTHER_USER}"),
            "--clear-groups",
        ])
        .arg(program)
        .output()
        .expect("setpriv runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run_by_another_user() -> Outcome {
    skip_if!(without_root());
    if namespaces_refused_here() {
        return skipped("another user cannot be had inside the test's own user namespace");
    }
    let site = site();
    // Another user must reach the files.
    for dir in [site.work.parent().unwrap(), site.work.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // The control: a set-user-ID copy made on the host grants its owner's id to another user.
    let control = site.work.join("id-host");
    std::fs::copy("/usr/bin/id", &control).unwrap();
    std::fs::set_permissions(&control, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let granted = id_as_other_user(&control);
    if !granted.contains("euid=0") {
        return skipped(format!(
            "this file system ignores set-user-ID bits, so the attack cannot be seen: {granted}"
        ));
    }
    std::fs::remove_file(&control).unwrap();
    // The attack: a copy of a program, made set-user-ID (and set-group-ID) by every means.
    let run = bash(
        &Policy::default(),
        &site.work,
        "cp /usr/bin/id id-copy; chmod 6755 id-copy; chmod u+s,g+s id-copy; \
         install -m 4755 /usr/bin/id id-installed; echo done",
    );
    assert!(run.ok().ends_with("done\n"), "{}", run.output());
    let said = id_as_other_user(&site.work.join("id-copy"));
    assert!(
        said.contains(&format!("uid={OTHER_USER}")) && !said.contains("euid="),
        "the copy granted an id: {said}"
    );
    // `install` leaves its copy unreadable to others when the mode fails: it runs for no one.
    let installed = id_as_other_user(&site.work.join("id-installed"));
    assert!(!installed.contains("euid="), "{installed}");
    passed()
}

/// A file planted in a system folder for the test, removed when dropped.
struct Planted(PathBuf);

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The folders of [`SYSTEM_READ_ONLY`] that exist here as folders (not links).
fn system_folders() -> Vec<&'static str> {
    SYSTEM_READ_ONLY
        .iter()
        .copied()
        .filter(|path| std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()))
        .collect()
}

fn root_only_files() -> Outcome {
    skip_if!(without_root());
    skip_if!(without(Guarantee::NobodyToHost));
    let name = unique("skills-planted");
    let mut planted = Vec::new();
    for folder in system_folders() {
        let path = Path::new(folder).join(&name);
        std::fs::write(&path, SECRET).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        planted.push(Planted(path));
    }
    assert!(planted.len() >= 3, "too few system folders here");
    // The control: a file everyone may read is read.
    let readable = Planted(Path::new("/usr").join(format!("{name}-public")));
    std::fs::write(&readable.0, "PUBLIC").unwrap();
    std::fs::set_permissions(&readable.0, std::fs::Permissions::from_mode(0o644)).unwrap();
    let site = site();
    let files: Vec<String> = planted
        .iter()
        .chain([&readable])
        .map(|p| p.0.display().to_string())
        .collect();
    let run = bash(
        &Policy::default(),
        &site.work,
        &format!(
            "for f in {}; do cat \"$f\"; echo; done; id -u",
            files.join(" ")
        ),
    );
    let out = run.output();
    assert!(!out.contains(SECRET), "a root-only file was read:\n{out}");
    assert_eq!(
        out.matches("Permission denied").count(),
        planted.len(),
        "{out}"
    );
    assert!(run.stdout.contains("PUBLIC"), "{out}");
    // Uid 0 of its own user namespace, which is the overflow user to the host.
    assert!(run.stdout.ends_with("\n0\n"), "{out}");
    passed()
}

/// The tables of `/proc` that describe the whole host, as files.
const HOST_TABLES: &[&str] = &[
    "keys",
    "key-users",
    "kallsyms",
    "timer_list",
    "slabinfo",
    "interrupts",
    "sched_debug",
    "kcore",
];

fn proc_tables() -> Outcome {
    // The control: the host's own tables have content (the test would see a leak).
    let on_host: Vec<&str> = ["key-users", "interrupts"]
        .into_iter()
        .filter(|t| std::fs::read(format!("/proc/{t}")).is_ok_and(|b| !b.is_empty()))
        .collect();
    let site = site();
    let script: String = HOST_TABLES
        .iter()
        .map(|table| format!("echo \"{table} $(cat /proc/{table} 2>/dev/null | wc -c)\"; "))
        .chain(["echo \"acpi $(ls -A /proc/acpi 2>/dev/null | wc -l)\"; ".to_owned()])
        .chain(["echo \"status $(wc -l < /proc/self/status)\"".to_owned()])
        .collect();
    let run = bash(&Policy::default(), &site.work, &script);
    let out = run.ok();
    for table in HOST_TABLES.iter().chain(&["acpi"]) {
        assert!(
            out.lines().any(|line| line == format!("{table} 0")),
            "/proc/{table} shows something:\n{out}\n(the host's tables with content: {on_host:?})"
        );
    }
    // The command's own entries are still there with the namespaces (the fallback has no
    // /proc at all).
    if crate::support::default_confinement().holds(Guarantee::HostHidden) {
        assert!(!out.contains("status 0"), "{out}");
    }
    passed()
}

fn tls_keys() -> Outcome {
    if std::fs::read_dir("/etc/ssl/certs").is_err() {
        return skipped("this host has no /etc/ssl/certs");
    }
    let site = site();
    let run = bash(
        &Policy::default(),
        &site.work,
        "ls /etc/ssl/private 2>&1; echo; ls /etc/ssl/certs | wc -l; echo listing; ls /etc/ssl",
    );
    let out = run.output();
    // Not there (No such file) with the namespaces; not readable (Landlock) in the fallback.
    assert!(
        out.starts_with("ls: cannot access '/etc/ssl/private'")
            || out.starts_with("ls: cannot open directory '/etc/ssl/private'"),
        "{out}"
    );
    let certificates: usize = run
        .stdout
        .lines()
        .nth(2)
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    // The certificate authorities are there (a test that plants a file there may run now).
    let on_host = std::fs::read_dir("/etc/ssl/certs").unwrap().count();
    assert!(certificates > 0 || on_host == 0, "{out}");
    let listing = run.stdout.split("listing\n").nth(1).unwrap_or_default();
    assert!(!listing.contains("private"), "{out}");
    passed()
}
