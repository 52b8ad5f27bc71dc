//! `kubernetes.quantity`.

use super::support::*;

const FORMAT_ERR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

fn cases() -> Vec<Case> {
    vec![
        t(
            "quantity('12Mi') == quantity('12582912')",
            "quantity_test:12Mi",
        ),
        e("quantity('10Mo')", FORMAT_ERR, "quantity_test:10Mo"),
        e(
            "quantity('10Mm')",
            "unable to parse quantity's suffix",
            "quantity_test:10Mm",
        ),
        e(
            "quantity('1K')",
            "unable to parse quantity's suffix",
            "spec: capital K",
        ),
        e("quantity('')", FORMAT_ERR, "spec"),
        t(
            "isQuantity('20') && isQuantity('20M') && isQuantity('20Mi')",
            "quantity_test:isQuantity",
        ),
        t(
            "!isQuantity('20Mo') && !isQuantity('10Mm')",
            "quantity_test:isQuantity false",
        ),
        Case {
            expr: "isQuantity([1, 2, 3])",
            want: Want::Compile("found no matching overload for 'isQuantity'"),
            ..T
        },
        t(
            "quantity('200M') == quantity('200M')",
            "quantity_test:equality_reflexivity",
        ),
        t(
            "quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
            "quantity_test:equality_symmetry §9.5",
        ),
        t(
            "quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M')",
            "quantity_test:equality_transitivity",
        ),
        t(
            "quantity('200M') != quantity('0.3G')",
            "quantity_test:inequality",
        ),
        t(
            "quantity('50M').isLessThan(quantity('50Mi'))",
            "quantity_test:quantity_less",
        ),
        t(
            "!quantity('100M').isLessThan(quantity('50M'))",
            "quantity_test:quantity_less_obvious false",
        ),
        t(
            "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
            "quantity_test:quantity_greater_obvious",
        ),
        t(
            "!quantity('50M').isGreaterThan(quantity('100M'))",
            "quantity_test:quantity_greater_false",
        ),
        v(
            "quantity('200M').compareTo(quantity('0.2G'))",
            "0",
            "quantity_test:compare_equal",
        ),
        v(
            "quantity('50M').compareTo(quantity('50Mi'))",
            "-1",
            "quantity_test:compare_less",
        ),
        v(
            "quantity('50Mi').compareTo(quantity('50M'))",
            "1",
            "quantity_test:compare_greater",
        ),
        t(
            "quantity('50k').add(quantity('20')) == quantity('50.02k')",
            "quantity_test:add_quantity",
        ),
        t(
            "!quantity('50k').add(20).isLessThan(quantity('50020'))",
            "quantity_test:add_int",
        ),
        t(
            "quantity('50k').sub(quantity('20')) == quantity('49.98k')",
            "quantity_test:sub_quantity",
        ),
        t(
            "quantity('50k').sub(20) == quantity('49980')",
            "quantity_test:sub_int",
        ),
        v(
            "quantity('50k').add(20).sub(quantity('100k')).asInteger()",
            "-49980",
            "quantity_test:arith_chain_1",
        ),
        v(
            "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger()",
            "20",
            "quantity_test:arith_chain",
        ),
        v(
            "quantity('50k').asInteger()",
            "50000",
            "quantity_test:as_integer",
        ),
        e(
            "quantity('9999999999999999999999999999999999999G').asInteger()",
            "cannot convert value to integer",
            "quantity_test:as_integer_error",
        ),
        t(
            "!quantity('9999999999999999999999999999999999999G').isInteger()",
            "quantity_test:is_integer false",
        ),
        t("quantity('50').isInteger()", "quantity_test:is_integer"),
        v(
            "quantity('50.703k').asApproximateFloat()",
            "50703.0",
            "quantity_test:as_float",
        ),
        t(
            "[quantity('9999999999999999999999999999999999999')].all(x, x.add(quantity('1')).compareTo(x.add(quantity('2'))) == -1)",
            "quantity_test:add_big",
        ),
        v("sign(quantity('-1m'))", "-1", "spec"),
        v("sign(quantity('0'))", "0", "spec"),
        v("sign(quantity('5Ki'))", "1", "spec"),
        Case {
            expr: "quantity('1').sign()",
            want: Want::Compile("found no matching overload for 'sign'"),
            ..T
        },
        e(
            "quantity('1.5Gi').asInteger()",
            "cannot convert value to integer",
            "apimachinery: a fractional binary value takes the decimal path; AsInt64 fails",
        ),
        v(
            "quantity('1e3').asInteger()",
            "1000",
            "spec: decimal exponent",
        ),
        v("quantity('100m').asApproximateFloat()", "0.1", "spec"),
        t(
            "!quantity('1.0').isInteger()",
            "spec: apimachinery keeps 10×10^-1, AsInt64 fails for negative scales",
        ),
        t("quantity('1n') == quantity('0.000000001')", "spec"),
        t(
            "quantity('0.0000000001') == quantity('1n')",
            "spec: rounded up to nano units",
        ),
        t(
            "quantity('-0.0000000001') == quantity('-1n')",
            "spec: away from zero",
        ),
        v(
            "quantity('9E').add(quantity('9E')).asApproximateFloat()",
            "1.8e19",
            "spec: 18 × 10^18",
        ),
        e(
            "quantity('9E').add(quantity('9E')).asInteger()",
            "cannot convert value to integer",
            "spec: past int64",
        ),
        t(
            "quantity('16Ei') == quantity('9223372036854775807')",
            "spec: binary values capped at 2^63-1",
        ),
        t(
            "quantity('+1') == quantity('1') && quantity('-0') == quantity('0')",
            "spec",
        ),
        t("quantity('.5') == quantity('500m')", "spec"),
        // Costs (ct:TestQuantityCost).
        ct("quantity('12Mi')", (1, 1), 1, "ct:TestQuantityCost/path"),
        ct(
            "isQuantity('20M')",
            (1, 1),
            1,
            "ct:TestQuantityCost/isQuantity_megabytes",
        ),
        ct(
            "quantity('200M') == quantity('200M')",
            (3, 3),
            3,
            "ct:TestQuantityCost/equality_reflexivity",
        ),
        ct(
            "quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
            (3, 6),
            6,
            "ct:TestQuantityCost/equality_symmetry",
        ),
        ct(
            "quantity('50M').isLessThan(quantity('50Mi'))",
            (3, 3),
            3,
            "ct:TestQuantityCost/quantity_less",
        ),
        ct(
            "quantity('200M').compareTo(quantity('0.2G')) > 0",
            (4, 4),
            4,
            "ct:TestQuantityCost/compare_equal",
        ),
        ct(
            "quantity('50k').add(quantity('20')) == quantity('50.02k')",
            (5, 5),
            5,
            "ct:TestQuantityCost/add_quantity",
        ),
        ct(
            "quantity('50k').sub(20) == quantity('49980')",
            (4, 4),
            4,
            "ct:TestQuantityCost/sub_int",
        ),
        ct(
            "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() > 0",
            (7, 7),
            7,
            "ct:TestQuantityCost/arith_chain",
        ),
        ct(
            "quantity('50').isInteger()",
            (2, 2),
            2,
            "ct:TestQuantityCost/is_integer",
        ),
        ct(
            "quantity('50.703k').asApproximateFloat() > 0.0",
            (3, 3),
            3,
            "ct:TestQuantityCost/as_float",
        ),
        sc("sign(quantity('123456789012345678901'))", (4, 4), 4),
    ]
}

#[test]
fn quantity() {
    run("kubernetes.quantity", &cases(), 40);
}
