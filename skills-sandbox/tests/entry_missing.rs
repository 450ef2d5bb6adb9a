//! A program that forgot the entry line, or put it after threads started: the library refuses
//! to start a second copy of it, with an error that names the line. (libtest's own `main`,
//! which never calls `skills_sandbox::enter()`, stands in for such a program.)

use skills_sandbox::{Policy, SandboxError};

#[test]
fn a_missing_or_late_entry_line_is_refused_with_its_name() {
    let workdir = tempfile::tempdir().unwrap();
    let missing = Policy::default()
        .prepare(workdir.path(), "true", [""; 0])
        .unwrap_err();
    assert!(matches!(missing, SandboxError::EntryMissing), "{missing:?}");
    assert!(
        missing.to_string().contains("skills_sandbox::enter()"),
        "{missing}"
    );
    // The probe, which would start the same copy, refuses too.
    assert!(matches!(
        Policy::default().probe(),
        Err(SandboxError::EntryMissing)
    ));

    // Too late: threads are running when the line runs.
    let (stop, wait) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::spawn(move || wait.recv());
    skills_sandbox::enter();
    let late = Policy::default()
        .prepare(workdir.path(), "true", [""; 0])
        .unwrap_err();
    match &late {
        SandboxError::EntryNotFirst { threads } => assert!(*threads >= 2, "{late}"),
        other => panic!("{other:?}"),
    }
    assert!(late.to_string().contains("#[tokio::main]"), "{late}");
    stop.send(()).unwrap();
    let _ = thread.join();
}

#[test]
fn a_policy_that_is_off_needs_no_entry_and_prepares_nothing() {
    // The same program, without the line: a sandbox would be refused, no sandbox is not.
    assert!(Policy::default().check_entry().is_err());
    let off = Policy::off();
    assert!(!off.confines().unwrap());
    assert!(off.check_entry().is_ok());
    assert_eq!(off.probe().unwrap(), None);
    let workdir = tempfile::tempdir().unwrap();
    let refused = off.prepare(workdir.path(), "true", [""; 0]).unwrap_err();
    assert!(matches!(refused, SandboxError::Off), "{refused:?}");
    assert!(refused.to_string().contains("off"), "{refused}");
}
