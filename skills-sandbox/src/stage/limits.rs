//! Resource limits of a call: `setrlimit` for each of [`Limits`], and the `pid_max` of the
//! call's PID namespace, which also caps a caller that is root (`RLIMIT_NPROC` does not apply
//! to root).

use std::ffi::CStr;
use std::fs;
use std::path::Path;

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

use crate::policy::Limits;
use crate::stage::{Failure, Step};

/// The smallest `pid_max` the kernel accepts: the first 300 ids are reserved after a wrap.
const PID_MAX_MIN: u64 = 301;

/// Sets every limit of `limits` as both soft and hard limit of this process (and so of what it
/// starts), lowered to the hard limit it already has; no core dumps.
pub(crate) fn apply(limits: &Limits) -> Result<(), Failure> {
    let wanted = [
        (Resource::As, limits.address_space, "address space"),
        (Resource::Nproc, limits.processes, "processes"),
        (Resource::Nofile, limits.open_files, "open files"),
        (Resource::Fsize, limits.file_size, "file size"),
        (Resource::Cpu, limits.cpu_seconds, "CPU time"),
        (Resource::Core, Some(0), "core dumps"),
    ];
    for (resource, value, name) in wanted {
        let Some(value) = value else { continue };
        let hard = getrlimit(resource)
            .maximum
            .map_or(value, |hard| hard.min(value));
        setrlimit(
            resource,
            Rlimit {
                current: Some(hard),
                maximum: Some(hard),
            },
        )
        .step(|| format!("limit the {name} to {hard}"))?;
    }
    Ok(())
}

/// Caps the processes and threads of the PID namespace whose `/proc` is mounted at `proc`, by
/// its `pid_max`, when this kernel keeps `pid_max` per namespace (6.14 and later; before, the
/// value was global, and a root caller would change the host's). Returns whether it did.
pub(crate) fn cap_pid_namespace(proc: &Path, processes: Option<u64>) -> Result<bool, Failure> {
    let Some(processes) = processes else {
        return Ok(false);
    };
    if !pid_max_is_per_namespace(rustix::system::uname().release()) {
        return Ok(false);
    }
    // Ids 1 (init) and up: `processes` more than init, and the kernel's minimum.
    let pid_max = processes.saturating_add(2).max(PID_MAX_MIN);
    fs::write(proc.join("sys/kernel/pid_max"), pid_max.to_string())
        .step(|| format!("set the PID namespace's pid_max to {pid_max}"))?;
    Ok(true)
}

/// Whether a kernel of `release` (`uname -r`) keeps `pid_max` per PID namespace.
fn pid_max_is_per_namespace(release: &CStr) -> bool {
    let release = release.to_string_lossy();
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let major = numbers.next().unwrap_or(0);
    let minor = numbers.next().unwrap_or(0);
    (major, minor) >= (6, 14)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_max_is_per_namespace_from_linux_6_14() {
        for (release, per_namespace) in [
            (c"6.18.44-fc-v857", true),
            (c"6.14.0", true),
            (c"7.0.1-arch1", true),
            (c"6.13.12-200.fc41.x86_64", false),
            (c"5.15.0-91-generic", false),
            (c"garbage", false),
        ] {
            assert_eq!(
                pid_max_is_per_namespace(release),
                per_namespace,
                "{release:?}"
            );
        }
    }
}
