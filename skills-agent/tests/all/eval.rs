//! The trigger evals against a model that loads skills by the words of the query
//! (`skills_test_support::router`), in both wire formats, streamed and not: the numbers the routes
//! imply, the exact requests the agent sends, the cache, the request limit, retries, malformed
//! replies and the gates. The task evals are in the module `tasks`.

mod tasks;

use std::sync::Arc;

use serde_json::Value;
use skills_runtime::agent::eval::{
    self, Baseline, EvalError, EvalOptions, Format, GateFailure, Gates, Outcome, Report,
    TriggerRule, Verdict,
};
use skills_runtime::agent::{Agent, Provider};
use skills_test_support::router::{Reply, RoutingModel, last_user_text};

/// alpha, beta and gamma with trigger cases, delta without.
static ROUTES: skills_runtime::Registry = skills_runtime::embed_skills!(
    "../skills-test-support/fixtures/eval-routes",
    embed_evals = true
);
static NOT_EMBEDDED: skills_runtime::Registry =
    skills_runtime::embed_skills!("../skills-test-support/fixtures/eval-routes");

/// The routes the fixture's cases are written for (see its README).
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

fn agent(
    provider: Arc<dyn Provider>,
    registry: &'static skills_runtime::Registry,
    stream: bool,
) -> Agent {
    Agent::builder(provider)
        .skills(registry)
        .stream(stream)
        .build()
        .unwrap()
}

/// `(name, positives, negatives, recall, precision, false_trigger_rate, confused_with)`.
type Numbers = (
    String,
    u32,
    u32,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Vec<(String, u32)>,
);

fn numbers(report: &Report) -> Vec<Numbers> {
    report
        .skills
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.positives,
                s.negatives,
                s.recall,
                s.precision,
                s.false_trigger_rate,
                s.confused_with
                    .iter()
                    .map(|(k, v)| (k.clone(), *v))
                    .collect(),
            )
        })
        .collect()
}

/// What the routes imply, worked out by hand in the fixture's README terms:
/// alpha: 3 of 4 positives trigger ("make it shine" gets text), no negative does; of the 11 runs
/// that load alpha (3 + 3 + 2 of its positives, 3 of beta's "alpha the words") 8 are its own.
/// beta: only "beta check this" of 3 triggers; "compare two beta runs" loads gamma (a
/// confusion), "run the glob tool" calls glob (a miss); 6 runs load beta, 3 of them its own.
/// gamma: its positive triggers, "zap it" too (a false trigger); 9 runs load it, 3 its own.
fn expected() -> Vec<Numbers> {
    let n = |name: &str, p, ng, r, pr, f, c: &[(&str, u32)]| {
        (
            name.to_owned(),
            p,
            ng,
            Some(r),
            Some(pr),
            Some(f),
            c.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        )
    };
    vec![
        n("alpha", 4, 2, 0.75, 0.7273, 0.0, &[]),
        n("beta", 3, 1, 0.3333, 0.5, 0.0, &[("gamma", 1)]),
        n("gamma", 1, 2, 1.0, 0.3333, 0.5, &[]),
    ]
}

#[tokio::test]
async fn the_numbers_are_those_the_routes_imply_in_both_formats_streamed_and_not() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        for stream in [false, true] {
            let model = RoutingModel::start(routes(), Reply::Text).await;
            let agent = agent(provider(wire, &model.url()), &ROUTES, stream);
            let mut seen = Vec::new();
            let report = eval::run(&agent, &EvalOptions::default(), |p| {
                seen.push((p.done, p.total, p.cached))
            })
            .await
            .unwrap();
            let what = format!("{wire:?}, stream {stream}");
            assert_eq!(numbers(&report), expected(), "{what}");
            assert_eq!(
                (report.requests, report.cached, report.errors),
                (39, 0, 0),
                "{what}"
            );
            assert_eq!(
                (report.tokens.input, report.tokens.output),
                (3900, 390),
                "{what}"
            );
            assert_eq!(model.count().await, 39, "{what}");
            assert_eq!(seen.len(), 39);
            assert_eq!(seen.last(), Some(&(39, 39, false)));
            let case = |query: &str| report.cases.iter().find(|c| c.query == query).unwrap();
            let sometimes = case("sometimes this works");
            assert_eq!(sometimes.trigger_rate, 0.6667);
            assert_eq!(
                sometimes
                    .loaded
                    .iter()
                    .map(|(k, v)| (k.as_str(), *v))
                    .collect::<Vec<_>>(),
                [("alpha", 2), ("none", 1)]
            );
            assert!(sometimes.pass, "2 of 3 runs reach the threshold 0.5");
            assert!(!case("make it shine").pass && !case("zap it").pass);
            assert!(
                case("alpha the words").pass,
                "beta's negative loads alpha: a pass for beta"
            );
            assert_eq!(report.cases.iter().filter(|c| !c.pass).count(), 4);
            assert_eq!(report.verdict(), Verdict::Pass, "no gate, no error");
            assert_eq!(report.provider, agent.provider().name());
        }
    }
}

#[tokio::test]
async fn a_higher_threshold_and_one_skill_at_a_time() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let agent = agent(provider(Wire::OpenAi, &model.url()), &ROUTES, false);
    let options = EvalOptions {
        threshold: 0.7,
        isolated: true,
        ..EvalOptions::default()
    };
    let report = eval::run(&agent, &options, |_| {}).await.unwrap();
    assert!(report.isolated);
    let alpha = report.skill("alpha").unwrap();
    assert_eq!(alpha.recall, Some(0.5), "2 of 3 runs is under 0.7");
    // Each skill's cases were asked with that skill alone in the catalog.
    for body in model.bodies().await {
        let query = last_user_text(&body);
        let owner = ["alpha", "beta", "gamma"]
            .into_iter()
            .find(|name| {
                ROUTES
                    .get(name)
                    .unwrap()
                    .trigger_cases()
                    .iter()
                    .any(|c| c.query == query)
            })
            .unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains(&format!("- {owner}: ")), "{query}");
        assert_eq!(system.matches("\n- ").count(), 1, "{system}");
    }
}

/// The body of the first request `agent.run` sends for `query`.
async fn first_request_of_a_run(agent: &Agent, model: &RoutingModel, query: &str) -> Vec<u8> {
    let before = model.count().await;
    let mut session = agent.session();
    // The mock answers text for an unrouted query, so the run is one request.
    let _ = agent.run(&mut session, query).await;
    model.raw_bodies().await[before].clone()
}

#[tokio::test]
async fn each_request_is_exactly_the_first_request_of_the_agents_own_run() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let model = RoutingModel::start(routes(), Reply::Text).await;
        let provider = provider(wire, &model.url());
        for (isolated, stream) in [(false, false), (true, true)] {
            let agent = agent(Arc::clone(&provider), &ROUTES, stream);
            let options = EvalOptions {
                runs: 1,
                isolated,
                ..EvalOptions::default()
            };
            let before = model.count().await;
            eval::run(&agent, &options, |_| {}).await.unwrap();
            let sent = model.raw_bodies().await.split_off(before);
            assert_eq!(sent.len(), 13);
            let query = "make it shine";
            let asked = sent
                .iter()
                .find(|body| {
                    last_user_text(&serde_json::from_slice::<Value>(body).unwrap()) == query
                })
                .unwrap()
                .clone();
            // The agent a person would run: the whole bundle, or alpha's alone.
            let runner = if isolated {
                Agent::builder(Arc::clone(&provider))
                    .skills(ROUTES.restrict(["alpha"]).unwrap())
                    .stream(stream)
                    .build()
                    .unwrap()
            } else {
                agent
            };
            let own = first_request_of_a_run(&runner, &model, query).await;
            assert_eq!(
                String::from_utf8(asked).unwrap(),
                String::from_utf8(own).unwrap(),
                "{wire:?} isolated {isolated}"
            );
        }
    }
}

#[tokio::test]
async fn a_second_run_is_answered_by_the_cache() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let agent = agent(provider(Wire::Anthropic, &model.url()), &ROUTES, false);
    let dir = tempfile::tempdir().unwrap();
    let options = EvalOptions {
        cache_dir: Some(dir.path().join("cache")),
        endpoint: model.url(),
        ..EvalOptions::default()
    };
    let first = eval::run(&agent, &options, |_| {}).await.unwrap();
    assert_eq!(model.count().await, 39);
    let mut cached = Vec::new();
    let second = eval::run(&agent, &options, |p| cached.push(p.cached))
        .await
        .unwrap();
    assert_eq!(model.count().await, 39, "nothing was sent");
    assert_eq!((second.requests, second.cached), (0, 39));
    assert_eq!(second.tokens.input, 0, "a cached answer costs nothing now");
    assert!(cached.iter().all(|&c| c));
    assert_eq!(numbers(&second), numbers(&first));
    assert_eq!(second.cases, first.cases);
    // Free answers do not count against the limit.
    let limited = EvalOptions {
        max_requests: Some(0),
        ..options.clone()
    };
    assert!(eval::run(&agent, &limited, |_| {}).await.is_ok());
    // Another endpoint, another model: asked again.
    let elsewhere = EvalOptions {
        endpoint: "http://127.0.0.1:1".into(),
        ..options.clone()
    };
    let third = eval::run(&agent, &elsewhere, |_| {}).await.unwrap();
    assert_eq!((third.requests, third.cached), (39, 0));
    // More runs ask only the new ones.
    let more = EvalOptions { runs: 4, ..options };
    let fourth = eval::run(&agent, &more, |_| {}).await.unwrap();
    assert_eq!((fourth.requests, fourth.cached), (13, 39));
}

#[tokio::test]
async fn the_request_limit_is_checked_before_anything_is_sent() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let agent = agent(provider(Wire::OpenAi, &model.url()), &ROUTES, false);
    let options = EvalOptions {
        max_requests: Some(38),
        ..EvalOptions::default()
    };
    let error = eval::run(&agent, &options, |_| {}).await.unwrap_err();
    assert!(
        matches!(
            error,
            EvalError::TooManyRequests {
                needed: 39,
                max: 38,
                cached: 0
            }
        ),
        "{error}"
    );
    assert!(
        error.to_string().contains("need 39 model requests"),
        "{error}"
    );
    assert_eq!(model.count().await, 0);
    let exact = EvalOptions {
        max_requests: Some(39),
        ..EvalOptions::default()
    };
    assert_eq!(
        eval::run(&agent, &exact, |_| {}).await.unwrap().requests,
        39
    );
}

#[tokio::test]
async fn a_429_is_retried_after_the_delay_it_asks_for() {
    let mut routes = routes();
    routes.insert(
        0,
        (
            "paragraph",
            Reply::LimitedOnce(7, Box::new(Reply::Load("alpha"))),
        ),
    );
    let model = RoutingModel::start(routes, Reply::Text).await;
    let (provider, delays) = skills_test_support::anthropic(&model.url());
    let agent = agent(Arc::new(provider), &ROUTES, false);
    let report = eval::run(&agent, &EvalOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(numbers(&report), expected());
    assert_eq!(model.count().await, 40, "39 and the one retried");
    assert_eq!(*delays.lock().unwrap(), [std::time::Duration::from_secs(7)]);
}

#[tokio::test]
async fn a_malformed_reply_is_an_error_not_no_skill() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        for stream in [false, true] {
            let mut routes = routes();
            routes.insert(0, ("gamma", Reply::NoName));
            routes.insert(0, ("nothing", Reply::Garbage));
            let model = RoutingModel::start(routes, Reply::Text).await;
            let agent = agent(provider(wire, &model.url()), &ROUTES, stream);
            let report = eval::run(&agent, &EvalOptions::default(), |_| {})
                .await
                .unwrap();
            let what = format!("{wire:?}, stream {stream}");
            assert_eq!(report.errors, 6, "{what}");
            assert_eq!(report.verdict(), Verdict::Errors);
            assert_eq!(report.verdict().exit_code(), 2);
            for query in ["gamma please", "nothing here"] {
                let case = report.cases.iter().find(|c| c.query == query).unwrap();
                assert_eq!(case.errors, 3, "{what}: {query}");
                assert!(case.loaded.is_empty(), "{what}: not counted as no skill");
                assert!(!case.pass);
                assert!(case.error.is_some());
            }
            let gamma = report.skill("gamma").unwrap();
            assert_eq!(gamma.recall, Some(0.0), "{what}");
            let table = report.render(Format::Table);
            assert!(
                table.contains("load_skill was called without a string `name`"),
                "{table}"
            );
            assert!(table.contains("malformed response"), "{table}");
        }
    }
}

#[tokio::test]
async fn a_failing_provider_stops_the_run() {
    let server = skills_test_support::api_mock::ApiMock::repeating(
        skills_test_support::api_mock::json_reply(
            401,
            &serde_json::json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        ),
    )
    .await;
    let agent = agent(provider(Wire::Anthropic, &server.url()), &ROUTES, false);
    let error = eval::run(&agent, &EvalOptions::default(), |_| {})
        .await
        .unwrap_err();
    let EvalError::Agent(error) = error else {
        panic!("{error}");
    };
    assert!(
        error.api().is_some_and(|e| e.is_authentication()),
        "{error}"
    );
    assert!(
        server.requests().await.len() <= 4,
        "stopped at the first failures"
    );
}

#[tokio::test]
async fn a_registry_without_its_cases_cannot_be_evaluated() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let agent = agent(provider(Wire::OpenAi, &model.url()), &NOT_EMBEDDED, false);
    let error = eval::run(&agent, &EvalOptions::default(), |_| {})
        .await
        .unwrap_err();
    assert!(matches!(error, EvalError::NotEmbedded), "{error}");
    assert!(error.to_string().contains("embed_evals = true"));
    let bad = EvalOptions {
        threshold: 1.5,
        ..EvalOptions::default()
    };
    let agent = Agent::builder(provider(Wire::OpenAi, &model.url()))
        .skills(&ROUTES)
        .build()
        .unwrap();
    assert!(matches!(
        eval::run(&agent, &bad, |_| {}).await,
        Err(EvalError::Options(_))
    ));
    assert_eq!(model.count().await, 0);
}

#[tokio::test]
async fn gates_fail_on_low_recall_low_precision_and_regressions() {
    let model = RoutingModel::start(routes(), Reply::Text).await;
    let agent = agent(provider(Wire::OpenAi, &model.url()), &ROUTES, false);
    let report = eval::run(&agent, &EvalOptions::default(), |_| {})
        .await
        .unwrap();

    let mut passing = report.clone();
    let gates = Gates {
        min_recall: Some(0.3),
        min_precision: Some(0.3),
        ..Gates::default()
    };
    assert!(passing.check(&gates).is_empty());
    assert_eq!(passing.verdict(), Verdict::Pass);
    assert_eq!(passing.verdict().exit_code(), 0);

    // An earlier report in which "make it shine" passed.
    let mut earlier: Value = serde_json::from_str(&report.render(Format::Json)).unwrap();
    for case in earlier["cases"].as_array_mut().unwrap() {
        if case["query"] == "make it shine" {
            case["pass"] = Value::Bool(true);
        }
    }
    let baseline = Baseline::from_json(&earlier.to_string()).unwrap();
    assert_eq!(baseline.len(), 10);
    let mut failing = report.clone();
    let failures = failing
        .check(&Gates {
            min_recall: Some(0.5),
            min_precision: Some(0.4),
            baseline: Some(baseline),
        })
        .to_vec();
    assert_eq!(
        failures,
        [
            GateFailure::MinRecall {
                skill: "beta".into(),
                recall: 0.3333,
                min: 0.5
            },
            GateFailure::MinPrecision {
                skill: "gamma".into(),
                precision: 0.3333,
                min: 0.4
            },
            GateFailure::Regressed {
                skill: "alpha".into(),
                query: "make it shine".into()
            },
        ]
    );
    assert_eq!(failing.verdict(), Verdict::GateFailed);
    assert_eq!(failing.verdict().exit_code(), 1);
    // The JSON report says which gates were checked and what failed them, and reads back.
    let json: Value = serde_json::from_str(&failing.render(Format::Json)).unwrap();
    assert_eq!(json["gates"]["failures"][0]["gate"], "min_recall");
    assert_eq!(json["gates"]["baseline_passed"], 10);
    let read: Report = serde_json::from_value(json).unwrap();
    assert_eq!(read, failing);
}

#[test]
fn outcomes_read_as_the_first_call_decides() {
    assert_eq!(Outcome::NoSkill(None).to_string(), "no skill");
    assert_eq!(Outcome::Loaded("a".into()).loaded(), Some("a"));
}

/// A reply that lists files first and loads alpha second: no skill by the first call, alpha by
/// the first reply; the report names the rule, and the cache keeps the two apart.
#[tokio::test]
async fn the_first_reply_rule_counts_a_later_load() {
    let message = skills_test_support::anthropic_message(
        serde_json::json!([
            {"type": "text", "text": "Looking around first."},
            {"type": "tool_use", "id": "toolu_01", "name": "glob", "input": {"pattern": "**/*"}},
            {"type": "tool_use", "id": "toolu_02", "name": "load_skill", "input": {"name": "alpha"}}
        ]),
        "tool_use",
        100,
        10,
    );
    let server = skills_test_support::api_mock::ApiMock::repeating(
        skills_test_support::api_mock::json_reply(200, &message),
    )
    .await;
    let agent = agent(provider(Wire::Anthropic, &server.url()), &ROUTES, false);
    let cache = tempfile::tempdir().unwrap();
    let options = |rule| EvalOptions {
        runs: 1,
        rule,
        cache_dir: Some(cache.path().to_owned()),
        ..EvalOptions::default()
    };
    let first_call = eval::run(&agent, &options(TriggerRule::FirstCall), |_| {})
        .await
        .unwrap();
    assert_eq!(first_call.rule, TriggerRule::FirstCall);
    assert_eq!(first_call.skill("alpha").unwrap().recall, Some(0.0));
    assert!(
        first_call
            .render(Format::Table)
            .contains("the first tool call decides")
    );
    let first_reply = eval::run(&agent, &options(TriggerRule::FirstReply), |_| {})
        .await
        .unwrap();
    assert_eq!(first_reply.rule, TriggerRule::FirstReply);
    assert_eq!(first_reply.skill("alpha").unwrap().recall, Some(1.0));
    assert_eq!(
        first_reply.cached, 0,
        "an answer judged by the other rule is not reused"
    );
    assert!(
        first_reply
            .render(Format::Markdown)
            .contains("any load_skill call of the first reply decides")
    );
    let json: Value = serde_json::from_str(&first_reply.render(Format::Json)).unwrap();
    assert_eq!(json["rule"], "first_reply");
}
