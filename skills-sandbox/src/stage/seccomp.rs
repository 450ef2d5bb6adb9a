//! The system call filter, one BPF program: what no shell command needs is refused with `EPERM`;
//! a few calls get another answer a program knows how to take (`ENOSYS` for `clone3` and
//! `openat2`, so that the C library falls back to `clone` and `openat`, whose arguments a filter
//! can read; `EOPNOTSUPP` for setting extended attributes, as a file system without them
//! answers, so that `cp -a`, `tar` and `rsync` carry on).
//!
//! Refused everywhere: keyrings, `ptrace` and cross-process memory access, `bpf`,
//! `perf_event_open`, `userfaultfd`, `io_uring`, kernel modules and `kexec`, every mount call,
//! `chroot`, file handles, `unshare`, `setns`, `clone` with a namespace flag, terminal input
//! injection (`TIOCSTI`, `TIOCLINUX`), sockets of any family but Unix, IPv4, IPv6 and netlink
//! route, or of the MPTCP and SCTP protocols; a set-user-ID or set-group-ID bit in the mode of
//! `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, `mknod`, `mknodat`, `mkdir`, `mkdirat`, and of
//! `open`, `openat` and `creat` when they create; and every extended attribute write, so that
//! no file capability (`security.capability`, whose name the filter cannot read) can be set.
//! Without namespaces, also System V IPC and POSIX message queues, when the network is not
//! allowed every IPv4 and IPv6 socket, and the calls that change another process's resource
//! limits, priority, I/O priority, scheduling, CPU affinity or memory placement (allowed with
//! process id 0, the caller itself, and with the command's own id, the shell's `$$`; a child
//! naming itself by its id, or a thread by its id, is refused): what the namespaces would
//! otherwise keep apart.
//!
//! A system call of another architecture's convention (32-bit `int 0x80`, x32) is refused too:
//! the filter's numbers are this architecture's.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use crate::confinement::Level;
use crate::stage::Failure;

/// Which filter: the level, and whether the network is allowed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FilterFor {
    pub(crate) level: Level,
    pub(crate) allow_network: bool,
}

impl FilterFor {
    /// The process id the fallback's calls on other processes may still name: the process
    /// that applies the filter and becomes the command (the shell's `$$`), beside 0.
    fn own_pid(self) -> u64 {
        u64::from(
            rustix::process::getpid()
                .as_raw_nonzero()
                .get()
                .unsigned_abs(),
        )
    }
}

/// Applies the filter to the calling thread (and so to what it starts). Sets `no_new_privs`.
pub(crate) fn apply(filter: FilterFor) -> Result<(), Failure> {
    seccompiler::apply_filter(&program(filter)?).map_err(|error| Failure {
        step: "apply the system call filter".to_owned(),
        error: match error {
            seccompiler::Error::Seccomp(error) | seccompiler::Error::Prctl(error) => error,
            other => std::io::Error::other(other.to_string()),
        },
    })
}

/// The BPF program: the calls refused with `ENOSYS` first ([`enosys_prefix`]), then
/// seccompiler's program of the calls refused with `EPERM`, which checks the architecture.
/// One program rather than one per action: the kernel attaches, compiles and runs each filter
/// on its own, at every system call.
fn program(filter: FilterFor) -> Result<BpfProgram, Failure> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|error| {
        Failure::message(format!(
            "no system call filter for this architecture: {error}"
        ))
    })?;
    let refused = SeccompFilter::new(
        refused(filter)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .and_then(BpfProgram::try_from)
    .map_err(|error| Failure::message(format!("build the system call filter: {error}")))?;
    let mut program = prefix();
    program.extend(refused);
    Ok(program)
}

/// The system calls refused with `EPERM`, with the argument rules of those refused only for
/// some arguments (any rule matching refuses the call).
fn refused(filter: FilterFor) -> Result<BTreeMap<i64, Vec<SeccompRule>>, Failure> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALWAYS_REFUSED
        .iter()
        .map(|&call| (call, Vec::new()))
        .collect();
    if filter.level == Level::Fallback {
        rules.extend(
            REFUSED_WITHOUT_NAMESPACES
                .iter()
                .map(|&call| (call, Vec::new())),
        );
    }
    if filter.level == Level::Fallback {
        let own = filter.own_pid();
        // Another process: neither 0 (the caller) nor the command's own id.
        let other = |arg: u8| [(arg, SeccompCmpOp::Ne, 0), (arg, SeccompCmpOp::Ne, own)];
        for &call in OTHER_PROCESSES_BY_PID {
            rules.insert(call, vec![rule(&other(0))?]);
        }
        // `who` 0 is the caller (or its process group); `PRIO_USER` and `IOPRIO_WHO_USER` reach
        // every process of the uid, the agent's included.
        rules.insert(
            libc::SYS_setpriority,
            vec![
                rule(&other(1))?,
                rule(&[(0, SeccompCmpOp::Eq, libc::PRIO_USER as u64)])?,
            ],
        );
        rules.insert(
            libc::SYS_ioprio_set,
            vec![
                rule(&other(1))?,
                rule(&[(0, SeccompCmpOp::Eq, IOPRIO_WHO_USER)])?,
            ],
        );
    }
    for &(call, mode) in MODE_ARGUMENT {
        rules.insert(call, set_id_rules(mode, None)?);
    }
    for &(call, flags, mode) in CREATING_OPEN {
        rules.insert(call, set_id_rules(mode, Some(flags))?);
    }
    rules.insert(libc::SYS_clone, clone_rules()?);
    rules.insert(libc::SYS_socket, socket_rules(filter)?);
    rules.insert(
        libc::SYS_ioctl,
        [libc::TIOCSTI, libc::TIOCLINUX]
            .into_iter()
            .map(|request| rule(&[(1, SeccompCmpOp::Eq, request)]))
            .collect::<Result<_, _>>()?,
    );
    Ok(rules)
}

/// Refused whatever the arguments.
const ALWAYS_REFUSED: &[i64] = &[
    libc::SYS_add_key,
    libc::SYS_keyctl,
    libc::SYS_request_key,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_chroot,
    libc::SYS_name_to_handle_at,
    libc::SYS_open_by_handle_at,
    libc::SYS_unshare,
    libc::SYS_setns,
];

/// Refused in the fallback: the IPC namespace would have kept these apart from the host's.
const REFUSED_WITHOUT_NAMESPACES: &[i64] = &[
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_shmdt,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
];

/// Refused in the fallback unless their first argument, a process id, is 0 (the caller) or the
/// command's own: the PID namespace would have kept every other process out of reach.
const OTHER_PROCESSES_BY_PID: &[i64] = &[
    libc::SYS_prlimit64,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
];

/// `ioprio_set`'s "every process of this user".
const IOPRIO_WHO_USER: u64 = 3;

/// `fchmodat2`, the same number on every architecture (as every call numbered 424 and up).
const SYS_FCHMODAT2: i64 = 452;
/// `setxattrat`, the same number on every architecture.
const SYS_SETXATTRAT: i64 = 463;

/// The calls that set a file's mode, with the argument that holds it: refused with a
/// set-user-ID or set-group-ID bit in it. (`mkdir` ignores both for the folder itself, but a
/// set-group-ID folder passes its group on.)
const MODE_ARGUMENT: &[(i64, u8)] = &[
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_chmod, 1),
    (libc::SYS_fchmod, 1),
    (libc::SYS_fchmodat, 2),
    (SYS_FCHMODAT2, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_mkdir, 1),
    (libc::SYS_mkdirat, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_mknod, 1),
    (libc::SYS_mknodat, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_creat, 1),
];

/// The calls that create a file when their flags say so (`O_CREAT`, `O_TMPFILE`), with the
/// arguments of the flags and of the mode.
const CREATING_OPEN: &[(i64, u8, u8)] = &[
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_open, 1, 2),
    (libc::SYS_openat, 2, 3),
];

/// A set-user-ID or set-group-ID bit in argument `mode`, when the flags in argument `flags`
/// (if any) create a file: one rule per bit and creating flag.
fn set_id_rules(mode: u8, flags: Option<u8>) -> Result<Vec<SeccompRule>, Failure> {
    let mut rules = Vec::new();
    for bit in [libc::S_ISUID, libc::S_ISGID] {
        let set_id = (mode, SeccompCmpOp::MaskedEq(u64::from(bit)), u64::from(bit));
        match flags {
            None => rules.push(rule(&[set_id])?),
            Some(flags) => {
                for create in [libc::O_CREAT, libc::O_TMPFILE] {
                    let create = create as u64;
                    let creating = (flags, SeccompCmpOp::MaskedEq(create), create);
                    rules.push(rule(&[creating, set_id.clone()])?);
                }
            }
        }
    }
    Ok(rules)
}

/// `clone` with any namespace flag (in its first argument on every architecture here).
/// `CLONE_NEWTIME` shares its bit with the exit signal in `clone`, and only `clone3` and
/// `unshare` take it, both refused.
fn clone_rules() -> Result<Vec<SeccompRule>, Failure> {
    [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ]
    .into_iter()
    .map(|flag| {
        let flag = flag as u64;
        SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )
        .and_then(|condition| SeccompRule::new(vec![condition]))
        .map_err(filter_error)
    })
    .collect()
}

/// `socket(domain, type, protocol)`: families other than Unix, IPv4, IPv6 and netlink; netlink
/// other than route (audit, uevents, ...); MPTCP and SCTP; and without namespaces or network,
/// IPv4 and IPv6.
fn socket_rules(filter: FilterFor) -> Result<Vec<SeccompRule>, Failure> {
    let (unix, inet, inet6, netlink) = (
        libc::AF_UNIX as u64,
        libc::AF_INET as u64,
        libc::AF_INET6 as u64,
        libc::AF_NETLINK as u64,
    );
    let mut rules = vec![
        rule(&[
            (0, SeccompCmpOp::Ne, unix),
            (0, SeccompCmpOp::Ne, inet),
            (0, SeccompCmpOp::Ne, inet6),
            (0, SeccompCmpOp::Ne, netlink),
        ])?,
        rule(&[
            (0, SeccompCmpOp::Eq, netlink),
            (2, SeccompCmpOp::Ne, libc::NETLINK_ROUTE as u64),
        ])?,
        rule(&[(2, SeccompCmpOp::Eq, libc::IPPROTO_MPTCP as u64)])?,
        rule(&[(2, SeccompCmpOp::Eq, libc::IPPROTO_SCTP as u64)])?,
    ];
    if filter.level == Level::Fallback && !filter.allow_network {
        rules.push(rule(&[(0, SeccompCmpOp::Eq, inet)])?);
        rules.push(rule(&[(0, SeccompCmpOp::Eq, inet6)])?);
    }
    Ok(rules)
}

/// A rule whose conditions all hold: `(argument, comparison, value)` on 32-bit arguments (the
/// kernel reads `int` arguments from the low half of the register, and so does the filter).
fn rule(conditions: &[(u8, SeccompCmpOp, u64)]) -> Result<SeccompRule, Failure> {
    conditions
        .iter()
        .map(|(arg, op, value)| {
            SeccompCondition::new(*arg, SeccompCmpArgLen::Dword, op.clone(), *value)
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(SeccompRule::new)
        .map_err(filter_error)
}

fn filter_error(error: seccompiler::BackendError) -> Failure {
    Failure::message(format!("build the system call filter: {error}"))
}

/// The calls refused with another error than seccompiler's `EPERM`, whatever their arguments.
const OTHER_ANSWERS: &[(i64, i32)] = &[
    // The C library falls back to `clone`, whose flags the rules can read.
    (libc::SYS_clone3, libc::ENOSYS),
    // Its mode is behind a pointer; the C library and runtimes fall back to `openat`.
    (libc::SYS_openat2, libc::ENOSYS),
    // The name of the attribute (`security.capability`) is behind a pointer: every write is
    // refused, with the answer of a file system that has no extended attributes.
    (libc::SYS_setxattr, libc::EOPNOTSUPP),
    (libc::SYS_lsetxattr, libc::EOPNOTSUPP),
    (libc::SYS_fsetxattr, libc::EOPNOTSUPP),
    (SYS_SETXATTRAT, libc::EOPNOTSUPP),
];

/// The instructions before seccompiler's program, which has one answer for every rule: the
/// calls of [`OTHER_ANSWERS`], and on x86-64 the system calls of the x32 convention (numbers
/// with bit 30 set, refused with `ENOSYS`), which would go around rules that name x86-64
/// numbers. They read only the system call number; a call of another architecture goes on to
/// seccompiler's check, which kills the process.
fn prefix() -> BpfProgram {
    const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_IF_EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JUMP_IF_AT_LEAST: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const JUMP: u16 = 0x05; // BPF_JMP | BPF_JA
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const NR_OFFSET: u32 = 0; // seccomp_data.nr
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    let mut answers: Vec<i32> = Vec::new();
    let mut tests: Vec<(u16, u32, usize)> = Vec::new();
    let mut answer = |errno: i32| match answers.iter().position(|&a| a == errno) {
        Some(at) => at,
        None => {
            answers.push(errno);
            answers.len() - 1
        }
    };
    if cfg!(target_arch = "x86_64") {
        tests.push((JUMP_IF_AT_LEAST, X32_SYSCALL_BIT, answer(libc::ENOSYS)));
    }
    for &(call, errno) in OTHER_ANSWERS {
        tests.push((JUMP_IF_EQUAL, call as u32, answer(errno)));
    }
    let mut prefix = vec![op(LOAD_WORD, 0, 0, NR_OFFSET)];
    // A test jumps over the tests after it and the jump past the answers, to its answer.
    for (i, &(code, k, to)) in tests.iter().enumerate() {
        let jump = tests.len() - i + to;
        prefix.push(op(code, jump as u8, 0, k));
    }
    prefix.push(op(JUMP, 0, 0, answers.len() as u32));
    for errno in answers {
        prefix.push(op(RETURN, 0, 0, libc::SECCOMP_RET_ERRNO | errno as u32));
    }
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_builds_for_this_architecture() {
        for level in [Level::Namespaces, Level::Fallback] {
            for allow_network in [false, true] {
                let program = program(FilterFor {
                    level,
                    allow_network,
                })
                .unwrap();
                assert!(program.len() > prefix().len() && program.len() < 4096);
            }
        }
    }
}
