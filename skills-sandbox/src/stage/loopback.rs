//! The loopback of the call's network namespace, brought up so that the command can use
//! `127.0.0.1` and `::1` among its own processes (a test server, say). The namespace has no
//! other interface, so nothing on it reaches the host.
//!
//! One `RTM_NEWLINK` netlink request with `IFF_UP` for interface 1, which is always the
//! loopback of a new network namespace, and the kernel's acknowledgement.

use rustix::net::{
    AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType, recv, send, socket_with,
};

use crate::stage::{Failure, Step};

const RTM_NEWLINK: u16 = 16;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_ACK: u16 = 0x4;
const NLMSG_ERROR: u16 = 2;
const IFF_UP: u32 = 0x1;
const LOOPBACK_INDEX: i32 = 1;

/// Sets the loopback up.
pub(crate) fn bring_up() -> Result<(), Failure> {
    let step = || "bring the sandbox's loopback up".to_owned();
    let fd = socket_with(
        AddressFamily::NETLINK,
        SocketType::RAW,
        SocketFlags::CLOEXEC,
        None,
    )
    .step(step)?;
    send(&fd, &request(), SendFlags::empty()).step(step)?;
    let mut reply = [0u8; 512];
    let (got, _) = recv(&fd, &mut reply, RecvFlags::empty()).step(step)?;
    match acknowledged(&reply[..got.min(reply.len())]) {
        Some(0) => Ok(()),
        Some(errno) => Err(std::io::Error::from_raw_os_error(errno)).step(step),
        None => Err(Failure::message(
            "the kernel's answer to the loopback request is not an acknowledgement".to_owned(),
        )),
    }
}

/// `nlmsghdr` followed by `ifinfomsg`, native-endian as netlink wants.
fn request() -> Vec<u8> {
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes()); // nlmsg_type
    message.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes()); // nlmsg_flags
    message.extend_from_slice(&1u32.to_ne_bytes()); // nlmsg_seq
    message.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid: the kernel fills it in
    message.push(0); // ifi_family: AF_UNSPEC
    message.push(0); // padding
    message.extend_from_slice(&0u16.to_ne_bytes()); // ifi_type
    message.extend_from_slice(&LOOPBACK_INDEX.to_ne_bytes()); // ifi_index
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_flags
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_change
    message
}

/// The error number of an `NLMSG_ERROR` reply (0 is the acknowledgement), positive.
fn acknowledged(reply: &[u8]) -> Option<i32> {
    let kind = u16::from_ne_bytes(reply.get(4..6)?.try_into().ok()?);
    if kind != NLMSG_ERROR {
        return None;
    }
    let error = i32::from_ne_bytes(reply.get(16..20)?.try_into().ok()?);
    error.checked_neg()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_one_32_byte_message_and_acks_are_read() {
        let message = request();
        assert_eq!(message.len(), 32);
        assert_eq!(u32::from_ne_bytes(message[0..4].try_into().unwrap()), 32);
        let mut ack = vec![0u8; 36];
        ack[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
        assert_eq!(acknowledged(&ack), Some(0));
        ack[16..20].copy_from_slice(&(-1i32).to_ne_bytes());
        assert_eq!(acknowledged(&ack), Some(1));
        assert_eq!(acknowledged(&ack[..10]), None);
    }
}
