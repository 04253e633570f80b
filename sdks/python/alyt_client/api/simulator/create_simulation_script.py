from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_script_request import CreateScriptRequest
from ...models.problem import Problem
from ...models.simulation_script import SimulationScript
from typing import cast



def _get_kwargs(
    *,
    body: CreateScriptRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/simulator/scripts",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SimulationScript:
    if response.status_code == 201:
        response_201 = SimulationScript.from_dict(response.json())



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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SimulationScript]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateScriptRequest,

) -> Response[Problem | SimulationScript]:
    """ Stores a script in the sandbox, checked first: each refusal names its
    field (`script.steps[3].payload`).

    Args:
        body (CreateScriptRequest): The body of `POST /v1/developers/simulator/scripts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SimulationScript]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: CreateScriptRequest,

) -> Problem | SimulationScript | None:
    """ Stores a script in the sandbox, checked first: each refusal names its
    field (`script.steps[3].payload`).

    Args:
        body (CreateScriptRequest): The body of `POST /v1/developers/simulator/scripts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SimulationScript
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateScriptRequest,

) -> Response[Problem | SimulationScript]:
    """ Stores a script in the sandbox, checked first: each refusal names its
    field (`script.steps[3].payload`).

    Args:
        body (CreateScriptRequest): The body of `POST /v1/developers/simulator/scripts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SimulationScript]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateScriptRequest,

) -> Problem | SimulationScript | None:
    """ Stores a script in the sandbox, checked first: each refusal names its
    field (`script.steps[3].payload`).

    Args:
        body (CreateScriptRequest): The body of `POST /v1/developers/simulator/scripts`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SimulationScript
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
