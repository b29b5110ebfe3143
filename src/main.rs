//! The `bansha` command: see `bansha::cli`.

fn main() -> std::process::ExitCode {
    bansha::cli::main()
}
