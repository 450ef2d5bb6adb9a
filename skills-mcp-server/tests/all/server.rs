//! The MCP server driven by rmcp's own client, in process over a pipe: every served byte and
//! digest is compared with the files on disk.

use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetPromptRequestParams, GetSkillRequestParams,
    ReadResourceRequestParams, ResourceContents,
};
use serde_json::json;
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;
use skills_test_support::mcp::{args, check_files, connect, protocol_error, text_of};

use crate::http_client::SKILLS as WITH_RESOURCES;

static INVOCATION: Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/invocation",
    compat = "claude-code"
);
/// Two skills with Codex's `agents/openai.yaml`, one of them kept from the model by its policy.
static OPENAI: Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/openai-yaml");
/// The server's own skills: frontmatter of many YAML shapes, and two skills with files.
static OWN: Registry = skills_runtime::embed_skills!("tests/skills", allow_unknown_keys = true);

#[tokio::test]
async fn binary_files_go_out_as_base64_blobs_with_their_digests() {
    let client = connect(SkillsServer::new(&WITH_RESOURCES)).await;
    check_files(
        &client,
        &WITH_RESOURCES,
        "../skills-test-support/fixtures/with-resources",
    )
    .await;
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://pdf-forms/assets/logo.png",
        ))
        .await
        .unwrap();
    assert!(
        matches!(&read.contents[0], ResourceContents::BlobResourceContents { mime_type, .. } if mime_type.as_deref() == Some("image/png"))
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_take_named_arguments_and_leave_out_skills_a_person_cannot_invoke() {
    let client = connect(SkillsServer::new(&INVOCATION)).await;
    // Every file is served, and the person-only `release` is no skill of the extension.
    check_files(
        &client,
        &INVOCATION,
        "../skills-test-support/fixtures/invocation",
    )
    .await;
    let skills = client.list_all_skills().await.unwrap();
    assert!(skills.iter().all(|s| s.frontmatter.name != "release"));
    let (code, message) = protocol_error(
        client
            .get_skill(GetSkillRequestParams::new("skill://release/SKILL.md"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("prompt \"release\""), "{message}");
    // Nor can the model load it, and no tool reads its files: only it ships any here.
    let result = client
        .call_tool(
            CallToolRequestParams::new("load_skill")
                .with_arguments(args(json!({"name": "release"}))),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("No skill named \"release\""),
        "{}",
        text_of(&result)
    );
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "load_skill");
    let (code, message) = protocol_error(
        client
            .call_tool(
                CallToolRequestParams::new("read_skill_resource").with_arguments(args(
                    json!({"skill": "release", "path": "scripts/release.sh"}),
                )),
            )
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("offers: load_skill"), "{message}");

    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().all(|p| p.name != "background"));
    let release = prompts.iter().find(|p| p.name == "release").unwrap();
    let arguments: Vec<&str> = release
        .arguments
        .iter()
        .flatten()
        .map(|a| a.name.as_str())
        .collect();
    // The named arguments, the free text, and a slot for each word after it.
    let mut expected = vec![
        "version".to_owned(),
        "channel".to_owned(),
        "arguments".to_owned(),
    ];
    expected
        .extend((2..=skills_runtime::mcp::DEFAULT_PROMPT_WORDS).map(|i| format!("arguments_{i}")));
    assert_eq!(arguments, expected);
    let hint = release.arguments.as_ref().unwrap()[2]
        .description
        .as_deref();
    assert!(hint.unwrap().contains("[version] [channel]"), "{hint:?}");

    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("release")
                .with_arguments(args(json!({"version": "1.2.0", "channel": "it's beta"}))),
        )
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text().unwrap().text,
        INVOCATION
            .invoke("release", r"1.2.0 'it'\''s beta'")
            .unwrap()
    );

    // A form's free text goes on whole, after the named values.
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("release").with_arguments(args(
            json!({"version": "2.0", "arguments": "and tell  the team"}),
        )))
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text().unwrap().text,
        INVOCATION
            .invoke("release", "2.0 and tell  the team")
            .unwrap()
    );

    let (code, message) = protocol_error(
        client
            .get_prompt(GetPromptRequestParams::new("background"))
            .await,
    );
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        message,
        INVOCATION.invoke("background", "").unwrap_err().to_string()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_restricted_registry_serves_only_its_skills() {
    let restricted = WITH_RESOURCES.restrict(["plain"]).unwrap();
    let client = connect(SkillsServer::new(restricted)).await;
    let skills = client.list_all_skills().await.unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].uri, "skill://plain/SKILL.md");
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    let (code, _) = protocol_error(
        client
            .read_resource(ReadResourceRequestParams::new("skill://pdf-forms/SKILL.md"))
            .await,
    );
    assert_eq!(code, ErrorCode::RESOURCE_NOT_FOUND);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_frontmatter_is_the_yaml_as_the_build_read_it_in_the_authors_order() {
    let client = connect(SkillsServer::new(&OWN)).await;
    // Every file and digest of both skills with files, against the disk.
    check_files(&client, &OWN, "tests/skills").await;
    let skill = client
        .get_skill(GetSkillRequestParams::new("skill://typed/SKILL.md"))
        .await
        .unwrap()
        .skill;
    let wire = serde_json::to_value(&skill.frontmatter).unwrap();
    assert_eq!(
        wire,
        json!({
            "name": "typed",
            "description": "Frontmatter of many YAML shapes. Use when checking what skills/list says.",
            "version": "2.0",
            "tags": ["yaml", "json"],
            "metadata": {"owner": "tests"},
            "count": 3,
            // Numbers JSON cannot write as written stay the author's text.
            "plus": "+1",
            "hex": "0x1f",
            "ratio": 1.5,
            "flag": true,
            "nothing": null,
            "quoted": "3",
            "folded": "two lines\n",
            "anchored": ["a", "b"],
            "aliased": ["a", "b"]
        })
    );
    // The author wrote `description` before `name`; the extension puts the two first, and the
    // rest keeps the file's order.
    let keys: Vec<&String> = wire.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "version",
            "tags",
            "metadata",
            "count",
            "plus",
            "hex",
            "ratio",
            "flag",
            "nothing",
            "quoted",
            "folded",
            "anchored",
            "aliased"
        ]
    );
    client.cancel().await.unwrap();
}

/// Claude Code fills a prompt's arguments by position: `/mcp__skills__release 1.2.0 beta and
/// tell the team` splits at white space and gives the declared arguments one word each, in
/// order (`Object.fromEntries(names.map((name, i) => [name, words[i]]))` in its source), dropping
/// the words past the last one. The skill gets every word.
#[tokio::test]
async fn a_prompt_filled_by_position_keeps_every_word() {
    let client = connect(SkillsServer::new(&INVOCATION)).await;
    let prompts = client.list_all_prompts().await.unwrap();
    for (name, typed) in [
        (
            "release",
            "1.2.0 beta and then tell the whole team about it",
        ),
        ("release", "\"my widget\" React"),
        ("release", "1.2.0"),
        (
            "notes-helper",
            "write down: the build takes 3 minutes on a cold cache",
        ),
    ] {
        let names: Vec<&str> = prompts
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .arguments
            .iter()
            .flatten()
            .map(|a| a.name.as_str())
            .collect();
        let words: Vec<&str> = typed.split_whitespace().collect();
        assert!(words.len() <= names.len(), "{typed}");
        let filled: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .zip(&words)
            .map(|(name, word)| (name.to_string(), json!(word)))
            .collect();
        let prompt = client
            .get_prompt(GetPromptRequestParams::new(name).with_arguments(filled))
            .await
            .unwrap();
        assert_eq!(
            prompt.messages[0].content.as_text().unwrap().text,
            INVOCATION.invoke(name, typed).unwrap(),
            "{name} {typed}"
        );
    }
    // Past the slots, Claude Code itself drops the words: the count is the builder's.
    let few = connect(SkillsServer::builder(&INVOCATION).prompt_words(3).build()).await;
    let release = few
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .find(|p| p.name == "release")
        .unwrap();
    assert_eq!(release.arguments.unwrap().len(), 2 + 3);
    client.cancel().await.unwrap();
    few.cancel().await.unwrap();
}

/// A skill's `agents/openai.yaml` is served as the file it is, and its policy keeps the skill
/// out of the Skills extension's listing and the `load_skill` names, as
/// `disable-model-invocation` does.
#[tokio::test]
async fn openai_yaml_is_served_as_a_file_and_its_policy_is_honoured() {
    let client = connect(SkillsServer::new(&OPENAI)).await;
    check_files(
        &client,
        &OPENAI,
        "../skills-test-support/fixtures/openai-yaml",
    )
    .await;
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://deploy/agents/openai.yaml",
        ))
        .await
        .unwrap();
    let on_disk = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../skills-test-support/fixtures/openai-yaml/deploy/agents/openai.yaml"
    ))
    .unwrap();
    assert!(
        matches!(&read.contents[0], ResourceContents::TextResourceContents { text, .. } if *text == on_disk)
    );
    let listed: Vec<String> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.frontmatter.name)
        .collect();
    assert_eq!(listed, ["lint-fix"]);
    let tools = client.list_all_tools().await.unwrap();
    let load_skill = tools.iter().find(|t| t.name == "load_skill").unwrap();
    let names = &load_skill.input_schema["properties"]["name"]["enum"];
    assert_eq!(names, &json!(["lint-fix"]));
    let called = client
        .call_tool(
            CallToolRequestParams::new("load_skill")
                .with_arguments(args(json!({"name": "deploy"}))),
        )
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(true));
    // Still a prompt a person may invoke.
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "deploy"));
    client.cancel().await.unwrap();
}
