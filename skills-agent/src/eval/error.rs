//! [`EvalError`]: why a trigger or task eval did not run to its report.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::error::AgentError;

/// Why [`run`](super::run) gave no report. A model that answers badly is not one of these: its
/// malformed replies are errors in the report.
#[derive(Debug)]
#[non_exhaustive]
pub enum EvalError {
    /// An option is out of range (no runs, a threshold outside 0 to 1, no concurrency).
    Options(String),
    /// The agent's registry was built without its eval cases (`embed_evals = true`).
    NotEmbedded,
    /// No skill of the agent has a trigger case.
    NoCases,
    /// No skill of the agent has a task case.
    NoTaskCases,
    /// `bash` would run without its sandbox and the task eval was not told it may
    /// ([`TaskOptions::allow_unconfined`](super::tasks::TaskOptions::allow_unconfined)).
    Unconfined,
    /// The sandbox of `bash` cannot be built (the entry line is missing, or the kernel refuses
    /// it where it is required).
    Sandbox(crate::sandbox::SandboxError),
    /// A working directory for a task case could not be made.
    Workdir(io::Error),
    /// The run would send more requests than [`EvalOptions::max_requests`](super::EvalOptions::max_requests)
    /// allows; nothing was sent.
    TooManyRequests {
        /// Requests the run needs (answers not in the cache).
        needed: u64,
        /// The limit.
        max: u64,
        /// Answers found in the cache, which are free.
        cached: u64,
    },
    /// The cache folder cannot be created.
    Cache {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A request failed after the provider's retries (authentication, transport, the server),
    /// or an agent for one skill could not be built; the run stopped there.
    Agent(AgentError),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Options(message) => f.write_str(message),
            EvalError::NotEmbedded => f.write_str(
                "the skills' eval cases are not compiled in: build the registry with \
                 `embed_skills!(..., embed_evals = true)`",
            ),
            EvalError::NoCases => f.write_str(
                "no skill has trigger cases: write them in `<skill>/evals/triggers.json`",
            ),
            EvalError::NoTaskCases => {
                f.write_str("no skill has task cases: write them in `<skill>/evals/evals.json`")
            }
            EvalError::Unconfined => f.write_str(
                "bash would run without its sandbox, with your user's rights, on what the model \
                 writes; the task evals refuse to start (allow it explicitly if you must, \
                 --allow-unconfined)",
            ),
            EvalError::Sandbox(error) => write!(f, "the sandbox of bash cannot be built: {error}"),
            EvalError::Workdir(error) => {
                write!(
                    f,
                    "cannot make the working directory of a task case: {error}"
                )
            }
            EvalError::TooManyRequests {
                needed,
                max,
                cached,
            } => write!(
                f,
                "the evals need {needed} model requests ({cached} more answers are cached), over \
                 the limit of {max}; nothing was sent (raise --max-requests, or use fewer runs)"
            ),
            EvalError::Cache { path, source } => {
                write!(f, "cache folder {}: {source}", path.display())
            }
            EvalError::Agent(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for EvalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EvalError::Cache { source, .. } => Some(source),
            EvalError::Agent(error) => Some(error),
            EvalError::Sandbox(error) => Some(error),
            EvalError::Workdir(error) => Some(error),
            _ => None,
        }
    }
}

impl From<AgentError> for EvalError {
    fn from(error: AgentError) -> Self {
        EvalError::Agent(error)
    }
}
