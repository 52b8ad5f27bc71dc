"""The official Python client (kubernetes 37.x) against kcel-apiserver.

Run by tests/python_client.rs with the kubeconfig the server wrote. Prints one `ok <step>`
line per step that passed; any failure raises (exit status 1).
"""

import sys

import yaml
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def expect_status(code, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except ApiException as e:
        assert e.status == code, (e.status, e.body)
        return e
    raise AssertionError(f"expected {code}")


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()

    names = [ns.metadata.name for ns in core.list_namespace().items]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"], names
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    print("ok namespaces")

    # The client sends creates without a Content-Type header.
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c1"), data={"a": "1"})
    created = core.create_namespaced_config_map("py", cm)
    assert created.metadata.uid and created.metadata.resource_version
    e = expect_status(409, core.create_namespaced_config_map, "py", cm)
    assert '"reason":"AlreadyExists"' in e.body.replace(" ", ""), e.body
    e = expect_status(404, core.create_namespaced_config_map, "nowhere", cm)
    assert 'namespaces \\"nowhere\\" not found' in e.body, e.body
    print("ok create")

    dry = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="dry"))
    core.create_namespaced_config_map("py", dry, dry_run="All")
    expect_status(404, core.read_namespaced_config_map, "dry", "py")
    print("ok dry run")

    # A dict is sent as a strategic merge patch, a list as a JSON patch.
    patched = core.patch_namespaced_config_map("c1", "py", {"data": {"b": "2"}})
    assert patched.data == {"a": "1", "b": "2"}, patched.data
    patched = core.patch_namespaced_config_map(
        "c1", "py", [{"op": "replace", "path": "/data/a", "value": "9"}]
    )
    assert patched.data == {"a": "9", "b": "2"}, patched.data
    print("ok patch")

    for i in range(2, 6):
        core.create_namespaced_config_map(
            "py", client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"c{i}"))
        )
    first = core.list_namespaced_config_map("py", limit=2)
    assert [i.metadata.name for i in first.items] == ["c1", "c2"]
    assert first.metadata._continue and first.metadata.remaining_item_count == 3
    rest = core.list_namespaced_config_map("py", limit=10, _continue=first.metadata._continue)
    assert [i.metadata.name for i in rest.items] == ["c3", "c4", "c5"]
    assert rest.metadata._continue is None
    print("ok list with limit")

    w = watch.Watch()
    seen = []
    for event in w.stream(core.list_namespaced_config_map, "py", timeout_seconds=10):
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 5:
            core.patch_namespaced_config_map("c3", "py", {"data": {"x": "y"}})
            core.delete_namespaced_config_map("c4", "py")
        if len(seen) == 7:
            w.stop()
    assert seen[:5] == [("ADDED", f"c{i}") for i in range(1, 6)], seen
    assert seen[5:] == [("MODIFIED", "c3"), ("DELETED", "c4")], seen
    print("ok watch")

    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=1,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="main", image="nginx")]),
            ),
        ),
    )
    apps.create_namespaced_deployment("py", deployment)
    scaled = apps.patch_namespaced_deployment("web", "py", {"spec": {"replicas": 3}})
    assert scaled.spec.replicas == 3 and scaled.metadata.generation == 2
    print("ok deployment")

    # Server-side apply: the client sends the configuration as JSON (valid YAML).
    applied = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"},
               "data": {"a": "1", "b": "2"}}
    apply = "application/apply-patch+yaml"
    out = core.patch_namespaced_config_map("ssa", "py", applied, field_manager="py-one",
                                           _content_type=apply)
    assert out.data == {"a": "1", "b": "2"}, out.data
    entry = out.metadata.managed_fields[0]
    assert (entry.manager, entry.operation, entry.fields_v1) == (
        "py-one", "Apply", {"f:data": {"f:a": {}, "f:b": {}}}), entry
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"},
             "data": {"a": "9"}}
    e = expect_status(409, core.patch_namespaced_config_map, "ssa", "py", other,
                      field_manager="py-two", _content_type=apply)
    assert "Apply failed with 1 conflict: conflict with \\\"py-one\\\": .data.a" in e.body, e.body
    out = core.patch_namespaced_config_map("ssa", "py", other, field_manager="py-two",
                                           force=True, _content_type=apply)
    assert out.data == {"a": "9", "b": "2"}, out.data
    # py-one stops applying b: nobody else owns it, so it goes.
    mine = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {}}
    out = core.patch_namespaced_config_map("ssa", "py", mine, field_manager="py-one",
                                           _content_type=apply)
    assert out.data == {"a": "9"}, out.data
    print("ok server-side apply")

    authz = client.AuthorizationV1Api()
    pods = client.V1ResourceAttributes(verb="list", resource="pods", namespace="py")
    review = authz.create_subject_access_review(client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(user="nobody", resource_attributes=pods)))
    assert (review.status.allowed, review.status.denied) == (False, None), review.status
    review = authz.create_subject_access_review(client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(groups=["system:masters"],
                                              resource_attributes=pods)))
    assert review.status.allowed is True, review.status
    local = authz.create_namespaced_local_subject_access_review("py", client.V1LocalSubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(groups=["system:masters"],
                                              resource_attributes=pods)))
    assert (local.metadata.namespace, local.status.allowed) == ("py", True), local
    elsewhere = client.V1ResourceAttributes(verb="list", resource="pods", namespace="other")
    e = expect_status(422, authz.create_namespaced_local_subject_access_review, "py",
                      client.V1LocalSubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
                          user="nobody", resource_attributes=elsewhere)))
    assert ('spec.resourceAttributes.namespace: Invalid value: \\"other\\": must match '
            'metadata.namespace') in e.body, e.body
    print("ok access reviews")

    authn = client.AuthenticationV1Api()
    with open(kubeconfig) as f:
        token = yaml.safe_load(f)["users"][0]["user"]["token"]
    review = authn.create_token_review(client.V1TokenReview(
        spec=client.V1TokenReviewSpec(token=token, audiences=["api"])))
    assert review.status.authenticated is True, review.status
    assert review.status.user.username == "kcel-admin", review.status
    assert "system:masters" in review.status.user.groups, review.status
    assert review.status.audiences == ["api"], review.status
    review = authn.create_token_review(client.V1TokenReview(
        spec=client.V1TokenReviewSpec(token="no-such-token")))
    assert not review.status.authenticated, review.status
    e = expect_status(400, authn.create_token_review, client.V1TokenReview(
        spec=client.V1TokenReviewSpec(token="")))
    assert "token is required for TokenReview in authentication" in e.body, e.body
    print("ok token reviews")

    core.delete_namespace("py")
    print("ok delete namespace")


if __name__ == "__main__":
    main(sys.argv[1])
