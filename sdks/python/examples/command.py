"""A command to a virtual device: find the sandbox's virtual light, set one of
its controls, and read the command's result.

A command is accepted at once (202, state ``sent``, or ``pending`` while the
device is offline); the device's answer comes later. This polls the device's
command history for it; the ``command.result`` event carries the same answer
on the event stream and to webhooks (see stream.py, webhook_receiver.py).

    ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... python command.py power=true
    python command.py brightness=40
    python command.py brightness=150      # refused: the problem names the field

The key needs the scopes devices:read and devices:commands.
"""

import json
import os
import sys
import time

from alyt_client.api.developers import developer_who_am_i
from alyt_client.api.homes import list_device_commands, list_devices, send_device_command
from alyt_client.models import CommandState, SetCommand, SetCommandCommand, SetCommandPayload
from alyt_sdk import AlytProblemError, create_client

BASE = os.environ.get("ALYT_BASE_URL", "http://127.0.0.1:8080")
KEY = os.environ.get("ALYT_KEY") or sys.exit("set ALYT_KEY (see the top of this file)")

# `key=value` of the light's controls: power=true, brightness=40, colorTemp=3000.
control, _, text = (sys.argv[1] if len(sys.argv) > 1 else "power=true").partition("=")
try:
    value = json.loads(text)
except ValueError:
    value = text

# The client raises AlytProblemError for every failure.
api = create_client(BASE, KEY)

# A DEV key reaches one tenant: its developer's sandbox.
tenant_id = developer_who_am_i.sync(client=api).tenants[0]
devices = list_devices.sync(client=api, tenant_id=tenant_id, limit=200).items
light = next((d for d in devices if "LIGHT" in d.capabilities), None) or sys.exit("no light in the sandbox")

try:
    command = send_device_command.sync(
        light.id,
        client=api,
        tenant_id=tenant_id,
        body=SetCommand(
            command=SetCommandCommand.SET,
            payload=SetCommandPayload(capability="light", key=control, value=value),
        ),
    )
except AlytProblemError as error:
    # e.g. 400 urn:alyt:problem:validation, field payload.value: "must be at most 100".
    print(f"refused ({error.status} {error.type}): {error.detail}", file=sys.stderr)
    sys.exit(f"  field {error.field or '-'}, request {error.request_id}")
print(f"{light.name}: {control}={json.dumps(value)} is command {command.command_id} ({command.state})")

# Wait for the device's answer (the virtual light answers in milliseconds).
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    history = list_device_commands.sync(light.id, client=api, tenant_id=tenant_id, limit=20).items
    row = next((r for r in history if r.command_id == command.command_id), None)
    if row is not None and row.state == CommandState.ANSWERED:
        print(f"command {row.command_id} answered: {row.result_status}")
        sys.exit(0 if row.result_status == "ok" else 1)
    if row is not None and row.state == CommandState.UNDELIVERABLE:
        sys.exit(f"command {row.command_id} undeliverable: {row.undeliverable_reason}")
    time.sleep(0.25)
sys.exit(f"command {command.command_id}: no answer within 15 s")
