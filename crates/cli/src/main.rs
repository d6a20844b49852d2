/// mimalloc: request assembly allocates many small JSON nodes; glibc malloc was ~30 % of its CPU.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(forge_replay::run());
}
