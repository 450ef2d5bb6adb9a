//! Every tool input is hostile: arbitrary JSON fed to every built-in tool must give a result or
//! a structured error, never a panic, within a bounded time and output size, and never touch
//! anything outside the working directory.
#![cfg(target_os = "linux")]

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};
use skills_runtime::agent::{self as agent, Tool};
use skills_test_support::{HostileSite, SECRET};

/// Values a hostile model likes: traversal, absolute and huge paths, glob bombs, NULs, control
/// characters, numbers at the edges of every integer type.
fn nasty_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("../outside/secret".to_owned()),
        Just("/etc/passwd".to_owned()),
        Just("link".to_owned()),
        Just("fifo".to_owned()),
        Just("a\0b".to_owned()),
        Just("**********z".to_owned()),
        Just("{a,{b,{c,{d}}}}/**/[!x]*".to_owned()),
        (1usize..5000).prop_map(|n| "*".repeat(n)),
        (1usize..300).prop_map(|n| "../".repeat(n)),
        (1usize..3000).prop_map(|n| "a/".repeat(n)),
        "\\PC{0,40}",
        "[ -~\\r\\n\\t\\x1b]{0,80}",
    ]
}

fn nasty_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1.5e300)),
        Just(json!("18446744073709551615")),
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
    ]
}

fn nasty_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        nasty_number(),
        nasty_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An object with the keys the file tools read (each present or not, any value), plus noise.
fn tool_input() -> impl Strategy<Value = Value> {
    let keys = [
        "path", "offset", "limit", "content", "old_text", "new_text", "pattern",
    ];
    let fields = keys.map(|key| proptest::option::of(nasty_value()).prop_map(move |v| (key, v)));
    (fields, nasty_value()).prop_map(|(fields, noise)| {
        let mut object = serde_json::Map::new();
        for (key, value) in fields {
            if let Some(value) = value {
                object.insert(key.to_owned(), value);
            }
        }
        if let Value::Object(extra) = noise {
            object.extend(extra);
        }
        Value::Object(object)
    })
}

/// A [`HostileSite`] with traps in the workdir: a symlink to the secret and a FIFO.
fn site() -> HostileSite {
    let site = skills_test_support::hostile_site();
    std::fs::create_dir_all(site.work.join("src")).unwrap();
    std::fs::write(site.work.join("src/lib.rs"), "fn a() {}\n").unwrap();
    std::os::unix::fs::symlink(site.outside.join("secret"), site.work.join("link")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(site.work.join("fifo"))
        .status()
        .unwrap();
    assert!(made.success());
    site
}

/// The largest result a tool may give (the biggest cap of any tool, with room for notes).
const MAX_RESULT_BYTES: usize = 1 << 20;
const CALL_LIMIT: Duration = Duration::from_secs(15);
/// Far below what one unbounded read or match would take (and the peak only grows, so every
/// call is checked against it).
const MAX_PEAK_KIB: u64 = 512 * 1024;

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn check_call(
    runtime: &tokio::runtime::Runtime,
    tool: &dyn Tool,
    site: &HostileSite,
    input: &Value,
) {
    let outcome = runtime.block_on(async {
        tokio::time::timeout(CALL_LIMIT, tool.call(input, &site.context)).await
    });
    let text = match outcome {
        Err(_) => panic!("{} took longer than {CALL_LIMIT:?} on {input}", tool.name()),
        Ok(Ok(text)) => text,
        Ok(Err(error)) => {
            assert!(
                !error.message.is_empty(),
                "empty error from {}",
                tool.name()
            );
            error.to_result_text()
        }
    };
    assert!(
        text.len() <= MAX_RESULT_BYTES,
        "{}: {} bytes",
        tool.name(),
        text.len()
    );
    assert!(!text.contains(SECRET), "{} leaked: {text}", tool.name());
    let peak = peak_rss_kib();
    assert!(
        peak < MAX_PEAK_KIB,
        "{}: peak RSS {peak} KiB after {input}",
        tool.name()
    );
    assert_eq!(
        std::fs::read_to_string(site.outside.join("secret")).unwrap(),
        SECRET,
        "{} changed a file outside the workdir with {input}",
        tool.name()
    );
}

fn file_tools() -> Vec<Arc<dyn Tool>> {
    agent::builtin_tools()
        .into_iter()
        .filter(|tool| tool.name() != "bash")
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn file_tools_survive_arbitrary_input(input in tool_input()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let site = site();
        for tool in file_tools() {
            check_call(&runtime, tool.as_ref(), &site, &input);
        }
    }

    #[test]
    fn file_tools_survive_arbitrary_json(input in nasty_value()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let site = site();
        for tool in file_tools() {
            check_call(&runtime, tool.as_ref(), &site, &input);
        }
    }

    /// `bash` gets arbitrary JSON too, with the command itself drawn from harmless ones (a
    /// random string is a random program): every other field and shape is arbitrary.
    #[test]
    fn bash_survives_arbitrary_input(
        noise in nasty_value(),
        command in prop_oneof![
            Just(json!("echo hi")),
            Just(json!("true")),
            Just(json!("")),
            nasty_number(),
            Just(Value::Null),
        ],
        timeout in proptest::option::of(nasty_number()),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let site = site();
        let mut input = match noise {
            Value::Object(map) => Value::Object(map),
            other => json!({ "noise": other }),
        };
        input["command"] = command;
        if let Some(timeout) = timeout {
            input["timeout_ms"] = timeout;
        }
        let bash = agent::Bash::default();
        check_call(&runtime, &bash, &site, &input);
        // Non-objects as the whole input.
        check_call(&runtime, &bash, &site, &json!([input]));
    }

    #[test]
    fn skill_resources_survive_any_offset_and_limit(
        path in nasty_string(),
        offset in proptest::option::of(prop_oneof![0usize..30, Just(usize::MAX), any::<usize>()]),
        limit in proptest::option::of(prop_oneof![0usize..30, Just(usize::MAX), any::<usize>()]),
    ) {
        static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("tests/skills");
        for skill in ["code-review", "missing"] {
            let _ = SKILLS.read_resource(skill, &path, offset, limit);
            let _ = SKILLS.read_resource(skill, "references/checklist.md", offset, limit);
        }
    }
}
