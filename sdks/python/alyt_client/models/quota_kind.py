from enum import StrEnum

class QuotaKind(StrEnum):
    MQTT_MESSAGES = "MQTT_MESSAGES"
    REQUESTS = "REQUESTS"
    VIRTUAL_DEVICES = "VIRTUAL_DEVICES"

    def __str__(self) -> str:
        return str(self.value)
