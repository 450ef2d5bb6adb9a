//! Skill resources embedded, listed, read through the tool, and materialized to disk.

use skills_runtime::{ResourceError, SkillLoad, SkillLoader};

use crate::registries::WITH_RESOURCES as SKILLS;

#[test]
fn resources_are_embedded_and_listed_without_ignored_files() {
    let skill = SKILLS.get("pdf-forms").unwrap();
    let listed: Vec<(&str, u64, bool)> = skill
        .resources()
        .iter()
        .map(|r| (r.path(), r.size(), r.is_text()))
        .collect();
    assert_eq!(
        listed,
        [
            ("assets/logo.png", 10, false),
            ("references/fields.md", 31, true),
            ("scripts/fill.py", 27, true)
        ]
    );
    assert_eq!(
        skill.resource("./references/fields.md").unwrap().text(),
        Some("# Fields\n\nline 2\nline 3\nline 4\n")
    );
    assert_eq!(
        skill.resource("assets/logo.png").unwrap().bytes(),
        b"\x89PNG\r\n\x1a\n\x00\x00"
    );
    assert!(skill.resource("scripts/fill.py").unwrap().is_executable());
    assert_ne!(skill.tree_sha256(), skill.sha256());
    let plain = SKILLS.get("plain").unwrap();
    assert!(plain.resources().is_empty());
    assert_eq!(plain.tree_sha256(), plain.sha256());
}

#[test]
fn load_result_lists_the_files() {
    let text = SKILLS.load_skill("pdf-forms").unwrap();
    assert!(text.starts_with("<skill name=\"pdf-forms\" version=\"0.3.0\">\n# PDF forms"));
    assert!(text.ends_with(
        "</skill>\n\nResources of this skill (read them with read_skill_resource):\n\
         - assets/logo.png (10 bytes)\n- references/fields.md (31 bytes)\n- scripts/fill.py (27 bytes)"
    ));
    assert!(!SKILLS.load_skill("plain").unwrap().contains("Resources"));
}

#[test]
fn read_skill_resource_reads_text_by_lines_and_describes_binaries() {
    assert_eq!(
        SKILLS
            .read_resource("pdf-forms", "references/fields.md", Some(3), Some(2))
            .unwrap(),
        "line 2\nline 3\n[... 1 more lines; read on with offset=5]"
    );
    assert_eq!(
        SKILLS
            .read_resource("pdf-forms", "references/fields.md", None, None)
            .unwrap(),
        "# Fields\n\nline 2\nline 3\nline 4"
    );
    let binary = SKILLS
        .read_resource("pdf-forms", "assets/logo.png", None, None)
        .unwrap();
    assert_eq!(
        binary,
        "`assets/logo.png` is binary (image, 10 bytes) and cannot be shown as text. Use it from the skill's files on disk."
    );
    let unknown = SKILLS
        .read_resource("pdf-forms", "references/field.md", None, None)
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "The skill \"pdf-forms\" has no file \"references/field.md\". Did you mean \"references/fields.md\"? \
         Its files: assets/logo.png, references/fields.md, scripts/fill.py."
    );
    assert!(matches!(
        SKILLS.read_resource("pdf", "x", None, None),
        Err(ResourceError::UnknownSkill(_))
    ));
    assert!(matches!(
        SKILLS.read_resource("pdf-forms", "references/fields.md", Some(99), None),
        Err(ResourceError::OffsetOutOfRange {
            offset: 99,
            lines: 5
        })
    ));
    let tool = SKILLS.read_resource_tool_anthropic().unwrap();
    assert!(
        tool.contains("\"name\":\"read_skill_resource\"")
            && tool.contains("\"enum\":[\"pdf-forms\"]"),
        "{tool}"
    );
    let only_plain = SKILLS.restrict(["plain"]).unwrap();
    assert_eq!(
        only_plain.read_resource_tool_openai(),
        None,
        "no skill with files, no tool"
    );
}

#[cfg(unix)]
#[test]
fn materialize_is_atomic_reused_when_intact_and_keeps_the_executable_bit() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let temp = tempfile::tempdir().unwrap();
    // A folder of its own: materialize creates it private (0700) and refuses any other mode.
    let base = temp.path().join("skills");
    let skill = SKILLS.get("pdf-forms").unwrap();
    let dir = skill.materialize(&base).unwrap();
    assert_eq!(
        std::fs::metadata(&base).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        dir.file_name().unwrap().to_str().unwrap(),
        format!("pdf-forms-{}", &skill.tree_sha256()[..16])
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("SKILL.md")).unwrap(),
        skill.content()
    );
    assert_eq!(
        std::fs::read(dir.join("assets/logo.png")).unwrap(),
        b"\x89PNG\r\n\x1a\n\x00\x00"
    );
    let mode = std::fs::metadata(dir.join("scripts/fill.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "scripts stay executable");
    let output = std::process::Command::new(dir.join("scripts/fill.py"))
        .arg("form.pdf")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "filled form.pdf\n");
    // Only the final directory is left: staging directories were renamed away.
    let entries: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries.len(), 1);
    // Reused when intact: the same files, not rewritten.
    let inode = |path: &str| std::fs::metadata(dir.join(path)).unwrap().ino();
    let before = (inode("SKILL.md"), inode("scripts/fill.py"));
    assert_eq!(skill.materialize(&base).unwrap(), dir);
    assert_eq!((inode("SKILL.md"), inode("scripts/fill.py")), before);
    // Rebuilt when anything was added: a file the skill does not ship is not offered.
    std::fs::write(dir.join("marker"), "x").unwrap();
    assert_eq!(skill.materialize(&base).unwrap(), dir);
    assert!(!dir.join("marker").exists());
    assert_ne!(inode("SKILL.md"), before.0);
}

#[test]
fn loader_writes_files_only_when_a_skill_with_files_is_loaded() {
    let base = tempfile::tempdir().unwrap();
    let resource_dir = base.path().join("cache");
    let mut loader = SkillLoader::new(&SKILLS).with_resource_dir(&resource_dir);
    loader.load("plain").unwrap();
    assert!(
        !resource_dir.exists(),
        "nothing is written for a skill without files"
    );
    let SkillLoad::Loaded { text, .. } = loader.load("pdf-forms").unwrap() else {
        panic!("first load")
    };
    let written = resource_dir.join(format!(
        "pdf-forms-{}",
        &SKILLS.get("pdf-forms").unwrap().tree_sha256()[..16]
    ));
    assert!(
        text.contains(&format!(
            "Resources of this skill, written to {}:",
            written.display()
        )),
        "{text}"
    );
    assert!(written.join("scripts/fill.py").exists());
    assert!(matches!(
        loader.load("pdf-forms").unwrap(),
        SkillLoad::AlreadyLoaded { .. }
    ));
}
