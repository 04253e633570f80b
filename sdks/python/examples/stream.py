"""The event stream: every event of your sandbox as it happens, resumed after
any disconnect without losing or repeating one.

It saves the id of each event it has handled (ALYT_STREAM_STATE), so started
again it resumes after that one, and gets what happened in between. It ends
with a typed error when it cannot go on: CredentialRevokedError (the key was
revoked) or StreamEndedError (a refusal, e.g. an unknown event kind), both
with the id to resume from.

    ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... python stream.py

Optional: ALYT_STREAM_EVENTS (kinds, comma-separated; default
command.result,thing.state), ALYT_STREAM_STATE (default last-event-id.txt),
ALYT_LAST_EVENT_ID (resume after this id instead), ALYT_STREAM_LIMIT (stop
after that many events; default: until Ctrl-C). The key needs events:read.
"""

import json
import os
import sys
from pathlib import Path

from alyt_sdk import CredentialRevokedError, EventStream, StreamEndedError

BASE = os.environ.get("ALYT_BASE_URL", "http://127.0.0.1:8080")
KEY = os.environ.get("ALYT_KEY") or sys.exit("set ALYT_KEY (see the top of this file)")
EVENTS = os.environ.get("ALYT_STREAM_EVENTS", "command.result,thing.state").split(",")
STATE = Path(os.environ.get("ALYT_STREAM_STATE", "last-event-id.txt"))
LIMIT = float(os.environ.get("ALYT_STREAM_LIMIT", "inf"))

last_event_id = os.environ.get("ALYT_LAST_EVENT_ID") or (STATE.read_text().strip() if STATE.exists() else None)
print(f"resuming after {last_event_id}" if last_event_id else "from now on", flush=True)
seen = 0
try:
    with EventStream(BASE, KEY, events=EVENTS, last_event_id=last_event_id) as stream:
        for event in stream:
            data = event.envelope["data"]
            if event.kind == "command.result":
                print(f"{event.id} command {data['commandId']} on {data['deviceId']}: {data['status']}", flush=True)
            else:
                print(f"{event.id} {event.kind}: {json.dumps(data)}", flush=True)
            STATE.write_text(event.id)  # handled: a restart resumes after it
            seen += 1
            if seen >= LIMIT:
                break
except KeyboardInterrupt:
    pass  # Ctrl-C: the saved id is where the next run resumes
except StreamEndedError as error:
    # CredentialRevokedError is a StreamEndedError: test it first.
    if isinstance(error, CredentialRevokedError):
        print("the key no longer works: make a new one", file=sys.stderr)
    print(f"the stream ended: {error}", file=sys.stderr)
    if error.problem is not None:
        print(f"  {error.problem.type}, request {error.problem.request_id}", file=sys.stderr)
    sys.exit(f"  resume after {error.last_event_id or 'the last id saved'}")
