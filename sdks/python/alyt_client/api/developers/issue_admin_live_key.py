from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.issue_live_key_request import IssueLiveKeyRequest
from ...models.key_with_secret import KeyWithSecret
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    developer_id: UUID,
    *,
    body: IssueLiveKeyRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/admin/developers/{developer_id}/live-keys".format(developer_id=quote(str(developer_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> KeyWithSecret | Problem:
    if response.status_code == 201:
        response_201 = KeyWithSecret.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[KeyWithSecret | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,
    body: IssueLiveKeyRequest,

) -> Response[KeyWithSecret | Problem]:
    """ Issues a LIVE key to an ACTIVE developer once its connector is approved
    (platform OWNER or STAFF; issuance is manual for now). The answer carries the
    secret, `svc_dev_…` like every key's (the key's record makes it LIVE),
    shown this once; the developer then lists, rotates and
    revokes the key like its DEV keys. A LIVE key acts only for the tenants that
    installed its connector (`definitionId` = the connector's id); approval
    alone grants no household access. Name, scopes and expiry
    follow the rules of a DEV key, and the developer's limit of keys that are
    not revoked counts DEV and LIVE keys together.

    Args:
        developer_id (UUID):
        body (IssueLiveKeyRequest): A LIVE key to issue: the fields of a new DEV key (same rules)
            and the
            approved connector definition it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,
    body: IssueLiveKeyRequest,

) -> KeyWithSecret | Problem | None:
    """ Issues a LIVE key to an ACTIVE developer once its connector is approved
    (platform OWNER or STAFF; issuance is manual for now). The answer carries the
    secret, `svc_dev_…` like every key's (the key's record makes it LIVE),
    shown this once; the developer then lists, rotates and
    revokes the key like its DEV keys. A LIVE key acts only for the tenants that
    installed its connector (`definitionId` = the connector's id); approval
    alone grants no household access. Name, scopes and expiry
    follow the rules of a DEV key, and the developer's limit of keys that are
    not revoked counts DEV and LIVE keys together.

    Args:
        developer_id (UUID):
        body (IssueLiveKeyRequest): A LIVE key to issue: the fields of a new DEV key (same rules)
            and the
            approved connector definition it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyWithSecret | Problem
     """


    return sync_detailed(
        developer_id=developer_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,
    body: IssueLiveKeyRequest,

) -> Response[KeyWithSecret | Problem]:
    """ Issues a LIVE key to an ACTIVE developer once its connector is approved
    (platform OWNER or STAFF; issuance is manual for now). The answer carries the
    secret, `svc_dev_…` like every key's (the key's record makes it LIVE),
    shown this once; the developer then lists, rotates and
    revokes the key like its DEV keys. A LIVE key acts only for the tenants that
    installed its connector (`definitionId` = the connector's id); approval
    alone grants no household access. Name, scopes and expiry
    follow the rules of a DEV key, and the developer's limit of keys that are
    not revoked counts DEV and LIVE keys together.

    Args:
        developer_id (UUID):
        body (IssueLiveKeyRequest): A LIVE key to issue: the fields of a new DEV key (same rules)
            and the
            approved connector definition it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,
    body: IssueLiveKeyRequest,

) -> KeyWithSecret | Problem | None:
    """ Issues a LIVE key to an ACTIVE developer once its connector is approved
    (platform OWNER or STAFF; issuance is manual for now). The answer carries the
    secret, `svc_dev_…` like every key's (the key's record makes it LIVE),
    shown this once; the developer then lists, rotates and
    revokes the key like its DEV keys. A LIVE key acts only for the tenants that
    installed its connector (`definitionId` = the connector's id); approval
    alone grants no household access. Name, scopes and expiry
    follow the rules of a DEV key, and the developer's limit of keys that are
    not revoked counts DEV and LIVE keys together.

    Args:
        developer_id (UUID):
        body (IssueLiveKeyRequest): A LIVE key to issue: the fields of a new DEV key (same rules)
            and the
            approved connector definition it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyWithSecret | Problem
     """


    return (await asyncio_detailed(
        developer_id=developer_id,
client=client,
body=body,

    )).parsed
