//! Landlock: the second layer inside the namespaces (the same paths the new root holds, should
//! a mount ever expose more), and the file and TCP confinement of the fallback.
//!
//! Read and execute: [`SYSTEM_READ_ONLY`] and the policy's read-only paths (with namespaces
//! also `/proc`, the sandbox's own, the `/etc/passwd` and `/etc/group` it was given, and the
//! listing of every folder: the new root holds nothing else to list).
//! Read and write: the working directory, the private temporary folder, the policy's
//! read-write paths and [`DEVICES`]. Signals and abstract Unix sockets are scoped to the
//! sandbox. In the fallback without network, TCP `connect` and `bind` are refused too.
//!
//! Landlock restricts the calling thread and everything it starts, for good.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
    RulesetStatus, Scope, path_beneath_rules,
};

use crate::confinement::{LandlockStatus, Level};
use crate::policy::{DEVICES, SYSTEM_READ_ONLY};
use crate::wire::StagePolicy;

/// The newest ABI whose rights are asked for; an older kernel enforces what it knows, and the
/// status says "partial".
const ABI_TARGET: ABI = ABI::V6;

/// Restricts the calling thread for `policy`, with `tmp` as the private temporary folder.
pub(crate) fn restrict(policy: &StagePolicy, tmp: &Path) -> LandlockStatus {
    match try_restrict(policy, tmp) {
        Ok(RulesetStatus::FullyEnforced) => LandlockStatus::Full,
        Ok(RulesetStatus::PartiallyEnforced) => LandlockStatus::Partial,
        Ok(RulesetStatus::NotEnforced) | Err(_) => LandlockStatus::None,
    }
}

fn try_restrict(policy: &StagePolicy, tmp: &Path) -> Result<RulesetStatus, RulesetError> {
    let abi = ABI_TARGET;
    let namespaces = policy.level == Level::Namespaces;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))?
        .scope(Scope::from_all(abi))?;
    // With namespaces the network namespace keeps the host out, and TCP on the private
    // loopback is the command's business.
    if !namespaces && !policy.allow_network {
        // Handled with no rule allowing a port: every TCP connect and bind is refused.
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    let mut read: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    read.extend(policy.read_only.iter().cloned());
    let mut write = vec![policy.workdir.clone(), tmp.to_owned()];
    write.extend(policy.read_write.iter().cloned());
    write.extend(DEVICES.iter().map(PathBuf::from));
    let mut created = ruleset
        .create()?
        .add_rules(path_beneath_rules(&read, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(&write, AccessFs::from_all(abi)))?;
    if namespaces {
        created = created
            .add_rules(path_beneath_rules(["/"], AccessFs::ReadDir))?
            .add_rules(path_beneath_rules(
                ["/etc/passwd", "/etc/group"],
                AccessFs::from_read(abi),
            ))?
            // Its own processes only; writing `/proc/self/...` is common (`/dev/stderr` leads
            // there), and `/proc/sys` is mounted read-only.
            .add_rules(path_beneath_rules(
                ["/proc"],
                AccessFs::from_read(abi) | AccessFs::WriteFile,
            ))?
            .add_rules(path_beneath_rules(["/dev/shm"], AccessFs::from_all(abi)))?;
    }
    Ok(created.restrict_self()?.ruleset)
}
