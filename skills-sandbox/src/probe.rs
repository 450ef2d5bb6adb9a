//! What this kernel gives: a sandbox built and stopped before any command, by
//! [`Policy::probe`] and, once per process, by the first call that needs to know whether
//! namespaces work.

use std::fs;
use std::process::Stdio;
use std::sync::OnceLock;

use crate::call::{Prepared, new_call_dir};
use crate::call_dir;
use crate::confinement::{Confinement, Level};
use crate::error::SandboxError;
use crate::policy::{Entry, Mode, Policy};
use crate::wire::StagePolicy;

/// Whether namespaces work here: `Err` holds what the kernel refused. Found once per process.
static NAMESPACES: OnceLock<Result<(), String>> = OnceLock::new();

/// Whether this kernel builds the namespace sandbox, probed with the default policy (so only
/// the kernel decides) through `entry`: `Ok(Err(reason))` when it refuses. An error is the
/// probe itself failing (the entry line missing, say), and is not remembered.
pub(crate) fn namespaces(entry: &Entry) -> Result<Result<(), String>, SandboxError> {
    if let Some(known) = NAMESPACES.get() {
        return Ok(known.clone());
    }
    let minimal = Policy {
        entry: entry.clone(),
        ..Policy::default()
    };
    let answer = match minimal.run_probe(Level::Namespaces, None) {
        Ok(_) => Ok(()),
        Err(SandboxError::Setup { step, source }) => Err(format!("{step}: {source}")),
        Err(other) => return Err(other),
    };
    Ok(NAMESPACES.get_or_init(|| answer).clone())
}

impl Policy {
    /// What calls with this sandboxing policy get on this kernel (see [`Policy::probe`]).
    pub(crate) fn probe_kernel(&self) -> Result<Confinement, SandboxError> {
        let (level, fallback_reason) = self.level()?;
        self.run_probe(level, fallback_reason)
    }

    /// The level calls get: the fallback in [`Mode::Fallback`] or where the kernel refuses
    /// namespaces in [`Mode::Preferred`] (with the reason), namespaces otherwise.
    pub(crate) fn level(&self) -> Result<(Level, Option<String>), SandboxError> {
        match self.mode {
            Mode::Fallback => return Ok((Level::Fallback, None)),
            Mode::Off => return Err(SandboxError::Off),
            Mode::Preferred | Mode::Required => {}
        }
        match namespaces(&self.entry)? {
            Ok(()) => Ok((Level::Namespaces, None)),
            Err(reason) if self.mode == Mode::Required => Err(SandboxError::Unavailable { reason }),
            Err(reason) => Ok((Level::Fallback, Some(reason))),
        }
    }

    /// Builds a sandbox at `level` in an empty working directory and stops before the command.
    fn run_probe(
        &self,
        level: Level,
        fallback_reason: Option<String>,
    ) -> Result<Confinement, SandboxError> {
        let dir = new_call_dir(level)?;
        let workdir = dir.path(call_dir::PROBE_WORKDIR);
        let made = fs::create_dir(&workdir).and_then(|()| fs::canonicalize(&workdir));
        let workdir = made.map_err(|source| SandboxError::Prepare {
            action: "create the probe's working directory",
            source,
        })?;
        let stage = StagePolicy {
            level,
            probe: true,
            workdir,
            program: "probe".into(),
            args: Vec::new(),
            read_only: self.read_only.clone(),
            read_write: self.read_write.clone(),
            allow_network: self.allow_network,
            writable_vcs: self.writable_vcs,
            limits: self.limits,
            git: crate::protected::GitSettings::from_env(),
        };
        let Prepared { mut command, call } = self.prepare_stage(dir, stage, fallback_reason)?;
        let status = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|source| SandboxError::Prepare {
                action: "start the probe",
                source,
            })?;
        let (finished, report) = call.conclude(status)?;
        if !report.ready {
            return Err(SandboxError::Setup {
                step: format!("the probe ended before the sandbox was built ({status})"),
                source: std::io::Error::other("no report"),
            });
        }
        Ok(finished.confinement)
    }
}
