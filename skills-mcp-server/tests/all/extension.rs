//! The MCP Skills extension's rules for a server (`io.modelcontextprotocol/skills`, against base
//! protocol 2026-07-28), checked on the wire: the spec's own examples (`tests/spec/*.json`, with
//! the skills of its examples under `tests/spec/`), the cacheable results, pages and cursors,
//! the error codes, the per-skill limits, and Claude Code's `skill://index.json` and
//! instructions limit.

use std::collections::BTreeSet;
use std::time::Duration;

use rmcp::model::sha256_digest;
use serde_json::{Value, json};
use skills_runtime::Registry;
use skills_runtime::mcp::{DEFAULT_TTL, SkillsServer};
use skills_test_support::mcp::{RawClient, disk_files};

/// The two skills of the spec's examples.
static SPEC: Registry = skills_runtime::embed_skills!("tests/spec");
/// A skill of 512 resources (513 files with its SKILL.md), over the extension's limit.
static OVER: Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/mcp-limits",
    mcp_limits = "allow"
);
/// Forty skills with ordinary descriptions: a catalog over what Claude Code keeps.
static FORTY: Registry =
    skills_runtime::embed_skills!("tests/forty", similar_descriptions = "allow");

fn spec_example(name: &str) -> Value {
    let path = format!("{}/tests/spec/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The keys of `value`, an object, sorted (`_meta`, which a server may add anywhere, left out).
fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .filter(|key| *key != "_meta")
        .collect()
}

/// `ours` has the spec example's shape: the same keys in every object of a skill entry, each
/// file with a well-formed digest and the size of the file on disk.
fn assert_entry_shape(ours: &Value, example: &Value) {
    assert_eq!(keys(ours), keys(example), "{ours}");
    assert_eq!(ours["uri"], example["uri"]);
    for key in ["name", "description"] {
        assert_eq!(ours["frontmatter"][key], example["frontmatter"][key]);
    }
    let disk = disk_files("tests/spec");
    let name = ours["frontmatter"]["name"].as_str().unwrap();
    for file in ours["resources"].as_array().unwrap() {
        assert_eq!(keys(file), BTreeSet::from(["uri", "digest", "size"]));
        let path = file["uri"]
            .as_str()
            .unwrap()
            .strip_prefix(&format!("skill://{name}/"))
            .unwrap();
        let bytes = &disk[name][path];
        assert_eq!(file["size"], json!(bytes.len()), "{path}");
        assert_eq!(file["digest"], json!(sha256_digest(bytes)), "{path}");
    }
}

#[tokio::test]
async fn skills_get_answers_as_the_specs_example_does() {
    let mut client = RawClient::stateless(SkillsServer::new(&SPEC)).await;
    let example = &spec_example("skills-get")["result"];
    let ours = client
        .result(
            "skills/get",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        )
        .await;
    assert_eq!(keys(&ours), keys(example));
    assert_eq!(ours["resultType"], "complete");
    assert_eq!(ours["cacheScope"], "public");
    assert_eq!(ours["ttlMs"], json!(DEFAULT_TTL.as_millis()));
    // The example's frontmatter has `metadata` too; the fixture leaves it out (see its README).
    let mut skill_example = example["skill"].clone();
    skill_example["frontmatter"]
        .as_object_mut()
        .unwrap()
        .remove("metadata");
    assert_entry_shape(&ours["skill"], &skill_example);
    // The same files as the example, SKILL.md first, and the SKILL.md of its read example.
    let uris = |v: &Value| -> Vec<String> {
        v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["uri"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(uris(&ours["skill"]), uris(&example["skill"]));
    assert_eq!(
        ours["skill"]["resources"][0]["digest"],
        "sha256:99b737495721155ece826d57521e2d66141ebdc1344a400487481ea2642ab19e"
    );
    assert_eq!(ours["skill"]["resources"][0]["size"], 151);
}

#[tokio::test]
async fn skills_list_answers_as_the_specs_example_does() {
    let mut client = RawClient::stateless(SkillsServer::new(&SPEC)).await;
    let example = &spec_example("skills-list")["result"];
    let ours = client.result("skills/list", json!({})).await;
    assert_eq!(keys(&ours), keys(example), "one page: no nextCursor");
    assert_eq!(ours["resultType"], "complete");
    assert_eq!(ours["cacheScope"], "public");
    assert!(ours["ttlMs"].is_u64());
    let skills = ours["skills"].as_array().unwrap();
    let examples = example["skills"].as_array().unwrap();
    assert_eq!(skills.len(), examples.len());
    for (skill, example) in skills.iter().zip(examples) {
        assert_entry_shape(skill, example);
    }
    // A listed entry is the entry skills/get gives.
    for skill in skills {
        let got = client
            .result("skills/get", json!({"uri": skill["uri"]}))
            .await;
        assert_eq!(&got["skill"], skill);
    }
}

#[tokio::test]
async fn directory_reads_and_errors_answer_as_the_specs_examples_do() {
    let mut client = RawClient::stateless(SkillsServer::new(&SPEC)).await;
    let example = &spec_example("directory-read")["result"];
    let ours = client
        .result(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/templates"}),
        )
        .await;
    // The example's keys, and the cache hints this server gives every listing.
    let mut expected = keys(example);
    expected.extend(["ttlMs", "cacheScope"]);
    assert_eq!(keys(&ours), expected);
    assert_eq!(ours["resultType"], "complete");
    assert_eq!(ours["cacheScope"], "public");
    let strip_size = |r: &Value| {
        let mut r = r.clone();
        r.as_object_mut().unwrap().remove("size");
        r
    };
    let ours_resources: Vec<Value> = ours["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(strip_size)
        .collect();
    assert_eq!(json!(ours_resources), example["resources"]);

    for (method, uri, example) in [
        (
            "skills/get",
            "skill://acme/billing/chargebacks/SKILL.md",
            "error-unknown-skill",
        ),
        (
            "resources/directory/read",
            "skill://pdf-processing/SKILL.md",
            "error-not-a-directory",
        ),
    ] {
        let example = &spec_example(example)["error"];
        let (code, message) = client.error(method, json!({"uri": uri})).await;
        assert_eq!(json!(code), example["code"], "{method} {uri}");
        assert!(message.contains(uri), "{message}");
    }
}

/// The methods whose results are cacheable, with params.
fn cacheable_requests() -> Vec<(&'static str, Value)> {
    vec![
        ("skills/list", json!({})),
        (
            "skills/get",
            json!({"uri": "skill://git-workflow/SKILL.md"}),
        ),
        ("resources/list", json!({})),
        (
            "resources/read",
            json!({"uri": "skill://pdf-processing/templates/invoice.md"}),
        ),
        ("resources/read", json!({"uri": "skill://index.json"})),
        ("tools/list", json!({})),
        ("prompts/list", json!({})),
    ]
}

#[tokio::test]
async fn every_cacheable_result_says_how_long_and_for_whom() {
    let server = SkillsServer::builder(&SPEC)
        .ttl(Duration::from_secs(60))
        .build();
    let mut stateless = RawClient::stateless(server).await;
    for (method, params) in cacheable_requests() {
        let result = stateless.result(method, params.clone()).await;
        assert_eq!(result["resultType"], "complete", "{method}");
        assert_eq!(result["ttlMs"], 60_000, "{method}");
        assert_eq!(result["cacheScope"], "public", "{method}");
    }
    let discovered = stateless.result("server/discover", json!({})).await;
    assert_eq!(
        (&discovered["ttlMs"], &discovered["cacheScope"]),
        (&json!(60_000), &json!("public"))
    );
    // A tool call is no cacheable result.
    let called = stateless
        .result(
            "tools/call",
            json!({"name": "load_skill", "arguments": {"name": "git-workflow"}}),
        )
        .await;
    assert_eq!(called.get("ttlMs"), None);

    let mut never =
        RawClient::stateless(SkillsServer::builder(&SPEC).ttl(Duration::ZERO).build()).await;
    let result = never.result("skills/list", json!({})).await;
    assert_eq!(result["ttlMs"], 0);
}

/// The fields of the 2026-07-28 revision (`resultType`, `ttlMs`, `cacheScope`) go only to a peer
/// that negotiated it: a host that began with `initialize` gets the shape of its own revision,
/// whatever version it asked for (`initialize` no longer exists in 2026-07-28, so a host asking
/// for it there is answered with 2025-11-25).
#[tokio::test]
async fn the_2026_07_28_fields_go_only_to_peers_on_that_revision() {
    let server = SkillsServer::new(&SPEC);
    let fields = ["resultType", "ttlMs", "cacheScope"];
    for asked in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let (mut client, negotiated) = RawClient::initialized_at(server.clone(), asked).await;
        let expected = if asked == "2026-07-28" {
            "2025-11-25"
        } else {
            asked
        };
        assert_eq!(negotiated, expected, "asked {asked}");
        for (method, params) in cacheable_requests() {
            let result = client.result(method, params).await;
            for field in fields {
                assert_eq!(
                    result.get(field),
                    None,
                    "{method} {field} to a {asked} peer"
                );
            }
        }
        let result = client
            .result(
                "resources/directory/read",
                json!({"uri": "skill://pdf-processing/templates"}),
            )
            .await;
        for field in fields {
            assert_eq!(
                result.get(field),
                None,
                "directory read {field} to a {asked} peer"
            );
        }
    }
    let mut stateless = RawClient::stateless(server).await;
    let result = stateless
        .result(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/templates"}),
        )
        .await;
    assert_eq!(result["ttlMs"], json!(DEFAULT_TTL.as_millis()));
    assert_eq!(result["cacheScope"], "public");
}

#[tokio::test]
async fn listings_page_with_cursors_the_server_issued() {
    let server = SkillsServer::builder(&FORTY).page_size(7).build();
    let mut client = RawClient::stateless(server).await;
    for (method, key, total) in [
        ("skills/list", "skills", 40),
        ("resources/list", "resources", 40),
    ] {
        let mut seen = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut pages = 0;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = client.result(method, params).await;
            assert_eq!(page["resultType"], "complete");
            assert!(page["ttlMs"].is_u64() && page["cacheScope"] == "public");
            let entries = page[key].as_array().unwrap();
            assert!(entries.len() <= 7, "{method}: {}", entries.len());
            seen.extend(entries.iter().map(|e| e["uri"].clone()));
            pages += 1;
            match page.get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(pages, 6, "{method}");
        assert_eq!(seen.len(), total, "{method}");
        let unique: BTreeSet<String> = seen.iter().map(Value::to_string).collect();
        assert_eq!(unique.len(), total, "{method}: every entry once");
    }

    // A cursor of another listing, of another server, edited, or of a list never paged.
    let skills_cursor = client.result("skills/list", json!({})).await["nextCursor"].clone();
    let mut other = RawClient::stateless(SkillsServer::builder(&SPEC).page_size(1).build()).await;
    let other_cursor = other.result("skills/list", json!({})).await["nextCursor"].clone();
    let edited = json!(format!(
        "8{}",
        skills_cursor
            .as_str()
            .unwrap()
            .trim_start_matches(char::is_numeric)
    ));
    for (method, params) in [
        ("resources/list", json!({"cursor": skills_cursor})),
        ("skills/list", json!({"cursor": other_cursor})),
        ("skills/list", json!({"cursor": edited})),
        ("skills/list", json!({"cursor": "1"})),
        ("tools/list", json!({"cursor": skills_cursor})),
        ("prompts/list", json!({"cursor": skills_cursor})),
        (
            "resources/directory/read",
            json!({"uri": "skill://tracing", "cursor": skills_cursor}),
        ),
    ] {
        let (code, message) = client.error(method, params.clone()).await;
        assert_eq!(code, -32602, "{method} {params}");
        assert!(message.contains("invalid cursor"), "{message}");
    }
}

#[tokio::test]
async fn malformed_params_are_invalid_params_not_an_unknown_method() {
    // A session begun with `initialize`, so that a request may come without any params.
    let mut client = RawClient::initialized(SkillsServer::new(&SPEC), "2025-06-18").await;
    for (method, params, hint) in [
        (
            "skills/get",
            json!({"uri": 5}),
            "expected {\"uri\": string}",
        ),
        ("skills/get", json!({}), "missing field `uri`"),
        ("skills/get", Value::Null, "no params"),
        ("resources/read", json!({"uri": []}), "{\"uri\": string}"),
        (
            "resources/directory/read",
            json!({"uri": "skill://git-workflow", "cursor": false}),
            "resources/directory/read",
        ),
        ("prompts/get", json!({"name": 1}), "prompts/get"),
    ] {
        let (code, message) = client.error(method, params.clone()).await;
        assert_eq!(code, -32602, "{method} {params}: {message}");
        assert!(message.contains(hint), "{method}: {message}");
    }
    // A skill URI that names no skill, and a URI that is no SKILL.md.
    for uri in [
        "skill://git-workflw/SKILL.md",
        "skill://git-workflow/README.md",
    ] {
        let (code, _) = client.error("skills/get", json!({"uri": uri})).await;
        assert_eq!(code, -32602, "{uri}");
    }
    // (rmcp reads the params of a list request it cannot parse, `{"cursor": 5}`, as none at
    // all, so that one gets the first page: the server never sees the malformed cursor.)
    let (code, message) = client.error("skills/publish", json!({})).await;
    assert_eq!(code, -32601);
    assert!(message.contains("skills/publish"), "{message}");
}

#[tokio::test]
async fn a_skill_over_the_limits_is_no_skill_of_the_extension_but_its_files_are_served() {
    // pdf-processing has six files; with a limit of five it is over.
    let server = SkillsServer::builder(&SPEC)
        .skill_limits(5, u64::MAX)
        .build();
    assert_eq!(server.over_limits().len(), 1);
    assert_eq!(server.over_limits()[0].0, "pdf-processing");
    assert_eq!(server.over_limits()[0].1, 6);
    let mut client = RawClient::stateless(server).await;
    let listed = client.result("skills/list", json!({})).await;
    let names: Vec<&Value> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["frontmatter"]["name"])
        .collect();
    assert_eq!(names, [&json!("git-workflow")]);
    let (code, message) = client
        .error(
            "skills/get",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        )
        .await;
    assert_eq!(code, -32602);
    assert!(message.contains("6 files"), "{message}");
    assert!(message.contains("over the per-skill limits"), "{message}");
    let index: Value = serde_json::from_str(
        client
            .result("resources/read", json!({"uri": "skill://index.json"}))
            .await["contents"][0]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(index["skills"].as_array().unwrap().len(), 1);
    // Still a resource, and still loadable through the tool.
    let read = client
        .result(
            "resources/read",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        )
        .await;
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("# PDF processing")
    );

    // The byte limit counts every file's size: SKILL.md alone is 151 bytes.
    let server = SkillsServer::builder(&SPEC).skill_limits(512, 150).build();
    assert_eq!(server.over_limits().len(), 2);
    // The defaults are the extension's: 512 files.
    assert!(SkillsServer::new(&SPEC).over_limits().is_empty());
    let server = SkillsServer::new(&OVER);
    let over: Vec<_> = server
        .over_limits()
        .iter()
        .map(|(n, f, _)| (*n, *f))
        .collect();
    assert_eq!(over, [("icons", 513)]);
    let mut client = RawClient::stateless(server).await;
    let listed = client.result("skills/list", json!({})).await;
    assert_eq!(listed["skills"], json!([]));
}

/// Claude Code's import of MCP skills reads `skill://index.json`, then each entry's `url`, and
/// drops an entry whose SKILL.md does not hash to its `digest`: done here as it does it.
#[tokio::test]
async fn claude_codes_skill_index_lists_what_skills_list_does() {
    let mut client = RawClient::initialized(SkillsServer::new(&SPEC), "2025-06-18").await;
    let read = client
        .result("resources/read", json!({"uri": "skill://index.json"}))
        .await;
    let contents = &read["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    let index: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(keys(&index), BTreeSet::from(["skills"]));
    let listed = client.result("skills/list", json!({})).await;
    let entries = index["skills"].as_array().unwrap();
    assert_eq!(entries.len(), listed["skills"].as_array().unwrap().len());
    for (entry, skill) in entries.iter().zip(listed["skills"].as_array().unwrap()) {
        assert_eq!(
            keys(entry),
            BTreeSet::from(["frontmatter", "url", "digest"])
        );
        assert_eq!(entry["frontmatter"], skill["frontmatter"]);
        assert_eq!(entry["url"], skill["uri"]);
        let name = entry["frontmatter"]["name"].as_str().unwrap();
        assert!(!name.is_empty());
        let text = client
            .result("resources/read", json!({"uri": entry["url"]}))
            .await["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            entry["digest"],
            json!(sha256_digest(text.as_bytes())),
            "{name}"
        );
    }
    // It is read, not listed: it is no file of a skill.
    let resources = client.result("resources/list", json!({})).await;
    assert!(
        resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["uri"] != "skill://index.json")
    );
}

#[tokio::test]
async fn forty_skills_fit_claude_codes_instructions_limit_and_each_is_named() {
    let server = SkillsServer::new(&FORTY);
    assert!(
        FORTY.catalog().chars().count() > 2048,
        "the catalog alone would be cut"
    );
    let mut client = RawClient::initialized(server, "2025-06-18").await;
    // What a host reads: the instructions of `initialize`.
    let answer = client
        .request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1.0.0"}
            }),
        )
        .await;
    let instructions = answer["result"]["instructions"].as_str().unwrap();
    let utf16 = instructions.encode_utf16().count();
    assert!(utf16 <= 2048, "{utf16} UTF-16 units");
    for skill in FORTY.iter() {
        assert!(
            instructions.contains(skill.name()),
            "{} is not named",
            skill.name()
        );
    }
    assert!(instructions.contains("load_skill") && instructions.contains("skills/list"));
    // Each line is whole: a catalog line, the header or the list of names.
    let catalog: Vec<&str> = FORTY.catalog().lines().collect();
    for line in instructions.lines().skip(1) {
        assert!(
            catalog.contains(&line) || line.starts_with("Also: "),
            "a cut line: {line}"
        );
    }
    // A small bundle gets its whole catalog.
    let small = SkillsServer::new(&SPEC);
    assert!(small.instructions().ends_with(SPEC.catalog()));
}

#[tokio::test]
async fn load_skill_is_described_for_a_host_that_shows_no_system_prompt() {
    let mut client = RawClient::stateless(SkillsServer::new(&SPEC)).await;
    let tools = client.result("tools/list", json!({})).await;
    let load = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "load_skill")
        .unwrap();
    let description = load["description"].as_str().unwrap();
    assert!(!description.contains("Skills available"), "{description}");
    assert!(
        description.contains("server's instructions"),
        "{description}"
    );
    // The agent's own tool keeps pointing at its system prompt.
    assert!(
        SPEC.load_skill_tool_anthropic()
            .unwrap()
            .contains("Skills available")
    );
    assert_eq!(
        load["inputSchema"]["properties"]["name"]["enum"],
        json!(["git-workflow", "pdf-processing"])
    );
}
