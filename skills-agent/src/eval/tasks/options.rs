//! [`TaskOptions`]: how a task eval runs, with its baseline ([`Comparison`]) and its part of
//! the cases ([`Shard`]).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use skills_bundle::Registry;

use crate::provider::api::Provider;
use crate::tools::BashOptions;

/// The default of [`TaskOptions::max_requests`]: 10 cases of 3 runs in 2 configurations at the
/// default turn limit, with grading.
pub const DEFAULT_MAX_TASK_REQUESTS: u64 = 2000;

/// What each case is compared with.
#[derive(Clone, Default)]
pub enum Comparison {
    /// The bundle without the skill: its catalog line removed, `load_skill` cannot load it.
    #[default]
    WithoutSkill,
    /// The skill's previous version: for a skill this registry holds, its version here stands
    /// in for the current one (the rest of the bundle is the current one); a skill it does not
    /// hold is compared without itself.
    Previous {
        /// The previous versions (a registry built from a folder, a git revision, or what a
        /// lock records).
        skills: Registry,
        /// Where they came from, for the report (`git:v1.2`, `folder old/skills`).
        label: String,
    },
}

impl fmt::Debug for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl Comparison {
    /// What the report says the baseline is.
    pub fn label(&self) -> String {
        match self {
            Comparison::WithoutSkill => "without the skill".to_owned(),
            Comparison::Previous { label, .. } => format!("previous version ({label})"),
        }
    }
}

/// Part `index` (from 1) of `count` of the cases, for a CI matrix: the cases in registry order
/// (skills by name, each skill's in file order), case `i` (from 0) in shard `i % count + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 1 to `count`.
    pub index: u32,
    /// At least 1.
    pub count: u32,
}

impl Shard {
    /// Whether case `position` (from 0, in registry order) is in this shard.
    pub fn holds(self, position: usize) -> bool {
        position % self.count as usize + 1 == self.index as usize
    }
}

/// `K/N`.
impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with `1 <= K <= N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let parsed = text.split_once('/').and_then(|(k, n)| {
            Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
        });
        match parsed {
            Some((index, count)) if (1..=count).contains(&index) => Ok(Shard { index, count }),
            _ => Err(format!(
                "`{text}` is not a shard: write K/N with 1 <= K <= N, as `2/4`"
            )),
        }
    }
}

/// How a task eval runs.
#[derive(Clone)]
pub struct TaskOptions {
    /// Runs per case and configuration (default 3).
    pub runs: u32,
    /// What the skill is compared with (default: without it).
    pub comparison: Comparison,
    /// The model that grades string assertions (default `None`: the agent's own provider).
    pub grader: Option<Arc<dyn Provider>>,
    /// The grader's server, part of the cache key.
    pub grader_endpoint: String,
    /// The agent's server (its base URL), part of the cache key.
    pub endpoint: String,
    /// The most model requests one run makes (default 20).
    pub max_turns: u32,
    /// The most tokens one run uses, input and output (default 200,000): past it, its next
    /// request is not sent and the run stops.
    pub max_tokens: u64,
    /// The longest one run takes, its checks included (default 10 minutes).
    pub timeout: Duration,
    /// The `bash` tool of the runs (and of `command` checks), replacing the agent's own: its
    /// sandbox, which a case's `"network": true` opens to the host's network.
    pub bash: BashOptions,
    /// Run even where `bash` would run unconfined (default `false`: the eval refuses to start).
    pub allow_unconfined: bool,
    /// Runs at once (default 2).
    pub concurrency: usize,
    /// The most model requests the eval may send, counted before the first: every run not in
    /// the cache as its turn limit, plus one grading request when the case has string
    /// assertions (default [`DEFAULT_MAX_TASK_REQUESTS`]; `None`: no limit).
    pub max_requests: Option<u64>,
    /// Where finished runs are kept between evals (default `None`: nowhere).
    pub cache_dir: Option<PathBuf>,
    /// Only this part of the cases (default: all).
    pub shard: Option<Shard>,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            runs: 3,
            comparison: Comparison::WithoutSkill,
            grader: None,
            grader_endpoint: String::new(),
            endpoint: String::new(),
            max_turns: 20,
            max_tokens: 200_000,
            timeout: Duration::from_secs(600),
            bash: BashOptions::default(),
            allow_unconfined: false,
            concurrency: 2,
            max_requests: Some(DEFAULT_MAX_TASK_REQUESTS),
            cache_dir: None,
            shard: None,
        }
    }
}

impl fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskOptions")
            .field("runs", &self.runs)
            .field("comparison", &self.comparison)
            .field(
                "grader",
                &self.grader.as_ref().map(|g| g.model().to_owned()),
            )
            .field("max_turns", &self.max_turns)
            .field("max_tokens", &self.max_tokens)
            .field("timeout", &self.timeout)
            .field("allow_unconfined", &self.allow_unconfined)
            .field("concurrency", &self.concurrency)
            .field("max_requests", &self.max_requests)
            .field("cache_dir", &self.cache_dir)
            .field("shard", &self.shard)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_every_case_once() {
        let shards: Vec<Shard> = ["1/3", "2/3", " 3 / 3 "]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        for position in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.holds(position)).count(), 1);
        }
        assert!(shards[0].holds(0) && shards[1].holds(1) && shards[0].holds(3));
        for bad in ["0/2", "3/2", "1", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(shards[1].to_string(), "2/3");
    }
}
