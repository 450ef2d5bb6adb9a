//! A user's crate with `lock = "skills.lock"`, built for real: an edit to a skill fails the build
//! until `skills lock` records it, and the binary then reports the new lock's digest.

use skills_test_support::workspace;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_skills");

fn write(dir: &Path, relative: &str, text: &str) {
    let file = dir.join(relative);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    // mtime must move forward for cargo to notice, even on coarse-grained file systems.
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(file, text).unwrap();
}

fn user_crate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let runtime = workspace().join("skills-runtime");
    let manifest = format!(
        "[package]\nname = \"locked-agent\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nskills-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.to_str().unwrap()
    );
    fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    fs::copy(
        workspace().join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    write(
        dir.path(),
        "src/main.rs",
        "static SKILLS: skills_runtime::Registry =\n    \
         skills_runtime::embed_skills!(\"skills\", lock = \"skills.lock\");\n\n\
         fn main() {\n    println!(\"{}\", SKILLS.lock_digest().unwrap_or(\"none\"));\n    \
         for skill in SKILLS.iter() {\n        println!(\"[{}] {}\", skill.name(), skill.body());\n    }\n}\n",
    );
    dir
}

fn skill(body: &str) -> String {
    format!("---\nname: alpha\ndescription: The alpha skill.\n---\n{body}\n")
}

fn cargo(dir: &Path, command: &str) -> Output {
    Command::new(env!("CARGO"))
        .args([command, "--quiet", "--offline"])
        .current_dir(dir)
        // The same folder as the root package's rebuild test, so the dependencies build once.
        .env("CARGO_TARGET_DIR", skills_test_support::user_crate_target())
        .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE")
        .output()
        .unwrap()
}

fn skills_lock(dir: &Path) {
    let output = Command::new(BIN)
        .arg("lock")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn run(dir: &Path) -> String {
    let output = cargo(dir, "run");
    assert!(
        output.status.success(),
        "build failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn lock_digest(dir: &Path) -> String {
    skills_core::digest::sha256_hex(&fs::read(dir.join("skills.lock")).unwrap())
}

#[test]
fn an_edit_fails_the_build_until_skills_lock_records_it() {
    let user = user_crate();
    let dir = user.path();
    write(dir, "skills/alpha/SKILL.md", &skill("Reviewed body."));
    skills_lock(dir);
    assert_eq!(
        run(dir),
        format!("{}\n[alpha] Reviewed body.\n", lock_digest(dir))
    );

    write(dir, "skills/alpha/SKILL.md", &skill("Unreviewed body."));
    let output = cargo(dir, "build");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "an unreviewed edit compiled");
    assert!(
        stderr
            .contains("[skills::lock-changed] `skills/alpha/SKILL.md` changed since it was locked"),
        "{stderr}"
    );
    assert!(
        stderr.contains("update the lock with `skills lock`"),
        "{stderr}"
    );

    let before = lock_digest(dir);
    std::thread::sleep(Duration::from_millis(1100));
    skills_lock(dir);
    let after = lock_digest(dir);
    assert_ne!(before, after);
    assert_eq!(run(dir), format!("{after}\n[alpha] Unreviewed body.\n"));
}

/// The binary carries the bytes the lock reviewed, even when a file is rewritten while the crate
/// compiles (an editor saving, a `git checkout`, another build step): between the macro's read
/// and rustc's own read of the file (for tracking), `GOOD` becomes `EVIL`, same length. The
/// build either fails, naming the file, or succeeds with the checked bytes; `EVIL` never ships.
///
/// The rewrite is timed with inotify: it happens as soon as the macro has closed the file, and
/// the test checks that rustc opened the file again after it, so the swap really fell between
/// the two reads. 400 more skills, read after the first, keep the macro busy meanwhile.
#[cfg(target_os = "linux")]
#[test]
fn a_file_rewritten_while_the_crate_compiles_never_reaches_the_binary() {
    let user = user_crate();
    let dir = user.path();
    let rename = fs::read_to_string(dir.join("Cargo.toml"))
        .unwrap()
        .replace("locked-agent", "swapped-agent");
    fs::write(dir.join("Cargo.toml"), rename).unwrap();
    let first =
        "---\nname: aaa\ndescription: The first skill.\n---\nGOOD: see references/notes.md\n";
    write(dir, "skills/aaa/SKILL.md", first);
    write(dir, "skills/aaa/references/notes.md", "GOOD notes\n");
    for i in 0..400 {
        let name = format!("filler-{i:03}");
        let text = format!(
            "---\nname: {name}\ndescription: Filler skill {i}, to keep the macro busy.\n---\n{}\n",
            "Do the filler thing, step by step.\n".repeat(20)
        );
        fs::create_dir_all(dir.join("skills").join(&name)).unwrap();
        fs::write(dir.join("skills").join(&name).join("SKILL.md"), text).unwrap();
    }
    skills_lock(dir);
    let binary = skills_test_support::user_crate_target().join("debug/swapped-agent");

    // `SKILL.md`: the build succeeds with the reviewed text.
    let (output, reread) = build_swapping(dir, "skills/aaa/SKILL.md");
    assert!(
        reread,
        "rustc did not read the file after the swap: the test could not tell"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let printed = String::from_utf8(Command::new(&binary).output().unwrap().stdout).unwrap();
    assert!(printed.contains("[aaa] GOOD: see"), "{printed}");
    assert!(
        !printed.contains("EVIL"),
        "the binary carries unreviewed bytes: {printed}"
    );

    // A resource: the macro reads it again to embed it, so a change fails the build (or, had
    // it come after that second read, would not reach the binary either).
    fs::write(dir.join("skills/aaa/SKILL.md"), first).unwrap();
    let (output, reread) = build_swapping(dir, "skills/aaa/references/notes.md");
    assert!(
        reread,
        "rustc did not read the file after the swap: the test could not tell"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        let bytes = fs::read(&binary).unwrap();
        assert!(
            bytes.windows(10).any(|w| w == b"GOOD notes")
                && !bytes.windows(10).any(|w| w == b"EVIL notes"),
            "the binary carries unreviewed bytes"
        );
    } else {
        assert!(
            stderr.contains("[skills::file-changed] `skills/aaa/references/notes.md` changed while the crate was compiling"),
            "{stderr}"
        );
    }
}

/// `cargo build` in `dir`, rewriting `GOOD` as `EVIL` in `relative` (in place, same length) as
/// soon as the build has read it once; whether the build opened it again after the rewrite.
#[cfg(target_os = "linux")]
fn build_swapping(dir: &Path, relative: &str) -> (Output, bool) {
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use std::io::{Seek, SeekFrom, Write};
    use std::mem::MaybeUninit;

    let file = dir.join(relative);
    let name = file.file_name().unwrap().to_owned();
    // Read before the watch starts: from then on, the first read is the build's.
    let offset = fs::read_to_string(&file).unwrap().find("GOOD").unwrap() as u64;
    let watch = inotify::init(CreateFlags::CLOEXEC).unwrap();
    inotify::add_watch(
        &watch,
        file.parent().unwrap(),
        WatchFlags::OPEN | WatchFlags::CLOSE_NOWRITE | WatchFlags::CLOSE_WRITE,
    )
    .unwrap();
    let child = Command::new(env!("CARGO"))
        .args(["build", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", skills_test_support::user_crate_target())
        .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let watcher = std::thread::spawn(move || {
        let mut buffer = [MaybeUninit::uninit(); 4096];
        let mut events = inotify::Reader::new(&watch, &mut buffer);
        // Read once by the build, then rewritten (our own open and close), then opened again.
        let mut swapped = false;
        let mut written = false;
        while let Ok(event) = events.next() {
            if event.file_name().map(|n| n.to_bytes()) != Some(name.as_encoded_bytes()) {
                continue;
            }
            let flags = event.events();
            if !swapped && flags.contains(ReadFlags::CLOSE_NOWRITE) {
                let mut writer = fs::OpenOptions::new().write(true).open(&file).unwrap();
                writer.seek(SeekFrom::Start(offset)).unwrap();
                writer.write_all(b"EVIL").unwrap();
                drop(writer);
                swapped = true;
            } else if swapped && !written && flags.contains(ReadFlags::CLOSE_WRITE) {
                written = true;
            } else if written && flags.contains(ReadFlags::OPEN) {
                return true;
            }
        }
        false
    });
    let output = child.wait_with_output().unwrap();
    // The watch ends with the build: a file opened again has been seen by now, or never will.
    let reread = watcher.is_finished() && watcher.join().unwrap();
    (output, reread)
}
