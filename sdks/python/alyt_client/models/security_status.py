from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.mode import Mode
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.hub_view import HubView
  from ..models.incident_view import IncidentView
  from ..models.output_view import OutputView
  from ..models.readiness import Readiness
  from ..models.security_thing_view import SecurityThingView
  from ..models.settings_view import SettingsView





T = TypeVar("T", bound="SecurityStatus")



@_attrs_define
class SecurityStatus:
    """ A home's security now.

        Attributes:
            access (str): What the caller may do: `see`, `control` or `configure`.
            armed_since (datetime.datetime | None): When the armed period's detection began (null: not armed).
            authority (str): `builtin`, or `connector` (a security-system connector runs it).
            authority_integration_id (None | str): The security system's integration when `authority` is `connector`.
            confirmed_mode (Mode): A home's security mode.
            degraded (bool): The confirmed mode holds, but part of the runtime cannot be reached.
            exit_until (datetime.datetime | None): When the exit countdown ends (null: none runs).
            generation (int): The armed period's generation an arming or Off must carry.
            hub (HubView | None):
            incident (IncidentView | None):
            outputs (list[OutputView]): The outputs of the last alarm until they are all restored: sirens,
                the night-light rooms' lights (flashing at full intensity, only
                between sunset and sunrise at the home's location), the
                speaker-alarm rooms' speakers (at 50%, the siren alternating with
                the deterrent recording).
            property_id (UUID):
            readiness (Readiness):
            requested_mode (Mode): A home's security mode.
            restoration_pending (bool): Outputs changed by the last alarm are still to be restored (arming
                and settings wait for it).
            revision (int): The configuration revision an arming must carry.
            runtime_unavailable (bool): A hub-run home whose hub cannot be reached: the household keeps
                seeing the confirmed mode, but the runtime that protects it is away.
            settings (SettingsView): The household's settings.
            switching_to (None | str): A hand-over to a security system waiting for the outputs to be
                restored (its integration id).
            things (list[SecurityThingView]): Every thing with a use for security, with its selection.
     """

    access: str
    armed_since: datetime.datetime | None
    authority: str
    authority_integration_id: None | str
    confirmed_mode: Mode
    degraded: bool
    exit_until: datetime.datetime | None
    generation: int
    hub: HubView | None
    incident: IncidentView | None
    outputs: list[OutputView]
    property_id: UUID
    readiness: Readiness
    requested_mode: Mode
    restoration_pending: bool
    revision: int
    runtime_unavailable: bool
    settings: SettingsView
    switching_to: None | str
    things: list[SecurityThingView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.hub_view import HubView # noqa: PLC0415
        from ..models.incident_view import IncidentView # noqa: PLC0415
        from ..models.output_view import OutputView # noqa: PLC0415
        from ..models.readiness import Readiness # noqa: PLC0415
        from ..models.security_thing_view import SecurityThingView # noqa: PLC0415
        from ..models.settings_view import SettingsView # noqa: PLC0415
        access = self.access

        armed_since: None | str
        if isinstance(self.armed_since, datetime.datetime):
            armed_since = self.armed_since.isoformat()
        else:
            armed_since = self.armed_since

        authority = self.authority

        authority_integration_id: None | str
        authority_integration_id = self.authority_integration_id

        confirmed_mode = self.confirmed_mode.value

        degraded = self.degraded

        exit_until: None | str
        if isinstance(self.exit_until, datetime.datetime):
            exit_until = self.exit_until.isoformat()
        else:
            exit_until = self.exit_until

        generation = self.generation

        hub: dict[str, Any] | None
        if isinstance(self.hub, HubView):
            hub = self.hub.to_dict()
        else:
            hub = self.hub

        incident: dict[str, Any] | None
        if isinstance(self.incident, IncidentView):
            incident = self.incident.to_dict()
        else:
            incident = self.incident

        outputs = []
        for outputs_item_data in self.outputs:
            outputs_item = outputs_item_data.to_dict()
            outputs.append(outputs_item)



        property_id = str(self.property_id)

        readiness = self.readiness.to_dict()

        requested_mode = self.requested_mode.value

        restoration_pending = self.restoration_pending

        revision = self.revision

        runtime_unavailable = self.runtime_unavailable

        settings = self.settings.to_dict()

        switching_to: None | str
        switching_to = self.switching_to

        things = []
        for things_item_data in self.things:
            things_item = things_item_data.to_dict()
            things.append(things_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "access": access,
            "armedSince": armed_since,
            "authority": authority,
            "authorityIntegrationId": authority_integration_id,
            "confirmedMode": confirmed_mode,
            "degraded": degraded,
            "exitUntil": exit_until,
            "generation": generation,
            "hub": hub,
            "incident": incident,
            "outputs": outputs,
            "propertyId": property_id,
            "readiness": readiness,
            "requestedMode": requested_mode,
            "restorationPending": restoration_pending,
            "revision": revision,
            "runtimeUnavailable": runtime_unavailable,
            "settings": settings,
            "switchingTo": switching_to,
            "things": things,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hub_view import HubView # noqa: PLC0415
        from ..models.incident_view import IncidentView # noqa: PLC0415
        from ..models.output_view import OutputView # noqa: PLC0415
        from ..models.readiness import Readiness # noqa: PLC0415
        from ..models.security_thing_view import SecurityThingView # noqa: PLC0415
        from ..models.settings_view import SettingsView # noqa: PLC0415
        d = dict(src_dict)
        access = d.pop("access")

        def _parse_armed_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                armed_since_type_0 = datetime.datetime.fromisoformat(data)



                return armed_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        armed_since = _parse_armed_since(d.pop("armedSince"))


        authority = d.pop("authority")

        def _parse_authority_integration_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        authority_integration_id = _parse_authority_integration_id(d.pop("authorityIntegrationId"))


        confirmed_mode = Mode(d.pop("confirmedMode"))




        degraded = d.pop("degraded")

        def _parse_exit_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                exit_until_type_0 = datetime.datetime.fromisoformat(data)



                return exit_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        exit_until = _parse_exit_until(d.pop("exitUntil"))


        generation = d.pop("generation")

        def _parse_hub(data: object) -> HubView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                hub_type_1 = HubView.from_dict(data)



                return hub_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HubView | None, data)

        hub = _parse_hub(d.pop("hub"))


        def _parse_incident(data: object) -> IncidentView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                incident_type_1 = IncidentView.from_dict(data)



                return incident_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IncidentView | None, data)

        incident = _parse_incident(d.pop("incident"))


        outputs = []
        _outputs = d.pop("outputs")
        for outputs_item_data in (_outputs):
            outputs_item = OutputView.from_dict(outputs_item_data)



            outputs.append(outputs_item)


        property_id = UUID(d.pop("propertyId"))




        readiness = Readiness.from_dict(d.pop("readiness"))




        requested_mode = Mode(d.pop("requestedMode"))




        restoration_pending = d.pop("restorationPending")

        revision = d.pop("revision")

        runtime_unavailable = d.pop("runtimeUnavailable")

        settings = SettingsView.from_dict(d.pop("settings"))




        def _parse_switching_to(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        switching_to = _parse_switching_to(d.pop("switchingTo"))


        things = []
        _things = d.pop("things")
        for things_item_data in (_things):
            things_item = SecurityThingView.from_dict(things_item_data)



            things.append(things_item)


        security_status = cls(
            access=access,
            armed_since=armed_since,
            authority=authority,
            authority_integration_id=authority_integration_id,
            confirmed_mode=confirmed_mode,
            degraded=degraded,
            exit_until=exit_until,
            generation=generation,
            hub=hub,
            incident=incident,
            outputs=outputs,
            property_id=property_id,
            readiness=readiness,
            requested_mode=requested_mode,
            restoration_pending=restoration_pending,
            revision=revision,
            runtime_unavailable=runtime_unavailable,
            settings=settings,
            switching_to=switching_to,
            things=things,
        )


        security_status.additional_properties = d
        return security_status

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
