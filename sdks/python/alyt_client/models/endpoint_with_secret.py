from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.destination_kind import DestinationKind
from ..models.disabled_reason import DisabledReason
from ..models.endpoint_status import EndpointStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.event_bridge_view import EventBridgeView





T = TypeVar("T", bound="EndpointWithSecret")



@_attrs_define
class EndpointWithSecret:
    """ The create answer: the endpoint and its signing secret, shown this once.

        Attributes:
            consecutive_failures (int): Failed attempts since the last success (50 disable it).
            created_at (datetime.datetime):
            description (None | str):
            disabled_at (datetime.datetime | None):
            disabled_reason (DisabledReason | None):
            event_bridge (EventBridgeView | None):
            events (list[str]): The event kinds it receives.
            id (UUID):
            key_id (UUID):
            kind (DestinationKind): What an endpoint delivers to.
            secret_grace_ends_at (datetime.datetime | None): Until when deliveries also carry a signature made with the
                secret
                the last rotation replaced (in the past once that grace period
                ended); null if the secret was never rotated.
            status (EndpointStatus):
            url (str): Where deliveries go: the receiver's URL, or an EventBridge
                destination's bus ARN.
            secret (str): `whsec_…`: the HMAC-SHA256 key of `X-SVC-Signature` (verify with
                Stripe's libraries). Shown once.
     """

    consecutive_failures: int
    created_at: datetime.datetime
    description: None | str
    disabled_at: datetime.datetime | None
    disabled_reason: DisabledReason | None
    event_bridge: EventBridgeView | None
    events: list[str]
    id: UUID
    key_id: UUID
    kind: DestinationKind
    secret_grace_ends_at: datetime.datetime | None
    status: EndpointStatus
    url: str
    secret: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_bridge_view import EventBridgeView # noqa: PLC0415
        consecutive_failures = self.consecutive_failures

        created_at = self.created_at.isoformat()

        description: None | str
        description = self.description

        disabled_at: None | str
        if isinstance(self.disabled_at, datetime.datetime):
            disabled_at = self.disabled_at.isoformat()
        else:
            disabled_at = self.disabled_at

        disabled_reason: None | str
        if isinstance(self.disabled_reason, DisabledReason):
            disabled_reason = self.disabled_reason.value
        else:
            disabled_reason = self.disabled_reason

        event_bridge: dict[str, Any] | None
        if isinstance(self.event_bridge, EventBridgeView):
            event_bridge = self.event_bridge.to_dict()
        else:
            event_bridge = self.event_bridge

        events = self.events



        id = str(self.id)

        key_id = str(self.key_id)

        kind = self.kind.value

        secret_grace_ends_at: None | str
        if isinstance(self.secret_grace_ends_at, datetime.datetime):
            secret_grace_ends_at = self.secret_grace_ends_at.isoformat()
        else:
            secret_grace_ends_at = self.secret_grace_ends_at

        status = self.status.value

        url = self.url

        secret = self.secret


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consecutiveFailures": consecutive_failures,
            "createdAt": created_at,
            "description": description,
            "disabledAt": disabled_at,
            "disabledReason": disabled_reason,
            "eventBridge": event_bridge,
            "events": events,
            "id": id,
            "keyId": key_id,
            "kind": kind,
            "secretGraceEndsAt": secret_grace_ends_at,
            "status": status,
            "url": url,
            "secret": secret,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_bridge_view import EventBridgeView # noqa: PLC0415
        d = dict(src_dict)
        consecutive_failures = d.pop("consecutiveFailures")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))


        def _parse_disabled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_at_type_0 = datetime.datetime.fromisoformat(data)



                return disabled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        disabled_at = _parse_disabled_at(d.pop("disabledAt"))


        def _parse_disabled_reason(data: object) -> DisabledReason | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_reason_type_1 = DisabledReason(data)



                return disabled_reason_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DisabledReason | None, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabledReason"))


        def _parse_event_bridge(data: object) -> EventBridgeView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_bridge_type_1 = EventBridgeView.from_dict(data)



                return event_bridge_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventBridgeView | None, data)

        event_bridge = _parse_event_bridge(d.pop("eventBridge"))


        events = cast(list[str], d.pop("events"))


        id = UUID(d.pop("id"))




        key_id = UUID(d.pop("keyId"))




        kind = DestinationKind(d.pop("kind"))




        def _parse_secret_grace_ends_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                secret_grace_ends_at_type_0 = datetime.datetime.fromisoformat(data)



                return secret_grace_ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        secret_grace_ends_at = _parse_secret_grace_ends_at(d.pop("secretGraceEndsAt"))


        status = EndpointStatus(d.pop("status"))




        url = d.pop("url")

        secret = d.pop("secret")

        endpoint_with_secret = cls(
            consecutive_failures=consecutive_failures,
            created_at=created_at,
            description=description,
            disabled_at=disabled_at,
            disabled_reason=disabled_reason,
            event_bridge=event_bridge,
            events=events,
            id=id,
            key_id=key_id,
            kind=kind,
            secret_grace_ends_at=secret_grace_ends_at,
            status=status,
            url=url,
            secret=secret,
        )


        endpoint_with_secret.additional_properties = d
        return endpoint_with_secret

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
