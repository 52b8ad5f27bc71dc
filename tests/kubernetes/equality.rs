//! SPEC §2.11: `==` between a Kubernetes type and a value of another type, which the checker
//! rejects when both sides are typed, is `no such overload` at run time through `dyn`
//! (upstream's `Equal` methods in `pkg/cel/*.go` return `MaybeNoSuchOverloadErr` /
//! `ValOrErr(other, "no such overload")`), not `false`. cel-go's `types.Equal` compares
//! `null` by identity first and otherwise asks the left operand, so only a Kubernetes value
//! on the left errors; `!=` is `Equal(a, b) != true` in cel-go (`evalNe`), never an error.

use super::support::*;

const SRC: &str = "spec 2.11";

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (value, same) in [
        ("ip('1.2.3.4')", "ip('1.2.3.4')"),
        ("cidr('10.0.0.0/8')", "cidr('10.0.0.0/8')"),
        ("url('https://a.b/c')", "url('https://a.b/c')"),
        ("quantity('1Gi')", "quantity('1024Mi')"),
        ("semver('1.2.3')", "semver('1.2.3+build')"),
        (
            "format.dns1123Label()",
            "format.named('dns1123Label').value()",
        ),
    ] {
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        cases.push(e(
            leak(format!("{value} == dyn('x')")),
            "no such overload",
            SRC,
        ));
        cases.push(e(
            leak(format!("{value} == dyn(1)")),
            "no such overload",
            SRC,
        ));
        cases.push(e(
            leak(format!("{value} == dyn([])")),
            "no such overload",
            SRC,
        ));
        // The other way round, CEL's heterogeneous equality applies: false.
        cases.push(v(leak(format!("dyn('x') == {value}")), "false", SRC));
        // null compares by identity before any Equal method runs.
        cases.push(v(leak(format!("{value} == dyn(null)")), "false", SRC));
        cases.push(v(leak(format!("dyn(null) == {value}")), "false", SRC));
        // `!=` negates only a true equality.
        cases.push(v(leak(format!("{value} != dyn('x')")), "true", SRC));
        // Same type: the type's own equality.
        cases.push(v(leak(format!("{value} == {same}")), "true", SRC));
        // A Kubernetes type against another Kubernetes type.
        cases.push(e(
            leak(format!("{value} == dyn(authorizer)")),
            "no such overload",
            SRC,
        ));
        // Errors are absorbed by logical operators like any other.
        cases.push(v(leak(format!("true || {value} == dyn(1)")), "true", SRC));
    }
    // Statically typed, the checker rejects it.
    cases.push(Case {
        expr: "ip('1.2.3.4') == '1.2.3.4'",
        want: Want::Compile("found no matching overload for '_==_' applied to '(net.IP, string)'"),
        src: SRC,
        ..T
    });
    cases
}

#[test]
fn cross_type_equality() {
    run("equality", &cases(), 60);
}
