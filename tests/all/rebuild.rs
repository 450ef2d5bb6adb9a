//! A user's crate, built for real: edits, deletions and new skills reach the binary, a broken
//! skill fails the build naming its file and line, `crate = path` serves a renamed
//! dependency, and the build cache in `OUT_DIR` gives every build the verdict of a fresh one.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

use skills_test_support::hostile as hostile_fixtures;

/// The user's program: prints the catalog and every body (and, on stderr, its `OUT_DIR`, where
/// the macro keeps its cache).
fn main_rs(options: &str) -> String {
    format!(
        "static SKILLS: agent_skills::Registry =\n    agent_skills::embed_skills!(\"skills\", crate = ::agent_skills{options});\n\n\
         fn main() {{\n    eprintln!(\"OUT_DIR={{}}\", env!(\"OUT_DIR\"));\n    println!(\"{{}}\", SKILLS.catalog());\n    \
         for skill in SKILLS.iter() {{\n        println!(\"[{{}}] {{}}\", skill.name(), skill.body());\n    }}\n}}\n"
    )
}

/// Where the user crates build, with the other crates' tests of user crates.
fn user_target_dir() -> PathBuf {
    skills_test_support::user_crate_target()
}

struct UserCrate {
    dir: tempfile::TempDir,
}

impl UserCrate {
    /// A crate called `name`: tests running at once share the target directory, so each
    /// needs a binary of its own.
    fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Path::new(WORKSPACE).join("skills-runtime");
        let runtime = runtime.to_str().unwrap();
        // The runtime is a *renamed* dependency, so the generated code only compiles if the
        // macro honours `crate = ::agent_skills`.
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nagent_skills = {{ package = \"skills-runtime\", path = {runtime:?} }}\n\n\
             [build-dependencies]\nagent_skills = {{ package = \"skills-runtime\", path = {runtime:?} }}\n\n\
             [workspace]\n"
        );
        fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        fs::copy(
            Path::new(WORKSPACE).join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        )
        .unwrap();
        fs::write(
            dir.path().join("build.rs"),
            "fn main() {\n    agent_skills::build::watch(&[\"skills\"]);\n}\n",
        )
        .unwrap();
        fs::create_dir_all(dir.path().join("src")).unwrap();
        fs::write(dir.path().join("src/main.rs"), main_rs("")).unwrap();
        UserCrate { dir }
    }

    /// Rewrites `src/main.rs` with more `embed_skills!` options (`", key = value"`).
    fn set_options(&self, options: &str) {
        std::thread::sleep(Duration::from_millis(1100));
        fs::write(self.path("src/main.rs"), main_rs(options)).unwrap();
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write_skill(&self, name: &str, body: &str) {
        let file = self.path(&format!("skills/{name}/SKILL.md"));
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        // mtime must move forward for cargo to notice, even on coarse-grained file systems.
        std::thread::sleep(Duration::from_millis(1100));
        fs::write(
            file,
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"),
        )
        .unwrap();
    }

    fn cargo(&self, command: &str) -> std::process::Output {
        Command::new(env!("CARGO"))
            .args([command, "--quiet", "--offline"])
            .current_dir(self.dir.path())
            // Shared across runs so only the first run compiles the dependencies.
            .env("CARGO_TARGET_DIR", user_target_dir())
            .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE")
            .output()
            .unwrap()
    }

    fn run(&self) -> String {
        let output = self.cargo("run");
        assert!(
            output.status.success(),
            "build failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

#[test]
fn changes_to_skills_reach_the_binary() {
    let user = UserCrate::new("user-agent");
    user.write_skill("alpha", "First alpha body.");
    user.write_skill("beta", "Beta body.");
    let first = user.run();
    assert_eq!(
        first,
        "- alpha: The alpha skill.\n- beta: The beta skill.\n[alpha] First alpha body.\n[beta] Beta body.\n"
    );
    // Without the MCP server in the build, the frontmatter is not embedded a second time, as
    // JSON (the server's dependency turns that on in the macro).
    let binary = fs::read(user_target_dir().join("debug").join("user-agent")).unwrap();
    let json = br#"{"name":"alpha","description":"The alpha skill."}"#;
    assert!(binary.windows(json.len()).all(|w| w != json));

    user.write_skill("alpha", "Edited alpha body.");
    assert!(
        user.run().contains("[alpha] Edited alpha body."),
        "an edit rebuilds"
    );

    std::thread::sleep(Duration::from_millis(1100));
    fs::remove_dir_all(user.path("skills/beta")).unwrap();
    let after_delete = user.run();
    assert!(
        !after_delete.contains("beta"),
        "a deletion rebuilds: {after_delete}"
    );

    user.write_skill("gamma", "Gamma body.");
    assert_eq!(
        user.run(),
        "- alpha: The alpha skill.\n- gamma: The gamma skill.\n[alpha] Edited alpha body.\n[gamma] Gamma body.\n",
        "a new folder rebuilds thanks to the build.rs line"
    );

    // A trigger file is checked like every file but not embedded (an edit to it alone rebuilds
    // without the build.rs line too: see the test below).
    let triggers = user.path("skills/alpha/evals/triggers.json");
    std::thread::sleep(Duration::from_millis(1100));
    fs::create_dir_all(triggers.parent().unwrap()).unwrap();
    fs::write(
        &triggers,
        "[{\"query\": \"do alpha\", \"should_trigger\": true}]\n",
    )
    .unwrap();
    assert!(user.run().contains("[alpha] Edited alpha body."));
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(
        &triggers,
        "[{\"query\": \"do alpha\", \"should_trigger\": 1}]\n",
    )
    .unwrap();
    let output = user.cargo("build");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a broken case fails the build");
    assert!(
        stderr.contains("--> skills/alpha/evals/triggers.json:1:42"),
        "{stderr}"
    );
    std::thread::sleep(Duration::from_millis(1100));
    fs::remove_file(&triggers).unwrap();
    assert!(user.run().contains("[alpha] Edited alpha body."));

    std::thread::sleep(Duration::from_millis(1100));
    fs::write(
        user.path("skills/gamma/SKILL.md"),
        "---\nname: gamma\ndescription: Use: now\n---\nBody\n",
    )
    .unwrap();
    let output = user.cargo("build");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("--> skills/gamma/SKILL.md:3:17"),
        "{stderr}"
    );
    assert!(stderr.contains("must be quoted"), "{stderr}");
}

/// A program that prints its skills' trigger cases, with `embed_skills!` options `options`.
fn cases_main_rs(options: &str) -> String {
    format!(
        "static SKILLS: agent_skills::Registry =\n    agent_skills::embed_skills!(\"skills\", crate = ::agent_skills{options});\n\n\
         fn main() {{\n    println!(\"embedded {{}}\", SKILLS.trigger_cases_embedded());\n    \
         for skill in SKILLS.iter() {{\n        for case in skill.trigger_cases() {{\n            \
         println!(\"[{{}}] {{}} {{}}\", skill.name(), case.query, case.should_trigger);\n        }}\n    }}\n}}\n"
    )
}

#[test]
fn a_trigger_file_alone_rebuilds_and_its_cases_reach_the_binary_only_when_asked() {
    let user = UserCrate::new("user-evals");
    // No build script: what rebuilds on an edit is the macro's own tracking of the file.
    fs::remove_file(user.path("build.rs")).unwrap();
    user.write_skill("alpha", "Alpha body.");
    let triggers = user.path("skills/alpha/evals/triggers.json");
    fs::create_dir_all(triggers.parent().unwrap()).unwrap();
    let cases = |marker: &str| {
        format!("[{{\"query\": \"do the alpha thing {marker}\", \"should_trigger\": true}}]\n")
    };
    fs::write(&triggers, cases("zq17")).unwrap();
    fs::write(
        user.path("src/main.rs"),
        cases_main_rs(", embed_evals = true"),
    )
    .unwrap();
    assert_eq!(
        user.run(),
        "embedded true\n[alpha] do the alpha thing zq17 true\n"
    );
    let binary = || fs::read(user_target_dir().join("debug").join("user-evals")).unwrap();
    let holds = |bytes: &[u8], text: &[u8]| bytes.windows(text.len()).any(|w| w == text);
    assert!(holds(&binary(), b"do the alpha thing zq17"));

    std::thread::sleep(Duration::from_millis(1100));
    fs::write(&triggers, cases("zq18")).unwrap();
    assert_eq!(
        user.run(),
        "embedded true\n[alpha] do the alpha thing zq18 true\n",
        "an edit of the trigger file alone rebuilds"
    );

    std::thread::sleep(Duration::from_millis(1100));
    fs::write(user.path("src/main.rs"), cases_main_rs("")).unwrap();
    assert_eq!(user.run(), "embedded false\n");
    assert!(
        !holds(&binary(), b"zq18"),
        "without embed_evals nothing of the cases is in the binary"
    );
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(&triggers, "[{\"query\": \"\", \"should_trigger\": true}]\n").unwrap();
    let output = user.cargo("build");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a broken case fails the build");
    assert!(
        stderr.contains("--> skills/alpha/evals/triggers.json:1:12"),
        "{stderr}"
    );
}

/// What a build shows: the program's output when it builds, the compiler's errors when not.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Ran(String),
    Failed(String),
}

impl UserCrate {
    fn outcome(&self) -> Outcome {
        let output = self.cargo("run");
        if output.status.success() {
            Outcome::Ran(String::from_utf8(output.stdout).unwrap())
        } else {
            Outcome::Failed(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    /// The crate's `OUT_DIR`, as the program reports it.
    fn out_dir(&self) -> PathBuf {
        let output = self.cargo("run");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr
            .lines()
            .find_map(|line| line.strip_prefix("OUT_DIR="))
            .unwrap_or_else(|| panic!("no OUT_DIR in:\n{stderr}"));
        PathBuf::from(line)
    }

    fn cache_files(&self, out_dir: &Path) -> Vec<PathBuf> {
        fs::read_dir(out_dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().contains("skills-cache-"))
            .collect()
    }

    /// Forces the macro to run again (cargo sees `src/main.rs` change).
    fn touch_main(&self) {
        std::thread::sleep(Duration::from_millis(1100));
        let main = fs::read_to_string(self.path("src/main.rs")).unwrap();
        fs::write(self.path("src/main.rs"), main).unwrap();
    }

    /// A build served by the cache, then the same sources built with no cache: they must agree.
    /// The edit is left to settle first: the macro does not trust the timestamps of files changed
    /// in the last seconds, and would recompute them whatever the cache holds.
    fn cached_equals_fresh(&self, out_dir: &Path, what: &str) -> Outcome {
        std::thread::sleep(Duration::from_secs(4));
        let cached = self.outcome();
        for file in self.cache_files(out_dir) {
            fs::remove_file(file).unwrap();
        }
        self.touch_main();
        let fresh = self.outcome();
        assert_eq!(
            cached, fresh,
            "after {what}: the cached build differs from a fresh one"
        );
        cached
    }
}

#[test]
fn the_build_cache_gives_the_verdict_of_a_fresh_build() {
    let user = UserCrate::new("user-cache");
    user.write_skill("alpha", "Alpha body.");
    user.write_skill("beta", "Beta body, see https://example.com/beta.");
    user.write_skill("gamma", "Gamma body.");
    // Files changed in the last few seconds are not cached; let these settle.
    std::thread::sleep(Duration::from_secs(4));
    let out_dir = user.out_dir();
    // The target directory is shared across runs, and so is this crate's OUT_DIR: start over.
    for file in user.cache_files(&out_dir) {
        fs::remove_file(file).unwrap();
    }
    user.touch_main();
    assert!(matches!(user.outcome(), Outcome::Ran(_)));
    let [cache] = user.cache_files(&out_dir).try_into().unwrap();
    let bytes = fs::read(&cache).unwrap();
    assert!(bytes.starts_with(b"skills-core build cache\n") && bytes.len() > 300);

    user.write_skill("alpha", "Edited alpha body.");
    let edited = user.cached_equals_fresh(&out_dir, "an edit");
    assert!(
        matches!(&edited, Outcome::Ran(out) if out.contains("[alpha] Edited alpha body.")),
        "{edited:?}"
    );

    // alpha is cached valid now.
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(
        user.path("skills/alpha/SKILL.md"),
        "---\nname: alpha\ndescription: Use: now\n---\nBody\n",
    )
    .unwrap();
    let broken = user.cached_equals_fresh(&out_dir, "breaking a cached skill");
    assert!(
        matches!(&broken, Outcome::Failed(err) if err.contains("--> skills/alpha/SKILL.md:3:17")),
        "{broken:?}"
    );

    user.write_skill("alpha", "Fixed alpha body.");
    let fixed = user.cached_equals_fresh(&out_dir, "fixing it");
    assert!(
        matches!(&fixed, Outcome::Ran(out) if out.contains("[alpha] Fixed alpha body.")),
        "{fixed:?}"
    );

    std::thread::sleep(Duration::from_millis(1100));
    fs::rename(user.path("skills/gamma"), user.path("skills/delta")).unwrap();
    let renamed = user.cached_equals_fresh(&out_dir, "renaming a folder");
    assert!(
        matches!(&renamed, Outcome::Failed(err) if err.contains("skills/delta/SKILL.md")),
        "{renamed:?}"
    );

    std::thread::sleep(Duration::from_millis(1100));
    fs::remove_dir_all(user.path("skills/delta")).unwrap();
    let deleted = user.cached_equals_fresh(&out_dir, "deleting a skill");
    assert!(
        matches!(&deleted, Outcome::Ran(out) if !out.contains("gamma") && out.contains("[beta]")),
        "{deleted:?}"
    );

    user.write_skill("epsilon", "Epsilon body.");
    let added = user.cached_equals_fresh(&out_dir, "adding a skill");
    assert!(
        matches!(&added, Outcome::Ran(out) if out.contains("[epsilon] Epsilon body.")),
        "{added:?}"
    );

    let triggers = user.path("skills/epsilon/evals/triggers.json");
    std::thread::sleep(Duration::from_millis(1100));
    fs::create_dir_all(triggers.parent().unwrap()).unwrap();
    fs::write(&triggers, "[{\"query\": \"\", \"should_trigger\": true}]\n").unwrap();
    let broken_cases = user.cached_equals_fresh(&out_dir, "breaking a trigger file");
    assert!(
        matches!(&broken_cases, Outcome::Failed(err) if err.contains("--> skills/epsilon/evals/triggers.json:1:12")),
        "{broken_cases:?}"
    );
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(
        &triggers,
        "[{\"query\": \"do epsilon\", \"should_trigger\": true}]\n",
    )
    .unwrap();
    let fixed_cases = user.cached_equals_fresh(&out_dir, "fixing the trigger file");
    assert!(matches!(&fixed_cases, Outcome::Ran(_)), "{fixed_cases:?}");

    user.set_options(", external_urls = \"deny\"");
    let denied = user.cached_equals_fresh(&out_dir, "setting a lint to deny");
    assert!(
        matches!(&denied, Outcome::Failed(err) if err.contains("external-urls")),
        "{denied:?}"
    );
    user.set_options("");
    assert!(matches!(
        user.cached_equals_fresh(&out_dir, "resetting the lint"),
        Outcome::Ran(_)
    ));

    for file in user.cache_files(&out_dir) {
        let mut bytes = fs::read(&file).unwrap();
        bytes.truncate(bytes.len() / 2);
        fs::write(&file, bytes).unwrap();
    }
    user.touch_main();
    let after_corruption = user.cached_equals_fresh(&out_dir, "corrupting the cache");
    assert!(matches!(after_corruption, Outcome::Ran(_)));
}

/// A folder that hung the build before (a FIFO as a resource and as the trigger file, which
/// rustc opened and waited on; two links to `.`, which the walk followed until the kernel's
/// link limit, doubling the paths at every level) fails it, naming each file, within a deadline:
/// a regression fails this test instead of hanging it.
#[cfg(unix)]
#[test]
fn a_hostile_folder_fails_the_build_in_bounded_time() {
    let user = UserCrate::new("hostile-agent");
    user.write_skill("alpha", "Alpha body.");
    let alpha = user.path("skills/alpha");
    hostile_fixtures::fifo(&alpha.join("pipe.md"));
    fs::create_dir(alpha.join("evals")).unwrap();
    hostile_fixtures::fifo(&alpha.join("evals/triggers.json"));
    std::os::unix::fs::symlink(".", alpha.join("a")).unwrap();
    std::os::unix::fs::symlink(".", alpha.join("b")).unwrap();
    let mut child = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--offline"])
        .current_dir(user.dir.path())
        .env("CARGO_TARGET_DIR", user_target_dir())
        .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).map(|_| text)
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the build did not end within 300 s: it hangs on the hostile folder");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = reader.join().unwrap().unwrap();
    assert!(!status.success(), "the hostile folder compiled");
    for expected in [
        "[skills::special-file] `skills/alpha/evals/triggers.json` is a FIFO (named pipe)",
        "[skills::special-file] `skills/alpha/pipe.md` is a FIFO (named pipe)",
        "[skills::symlink-loop] `skills/alpha/a` is a loop: it links back to `skills/alpha`",
        "[skills::symlink-loop] `skills/alpha/b` is a loop",
    ] {
        assert!(stderr.contains(expected), "no `{expected}`:\n{stderr}");
    }
}
