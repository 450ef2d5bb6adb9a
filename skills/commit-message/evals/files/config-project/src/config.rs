//! Reads the configuration.

/// The default timeout, in seconds (was 30: too short for slow mirrors).
pub const DEFAULT_TIMEOUT: u64 = 120;

/// Reads `key` from the environment, else its default.
pub fn get(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_owned())
}
