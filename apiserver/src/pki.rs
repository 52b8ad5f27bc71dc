//! The server's certificates: a CA and a serving certificate it signs, made on first start.
//!
//! Files under `DATA_DIR/pki/`: `ca.crt`, `ca.key`, `apiserver.crt`, `apiserver.key` (PEM,
//! keys readable by the owner only). Later starts load them. The serving certificate names
//! `localhost`, `127.0.0.1`, `::1` and the listen address when it is a specific one.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::files;

/// Why the certificates could not be made or loaded.
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    /// Generating a key or certificate failed.
    #[error("generating certificates: {0}")]
    Generate(#[from] rcgen::Error),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// A PEM file could not be parsed.
    #[error("{path}: {source}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: rustls::pki_types::pem::Error,
    },
}

/// The CA (for kubeconfig) and the serving certificate with its key (for TLS).
#[derive(Debug)]
pub struct Pki {
    /// The CA certificate in PEM, as `certificate-authority-data` carries it (base64 of this).
    pub ca_pem: String,
    /// The serving certificate chain (the serving certificate, then the CA).
    pub chain: Vec<CertificateDer<'static>>,
    /// The serving certificate's private key.
    pub key: PrivateKeyDer<'static>,
}

struct Paths {
    ca_crt: PathBuf,
    ca_key: PathBuf,
    crt: PathBuf,
    key: PathBuf,
}

impl Paths {
    fn new(data_dir: &Path) -> Paths {
        let dir = data_dir.join("pki");
        Paths {
            ca_crt: dir.join("ca.crt"),
            ca_key: dir.join("ca.key"),
            crt: dir.join("apiserver.crt"),
            key: dir.join("apiserver.key"),
        }
    }

    fn all_exist(&self) -> bool {
        [&self.ca_crt, &self.ca_key, &self.crt, &self.key]
            .iter()
            .all(|p| p.exists())
    }
}

/// Loads the certificates from `data_dir`, making them first if they are not all there.
pub fn load_or_create(data_dir: &Path, listen: IpAddr) -> Result<Pki, PkiError> {
    let paths = Paths::new(data_dir);
    if !paths.all_exist() {
        create(&paths, listen)?;
    }
    load(&paths)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PkiError + '_ {
    move |source| PkiError::Io {
        path: path.to_owned(),
        source,
    }
}

fn create(paths: &Paths, listen: IpAddr) -> Result<(), PkiError> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kcel-apiserver-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_key = KeyPair::generate()?;
    let ca_cert = ca_params.self_signed(&ca_key)?;

    let mut names = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    if !listen.is_unspecified() && !names.contains(&listen.to_string()) {
        names.push(listen.to_string());
    }
    let mut params = CertificateParams::new(names)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "kcel-apiserver");
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let key = KeyPair::generate()?;
    let issuer = Issuer::new(ca_params, &ca_key);
    let cert = params.signed_by(&key, &issuer)?;

    let dir = paths.ca_crt.parent().expect("pki paths have a parent");
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    files::write_private(&paths.ca_key, ca_key.serialize_pem().as_bytes())
        .map_err(io_err(&paths.ca_key))?;
    files::write_private(&paths.key, key.serialize_pem().as_bytes()).map_err(io_err(&paths.key))?;
    files::write_public(&paths.ca_crt, ca_cert.pem().as_bytes()).map_err(io_err(&paths.ca_crt))?;
    // The serving certificate last: its presence marks a complete set.
    files::write_public(&paths.crt, cert.pem().as_bytes()).map_err(io_err(&paths.crt))?;
    Ok(())
}

fn load(paths: &Paths) -> Result<Pki, PkiError> {
    let pem_err = |path: &Path| {
        let path = path.to_owned();
        move |source| PkiError::Pem { path, source }
    };
    let ca_pem = std::fs::read_to_string(&paths.ca_crt).map_err(io_err(&paths.ca_crt))?;
    let ca = CertificateDer::from_pem_slice(ca_pem.as_bytes()).map_err(pem_err(&paths.ca_crt))?;
    let cert = CertificateDer::from_pem_file(&paths.crt).map_err(pem_err(&paths.crt))?;
    let key = PrivateKeyDer::from_pem_file(&paths.key).map_err(pem_err(&paths.key))?;
    Ok(Pki {
        ca_pem,
        chain: vec![cert, ca],
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path(), "127.0.0.1".parse().unwrap()).unwrap();
        let again = load_or_create(dir.path(), "127.0.0.1".parse().unwrap()).unwrap();
        assert_eq!(first.ca_pem, again.ca_pem);
        assert_eq!(first.chain, again.chain);
        assert!(first.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("pki/ca.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
