//! Skill packs the way a user has them: two pack crates and a consumer in a temporary
//! directory, outside this workspace, built for real with cargo. The consumer's one
//! `embed_skills!` call compiles both packs and its own folder into one registry checked as a
//! bundle; a duplicate across packs, a `requires` across packs and a budget overflow are
//! compile errors naming the crates and files; a pack's new version fails a locked build,
//! naming the pack, both versions and the changed file, until `skills lock` records it. A pack
//! from a git repository works as one from a path (`packaged.rs` has one from a registry).
//!
//! One temporary workspace serves every check, in sequence, so the dependencies build once.

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

fn skill(name: &str, description: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nDo it well.\n")
}

/// The runtime as the dependency line of a manifest.
fn runtime_dependency() -> String {
    let runtime = workspace().join("skills-runtime");
    format!(
        "skills-runtime = {{ path = {:?} }}",
        runtime.to_str().unwrap()
    )
}

/// A pack crate in `dir/folder`: its manifest with `links`, its one-line build script and
/// an empty library.
fn pack(dir: &Path, folder: &str, name: &str, version: &str) {
    let runtime = runtime_dependency();
    write(
        dir,
        &format!("{folder}/Cargo.toml"),
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2024\"\n\
             links = \"{name}\"\n\n[build-dependencies]\n{runtime}\n\n[workspace]\n"
        ),
    );
    write(
        dir,
        &format!("{folder}/build.rs"),
        "fn main() {\n    skills_runtime::build::pack();\n}\n",
    );
    write(dir, &format!("{folder}/src/lib.rs"), "//! A skill pack.\n");
}

/// The consumer: depends on both packs (`beta` from `beta_folder`), embeds them with its own
/// folder, checks a pack's skill name with `skill_name!`, and prints every skill with the file
/// it came from.
fn consumer(dir: &Path, beta_folder: &str, options: &str) {
    let runtime = runtime_dependency();
    write(
        dir,
        "app/Cargo.toml",
        &format!(
            "[package]\nname = \"pack-consumer\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\n{runtime}\nalpha-skills = {{ path = \"../alpha\" }}\n\
             beta-skills = {{ path = \"../{beta_folder}\" }}\n\n\
             [build-dependencies]\n{runtime}\n\n[workspace]\n"
        ),
    );
    write(
        dir,
        "app/build.rs",
        "fn main() {\n    skills_runtime::build::packs();\n    \
         skills_runtime::build::watch(&[\"skills\"]);\n}\n",
    );
    write(
        dir,
        "app/src/main.rs",
        &format!(
            "static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(\n    \
             \"skills\",\n    packs = [\"alpha-skills\", \"beta-skills\"]{options}\n);\n\n\
             const BETA: &str = skills_runtime::skill_name!(\"skills\", \"beta-one\", packs = [\"beta-skills\"]);\n\n\
             fn main() {{\n    println!(\"{{}}\", SKILLS.catalog());\n    \
             for skill in SKILLS.iter() {{\n        println!(\"[{{}}] {{}}\", skill.name(), skill.source_path());\n    }}\n    \
             let guide = SKILLS.get(BETA).and_then(|s| s.resource(\"references/guide.md\"));\n    \
             println!(\"guide: {{:?}}\", guide.and_then(|r| r.text()));\n    \
             println!(\"checked {{BETA}}\");\n}}\n"
        ),
    );
}

/// Cargo in the consumer's folder, building where the other user-crate tests build, so the
/// dependencies build once.
fn cargo_in_app(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(dir.join("app"))
        .env("CARGO_TARGET_DIR", skills_test_support::user_crate_target())
        .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE");
    command
}

fn cargo(dir: &Path, command: &str) -> Output {
    cargo_in_app(dir)
        .args([command, "--quiet", "--offline"])
        .output()
        .unwrap()
}

/// The stdout of a build that must succeed.
fn succeeded(output: Output) -> String {
    assert!(
        output.status.success(),
        "build failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn run(dir: &Path) -> String {
    succeeded(cargo(dir, "run"))
}

fn build_error(dir: &Path) -> String {
    let output = cargo(dir, "build");
    assert!(!output.status.success(), "the build should fail");
    String::from_utf8(output.stderr).unwrap()
}

fn lock(dir: &Path) -> Output {
    Command::new(BIN)
        .args(["lock", "--pack", "alpha-skills", "--pack", "beta-skills"])
        .current_dir(dir.join("app"))
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .unwrap()
}

#[test]
fn packs_compile_with_the_crate_folder_into_one_checked_bundle() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    fs::create_dir_all(dir.join("app")).unwrap();
    fs::copy(workspace().join("Cargo.lock"), dir.join("app/Cargo.lock")).unwrap();
    pack(dir, "alpha", "alpha-skills", "1.0.0");
    pack(dir, "beta", "beta-skills", "2.0.0");
    // `requires` across packs: alpha's skill needs beta's.
    let alpha_one = skill("alpha-one", "Alpha.", "requires: [beta-one]\n");
    write(dir, "alpha/skills/alpha-one/SKILL.md", &alpha_one);
    write(
        dir,
        "beta/skills/beta-one/SKILL.md",
        &skill("beta-one", "Beta.", ""),
    );
    // A pack's resources travel with it.
    write(
        dir,
        "beta/skills/beta-one/references/guide.md",
        "Beta's guide.\n",
    );
    write(
        dir,
        "app/skills/local-one/SKILL.md",
        &skill("local-one", "Local.", "requires: [alpha-one]\n"),
    );
    consumer(dir, "beta", "");

    let out = run(dir);
    assert!(
        out.starts_with("- alpha-one: Alpha.\n- beta-one: Beta.\n- local-one: Local.\n"),
        "{out}"
    );
    assert!(
        out.contains("[alpha-one] alpha-skills@1.0.0/skills/alpha-one/SKILL.md"),
        "{out}"
    );
    assert!(
        out.contains("[beta-one] beta-skills@2.0.0/skills/beta-one/SKILL.md"),
        "{out}"
    );
    assert!(
        out.contains("[local-one] skills/local-one/SKILL.md"),
        "{out}"
    );
    assert!(out.contains("checked beta-one"), "{out}");
    assert!(out.contains("guide: Some(\"Beta's guide.\\n\")"), "{out}");

    // A pack's files are tracked: an edit in the pack reaches the consumer's binary.
    write(
        dir,
        "beta/skills/beta-one/SKILL.md",
        &skill("beta-one", "Beta, edited.", ""),
    );
    assert!(run(dir).contains("- beta-one: Beta, edited.\n"));

    // A name defined in two packs: one error naming both files, with crate and version.
    write(
        dir,
        "alpha/skills/beta-one/SKILL.md",
        &skill("beta-one", "Beta again.", ""),
    );
    let error = build_error(dir);
    assert!(
        error.contains(
            "skill `beta-one` is defined more than once: alpha-skills@1.0.0/skills/beta-one/SKILL.md, \
             beta-skills@2.0.0/skills/beta-one/SKILL.md"
        ),
        "{error}"
    );
    fs::remove_dir_all(dir.join("alpha/skills/beta-one")).unwrap();

    // A `requires` naming a skill no pack has: the error is in the pack's file.
    write(
        dir,
        "alpha/skills/alpha-one/SKILL.md",
        &skill("alpha-one", "Alpha.", "requires: [beta-two]\n"),
    );
    let error = build_error(dir);
    assert!(
        error.contains("`requires` names `beta-two`, which is not a skill in this bundle"),
        "{error}"
    );
    assert!(
        error.contains("--> alpha-skills@1.0.0/skills/alpha-one/SKILL.md:4:"),
        "{error}"
    );
    write(dir, "alpha/skills/alpha-one/SKILL.md", &alpha_one);

    // The catalog budget counts every pack's skills.
    consumer(dir, "beta", ",\n    catalog_budget = 40");
    let error = build_error(dir);
    assert!(
        error.contains(", over the budget of 40; the skills that contribute most"),
        "{error}"
    );
    assert!(
        error.contains("--> skills, alpha-skills@1.0.0/skills, beta-skills@2.0.0/skills"),
        "{error}"
    );

    // A pack the build script did not pass on (not a dependency): the error says how.
    let main = fs::read_to_string(dir.join("app/src/main.rs")).unwrap();
    write(
        dir,
        "app/src/main.rs",
        &main
            .replace("catalog_budget = 40", "packs = [\"gamma-skills\"]")
            .replace("packs = [\"alpha-skills\", \"beta-skills\"],", ""),
    );
    let error = build_error(dir);
    assert!(
        error.contains(
            "skill pack `gamma-skills` is not visible here: add `gamma-skills` to [dependencies]"
        ),
        "{error}"
    );

    // Reviewed upgrades: a locked build, then beta 2.1.0 with one changed file.
    consumer(dir, "beta", ",\n    lock = \"skills.lock\"");
    let locked = lock(dir);
    assert!(
        locked.status.success(),
        "{}",
        String::from_utf8_lossy(&locked.stderr)
    );
    let lock_text = fs::read_to_string(dir.join("app/skills.lock")).unwrap();
    assert!(lock_text.contains("(lock format 2)"), "{lock_text}");
    assert!(
        lock_text.contains("# pack beta-skills = 2.0.0\n"),
        "{lock_text}"
    );
    assert!(
        lock_text.contains("  beta-skills@2.0.0/skills/beta-one/SKILL.md\n"),
        "{lock_text}"
    );
    assert!(
        lock_text.contains("  beta-skills@2.0.0/skills/beta-one/references/guide.md\n"),
        "{lock_text}"
    );
    run(dir);

    pack(dir, "beta-2.1", "beta-skills", "2.1.0");
    write(
        dir,
        "beta-2.1/skills/beta-one/SKILL.md",
        &skill("beta-one", "Beta, upgraded.", ""),
    );
    write(
        dir,
        "beta-2.1/skills/beta-one/references/guide.md",
        "Beta's guide, upgraded.\n",
    );
    consumer(dir, "beta-2.1", ",\n    lock = \"skills.lock\"");
    let error = build_error(dir);
    assert!(
        error.contains(
            "pack `beta-skills` is 2.1.0 now, but the lock `skills.lock` was reviewed at 2.0.0; \
             files that differ: `skills/beta-one/SKILL.md` changed, \
             `skills/beta-one/references/guide.md` changed"
        ),
        "{error}"
    );
    assert!(
        error.contains("skills lock --pack alpha-skills --pack beta-skills"),
        "{error}"
    );
    let locked = lock(dir);
    assert!(
        locked.status.success(),
        "{}",
        String::from_utf8_lossy(&locked.stderr)
    );
    let out = run(dir);
    assert!(out.contains("- beta-one: Beta, upgraded.\n"), "{out}");
    assert!(
        out.contains("guide: Some(\"Beta's guide, upgraded.\\n\")"),
        "{out}"
    );
    assert!(
        out.contains("[beta-one] beta-skills@2.1.0/skills/beta-one/SKILL.md"),
        "{out}"
    );
}

/// A pack in a git repository, the way a team shares one before (or instead of) publishing it:
/// cargo checks it out under its own folder, and the pack is found there.
#[test]
fn a_pack_from_a_git_checkout_is_embedded_like_any_other() {
    let git = |dir: &Path, args: &[&str]| {
        Command::new("git")
            .args(["-c", "user.name=test", "-c", "user.email=test@127.0.0.1"])
            .args(args)
            .current_dir(dir)
            .output()
    };
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    pack(dir, "alpha", "alpha-skills", "1.0.0");
    write(
        dir,
        "alpha/skills/alpha-one/SKILL.md",
        &skill("alpha-one", "Alpha.", ""),
    );
    write(
        dir,
        "alpha/skills/alpha-one/references/notes.md",
        "Alpha's notes.\n",
    );
    let repo = dir.join("alpha");
    let Ok(init) = git(&repo, &["init", "-q"]) else {
        eprintln!("skipped: git is not installed");
        return;
    };
    assert!(init.status.success());
    assert!(git(&repo, &["add", "-A"]).unwrap().status.success());
    assert!(
        git(&repo, &["commit", "-qm", "pack"])
            .unwrap()
            .status
            .success()
    );
    // The working copy changes after the commit: the consumer must get the committed pack.
    write(
        dir,
        "alpha/skills/alpha-one/SKILL.md",
        &skill("alpha-one", "Uncommitted.", ""),
    );

    let runtime = runtime_dependency();
    write(
        dir,
        "app/Cargo.toml",
        &format!(
            "[package]\nname = \"git-consumer\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\n{runtime}\nalpha-skills = {{ git = \"file://{}\" }}\n\n\
             [build-dependencies]\n{runtime}\n\n[workspace]\n",
            repo.to_str().unwrap()
        ),
    );
    fs::copy(workspace().join("Cargo.lock"), dir.join("app/Cargo.lock")).unwrap();
    write(
        dir,
        "app/build.rs",
        "fn main() {\n    skills_runtime::build::packs();\n}\n",
    );
    write(
        dir,
        "app/skills/local-one/SKILL.md",
        &skill("local-one", "Local.", "requires: [alpha-one]\n"),
    );
    write(
        dir,
        "app/src/main.rs",
        "static SKILLS: skills_runtime::Registry =\n    \
         skills_runtime::embed_skills!(\"skills\", packs = [\"alpha-skills\"]);\n\n\
         fn main() {\n    print!(\"{}\", SKILLS.catalog());\n    \
         let notes = SKILLS.get(\"alpha-one\").and_then(|s| s.resource(\"references/notes.md\"));\n    \
         println!(\"\\nnotes: {:?}\", notes.and_then(|r| r.text()));\n}\n",
    );
    // Not offline (cargo fetches the git dependency, from the file system), but with a proxy
    // that answers nothing, so that no request can leave the machine.
    let output = cargo_in_app(dir)
        .args(["run", "--quiet"])
        .env("CARGO_HTTP_PROXY", "http://127.0.0.1:9")
        .env("CARGO_NET_GIT_FETCH_WITH_CLI", "false")
        .output()
        .unwrap();
    assert_eq!(
        succeeded(output),
        "- alpha-one: Alpha.\n- local-one: Local.\nnotes: Some(\"Alpha's notes.\\n\")\n"
    );
}
