//! `skills eval --tasks` as a program against the scripted model of
//! `skills_test_support::task_model`: every format and the gates' exit codes,
//! malformed task files, the cache across an edit, shards joined by `skills eval merge`, and the
//! previous version of an upgraded skill from a folder, a git revision and the lock.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{Wire, eval_at, workspace};
use crate::support::{Run, skills_in};
use skills_test_support::task_model::{Grading, Step, TaskModel, system_text, tool_names};

const FIXTURE: &str = "skills-test-support/fixtures/task-evals";

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

/// `skills eval --tasks --runs 2 --max-turns 5 ARGS` in `dir`.
async fn tasks_in(dir: &Path, model: &TaskModel, wire: Wire, args: &[&str]) -> Run {
    let mut all = vec!["--tasks", "--runs", "2", "--max-turns", "5"];
    all.extend(args);
    eval_at(dir, &model.url(), wire, &all).await
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr))
}

#[tokio::test(flavor = "multi_thread")]
async fn task_evals_in_every_format_and_the_gates_exit_codes() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let model = TaskModel::start(routes(), Grading::AllPass).await;
        let run = tasks_in(
            &workspace(),
            &model,
            wire,
            &[FIXTURE, "--format", "json", "--no-cache"],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report = json(&run);
        let skill = |name: &str| {
            report["skills"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .unwrap()
                .clone()
        };
        assert_eq!(skill("alpha")["with_skill"]["pass_rate"]["mean"], 1.0);
        assert_eq!(skill("alpha")["without_skill"]["pass_rate"]["mean"], 0.5);
        assert_eq!(skill("alpha")["delta"]["pass_rate"], 0.5);
        assert_eq!(skill("beta")["delta"]["pass_rate"], 1.0);
        assert_eq!(report["requests"], 22);
        assert_eq!(report["run_summary"]["delta"]["pass_rate"], 0.4167);
        // bash ran in the sandbox this binary builds.
        assert!(
            report["sandbox"].as_str().unwrap().starts_with("sandboxed"),
            "{}",
            report["sandbox"]
        );
        // A line per run on stderr.
        assert_eq!(
            run.stderr.lines().filter(|l| l.starts_with('[')).count(),
            12
        );
    }
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let dir = workspace();
    for (format, needle) in [
        ("table", "alpha      2    1.00±0.00 / 0.50±0.58   +0.50"),
        ("markdown", "| alpha | 2 | 1.00±0.00 / 0.50±0.58 | +0.50 |"),
        (
            "junit",
            "<testsuite name=\"alpha\" tests=\"2\" failures=\"0\" errors=\"0\">",
        ),
        (
            "html",
            "data-skill=\"alpha\" data-metric=\"uplift\">+0.50</span>",
        ),
    ] {
        let run = tasks_in(
            &dir,
            &model,
            Wire::OpenAi,
            &[FIXTURE, "--format", format, "--no-cache"],
        )
        .await;
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert!(
            run.stdout.contains(needle),
            "{format}: {needle} not in\n{}",
            run.stdout
        );
    }
    // Gates: exit 1 on a failed one, 0 when all pass.
    let gated = tasks_in(
        &dir,
        &model,
        Wire::OpenAi,
        &[FIXTURE, "--no-cache", "--min-uplift", "0.75"],
    )
    .await;
    assert_eq!(gated.code, 1, "{}", gated.stdout);
    assert!(
        gated
            .stdout
            .contains("uplift of alpha is 0.5, under the minimum 0.75")
    );
    let passing = tasks_in(
        &dir,
        &model,
        Wire::OpenAi,
        &[
            FIXTURE,
            "--no-cache",
            "--min-pass-rate",
            "1",
            "--min-uplift",
            "0.5",
        ],
    )
    .await;
    assert_eq!(passing.code, 0, "{}", passing.stdout);
    // A grader reply that cannot be read: exit 2.
    let unreadable = TaskModel::start(routes(), Grading::Unreadable).await;
    let errors = tasks_in(&dir, &unreadable, Wire::OpenAi, &[FIXTURE, "--no-cache"]).await;
    assert_eq!(errors.code, 2, "{}", errors.stdout);
    assert!(errors.stdout.contains("ERROR: some runs were errors"));
    // html is a format of task reports only.
    let trigger_html = eval_at(
        &dir,
        &model.url(),
        Wire::OpenAi,
        &[FIXTURE, "--format", "html"],
    )
    .await;
    assert_eq!(trigger_html.code, 2);
    assert!(
        trigger_html
            .stderr
            .contains("is for task reports (--tasks)"),
        "{}",
        trigger_html.stderr
    );
}

#[test]
fn malformed_task_files_are_reported_by_check_at_their_place() {
    for (fixture, code, place) in [
        (
            "tasks-syntax",
            "tasks-syntax",
            "notes/evals/evals.json:2:46",
        ),
        (
            "task-unknown-key",
            "task-unknown-key",
            "notes/evals/evals.json:2:48",
        ),
        (
            "task-duplicate-id",
            "task-duplicate-id",
            "notes/evals/evals.json:3:10",
        ),
        (
            "task-file-missing",
            "task-file-missing",
            "notes/evals/evals.json:2:55",
        ),
        (
            "task-file-outside",
            "task-file-outside",
            "notes/evals/evals.json:2:55",
        ),
        (
            "task-wrong-type",
            "task-wrong-type",
            "notes/evals/evals.json:2:10",
        ),
        (
            "task-bad-check",
            "task-bad-check",
            "notes/evals/evals.json:2:97",
        ),
        (
            "task-unknown-skill",
            "task-unknown-skill",
            "notes/evals/evals.json:2:74",
        ),
    ] {
        let run = skills_in(
            &workspace(),
            &["check", &format!("skills-test-support/fixtures/{fixture}")],
        );
        assert_eq!(run.code, 1, "{fixture}: {}", run.stdout);
        assert!(
            run.stdout.contains(&format!("[skills::{code}]")),
            "{fixture}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains(place),
            "{fixture}: {place} not in {}",
            run.stdout
        );
    }
}

/// A copy of the fixture in a temporary folder, to edit.
fn copy_of_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join(FIXTURE), &dir.path().join("skills"));
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn requests_and_cached(run: &Run) -> (u64, u64) {
    let report = json(run);
    (
        report["requests"].as_u64().unwrap(),
        report["cached"].as_u64().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cache_reruns_only_what_an_edit_changes() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let dir = copy_of_fixture();
    let args = ["--format", "json"];
    let first = tasks_in(dir.path(), &model, Wire::OpenAi, &args).await;
    assert_eq!(requests_and_cached(&first), (22, 0), "{}", first.stderr);
    let again = tasks_in(dir.path(), &model, Wire::OpenAi, &args).await;
    assert_eq!(requests_and_cached(&again), (0, 12));
    assert_eq!(model.count().await, 22, "the second eval sent nothing");
    // beta's body: only the runs that loaded beta (case 7 with the skill, 2 runs of 2 turns).
    let skill = dir.path().join("skills/beta/SKILL.md");
    fs::write(
        &skill,
        fs::read_to_string(&skill)
            .unwrap()
            .replace("Answer \"done kappa\".", "Answer briefly."),
    )
    .unwrap();
    let edited = tasks_in(dir.path(), &model, Wire::OpenAi, &args).await;
    assert_eq!(requests_and_cached(&edited), (4, 10));
    // A case of alpha: only that case, in both configurations (2 x 2 runs of 1 turn).
    let cases = dir.path().join("skills/alpha/evals/evals.json");
    fs::write(
        &cases,
        fs::read_to_string(&cases)
            .unwrap()
            .replace("omega: say done", "omega: say done now"),
    )
    .unwrap();
    let edited = tasks_in(dir.path(), &model, Wire::OpenAi, &args).await;
    assert_eq!(requests_and_cached(&edited), (4, 8));
}

#[tokio::test(flavor = "multi_thread")]
async fn shards_joined_by_merge_give_the_whole_report() {
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let dir = copy_of_fixture();
    let mut files = Vec::new();
    for shard in ["1/2", "2/2"] {
        let run = tasks_in(
            dir.path(),
            &model,
            Wire::OpenAi,
            &["--format", "json", "--shard", shard],
        )
        .await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        let file = dir.path().join(format!("shard-{}.json", &shard[..1]));
        fs::write(&file, &run.stdout).unwrap();
        files.push(file);
    }
    let whole = json(&tasks_in(dir.path(), &model, Wire::OpenAi, &["--format", "json"]).await);
    let merged = skills_in(
        dir.path(),
        &[
            "eval",
            "merge",
            "shard-1.json",
            "shard-2.json",
            "--format",
            "json",
            "--min-uplift",
            "0.5",
        ],
    );
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let merged = json(&merged);
    for field in ["skills", "cases", "run_summary", "metadata"] {
        assert_eq!(merged[field], whole[field], "{field}");
    }
    assert_eq!(merged["shards"], serde_json::json!(["1/2", "2/2"]));
    assert_eq!(merged["gates"]["failures"], serde_json::json!([]));
    // A gate that fails after the merge exits 1; a report that is not JSON exits 2.
    let gated = skills_in(
        dir.path(),
        &[
            "eval",
            "merge",
            "shard-1.json",
            "shard-2.json",
            "--min-uplift",
            "0.9",
        ],
    );
    assert_eq!(gated.code, 1);
    fs::write(dir.path().join("bad.json"), "{").unwrap();
    let bad = skills_in(dir.path(), &["eval", "merge", "bad.json"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("report bad.json"), "{}", bad.stderr);
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

/// The descriptions of alpha the baseline's agent requests showed.
async fn baseline_descriptions(model: &TaskModel) -> Vec<String> {
    let mut seen: Vec<String> = model
        .bodies()
        .await
        .iter()
        .filter(|b| !tool_names(b).contains(&"grade".to_owned()))
        .filter_map(|b| {
            let system = system_text(b);
            let line = system
                .lines()
                .find(|l| l.starts_with("- alpha: "))?
                .to_owned();
            Some(line)
        })
        .collect();
    seen.sort();
    seen.dedup();
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upgraded_skill_is_compared_with_its_previous_version() {
    let dir = copy_of_fixture();
    let root = dir.path();
    // The reviewed version: locked and committed.
    let lock = skills_in(root, &["lock"]);
    assert_eq!(lock.code, 0, "{}", lock.stderr);
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "reviewed"]);
    // The upgrade, not yet reviewed.
    let skill = root.join("skills/alpha/SKILL.md");
    let upgraded = fs::read_to_string(&skill).unwrap().replace(
        "Alpha works zeta tasks.",
        "Alpha 2 works zeta tasks better.",
    );
    fs::write(&skill, upgraded).unwrap();
    let reviewed = "- alpha: Alpha works zeta tasks. Use for zeta.".to_owned();
    let current = "- alpha: Alpha 2 works zeta tasks better. Use for zeta.".to_owned();
    let old_folder: PathBuf = root.join("old");
    copy_dir(&workspace().join(FIXTURE), &old_folder);
    for previous in ["lock:skills.lock", "git:HEAD", "old"] {
        let model = TaskModel::start(routes(), Grading::AllPass).await;
        let run = tasks_in(
            root,
            &model,
            Wire::OpenAi,
            &[
                "--format",
                "json",
                "--no-cache",
                "--shard",
                "1/3",
                "--previous",
                previous,
            ],
        )
        .await;
        assert_eq!(run.code, 0, "{previous}: {}", run.stderr);
        let report = json(&run);
        assert!(
            report["baseline"]
                .as_str()
                .unwrap()
                .starts_with("previous version ("),
            "{}",
            report["baseline"]
        );
        // The current version with the skill, the reviewed one as the baseline.
        assert_eq!(
            baseline_descriptions(&model).await,
            [current.clone(), reviewed.clone()],
            "{previous}"
        );
        assert_eq!(report["cases"][0]["delta"]["pass_rate"], 0.0, "{previous}");
    }
    // A lock that reviewed nothing of the kind cannot be followed.
    fs::write(
        root.join("other.lock"),
        "0000000000000000000000000000000000000000000000000000000000000000  skills/alpha/SKILL.md\n",
    )
    .unwrap();
    let model = TaskModel::start(routes(), Grading::AllPass).await;
    let run = tasks_in(
        root,
        &model,
        Wire::OpenAi,
        &["--no-cache", "--previous", "lock:other.lock"],
    )
    .await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no commit of `skills/alpha` holds the files the lock reviewed"),
        "{}",
        run.stderr
    );
    assert_eq!(model.count().await, 0);
}
