//! A provider chosen from the environment, the one way the example agent and the `skills`
//! command choose it: `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` for Anthropic,
//! `OPENAI_API_KEY` and `OPENAI_BASE_URL` for OpenAI or a compatible local server, `MODEL_ID`
//! for the model when none is given.

use std::fmt;
use std::sync::Arc;

use super::anthropic::{self, Anthropic};
use super::api::Provider;
use super::http::HttpOptions;
use super::openai::{self, OpenAi};
use crate::error::ApiError;
use crate::redact::is_placeholder_key;

/// The model asked of Anthropic when neither a model nor `MODEL_ID` is given.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// The model asked of an OpenAI-compatible server when neither a model nor `MODEL_ID` is given.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1-mini";

/// Which wire format to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Chat Completions, or a compatible local server.
    OpenAi,
}

impl ProviderKind {
    /// The provider the environment points at: Anthropic when `ANTHROPIC_API_KEY` is set, else
    /// OpenAI-compatible when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is; `None` when none is.
    pub fn detect(env: impl Fn(&str) -> Option<String>) -> Option<ProviderKind> {
        if env("ANTHROPIC_API_KEY").is_some() {
            Some(ProviderKind::Anthropic)
        } else if env("OPENAI_API_KEY").is_some() || env("OPENAI_BASE_URL").is_some() {
            Some(ProviderKind::OpenAi)
        } else {
            None
        }
    }

    /// `anthropic` or `openai`, as the providers name themselves.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
        }
    }
}

/// A provider made from the environment, and what it talks to.
#[derive(Clone)]
pub struct Selected {
    /// The provider.
    pub provider: Arc<dyn Provider>,
    /// Its wire format.
    pub kind: ProviderKind,
    /// The model it asks for.
    pub model: String,
    /// The base URL it sends to.
    pub base_url: String,
    /// The key set is a placeholder ([`is_placeholder_key`](crate::is_placeholder_key)): sent
    /// as given, masked nowhere. The [`Display`](fmt::Display) line says so.
    pub placeholder_key: bool,
}

impl fmt::Debug for Selected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Selected")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Selected {
    /// `anthropic, model M, URL` or `openai-compatible, model M, URL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai-compatible",
        };
        write!(f, "{kind}, model {}, {}", self.model, self.base_url)?;
        if self.placeholder_key {
            f.write_str(
                " (the API key looks like a placeholder: it is sent, but not treated as a secret)",
            )?;
        }
        Ok(())
    }
}

/// Why no provider could be made from the environment.
#[derive(Debug)]
#[non_exhaustive]
pub enum SelectError {
    /// The variables the provider needs are not set.
    Missing {
        /// The provider asked for.
        kind: ProviderKind,
    },
    /// The provider refused its settings (a key that cannot be sent in a header, a bad URL).
    Provider(ApiError),
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::Missing {
                kind: ProviderKind::Anthropic,
            } => f.write_str("--provider anthropic needs ANTHROPIC_API_KEY to be set"),
            SelectError::Missing {
                kind: ProviderKind::OpenAi,
            } => f.write_str(
                "--provider openai needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local server",
            ),
            SelectError::Provider(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SelectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelectError::Provider(error) => Some(error),
            SelectError::Missing { .. } => None,
        }
    }
}

/// An environment variable as [`select`] reads it: unset and blank are the same.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// The provider of `kind` from the variables `env` gives ([`env_var`] reads the process's):
/// the model is `model`, else `MODEL_ID`, else the kind's default; the base URL the kind's
/// variable, else the public endpoint.
pub fn select(
    kind: ProviderKind,
    model: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
    options: HttpOptions,
) -> Result<Selected, SelectError> {
    let model = |default: &str| {
        model
            .map(str::to_owned)
            .or_else(|| env("MODEL_ID"))
            .unwrap_or_else(|| default.to_owned())
    };
    let placeholder_key;
    let (provider, model, base_url): (Arc<dyn Provider>, _, _) = match kind {
        ProviderKind::Anthropic => {
            let key = env("ANTHROPIC_API_KEY").ok_or(SelectError::Missing { kind })?;
            placeholder_key = is_placeholder_key(&key);
            let base =
                env("ANTHROPIC_BASE_URL").unwrap_or_else(|| anthropic::DEFAULT_BASE_URL.into());
            let model = model(DEFAULT_ANTHROPIC_MODEL);
            let provider = Anthropic::with_options(key, &model, &base, options)
                .map_err(SelectError::Provider)?;
            (Arc::new(provider), model, base)
        }
        ProviderKind::OpenAi => {
            let key = env("OPENAI_API_KEY");
            placeholder_key = key.as_deref().is_some_and(is_placeholder_key);
            let base = env("OPENAI_BASE_URL");
            if key.is_none() && base.is_none() {
                return Err(SelectError::Missing { kind });
            }
            let base = base.unwrap_or_else(|| openai::DEFAULT_BASE_URL.into());
            let model = model(DEFAULT_OPENAI_MODEL);
            let provider =
                OpenAi::new(key, &model, &base, options).map_err(SelectError::Provider)?;
            (Arc::new(provider), model, base)
        }
    };
    Ok(Selected {
        provider,
        kind,
        model,
        base_url,
        placeholder_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_environment_decides_in_order() {
        assert_eq!(ProviderKind::detect(env(&[])), None);
        let both = [("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "a")];
        assert_eq!(
            ProviderKind::detect(env(&both)),
            Some(ProviderKind::Anthropic)
        );
        let local = [("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")];
        assert_eq!(
            ProviderKind::detect(env(&local)),
            Some(ProviderKind::OpenAi)
        );
    }

    #[test]
    fn a_placeholder_key_is_said_once_in_the_description() {
        let base = ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1");
        for key in ["ollama", "sk-no-key-required", "x"] {
            let chosen = select(
                ProviderKind::OpenAi,
                Some("m"),
                env(&[base, ("OPENAI_API_KEY", key)]),
                HttpOptions::default(),
            )
            .unwrap();
            assert!(chosen.placeholder_key, "{key}");
            assert!(!chosen.provider.redactor().is_active(), "{key}");
            assert_eq!(
                chosen
                    .to_string()
                    .matches("looks like a placeholder")
                    .count(),
                1,
                "{chosen}"
            );
        }
        let real = select(
            ProviderKind::Anthropic,
            None,
            env(&[("ANTHROPIC_API_KEY", "sk-ant-api03-0123456789abcdefghij")]),
            HttpOptions::default(),
        )
        .unwrap();
        assert!(!real.placeholder_key && real.provider.redactor().is_active());
        assert!(!real.to_string().contains("placeholder"));
        // No key at all (a local server): nothing to say.
        let none = select(
            ProviderKind::OpenAi,
            None,
            env(&[base]),
            HttpOptions::default(),
        );
        assert!(!none.unwrap().placeholder_key);
    }

    #[test]
    fn model_and_base_url_come_from_the_arguments_then_the_environment() {
        let vars = [
            ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
            ("MODEL_ID", "local-model"),
        ];
        let chosen = select(
            ProviderKind::OpenAi,
            None,
            env(&vars),
            HttpOptions::default(),
        );
        let chosen = chosen.unwrap();
        assert_eq!(chosen.model, "local-model");
        assert_eq!(chosen.provider.model(), "local-model");
        assert_eq!(chosen.provider.name(), "openai");
        assert_eq!(chosen.base_url, "http://127.0.0.1:1/v1");
        assert_eq!(
            chosen.to_string(),
            "openai-compatible, model local-model, http://127.0.0.1:1/v1"
        );
        let given = select(
            ProviderKind::OpenAi,
            Some("m"),
            env(&vars),
            HttpOptions::default(),
        );
        assert_eq!(given.unwrap().model, "m");
        let public = select(
            ProviderKind::Anthropic,
            None,
            env(&[("ANTHROPIC_API_KEY", "k")]),
            HttpOptions::default(),
        )
        .unwrap();
        assert_eq!(
            (public.model.as_str(), public.base_url.as_str()),
            (DEFAULT_ANTHROPIC_MODEL, anthropic::DEFAULT_BASE_URL)
        );
    }

    #[test]
    fn a_missing_key_says_which_variable() {
        let error = select(
            ProviderKind::Anthropic,
            None,
            env(&[]),
            HttpOptions::default(),
        );
        let message = error.unwrap_err().to_string();
        assert!(message.contains("ANTHROPIC_API_KEY"), "{message}");
        let error = select(ProviderKind::OpenAi, None, env(&[]), HttpOptions::default());
        let message = error.unwrap_err().to_string();
        assert!(message.contains("OPENAI_BASE_URL"), "{message}");
    }
}
