//! Which local user opened a loopback TCP connection: the owner of the
//! client's end in `/proc/net/tcp` (Linux keeps a socket's uid there).
//! The CDP front end's tickets ride in URLs, which every local user sees in
//! `ps`; a ticket is honoured only for a connection of the daemon's own
//! user, so another user who reads one cannot use it.

use std::net::{SocketAddr, SocketAddrV4};

/// Whether the TCP connection from `peer` to the daemon's `port` was made
/// by a process of the daemon's own user. False when that cannot be told.
pub fn same_user(peer: SocketAddr, port: u16) -> bool {
    let SocketAddr::V4(peer) = peer else {
        return false;
    };
    let (Some(own), Ok(table)) = (own_uid(), std::fs::read_to_string("/proc/net/tcp")) else {
        return false;
    };
    owner(&table, peer, port) == Some(own)
}

fn own_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// `/proc/net/tcp`'s address form: the IPv4 address as the kernel's
/// native-endian word, then the port, both in upper-case hex.
fn hex(addr: SocketAddrV4) -> String {
    format!(
        "{:08X}:{:04X}",
        u32::from_ne_bytes(addr.ip().octets()),
        addr.port()
    )
}

/// The uid of the socket whose local end is `peer` and whose remote end
/// is the daemon's `port` on loopback.
fn owner(table: &str, peer: SocketAddrV4, port: u16) -> Option<u32> {
    let local = hex(peer);
    let remote = hex(SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, port));
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.len() > 7 && f[1] == local && f[2] == remote)
            .then(|| f[7].parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_of_the_clients_end_is_read_from_the_table() {
        let peer: SocketAddrV4 = "127.0.0.1:43210".parse().expect("addr");
        let local = hex(peer);
        let daemon = hex("127.0.0.1:9377".parse().expect("addr"));
        let table = format!(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
             0: {daemon} {local} 01 00000000:00000000 00:00000000 00000000     0        0 1 1\n\
             1: {local} {daemon} 01 00000000:00000000 00:00000000 00000000  1001        0 2 1\n"
        );
        assert_eq!(
            owner(&table, peer, 9377),
            Some(1001),
            "the client's end, not the daemon's"
        );
        assert_eq!(
            owner(&table, "127.0.0.1:1".parse().expect("addr"), 9377),
            None
        );
        assert_eq!(owner(&table, peer, 9000), None);
    }

    #[test]
    fn a_real_connection_is_ours() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let client = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let (_server, peer) = listener.accept().expect("accept");
        assert_eq!(peer, client.local_addr().expect("addr"));
        assert!(same_user(peer, port));
    }
}
