//! `Registry::invoke`: a person's `/name arguments` on Claude Code skills, on the whole bundle
//! and on a restricted view, with typed refusals.

use skills_runtime::InvokeError;

use crate::registries::CLAUDE_CODE as SKILLS;

#[test]
fn named_positional_and_whole_arguments_are_substituted() {
    let text = SKILLS.invoke("fix-issue", "  123 high ").unwrap();
    assert!(
        text.starts_with("<skill name=\"fix-issue\">\nFix issue 123 (priority high) following"),
        "{text}"
    );
    assert!(text.contains("`gh issue view 123`"), "{text}");
    assert!(text.ends_with("open a pull request.\n</skill>"), "{text}");
    // The whole argument text, as typed.
    let explained = SKILLS.invoke("explain-code", "src/lib.rs").unwrap();
    assert!(
        explained.contains("Explain src/lib.rs: start"),
        "{explained}"
    );
    // The model may not load `deploy`, but a person may invoke it.
    assert!(!SKILLS.get("deploy").unwrap().model_invocable());
    let deploy = SKILLS.invoke("deploy", "staging").unwrap();
    assert!(deploy.contains("Deploy staging to production:"), "{deploy}");
}

#[test]
fn refusals_are_typed_and_suggest_a_name() {
    let error = SKILLS.invoke("fix-isue", "1").unwrap_err();
    assert!(error.is_unknown());
    assert_eq!(error.suggestion(), Some("fix-issue"));
    let text = error.to_string();
    assert!(text.contains("Did you mean \"fix-issue\"?"), "{text}");
    // Only skills a person may invoke are offered.
    let InvokeError::Unknown(unknown) = &error else {
        panic!("{error:?}")
    };
    assert!(!unknown.available().contains(&"code-review"));
    assert!(unknown.available().contains(&"deploy"));

    let error = SKILLS.invoke("code-review", "").unwrap_err();
    assert_eq!(
        error,
        InvokeError::NotUserInvocable {
            name: "code-review"
        }
    );
    assert!(
        error.to_string().contains("user-invocable: false"),
        "{error}"
    );
    assert!(std::error::Error::source(&error).is_none());
}

#[test]
fn a_restricted_view_invokes_its_own_skills_only() {
    let view = SKILLS.restrict(["explain-code", "code-review"]).unwrap();
    assert!(view.invoke("explain-code", "x").is_ok());
    let error = view.invoke("fix-issue", "1").unwrap_err();
    let InvokeError::Unknown(unknown) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(unknown.available(), ["explain-code"]);
    assert!(matches!(
        view.invoke("code-review", ""),
        Err(InvokeError::NotUserInvocable { .. })
    ));
}
