//! `kubernetes.Semver`.

use super::support::*;

fn cases() -> Vec<Case> {
    vec![
        t("semver('1.2.3') == semver('1.2.3')", "semver_test:parse"),
        e(
            "semver('v1.0')",
            "No Major.Minor.Patch elements found",
            "semver_test:parse invalid",
        ),
        t("isSemver('1.2.3-beta.1+build.1')", "semver_test:isSemver"),
        t(
            "!isSemver('') && !isSemver('v1.0.0') && !isSemver(' 1.0.0')",
            "semver_test:isSemver false",
        ),
        t(
            "!isSemver('1. 0.0') && !isSemver('1.0.0 ') && !isSemver('01.01.01')",
            "semver_test:isSemver false 2",
        ),
        t(
            "!isSemver('1') && !isSemver('1.1')",
            "semver_test:isSemver short",
        ),
        t(
            "!isSemver('', true) && !isSemver(' 1.0.0', true)",
            "semver_test:normalize false",
        ),
        t(
            "!isSemver('1. 0.0', true) && !isSemver('1.0.0 ', true)",
            "semver_test:normalize whitespace",
        ),
        t(
            "isSemver('v1.0.0', true) && isSemver('01.01.01', true)",
            "semver_test:normalize",
        ),
        t(
            "isSemver('1', true) && isSemver('1.1', true)",
            "semver_test:normalize short",
        ),
        Case {
            expr: "isSemver([1, 2, 3])",
            want: Want::Compile("found no matching overload for 'isSemver'"),
            ..T
        },
        t(
            "semver('v01.01', true) == semver('1.1.0')",
            "semver_test:normalize equality",
        ),
        t(
            "semver('1.2.3') != semver('1.0.0')",
            "semver_test:inequality",
        ),
        t(
            "semver('1.0.0').isLessThan(semver('1.2.3')) && !semver('1.0.0').isLessThan(semver('1.0.0'))",
            "semver_test:isLessThan",
        ),
        t(
            "semver('1.2.3').isGreaterThan(semver('1.0.0')) && !semver('1.0.0').isGreaterThan(semver('1.0.0'))",
            "semver_test:isGreaterThan",
        ),
        v(
            "semver('1.2.3').compareTo(semver('1.2.3'))",
            "0",
            "semver_test:compareTo equal",
        ),
        v(
            "semver('1.0.0').compareTo(semver('1.2.3'))",
            "-1",
            "semver_test:compareTo less",
        ),
        v(
            "semver('1.2.3').compareTo(semver('1.0.0'))",
            "1",
            "semver_test:compareTo greater",
        ),
        v("semver('1.2.3').major()", "1", "semver_test:major"),
        v("semver('1.2.3').minor()", "2", "semver_test:minor"),
        v("semver('1.2.3').patch()", "3", "semver_test:patch"),
        // SemVer precedence and blang's messages.
        t(
            "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
            "semver.org §11",
        ),
        t(
            "semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
            "semver.org §11",
        ),
        t(
            "semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))",
            "semver.org §11",
        ),
        t(
            "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
            "semver.org §11",
        ),
        t(
            "semver('1.0.0+build.1') == semver('1.0.0+build.2')",
            "spec: build ignored",
        ),
        e(
            "semver('01.0.0')",
            "Major number must not contain leading zeroes \"01\"",
            "blang",
        ),
        e(
            "semver('1.x.0')",
            "Invalid character(s) found in minor number \"x\"",
            "blang",
        ),
        e(
            "semver('1.0.0-01')",
            "Numeric PreRelease version must not contain leading zeroes \"01\"",
            "blang",
        ),
        e("semver('1.0.0-')", "Prerelease is empty", "blang"),
        e("semver('1.0.0+')", "Build meta data is empty", "blang"),
        e(
            "semver('1.0.0-a_b')",
            "Invalid character(s) found in prerelease \"a_b\"",
            "blang",
        ),
        e("semver('')", "Version string empty", "blang"),
        e(
            "semver('1.0.')",
            "strconv.ParseUint: parsing \"\": invalid syntax",
            "blang",
        ),
        e(
            "semver('1.2-beta', true)",
            "short version cannot contain PreRelease/Build meta data",
            "spec",
        ),
        t(
            "semver('v1.02.003', true) == semver('1.2.3')",
            "spec: leading zeros stripped",
        ),
        t(
            "semver('1.0.00-rc.1', true) == semver('1.0.0-rc.1')",
            "spec",
        ),
        // Costs: parse ⌈S × 0.1⌉; accessors and comparisons 1.
        ct("semver('1.0.0')", (1, 1), 1, "ct:TestSemverCost/semver"),
        ct(
            "semver('1234.56789012345.67890123456789')",
            (4, 4),
            4,
            "ct:TestSemverCost/semver long input",
        ),
        ct(
            "isSemver('1234.56789012345.67890123456789')",
            (4, 4),
            4,
            "ct:TestSemverCost/isSemver long input",
        ),
        ct(
            "semver('1.2.3').major()",
            (2, 2),
            2,
            "ct:TestSemverCost/major",
        ),
        ct(
            "semver('1.0.0').isLessThan(semver('1.1.0'))",
            (3, 3),
            3,
            "ct:TestSemverCost/isLessThan",
        ),
        ct(
            "semver('1.0.0').compareTo(semver('1.2.3'))",
            (3, 3),
            3,
            "ct:TestSemverCost/compareTo",
        ),
        sc("semver('1.0.0') == semver('1.0.0')", (3, 3), 3),
    ]
}

#[test]
fn semver() {
    run("kubernetes.Semver", &cases(), 40);
}
