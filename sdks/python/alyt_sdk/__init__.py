"""Alyt's Python SDK: the client generated from the OpenAPI contract
(``alyt_client``, by openapi-python-client) and the helpers a generator
cannot write: webhook signature verification, the resumable event stream,
typed failures and retries (:func:`create_client`)."""

from alyt_client import AuthenticatedClient, Client

from .client import AlytAuthenticatedClient, AlytClient, SessionToken, TokenSource, create_client
from .errors import AlytProblemError, CredentialRevokedError, StreamEndedError, retry_after_seconds
from .retry import IDEMPOTENT_METHODS, RETRY_STATUSES, RetryPolicy
from .stream import EventStream, StreamEvent, home_stream_path
from .webhooks import SIGNATURE_HEADER, SignatureError, sign, verify

__all__ = [
    "AuthenticatedClient",
    "Client",
    "AlytAuthenticatedClient",
    "AlytClient",
    "AlytProblemError",
    "CredentialRevokedError",
    "StreamEndedError",
    "RetryPolicy",
    "IDEMPOTENT_METHODS",
    "RETRY_STATUSES",
    "SessionToken",
    "TokenSource",
    "create_client",
    "retry_after_seconds",
    "EventStream",
    "StreamEvent",
    "home_stream_path",
    "SIGNATURE_HEADER",
    "SignatureError",
    "sign",
    "verify",
]
