//! The audit log (`--audit-log-path`): one `audit.k8s.io/v1` Event per request at the
//! Metadata level, stage `ResponseComplete`, as JSON lines (kube-apiserver's log backend
//! in its `json` format), with the annotations admission added
//! (`validation.policy.admission.k8s.io/validation_failure`, `<policy>/<key>` from
//! `auditAnnotations`) and the authorization decision's.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::access_request::{Attributes, User};
use crate::impersonation::Impersonator;
use crate::status::Status;

/// An append-only file of audit events.
#[derive(Debug)]
pub struct AuditLog {
    file: Mutex<std::fs::File>,
}

impl AuditLog {
    /// Opens (or creates) the log at `path` for appending.
    pub fn open(path: &Path) -> std::io::Result<AuditLog> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(AuditLog {
            file: Mutex::new(file),
        })
    }

    /// Appends one event (one line, written whole).
    pub fn write(&self, event: &Value) {
        let mut line = event.to_string();
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()) {
            eprintln!("kcel-apiserver: writing the audit log: {e}");
        }
    }
}

/// What an event records of the request, taken before it is handled.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// The event's id.
    pub audit_id: String,
    /// The request URI (path and query).
    pub uri: String,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// The client's addresses ([`source_ips`]).
    pub source_ips: Vec<String>,
    /// When the request arrived.
    pub received: chrono::DateTime<chrono::Utc>,
}

/// The addresses a request came from, as kube-apiserver's audit records them
/// (k8s.io/apimachinery `util/net.SourceIPs`): the valid addresses of `X-Forwarded-For`,
/// then `X-Real-Ip` unless already among them, then the connection's peer unless it is the
/// last one already; an IPv4 address written as IPv6 (`::ffff:a.b.c.d`) is the IPv4 one, as Go
/// prints and compares it.
pub fn source_ips(headers: &axum::http::HeaderMap, peer: Option<IpAddr>) -> Vec<String> {
    let as_go = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let parse = |text: &str| text.parse().ok().map(as_go);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut ips: Vec<IpAddr> = header("x-forwarded-for")
        .into_iter()
        .flat_map(|list| list.split(','))
        .filter_map(|part| parse(part.trim()))
        .collect();
    if let Some(real) = header("x-real-ip").and_then(parse)
        && !ips.contains(&real)
    {
        ips.push(real);
    }
    if let Some(peer) = peer.map(as_go)
        && ips.last() != Some(&peer)
    {
        ips.push(peer);
    }
    ips.iter().map(IpAddr::to_string).collect()
}

impl RequestRecord {
    /// What an event records of `request`, taken when it arrives.
    pub fn of<B>(request: &axum::http::Request<B>) -> RequestRecord {
        let peer = request
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|peer| peer.0.ip());
        RequestRecord {
            audit_id: crate::random::uuid_v4().unwrap_or_default(),
            uri: request.uri().to_string(),
            user_agent: request
                .headers()
                .get(axum::http::header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned(),
            source_ips: source_ips(request.headers(), peer),
            received: chrono::Utc::now(),
        }
    }
}

/// Kubernetes' MicroTime: RFC 3339 with microseconds.
fn micro_time(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// How a request ended, as its event records it.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    /// The HTTP status code answered.
    pub code: u16,
    /// The `Status` answered, when the answer was one (its bounded fields become the
    /// event's `responseStatus`, as upstream's `LogResponseObject` copies them).
    pub status: Option<&'a Status>,
    /// The authorizer's decision (`allow` or `forbid`) and reason, once it ran.
    pub authorization: Option<(&'static str, &'a str)>,
}

/// The Event for a request that `user` made (impersonated by `impersonator`, if given: the
/// event's `user` is then the impersonator and `impersonatedUser` the user, as upstream's
/// `LogImpersonatedUser` records it), stage `ResponseComplete`.
pub fn event(
    record: &RequestRecord,
    user: &User,
    impersonator: Option<&Impersonator>,
    attrs: &Attributes,
    outcome: &Outcome,
    annotations: &BTreeMap<String, String>,
) -> Value {
    let mut event = base(record, attrs, outcome, "ResponseComplete");
    event["user"] = impersonator.map_or(user, |i| &i.user).user_info();
    if let Some(impersonator) = impersonator {
        event["impersonatedUser"] = user.user_info();
        if !impersonator.constraint.is_empty() {
            event["authenticationMetadata"] =
                json!({"impersonationConstraint": impersonator.constraint});
        }
    }
    let mut all = BTreeMap::new();
    if let Some((decision, reason)) = outcome.authorization {
        all.insert(
            "authorization.k8s.io/decision".to_owned(),
            decision.to_owned(),
        );
        all.insert("authorization.k8s.io/reason".to_owned(), reason.to_owned());
    }
    all.extend(annotations.clone());
    if !all.is_empty() {
        event["annotations"] = json!(all);
    }
    event
}

/// The Event of a request whose credentials were refused (401): upstream's failed
/// authentication audit logs it, without a user, when the answer starts (stage
/// `ResponseStarted`, and no later stage: `WithFailedAuthenticationAudit`).
pub fn failed_authentication(record: &RequestRecord, attrs: &Attributes, status: &Status) -> Value {
    let outcome = Outcome {
        code: 401,
        status: Some(status),
        authorization: None,
    };
    let mut event = base(record, attrs, &outcome, "ResponseStarted");
    event["user"] = json!({});
    event
}

/// The fields every event has.
fn base(record: &RequestRecord, attrs: &Attributes, outcome: &Outcome, stage: &str) -> Value {
    let response_status = match outcome.status {
        Some(status) => {
            let mut copied = serde_json::to_value(status).unwrap_or_default();
            if let Some(fields) = copied.as_object_mut() {
                fields.remove("kind");
                fields.remove("apiVersion");
            }
            copied
        }
        None => json!({"metadata": {}, "code": outcome.code}),
    };
    let mut event = json!({
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "Metadata",
        "auditID": record.audit_id,
        "stage": stage,
        "requestURI": record.uri,
        "verb": attrs.verb,
        "sourceIPs": record.source_ips,
        "responseStatus": response_status,
        "requestReceivedTimestamp": micro_time(record.received),
        "stageTimestamp": micro_time(chrono::Utc::now()),
    });
    if !record.user_agent.is_empty() {
        event["userAgent"] = json!(record.user_agent);
    }
    if attrs.resource_request {
        let mut object_ref = serde_json::Map::new();
        let mut put = |k: &str, v: &str| {
            if !v.is_empty() {
                object_ref.insert(k.to_owned(), json!(v));
            }
        };
        put("resource", &attrs.resource);
        put("namespace", &attrs.namespace);
        put("name", &attrs.name);
        put("apiGroup", &attrs.group);
        put("apiVersion", &attrs.version);
        put("subresource", &attrs.subresource);
        event["objectRef"] = Value::Object(object_ref);
    }
    event
}

#[cfg(test)]
mod tests {
    use super::source_ips;

    #[test]
    fn source_ips_are_the_forwarded_chain_then_the_peer() {
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut map = axum::http::HeaderMap::new();
            for (k, v) in pairs {
                map.insert(*k, v.parse().unwrap());
            }
            map
        };
        let peer = Some("127.0.0.1".parse().unwrap());
        assert_eq!(source_ips(&headers(&[]), peer), ["127.0.0.1"]);
        assert_eq!(source_ips(&headers(&[]), None), Vec::<String>::new());
        // Invalid entries are skipped; X-Real-Ip only when not in the chain; the peer
        // not repeated when it ends the chain.
        assert_eq!(
            source_ips(
                &headers(&[
                    ("x-forwarded-for", "10.0.0.1, bogus ,2001:db8:0:0::1"),
                    ("x-real-ip", "10.0.0.1"),
                ]),
                peer
            ),
            ["10.0.0.1", "2001:db8::1", "127.0.0.1"]
        );
        assert_eq!(
            source_ips(
                &headers(&[("x-forwarded-for", "127.0.0.1"), ("x-real-ip", "10.1.1.1")]),
                Some("::ffff:127.0.0.1".parse().unwrap())
            ),
            ["127.0.0.1", "10.1.1.1", "127.0.0.1"]
        );
        assert_eq!(
            source_ips(
                &headers(&[("x-real-ip", "192.168.0.9")]),
                Some("192.168.0.9".parse().unwrap())
            ),
            ["192.168.0.9"]
        );
    }
}
