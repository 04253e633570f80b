from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.acknowledge_body import AcknowledgeBody
from ...models.incident_view import IncidentView
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    property_id: UUID,
    number: int,
    *,
    body: AcknowledgeBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/home-security/{property_id}/incidents/{number}/acknowledge".format(property_id=quote(str(property_id), safe=""),number=quote(str(number), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> IncidentView | Problem:
    if response.status_code == 200:
        response_200 = IncidentView.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[IncidentView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    property_id: UUID,
    number: int,
    *,
    client: AuthenticatedClient,
    body: AcknowledgeBody,

) -> Response[IncidentView | Problem]:
    """ A resident acknowledges the latest incident (separate from Off; one
    resident's, for good).

    Args:
        property_id (UUID):
        number (int):
        body (AcknowledgeBody): The body of an acknowledgement.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IncidentView | Problem]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
number=number,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    property_id: UUID,
    number: int,
    *,
    client: AuthenticatedClient,
    body: AcknowledgeBody,

) -> IncidentView | Problem | None:
    """ A resident acknowledges the latest incident (separate from Off; one
    resident's, for good).

    Args:
        property_id (UUID):
        number (int):
        body (AcknowledgeBody): The body of an acknowledgement.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IncidentView | Problem
     """


    return sync_detailed(
        property_id=property_id,
number=number,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    property_id: UUID,
    number: int,
    *,
    client: AuthenticatedClient,
    body: AcknowledgeBody,

) -> Response[IncidentView | Problem]:
    """ A resident acknowledges the latest incident (separate from Off; one
    resident's, for good).

    Args:
        property_id (UUID):
        number (int):
        body (AcknowledgeBody): The body of an acknowledgement.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IncidentView | Problem]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
number=number,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    property_id: UUID,
    number: int,
    *,
    client: AuthenticatedClient,
    body: AcknowledgeBody,

) -> IncidentView | Problem | None:
    """ A resident acknowledges the latest incident (separate from Off; one
    resident's, for good).

    Args:
        property_id (UUID):
        number (int):
        body (AcknowledgeBody): The body of an acknowledgement.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IncidentView | Problem
     """


    return (await asyncio_detailed(
        property_id=property_id,
number=number,
client=client,
body=body,

    )).parsed
