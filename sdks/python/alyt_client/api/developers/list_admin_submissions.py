from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.list_response_reviewed_submission import ListResponseReviewedSubmission
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    developer_id: UUID | Unset = UNSET,
    connector_id: UUID | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_developer_id: str | Unset = UNSET
    if not isinstance(developer_id, Unset):
        json_developer_id = str(developer_id)
    params["developerId"] = json_developer_id

    json_connector_id: str | Unset = UNSET
    if not isinstance(connector_id, Unset):
        json_connector_id = str(connector_id)
    params["connectorId"] = json_connector_id

    params["limit"] = limit

    params["cursor"] = cursor


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/admin/submissions",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ListResponseReviewedSubmission | Problem:
    if response.status_code == 200:
        response_200 = ListResponseReviewedSubmission.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ListResponseReviewedSubmission | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    developer_id: UUID | Unset = UNSET,
    connector_id: UUID | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ListResponseReviewedSubmission | Problem]:
    """ The review queue, or every version of a developer or a connector.

    Args:
        developer_id (UUID | Unset):
        connector_id (UUID | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListResponseReviewedSubmission | Problem]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,
connector_id=connector_id,
limit=limit,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    developer_id: UUID | Unset = UNSET,
    connector_id: UUID | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ListResponseReviewedSubmission | Problem | None:
    """ The review queue, or every version of a developer or a connector.

    Args:
        developer_id (UUID | Unset):
        connector_id (UUID | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListResponseReviewedSubmission | Problem
     """


    return sync_detailed(
        client=client,
developer_id=developer_id,
connector_id=connector_id,
limit=limit,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    developer_id: UUID | Unset = UNSET,
    connector_id: UUID | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ListResponseReviewedSubmission | Problem]:
    """ The review queue, or every version of a developer or a connector.

    Args:
        developer_id (UUID | Unset):
        connector_id (UUID | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListResponseReviewedSubmission | Problem]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,
connector_id=connector_id,
limit=limit,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    developer_id: UUID | Unset = UNSET,
    connector_id: UUID | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ListResponseReviewedSubmission | Problem | None:
    """ The review queue, or every version of a developer or a connector.

    Args:
        developer_id (UUID | Unset):
        connector_id (UUID | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListResponseReviewedSubmission | Problem
     """


    return (await asyncio_detailed(
        client=client,
developer_id=developer_id,
connector_id=connector_id,
limit=limit,
cursor=cursor,

    )).parsed
