//! The fallback: no namespaces. The process restricts itself with the limits, a new session,
//! no capabilities, Landlock and seccomp, and becomes the command. That is the outer stage
//! itself, unless it leads a process group (the caller's choice), which cannot start a new
//! session: then a `fallback` stage does it, and keeps its parent-death signal as the command,
//! so that killing the outer stage kills the command (not what the command started).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use rustix::process::setsid;

use super::{StageResult, Step, command_env, die_with_parent, not_started, read_policy};
use crate::call_dir;
use crate::landlock_rules;
use crate::report::{Record, ReportFile};
use crate::stage::capabilities;
use crate::stage::limits;
use crate::stage::seccomp::{self, FilterFor};
use crate::wire::StagePolicy;

/// The `fallback` stage, started by an outer stage that leads a process group.
pub(super) fn run(dir: &Path, report: &ReportFile) -> StageResult {
    die_with_parent(report)?;
    let policy = read_policy(dir)?;
    setsid().step(|| "start a new session without a terminal".to_owned())?;
    become_the_command(dir, &policy, report)
}

/// Restricts this process, in a new session already, and executes the command (or ends a
/// probe).
pub(super) fn become_the_command(
    dir: &Path,
    policy: &StagePolicy,
    report: &ReportFile,
) -> StageResult {
    let tmp = dir.join(call_dir::TMP);
    report.write(&Record::PidMax(false));
    limits::apply(&policy.limits)?;
    capabilities::drop_all()?;
    report.write(&Record::Landlock(landlock_rules::restrict(policy, &tmp)));
    seccomp::apply(FilterFor {
        level: policy.level,
        allow_network: policy.allow_network,
    })?;
    if policy.probe {
        report.write(&Record::Ready);
        std::process::exit(0);
    }
    let error = Command::new(&policy.program)
        .args(&policy.args)
        .env_clear()
        .envs(command_env())
        .env("TMPDIR", &tmp)
        .current_dir(&policy.workdir)
        .exec();
    not_started(report, &error)
}
