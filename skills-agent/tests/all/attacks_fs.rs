//! Attacks on the file tools and `glob` from a hostile working directory or hostile input; each
//! test reproduces one and asserts the safe outcome.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skills_runtime::agent::{
    EditFile, Glob, ReadFile, Tool, ToolContext, ToolError, ToolErrorKind, WriteFile,
};

const SECRET: &str = "TOP SECRET";

fn setup() -> (tempfile::TempDir, tempfile::TempDir, ToolContext) {
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), SECRET).unwrap();
    let context = ToolContext::new(work.path()).unwrap();
    (work, outside, context)
}

/// Runs one tool call on its own thread and runtime, so a call that blocks fails the test after
/// `within` instead of hanging it.
fn call_within(
    tool: impl Tool + 'static,
    input: Value,
    context: &ToolContext,
    within: Duration,
) -> Result<String, ToolError> {
    let context = context.clone();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _ = send.send(runtime.block_on(tool.call(&input, &context)));
    });
    receive
        .recv_timeout(within)
        .unwrap_or_else(|_| panic!("the tool call did not return within {within:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_during_the_call_never_leads_outside() {
    let (work, outside, context) = setup();
    let secret = outside.path().join("secret.txt");
    let flip = work.path().join("flip");
    std::fs::write(&flip, "inside\n").unwrap();
    // The racer turns `flip` into a regular file and into a link to the secret, each by an
    // atomic rename, as fast as it can.
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (stop, work, secret, flip) = (
            stop.clone(),
            work.path().to_owned(),
            secret.clone(),
            flip.clone(),
        );
        std::thread::spawn(move || {
            let (file, link) = (work.join("racer.file"), work.join("racer.link"));
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::write(&file, "inside\n");
                let _ = std::fs::rename(&file, &flip);
                let _ = std::os::unix::fs::symlink(&secret, &link);
                let _ = std::fs::rename(&link, &flip);
            }
        })
    };
    let (mut inside_reads, mut refused_reads, mut calls) = (0, 0, 0);
    let started = Instant::now();
    // Until both outcomes were seen (the race really ran), at least 300 rounds, at most 20 s.
    while (calls < 300 || inside_reads == 0 || refused_reads == 0)
        && started.elapsed() < Duration::from_secs(20)
    {
        calls += 1;
        match ReadFile.call(&json!({"path": "flip"}), &context).await {
            Ok(text) => {
                assert!(!text.contains(SECRET), "read the outside file: {text}");
                inside_reads += 1;
            }
            Err(err) => {
                assert!(!err.to_string().contains(SECRET), "{err}");
                if err.kind == ToolErrorKind::OutsideWorkdir {
                    refused_reads += 1;
                }
            }
        }
        let _ = WriteFile
            .call(&json!({"path": "flip", "content": "PWNED"}), &context)
            .await;
        let _ = EditFile
            .call(
                &json!({"path": "flip", "old_text": "TOP", "new_text": "PWNED"}),
                &context,
            )
            .await;
        let _ = EditFile
            .call(
                &json!({"path": "flip", "old_text": "inside", "new_text": "PWNED"}),
                &context,
            )
            .await;
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    assert!(
        inside_reads > 0 && refused_reads > 0,
        "the race did not run: {inside_reads} reads inside, {refused_reads} refused in {calls} calls"
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);
    // The secret is still a single file: nothing wrote through to it or replaced it.
    assert!(std::fs::symlink_metadata(&secret).unwrap().is_file());
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_is_neither_read_nor_written_through() {
    let (work, outside, context) = setup();
    let secret = outside.path().join("secret.txt");
    std::fs::hard_link(&secret, work.path().join("linked.txt")).unwrap();

    let err = ReadFile
        .call(&json!({"path": "linked.txt"}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::Denied, "{err}");
    assert!(err.message.contains("hard links"), "{err}");
    assert!(err.suggestion.is_some());
    assert!(!err.to_string().contains(SECRET));
    let err = EditFile
        .call(
            &json!({"path": "linked.txt", "old_text": "TOP", "new_text": "PWNED"}),
            &context,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::Denied, "{err}");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);

    // A write replaces the name in the working directory; the other link keeps its content.
    WriteFile
        .call(&json!({"path": "linked.txt", "content": "PWNED"}), &context)
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);
    assert_eq!(
        std::fs::read_to_string(work.path().join("linked.txt")).unwrap(),
        "PWNED"
    );

    // Allowed on purpose, a linked file is read; an edit still does not write through.
    std::fs::remove_file(work.path().join("linked.txt")).unwrap();
    std::fs::hard_link(&secret, work.path().join("linked.txt")).unwrap();
    let allowed = context.clone().allow_hard_links(true);
    let text = ReadFile
        .call(&json!({"path": "linked.txt"}), &allowed)
        .await
        .unwrap();
    assert!(text.contains(SECRET), "{text}");
    EditFile
        .call(
            &json!({"path": "linked.txt", "old_text": "TOP", "new_text": "PWNED"}),
            &allowed,
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);
}

#[test]
fn a_fifo_or_socket_is_refused_without_blocking() {
    let (work, _outside, context) = setup();
    let status = std::process::Command::new("mkfifo")
        .arg(work.path().join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let _socket = std::os::unix::net::UnixListener::bind(work.path().join("socket")).unwrap();
    let within = Duration::from_secs(10);
    for path in ["fifo", "socket"] {
        let err = call_within(ReadFile, json!({"path": path}), &context, within).unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{path}: {err}");
        assert!(err.message.contains("not a regular file"), "{err}");
        let err = call_within(
            EditFile,
            json!({"path": path, "old_text": "a", "new_text": "b"}),
            &context,
            within,
        )
        .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{path}: {err}");
        let err = call_within(
            WriteFile,
            json!({"path": path, "content": "x"}),
            &context,
            within,
        )
        .unwrap_err();
        assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{path}: {err}");
    }
    // Still a FIFO: the write did not replace it either.
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(work.path().join("fifo"))
        .unwrap()
        .file_type();
    assert!(kind.is_fifo());
}

#[test]
fn a_huge_sparse_file_is_read_up_to_the_limit_only() {
    let (work, _outside, context) = setup();
    let path = work.path().join("sparse.log");
    std::fs::write(&path, "first line\nsecond line\n").unwrap();
    // 3 GiB of holes after the text: no disk used, but a whole read would need 3 GiB of memory.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    // A generous bound on a busy machine: scanning the 256 MiB cap takes well under it, reading
    // all 3 GiB would not (the speed itself belongs in a benchmark).
    let within = Duration::from_secs(20);
    let out = call_within(
        ReadFile,
        json!({"path": "sparse.log", "limit": 1}),
        &context,
        within,
    )
    .unwrap();
    assert!(out.starts_with("     1\tfirst line\n"), "{out}");
    assert!(!out.contains("second line"), "{out}");
    assert!(out.contains("of more than"), "{out}");
    assert!(out.contains("read more with offset=2"), "{out}");
    assert!(out.len() < 200, "{out}");

    // The hostile extremes: no panic, no huge buffer, a bounded answer.
    let max = u64::MAX;
    let err = call_within(
        ReadFile,
        json!({"path": "sparse.log", "offset": max}),
        &context,
        within,
    )
    .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
    let all = call_within(
        ReadFile,
        json!({"path": "sparse.log", "offset": 1, "limit": max}),
        &context,
        within,
    );
    match all {
        Ok(text) => assert!(text.len() < 60_000, "{}", text.len()),
        // The third "line" is the holes: NUL bytes, so not text.
        Err(err) => assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}"),
    }
    // Offsets and limits as strings, huge, parse as numbers and stay safe.
    let out = call_within(
        ReadFile,
        json!({"path": "sparse.log", "offset": "2", "limit": "18446744073709551615"}),
        &context,
        within,
    );
    if let Ok(text) = out {
        assert!(text.starts_with("     2\tsecond line\n"), "{text}");
    }
}

#[tokio::test]
async fn writes_and_edits_are_capped() {
    let (work, _outside, context) = setup();
    let cap = skills_runtime::agent::WriteFile::MAX_WRITE_BYTES;
    let big = "x".repeat(cap + 1);
    let err = WriteFile
        .call(&json!({"path": "big.txt", "content": big}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
    assert!(err.message.contains("at most"), "{err}");
    assert!(!work.path().join("big.txt").exists());
    // Exactly the cap is fine.
    let at_cap = "y".repeat(cap);
    WriteFile
        .call(&json!({"path": "cap.txt", "content": at_cap}), &context)
        .await
        .unwrap();
    assert_eq!(
        std::fs::metadata(work.path().join("cap.txt"))
            .unwrap()
            .len(),
        cap as u64
    );
    // An edit whose result would pass the cap is refused and changes nothing.
    let err = EditFile
        .call(
            &json!({"path": "cap.txt", "old_text": "y", "new_text": "zz"}),
            &context,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
    assert_eq!(
        std::fs::metadata(work.path().join("cap.txt"))
            .unwrap()
            .len(),
        cap as u64
    );
    // A file over the cap (made by someone else) is not read into memory for an edit.
    std::fs::write(work.path().join("huge.txt"), "y").unwrap();
    std::fs::File::options()
        .write(true)
        .open(work.path().join("huge.txt"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let err = EditFile
        .call(
            &json!({"path": "huge.txt", "old_text": "y", "new_text": "z"}),
            &context,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
}

#[test]
fn hostile_glob_patterns_neither_crash_nor_hang() {
    let (work, _outside, context) = setup();
    // A long name without `z`: a backtracking matcher tries every split of it for every `*`.
    std::fs::write(work.path().join("a".repeat(200)), "").unwrap();
    std::fs::write(work.path().join("found.z"), "").unwrap();
    // The tool stops itself at 5 s; `within` leaves room for a busy machine.
    let within = Duration::from_secs(10);

    let stars = "*".repeat(60_000);
    let err = call_within(Glob, json!({"pattern": stars}), &context, within).unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");

    let out = call_within(Glob, json!({"pattern": "**********z"}), &context, within);
    match out {
        Ok(text) => assert_eq!(text, "found.z"),
        Err(err) => assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}"),
    }
    let pattern = format!("{}z", "*?".repeat(499));
    let out = call_within(Glob, json!({"pattern": pattern}), &context, within);
    if let Ok(text) = out {
        assert!(!text.contains("aaaa"), "{text}");
    }
}

#[tokio::test]
async fn glob_lists_links_but_never_walks_through_them() {
    let (work, outside, context) = setup();
    std::fs::create_dir_all(outside.path().join("deep")).unwrap();
    std::fs::write(outside.path().join("deep/outside.txt"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), work.path().join("out")).unwrap();
    std::fs::write(work.path().join("in.txt"), "").unwrap();
    let out = Glob
        .call(&json!({"pattern": "**/*"}), &context)
        .await
        .unwrap();
    assert_eq!(out, "in.txt\nout");
    let out = Glob
        .call(&json!({"pattern": "out/**/*.txt"}), &context)
        .await
        .unwrap();
    assert!(out.starts_with("no files match"), "{out}");
    assert!(Path::new(&outside.path().join("deep/outside.txt")).exists());
}

#[tokio::test]
async fn safe_writes_keep_links_inside_and_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (work, _outside, context) = setup();
    std::fs::create_dir(work.path().join("bin")).unwrap();
    let script = work.path().join("bin/run.sh");
    std::fs::write(&script, "echo old\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o4755)).unwrap();
    std::os::unix::fs::symlink("bin/run.sh", work.path().join("run")).unwrap();
    // Through a link that stays inside: the target is replaced, the link stays a link.
    let out = EditFile
        .call(
            &json!({"path": "run", "old_text": "old", "new_text": "new"}),
            &context,
        )
        .await
        .unwrap();
    assert!(out.contains("bin/run.sh"), "{out}");
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo new\n");
    let link = std::fs::symlink_metadata(work.path().join("run")).unwrap();
    assert!(link.file_type().is_symlink());
    // The mode is kept, set-user-id is not.
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o755, "{mode:o}");
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(work.path().join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["run.sh"]);
}

#[tokio::test]
async fn read_file_shows_text_only_and_says_where_it_stopped() {
    let (work, _outside, context) = setup();
    let long = "é".repeat(3000);
    std::fs::write(
        work.path().join("mixed.txt"),
        format!("a\r\nb\r\n{long}\nd\ne\n"),
    )
    .unwrap();
    let out = ReadFile
        .call(&json!({"path": "mixed.txt", "offset": 2}), &context)
        .await
        .unwrap();
    assert!(out.starts_with("     2\tb\n"), "{out}");
    assert!(out.contains(" [line cut]\n"), "{out}");
    assert!(out.ends_with("(lines 2-5 of 5)\n"), "{out}");
    std::fs::write(work.path().join("bin.dat"), b"text\nwith\0nul\n").unwrap();
    let err = ReadFile
        .call(&json!({"path": "bin.dat"}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
    let err = ReadFile
        .call(&json!({"path": "."}), &context)
        .await
        .unwrap_err();
    assert_eq!(err.kind, ToolErrorKind::InvalidInput, "{err}");
}

/// A repository as a person has it: its `.git`, a hooks folder in the worktree
/// (`core.hooksPath`, as husky sets it), a script git runs as its pager, a nested repository and
/// a submodule's `.git` file; and the links a command planted to reach them.
fn repository(work: &Path) {
    let write = |path: &str, text: &str| {
        let path = work.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        ".git/config",
        "[core]\n\thooksPath = .husky\n\tpager = ./tools/pager.sh\n",
    );
    write(".git/HEAD", "ref: refs/heads/main\n");
    write(".husky/pre-commit", "#!/bin/sh\n");
    write("tools/pager.sh", "#!/bin/sh\ncat\n");
    write("nested/.git/config", "[core]\n");
    write("sub/.git", "gitdir: ../.git/modules/sub\n");
    write(".git/modules/sub/config", "[core]\n");
    std::os::unix::fs::symlink(".git/config", work.join("cfg")).unwrap();
    std::os::unix::fs::symlink(".git", work.join("meta")).unwrap();
    std::os::unix::fs::symlink(".husky", work.join("hooks")).unwrap();
}

/// Every file under `dir` with its content.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                files.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[tokio::test]
async fn the_file_tools_write_nothing_git_runs_whatever_the_path() {
    let (work, _outside, context) = setup();
    repository(work.path());
    let protected = [".git", ".husky", "tools", "nested", "sub"].map(|p| work.path().join(p));
    let before: Vec<_> = protected.iter().map(|p| snapshot(p)).collect();
    // Straight in, through a planted link to a file or to a folder, into a nested repository,
    // into a submodule's `.git` file, into a folder git runs hooks from, into a file git runs,
    // and into a repository that does not exist yet.
    for target in [
        ".git/config",
        ".git/hooks/pre-commit",
        "cfg",
        "meta/config",
        "meta/hooks/post-checkout",
        "nested/.git/config",
        "sub/.git",
        ".husky/pre-commit",
        ".husky/post-checkout",
        "hooks/pre-push",
        "tools/pager.sh",
        "new/.git/config",
        "deep/.gitmodules",
    ] {
        let written = WriteFile
            .call(
                &json!({"path": target, "content": "[core]\n\tfsmonitor = touch pwned\n"}),
                &context,
            )
            .await;
        let error = written.expect_err(target);
        assert_eq!(error.kind, ToolErrorKind::Denied, "{target}: {error}");
        assert!(error.message.contains("read-only"), "{error}");
        let edited = EditFile
            .call(
                &json!({"path": target, "old_text": "[core]", "new_text": "[core]\n\tfsmonitor = x"}),
                &context,
            )
            .await;
        assert!(edited.is_err(), "{target}: {edited:?}");
    }
    let after: Vec<_> = protected.iter().map(|p| snapshot(p)).collect();
    assert_eq!(before, after);
    assert!(!work.path().join("new").exists());
    // Reading stays allowed, and so does the rest of the working directory.
    let config = ReadFile
        .call(&json!({"path": "cfg"}), &context)
        .await
        .unwrap();
    assert!(config.contains("hooksPath"), "{config}");
    WriteFile
        .call(
            &json!({"path": "src/lib.rs", "content": "fn x() {}\n"}),
            &context,
        )
        .await
        .unwrap();
    WriteFile
        .call(
            &json!({"path": ".github/ci.yml", "content": "on: push\n"}),
            &context,
        )
        .await
        .unwrap();
    // Opened by the policy (`Sandbox::writable_vcs`), the same writes land.
    let open = context.clone().writable_vcs(true);
    WriteFile
        .call(&json!({"path": "cfg", "content": "[core]\n"}), &open)
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(work.path().join(".git/config")).unwrap(),
        "[core]\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_swapped_for_a_link_into_git_during_a_write_never_carries_it_there() {
    let (work, _outside, context) = setup();
    repository(work.path());
    let config = std::fs::read(work.path().join(".git/config")).unwrap();
    // The racer swaps `flip`, a folder of its own, with a link to `.git`, atomically
    // (`RENAME_EXCHANGE`), as fast as it can.
    std::fs::create_dir(work.path().join("flip")).unwrap();
    std::os::unix::fs::symlink(".git", work.path().join("other")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (stop, work) = (stop.clone(), work.path().to_owned());
        std::thread::spawn(move || {
            use rustix::fs::{CWD, RenameFlags, renameat_with};
            let (flip, other) = (work.join("flip"), work.join("other"));
            while !stop.load(Ordering::Relaxed) {
                let _ = renameat_with(CWD, &flip, CWD, &other, RenameFlags::EXCHANGE);
            }
        })
    };
    let (mut landed, mut refused, mut calls) = (0, 0, 0);
    let started = Instant::now();
    while (calls < 300 || landed == 0 || refused == 0)
        && started.elapsed() < Duration::from_secs(20)
    {
        calls += 1;
        match WriteFile
            .call(
                &json!({"path": "flip/config", "content": "PWNED"}),
                &context,
            )
            .await
        {
            Ok(_) => landed += 1,
            Err(error) if error.kind == ToolErrorKind::Denied => refused += 1,
            Err(_) => {}
        }
        assert_eq!(
            std::fs::read(work.path().join(".git/config")).unwrap(),
            config
        );
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    assert!(
        landed > 0 && refused > 0,
        "the race did not run: {landed} writes landed, {refused} refused in {calls} calls"
    );
    assert_eq!(
        std::fs::read(work.path().join(".git/config")).unwrap(),
        config
    );
}
