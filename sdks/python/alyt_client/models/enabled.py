from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.webhook_endpoint import WebhookEndpoint
  from ..models.webhook_recovery import WebhookRecovery





T = TypeVar("T", bound="Enabled")



@_attrs_define
class Enabled:
    """ The answer of a re-enable.

        Attributes:
            endpoint (WebhookEndpoint): A registered endpoint; never its secret.
            recovery (None | WebhookRecovery):
            requeued (int): Held deliveries queued again (new series, due at once, oldest event first).
     """

    endpoint: WebhookEndpoint
    recovery: None | WebhookRecovery
    requeued: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_endpoint import WebhookEndpoint # noqa: PLC0415
        from ..models.webhook_recovery import WebhookRecovery # noqa: PLC0415
        endpoint = self.endpoint.to_dict()

        recovery: dict[str, Any] | None
        if isinstance(self.recovery, WebhookRecovery):
            recovery = self.recovery.to_dict()
        else:
            recovery = self.recovery

        requeued = self.requeued


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "endpoint": endpoint,
            "recovery": recovery,
            "requeued": requeued,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_endpoint import WebhookEndpoint # noqa: PLC0415
        from ..models.webhook_recovery import WebhookRecovery # noqa: PLC0415
        d = dict(src_dict)
        endpoint = WebhookEndpoint.from_dict(d.pop("endpoint"))




        def _parse_recovery(data: object) -> None | WebhookRecovery:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recovery_type_1 = WebhookRecovery.from_dict(data)



                return recovery_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WebhookRecovery, data)

        recovery = _parse_recovery(d.pop("recovery"))


        requeued = d.pop("requeued")

        enabled = cls(
            endpoint=endpoint,
            recovery=recovery,
            requeued=requeued,
        )


        enabled.additional_properties = d
        return enabled

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
