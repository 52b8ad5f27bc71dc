//! A CRD's `spec.conversion` stanza: read once into a [`Strategy`] and defaulted as
//! upstream's `SetDefaults_ServiceReference` (port 443). Its validation is the library's
//! ([`kcel_stdlib::kubernetes::crd::conversion_errors`]).

use serde_json::{Value, json};

use kcel_stdlib::kubernetes::crd::decode_ca_bundle;

use super::definition::strings;

/// Where a conversion webhook is reached.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// `clientConfig.url`: `https://host[:port][/path]`.
    Url(String),
    /// `clientConfig.service`: a Service of the cluster.
    Service {
        /// The Service's namespace.
        namespace: String,
        /// The Service's name.
        name: String,
        /// The port (443 by default).
        port: u16,
        /// The path, if any (`/convert`).
        path: String,
    },
}

impl Target {
    /// The URL the webhook is posted to, as upstream's client builds it: the URL as given,
    /// or `https://<name>.<namespace>.svc:<port><path>` for a Service.
    pub fn url(&self) -> String {
        match self {
            Target::Url(url) => url.clone(),
            Target::Service {
                namespace,
                name,
                port,
                path,
            } => format!("https://{name}.{namespace}.svc:{port}{path}"),
        }
    }
}

/// A conversion webhook's configuration (`spec.conversion.webhook`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// Where the webhook is.
    pub target: Target,
    /// `clientConfig.caBundle`, decoded: the PEM certificates the webhook's serving
    /// certificate must chain to (empty: no trusted roots, so every call fails
    /// verification — this server has no system trust store).
    pub ca_bundle: Vec<u8>,
    /// `conversionReviewVersions`, in the CRD's order.
    pub review_versions: Vec<String>,
}

/// How a CRD's objects move between its versions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Strategy {
    /// `None`: only `apiVersion` changes.
    #[default]
    None,
    /// `Webhook`: every other change is the webhook's.
    Webhook(Webhook),
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

impl Strategy {
    /// The strategy of a (validated) CRD spec.
    pub fn of(spec: &Value) -> Strategy {
        if text(spec, "/conversion/strategy") != "Webhook" {
            return Strategy::None;
        }
        let config = spec
            .pointer("/conversion/webhook/clientConfig")
            .unwrap_or(&Value::Null);
        let target = match config.get("url").and_then(Value::as_str) {
            Some(url) => Target::Url(url.to_owned()),
            None => Target::Service {
                namespace: text(config, "/service/namespace").to_owned(),
                name: text(config, "/service/name").to_owned(),
                port: config
                    .pointer("/service/port")
                    .and_then(Value::as_u64)
                    .and_then(|p| u16::try_from(p).ok())
                    .unwrap_or(443),
                path: text(config, "/service/path").to_owned(),
            },
        };
        Strategy::Webhook(Webhook {
            target,
            ca_bundle: decode_ca_bundle(config).unwrap_or_default(),
            review_versions: strings(
                spec.pointer("/conversion/webhook/conversionReviewVersions")
                    .unwrap_or(&Value::Null),
            ),
        })
    }
}

/// Upstream's default of a conversion webhook's service port: 443.
pub fn default_conversion(spec: &mut serde_json::Map<String, Value>) {
    if let Some(service) = spec
        .get_mut("conversion")
        .and_then(|c| c.pointer_mut("/webhook/clientConfig/service"))
        .and_then(Value::as_object_mut)
        && !service.contains_key("port")
    {
        service.insert("port".into(), json!(443));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use kcel_stdlib::kubernetes::crd::conversion_errors;

    fn webhook(config: Value, versions: Value) -> Value {
        json!({"conversion": {"strategy": "Webhook",
            "webhook": {"clientConfig": config, "conversionReviewVersions": versions}}})
    }

    // The library's check of a `caBundle` takes a certificate this server's TLS stack
    // (rcgen, rustls) makes and trusts.
    #[test]
    fn a_bundle_of_this_servers_certificates_is_valid() {
        let pki = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let bundle = base64::engine::general_purpose::STANDARD.encode(pki.cert.pem());
        let spec = webhook(
            json!({"url": "https://h", "caBundle": bundle}),
            json!(["v1"]),
        );
        assert!(conversion_errors(&spec, true).is_empty());
        let Strategy::Webhook(w) = Strategy::of(&spec) else {
            panic!("a webhook")
        };
        assert_eq!(w.ca_bundle, pki.cert.pem().as_bytes());
    }

    #[test]
    fn the_strategy_is_read_with_upstreams_defaults() {
        let mut spec = webhook(
            json!({"service": {"name": "conv", "namespace": "ns", "path": "/convert"}}),
            json!(["v1"]),
        )
        .as_object()
        .unwrap()
        .clone();
        default_conversion(&mut spec);
        let Strategy::Webhook(w) = Strategy::of(&Value::Object(spec)) else {
            panic!("a webhook")
        };
        assert_eq!(w.target.url(), "https://conv.ns.svc:443/convert");
        assert_eq!(w.review_versions, ["v1"]);
        assert_eq!(Strategy::of(&json!({})), Strategy::None);
    }
}
