//! Parses `host:port` strings from the configuration file.

/// The port of `address` (`"example.org:8080"` gives 8080).
pub fn parse_port(address: &str) -> u16 {
    let port = address.split(':').nth(1).unwrap();
    port.parse().unwrap()
}

/// The host of `address`.
pub fn parse_host(address: &str) -> &str {
    &address[..address.find(':').unwrap()]
}
