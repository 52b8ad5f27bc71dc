//! Every documented example of the Kubernetes libraries runs and is true; the libraries a
//! Kubernetes version enables; the SPEC §9 surprises that concern these libraries.

use kcel_stdlib::kubernetes;

use super::support::*;

#[test]
fn every_example_is_true() {
    let mut count = 0;
    for lib in kubernetes::libraries_for((1, 37))
        .into_iter()
        .chain([kubernetes::lists(0), kubernetes::semver(0)])
    {
        for f in lib.functions() {
            for ex in f.examples() {
                let c = t(Box::leak(ex.clone().into_boxed_str()), "example");
                run(&format!("{} example", lib.name()), &[c], 1);
                count += 1;
            }
        }
    }
    assert!(count >= 80, "only {count} examples");
}

/// `kubernetes.sharding` is in no Kubernetes environment (upstream only parses shard
/// selectors); its examples run in one that adds it.
#[test]
fn the_sharding_examples_are_true() {
    let lib = kubernetes::sharding();
    let mut e = env();
    e.add_library(&lib);
    let cases: Vec<_> = lib
        .functions()
        .iter()
        .flat_map(|f| f.examples().iter())
        .map(|ex| t(Box::leak(ex.clone().into_boxed_str()), "example"))
        .collect();
    run_in(&e, "kubernetes.sharding example", &cases, 2);
}

#[test]
fn every_function_is_documented_with_costs() {
    for lib in kubernetes::libraries_for((1, 37)) {
        for f in lib.functions() {
            assert!(
                !f.doc().is_empty(),
                "{}: {} has no doc",
                lib.name(),
                f.name()
            );
        }
    }
}

fn names(version: (u32, u32)) -> Vec<(&'static str, u32)> {
    kubernetes::libraries_for(version)
        .iter()
        .map(|l| (l.name(), l.version()))
        .collect()
}

#[test]
fn libraries_by_kubernetes_version() {
    // SPEC §1.2.
    assert_eq!(
        names((1, 26)),
        [
            ("kubernetes.urls", 0),
            ("kubernetes.regex", 0),
            ("kubernetes.lists", 0)
        ]
    );
    let n = names((1, 30));
    assert!(n.contains(&("kubernetes.authz", 0)) && n.contains(&("kubernetes.quantity", 0)));
    assert!(n.contains(&("kubernetes.net.ip", 0)) && n.contains(&("kubernetes.net.cidr", 0)));
    assert!(!n.iter().any(|(l, _)| *l == "kubernetes.format"));
    let n = names((1, 31));
    assert!(n.contains(&("kubernetes.format", 0)) && n.contains(&("kubernetes.authzSelectors", 0)));
    assert!(!n.iter().any(|(l, _)| *l == "kubernetes.Semver"));
    let n = names((1, 36));
    assert!(n.contains(&("kubernetes.Semver", 1)) && n.contains(&("kubernetes.lists", 0)));
    let n = names((1, 37));
    assert!(n.contains(&("kubernetes.lists", 1)));
    assert_eq!(n.len(), 10);
    // `includes` only from lists v1; normalizing semver overloads only from v1.
    assert!(
        kubernetes::lists(0)
            .functions()
            .iter()
            .all(|f| f.name() != "includes")
    );
    assert!(
        kubernetes::lists(1)
            .functions()
            .iter()
            .any(|f| f.name() == "includes")
    );
    let v0 = kubernetes::semver(0);
    assert!(v0.functions().iter().all(|f| {
        f.overloads()
            .iter()
            .all(|o| o.id() != "string_bool_to_semver")
    }));
}

/// SPEC §9, items 2–6, each as one case (the suites hold more).
#[test]
fn spec_surprises() {
    let cases = [
        // 2. min()/max() of an empty list are errors; sum() is the typed zero.
        e("[].min()", "min called on empty list", "spec §9.2"),
        v("[].sum()", "0", "spec §9.2"),
        // 3. Host bits are kept; CIDR cost size is the prefix length in bytes.
        t(
            "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
            "spec §9.3",
        ),
        Case {
            expr: "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
            want: Want::Value("true"),
            // cidr 1 + ip 1 + containsIP ⌈2 × 1 × 0.1⌉ = 1 (size 1 for /8, not 4).
            rt: Some(3),
            ..T
        },
        // 4. ip.isCanonical errors on bad input; mapped addresses and zones are rejected.
        e(
            "ip.isCanonical('bad')",
            "IP Address \"bad\" parse error during conversion from string: ParseAddr(\"bad\"): unable to parse IP",
            "spec §9.4",
        ),
        t(
            "!isIP('::ffff:1.2.3.4') && !isCIDR('::ffff:1.2.3.4/128') && !isIP('fe80::1%eth0')",
            "spec §9.4",
        ),
        // 5. sign is global only; equality is numeric.
        Case {
            expr: "quantity('1').sign()",
            want: Want::Compile("found no matching overload for 'sign'"),
            ..T
        },
        t(
            "sign(quantity('-1')) == -1 && quantity('200M') == quantity('0.2G')",
            "spec §9.5",
        ),
        // 6. Constant find/findAll patterns fail when the program is built.
        Case {
            expr: "'x'.find('(')",
            want: Want::Program("error parsing regexp: missing closing ): `(`"),
            ..T
        },
        e(
            "'x'.find('(' + '')",
            "Illegal regex: error parsing regexp: missing closing ): `(`",
            "spec §9.6",
        ),
    ];
    run("SPEC §9", &cases, 10);
}
