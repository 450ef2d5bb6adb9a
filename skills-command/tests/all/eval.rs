//! `skills eval` run as a program against a model on 127.0.0.1 that loads skills by the words of
//! the query (`skills_test_support::router`): the numbers its routes imply in every
//! format, the cache across runs and edits, the request limit, retries, and the exit codes.

use crate::support;
use skills_test_support::router;
mod tasks;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use router::{Reply, RoutingModel};
use serde_json::Value;

use support::{BIN, Run, assert_no_panic};

pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The variables that choose a provider, cleared so that a test's own are the only ones.
const PROVIDER_VARIABLES: [&str; 5] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "MODEL_ID",
];

#[derive(Clone, Copy)]
pub(crate) enum Wire {
    Anthropic,
    OpenAi,
}

/// `skills eval ARGS` in `dir`, its provider pointed at `model` (every other provider variable
/// cleared), off the test's runtime so the model keeps answering.
async fn eval_in(dir: &Path, model: &RoutingModel, wire: Wire, args: &[&str]) -> Run {
    eval_at(dir, &model.url(), wire, args).await
}

/// `skills eval ARGS` in `dir` against the model server at `url`.
pub(crate) async fn eval_at(dir: &Path, url: &str, wire: Wire, args: &[&str]) -> Run {
    let mut command = Command::new(BIN);
    command.arg("eval").args(args).current_dir(dir);
    for name in PROVIDER_VARIABLES.iter().chain(&["CARGO_TARGET_DIR"]) {
        command.env_remove(name);
    }
    match wire {
        Wire::Anthropic => command
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .env("ANTHROPIC_BASE_URL", url),
        Wire::OpenAi => command
            .env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", format!("{url}/v1"))
            .env("MODEL_ID", "gpt-test-model"),
    };
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let run = Run::from(output);
    assert_no_panic(&run);
    run
}

async fn eval(model: &RoutingModel, args: &[&str]) -> Run {
    eval_in(&workspace(), model, Wire::OpenAi, args).await
}

/// The routes `skills-test-support/fixtures/eval-routes` is written for.
fn routes() -> Vec<(&'static str, Reply)> {
    vec![
        (
            "sometimes",
            Reply::Cycle(vec![
                Reply::Load("alpha"),
                Reply::Text,
                Reply::Load("alpha"),
            ]),
        ),
        ("compare", Reply::Load("gamma")),
        ("alpha", Reply::Load("alpha")),
        ("beta", Reply::Load("beta")),
        ("gamma", Reply::Load("gamma")),
        ("zap", Reply::Load("gamma")),
        ("glob", Reply::Tool("glob")),
    ]
}

const ROUTES: &str = "skills-test-support/fixtures/eval-routes";

fn skill<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_numbers_are_those_the_routes_imply_in_both_formats() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let model = RoutingModel::start(routes(), Reply::Text).await;
        let run = eval_in(
            &workspace(),
            &model,
            wire,
            &[ROUTES, "--format", "json", "--no-cache", "--stream"],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        let numbers = |name: &str| {
            let s = skill(&report, name);
            (
                s["positives"].clone(),
                s["negatives"].clone(),
                s["recall"].clone(),
                s["precision"].clone(),
                s["false_trigger_rate"].clone(),
                s["confused_with"].clone(),
            )
        };
        use serde_json::json;
        assert_eq!(
            numbers("alpha"),
            (
                json!(4),
                json!(2),
                json!(0.75),
                json!(0.7273),
                json!(0.0),
                json!({})
            )
        );
        assert_eq!(
            numbers("beta"),
            (
                json!(3),
                json!(1),
                json!(0.3333),
                json!(0.5),
                json!(0.0),
                json!({"gamma": 1})
            )
        );
        assert_eq!(
            numbers("gamma"),
            (
                json!(1),
                json!(2),
                json!(1.0),
                json!(0.3333),
                json!(0.5),
                json!({})
            )
        );
        assert_eq!(
            report["skills"].as_array().unwrap().len(),
            3,
            "delta has no case"
        );
        assert_eq!(
            (report["requests"].clone(), report["cached"].clone()),
            (json!(39), json!(0))
        );
        assert_eq!(report["tokens"], json!({"input": 3900, "output": 390}));
        assert_eq!(report["runs"], 3);
        assert_eq!(report["threshold"], 0.5);
        assert_eq!(model.count().await, 39);
        // Without a terminal, progress is a plain line per run.
        assert_eq!(
            run.stderr.lines().filter(|l| l.starts_with('[')).count(),
            39
        );
        assert!(run.stderr.contains("[39/39]"), "{}", run.stderr);
    }
}

/// The demo bundle's routes: a word per skill, checked in this order, so a query holding two
/// of them goes to the first ("a code review of the last commit" to commit-message).
fn demo_routes() -> Vec<(&'static str, Reply)> {
    vec![
        ("commit", Reply::Load("commit-message")),
        ("readme", Reply::Load("write-docs")),
        ("review", Reply::Load("code-review")),
        ("dependencies", Reply::Load("dependency-audit")),
        ("fails", Reply::Load("debug-failing-test")),
        ("failing", Reply::Load("debug-failing-test")),
        ("tests", Reply::Load("write-tests")),
        ("docs", Reply::Load("write-docs")),
        ("audit", Reply::Load("dependency-audit")),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_bundle_in_every_format() {
    let model = RoutingModel::start(demo_routes(), Reply::Text).await;
    let json = eval(&model, &["skills", "--format", "json", "--no-cache"]).await;
    assert_eq!(json.code, 0, "{}", json.stderr);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    // By hand, from the routes: of code-review's 8 positives, two say "review" and nothing that
    // comes first; "Audit the error handling ..." goes to dependency-audit and "... code review
    // of the last commit" to commit-message (two confusions), the other four to no skill. None
    // of its negatives loads it; five other skills' negatives say "review" (5 cases x 3 runs),
    // so 6 of the 21 runs that load it are its own.
    let review = skill(&report, "code-review");
    assert_eq!(
        (review["positives"].clone(), review["negatives"].clone()),
        (8.into(), 8.into())
    );
    assert_eq!(review["recall"], 0.25);
    assert_eq!(review["precision"], 0.2857);
    assert_eq!(review["false_trigger_rate"], 0.0);
    assert_eq!(
        review["confused_with"],
        serde_json::json!({"commit-message": 1, "dependency-audit": 1})
    );
    assert_eq!(report["cases"].as_array().unwrap().len(), 96);
    assert_eq!(report["requests"], 288);
    insta::assert_snapshot!("eval_demo_json", json.stdout);
    for (format, name) in [
        ("table", "eval_demo_table"),
        ("markdown", "eval_demo_markdown"),
        ("junit", "eval_demo_junit"),
    ] {
        let run = eval(&model, &["skills", "--format", format, "--no-cache"]).await;
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        insta::assert_snapshot!(name, run.stdout);
    }
    // The JUnit report is well-formed: as many test cases as trigger cases, and the failures.
    let junit = eval(&model, &["skills", "--format", "junit", "--no-cache"]).await;
    assert_eq!(junit.stdout.matches("<testcase ").count(), 96);
    let failing = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["pass"] == false)
        .count();
    assert_eq!(junit.stdout.matches("<failure ").count(), failing);
}

/// A copy of the routed fixture in a temporary folder, to edit.
fn copy_of_routes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = workspace().join(ROUTES);
    for skill in ["alpha", "beta", "gamma", "delta"] {
        for file in ["SKILL.md", "evals/triggers.json"] {
            let source = from.join(skill).join(file);
            if source.exists() {
                let target = dir.path().join("skills").join(skill).join(file);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::copy(source, target).unwrap();
            }
        }
    }
    dir
}

fn edit_alpha(dir: &Path) {
    let file = dir.join("skills/alpha/SKILL.md");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(
        &file,
        text.replace("until they read well", "until they read smoothly"),
    )
    .unwrap();
}

fn requests_and_cached(run: &Run) -> (u64, u64) {
    let report: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.stderr));
    (
        report["requests"].as_u64().unwrap(),
        report["cached"].as_u64().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cache_asks_again_only_what_an_edit_can_change() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let dir = copy_of_routes();
    let json = ["--format", "json"];
    // The default cache is under target/.
    let first = eval_in(dir.path(), &model, Wire::OpenAi, &json).await;
    assert_eq!(requests_and_cached(&first), (39, 0));
    assert!(dir.path().join("target/skills-eval").is_dir());
    let again = eval_in(dir.path(), &model, Wire::OpenAi, &json).await;
    assert_eq!(requests_and_cached(&again), (0, 39));
    assert_eq!(model.count().await, 39, "the second run sent nothing");
    // One description is in the catalog of every request of the whole bundle.
    edit_alpha(dir.path());
    let edited = eval_in(dir.path(), &model, Wire::OpenAi, &json).await;
    assert_eq!(requests_and_cached(&edited), (39, 0));

    // One skill at a time: an edit of alpha asks alpha's 6 cases again, 3 runs each.
    let isolated = ["--format", "json", "--isolated", "--cache", "answers"];
    let first = eval_in(dir.path(), &model, Wire::OpenAi, &isolated).await;
    assert_eq!(requests_and_cached(&first), (39, 0));
    let again = eval_in(dir.path(), &model, Wire::OpenAi, &isolated).await;
    assert_eq!(requests_and_cached(&again), (0, 39));
    let before = model.count().await;
    fs::write(
        dir.path().join("skills/alpha/SKILL.md"),
        fs::read_to_string(dir.path().join("skills/alpha/SKILL.md"))
            .unwrap()
            .replace("read smoothly", "read well again"),
    )
    .unwrap();
    let edited = eval_in(dir.path(), &model, Wire::OpenAi, &isolated).await;
    assert_eq!(requests_and_cached(&edited), (18, 21));
    let asked: Vec<String> = model.bodies().await[before..]
        .iter()
        .map(router::last_user_text)
        .collect();
    let alpha = fs::read_to_string(dir.path().join("skills/alpha/evals/triggers.json")).unwrap();
    assert!(
        asked.iter().all(|q| alpha.contains(q.as_str())),
        "{asked:?}"
    );
    // Another model is another cache entry.
    let other = [
        "--format",
        "json",
        "--isolated",
        "--cache",
        "answers",
        "--model",
        "other",
    ];
    let run = eval_in(dir.path(), &model, Wire::OpenAi, &other).await;
    assert_eq!(requests_and_cached(&run), (39, 0));
}

#[tokio::test(flavor = "multi_thread")]
async fn gates_decide_the_exit_code() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    let base = [ROUTES, "--cache", cache];
    let with = |more: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(more.iter().copied()).collect()
    };
    let pass = eval(
        &model,
        &with(&["--min-recall", "0.3", "--min-precision", "0.3"]),
    )
    .await;
    assert_eq!(pass.code, 0, "{}{}", pass.stdout, pass.stderr);
    assert!(
        pass.stdout.contains("gate min recall 0.3: passed"),
        "{}",
        pass.stdout
    );
    assert!(pass.stdout.contains("result: pass"), "{}", pass.stdout);

    let low = eval(&model, &with(&["--min-recall", "0.5"])).await;
    assert_eq!(low.code, 1, "{}", low.stdout);
    assert!(
        low.stdout
            .contains("recall of beta is 0.3333, under the minimum 0.5"),
        "{}",
        low.stdout
    );
    let imprecise = eval(
        &model,
        &with(&["--min-precision", "0.4", "--format", "junit"]),
    )
    .await;
    assert_eq!(imprecise.code, 1);
    assert!(
        imprecise.stdout.contains("precision of gamma is 0.3333"),
        "{}",
        imprecise.stdout
    );

    // A baseline in which "make it shine" passed: it fails now.
    let earlier = eval(&model, &with(&["--format", "json"])).await;
    let mut report: Value = serde_json::from_str(&earlier.stdout).unwrap();
    for case in report["cases"].as_array_mut().unwrap() {
        if case["query"] == "make it shine" {
            case["pass"] = Value::Bool(true);
        }
    }
    let baseline = dir.path().join("baseline.json");
    fs::write(&baseline, report.to_string()).unwrap();
    let baseline = baseline.to_str().unwrap().to_owned();
    let args: Vec<&str> = base
        .iter()
        .copied()
        .chain(["--baseline", baseline.as_str(), "--format", "markdown"])
        .collect();
    let regressed = eval(&model, &args).await;
    assert_eq!(regressed.code, 1, "{}", regressed.stdout);
    assert!(
        regressed
            .stdout
            .contains("passed in the baseline and fails now")
    );
    // The same report as its own baseline passes.
    fs::write(&baseline, &earlier.stdout).unwrap();
    assert_eq!(eval(&model, &args).await.code, 0);

    let missing = eval(&model, &with(&["--baseline", "/nonexistent/report.json"])).await;
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("baseline"), "{}", missing.stderr);
    let bad_flag = eval(&model, &with(&["--threshold", "2"])).await;
    assert_eq!(bad_flag.code, 2);
    assert!(
        bad_flag.stderr.contains("from 0 to 1"),
        "{}",
        bad_flag.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_exit_2_and_say_why() {
    // A malformed reply: reported, and the run fails.
    let mut broken = routes();
    broken.insert(0, ("gamma", Reply::NoName));
    let model = RoutingModel::start(broken, Reply::Text).await;
    let run = eval(&model, &[ROUTES, "--no-cache"]).await;
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("load_skill was called without a string `name`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("result: ERROR"), "{}", run.stdout);

    // A bundle with errors is not evaluated.
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let dir = copy_of_routes();
    fs::write(
        dir.path().join("skills/beta/evals/triggers.json"),
        "[{\"query\": 1}]",
    )
    .unwrap();
    let run = eval_in(dir.path(), &model, Wire::OpenAi, &["--no-cache"]).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("skills/beta/evals/triggers.json:1:"),
        "{}",
        run.stderr
    );
    assert_eq!(model.count().await, 0);

    // No model to ask.
    let output = Command::new(BIN)
        .args(["eval", ROUTES, "--no-cache"])
        .current_dir(workspace())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("OPENAI_BASE_URL"));

    // A server that refuses the key stops the run.
    let refusing = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(wiremock::ResponseTemplate::new(401).set_body_json(
            serde_json::json!({"error": {"message": "bad key", "type": "invalid_request_error"}}),
        ))
        .mount(&refusing)
        .await;
    let mut command = Command::new(BIN);
    command
        .args(["eval", ROUTES, "--no-cache", "--provider", "openai"])
        .current_dir(workspace())
        .env_remove("ANTHROPIC_API_KEY")
        .env("OPENAI_API_KEY", "sk-wrong")
        .env("OPENAI_BASE_URL", format!("{}/v1", refusing.uri()));
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("authentication failed"), "{stderr}");
    assert!(!stderr.contains("sk-wrong"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_request_limit_and_a_429() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let over = eval(&model, &[ROUTES, "--no-cache", "--max-requests", "38"]).await;
    assert_eq!(over.code, 2);
    assert!(
        over.stderr.contains("need 39 model requests"),
        "{}",
        over.stderr
    );
    assert_eq!(model.count().await, 0, "nothing was sent");

    let mut limited = routes();
    limited.insert(
        0,
        (
            "paragraph",
            Reply::LimitedOnce(1, Box::new(Reply::Load("alpha"))),
        ),
    );
    let model = RoutingModel::start(limited, Reply::Text).await;
    let started = std::time::Instant::now();
    let run = eval(
        &model,
        &[
            ROUTES,
            "--no-cache",
            "--max-requests",
            "39",
            "--format",
            "json",
            "--concurrency",
            "1",
        ],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "retry-after was obeyed"
    );
    assert_eq!(model.count().await, 40, "the 429 was retried");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(skill(&report, "alpha")["recall"], 0.75);
}

#[test]
fn the_demo_provider_needs_no_model_and_gives_the_readme_numbers() {
    // The demo bundle against the offline stand-in: no key, no server, no cache to reuse.
    let mut command = Command::new(BIN);
    command
        .args([
            "eval",
            "skills",
            "--provider",
            "demo",
            "--no-cache",
            "--format",
            "json",
        ])
        .current_dir(workspace());
    for name in PROVIDER_VARIABLES {
        command.env_remove(name);
    }
    let run = Run::from(command.output().unwrap());
    assert_no_panic(&run);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("model: demo: an offline stand-in"),
        "{}",
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["provider"], "demo");
    assert_eq!(report["requests"], 288);
    // The recall column of the eval docs' table of the demo model's numbers (skills-agent).
    let recall: Vec<(String, f64)> = report["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["recall"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recall,
        [
            ("code-review".to_owned(), 1.0),
            ("commit-message".to_owned(), 1.0),
            ("debug-failing-test".to_owned(), 0.875),
            ("dependency-audit".to_owned(), 0.875),
            ("write-docs".to_owned(), 0.875),
            ("write-tests".to_owned(), 0.875),
        ]
    );
}
