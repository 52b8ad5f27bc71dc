"""Sharded list and watch (KEP-5866) with the official Python client (kubernetes 37.x).

A port of kubernetes/kubernetes test/e2e/apimachinery/sharding.go ("Server-Side Sharded
List and Watch"), run by tests/sharding.rs against a server started with
--feature-gates=ShardedListAndWatch=true. The shard selectors are built as upstream's
sharding.NewShardRangeSelector builds them, and membership is checked with an independent
FNV-1a here. Prints one `ok <step>` line per step; any failure raises (exit status 1).
"""

import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

FULL = 1 << 64


def shard_selector(field, index, total):
    """sharding.NewShardRangeSelector(field, index, total).String()."""
    start = index * FULL // total
    end = "0x10000000000000000" if index == total - 1 else "0x%016x" % ((index + 1) * FULL // total)
    return "shardRange(%s, '0x%016x', '%s')" % (field, start, end)


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def in_shard(value, index, total):
    h = fnv1a64(value)
    return index * FULL // total <= h < (index + 1) * FULL // total


def uid_list_shards(core, ns):
    """It "should partition LIST results across 4 UID shards with disjoint completeness,
    pagination, and ShardInfo echo"."""
    created = {}
    for i in range(24):
        cm = client.V1ConfigMap(
            metadata=client.V1ObjectMeta(
                name="shard-uid-cm-%02d" % i, labels={"e2e-sharding": "uid-list"}
            ),
            data={"index": str(i)},
        )
        made = core.create_namespaced_config_map(ns, cm)
        created[made.metadata.uid] = made.metadata.name

    unpaged, paged = {}, {}
    for shard in range(4):
        sel = shard_selector("object.metadata.uid", shard, 4)
        listed = core.list_namespaced_config_map(
            ns, label_selector="e2e-sharding=uid-list", shard_selector=sel
        )
        assert listed.metadata.shard_info is not None, listed.metadata
        assert listed.metadata.shard_info.selector == sel, (listed.metadata.shard_info, sel)
        for cm in listed.items:
            uid = cm.metadata.uid
            assert in_shard(uid, shard, 4), (shard, cm.metadata.name)
            assert uid not in unpaged, uid
            unpaged[uid] = shard

        cont = None
        while True:
            page = core.list_namespaced_config_map(
                ns,
                label_selector="e2e-sharding=uid-list",
                shard_selector=sel,
                limit=2,
                _continue=cont,
            )
            assert page.metadata.shard_info.selector == sel
            assert len(page.items) <= 2
            # A filtered list does not know how many remain (upstream: Predicate.Empty()).
            assert page.metadata.remaining_item_count is None, page.metadata
            for cm in page.items:
                uid = cm.metadata.uid
                assert in_shard(uid, shard, 4), (shard, cm.metadata.name)
                assert uid not in paged, uid
                paged[uid] = shard
            cont = page.metadata._continue
            if not cont:
                break

    assert len(unpaged) == 24 and set(unpaged) == set(created), (len(unpaged), len(created))
    assert paged == unpaged
    # Every shard got something: 24 random UIDs in 4 quarters leave one empty with
    # probability 4 * (3/4)^24, about 0.0004.
    print("ok uid shards partition the list")


class Collector:
    """One watch, read on a thread into a list of (type, uid)."""

    def __init__(self, core, ns, rv, selector):
        self.events = []
        self.lock = threading.Lock()
        self.error = None
        self.thread = threading.Thread(
            target=self.run, args=(core, ns, rv, selector), daemon=True
        )
        self.thread.start()

    def run(self, core, ns, rv, selector):
        try:
            w = watch.Watch()
            for event in w.stream(
                core.list_namespaced_config_map,
                ns,
                resource_version=rv,
                label_selector="e2e-sharding=watch-test",
                shard_selector=selector,
                timeout_seconds=60,
            ):
                with self.lock:
                    self.events.append((event["type"], event["object"].metadata.uid))
        except Exception as e:  # reported by the main thread
            self.error = e

    def snapshot(self):
        with self.lock:
            return list(self.events)


def wait_for(collectors, count, what):
    deadline = time.time() + 30
    while time.time() < deadline:
        for c in collectors:
            assert c.error is None, c.error
        if sum(len(c.snapshot()) for c in collectors) >= count:
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s: %s" % (what, [c.snapshot() for c in collectors]))


def watch_shards(core, ns):
    """It "should filter LIST and WATCH events by object.metadata.uid and
    object.metadata.namespace"."""
    rv = core.list_namespaced_config_map(ns).metadata.resource_version
    uid_sels = [shard_selector("object.metadata.uid", s, 2) for s in range(2)]
    ns_sels = [shard_selector("object.metadata.namespace", s, 2) for s in range(2)]
    uid_watch = [Collector(core, ns, rv, s) for s in uid_sels]
    ns_watch = [Collector(core, ns, rv, s) for s in ns_sels]

    created = []
    for i in range(12):
        cm = client.V1ConfigMap(
            metadata=client.V1ObjectMeta(
                name="shard-watch-cm-%02d" % i, labels={"e2e-sharding": "watch-test"}
            ),
            data={"step": "created"},
        )
        created.append(core.create_namespaced_config_map(ns, cm))
    uids = [cm.metadata.uid for cm in created]

    # The namespace shards: all 12 on the namespace's shard, none on the other.
    for shard in range(2):
        listed = core.list_namespaced_config_map(
            ns, label_selector="e2e-sharding=watch-test", shard_selector=ns_sels[shard]
        )
        assert listed.metadata.shard_info is not None
        want = 12 if in_shard(ns, shard, 2) else 0
        assert len(listed.items) == want, (shard, len(listed.items))

    def verify(phase, types_so_far):
        for collectors, field in ((uid_watch, "uid"), (ns_watch, "namespace")):
            wait_for(collectors, 12 * len(types_so_far), "%s events by %s" % (phase, field))
            # Let anything extra arrive before checking that nothing extra came.
            time.sleep(0.3)
            total = 0
            for shard, c in enumerate(collectors):
                got = c.snapshot()
                if field == "uid":
                    expected = [u for u in uids if in_shard(u, shard, 2)]
                else:
                    expected = uids if in_shard(ns, shard, 2) else []
                want = [(t, u) for t in types_so_far for u in expected]
                assert sorted(got) == sorted(want), (phase, field, shard, got, want)
                # Events of one phase come before the next phase's.
                assert [t for t, _ in got] == [t for t in types_so_far for _ in expected]
                total += len([e for e in got if e[0] == phase])
            assert total == 12, (phase, field, total)

    verify("ADDED", ["ADDED"])
    for cm in created:
        cm.data["step"] = "modified"
        core.replace_namespaced_config_map(cm.metadata.name, ns, cm)
    verify("MODIFIED", ["ADDED", "MODIFIED"])
    for cm in created:
        core.delete_namespaced_config_map(cm.metadata.name, ns)
    verify("DELETED", ["ADDED", "MODIFIED", "DELETED"])
    print("ok complementary watches partition events")


def bad_selector(core, ns):
    try:
        core.list_namespaced_config_map(
            ns, shard_selector="shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"
        )
    except ApiException as e:
        assert e.status == 400, (e.status, e.body)
        assert 'did you mean \\"0x0000000000000000\\"' in e.body, e.body
        assert "invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value" in e.body
    else:
        raise AssertionError("a bad selector was accepted")
    print("ok bad selector")


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    for ns in ("sharding-1", "sharding-2"):
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    uid_list_shards(core, "sharding-1")
    watch_shards(core, "sharding-2")
    bad_selector(core, "sharding-1")


if __name__ == "__main__":
    main(sys.argv[1])
