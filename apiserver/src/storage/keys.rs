//! Storage keys laid out as kube-apiserver lays them out in etcd.
//!
//! Namespaced objects live at `/registry/<resource>/<namespace>/<name>`, cluster-scoped ones
//! at `/registry/<resource>/<name>`. A list reads the prefix that ends in `/`.

/// The root under which every object is stored.
pub const ROOT: &str = "/registry/";

/// The key of a namespaced object, e.g. `/registry/configmaps/default/demo`.
pub fn namespaced(resource: &str, namespace: &str, name: &str) -> String {
    format!("{ROOT}{resource}/{namespace}/{name}")
}

/// The key of a cluster-scoped object, e.g. `/registry/namespaces/default`.
pub fn cluster(resource: &str, name: &str) -> String {
    format!("{ROOT}{resource}/{name}")
}

/// The prefix of every object of `resource` in `namespace`, or in every namespace (and for
/// cluster-scoped resources) when `namespace` is `None`.
pub fn prefix(resource: &str, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("{ROOT}{resource}/{ns}/"),
        None => format!("{ROOT}{resource}/"),
    }
}

/// The smallest byte string greater than every string starting with `prefix`, or `None` when
/// there is none (the empty prefix, or one made of `0xff` bytes only).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_kube_apiserver_layout() {
        assert_eq!(
            namespaced("configmaps", "default", "demo"),
            "/registry/configmaps/default/demo"
        );
        assert_eq!(
            cluster("namespaces", "kube-system"),
            "/registry/namespaces/kube-system"
        );
        assert_eq!(
            prefix("configmaps", Some("ns1")),
            "/registry/configmaps/ns1/"
        );
        assert_eq!(prefix("configmaps", None), "/registry/configmaps/");
    }

    #[test]
    fn prefix_end_is_the_next_byte_string() {
        assert_eq!(prefix_end(b"/a/"), Some(b"/a0".to_vec()));
        assert_eq!(prefix_end(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff\xff"), None);
        assert_eq!(prefix_end(b""), None);
    }
}
