//! The extension's door attacked: a stranger (another uid) who takes the
//! daemon's port while it is down, a replay of what that stranger saw, a
//! caller without the token, a daemon that asks the extension for tabs the
//! user never gave it, and a stranger who tries to void the pairing code.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, Message};
use webrig::daemon::extension::handshake::Secret;
use webrig_tests::other_user::OtherUser;
use webrig_tests::user_browser::{UserBrowser, extension_id};

use super::relay::{paired, wait_connected, wait_connected_within};
use crate::{Daemon, web};

/// What followed a handshake on a raw socket.
#[derive(Debug, PartialEq)]
pub enum After {
    Ready,
    Closed(u16),
    Frame(Value),
}

pub struct Proved {
    /// The daemon's proof checked out under the token we used.
    pub daemon_ok: bool,
    pub after: After,
}

/// A raw client of `/extension` offering `protocols` from `origin`: the
/// socket, or the HTTP status of the refusal.
pub fn raw_connect(
    d: &Daemon,
    origin: &str,
    protocols: &str,
) -> Result<tungstenite::WebSocket<TcpStream>, u16> {
    use tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://127.0.0.1:{}/extension", d.port())
        .into_client_request()
        .expect("request");
    let h = req.headers_mut();
    h.insert("Origin", origin.parse().expect("origin"));
    h.insert(
        "Sec-WebSocket-Protocol",
        protocols.parse().expect("protocols"),
    );
    let stream = TcpStream::connect(("127.0.0.1", d.port())).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    match tungstenite::client::client(req, stream) {
        Ok((ws, _)) => Ok(ws),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
            Err(resp.status().as_u16())
        }
        Err(e) => panic!("handshake: {e}"),
    }
}

/// The next JSON frame, or how the socket ended.
fn next(ws: &mut tungstenite::WebSocket<TcpStream>) -> After {
    loop {
        match ws.read() {
            Ok(Message::Text(t)) => {
                let v: Value = serde_json::from_str(&t).expect("json");
                return if v["type"] == "ready" {
                    After::Ready
                } else {
                    After::Frame(v)
                };
            }
            Ok(Message::Close(c)) => return After::Closed(c.map(|c| c.code.into()).unwrap_or(0)),
            Ok(_) => {}
            Err(_) => return After::Closed(0),
        }
    }
}

const NE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The extension's side of the handshake with `token`.
pub fn prove(ws: &mut tungstenite::WebSocket<TcpStream>, token: &str, port: u16) -> Proved {
    let secret = Secret::new(token, port);
    ws.send(Message::text(
        json!({"type": "challenge", "nonce": NE}).to_string(),
    ))
    .expect("send");
    let After::Frame(d) = next(ws) else {
        panic!("no daemon proof")
    };
    assert_eq!(d["type"], "daemon-proof", "{d}");
    let nd = d["nonce"].as_str().expect("nonce").to_string();
    let daemon_ok = d["proof"] == secret.daemon_proof(NE, &nd);
    let proof = secret.extension_proof(&nd, NE);
    ws.send(Message::text(
        json!({"type": "extension-proof", "proof": proof}).to_string(),
    ))
    .expect("send");
    Proved {
        daemon_ok,
        after: next(ws),
    }
}

#[test]
fn the_door_gives_a_caller_without_the_token_nothing_and_refuses_the_old_protocol() {
    let (d, _user) = paired();
    let token = d.token();
    let origin = format!("chrome-extension://{}", extension_id());
    // v1 carried the token in the handshake: refused before anything else.
    assert_eq!(
        raw_connect(&d, &origin, &format!("webrig.v1, webrig-token.{token}")).err(),
        Some(400)
    );
    // No "already connected" before a proof: a stranger learns nothing,
    // and its socket neither takes the slot nor gets a request.
    let mut ws = raw_connect(&d, &origin, "webrig.v2").expect("101 before any proof");
    let out = prove(&mut ws, "not-the-token-at-all", d.port());
    assert!(!out.daemon_ok);
    assert_eq!(out.after, After::Closed(4001));
    // A caller that says nothing is dropped after the handshake deadline.
    let mut silent = raw_connect(&d, &origin, "webrig.v2").expect("101");
    let t = Instant::now();
    assert_eq!(next(&mut silent), After::Closed(4008));
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    // A request instead of a challenge is not served.
    let mut eager = raw_connect(&d, &origin, "webrig.v2").expect("101");
    eager
        .send(Message::text(r#"{"id":1,"method":"tabs.list"}"#))
        .expect("send");
    assert_eq!(next(&mut eager), After::Closed(4002));
    assert_eq!(
        d.ok("default", "extension_status", json!({}))["connected"],
        true,
        "the real extension keeps its connection"
    );
    let s = "door";
    d.ok(s, "connect", json!({ "extension": true }));
    d.ok(s, "tab_new", json!({}));
    assert_eq!(d.ok(s, "eval", json!({ "script": "6 * 7" }))["value"], 42);
    d.ok(s, "close", json!({}));
}

/// A WebSocket "server" run as another user on the daemon's port: it
/// records every upgrade and (unmasked) frame it gets, as hex lines, and
/// answers each connection's first frame with a made-up daemon proof.
const FAKE_LISTENER: &str = r#"
use strict; use warnings;
use IO::Socket::INET; use Digest::SHA qw(sha1); use MIME::Base64; use Time::HiRes qw(time);
my ($port, $seconds, $max) = @ARGV;
$| = 1;
my $srv = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $port, Listen => 8,
    ReuseAddr => 1, Proto => "tcp") or die "bind: $!";
print "LISTENING\n";
my $end = time + $seconds; my $n = 0;
while (time < $end && $n < $max) {
    my $rin = ''; vec($rin, fileno($srv), 1) = 1;
    next unless select(my $rout = $rin, undef, undef, 0.2);
    my $c = $srv->accept or next; $n++;
    printf "CONN %d %.3f\n", $n, time;
    my $head = '';
    while ($head !~ /\r\n\r\n/) {
        my $r = sysread($c, my $b, 4096); last unless $r; $head .= $b; last if length $head > 65536;
    }
    my ($hdr, $buf) = split /\r\n\r\n/, $head, 2; $buf //= '';
    print "HEAD ", unpack("H*", "$hdr\r\n\r\n"), "\n";
    my ($key) = $hdr =~ /^Sec-WebSocket-Key:\s*(\S+)/mi;
    my $accept = encode_base64(sha1(($key // '') . "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"), '');
    print $c "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        . "Sec-WebSocket-Accept: $accept\r\nSec-WebSocket-Protocol: webrig.v2\r\n\r\n";
    my $answered = 0; my $until = time + 3;
    while (time < $until) {
        while (length $buf >= 2) {
            my ($b0, $b1) = unpack "CC", $buf; my $len = $b1 & 127; my $off = 2;
            if ($len == 126) { last if length $buf < 4; $len = unpack "n", substr($buf, 2, 2); $off = 4 }
            elsif ($len == 127) { last if length $buf < 10; $len = unpack "Q>", substr($buf, 2, 8); $off = 10 }
            my $mask = '';
            if ($b1 & 128) { last if length $buf < $off + 4; $mask = substr($buf, $off, 4); $off += 4 }
            last if length $buf < $off + $len;
            my $p = substr($buf, $off, $len); $buf = substr($buf, $off + $len);
            if ($mask ne '') { $p = $p ^ substr($mask x (int($len / 4) + 1), 0, $len) }
            printf "FRAME %d %.3f %s\n", $b0 & 15, time, unpack("H*", $p);
            if (!$answered && ($b0 & 15) == 1) {
                $answered = 1;
                my $msg = '{"type":"daemon-proof","nonce":"' . ('ab' x 32) . '","proof":"' . ('cd' x 32) . '"}';
                print $c pack("CCn", 0x81, 126, length $msg) . $msg;
            }
        }
        my $rin = ''; vec($rin, fileno($c), 1) = 1;
        if (select(my $rout = $rin, undef, undef, 0.2)) {
            my $r = sysread($c, my $more, 65536); last unless $r; $buf .= $more;
        }
    }
    close $c;
}
print "DONE $n\n";
"#;

/// One connection the fake listener saw.
#[derive(Debug, Default)]
struct Seen {
    head: Vec<u8>,
    /// (opcode, payload)
    frames: Vec<(u8, Vec<u8>)>,
}

fn parse_listener(out: &str) -> Vec<Seen> {
    let mut conns: Vec<Seen> = Vec::new();
    for line in out.lines() {
        let mut parts = line.split(' ');
        match parts.next() {
            Some("CONN") => conns.push(Seen::default()),
            Some("HEAD") => {
                if let Some(c) = conns.last_mut() {
                    c.head = unhex(parts.next().unwrap_or_default());
                }
            }
            Some("FRAME") => {
                let op: u8 = parts.next().and_then(|o| o.parse().ok()).unwrap_or(255);
                let _at = parts.next();
                if let Some(c) = conns.last_mut() {
                    c.frames.push((op, unhex(parts.next().unwrap_or_default())));
                }
            }
            _ => {}
        }
    }
    conns
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_stranger_on_the_port_while_the_daemon_is_down_learns_nothing_and_its_replay_opens_nothing() {
    let Some(other) = OtherUser::get("a_stranger_on_the_port_while_the_daemon_is_down") else {
        return;
    };
    let (mut d, _user) = paired();
    let token = d.token();
    let port = d.port();
    let mut out = String::new();
    d.crash_then(|| {
        // The stranger binds the port the moment it is free and listens
        // until the extension has come back four times (or 40 s passed).
        let run = other
            .command("/usr/bin/perl")
            .arg("-e")
            .arg(FAKE_LISTENER)
            .args([&port.to_string(), "40", "4"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("perl runs as the other user");
        out = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(
            out.contains("LISTENING"),
            "the stranger could not bind: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    })
    .expect("restart");
    let conns = parse_listener(&out);
    assert!(
        conns.len() >= 3,
        "the extension came back {} times: {out}",
        conns.len()
    );
    let mut challenge = None;
    for c in &conns {
        let head = String::from_utf8_lossy(&c.head);
        assert!(!contains(&c.head, token.as_bytes()), "token in {head}");
        assert!(!head.contains("webrig-token"), "{head}");
        assert!(head.contains("webrig.v2"), "{head}");
        let texts: Vec<Value> = c
            .frames
            .iter()
            .filter(|(op, _)| *op == 1)
            .map(|(_, p)| serde_json::from_slice(p).expect("json"))
            .collect();
        // One challenge (a nonce, nothing derived from the token), then the
        // close that answers the made-up proof: no proof of its own, no
        // hello, no ping.
        assert_eq!(texts.len(), 1, "{texts:?}");
        let keys: Vec<&String> = texts[0].as_object().expect("object").keys().collect();
        assert_eq!(keys, ["nonce", "type"], "{}", texts[0]);
        assert_eq!(texts[0]["type"], "challenge");
        for (op, p) in &c.frames {
            assert!(!contains(p, token.as_bytes()), "token in a frame");
            assert!(matches!(op, 1 | 8), "opcode {op}");
        }
        let close = c.frames.iter().find(|(op, _)| *op == 8);
        let code = close.map(|(_, p)| u16::from_be_bytes([p[0], p[1]]));
        assert_eq!(
            code,
            Some(4001),
            "the extension closed on the bad proof: {:?}",
            c.frames
        );
        challenge.get_or_insert((c.head.clone(), texts[0].to_string()));
    }
    // The replay: the stranger sends what it recorded to the real daemon,
    // byte for byte (the upgrade, the challenge). It gets a proof it cannot
    // use, then a close at the handshake deadline: never `ready`, never a
    // request.
    let (head, frame) = challenge.expect("a challenge");
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    tcp.write_all(&head).expect("write");
    tcp.write_all(&masked_text(frame.as_bytes()))
        .expect("write");
    let mut got = Vec::new();
    let _ = tcp.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    assert!(text.contains("daemon-proof"), "{text}");
    assert!(
        !text.contains("ready") && !text.contains("\"method\""),
        "{text}"
    );
    // The real extension comes back to the real daemon by itself.
    wait_connected_within(&d, Duration::from_secs(60));
}

/// A client text frame (masked, as a browser sends it).
fn masked_text(payload: &[u8]) -> Vec<u8> {
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    let mut f = vec![0x81u8];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// A daemon the extension trusts (it knows the token), run by the test on
/// the daemon's port, to send the extension requests the real daemon
/// would never send.
struct TrustedFake {
    ws: tungstenite::WebSocket<TcpStream>,
    next: u64,
}

impl TrustedFake {
    // The callback's error type is tungstenite's `ErrorResponse`, fixed by
    // its `Callback` trait; it is never returned here.
    #[allow(clippy::result_large_err)]
    fn accept(listener: &TcpListener, token: &str, port: u16) -> TrustedFake {
        listener.set_nonblocking(true).expect("nonblocking");
        let until = Instant::now() + Duration::from_secs(45);
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(_) => {
                    assert!(Instant::now() < until, "the extension never came");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        };
        stream.set_nonblocking(false).expect("blocking");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut ws = tungstenite::accept_hdr(
            stream,
            |_: &tungstenite::handshake::server::Request,
             mut resp: tungstenite::handshake::server::Response| {
                resp.headers_mut().insert(
                    "Sec-WebSocket-Protocol",
                    "webrig.v2".parse().expect("value"),
                );
                Ok(resp)
            },
        )
        .expect("upgrade");
        let secret = Secret::new(token, port);
        let After::Frame(c) = next(&mut ws) else {
            panic!("no challenge")
        };
        let ne = c["nonce"].as_str().expect("nonce").to_string();
        let nd = "cd".repeat(32);
        let proof = secret.daemon_proof(&ne, &nd);
        ws.send(Message::text(
            json!({"type": "daemon-proof", "nonce": nd, "proof": proof}).to_string(),
        ))
        .expect("send");
        let After::Frame(p) = next(&mut ws) else {
            panic!("no proof")
        };
        assert!(
            secret.verify_extension(&nd, &ne, p["proof"].as_str().unwrap_or_default()),
            "{p}"
        );
        ws.send(Message::text(r#"{"type":"ready"}"#)).expect("send");
        TrustedFake { ws, next: 1 }
    }

    /// One request; the whole answer (`result` or `error`).
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.ws
            .send(Message::text(
                json!({"id": id, "method": method, "params": params}).to_string(),
            ))
            .expect("send");
        loop {
            match next(&mut self.ws) {
                After::Frame(v) if v["id"] == id => return v,
                After::Frame(_) => {}
                other => panic!("{method}: {other:?}"),
            }
        }
    }
}

fn tab_id_of(user: &UserBrowser, url_part: &str) -> u64 {
    let expr = format!(
        "chrome.tabs.query({{}}).then((ts) => ts.find((t) => (t.url || '').includes({})).id)",
        serde_json::to_string(url_part).expect("json")
    );
    user.in_extension(&expr).as_u64().expect("a tab id")
}

#[test]
fn the_extension_refuses_a_daemon_the_tabs_the_user_did_not_give_it() {
    let (mut d, user) = paired();
    let (target, _) = user.open(&web().url("form.html"));
    let mine = tab_id_of(&user, "form.html");
    let token = d.token();
    let port = d.port();
    d.crash_then(|| {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the port");
        let mut fake = TrustedFake::accept(&listener, &token, port);
        let list = fake.call("tabs.list", json!({}));
        assert!(
            !list.to_string().contains("form.html")
                && !list.to_string().contains(&format!("\"tabId\":{mine},")),
            "the user's tab is listed: {list}"
        );
        for (method, params) in [
            ("attach", json!({ "tabId": mine })),
            ("tabs.activate", json!({ "tabId": mine })),
            ("tabs.close", json!({ "tabId": mine })),
            (
                "cdp",
                json!({ "sessionId": format!("tab-{mine}"), "method": "Runtime.evaluate",
                        "params": { "expression": "document.cookie" } }),
            ),
        ] {
            let a = fake.call(method, params);
            assert_eq!(a["error"]["code"], "not_found", "{method}: {a}");
        }
        // Its own tabs it may drive.
        let made = fake.call(
            "tabs.create",
            json!({ "url": "about:blank", "group": "fake" }),
        );
        let tab = made["result"]["tabId"].as_u64().expect("tab");
        let a = fake.call("attach", json!({ "tabId": tab }));
        assert_eq!(a["result"]["sessionId"], format!("tab-{tab}"), "{a}");
        fake.call("tabs.close", json!({ "tabId": tab }));
        // Once the user lends the tab in the popup, it may be borrowed.
        user.lend("form.html");
        let list = fake.call("tabs.list", json!({}));
        assert!(list.to_string().contains("form.html"), "{list}");
        let a = fake.call("attach", json!({ "tabId": mine }));
        assert_eq!(a["result"]["sessionId"], format!("tab-{mine}"), "{a}");
        // A lent tab goes back to the user: never closed by a daemon.
        let a = fake.call("tabs.close", json!({ "tabId": mine }));
        assert_eq!(a["error"]["code"], "denied", "{a}");
    })
    .expect("restart");
    let targets = user.call(None, "Target.getTargets", json!({}));
    assert!(targets.to_string().contains(&target), "{targets}");
    wait_connected_within(&d, Duration::from_secs(60));
}

/// Posts `n` wrong pairing codes with the webrig extension's Origin.
const VOIDER: &str = r#"
use strict; use warnings; use IO::Socket::INET;
my ($port, $origin, $n) = @ARGV;
for (1 .. $n) {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port) or die "connect: $!";
    my $b = '{"code":"0000-0000-0000"}';
    print $s "POST /pair HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nOrigin: $origin\r\n"
        . "Content-Type: application/json\r\nContent-Length: " . length($b) . "\r\nConnection: close\r\n\r\n$b";
    my $r = join '', <$s>;
    my ($st) = $r =~ m{^HTTP/1\.1 (\d+)};
    print(($st // 0), "\n");
    print "TOKEN\n" if $r =~ /"token"/;
}
"#;

#[test]
fn another_user_forging_the_extension_origin_cannot_void_the_pairing_code() {
    let Some(other) = OtherUser::get("another_user_forging_the_extension_origin") else {
        return;
    };
    let d = Daemon::start().expect("daemon");
    let user = UserBrowser::start();
    let code = d.ok("default", "pair", json!({}));
    let origin = format!("chrome-extension://{}", extension_id());
    let out = other.perl(VOIDER, &[&d.port().to_string(), &origin, "20"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 20, "{text}");
    assert!(
        text.lines().all(|l| l == "401" || l == "429"),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The user's popup still pairs with the code.
    user.pair(d.port(), code["code"].as_str().expect("code"));
    wait_connected(&d);
}
