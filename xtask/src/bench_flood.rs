//! The daemon under a connection flood (issue 8): thousands of half-open
//! connections that send half a request header and stop, as a local process
//! of any user can. Measures `/ping` on fresh TCP connections, a token holder
//! on TCP, and the CLI (its Unix socket), while the flood holds on.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::bench::{ms, pct};
use super::rig::Rig;

/// Connections the flood opens: most of this process's open-files limit.
fn flood_size() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        })
        .unwrap_or(1024);
    soft.saturating_sub(600).min(20_000)
}

fn get(port: u16, head: &str) -> Result<(u16, Duration), String> {
    let started = Instant::now();
    let mut c = TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(10),
    )
    .map_err(|e| format!("connect: {e}"))?;
    c.set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    c.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    let mut raw = String::new();
    let _ = c.read_to_string(&mut raw);
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, started.elapsed()))
}

pub fn run(rig: &Rig) -> Result<(), String> {
    rig.run_ok(&["sessions"])?; // starts the daemon
    let port = rig.port();
    let token =
        std::fs::read_to_string(rig.home().join("token")).map_err(|e| format!("token: {e}"))?;
    let ping = format!("GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let body = r#"{"command":"sessions"}"#;
    let command = format!(
        "POST /command HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        token.trim(),
        body.len()
    );
    let measure = |label: &str| -> Result<(), String> {
        let mut pings = Vec::new();
        let mut commands = Vec::new();
        let mut clis = Vec::new();
        for _ in 0..100 {
            let (status, took) = get(port, &ping)?;
            if status != 200 {
                return Err(format!("/ping answered {status} ({label})"));
            }
            pings.push(took);
            let (status, took) = get(port, &command)?;
            if status != 200 {
                return Err(format!("/command answered {status} ({label})"));
            }
            commands.push(took);
        }
        for _ in 0..30 {
            clis.push(rig.run_ok(&["sessions"])?.1);
        }
        println!(
            "| {label}: `/ping` on a fresh TCP connection (100) | {} | {} |",
            ms(pct(&mut pings, 50)),
            ms(pct(&mut pings, 99))
        );
        println!(
            "| {label}: token holder `POST /command sessions` on TCP (100) | {} | {} |",
            ms(pct(&mut commands, 50)),
            ms(pct(&mut commands, 99))
        );
        println!(
            "| {label}: `webrig sessions` through the CLI (30) | {} | {} |",
            ms(pct(&mut clis, 50)),
            ms(pct(&mut clis, 99))
        );
        Ok(())
    };
    println!("\n| connection flood | p50 | p99 |");
    println!("| --- | --- | --- |");
    measure("quiet")?;
    let want = flood_size();
    let started = Instant::now();
    let mut flood = Vec::with_capacity(want);
    let half = format!("GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for _ in 0..want {
        let Ok(mut c) = TcpStream::connect_timeout(
            &SocketAddr::from(([127, 0, 0, 1], port)),
            Duration::from_secs(1),
        ) else {
            continue;
        };
        let _ = c.write_all(half.as_bytes());
        flood.push(c);
    }
    let opened = started.elapsed();
    measure(&format!("{} half-open connections", flood.len()))?;
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"])?;
    let status: serde_json::Value = serde_json::from_str(&status).unwrap_or_default();
    println!(
        "\nflood: {} connections opened in {:.1} s; daemon RSS under the flood {:.1} MB",
        flood.len(),
        opened.as_secs_f64(),
        status["result"]["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    Ok(())
}
