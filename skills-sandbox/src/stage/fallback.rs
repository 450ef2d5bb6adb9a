//! The fallback stage: no namespaces. It restricts itself with the limits, a new session, no
//! capabilities, Landlock and seccomp, and becomes the command (which keeps its parent-death
//! signal: killing the outer stage kills the command, not what the command started).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use rustix::process::setsid;

use super::{StageResult, Step, command_env, die_with_parent, not_started, read_policy};
use crate::call_dir;
use crate::capabilities;
use crate::landlock_rules;
use crate::limits;
use crate::report::{Record, ReportFile};
use crate::seccomp::{self, FilterFor};

pub(super) fn run(dir: &Path, report: &ReportFile) -> StageResult {
    die_with_parent(report)?;
    let policy = read_policy(dir)?;
    let tmp = dir.join(call_dir::TMP);
    report.write(&Record::PidMax(false));
    limits::apply(&policy.limits)?;
    setsid().step(|| "start a new session without a terminal".to_owned())?;
    capabilities::drop_all()?;
    report.write(&Record::Landlock(landlock_rules::restrict(&policy, &tmp)));
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
