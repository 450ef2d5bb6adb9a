//! The rig tools answer as the registry does, through rig's own dispatch (JSON arguments in, the
//! model-visible result out): first and repeated loads, unknown and person-only names, a
//! restricted view, resources and their errors, and the definitions rig sends.

use rig_core::tool::{ErasedTool, ToolContext, ToolErrorKind, ToolResult};
use serde_json::{Value, json};
use skills_rig::SkillTools;
use skills_runtime::{Registry, SkillLoader};

/// The demo bundle (skills with and without files) and Claude Code skills: `release` is
/// person-only (`disable-model-invocation: true`) and ships a script.
static SKILLS: Registry = skills_runtime::embed_skills!(
    "../skills",
    "../skills-test-support/fixtures/invocation",
    compat = "claude-code"
);

const PERSON_ONLY: &str = "release";
const WITH_FILES: &str = "debug-failing-test";
const FILE: &str = "references/flaky-tests.md";

/// One call through rig's erased dispatch, as its agent loop makes it.
async fn call(tool: &impl ErasedTool, args: Value) -> ToolResult {
    tool.execute(args.to_string(), &mut ToolContext::new())
        .await
}

fn text(result: &ToolResult) -> &str {
    result.output().as_text().expect("one plain text block")
}

fn enum_names(schema: &Value, property: &str) -> Vec<String> {
    schema["properties"][property]["enum"]
        .as_array()
        .expect("an enum of names")
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_first_load_is_the_registry_answer_and_a_second_the_loader_note() {
    let tools = SkillTools::new(&SKILLS);
    let load = tools.load_skill().unwrap();
    let mut loader = SkillLoader::new(&SKILLS);
    let expected = [
        loader.load("code-review").unwrap(),
        loader.load("code-review").unwrap(),
    ];

    let first = call(&load, json!({"name": "code-review"})).await;
    assert!(first.is_success());
    assert_eq!(text(&first), SKILLS.load_skill("code-review").unwrap());
    assert_eq!(text(&first), expected[0].text());
    assert!(tools.is_loaded("code-review"));

    let second = call(&load, json!({"name": "code-review"})).await;
    assert_eq!(text(&second), expected[1].text());
    assert_ne!(text(&second), text(&first));

    // Clones and the other tool share the memory; a reset forgets it.
    let other = tools.clone().load_skill().unwrap();
    assert_eq!(
        text(&call(&other, json!({"name": "code-review"})).await),
        expected[1].text()
    );
    tools.reset();
    assert!(!tools.is_loaded("code-review"));
    assert_eq!(
        text(&call(&load, json!({"name": "code-review"})).await),
        expected[0].text()
    );
}

#[tokio::test]
async fn a_fork_skill_is_loaded_as_its_instructions() {
    // rig's loop has no child sessions: a `context: fork` skill's body is the answer.
    let fork = "summarize";
    assert_eq!(
        SKILLS.get(fork).unwrap().context(),
        skills_runtime::SkillContext::Fork
    );
    let load = SkillTools::new(&SKILLS).load_skill().unwrap();
    let result = call(&load, json!({"name": fork})).await;
    assert_eq!(text(&result), SKILLS.load_skill(fork).unwrap());
}

#[tokio::test]
async fn an_unknown_name_fails_with_the_registry_error_text() {
    let load = SkillTools::new(&SKILLS).load_skill().unwrap();
    let result = call(&load, json!({"name": "code-reveiw"})).await;
    let expected = SKILLS.load_skill("code-reveiw").unwrap_err().to_string();
    assert!(result.is_error_kind(ToolErrorKind::NotFound));
    assert_eq!(text(&result), expected);
    assert!(
        expected.contains("Did you mean \"code-review\"?"),
        "{expected}"
    );
}

#[tokio::test]
async fn arguments_rig_cannot_read_are_invalid() {
    let load = SkillTools::new(&SKILLS).load_skill().unwrap();
    let result = call(&load, json!({"skill": "code-review"})).await;
    assert!(result.is_error_kind(ToolErrorKind::InvalidArgs));
}

#[tokio::test]
async fn a_person_only_skill_is_neither_shown_nor_served() {
    let tools = SkillTools::new(&SKILLS);
    let (load, read) = (
        tools.load_skill().unwrap(),
        tools.read_skill_resource().unwrap(),
    );
    assert!(SKILLS.contains(PERSON_ONLY));
    assert!(!enum_names(&load.parameters(), "name").contains(&PERSON_ONLY.to_owned()));
    assert!(!enum_names(&read.parameters(), "skill").contains(&PERSON_ONLY.to_owned()));
    assert!(!tools.preamble("").contains(&format!("- {PERSON_ONLY}:")));

    let loaded = call(&load, json!({"name": PERSON_ONLY})).await;
    assert!(loaded.is_error_kind(ToolErrorKind::NotFound));
    assert_eq!(
        text(&loaded),
        SKILLS.load_skill(PERSON_ONLY).unwrap_err().to_string()
    );
    assert!(!tools.is_loaded(PERSON_ONLY));

    // The registry itself would serve the script; the model's tool does not, and its error
    // names only the skills the model may load.
    let script = "scripts/release.sh";
    assert!(
        SKILLS
            .read_resource(PERSON_ONLY, script, None, None)
            .is_ok()
    );
    let read = call(&read, json!({"skill": PERSON_ONLY, "path": script})).await;
    assert!(read.is_error_kind(ToolErrorKind::NotFound));
    assert_eq!(text(&read), text(&loaded));
}

#[tokio::test]
async fn a_restricted_registry_shows_and_serves_only_its_skills() {
    let only = SKILLS.restrict(["code-review"]).unwrap();
    let tools = SkillTools::new(&only);
    let load = tools.load_skill().unwrap();
    assert_eq!(enum_names(&load.parameters(), "name"), ["code-review"]);
    assert_eq!(tools.preamble("P"), only.system_prompt("P"));
    assert!(!tools.preamble("P").contains(&format!("- {WITH_FILES}:")));
    assert!(
        SkillTools::new(&SKILLS)
            .preamble("P")
            .contains(&format!("- {WITH_FILES}:"))
    );
    // No skill of the view ships files: no `read_skill_resource`.
    assert!(tools.read_skill_resource().is_none());

    let hidden = call(&load, json!({"name": WITH_FILES})).await;
    assert!(hidden.is_error_kind(ToolErrorKind::NotFound));
    assert_eq!(
        text(&hidden),
        only.load_skill(WITH_FILES).unwrap_err().to_string()
    );
    assert_eq!(
        text(&call(&load, json!({"name": "code-review"})).await),
        only.load_skill("code-review").unwrap()
    );
}

#[tokio::test]
async fn resources_are_read_as_the_registry_reads_them() {
    let read = SkillTools::new(&SKILLS).read_skill_resource().unwrap();
    let whole = call(&read, json!({"skill": WITH_FILES, "path": FILE})).await;
    assert_eq!(
        text(&whole),
        SKILLS.read_resource(WITH_FILES, FILE, None, None).unwrap()
    );
    let part = call(
        &read,
        json!({"skill": WITH_FILES, "path": FILE, "offset": 2, "limit": 3}),
    )
    .await;
    assert_eq!(
        text(&part),
        SKILLS
            .read_resource(WITH_FILES, FILE, Some(2), Some(3))
            .unwrap()
    );
    assert_ne!(text(&part), text(&whole));

    let typo = call(
        &read,
        json!({"skill": WITH_FILES, "path": "references/flaky.md"}),
    )
    .await;
    assert!(typo.is_error_kind(ToolErrorKind::NotFound));
    assert_eq!(
        text(&typo),
        SKILLS
            .read_resource(WITH_FILES, "references/flaky.md", None, None)
            .unwrap_err()
            .to_string()
    );

    let past_end = call(
        &read,
        json!({"skill": WITH_FILES, "path": FILE, "offset": 100000}),
    )
    .await;
    assert!(past_end.is_error_kind(ToolErrorKind::InvalidArgs));
    assert_eq!(
        text(&past_end),
        SKILLS
            .read_resource(WITH_FILES, FILE, Some(100000), None)
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn the_definitions_are_the_ones_the_registry_renders() {
    let tools = SkillTools::new(&SKILLS);
    let rendered = |json: Option<&str>| -> Value { serde_json::from_str(json.unwrap()).unwrap() };
    let load = rendered(SKILLS.load_skill_tool_anthropic());
    let read = rendered(SKILLS.read_resource_tool_anthropic());
    let (load_tool, read_tool) = (
        tools.load_skill().unwrap(),
        tools.read_skill_resource().unwrap(),
    );
    assert_eq!(ErasedTool::name(&load_tool), load["name"]);
    assert_eq!(ErasedTool::description(&load_tool), load["description"]);
    assert_eq!(ErasedTool::parameters(&load_tool), load["input_schema"]);
    assert_eq!(ErasedTool::name(&read_tool), read["name"]);
    assert_eq!(ErasedTool::description(&read_tool), read["description"]);
    assert_eq!(ErasedTool::parameters(&read_tool), read["input_schema"]);
    let model_skills: Vec<String> = SKILLS
        .iter()
        .filter(|s| s.model_invocable())
        .map(|s| s.name().to_owned())
        .collect();
    assert_eq!(enum_names(&load_tool.parameters(), "name"), model_skills);
    assert_eq!(
        enum_names(&read_tool.parameters(), "skill"),
        SKILLS.names_with_resources()
    );
}

#[test]
fn a_registry_without_skills_offers_no_tool_and_keeps_the_preamble() {
    let tools = SkillTools::new(Registry::empty());
    assert!(tools.load_skill().is_none());
    assert!(tools.read_skill_resource().is_none());
    assert_eq!(tools.preamble("Be brief."), "Be brief.");
}
