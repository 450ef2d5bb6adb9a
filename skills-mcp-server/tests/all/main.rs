//! The MCP server's integration tests in one binary: the server driven by rmcp's client over a
//! pipe, the Skills extension's rules on the wire, and the HTTP serving layer against clients
//! that would keep it busy, through the raw client of [`http_client`]. The skill folders these
//! tests serve are in `tests/skills`, `tests/spec` (with the extension's own examples) and
//! `tests/forty`.
//!
//! Two tests change what the whole process shares and run alone in a copy of this binary: the
//! one that lowers the descriptor limit (`http_descriptors`) and the one that measures the peak
//! memory (`http_bodies`).

mod extension;
mod http_bodies;
mod http_client;
#[cfg(target_os = "linux")]
mod http_descriptors;
mod http_limits;
mod server;
