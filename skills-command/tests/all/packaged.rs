//! The crates as crates.io would serve them: `cargo package` writes every `.crate` of the
//! workspace, and a consumer outside the workspace builds from a local directory registry that
//! holds those packages and the third-party crates they need, and nothing else: crates.io itself
//! is replaced by it (`[source.crates-io] replace-with`), the way a vendoring user builds. A
//! source file, a skill or a lock left out of a package's `include` list fails here, and so does
//! a dependency on a workspace path that a published crate would not have.
use skills_test_support::workspace;
use std::fs;
use std::process::Command;

use skills_core::digest::sha256_hex;

/// The packages the consumer builds from (the runtime without features, and the example pack).
const PACKAGES: [&str; 5] = [
    "skills-core",
    "skills-macro",
    "skills-bundle",
    "skills-runtime",
    "skills-example-pack",
];

fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[test]
fn a_consumer_builds_from_the_packaged_crates_alone() {
    // The folder the other user-crate tests build in, so third-party dependencies build once.
    let target = skills_test_support::user_crate_target();
    let packaged = target.join("package");
    // Every package: the runtime's optional dependencies are packages of the workspace too.
    let output = Command::new(env!("CARGO"))
        .args([
            "package",
            "--workspace",
            "--offline",
            "--no-verify",
            "--allow-dirty",
        ])
        .arg("--target-dir")
        .arg(&target)
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo package failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let temp = tempfile::tempdir().unwrap();
    let registry = temp.path().join("registry");
    fs::create_dir_all(&registry).unwrap();
    let mut patches = String::new();
    for name in PACKAGES {
        let file = packaged.join(format!("{name}-{}.crate", version()));
        let status = Command::new("tar")
            .arg("xzf")
            .arg(&file)
            .arg("-C")
            .arg(&registry)
            .status()
            .unwrap();
        assert!(status.success(), "cannot unpack {}", file.display());
        let dir = registry.join(format!("{name}-{}", version()));
        assert!(
            !dir.join("tests").exists(),
            "{name}: the package ships its tests"
        );
        // What a directory source checks a package against: the `.crate`'s SHA-256 (files are
        // not listed, so none is compared one by one).
        let checksum = sha256_hex(&fs::read(&file).unwrap());
        fs::write(
            dir.join(".cargo-checksum.json"),
            format!("{{\"files\":{{}},\"package\":\"{checksum}\"}}"),
        )
        .unwrap();
        patches.push_str(&format!(
            "{name} = {{ path = {:?} }}\n",
            dir.to_str().unwrap()
        ));
    }
    // The pack ships its skills, trigger cases and lock.
    let pack = registry.join(format!("skills-example-pack-{}", version()));
    for file in [
        "build.rs",
        "skills.lock",
        "skills/release-notes/SKILL.md",
        "skills/release-notes/evals/triggers.json",
    ] {
        assert!(pack.join(file).is_file(), "the pack lacks {file}");
    }

    let app = temp.path().join("app");
    fs::create_dir_all(app.join("src")).unwrap();
    fs::create_dir_all(app.join("skills/greet")).unwrap();
    let manifest = "[package]\nname = \"packaged-consumer\"\nversion = \"0.1.0\"\n\
                    edition = \"2024\"\n\n[dependencies]\nskills-runtime = \"0.1\"\n\
                    skills-example-pack = \"0.1\"\n\n[build-dependencies]\n\
                    skills-runtime = \"0.1\"\n\n[workspace]\n";
    // First the third-party crates the consumer needs, vendored into the registry folder from
    // cargo's cache: the packages stand in for crates.io (`[patch]`) only for this step.
    fs::write(
        app.join("Cargo.toml"),
        format!("{manifest}\n[patch.crates-io]\n{patches}"),
    )
    .unwrap();
    fs::copy(workspace().join("Cargo.lock"), app.join("Cargo.lock")).unwrap();
    fs::write(
        app.join("build.rs"),
        "fn main() {\n    skills_runtime::build::packs();\n    skills_runtime::build::watch(&[\"skills\"]);\n}\n",
    )
    .unwrap();
    fs::write(
        app.join("skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets.\n---\nSay hello.\n",
    )
    .unwrap();
    fs::write(
        app.join("src/main.rs"),
        "static SKILLS: skills_runtime::Registry =\n    \
         skills_runtime::embed_skills!(\"skills\", packs = [\"skills-example-pack\"]);\n\n\
         fn main() {\n    println!(\"{}\", SKILLS.names().collect::<Vec<_>>().join(\" \"));\n    \
         let own = skills_example_pack::SKILLS.names().count();\n    println!(\"pack alone: {own}\");\n}\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO"))
        // `--no-delete`: the packages already unpacked there stay.
        .args(["vendor", "--offline", "--versioned-dirs", "--no-delete"])
        .arg(&registry)
        .current_dir(&app)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo vendor failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Then the consumer as its author has it, every crate from the directory registry.
    fs::write(app.join("Cargo.toml"), manifest).unwrap();
    fs::remove_file(app.join("Cargo.lock")).unwrap();
    fs::create_dir_all(app.join(".cargo")).unwrap();
    fs::write(
        app.join(".cargo/config.toml"),
        format!(
            "[source.crates-io]\nreplace-with = \"packaged\"\n\n[source.packaged]\ndirectory = {:?}\n",
            registry.to_str().unwrap()
        ),
    )
    .unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline"])
        .current_dir(&app)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("SKILLS_MANIFEST_DIR_OVERRIDE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the consumer of the packaged crates failed to build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = String::from_utf8(output.stdout).unwrap();
    assert_eq!(out, "greet release-notes semver-bump\npack alone: 2\n");
    // Every one of our crates came from the registry folder, none from the workspace.
    let lock = fs::read_to_string(app.join("Cargo.lock")).unwrap();
    for name in PACKAGES {
        let entry = format!(
            "name = \"{name}\"\nversion = \"{}\"\nsource = \"registry+",
            version()
        );
        assert!(
            lock.contains(&entry),
            "{name} is not from the registry:\n{lock}"
        );
    }
    assert!(!lock.contains("path+"), "{lock}");
}
