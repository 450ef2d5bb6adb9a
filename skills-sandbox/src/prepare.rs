//! [`Policy::prepare`]: a command to run in the sandbox, at the level the kernel gives.

use std::ffi::OsStr;
use std::path::Path;

use crate::call::{Prepared, new_call_dir};
use crate::error::SandboxError;
use crate::paths::checked_workdir;
use crate::policy::Policy;
use crate::wire::StagePolicy;

impl Policy {
    /// A command that runs `program` with `args` in this sandbox, in `workdir` (read-write),
    /// to spawn and wait on as the caller likes.
    ///
    /// In [`Mode::Preferred`](crate::Mode::Preferred) and [`Mode::Required`](crate::Mode::Required), the first call in a process runs a probe
    /// of the kernel (a sandbox started and stopped, a few milliseconds) unless
    /// [`Policy::probe`] ran before; later calls reuse its answer.
    ///
    /// Errors: the entry line is missing or late ([`SandboxError::EntryMissing`],
    /// [`SandboxError::EntryNotFirst`]), a path is unusable ([`SandboxError::InvalidPath`]),
    /// the kernel refuses namespaces in [`Mode::Required`](crate::Mode::Required) ([`SandboxError::Unavailable`]), or
    /// the call's private folder cannot be made ([`SandboxError::Prepare`]).
    pub fn prepare<I, S>(
        &self,
        workdir: &Path,
        program: impl AsRef<OsStr>,
        args: I,
    ) -> Result<Prepared, SandboxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let workdir = checked_workdir(workdir)?;
        let (level, fallback_reason) = self.level()?;
        let stage = StagePolicy {
            level,
            probe: false,
            workdir,
            program: program.as_ref().to_owned(),
            args: args.into_iter().map(|a| a.as_ref().to_owned()).collect(),
            read_only: self.read_only.clone(),
            read_write: self.read_write.clone(),
            allow_network: self.allow_network,
            writable_vcs: self.writable_vcs,
            limits: self.limits,
            git: crate::protected::GitSettings::from_env(),
        };
        self.prepare_stage(new_call_dir(level)?, stage, fallback_reason)
    }
}
