from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.script_run import ScriptRun
from ...models.start_run_request import StartRunRequest
from typing import cast



def _get_kwargs(
    *,
    body: StartRunRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/simulator/runs",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ScriptRun:
    if response.status_code == 202:
        response_202 = ScriptRun.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ScriptRun]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: StartRunRequest,

) -> Response[Problem | ScriptRun]:
    """ Plays a stored script against chosen virtual devices with a seed. The
    devices leave the simulator for the run (a clean DISCONNECT), a player
    sends the run's traffic at its offsets as those devices and answers
    their commands as the script says, and the devices come back to the
    simulator at its end. Follow it with `GET …/runs/{runId}`.

    Args:
        body (StartRunRequest): The body of `POST /v1/developers/simulator/runs`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScriptRun]
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
    body: StartRunRequest,

) -> Problem | ScriptRun | None:
    """ Plays a stored script against chosen virtual devices with a seed. The
    devices leave the simulator for the run (a clean DISCONNECT), a player
    sends the run's traffic at its offsets as those devices and answers
    their commands as the script says, and the devices come back to the
    simulator at its end. Follow it with `GET …/runs/{runId}`.

    Args:
        body (StartRunRequest): The body of `POST /v1/developers/simulator/runs`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScriptRun
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: StartRunRequest,

) -> Response[Problem | ScriptRun]:
    """ Plays a stored script against chosen virtual devices with a seed. The
    devices leave the simulator for the run (a clean DISCONNECT), a player
    sends the run's traffic at its offsets as those devices and answers
    their commands as the script says, and the devices come back to the
    simulator at its end. Follow it with `GET …/runs/{runId}`.

    Args:
        body (StartRunRequest): The body of `POST /v1/developers/simulator/runs`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScriptRun]
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
    body: StartRunRequest,

) -> Problem | ScriptRun | None:
    """ Plays a stored script against chosen virtual devices with a seed. The
    devices leave the simulator for the run (a clean DISCONNECT), a player
    sends the run's traffic at its offsets as those devices and answers
    their commands as the script says, and the devices come back to the
    simulator at its end. Follow it with `GET …/runs/{runId}`.

    Args:
        body (StartRunRequest): The body of `POST /v1/developers/simulator/runs`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScriptRun
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
