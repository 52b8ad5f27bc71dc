//! The kubeconfig the server writes for its admin: `DATA_DIR/kubeconfig`.

use std::path::Path;

use base64::Engine;

/// The context, cluster and user name in the written kubeconfig.
pub const NAME: &str = "kcel";

/// The kubeconfig text for a client of `server` (e.g. `https://127.0.0.1:6443`) that trusts
/// the CA in `ca_pem` and authenticates with the bearer `token`.
pub fn render(server: &str, ca_pem: &str, token: &str) -> String {
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {NAME}
  cluster:
    server: {server}
    certificate-authority-data: {ca}
users:
- name: {NAME}-admin
  user:
    token: {token}
contexts:
- name: {NAME}
  context:
    cluster: {NAME}
    user: {NAME}-admin
    namespace: default
current-context: {NAME}
"
    )
}

/// Writes the kubeconfig to `DATA_DIR/kubeconfig`, readable by the owner only.
pub fn write(data_dir: &Path, server: &str, ca_pem: &str, token: &str) -> std::io::Result<()> {
    crate::files::write_private(
        &data_dir.join("kubeconfig"),
        render(server, ca_pem, token).as_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_server_ca_and_token() {
        let text = render("https://127.0.0.1:1234", "PEM", "secret");
        assert!(text.contains("    server: https://127.0.0.1:1234\n"));
        assert!(text.contains("    certificate-authority-data: UEVN\n"));
        assert!(text.contains("    token: secret\n"));
        assert!(text.contains("current-context: kcel\n"));
    }
}
