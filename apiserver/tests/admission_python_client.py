"""The official Python client (kubernetes 37.x) with ValidatingAdmissionPolicy.

Run by tests/admission_python_client.rs with the kubeconfig the server wrote. Creates the
documentation's policy (object.spec.replicas <= 5 on apps/v1 Deployments) with typed models,
sees a 422 Invalid for six replicas, a Warning with a Warn binding, a ConfigMap param chosen by
selector raising the limit, and a missing param denied; then a MutatingAdmissionPolicy adding a
label to ConfigMaps (seen in the created object) and one whose expression fails (403 Invalid). Prints one `ok <step>` line per step;
any failure raises (exit status 1).
"""

import json
import sys
import warnings

from kubernetes import client, config
from kubernetes.client.rest import ApiException

M = client  # the typed models live in the client module


def deployment(name, replicas):
    labels = {"app": name}
    return M.V1Deployment(
        metadata=M.V1ObjectMeta(name=name),
        spec=M.V1DeploymentSpec(
            replicas=replicas,
            selector=M.V1LabelSelector(match_labels=labels),
            template=M.V1PodTemplateSpec(
                metadata=M.V1ObjectMeta(labels=labels),
                spec=M.V1PodSpec(containers=[M.V1Container(name="c", image="nginx:1.27")]),
            ),
        ),
    )


def rule():
    return M.V1NamedRuleWithOperations(
        api_groups=["apps"], api_versions=["v1"], operations=["CREATE", "UPDATE"],
        resources=["deployments"])


def denied(call, *args):
    try:
        call(*args)
    except ApiException as e:
        assert e.status == 422, (e.status, e.body)
        body = json.loads(e.body)
        assert body["reason"] == "Invalid", body
        return body
    raise AssertionError("expected 422")


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    adm = client.AdmissionregistrationV1Api()
    apps = client.AppsV1Api()
    core = client.CoreV1Api()
    adm.create_validating_admission_policy(M.V1ValidatingAdmissionPolicy(
        metadata=M.V1ObjectMeta(name="demo-policy.example.com"),
        spec=M.V1ValidatingAdmissionPolicySpec(
            failure_policy="Fail",
            match_constraints=M.V1MatchResources(resource_rules=[rule()]),
            validations=[M.V1Validation(expression="object.spec.replicas <= 5")])))
    binding = adm.create_validating_admission_policy_binding(
        M.V1ValidatingAdmissionPolicyBinding(
            metadata=M.V1ObjectMeta(name="demo-binding-test.example.com"),
            spec=M.V1ValidatingAdmissionPolicyBindingSpec(
                policy_name="demo-policy.example.com", validation_actions=["Deny"])))
    policy = adm.read_validating_admission_policy("demo-policy.example.com")
    assert policy.status.observed_generation == 1, policy.status
    assert policy.spec.match_constraints.match_policy == "Equivalent", policy.spec
    print("ok created")

    body = denied(apps.create_namespaced_deployment, "default", deployment("web", 6))
    assert body["message"] == (
        "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy "
        "'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: "
        "failed expression: object.spec.replicas <= 5"), body
    assert body["code"] == 422 and body["details"]["kind"] == "deployments", body
    print("ok denied")

    binding.spec.validation_actions = ["Warn"]
    adm.replace_validating_admission_policy_binding(binding.metadata.name, binding)
    with warnings.catch_warnings(record=True):
        resp = apps.create_namespaced_deployment_with_http_info(
            "default", deployment("web", 6), _preload_content=False)
    headers = resp[2] if isinstance(resp, tuple) else resp.headers
    warning = headers.get("Warning", "")
    assert warning == ("299 - \"Validation failed for ValidatingAdmissionPolicy "
                       "'demo-policy.example.com' with binding 'demo-binding-test.example.com': "
                       "failed expression: object.spec.replicas <= 5\""), headers
    print("ok warned")

    adm.delete_validating_admission_policy_binding(binding.metadata.name)
    adm.create_validating_admission_policy(M.V1ValidatingAdmissionPolicy(
        metadata=M.V1ObjectMeta(name="limit"),
        spec=M.V1ValidatingAdmissionPolicySpec(
            param_kind=M.V1ParamKind(api_version="v1", kind="ConfigMap"),
            match_constraints=M.V1MatchResources(resource_rules=[rule()]),
            validations=[M.V1Validation(
                expression="object.spec.replicas <= int(params.data.max)")])))
    adm.create_validating_admission_policy_binding(M.V1ValidatingAdmissionPolicyBinding(
        metadata=M.V1ObjectMeta(name="limit-binding"),
        spec=M.V1ValidatingAdmissionPolicyBindingSpec(
            policy_name="limit", validation_actions=["Deny"],
            param_ref=M.V1ParamRef(
                selector=M.V1LabelSelector(match_labels={"limit": "replicas"}),
                parameter_not_found_action="Deny"))))
    core.create_namespaced_config_map("default", M.V1ConfigMap(
        metadata=M.V1ObjectMeta(name="limits", labels={"limit": "replicas"}),
        data={"max": "10"}))
    apps.create_namespaced_deployment("default", deployment("wide", 8))
    denied(apps.create_namespaced_deployment, "default", deployment("wider", 11))
    print("ok param")

    core.delete_namespaced_config_map("limits", "default")
    body = denied(apps.create_namespaced_deployment, "default", deployment("other", 1))
    assert body["message"].endswith(
        "denied request: failed to configure binding: no params found for policy binding "
        "with `Deny` parameterNotFoundAction"), body
    print("ok missing param")

    # MutatingAdmissionPolicy: an apply configuration adding a label to ConfigMaps.
    cm_rule = M.V1NamedRuleWithOperations(
        api_groups=[""], api_versions=["v1"], operations=["CREATE"], resources=["configmaps"])
    adm.create_mutating_admission_policy(M.V1MutatingAdmissionPolicy(
        metadata=M.V1ObjectMeta(name="add-team"),
        spec=M.V1MutatingAdmissionPolicySpec(
            match_constraints=M.V1MatchResources(resource_rules=[cm_rule]),
            reinvocation_policy="Never",
            mutations=[M.V1Mutation(
                patch_type="ApplyConfiguration",
                apply_configuration=M.V1ApplyConfiguration(
                    expression="Object{metadata: Object.metadata{labels: {'team': 'a'}}}"))])))
    adm.create_mutating_admission_policy_binding(M.V1MutatingAdmissionPolicyBinding(
        metadata=M.V1ObjectMeta(name="add-team-binding"),
        spec=M.V1MutatingAdmissionPolicyBindingSpec(policy_name="add-team")))
    created = core.create_namespaced_config_map("default", M.V1ConfigMap(
        metadata=M.V1ObjectMeta(name="labelled"), data={"a": "b"}))
    assert created.metadata.labels == {"team": "a"}, created.metadata
    assert core.read_namespaced_config_map("labelled", "default").metadata.labels == {"team": "a"}
    print("ok mutated")

    # A mutation whose expression fails under failurePolicy Fail: 403, reason Invalid.
    adm.create_mutating_admission_policy(M.V1MutatingAdmissionPolicy(
        metadata=M.V1ObjectMeta(name="broken"),
        spec=M.V1MutatingAdmissionPolicySpec(
            failure_policy="Fail",
            match_constraints=M.V1MatchResources(resource_rules=[cm_rule]),
            reinvocation_policy="Never",
            mutations=[M.V1Mutation(
                patch_type="JSONPatch",
                json_patch=M.V1JSONPatch(expression="[JSONPatch{op: 'add', path: '/data/x', "
                                                    "value: object.data.missing}]"))])))
    adm.create_mutating_admission_policy_binding(M.V1MutatingAdmissionPolicyBinding(
        metadata=M.V1ObjectMeta(name="broken-binding"),
        spec=M.V1MutatingAdmissionPolicyBindingSpec(policy_name="broken")))
    try:
        core.create_namespaced_config_map("default", M.V1ConfigMap(
            metadata=M.V1ObjectMeta(name="refused"), data={"a": "b"}))
        raise AssertionError("expected 403")
    except ApiException as e:
        assert e.status == 403, (e.status, e.body)
        body = json.loads(e.body)
        assert body["reason"] == "Invalid", body
        assert body["message"] == (
            "policy 'broken' with binding 'broken-binding' denied request: expression "
            "'[JSONPatch{op: 'add', path: '/data/x', value: object.data.missing}]' resulted in "
            "error: no such key: missing"), body
    print("ok mutation failed")


if __name__ == "__main__":
    main(sys.argv[1])
