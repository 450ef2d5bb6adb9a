//! The task evals against a scripted model (`skills_test_support::task_model`) and its mock grader,
//! in both wire formats, streamed and not: the numbers the script implies, exactly; the requests
//! of both configurations; the previous version as the baseline; the sandbox refusal; a grader
//! reply that cannot be read; the request limit; shards merged; the gates; the HTML page in a
//! real browser.

use std::sync::Arc;

use serde_json::Value;
use skills_runtime::agent::eval::tasks::{
    self, Comparison, Configuration, Shard, TaskBaseline, TaskFormat, TaskGateFailure, TaskGates,
    TaskOptions, TaskReport,
};
use skills_runtime::agent::eval::{EvalError, Verdict};
use skills_runtime::agent::{Agent, BashOptions, Provider};

use skills_test_support::task_model::{
    Grading, Step, TaskModel, system_text, task_text, tool_names,
};

/// alpha (cases 1 and 2) and beta (case 7), with their cases compiled in.
static TASKS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/task-evals",
    embed_evals = true
);
/// An older alpha.
static PREVIOUS: skills_runtime::Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/task-evals-previous");

/// The script the fixture's cases are written for (see its README).
fn routes() -> Vec<(&'static str, Vec<Step>)> {
    vec![
        (
            "zeta",
            vec![
                Step::Load("alpha"),
                Step::Write("out.txt", "42"),
                Step::Answer("done: out.txt holds 42"),
            ],
        ),
        ("omega", vec![Step::Answer("done")]),
        (
            "kappa",
            vec![Step::Load("beta"), Step::Answer("done kappa")],
        ),
    ]
}

#[derive(Clone, Copy, Debug)]
enum Wire {
    Anthropic,
    OpenAi,
}

fn provider(wire: Wire, url: &str) -> Arc<dyn Provider> {
    match wire {
        Wire::Anthropic => Arc::new(skills_test_support::anthropic(url).0),
        Wire::OpenAi => Arc::new(skills_test_support::openai(url).0),
    }
}

fn agent(model: &TaskModel, wire: Wire, stream: bool) -> Agent {
    Agent::builder(provider(wire, &model.url()))
        .skills(&TASKS)
        .stream(stream)
        .build()
        .unwrap()
}

/// Two runs, at most 5 turns, `bash` unconfined (a test binary has no sandbox entry line; the
/// scripts do not run commands), allowed.
fn options() -> TaskOptions {
    TaskOptions {
        runs: 2,
        max_turns: 5,
        bash: BashOptions::unconfined(),
        allow_unconfined: true,
        ..TaskOptions::default()
    }
}

/// `(pass rate mean, stddev; assertion pass rate mean, stddev; turns mean, stddev)` of a
/// configuration.
fn numbers(summary: &tasks::ConfigSummary) -> [f64; 6] {
    [
        summary.pass_rate.mean,
        summary.pass_rate.stddev,
        summary.assertion_pass_rate.mean,
        summary.assertion_pass_rate.stddev,
        summary.turns.mean,
        summary.turns.stddev,
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_numbers_are_those_the_script_implies_in_both_formats() {
    for (wire, stream) in [
        (Wire::Anthropic, false),
        (Wire::Anthropic, true),
        (Wire::OpenAi, false),
        (Wire::OpenAi, true),
    ] {
        let model = TaskModel::start(routes(), Grading::AllPass).await;
        let report = tasks::run(&agent(&model, wire, stream), &options(), |_| {})
            .await
            .unwrap();
        let context = format!("{wire:?}, stream {stream}");
        // alpha: with the skill every run passes; without it case 1 passes only the graded
        // assertion (1 of 4), case 2 passes both of its checks.
        let alpha = report.skill("alpha").unwrap();
        assert_eq!(
            numbers(&alpha.with_skill),
            [1.0, 0.0, 1.0, 0.0, 2.0, 1.1547],
            "{context}"
        );
        assert_eq!(
            numbers(&alpha.without_skill),
            [0.5, 0.5774, 0.625, 0.433, 1.0, 0.0],
            "{context}"
        );
        assert_eq!(alpha.delta.pass_rate, 0.5);
        assert_eq!(alpha.delta.assertion_pass_rate, 0.375);
        assert_eq!(alpha.delta.turns, 1.0);
        // 110 tokens a turn.
        assert_eq!(alpha.with_skill.tokens.mean, 220.0);
        assert_eq!(alpha.without_skill.tokens.mean, 110.0);
        assert_eq!(alpha.with_skill.selection_accuracy, Some(1.0));
        assert_eq!(alpha.without_skill.selection_accuracy, Some(0.5));
        // The mock grader passes case 1's statement either way, and case 2 passes everything
        // either way: those assertions measure nothing.
        assert_eq!(
            alpha.non_discriminating,
            [
                "1: The answer is 42",
                "2: the answer contains \"done\"",
                "2: did not load beta"
            ]
        );
        assert!(alpha.flaky.is_empty());
        let case1 = report.case("alpha", 1).unwrap();
        assert_eq!(case1.delta.pass_rate, 1.0);
        assert!(case1.pass && !case1.flaky);
        assert_eq!(case1.non_discriminating, ["The answer is 42"]);
        assert_eq!(
            case1.assertions,
            [
                "file out.txt contains \"42\"",
                "loaded alpha",
                "the answer contains \"done\"",
                "The answer is 42"
            ]
        );
        let beta = report.skill("beta").unwrap();
        assert_eq!(numbers(&beta.with_skill), [1.0, 0.0, 1.0, 0.0, 2.0, 0.0]);
        assert_eq!(numbers(&beta.without_skill), [0.0, 0.0, 0.5, 0.0, 1.0, 0.0]);
        assert_eq!(beta.delta.pass_rate, 1.0);
        // The runs: 2 x 2 per case; requests: case 1 with 3 turns + grading, without 1 +
        // grading; case 2 one turn; case 7 two turns with, one without.
        assert_eq!(report.runs.len(), 12);
        assert_eq!(
            report.requests,
            2 * (4 + 2) + 2 * (1 + 1) + 2 * (2 + 1),
            "{context}"
        );
        assert_eq!(model.count().await as u64, report.requests);
        assert_eq!((report.errors, report.cached), (0, 0));
        assert_eq!(report.verdict(), Verdict::Pass);
        let run = report
            .runs
            .iter()
            .find(|r| r.eval_id == 1 && r.configuration == Configuration::WithSkill)
            .unwrap();
        assert_eq!(run.skills_loaded, ["alpha"]);
        assert_eq!(run.changed_files.len(), 1);
        assert_eq!(run.changed_files[0].path, "out.txt");
        assert_eq!(run.expectations[3].evidence, "mock grader on 1");
        assert!(run.expectations[3].graded);
        assert_eq!(
            (run.result.passed, run.result.total, run.result.tool_calls),
            (4, 4, 2)
        );
        // benchmark.json's summary: the mean of each run's assertion pass rate.
        assert_eq!(report.run_summary.with_skill.pass_rate.mean, 1.0);
        assert_eq!(report.run_summary.without_skill.pass_rate.mean, 0.5833);
        assert_eq!(report.run_summary.delta.pass_rate, 0.4167);
        let json: Value = serde_json::from_str(&report.render(TaskFormat::Json)).unwrap();
        for field in ["mean", "stddev"] {
            for config in ["with_skill", "without_skill"] {
                for metric in ["pass_rate", "time_seconds", "tokens"] {
                    assert!(
                        json["run_summary"][config][metric][field].is_number(),
                        "{config}.{metric}.{field}"
                    );
                }
            }
        }
        assert!(json["run_summary"]["delta"]["pass_rate"].is_number());
        assert_eq!(json["runs"][0]["configuration"], "with_skill");
        assert_eq!(json["runs"][0]["result"]["total"], 4);
        assert_eq!(json["metadata"]["evals_run"], serde_json::json!([1, 2, 7]));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_baseline_is_the_bundle_without_the_skill() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let agent = agent(&model, Wire::OpenAi, false);
    let options = TaskOptions {
        runs: 1,
        shard: Some(Shard { index: 1, count: 3 }),
        ..options()
    };
    tasks::run(&agent, &options, |_| {}).await.unwrap();
    let bodies = model.bodies().await;
    let first: Vec<&Value> = bodies
        .iter()
        .filter(|b| !tool_names(b).contains(&"grade".to_owned()))
        .filter(|b| b["messages"].as_array().unwrap().len() == 2)
        .collect();
    assert_eq!(first.len(), 2, "one first request per configuration");
    // The configurations run concurrently: tell them apart by the skills `load_skill` offers.
    let offers_alpha = |body: &Value| {
        tool_names(body).contains(&"load_skill".to_owned())
            && body["tools"].to_string().contains("\"alpha\"")
    };
    let (with, without) = match (offers_alpha(first[0]), offers_alpha(first[1])) {
        (true, false) => (first[0], first[1]),
        (false, true) => (first[1], first[0]),
        _ => panic!("exactly one first request offers alpha: {first:#?}"),
    };
    // With: exactly the agent's own first request.
    assert_eq!(system_text(with), agent.system_prompt());
    assert!(system_text(with).contains("- alpha: Alpha works zeta tasks"));
    assert!(system_text(without).contains("- beta: "));
    assert!(
        !system_text(without).contains("alpha"),
        "{}",
        system_text(without)
    );
    let names = |body: &Value| {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == "load_skill")
            .map(|t| t["function"]["parameters"]["properties"]["name"]["enum"].clone())
    };
    assert_eq!(names(with), Some(serde_json::json!(["alpha", "beta"])));
    assert_eq!(names(without), Some(serde_json::json!(["beta"])));
    assert_eq!(task_text(with), "zeta: answer the question in input.txt");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_previous_version_stands_in_for_the_baseline() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let options = TaskOptions {
        runs: 1,
        shard: Some(Shard { index: 1, count: 3 }),
        comparison: Comparison::Previous {
            skills: PREVIOUS.clone(),
            label: "the fixture".to_owned(),
        },
        ..options()
    };
    let report = tasks::run(&agent(&model, Wire::Anthropic, false), &options, |_| {})
        .await
        .unwrap();
    assert_eq!(report.baseline, "previous version (the fixture)");
    let bodies = model.bodies().await;
    let agent_requests: Vec<&Value> = bodies
        .iter()
        .filter(|b| !tool_names(b).contains(&"grade".to_owned()))
        .collect();
    let old = agent_requests
        .iter()
        .filter(|b| system_text(b).contains("- alpha: The old alpha, also for zeta tasks."))
        .count();
    assert_eq!(
        old, 3,
        "every request of the baseline run shows the old description"
    );
    // The old body reached the model as the result of load_skill.
    let served: Vec<String> = agent_requests.iter().map(|b| b.to_string()).collect();
    assert!(
        served
            .iter()
            .any(|b| b.contains("Old body: write 41 into out.txt."))
    );
    assert!(
        served
            .iter()
            .any(|b| b.contains("Write the answer, 42, into out.txt."))
    );
    // Both configurations load alpha and write 42: the old version does as well here.
    let case = report.case("alpha", 1).unwrap();
    assert_eq!(case.delta.pass_rate, 0.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn bash_unconfined_is_refused_unless_allowed_and_nothing_is_sent() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let agent = agent(&model, Wire::OpenAi, false);
    let refused = TaskOptions {
        allow_unconfined: false,
        ..options()
    };
    let error = tasks::run(&agent, &refused, |_| {}).await.unwrap_err();
    assert!(matches!(error, EvalError::Unconfined), "{error}");
    assert!(error.to_string().contains("--allow-unconfined"));
    // The sandbox itself needs the program's entry line, which a test binary does not call:
    // the eval says so rather than running bash unconfined.
    let sandboxed = TaskOptions {
        bash: BashOptions::default(),
        allow_unconfined: true,
        ..options()
    };
    let error = tasks::run(&agent, &sandboxed, |_| {}).await.unwrap_err();
    assert!(matches!(error, EvalError::Sandbox(_)), "{error}");
    assert_eq!(model.count().await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grader_reply_that_cannot_be_read_is_an_error_never_a_pass() {
    for grading in [Grading::Unreadable, Grading::NoCall] {
        let model = TaskModel::start(routes(), grading).await;
        let cache = tempfile::tempdir().unwrap();
        let options = TaskOptions {
            cache_dir: Some(cache.path().to_owned()),
            ..options()
        };
        let agent = agent(&model, Wire::OpenAi, false);
        let report = tasks::run(&agent, &options, |_| {}).await.unwrap();
        // Every run of case 1 has a graded assertion: 4 errors; the others are fine.
        assert_eq!(report.errors, 4, "{grading:?}");
        assert_eq!(report.verdict(), Verdict::Errors);
        assert_eq!(report.verdict().exit_code(), 2);
        for run in report.runs.iter().filter(|r| r.eval_id == 1) {
            let graded = run.expectations.iter().find(|e| e.graded).unwrap();
            assert!(!graded.passed && !run.pass);
            assert!(graded.evidence.contains("grader"), "{}", graded.evidence);
            assert!(run.error.is_some());
        }
        assert_eq!(report.case("alpha", 1).unwrap().with_skill.errors, 2);
        // Errors are not kept: a second eval asks again for those runs only.
        let before = model.count().await;
        let again = tasks::run(&agent, &options, |_| {}).await.unwrap();
        assert_eq!(again.cached, 8);
        assert_eq!(model.count().await - before, 2 * (4 + 2));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_request_limit_is_checked_before_anything_is_sent() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let agent = agent(&model, Wire::Anthropic, false);
    // Per run its turn limit (5) and a grading request for case 1: 2 x 2 x (6 + 5 + 5) = 64.
    let limited = TaskOptions {
        max_requests: Some(63),
        ..options()
    };
    let error = tasks::run(&agent, &limited, |_| {}).await.unwrap_err();
    assert!(
        matches!(
            error,
            EvalError::TooManyRequests {
                needed: 64,
                max: 63,
                cached: 0
            }
        ),
        "{error}"
    );
    assert_eq!(model.count().await, 0);
    let enough = TaskOptions {
        max_requests: Some(64),
        ..options()
    };
    tasks::run(&agent, &enough, |_| {}).await.unwrap();
}

/// The report without what differs between an eval and its shards read back from a cache: the
/// counts of requests and of cached runs, and the shards' names.
fn comparable(mut report: TaskReport) -> TaskReport {
    report.requests = 0;
    report.cached = 0;
    report.tokens = Default::default();
    report.shards.clear();
    for run in &mut report.runs {
        run.cached = false;
    }
    report
}

#[tokio::test(flavor = "multi_thread")]
async fn shards_merged_give_the_report_of_one_eval() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let agent = agent(&model, Wire::OpenAi, true);
    let cache = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for index in 1..=2 {
        let options = TaskOptions {
            shard: Some(Shard { index, count: 2 }),
            cache_dir: Some(cache.path().to_owned()),
            ..options()
        };
        let report = tasks::run(&agent, &options, |_| {}).await.unwrap();
        assert_eq!(report.shards, [format!("{index}/2")]);
        shards.push(report);
    }
    // Shard 1 holds cases alpha 1 and beta 7, shard 2 alpha 2.
    assert_eq!(
        shards[0].cases.iter().map(|c| c.id).collect::<Vec<_>>(),
        [1, 7]
    );
    assert_eq!(
        shards[1].cases.iter().map(|c| c.id).collect::<Vec<_>>(),
        [2]
    );
    let sent = model.count().await;
    let whole = tasks::run(
        &agent,
        &TaskOptions {
            cache_dir: Some(cache.path().to_owned()),
            ..options()
        },
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(
        model.count().await,
        sent,
        "the whole eval came from the cache"
    );
    assert_eq!(whole.cached, 12);
    let merged = TaskReport::merge(shards.clone()).unwrap();
    assert_eq!(merged.shards, ["1/2", "2/2"]);
    assert_eq!(merged.requests, sent as u64);
    assert_eq!(comparable(merged), comparable(whole));
    // The JSON form merges the same way; a shard twice does not.
    let read_back: Vec<TaskReport> = shards
        .iter()
        .map(|r| serde_json::from_str(&r.render(TaskFormat::Json)).unwrap())
        .collect();
    assert_eq!(
        TaskReport::merge(read_back).unwrap(),
        TaskReport::merge(shards.clone()).unwrap()
    );
    let twice = TaskReport::merge(vec![shards[0].clone(), shards[0].clone()]).unwrap_err();
    assert!(twice.contains("shards do not overlap"), "{twice}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_gates_fail_with_exit_code_1() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let report = tasks::run(&agent(&model, Wire::OpenAi, false), &options(), |_| {})
        .await
        .unwrap();
    let mut passing = report.clone();
    passing.check(&TaskGates {
        min_pass_rate: Some(1.0),
        min_uplift: Some(0.5),
        baseline: None,
    });
    assert_eq!(passing.verdict().exit_code(), 0);
    let mut failing = report.clone();
    let failures = failing
        .check(&TaskGates {
            min_pass_rate: None,
            min_uplift: Some(0.75),
            baseline: None,
        })
        .to_vec();
    assert_eq!(
        failures,
        [TaskGateFailure::MinUplift {
            skill: "alpha".into(),
            uplift: 0.5,
            min: 0.75
        }]
    );
    assert_eq!(failing.verdict().exit_code(), 1);
    assert!(
        failing
            .render(TaskFormat::Table)
            .contains("gate min uplift 0.75: failed: uplift of alpha is 0.5")
    );
    // A case that passed in an earlier report and fails now.
    let earlier = report.render(TaskFormat::Json);
    let all_fail = TaskModel::start(routes(), Grading::AllFail).await;
    let mut now = tasks::run(&agent(&all_fail, Wire::OpenAi, false), &options(), |_| {})
        .await
        .unwrap();
    let regressed = now
        .check(&TaskGates {
            baseline: Some(TaskBaseline::from_json(&earlier).unwrap()),
            ..TaskGates::default()
        })
        .to_vec();
    assert_eq!(
        regressed,
        [TaskGateFailure::Regressed {
            skill: "alpha".into(),
            id: 1
        }]
    );
    assert_eq!(now.verdict(), Verdict::GateFailed);
    let junit = now.render(TaskFormat::Junit);
    assert!(
        junit.contains("<testsuite name=\"gates\" tests=\"1\" failures=\"1\""),
        "{junit}"
    );
}

/// The page opened in headless Chromium, and the numbers it shows read back from the DOM it
/// built. Skipped, saying so, where no Chromium is installed (`.ci/run` installs Debian's).
#[tokio::test(flavor = "multi_thread")]
async fn the_html_report_renders_in_a_browser() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let report = tasks::run(&agent(&model, Wire::OpenAi, false), &options(), |_| {})
        .await
        .unwrap();
    let page = report.render(TaskFormat::Html);
    assert!(!page.contains("<script"), "no script");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "nothing to fetch"
    );
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|name| {
            std::process::Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        eprintln!("SKIPPED the_html_report_renders_in_a_browser: no Chromium on this machine");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, &page).unwrap();
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dom = String::from_utf8(output.stdout).unwrap();
    let metric = |skill: &str, name: &str| -> String {
        let marker = format!("data-skill=\"{skill}\" data-metric=\"{name}\">");
        let at = dom
            .find(&marker)
            .unwrap_or_else(|| panic!("{marker} not in the DOM:\n{dom}"));
        let rest = &dom[at + marker.len()..];
        rest[..rest.find('<').unwrap()].to_owned()
    };
    assert_eq!(metric("alpha", "pass-rate-with"), "1.00");
    assert_eq!(metric("alpha", "pass-rate-without"), "0.50");
    assert_eq!(metric("alpha", "uplift"), "+0.50");
    assert_eq!(metric("beta", "uplift"), "+1.00");
    assert_eq!(metric("alpha", "assertions-without"), "0.62");
    // Every run is there, folded, with its evidence.
    assert_eq!(dom.matches("<details><summary>with_skill run").count(), 6);
    assert!(dom.contains("mock grader on 1"));
    assert!(dom.contains("data-metric=\"verdict\">pass<"));
}
