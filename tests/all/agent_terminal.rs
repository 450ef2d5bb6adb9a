//! The example agent's interactive session on a pseudo-terminal, driven as a person drives it
//! and read through a terminal emulator: the line editor's history and multi-line input, an
//! approval for the rest of the session, the tools' output, and Ctrl-C in the middle of a
//! sandboxed `bash` call (the call stops, nothing of it keeps running, the prompt comes back).
#![cfg(target_os = "linux")]

use crate::terminal_support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use skills_runtime::agent::APPROVAL_MARKER;
use skills_test_support::api_mock::{ApiMock, Recorded, json_reply, openai_text};
use skills_test_support::{OPENAI_KEY, openai_completion, openai_usage};
use terminal_support::Session;
use wiremock::ResponseTemplate;

/// The example, interactive, against `server`, in `workdir`, its history in `state`; `None`
/// without `setsid`.
fn interactive(server: &ApiMock, workdir: &Path, state: &Path, flags: &[&str]) -> Option<Command> {
    let mut command = terminal_support::example_command()?;
    command
        .args(["--provider", "openai", "--no-stream"])
        .args(flags)
        .arg("--workdir")
        .arg(workdir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", workdir)
        .env("XDG_STATE_HOME", state)
        .env("TERM", "xterm-256color")
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("MODEL_ID", "gpt-test-model");
    Some(command)
}

/// A reply that runs `command` with `bash`.
fn bash(id: &str, command: &str) -> ResponseTemplate {
    let call = json!({"id": id, "type": "function",
                      "function": {"name": "bash",
                                   "arguments": json!({"command": command}).to_string()}});
    json_reply(
        200,
        &openai_completion(
            json!({"role": "assistant", "content": null, "tool_calls": [call]}),
            "tool_calls",
            Some(openai_usage(100, 10)),
        ),
    )
}

/// The user messages and tool results of a request, in order, as `("user", text)` and
/// `("tool", content)`.
fn said(request: &Recorded) -> Vec<(String, String)> {
    request.json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| match m["role"].as_str() {
            Some(role @ ("user" | "tool")) => Some((
                role.to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_several_lines_and_an_approval_for_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let server = ApiMock::start(vec![
        bash("c1", "echo one"),
        openai_text("done one"),
        bash("c2", "echo one two"),
        openai_text("done two"),
        openai_text("done three"),
    ])
    .await;
    let Some(command) = interactive(&server, dir.path(), state.path(), &[]) else {
        return;
    };
    let mut session = Session::start(command);
    session.wait_for_prompts(1);
    session.type_keys("first task\r");
    // Asked once, with what `a` would allow; the answer allows the rest of the session.
    session.wait_for("allow? [y/N/a, v = view]", 1);
    let screen = session.screen().text();
    assert!(
        screen.contains(
            "  a = yes, and do not ask again this session for bash commands starting \"echo one\""
        ),
        "{screen}"
    );
    session.type_keys("a\r");
    session.wait_for("done one", 1);
    // Up recalls the last prompt.
    session.type_keys("\x1b[A");
    session.wait_for("> first task", 2);
    session.type_keys("\r");
    session.wait_for("done two", 1);
    // A line ending with `\` goes on below.
    session.type_keys("line one\\\r");
    session.type_keys("line two\r");
    session.wait_for("done three", 1);
    session.type_keys("\x04");
    let (status, seen) = tokio::task::spawn_blocking(move || session.wait())
        .await
        .unwrap();
    let screen = skills_test_support::screen::Screen::of(
        &seen,
        terminal_support::ROWS,
        terminal_support::COLS,
    );
    let visible = screen.text();
    assert!(status.success(), "{visible}");

    let requests = server.requests().await;
    assert_eq!(requests.len(), 5);
    assert_eq!(said(&requests[0]), [("user".into(), "first task".into())]);
    assert_eq!(said(&requests[2])[2], ("user".into(), "first task".into()));
    assert_eq!(
        said(&requests[4]).last().unwrap(),
        &("user".to_owned(), "line one\nline two".to_owned())
    );
    // Both commands ran; only the first was asked about.
    assert_eq!(said(&requests[1])[1], ("tool".into(), "one".into()));
    assert_eq!(said(&requests[3])[3], ("tool".into(), "one two".into()));
    let text = String::from_utf8_lossy(&seen);
    assert_eq!(
        text.matches(APPROVAL_MARKER.trim_end()).count(),
        1,
        "{visible}"
    );
    // Colours on a terminal (`NO_COLOR` unset): the bullet of a call that succeeded is green.
    assert!(text.contains("\x1b[32m●\x1b[0m"), "{text:?}");
    assert!(
        visible.contains("  allowed for this session: bash commands starting \"echo one\""),
        "{visible}"
    );
    // What the tools returned, under each call.
    assert!(visible.contains("● bash(echo one)\n  ⎿ one\n"), "{visible}");
    assert!(
        visible.contains("● bash(echo one two)\n  ⎿ one two\n"),
        "{visible}"
    );
    // The history is the person's, kept in their state folder, private.
    let history = state.path().join("skills-rs/agent_history");
    let kept = std::fs::read_to_string(&history).unwrap();
    assert!(kept.contains("first task"), "{kept}");
    assert!(kept.contains("line two"), "{kept}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&history).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
}

/// The pids of the processes whose command line is `words`.
fn processes_running(words: &[&str]) -> Vec<u32> {
    let wanted: Vec<u8> = words
        .iter()
        .flat_map(|w| [w.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted))
        .filter(|pid| skills_test_support::process_alive(*pid))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_sandboxed_call_and_the_prompt_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    // A number no other test sleeps for, to find the call's process among the machine's.
    let seconds = format!("{}", 900_000 + std::process::id() % 90_000);
    let server = ApiMock::start(vec![
        // Output that would retitle the window: shown as text, escaped.
        bash("c0", "printf 'title\\033]0;owned\\007 set\\n'"),
        bash("c1", &format!("sleep {seconds}")),
        openai_text("carried on"),
    ])
    .await;
    let Some(command) = interactive(&server, dir.path(), state.path(), &["--yes"]) else {
        return;
    };
    let mut session = Session::start(command);
    session.wait_for_prompts(1);
    session.type_keys("take your time\r");
    let sleeping = ["sleep", seconds.as_str()];
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_running(&sleeping).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the call never started: {}",
            session.screen().text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The spinner shows what runs, and for how long.
    session.wait_for(&format!("bash(sleep {seconds}) ("), 1);
    session.type_keys("\x03");
    session.wait_for("interrupted: the turn and its tool calls were stopped", 1);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_running(&sleeping).is_empty() {
        assert!(Instant::now() < deadline, "the call outlived Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The session goes on: the interrupted call is closed for the model.
    session.wait_for_prompts(2);
    session.type_keys("go on\r");
    session.wait_for("carried on", 1);
    // Ctrl-C at the prompt asks for another; the second leaves.
    session.type_keys("\x03");
    session.wait_for("(Ctrl-C again or Ctrl-D to leave)", 2);
    session.type_keys("\x03");
    let (status, seen) = tokio::task::spawn_blocking(move || session.wait())
        .await
        .unwrap();
    assert!(status.success(), "{}", String::from_utf8_lossy(&seen));

    let text = String::from_utf8_lossy(&seen);
    assert!(!text.contains("\x1b]0;owned"), "{text:?}");
    let visible = skills_test_support::screen::Screen::of(
        &seen,
        terminal_support::ROWS,
        terminal_support::COLS,
    )
    .text();
    assert!(
        visible.contains("  ⎿ title\\x1b]0;owned\\x07 set"),
        "{visible}"
    );

    let requests = server.requests().await;
    assert_eq!(requests.len(), 3);
    let closed = said(&requests[2]);
    assert_eq!(closed[2].0, "tool");
    assert!(
        closed[2]
            .1
            .contains("error (interrupted): the user interrupted the run"),
        "{closed:?}"
    );
    assert_eq!(closed[3], ("user".into(), "go on".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_run_from_the_command_line_with_130() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let seconds = format!("{}", 800_000 + std::process::id() % 90_000);
    let server = ApiMock::start(vec![bash("c1", &format!("sleep {seconds}"))]).await;
    let Some(mut command) = interactive(&server, dir.path(), state.path(), &["--yes"]) else {
        return;
    };
    command.arg("wait for it");
    let mut session = Session::start(command);
    let sleeping = ["sleep", seconds.as_str()];
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_running(&sleeping).is_empty() {
        assert!(Instant::now() < deadline, "{}", session.screen().text());
        std::thread::sleep(Duration::from_millis(50));
    }
    session.type_keys("\x03");
    let (status, seen) = tokio::task::spawn_blocking(move || session.wait())
        .await
        .unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&seen)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_running(&sleeping).is_empty() {
        assert!(Instant::now() < deadline, "the call outlived the program");
        std::thread::sleep(Duration::from_millis(50));
    }
}
