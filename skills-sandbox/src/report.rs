//! The report file: what the stages tell the caller, one line per [`Record`], appended.
//!
//! The stages never write to the command's standard streams, which belong to the caller; they
//! append records to a file of the call's private folder instead (opened before the sandbox
//! hides that folder), and the caller reads it once the process it spawned has ended.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use crate::confinement::{LandlockStatus, Level};

/// This crate's version, which a stage writes first so that the caller can tell its own stages
/// from a program that is not one.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// The first stage runs, built with this crate's `version`.
    Started { version: String },
    /// The level the stages build.
    Level(Level),
    /// What Landlock enforced.
    Landlock(LandlockStatus),
    /// Whether the PID namespace's `pid_max` caps the processes.
    PidMax(bool),
    /// Whether the command is nobody to the host's files (a root caller's command, mapped to
    /// the overflow id).
    Nobody(bool),
    /// What the working directory's read-only part could not cover.
    Unprotected(String),
    /// A probe: the sandbox is built and no command is started.
    Ready,
    /// A setup step failed with `errno` (0: no system error).
    Failed { errno: i32, step: String },
    /// The command could not be executed: `execve` failed with `errno`.
    NotStarted { errno: i32 },
    /// The command exited with a code.
    Exited(i32),
    /// The command was killed by a signal.
    Signaled(i32),
}

impl Record {
    fn to_line(&self) -> String {
        match self {
            Record::Started { version } => format!("started {version}"),
            Record::Level(level) => format!("level {}", level.as_str()),
            Record::Landlock(status) => format!("landlock {}", status.as_str()),
            Record::PidMax(on) => format!("pid-max {}", if *on { "yes" } else { "no" }),
            Record::Nobody(on) => format!("nobody {}", if *on { "yes" } else { "no" }),
            // Paths, which may hold a newline: one record stays one line.
            Record::Unprotected(what) => format!("unprotected {}", what.replace('\n', " ")),
            Record::Ready => "ready".to_owned(),
            // A step names paths, which may hold a newline: one record stays one line.
            Record::Failed { errno, step } => format!("failed {errno} {}", step.replace('\n', " ")),
            Record::NotStarted { errno } => format!("not-started {errno}"),
            Record::Exited(code) => format!("exited {code}"),
            Record::Signaled(signal) => format!("signaled {signal}"),
        }
    }

    fn parse(line: &str) -> Option<Record> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        Some(match word {
            "started" => Record::Started {
                version: rest.to_owned(),
            },
            "level" => Record::Level(Level::parse(rest)?),
            "landlock" => Record::Landlock(LandlockStatus::parse(rest)?),
            "pid-max" => Record::PidMax(rest == "yes"),
            "nobody" => Record::Nobody(rest == "yes"),
            "unprotected" => Record::Unprotected(rest.to_owned()),
            "ready" => Record::Ready,
            "failed" => {
                let (errno, step) = rest.split_once(' ').unwrap_or((rest, ""));
                Record::Failed {
                    errno: errno.parse().ok()?,
                    step: step.to_owned(),
                }
            }
            "not-started" => Record::NotStarted {
                errno: rest.parse().ok()?,
            },
            "exited" => Record::Exited(rest.parse().ok()?),
            "signaled" => Record::Signaled(rest.parse().ok()?),
            _ => return None,
        })
    }
}

/// How the command ended, as a stage saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Exited(i32),
    Signaled(i32),
}

impl Outcome {
    pub(crate) fn exit_status(self) -> ExitStatus {
        // The raw form is the one `waitpid` gives: the code in the second byte, or the signal.
        match self {
            Outcome::Exited(code) => ExitStatus::from_raw((code & 0xff) << 8),
            Outcome::Signaled(signal) => ExitStatus::from_raw(signal & 0x7f),
        }
    }
}

/// Everything a report says, read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Report {
    pub(crate) version: Option<String>,
    pub(crate) level: Option<Level>,
    pub(crate) landlock: Option<LandlockStatus>,
    pub(crate) pid_max: bool,
    pub(crate) nobody: bool,
    pub(crate) unprotected: Option<String>,
    pub(crate) ready: bool,
    /// The first failure: later records may only be its consequences.
    pub(crate) failed: Option<(i32, String)>,
    pub(crate) not_started: Option<i32>,
    pub(crate) outcome: Option<Outcome>,
}

impl Report {
    /// The records of `text`; lines that are not records are ignored.
    pub(crate) fn parse(text: &str) -> Report {
        let mut report = Report::default();
        for record in text.lines().filter_map(Record::parse) {
            match record {
                Record::Started { version } => report.version = Some(version),
                Record::Level(level) => report.level = Some(level),
                Record::Landlock(status) => report.landlock = Some(status),
                Record::PidMax(on) => report.pid_max = on,
                Record::Nobody(on) => report.nobody = on,
                Record::Unprotected(what) => report.unprotected = Some(what),
                Record::Ready => report.ready = true,
                Record::Failed { errno, step } => {
                    report.failed.get_or_insert((errno, step));
                }
                Record::NotStarted { errno } => report.not_started = Some(errno),
                Record::Exited(code) => report.outcome = Some(Outcome::Exited(code)),
                Record::Signaled(signal) => report.outcome = Some(Outcome::Signaled(signal)),
            }
        }
        report
    }

    /// Whether a stage said it failed, one way or another.
    pub(crate) fn has_failure(&self) -> bool {
        self.failed.is_some() || self.not_started.is_some()
    }
}

/// A stage's handle on the report file, opened for appending.
pub(crate) struct ReportFile(pub(crate) File);

impl ReportFile {
    /// Appends `record`. A failure to write is ignored: the caller then sees a report that
    /// lacks the record, which it treats as the stage having stopped.
    pub(crate) fn write(&self, record: &Record) {
        let mut line = record.to_line();
        line.push('\n');
        let _ = (&self.0).write_all(line.as_bytes());
    }

    /// Appends a failure of `step` with the system error of `error`.
    pub(crate) fn failed(&self, step: &str, error: &io::Error) {
        self.write(&Record::Failed {
            errno: error.raw_os_error().unwrap_or(0),
            step: step.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_reads_back_as_written() {
        let records = [
            Record::Started {
                version: VERSION.to_owned(),
            },
            Record::Level(Level::Namespaces),
            Record::Level(Level::Fallback),
            Record::Landlock(LandlockStatus::Partial),
            Record::PidMax(true),
            Record::PidMax(false),
            Record::Nobody(true),
            Record::Unprotected("a b; c".to_owned()),
            Record::Ready,
            Record::Failed {
                errno: 1,
                step: "mount /usr read-only".to_owned(),
            },
            Record::NotStarted { errno: 2 },
            Record::Exited(3),
            Record::Signaled(9),
        ];
        for record in records {
            assert_eq!(Record::parse(&record.to_line()), Some(record));
        }
    }

    #[test]
    fn a_step_with_a_newline_stays_one_record() {
        let line = Record::Failed {
            errno: 0,
            step: "bind /a\nexited 0".to_owned(),
        }
        .to_line();
        let report = Report::parse(&line);
        assert_eq!(report.outcome, None);
        assert_eq!(report.failed, Some((0, "bind /a exited 0".to_owned())));
    }

    #[test]
    fn the_first_failure_is_kept_and_statuses_map_to_wait_statuses() {
        let report = Report::parse("started 1\nfailed 1 first\nfailed 2 second\nsignaled 15\n");
        assert_eq!(report.failed, Some((1, "first".to_owned())));
        let status = report.outcome.unwrap().exit_status();
        assert_eq!(status.signal(), Some(15));
        assert_eq!(Outcome::Exited(3).exit_status().code(), Some(3));
    }
}
