"""Alyt's Python SDK: the client generated from the OpenAPI contract
(``alyt_client``, by openapi-python-client) and the helpers a generator
cannot write: webhook signature verification and the resumable event
stream."""

from alyt_client import AuthenticatedClient, Client

from .stream import EventStream, StreamEvent, home_stream_path
from .webhooks import SIGNATURE_HEADER, SignatureError, sign, verify

__all__ = [
    "AuthenticatedClient",
    "Client",
    "EventStream",
    "StreamEvent",
    "home_stream_path",
    "SIGNATURE_HEADER",
    "SignatureError",
    "sign",
    "verify",
]
