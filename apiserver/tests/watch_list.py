"""Streaming lists (WatchList) with the official Python client (kubernetes 37.x).

Run by tests/list_semantics.rs: a watch with sendInitialEvents=true,
resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true gets the current objects as
ADDED, then the BOOKMARK annotated k8s.io/initial-events-end: "true" (the API Concepts
document's "Streaming lists"), then later changes. Prints `ok <step>`; a failure raises.
"""

import sys

from kubernetes import client, config, watch


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="wl")))
    for name in ("a", "b", "c"):
        core.create_namespaced_config_map(
            "wl", client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name))
        )
    w = watch.Watch()
    seen = []
    bookmark = None
    for event in w.stream(
        core.list_namespaced_config_map,
        "wl",
        send_initial_events=True,
        resource_version_match="NotOlderThan",
        allow_watch_bookmarks=True,
        timeout_seconds=20,
    ):
        kind = event["type"]
        if kind == "BOOKMARK":
            raw = event["raw_object"]
            annotations = raw["metadata"].get("annotations") or {}
            if bookmark is None:
                bookmark = raw
                assert annotations.get("k8s.io/initial-events-end") == "true", raw
                assert [n for _, n in seen] == ["a", "b", "c"], seen
                core.delete_namespaced_config_map("b", "wl")
            continue
        seen.append((kind, event["object"].metadata.name))
        if kind == "DELETED":
            w.stop()
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c"), ("DELETED", "b")], seen
    assert int(bookmark["metadata"]["resourceVersion"]) > 0
    print("ok watch list")


if __name__ == "__main__":
    main(sys.argv[1])
