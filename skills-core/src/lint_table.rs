//! The lint table: every lint described once, apart from the code that uses it, so that the
//! lints (`lint.rs`) and the diagnostic codes (`diagnostic.rs`) both read it without either
//! importing the other. It names check functions by their bare names; they resolve where
//! the table is expanded, in `lint.rs`.

/// The lint table: one row per lint, and the only place a lint is described. A new lint is a
/// row here and a check function. Each row holds the variant (with its doc), then:
///
/// - `name`: the option and flag name (`long_body`); its diagnostic code is the same words in
///   kebab case (`long-body`), derived from it;
/// - `level`: the default level in the strict dialect (the default one; the docs show it);
/// - `claude_code`: the default level under `compat = "claude-code"`;
/// - `check`: the function that finds it: `skill(f)` runs on each skill, `bundle(f)` on every
///   skill at once, `references(f)` is a rule the bundle runs anyway, which finds this lint on
///   the way (and must have the signature `fn(&SkillDef, &LintOptions) -> Vec<Diagnostic>`);
///   `skill` and `bundle` functions are handed a [`Check`](crate::lint::Check);
/// - `summary`: what it reports, in a few words (help texts and the options tables).
///
/// `lint_table!(callback [tokens]...)` expands to `callback! { [tokens]... rows }`: the enum
/// and its dispatch (`define_lints!`) and the lints' diagnostic codes (`codes!`) are built by
/// such callbacks; the options table takes a row per lint from [`Lint::ALL`](crate::lint::Lint::ALL).
macro_rules! lint_table {
    ($callback:ident $([$($extra:tt)*])*) => {
        $callback! {
            $([$($extra)*])*
            /// Body over [`MAX_BODY_LINES`] lines or [`MAX_BODY_TOKENS`] estimated tokens.
            LongBody {
                name: "long_body",
                level: Warn,
                claude_code: Warn,
                check: skill(long_body),
                summary: "a body over 500 lines or about 5,000 tokens",
            }
            /// Two descriptions so alike the model may pick the wrong skill.
            SimilarDescriptions {
                name: "similar_descriptions",
                level: Warn,
                claude_code: Warn,
                check: bundle(similar_descriptions),
                summary: "two descriptions so alike that the model may pick the wrong skill",
            }
            /// Text that tries to override the system prompt ("ignore previous instructions").
            PromptOverride {
                name: "prompt_override",
                level: Warn,
                claude_code: Warn,
                check: skill(prompt_override),
                summary: "text that tries to override the system prompt (\"ignore previous instructions\")",
            }
            /// Absolute URLs to hosts outside `allowed_hosts`.
            ExternalUrls {
                name: "external_urls",
                level: Allow,
                claude_code: Allow,
                check: skill(external_urls),
                summary: "links to hosts outside `allowed_hosts`",
            }
            /// Nothing after the frontmatter: the spec allows it, but the skill then teaches nothing.
            EmptyBody {
                name: "empty_body",
                level: Warn,
                claude_code: Warn,
                check: skill(empty_body),
                summary: "a skill with no instructions after the frontmatter",
            }
            /// A `name` outside ASCII, for teams whose tools only take ASCII names.
            AsciiNames {
                name: "ascii_names",
                level: Allow,
                claude_code: Allow,
                check: skill(ascii_names),
                summary: "a `name` with characters outside ASCII (`café`, `数据-分析`)",
            }
            /// A skill without trigger cases (`evals/triggers.json`): nothing checks that the model
            /// loads it when it should.
            MissingTriggerCases {
                name: "missing_trigger_cases",
                level: Allow,
                claude_code: Allow,
                check: skill(missing_trigger_cases),
                summary: "a skill with no trigger cases in `evals/triggers.json`",
            }
            /// A path in a code span (`` `scripts/fill.py` ``) that names no file of the skill.
            ///
            /// A path the body names must be there, as a link's must: strict mode stays strict.
            /// Claude Code's skills about writing skills name example paths
            /// (`` `scripts/rotate_pdf.py` ``) in their prose, and Claude Code loads them: only a
            /// warning in its dialect.
            DanglingCodePath {
                name: "dangling_code_path",
                level: Deny,
                claude_code: Warn,
                check: references(check_references),
                summary: "a path in a code span that names no file of the skill (`\"warn\"` by default \
                          with `compat = \"claude-code\"`)",
            }
            /// A frontmatter key outside what hosted uploads (claude.ai, the Anthropic and OpenAI
            /// Skills APIs) accept.
            Portable {
                name: "portable",
                level: Allow,
                claude_code: Allow,
                check: skill(portable),
                summary: "a frontmatter key that hosted uploads (claude.ai, the Anthropic and OpenAI \
                          Skills APIs) refuse (any but `name`, `description`, `license`, \
                          `compatibility`, `metadata`, `allowed-tools`), or a boolean written as a word \
                          only Claude Code reads as one (`yes`, `off`, `1`)",
            }
            /// A skill over the MCP Skills extension's per-skill limits.
            McpLimits {
                name: "mcp_limits",
                level: Warn,
                claude_code: Warn,
                check: skill(mcp_limits),
                summary: "a skill over the MCP Skills extension's limits of 512 files or 16 MiB",
            }
        }
    };
}
pub(crate) use lint_table;
