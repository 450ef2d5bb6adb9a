//! A user's crate, built for real: edits, deletions and new skills reach the binary, a broken
//! skill fails the build naming its file and line, and `crate = path` serves a renamed
//! dependency.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

struct UserCrate {
    dir: tempfile::TempDir,
}

impl UserCrate {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Path::new(WORKSPACE).join("skills-runtime");
        let runtime = runtime.to_str().unwrap();
        // The runtime is a *renamed* dependency, so the generated code only compiles if the
        // macro honours `crate = ::agent_skills`.
        let manifest = format!(
            "[package]\nname = \"user-agent\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
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
        fs::write(
            dir.path().join("src/main.rs"),
            "static SKILLS: agent_skills::Registry =\n    agent_skills::embed_skills!(\"skills\", crate = ::agent_skills);\n\n\
             fn main() {\n    println!(\"{}\", SKILLS.catalog());\n    for skill in SKILLS.iter() {\n        \
             println!(\"[{}] {}\", skill.name(), skill.body());\n    }\n}\n",
        )
        .unwrap();
        UserCrate { dir }
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
            .env(
                "CARGO_TARGET_DIR",
                Path::new(WORKSPACE).join("target/user-crate"),
            )
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
    let user = UserCrate::new();
    user.write_skill("alpha", "First alpha body.");
    user.write_skill("beta", "Beta body.");
    let first = user.run();
    assert_eq!(
        first,
        "- alpha: The alpha skill.\n- beta: The beta skill.\n[alpha] First alpha body.\n[beta] Beta body.\n"
    );

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
