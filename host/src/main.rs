//! `webrig`: parse, dispatch, exit code. Everything else lives in the library.

fn main() -> std::process::ExitCode {
    webrig::cli::main()
}
