from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.effective_quota_view import EffectiveQuotaView
from ...models.problem import Problem
from ...models.put_quota_request import PutQuotaRequest
from typing import cast
from uuid import UUID



def _get_kwargs(
    developer_id: UUID,
    *,
    body: PutQuotaRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/developers/admin/developers/{developer_id}/quota".format(developer_id=quote(str(developer_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EffectiveQuotaView | Problem:
    if response.status_code == 200:
        response_200 = EffectiveQuotaView.from_dict(response.json())



        return response_200

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

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EffectiveQuotaView | Problem]:
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
    body: PutQuotaRequest,

) -> Response[EffectiveQuotaView | Problem]:
    """ Sets the developer's quota of one kind, replacing any earlier override;
    answers the new effective value (platform OWNER or STAFF). Keyed requests
    of the developer see it at once on this instance and within a minute on
    every other.

    Args:
        developer_id (UUID):
        body (PutQuotaRequest): A quota override for one developer: the kind and a Quota default
            value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EffectiveQuotaView | Problem]
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
    body: PutQuotaRequest,

) -> EffectiveQuotaView | Problem | None:
    """ Sets the developer's quota of one kind, replacing any earlier override;
    answers the new effective value (platform OWNER or STAFF). Keyed requests
    of the developer see it at once on this instance and within a minute on
    every other.

    Args:
        developer_id (UUID):
        body (PutQuotaRequest): A quota override for one developer: the kind and a Quota default
            value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EffectiveQuotaView | Problem
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
    body: PutQuotaRequest,

) -> Response[EffectiveQuotaView | Problem]:
    """ Sets the developer's quota of one kind, replacing any earlier override;
    answers the new effective value (platform OWNER or STAFF). Keyed requests
    of the developer see it at once on this instance and within a minute on
    every other.

    Args:
        developer_id (UUID):
        body (PutQuotaRequest): A quota override for one developer: the kind and a Quota default
            value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EffectiveQuotaView | Problem]
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
    body: PutQuotaRequest,

) -> EffectiveQuotaView | Problem | None:
    """ Sets the developer's quota of one kind, replacing any earlier override;
    answers the new effective value (platform OWNER or STAFF). Keyed requests
    of the developer see it at once on this instance and within a minute on
    every other.

    Args:
        developer_id (UUID):
        body (PutQuotaRequest): A quota override for one developer: the kind and a Quota default
            value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EffectiveQuotaView | Problem
     """


    return (await asyncio_detailed(
        developer_id=developer_id,
client=client,
body=body,

    )).parsed
