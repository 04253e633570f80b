"""The webhook helper against the platform's own signature of one delivery
(sdks/fixtures/webhook-signature.json; a Rust test holds it) and against
Stripe's library, a second implementation of the same scheme."""

import json
from pathlib import Path

import pytest
import stripe

from alyt_sdk import SignatureError, sign, verify

VECTOR = json.loads((Path(__file__).parents[2] / "fixtures" / "webhook-signature.json").read_text())
BODY, HEADER, SECRET, AT = VECTOR["body"], VECTOR["header"], VECTOR["secret"], VECTOR["timestamp"]


def test_a_delivery_the_platform_signed_verifies_at_its_time():
    assert verify(BODY, HEADER, SECRET, now=AT + 60) == AT
    assert sign(SECRET, AT, BODY.encode()) == HEADER


def test_stripes_library_agrees():
    stripe.WebhookSignature.verify_header(BODY, HEADER.replace("v1=", "v1=", 1), SECRET, tolerance=None)


@pytest.mark.parametrize(
    "body, header, secret",
    [
        (BODY.replace("webhook.ping", "webhook.pong"), HEADER, SECRET),
        (BODY, HEADER, SECRET + "0"),
        (BODY, HEADER[:-1] + ("1" if HEADER[-1] == "0" else "0"), SECRET),
    ],
)
def test_a_changed_body_secret_or_signature_is_refused(body, header, secret):
    with pytest.raises(SignatureError):
        verify(body, header, secret, now=AT)


def test_outside_five_minutes_either_way_is_a_replay():
    assert verify(BODY, HEADER, SECRET, now=AT + 300) == AT
    assert verify(BODY, HEADER, SECRET, now=AT - 300) == AT
    for now in (AT + 301, AT - 301):
        with pytest.raises(SignatureError, match="tolerance"):
            verify(BODY, HEADER, SECRET, now=now)


def test_during_a_rotation_any_listed_signature_may_match():
    rotated = f"t={AT},v1={'0' * 64},{HEADER.split(',')[1]}"
    assert verify(BODY, rotated, SECRET, now=AT) == AT


@pytest.mark.parametrize("header", [None, "", "v1=abc", f"t={AT}", "t=soon,v1=00", "x" * 5000])
def test_missing_and_malformed_headers_are_refused(header):
    with pytest.raises(SignatureError):
        verify(BODY, header, SECRET, now=AT)


def test_a_rotation_header_verifies_with_either_secret_or_both_held():
    """During a rotation's grace period a delivery carries a v1 per secret
    (the platform signs with the new and the replaced one): a receiver
    holding either, or both, verifies it; one holding neither does not."""
    body = b'{"id":"1","type":"webhook.ping"}'
    new, old = "whsec_new", "whsec_old"
    t = 1_764_115_200
    header = sign(new, t, body) + "," + sign(old, t, body).split(",", 1)[1]
    assert header.count("v1=") == 2
    for held in (new, old, [new, old], (old,)):
        assert verify(body, header, held, now=t) == t
    with pytest.raises(SignatureError):
        verify(body, header, ["whsec_other"], now=t)
    with pytest.raises(SignatureError):
        verify(body, header, [], now=t)
