//! The system call filter, one BPF program: what no shell command needs is refused with `EPERM`
//! (`ENOSYS` for `clone3`, so that the C library falls back to `clone`, whose flags a filter can
//! read).
//!
//! Refused everywhere: keyrings, `ptrace` and cross-process memory access, `bpf`,
//! `perf_event_open`, `userfaultfd`, `io_uring`, kernel modules and `kexec`, every mount call,
//! `chroot`, file handles, `unshare`, `setns`, `clone` with a namespace flag, terminal input
//! injection (`TIOCSTI`, `TIOCLINUX`), and sockets of any family but Unix, IPv4, IPv6 and
//! netlink route, or of the MPTCP and SCTP protocols. Without namespaces, also System V IPC and
//! POSIX message queues, and, when the network is not allowed, every IPv4 and IPv6 socket: what
//! the namespaces would otherwise keep apart.
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
    let mut program = enosys_prefix();
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

/// The instructions before seccompiler's program: `clone3` refused with `ENOSYS` (so that the
/// C library falls back to `clone`, whose flags the rules can read), and on x86-64 the system
/// calls of the x32 convention (numbers with bit 30 set), which would go around rules that name
/// x86-64 numbers. seccompiler has no rule for either. They read only the system call number; a
/// call of another architecture goes on to seccompiler's check, which kills the process.
fn enosys_prefix() -> BpfProgram {
    const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_IF_EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JUMP_IF_AT_LEAST: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const NR_OFFSET: u32 = 0; // seccomp_data.nr
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    let mut prefix = vec![op(LOAD_WORD, 0, 0, NR_OFFSET)];
    if cfg!(target_arch = "x86_64") {
        // To the return two instructions on.
        prefix.push(op(JUMP_IF_AT_LEAST, 1, 0, X32_SYSCALL_BIT));
    }
    prefix.extend([
        // The return, or past it.
        op(JUMP_IF_EQUAL, 0, 1, libc::SYS_clone3 as u32),
        op(RETURN, 0, 0, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
    ]);
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
                assert!(program.len() > enosys_prefix().len() && program.len() < 4096);
            }
        }
    }
}
