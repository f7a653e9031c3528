//! Serves `tests/fixtures/web` on loopback for the demo and for manual poking:
//! `fixture-web [PORT]` prints the base URL and serves until killed.

fn main() {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let web = webrig_tests::FixtureWeb::start_on(webrig_tests::fixture_dir(), port);
    println!("{}", web.url(""));
    loop {
        std::thread::park();
    }
}
