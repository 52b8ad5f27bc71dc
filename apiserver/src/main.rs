//! The `kcel-apiserver` binary. The HTTP server is not built yet; so far the crate provides
//! its storage layer as a library.

fn main() {
    eprintln!("kcel-apiserver: the HTTP server is not built yet (see apiserver/README.md)");
    std::process::exit(2);
}
