//! Listeners of the host on 127.0.0.1 that a sandboxed command must not reach, and the checks
//! that nothing did. Used by the sandbox's attacks and the example agent's.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::time::Duration;

/// A non-blocking TCP listener on a free loopback port.
pub fn tcp_listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// Panics, showing `context`, if a connection is waiting on `listener`.
pub fn assert_no_connection(listener: &TcpListener, context: &str) {
    match listener.accept() {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a connection reached the host: {other:?}\n{context}"),
    }
}

/// A non-blocking UDP socket on a free loopback port.
pub fn udp_listener() -> (UdpSocket, u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_nonblocking(true).unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

/// Panics, showing `context`, if a datagram reached `socket`.
pub fn assert_no_datagram(socket: &UdpSocket, context: &str) {
    // The command has ended; a moment for a datagram it sent to be queued.
    std::thread::sleep(Duration::from_millis(100));
    let mut buf = [0u8; 512];
    match socket.recv_from(&mut buf) {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a datagram reached the host: {other:?}\n{context}"),
    }
}
