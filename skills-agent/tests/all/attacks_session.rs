//! Session files as the model could leave them in the working directory: a symlink to a
//! credentials file outside (at the file, or at a folder on the way), a FIFO, a 1 GiB sparse
//! file, a device, a hard link; and what a person had at the path is never truncated.
#![cfg(target_os = "linux")]

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use skills_runtime::agent::{Agent, AgentBuilder, AgentError};
use skills_test_support::api_mock::ApiMock;
use skills_test_support::{HostileSite, SECRET, anthropic, hostile_site};

fn agent(server: &ApiMock, site: &HostileSite) -> Agent {
    let (provider, _) = anthropic(&server.url());
    Agent::builder(Arc::new(provider))
        .workdir(&site.work)
        .build()
        .unwrap()
}

/// The io error kind and text of a transcript error.
fn refusal(error: AgentError) -> (ErrorKind, String) {
    match &error {
        AgentError::Transcript { source, .. } => (source.kind(), error.to_string()),
        other => panic!("not a transcript error: {other:?}"),
    }
}

/// `resume(path)` on a thread, failing the test instead of hanging when it does not return
/// within `limit`.
fn resume_within(agent: Arc<Agent>, path: PathBuf, limit: Duration) -> Result<(), AgentError> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(agent.resume(&path).map(drop));
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("resume did not return within {limit:?}"))
}

fn assert_untouched(secret: &Path) {
    assert_eq!(std::fs::read_to_string(secret).unwrap(), SECRET);
}

/// Set in the copy of this test binary that runs
/// [`a_symlink_to_a_credentials_file_is_neither_truncated_nor_written`], which changes the
/// working directory of its process.
const ALONE: &str = "SKILLS_AGENT_TEST_SESSION_ALONE";

#[tokio::test]
async fn a_symlink_to_a_credentials_file_is_neither_truncated_nor_written() {
    // It changes the process's working directory (for a relative path): alone in a copy of the
    // binary, so that no other test sees it change.
    if std::env::var_os(ALONE).is_none() {
        skills_test_support::run_alone(
            module_path!(),
            "a_symlink_to_a_credentials_file_is_neither_truncated_nor_written",
            ALONE,
        );
        return;
    }
    let site = hostile_site();
    let secret = site.outside.join("secret");
    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, &site);
    // At the file itself.
    let link = site.work.join("session.jsonl");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let (kind, text) = refusal(agent.resume(&link).unwrap_err());
    assert_eq!(kind, ErrorKind::InvalidInput, "{text}");
    assert!(text.contains("symbolic link"), "{text}");
    // A new transcript is never made where something is, a link included.
    let (kind, text) = refusal(agent.session().with_transcript(&link).unwrap_err());
    assert_eq!(kind, ErrorKind::AlreadyExists, "{text}");
    assert_untouched(&secret);
    // A dangling one is not created through either.
    let dangling = site.work.join("dangling.jsonl");
    std::os::unix::fs::symlink(site.outside.join("new-file"), &dangling).unwrap();
    assert!(agent.resume(&dangling).is_err());
    assert!(agent.session().with_transcript(&dangling).is_err());
    assert!(!site.outside.join("new-file").exists());
    // At a folder on the way: `.agent` in the working directory leads outside.
    std::os::unix::fs::symlink(&site.outside, site.work.join(".agent")).unwrap();
    std::fs::create_dir(site.work.join("sub")).unwrap();
    for path in [
        site.work.join(".agent/secret"),
        site.work.join(".agent/new.jsonl"),
        site.work.join("sub/../.agent/secret"),
    ] {
        let (kind, text) = refusal(agent.resume(&path).unwrap_err());
        assert_eq!(kind, ErrorKind::InvalidInput, "{path:?}: {text}");
        assert!(text.contains("symbolic link"), "{text}");
        assert!(agent.session().with_transcript(&path).is_err());
    }
    assert_untouched(&secret);
    assert!(!site.outside.join("new.jsonl").exists());
    // A relative path from inside the working directory is walked the same way.
    let cwd = std::env::current_dir().unwrap();
    std::env::set_current_dir(&site.work).unwrap();
    let relative = agent.resume(".agent/secret");
    std::env::set_current_dir(cwd).unwrap();
    assert!(relative.is_err());
    assert_untouched(&secret);
}

#[tokio::test]
async fn symlinks_outside_the_working_directory_are_the_persons_and_followed() {
    let site = hostile_site();
    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, &site);
    // A folder of the person's, reached through their own link beside the working directory.
    let sessions = site.outside.join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    let link = site.outside.join("sessions-link");
    std::os::unix::fs::symlink(&sessions, &link).unwrap();
    let session = agent.resume(link.join("s.jsonl")).unwrap();
    drop(session);
    assert!(sessions.join("s.jsonl").is_file());
    // The working directory itself through a link: what is below it is checked again.
    let work_link = site.outside.join("work-link");
    std::os::unix::fs::symlink(&site.work, &work_link).unwrap();
    agent.resume(work_link.join("w.jsonl")).unwrap();
    assert!(site.work.join("w.jsonl").is_file());
    std::os::unix::fs::symlink(&site.outside, site.work.join("out")).unwrap();
    assert!(agent.resume(work_link.join("out/x.jsonl")).is_err());
    assert!(!site.outside.join("x.jsonl").exists());
}

#[tokio::test]
async fn a_fifo_returns_an_error_at_once() {
    let site = hostile_site();
    let fifo = site.work.join("session.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let server = ApiMock::start(vec![]).await;
    let agent = Arc::new(agent(&server, &site));
    let error = resume_within(agent, fifo, Duration::from_secs(10)).unwrap_err();
    let (kind, text) = refusal(error);
    assert_eq!(kind, ErrorKind::InvalidInput, "{text}");
    assert!(text.contains("not a regular file"), "{text}");
}

#[tokio::test]
async fn a_huge_sparse_file_is_refused_without_reading_it() {
    let site = hostile_site();
    let huge = site.work.join("session.jsonl");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(1 << 30).unwrap();
    drop(file);
    let server = ApiMock::start(vec![]).await;
    let agent = Arc::new(agent(&server, &site));
    let error = resume_within(Arc::clone(&agent), huge.clone(), Duration::from_secs(10));
    let (kind, text) = refusal(error.unwrap_err());
    assert_eq!(kind, ErrorKind::FileTooLarge, "{text}");
    assert!(text.contains("max_transcript_bytes"), "{text}");
    const { assert!(AgentBuilder::DEFAULT_MAX_TRANSCRIPT_BYTES < 1 << 30) };
    // Not a byte was changed: the file is still 1 GiB of zeros.
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), 1 << 30);

    // The cap is the builder's: a small cap refuses a small file, by its size.
    let small = site.work.join("small.jsonl");
    std::fs::write(
        &small,
        "{\"message\":{\"role\":\"user\",\"text\":\"hi\"}}\n",
    )
    .unwrap();
    let (provider, _) = anthropic(&server.url());
    let capped = Agent::builder(Arc::new(provider))
        .workdir(&site.work)
        .max_transcript_bytes(10)
        .build()
        .unwrap();
    let (kind, _) = refusal(capped.resume(&small).unwrap_err());
    assert_eq!(kind, ErrorKind::FileTooLarge);
    assert_eq!(agent.resume(&small).unwrap().conversation().len(), 1);
}

#[tokio::test]
async fn devices_are_refused_directly_and_through_a_link() {
    let site = hostile_site();
    let server = ApiMock::start(vec![]).await;
    let agent = Arc::new(agent(&server, &site));
    let error = resume_within(
        Arc::clone(&agent),
        "/dev/zero".into(),
        Duration::from_secs(10),
    );
    let (kind, text) = refusal(error.unwrap_err());
    assert_eq!(kind, ErrorKind::InvalidInput, "{text}");
    let link = site.work.join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let error = resume_within(agent, link, Duration::from_secs(10)).unwrap_err();
    assert!(refusal(error).1.contains("symbolic link"));
}

#[tokio::test]
async fn a_hard_link_is_refused_and_an_existing_file_is_never_replaced() {
    let site = hostile_site();
    let secret = site.outside.join("secret");
    let linked = site.work.join("session.jsonl");
    std::fs::hard_link(&secret, &linked).unwrap();
    let server = ApiMock::start(vec![]).await;
    let agent = agent(&server, &site);
    let (kind, text) = refusal(agent.resume(&linked).unwrap_err());
    assert_eq!(kind, ErrorKind::PermissionDenied, "{text}");
    assert_untouched(&secret);
    // `with_transcript` starts a new file and never truncates one that is there.
    let mine = site.work.join("notes.jsonl");
    std::fs::write(&mine, "the person's notes\n").unwrap();
    let (kind, _) = refusal(agent.session().with_transcript(&mine).unwrap_err());
    assert_eq!(kind, ErrorKind::AlreadyExists);
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "the person's notes\n"
    );
}
