//! Link options for the `webrig` binary.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    // Release builds link `webrig` position-dependent (not PIE). As a PIE
    // this binary carries ~51k relative relocations, and applying them on
    // every start writes ~200 pages: ~0.8 ms of a 2 ms `webrig --version` on
    // a 2-core VM, the most of what the CLI costs beyond starting a process
    // (docs/BENCHMARKS.md, "CLI start"). The price: the executable's own code
    // and data sit at a fixed address (its heap, stack, libraries and JIT
    // code stay randomised). Delete these lines to link a PIE again.
    if var("PROFILE") == "release" && var("CARGO_CFG_TARGET_OS") == "linux" {
        println!("cargo:rustc-link-arg-bin=webrig=-no-pie");
    }
}
