"""The Kubernetes format library: named formats, equality by name, apimachinery's exact messages."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, strategies as st

from evaluator.cel.library.format import CONSTANT_FORMATS, is_date, is_date_time
from evaluator.cel.values import OPTIONAL_NONE, Optional
from tests.evaluator.cel.library.helpers import cost_of, run


LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


# From Kubernetes' format_test.go (table) and the format section of the CRD validation test.
@pytest.mark.parametrize(
    "expr, errors",
    [
        ('format.dns1123Label().validate("my-label-name")', None),
        ('format.dns1123Subdomain().validate("apiextensions.k8s.io")', None),
        ('format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', None),
        ('format.dns1123LabelPrefix().validate("my-label-prefix-")', None),
        ('format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', None),
        ('format.dns1035LabelPrefix().validate("my-label-prefix-")', None),
        ('format.uri().validate("http://example.com")', None),
        ('format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', None),
        ('format.byte().validate("aGVsbG8=")', None),
        ('format.date().validate("2021-01-01")', None),
        ('format.datetime().validate("2021-01-01T00:00:00Z")', None),
        ('format.dns1123Label().validate("contains a space")', [LABEL_MSG]),
        ('format.dns1123Subdomain().validate("contains a space")', [SUBDOMAIN_MSG]),
        ('format.dns1035Label().validate("contains a space")', [DNS1035_MSG]),
        ('format.qualifiedName().validate("contains a space")', [NAME_PART_MSG]),
        ('format.dns1123LabelPrefix().validate("contains a space-")', [LABEL_MSG]),
        ('format.dns1123SubdomainPrefix().validate("contains a space-")', [SUBDOMAIN_MSG]),
        ('format.dns1035LabelPrefix().validate("contains a space-")', [DNS1035_MSG]),
        ('format.dns1123Label().validate("my-label-name")', None),
        ('format.dns1123Subdomain().validate("example.com")', None),
        ('format.dns1035Label().validate("my-label-name")', None),
        ('format.qualifiedName().validate("my.name")', None),
        ('format.byte().validate("aGVsbG8")', ["invalid base64"]),
        ('format.date().validate("2020-01-01")', None),
        ('format.date().validate("2020-01-32")', ["invalid date"]),
        ('format.datetime().validate("2020-01-01T00:00:00Z")', None),
        ('format.datetime().validate("2020-01-32T00:00:00Z")', ["invalid datetime"]),
        ('format.labelValue().validate("my-cool-label-Value")', None),
        ('format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")', [LABEL_VALUE_MSG]),
        ('format.labelValue().validate("")', None),
        ('format.named("dns1123Label").value().validate("my-name")', None),
        # Further messages of the same validators.
        ('format.dns1123Label().validate("a.b")', ["must not contain dots"]),
        ('format.dns1123Label().validate("' + "a" * 64 + '")', ["must be no more than 63 characters"]),
        ('format.dns1123Subdomain().validate("' + "a" * 254 + '")', ["must be no more than 253 characters"]),
        ('format.labelValue().validate("' + "a" * 64 + '")', ["must be no more than 63 bytes"]),
        ('format.qualifiedName().validate("' + "a" * 64 + '")', ["name part must be no more than 63 bytes"]),
        ('format.qualifiedName().validate("example.com/")', ["name part must be non-empty", NAME_PART_MSG]),
        ('format.qualifiedName().validate("/name")', ["prefix part must be non-empty"]),
        ('format.qualifiedName().validate("Ex.com/name")', ["prefix part " + SUBDOMAIN_MSG]),
        ('format.uri().validate("../relative")', ['parse "../relative": invalid URI for request']),
        ('format.uuid().validate("123E4567E89B12D3A456426614174000")', None),
        ('format.uuid().validate("not-a-uuid")', ["does not match the UUID format"]),
        ('format.date().validate("2020-02-30")', ["invalid date"]),
        ('format.date().validate("2000-02-29")', None),
        ('format.datetime().validate("2020-01-01T24:00:00Z")', ["invalid datetime"]),
        ('format.datetime().validate("2020-01-01t10:00:00.123+02:00")', None),
    ],
)
def test_validate(expr, errors):
    want = OPTIONAL_NONE if errors is None else Optional(errors)
    assert run(expr) == want


def test_first_message_is_a_plain_string():
    assert run('format.dns1123Label().validate("contains a space").value()[0]') == LABEL_MSG
    assert run('!format.named("unknown").hasValue()') is True
    assert run('format.dns1123Label().validate("my-label-name") == optional.none()') is True


@pytest.mark.parametrize("name", sorted(CONSTANT_FORMATS))
def test_named_lookup_matches_constant(name):
    assert run(f'format.named("{name}").hasValue()') is True
    assert run(f'format.named("{name}").value() == format.{name}()') is True


@pytest.mark.parametrize("left, right", list(itertools.permutations(sorted(CONSTANT_FORMATS), 2))[::7])
def test_distinct_formats_differ(left, right):
    assert run(f"format.{left}() == format.{right}()") is False


def test_prefix_masking_drops_two_bytes():
    # apimachinery's maskTrailingDash replaces the last *two* bytes with "a".
    assert run('format.dns1035LabelPrefix().validate("a1-")') == OPTIONAL_NONE
    assert run('format.dns1123LabelPrefix().validate("-")') == Optional([LABEL_MSG])


@pytest.mark.parametrize(
    "text, ok",
    [
        ("2021-01-01", True),
        ("0000-02-29", True),
        ("1900-02-29", False),
        ("2021-1-01", False),
        ("2021-01-01 ", False),
        ("２０２１-01-01", False),
    ],
)
def test_is_date(text, ok):
    assert is_date(text) is ok


@pytest.mark.parametrize(
    "text, ok",
    [
        ("2021-01-01T00:00:00Z", True),
        ("2021-01-01T23:59:59.999999999-07:00", True),
        ("2021-01-01", False),
        ("2021-01-01T00:00:00", False),
        ("2021-01-01T00:00:60Z", False),
        ("2021-01-01T00:00:00Z\n", False),
    ],
)
def test_is_date_time(text, ok):
    assert is_date_time(text) is ok


def test_validate_cost_uses_the_format_regex_size():
    # the variable: 1; format.dns1123Label(): 1; validate: ceil((1 + 9) * .1) * ceil(30 * .25) = 8
    assert cost_of("format.dns1123Label().validate(s)", s="my-label!") == 10


@given(st.sampled_from(sorted(CONSTANT_FORMATS)), st.text(max_size=40))
def test_validate_never_crashes(name, text):
    result = run(f"format.{name}().validate(s)", s=text)
    assert result == OPTIONAL_NONE or (result.has_value and all(type(m) is str for m in result.value))


# Kubernetes' cost_test.go runtime costs. Every literal is read from a variable here (one unit each), since
# the engine folds calls on constants.
@pytest.mark.parametrize(
    "expr, name, cost, reads",
    [
        ("format.named(n)", "dns1123subdomain", 1, 1),
        ("format.named(n).value().validate(s)", "dns1123Subdomain", 17, 2),
        ("format.named(n).value().validate(s)", "dns1123Label", 10, 2),
        ("format.named(n).value() == format.named(n).value()", "dns1123Label", 5, 2),
    ],
)
def test_runtime_cost(expr, name, cost, reads):
    assert cost_of(expr, n=name, s="my-name") == cost + reads
