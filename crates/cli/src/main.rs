fn main() {
    std::process::exit(forge_replay::run());
}
