//! Services get cluster IPs and node ports as kube-apiserver's Service storage allocates them
//! (kubernetes `pkg/registry/core/service/storage/alloc.go`, the ServiceCIDR `ipallocator`
//! and the `portallocator`), through real kubectl (`KCEL_KUBECTL`, skipped visibly without
//! it): from the default ranges `10.0.0.0/24` and `30000-32767`, a requested address or port
//! refused with upstream's text when taken or out of range, what an update leaves out kept,
//! a deleted Service's address free again, and a server started with other ranges using them.

mod support;

use support::Kubectl;

fn last_octet(ip: &str) -> u8 {
    let (net, last) = ip.rsplit_once('.').expect("an IPv4 address");
    assert_eq!(net, "10.0.0", "{ip}");
    last.parse().expect("a number")
}

#[test]
fn services_get_addresses_and_node_ports_from_the_ranges() {
    let Some(k) = Kubectl::start("services_get_addresses_and_node_ports_from_the_ranges") else {
        return;
    };
    k.ok(&["create", "service", "clusterip", "web", "--tcp=80:8080"]);
    k.ok(&["create", "service", "nodeport", "np", "--tcp=80:8080"]);
    let web = k.json(&["get", "svc", "web"]);
    let ip = web["spec"]["clusterIP"].as_str().unwrap().to_owned();
    // Dynamic addresses come from the upper band (above the first 16 of the range).
    assert!((17..=254).contains(&last_octet(&ip)), "{ip}");
    assert_eq!(web["spec"]["clusterIPs"], serde_json::json!([ip]));
    assert_eq!(web["spec"]["ipFamilies"], serde_json::json!(["IPv4"]));
    assert_eq!(web["spec"]["ipFamilyPolicy"], "SingleStack");
    assert_eq!(web["spec"]["internalTrafficPolicy"], "Cluster");
    let np = k.json(&["get", "svc", "np"]);
    let node_port = np["spec"]["ports"][0]["nodePort"].as_u64().unwrap();
    assert!((30000..=32767).contains(&node_port), "{node_port}");
    assert_eq!(np["spec"]["externalTrafficPolicy"], "Cluster");
    let table = k.ok(&["get", "svc", "np"]);
    assert!(table.contains(&format!("80:{node_port}/TCP")), "{table}");

    // Taken and foreign addresses and ports, in upstream's words.
    let ran = k.run(&[
        "create",
        "service",
        "clusterip",
        "web2",
        "--tcp=80",
        &format!("--clusterip={ip}"),
    ]);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            format!(
                "error: failed to create ClusterIP service: Service \"web2\" is invalid: \
                 spec.clusterIPs: Invalid value: [\"{ip}\"]: failed to allocate IP {ip}: \
                 provided IP is already allocated\n"
            )
            .as_str()
        )
    );
    let ran = k.run(&[
        "create",
        "service",
        "clusterip",
        "far",
        "--tcp=80",
        "--clusterip=10.9.9.9",
    ]);
    assert!(
        ran.stderr.contains(
            "spec.clusterIPs: Invalid value: [\"10.9.9.9\"]: failed to allocate IP 10.9.9.9: \
             the provided network does not match the current range"
        ),
        "{ran:?}"
    );
    let ran = k.run(&[
        "create",
        "service",
        "nodeport",
        "np2",
        "--tcp=80",
        &format!("--node-port={node_port}"),
    ]);
    assert!(
        ran.stderr.contains(&format!(
            "spec.ports[0].nodePort: Invalid value: {node_port}: provided port is already allocated"
        )),
        "{ran:?}"
    );
    let ran = k.run(&[
        "create",
        "service",
        "nodeport",
        "np3",
        "--tcp=80",
        "--node-port=80",
    ]);
    assert!(
        ran.stderr.contains(
            "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid \
             range. The range of valid ports is 30000-32767"
        ),
        "{ran:?}"
    );
    // A dry run stores nothing; its dynamic address is the range's network address, as
    // upstream's dry-run allocator answers.
    let dry = k.ok(&[
        "create",
        "service",
        "clusterip",
        "dry",
        "--tcp=80",
        "--dry-run=server",
        "-o",
        "jsonpath={.spec.clusterIP}",
    ]);
    assert_eq!(dry, "10.0.0.0");

    // A replace without the allocated fields keeps them (`patchAllocatedValues`).
    let manifest = "apiVersion: v1\nkind: Service\nmetadata:\n  name: np\nspec:\n  type: NodePort\n  selector:\n    app: np\n  ports:\n  - name: 80-8080\n    port: 80\n    targetPort: 9090\n";
    k.ok_stdin(&["replace", "-f", "-"], manifest);
    let replaced = k.json(&["get", "svc", "np"]);
    assert_eq!(replaced["spec"]["clusterIP"], np["spec"]["clusterIP"]);
    assert_eq!(replaced["spec"]["ports"][0]["nodePort"], node_port);
    assert_eq!(replaced["spec"]["ports"][0]["targetPort"], 9090);
    // A Service changed to NodePort gets a node port; changed back to ClusterIP, the node
    // port and traffic policy the patch leaves in place are dropped
    // (`dropTypeDependentFields`) and the port is free again.
    let ran = k.run(&[
        "patch",
        "svc",
        "web",
        "-p",
        r#"{"spec":{"type":"NodePort"}}"#,
    ]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let port = k.json(&["get", "svc", "web"])["spec"]["ports"][0]["nodePort"].clone();
    assert!(port.as_u64().is_some_and(|p| p != node_port), "{port}");
    k.ok(&[
        "patch",
        "svc",
        "web",
        "-p",
        r#"{"spec":{"type":"ClusterIP"}}"#,
    ]);
    let web = k.json(&["get", "svc", "web"]);
    assert!(web["spec"]["ports"][0].get("nodePort").is_none(), "{web}");
    assert!(web["spec"].get("externalTrafficPolicy").is_none(), "{web}");
    assert_eq!(web["spec"]["clusterIP"], ip);
    k.ok(&[
        "create",
        "service",
        "nodeport",
        "np4",
        "--tcp=80",
        &format!("--node-port={port}"),
    ]);

    // Deleting a Service frees its address.
    k.ok(&["delete", "svc", "web"]);
    k.ok(&[
        "create",
        "service",
        "clusterip",
        "again",
        "--tcp=80",
        &format!("--clusterip={ip}"),
    ]);
    assert_eq!(k.json(&["get", "svc", "again"])["spec"]["clusterIP"], ip);

    // A LoadBalancer Service changed to NodePort keeps its node port and loses its load
    // balancer's status and `allocateLoadBalancerNodePorts` (`dropTypeDependentFields`).
    k.ok(&["create", "service", "loadbalancer", "lb", "--tcp=80"]);
    let ingress = r#"{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}}"#;
    k.ok(&[
        "patch",
        "svc",
        "lb",
        "--subresource=status",
        "--type=merge",
        "-p",
        ingress,
    ]);
    let lb = k.json(&["get", "svc", "lb"]);
    assert_eq!(
        lb["status"]["loadBalancer"]["ingress"][0]["ip"],
        "192.0.2.1"
    );
    assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
    let lb_port = lb["spec"]["ports"][0]["nodePort"].clone();
    k.ok(&[
        "patch",
        "svc",
        "lb",
        "-p",
        r#"{"spec":{"type":"NodePort"}}"#,
    ]);
    let lb = k.json(&["get", "svc", "lb"]);
    assert_eq!(
        lb["status"],
        serde_json::json!({"loadBalancer": {}}),
        "{lb}"
    );
    assert!(
        lb["spec"].get("allocateLoadBalancerNodePorts").is_none(),
        "{lb}"
    );
    assert_eq!(lb["spec"]["ports"][0]["nodePort"], lb_port);
}

#[test]
fn the_ranges_follow_the_flags() {
    let Some(k) = Kubectl::start_with(
        "the_ranges_follow_the_flags",
        &[],
        &[
            "--service-cluster-ip-range",
            "10.96.0.0/28",
            "--service-node-port-range",
            "31000-31001",
        ],
    ) else {
        return;
    };
    k.ok(&["create", "service", "nodeport", "a", "--tcp=80"]);
    k.ok(&["create", "service", "nodeport", "b", "--tcp=80"]);
    let a = k.json(&["get", "svc", "a"]);
    let b = k.json(&["get", "svc", "b"]);
    for s in [&a, &b] {
        let ip = s["spec"]["clusterIP"].as_str().unwrap();
        assert!(ip.starts_with("10.96.0."), "{ip}");
    }
    let mut ports = [&a, &b].map(|s| s["spec"]["ports"][0]["nodePort"].as_u64().unwrap());
    ports.sort();
    assert_eq!(ports, [31000, 31001]);
    let ran = k.run(&["create", "service", "nodeport", "c", "--tcp=80"]);
    assert!(
        ran.stderr
            == "error: failed to create NodePort service: Internal error occurred: failed to \
                allocate a nodePort: range is full\n",
        "{ran:?}"
    );
}
