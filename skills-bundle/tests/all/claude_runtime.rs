//! Claude Code's run-time text outside Claude Code: the `${CLAUDE_*}` variables that make sense
//! here, substituted in invocations and loads, and the `` !`command` `` and ```` ```! ```` blocks
//! the build recorded, listed for a caller to run and put in place (nothing runs them here).

use skills_runtime::invoke::{InvokeOptions, ShellCommand};
use skills_runtime::{Effort, LoadRendering, Registry, SkillLoader};

static SKILLS: Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/claude-code-runtime",
    compat = "claude-code"
);

fn private_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

#[test]
fn the_build_recorded_every_shell_command_with_its_place() {
    let status = SKILLS.get("status").unwrap();
    let commands = status.shell_commands();
    let body = status.body();
    let found: Vec<(&str, &str, bool)> = commands
        .iter()
        .map(|c: &ShellCommand| (&body[c.range.clone()], c.command, c.is_block(status)))
        .collect();
    assert_eq!(
        found,
        [
            ("!`echo inline-$0`", "echo inline-$0", false),
            (
                "```!\nprintf 'block %s\\n' \"$ARGUMENTS\"\n```",
                "printf 'block %s\\n' \"$ARGUMENTS\"",
                true
            ),
        ]
    );
    // The same as the build's rules find in the embedded body.
    let again = skills_core_find(body);
    assert_eq!(
        again,
        commands
            .iter()
            .map(|c| (c.range.clone(), c.command.to_owned()))
            .collect::<Vec<_>>()
    );
}

/// What `skills_core::shell_commands::find` gives for `body`, the rule the build recorded with.
fn skills_core_find(body: &str) -> Vec<(std::ops::Range<usize>, String)> {
    skills_core::shell_commands::find(body)
        .into_iter()
        .map(|c| (c.range, c.command))
        .collect()
}

#[test]
fn an_invocation_substitutes_the_variables_and_lists_the_commands() {
    let dir = private_dir();
    let options = InvokeOptions {
        resource_dir: Some(dir.path()),
        session_id: Some("session-42"),
        effort: Some(Effort::Low),
        project_dir: Some(std::path::Path::new("/srv/project")),
    };
    let rendering = SKILLS
        .render_invocation("status", "v1.2 now", &options)
        .unwrap();
    let skill_dir = dir.path().canonicalize().unwrap();
    let text = rendering.text();
    // The skill's own `effort: high` wins over the caller's.
    assert!(
        text.contains("Session session-42, effort high, in /srv/project."),
        "{text}"
    );
    let notes = text
        .lines()
        .find(|l| l.starts_with("Notes: "))
        .unwrap()
        .trim_start_matches("Notes: ");
    assert!(notes.ends_with("/notes.txt"), "{notes}");
    assert!(std::path::Path::new(notes).exists(), "{notes} was written");
    assert!(notes.starts_with(skill_dir.to_str().unwrap()), "{notes}");
    // Not run: the commands stay, substituted as Claude Code substitutes them before running.
    assert!(text.contains("Inline: !`echo inline-v1.2`"), "{text}");
    assert_eq!(
        rendering.commands().collect::<Vec<_>>(),
        ["echo inline-v1.2", "printf 'block %s\\n' \"v1.2 now\""]
    );
    assert!(text.contains("Asked: v1.2 now"), "{text}");
    assert_eq!(
        SKILLS.invoke_with("status", "v1.2 now", &options).unwrap(),
        text
    );
    // With outputs, each in its place, and the rest of the text as it was.
    let filled = rendering.text_with_outputs(&["inline-v1.2", "block v1.2 now\n"]);
    assert!(
        filled.contains("Inline: inline-v1.2\nblock v1.2 now\n\nAsked:"),
        "{filled}"
    );
    assert_eq!(
        filled.replace("Inline: inline-v1.2\nblock v1.2 now\n", ""),
        text.replace(
            "Inline: !`echo inline-v1.2`\n```!\nprintf 'block %s\\n' \"v1.2 now\"\n```",
            ""
        )
    );
}

#[test]
fn without_values_the_variables_stay_as_written() {
    let text = SKILLS.invoke("status", "x").unwrap();
    // The skill's own `effort` is a value.
    assert!(text.contains(", effort high,"), "{text}");
    for variable in [
        "${CLAUDE_SESSION_ID}",
        "${CLAUDE_PROJECT_DIR}",
        "${CLAUDE_SKILL_DIR}",
    ] {
        assert!(text.contains(variable), "{variable}: {text}");
    }
}

#[test]
fn a_load_substitutes_the_variables_but_not_the_arguments() {
    let dir = private_dir();
    let mut loader = SkillLoader::new(&SKILLS)
        .with_resource_dir(dir.path())
        .with_session_id(Some("s-7".to_owned()))
        .with_effort(Some(Effort::Max))
        .with_project_dir(Some("/work".into()));
    let LoadRendering::Loaded(rendering) = loader.load_rendering("status").unwrap() else {
        panic!("a first load")
    };
    let text = rendering.text();
    assert!(
        text.contains("Session s-7, effort high, in /work."),
        "{text}"
    );
    assert!(!text.contains("${CLAUDE_SKILL_DIR}"), "{text}");
    assert!(text.contains("Asked: $ARGUMENTS"), "{text}");
    assert_eq!(
        rendering.commands().collect::<Vec<_>>(),
        ["echo inline-$0", "printf 'block %s\\n' \"$ARGUMENTS\""]
    );
    // The second load is the short note, and `load` gives the text with the commands as
    // written.
    assert!(matches!(
        loader.load_rendering("status").unwrap(),
        LoadRendering::AlreadyLoaded { .. }
    ));
    let mut plain = SkillLoader::new(&SKILLS);
    assert_eq!(
        plain.load("broken").unwrap().text(),
        SKILLS.load_skill("broken").unwrap()
    );
    assert!(
        SKILLS
            .load_skill("broken")
            .unwrap()
            .contains("After: !`echo about to fail; exit 3`")
    );
}
