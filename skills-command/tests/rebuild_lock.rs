//! A user's crate with `lock = "skills.lock"`, built for real: an edit to a skill fails the build
//! until `skills lock` records it, and the binary then reports the new lock's digest.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_skills");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("skills-command sits in the workspace")
        .to_path_buf()
}

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
        .env("CARGO_TARGET_DIR", workspace().join("target/user-crate"))
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
