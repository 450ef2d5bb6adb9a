//! The answers of earlier runs, on disk: one small JSON file per request, named by the SHA-256
//! of everything the answer depends on.
//!
//! The key frames each part with its length, so no two requests share one: a version of this
//! format, the provider's name, the model, the endpoint the caller names, the system prompt, the
//! tool definitions in both wire shapes, the query and the run index. A file that cannot be read
//! or parsed is a miss, rewritten by the next answer; a write that fails is logged and the run
//! goes on (the cache only saves requests).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::outcome::Outcome;
use crate::Agent;
use crate::conversation::Usage;

/// Changes whenever what a file holds, or what the key covers, changes.
const FORMAT: &str = "skills trigger-eval cache 1";

/// Largest cache file read; an answer is a few dozen bytes.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The key of one request: a SHA-256, written as the file name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key(String);

impl Key {
    /// The key of asking `agent` `query`, run `run`, at `endpoint`, judged by `rule` (the
    /// default rule adds nothing, so the answers kept before there were rules stay valid).
    pub(crate) fn new(
        agent: &Agent,
        endpoint: &str,
        query: &str,
        run: u32,
        rule: super::outcome::TriggerRule,
    ) -> Key {
        let mut parts = vec![FORMAT.to_owned()];
        parts.extend(Key::request_parts(agent, endpoint));
        parts.push(query.to_owned());
        parts.push(run.to_string());
        if rule != super::outcome::TriggerRule::FirstCall {
            parts.push(format!("{rule:?}"));
        }
        Key::of(&parts)
    }

    /// What every request of `agent` at `endpoint` starts with: the provider, the model, the
    /// endpoint, the system prompt and the tool definitions in both wire shapes.
    pub(crate) fn request_parts(agent: &Agent, endpoint: &str) -> [String; 6] {
        let provider = agent.provider();
        let tools = agent.tool_definitions();
        [
            provider.name().to_owned(),
            provider.model().to_owned(),
            endpoint.to_owned(),
            agent.system_prompt().to_owned(),
            serde_json::to_string(tools.anthropic()).unwrap_or_default(),
            serde_json::to_string(tools.openai()).unwrap_or_default(),
        ]
    }

    /// The key as hex, the cache file's name.
    pub(crate) fn hex(&self) -> &str {
        &self.0
    }

    /// The SHA-256 of `parts`, each framed with its length so no two lists share a key.
    pub(crate) fn of(parts: &[String]) -> Key {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let digest = hasher.finalize();
        Key(digest.iter().map(|byte| format!("{byte:02x}")).collect())
    }
}

/// One answer as kept: what the model did and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Answer {
    pub(crate) outcome: Outcome,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
}

impl Answer {
    pub(crate) fn new(outcome: Outcome, usage: &Usage) -> Answer {
        Answer {
            outcome,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        }
    }
}

/// A cache folder.
pub(crate) struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir`, created if missing.
    pub(crate) fn open(dir: &Path) -> io::Result<Cache> {
        fs::create_dir_all(dir)?;
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    fn file(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.json", key.0))
    }

    /// The answer kept for `key`, if a readable one is there.
    pub(crate) fn get(&self, key: &Key) -> Option<Answer> {
        let answer: Answer = self.read(key, MAX_FILE_BYTES)?;
        // An error is never kept; a file that says so was not written here.
        (!matches!(answer.outcome, Outcome::Error(_))).then_some(answer)
    }

    /// Keeps `answer` for `key` (errors are not kept).
    pub(crate) fn put(&self, key: &Key, answer: &Answer) {
        if matches!(answer.outcome, Outcome::Error(_)) {
            return;
        }
        self.write(key, answer);
    }

    /// The value kept for `key`, if a regular file of at most `max` bytes that parses is there.
    pub(crate) fn read<T: serde::de::DeserializeOwned>(&self, key: &Key, max: u64) -> Option<T> {
        let file = self.file(key);
        let metadata = fs::symlink_metadata(&file).ok()?;
        if !metadata.is_file() || metadata.len() > max {
            return None;
        }
        serde_json::from_slice(&fs::read(&file).ok()?).ok()
    }

    /// Keeps `value` for `key`, through a temporary file renamed into place so a reader never
    /// sees half a file; a failure is logged (the cache only saves requests).
    pub(crate) fn write<T: Serialize>(&self, key: &Key, value: &T) {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let file = self.file(key);
        let temporary = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            key.0,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let written = serde_json::to_vec(value)
            .map_err(io::Error::other)
            .and_then(|bytes| fs::write(&temporary, bytes))
            .and_then(|()| fs::rename(&temporary, &file));
        if let Err(error) = written {
            let _ = fs::remove_file(&temporary);
            tracing::warn!(file = %file.display(), %error, "eval: cannot write to the cache");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip_and_errors_are_never_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("new/folder")).unwrap();
        let key = Key("ab".repeat(32));
        assert_eq!(cache.get(&key), None);
        let answer = Answer {
            outcome: Outcome::Loaded("alpha".into()),
            input_tokens: 10,
            output_tokens: 2,
        };
        cache.put(&key, &answer);
        assert_eq!(cache.get(&key), Some(answer));
        let other = Key("cd".repeat(32));
        cache.put(
            &other,
            &Answer {
                outcome: Outcome::Error("bad".into()),
                input_tokens: 0,
                output_tokens: 0,
            },
        );
        assert_eq!(cache.get(&other), None);
        // A damaged file is a miss.
        fs::write(cache.file(&key), "{not json").unwrap();
        assert_eq!(cache.get(&key), None);
        fs::write(
            cache.file(&key),
            r#"{"outcome":{"error":"x"},"input_tokens":0,"output_tokens":0}"#,
        )
        .unwrap();
        assert_eq!(cache.get(&key), None);
    }
}
